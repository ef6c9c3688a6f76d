//! A packet-level wormhole network model (Mache et al. §4.1: "wormhole switching, minimal
//! dimension-ordered XY routing and mesh topologies with two uni-directional links between
//! adjacent nodes. All message-passing is modeled at the packet-level", as in ProcSimity), the
//! third contention model beside [`super::flow`] and [`super::separated`]. Choices where the
//! paper is silent are in `docs/network-model.md` ("Wormhole model").
//!
//! **Fabric.** Every message is one packet of `packet_flits` flits routed XY over
//! [`Network`] (§2.1, §4.1). Its path is a list of channels: the source's injection channel,
//! the directed links of its XY route (two unidirectional links between neighbours, the I/O
//! line included) and the destination's ejection channel. A worm is rigid (one-flit buffers):
//! its header enters position k of the path at time t_k, one flit time after position k − 1
//! when the channel is free; it holds each channel from its header's entry until its tail
//! leaves, which is when the header enters the position `packet_flits` further on (past the
//! ejection channel the positions are always free). A header that finds its next channel held
//! waits in that channel's FIFO queue, holding every channel behind it (a blocked worm stalls
//! as a whole); the channel passes to the first waiter the instant the holder's tail leaves.
//! Unblocked, a message of h path channels injected at t is delivered at t + h − 1 + flits.
//!
//! **Jobs** (§4.1, "I/O and Communication Traffic"): FCFS with any [`NodeAllocator`], as the
//! flow engine. A job of length C runs `max(1, round(C / round_seconds))` rounds; a round is an
//! all-to-all exchange (every node sends one message to every other node) or a
//! complete-bipartite write (every node sends one message to every I/O node); a fraction ρ of
//! the rounds are writes (spread deterministically, see [`round_is_io`]). A node sends the
//! messages of a round one after the other, the next as soon as the previous one's tail has
//! left the node; a round ends when its last message is delivered, the next starts at once,
//! and the job ends with its last round: service time is network time, as in ProcSimity.
//! With [`WormholeConfig::program`] a job runs Liu et al.'s program instead (§2, §5.2 of *I/O
//! Processor Allocation for Mesh Cluster Computers*): K × (E all-to-all rounds, one write round).
//!
//! **Engine.** Integer time in flit times; one event queue ordered by (time, sequence), job
//! arrivals first at equal times; no random numbers (the allocator's seed comes from the
//! experiment). Every event is counted and a run that exceeds `max_events` stops with
//! [`WormholeError::WorkBound`]. Per link it counts messages, flits, held time and the time
//! headers spent blocked waiting for it ([`LinkStats`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt;

use super::flow::{FlowJob, FlowRecord};
use super::metrics::{balance_factor, nodes_affected, system_balance_factor};
use super::{NetNode, Network, NetworkError};
use crate::alloc::node_allocator::{Node, NodeAllocator};
use crate::machine::mesh::{Mesh, Submesh};

/// Parameters of the wormhole model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WormholeConfig {
    /// ρ: fraction of a job's rounds that are complete-bipartite writes, 0 ..= 1.
    pub traffic_io: f64,
    /// Flits per packet (every message is one packet), 1 ..= 1024.
    pub packet_flits: u32,
    /// Seconds of simulated time per flit time (converts the workload's times), > 0.
    pub flit_seconds: f64,
    /// Seconds of a job's length C per round of its pattern, > 0.
    pub round_seconds: f64,
    /// Largest number of events a run may process (the work bound).
    pub max_events: u64,
    /// Liu et al.'s program (§2, §5.2) instead of ρ and the job's length: every job runs
    /// [`ExchangeProgram::rounds`] × (E all-to-all exchanges, then one complete-bipartite
    /// write); `None` (the default): the mix of ρ over C / `round_seconds` rounds.
    pub program: Option<ExchangeProgram>,
}

/// Liu et al.'s program of a job (§5.2: "We let all tasks communicate first and then do one
/// I/O operation"): `rounds` times, `exchanges` all-to-all rounds then one write round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExchangeProgram {
    /// E: all-to-all exchanges before each write (0: pure I/O).
    pub exchanges: u32,
    /// Repetitions of (E exchanges, one write), ≥ 1.
    pub rounds: u32,
}

impl ExchangeProgram {
    /// Rounds of the pattern a job runs: rounds × (E + 1).
    pub fn total(&self) -> u64 {
        u64::from(self.rounds) * (u64::from(self.exchanges) + 1)
    }

    /// Whether round `r` is a write: the last of each group of E + 1.
    pub fn is_io(&self, r: u64) -> bool {
        r % (u64::from(self.exchanges) + 1) == u64::from(self.exchanges)
    }
}

impl Default for WormholeConfig {
    /// ρ = 0.5, 8-flit packets, 1 s flits (times come out in flit times), one round per
    /// 7150 s of length (the mean length of the Table 1 workload), at most 4 · 10⁹ events.
    fn default() -> Self {
        WormholeConfig {
            traffic_io: 0.5,
            packet_flits: DEFAULT_FLITS,
            flit_seconds: DEFAULT_FLIT_SECONDS,
            round_seconds: DEFAULT_ROUND_SECONDS,
            max_events: DEFAULT_MAX_EVENTS,
            program: None,
        }
    }
}

/// Default flits per packet.
pub const DEFAULT_FLITS: u32 = 8;
/// Default seconds per flit time.
pub const DEFAULT_FLIT_SECONDS: f64 = 1.0;
/// Default seconds of job length per round.
pub const DEFAULT_ROUND_SECONDS: f64 = 7150.0;
/// Events per "instant" of [`WormholeStepper::step_instants`].
pub const EVENTS_PER_STEP: usize = 4096;
/// Default work bound (events per run).
pub const DEFAULT_MAX_EVENTS: u64 = 4_000_000_000;

impl WormholeConfig {
    /// Checks the ranges; the error names the field.
    pub fn validate(&self) -> Result<(), WormholeError> {
        let bad = |field: &'static str, why: &str| {
            Err(WormholeError::BadConfig {
                field,
                message: why.to_string(),
            })
        };
        if !(self.traffic_io.is_finite() && (0.0..=1.0).contains(&self.traffic_io)) {
            return bad("traffic_io", "must be between 0 and 1");
        }
        if self.packet_flits == 0 || self.packet_flits > 1024 {
            return bad("packet_flits", "must be between 1 and 1024");
        }
        if !(self.flit_seconds.is_finite() && self.flit_seconds > 0.0) {
            return bad("flit_seconds", "must be a finite number > 0");
        }
        if !(self.round_seconds.is_finite() && self.round_seconds > 0.0) {
            return bad("round_seconds", "must be a finite number > 0");
        }
        if let Some(p) = self.program {
            if p.rounds == 0 || p.rounds > 1_000_000 || p.exchanges > 1_000_000 {
                return bad(
                    "program",
                    "needs 1 ..= 10^6 rounds and at most 10^6 exchanges per round",
                );
            }
        }
        Ok(())
    }

    /// Rounds of a job of length `compute` seconds: max(1, round(C / round_seconds)).
    pub fn rounds(&self, compute: f64) -> u64 {
        let r = libm::round(compute / self.round_seconds);
        if r >= 1.0 {
            r.min(1e12) as u64
        } else {
            1
        }
    }
}

/// A run that cannot be done.
#[derive(Clone, Debug, PartialEq)]
pub enum WormholeError {
    /// A parameter is out of range.
    BadConfig {
        field: &'static str,
        message: String,
    },
    /// The job needs more nodes than the mesh has, or none.
    BadSize { job: usize, size: u32, nodes: u32 },
    /// A submit or computation time is not finite, negative, out of order or too large.
    BadTime { job: usize },
    /// The allocator returned an impossible set of nodes.
    BadAllocation { job: usize },
    /// A message endpoint is not a node of the network.
    Network(NetworkError),
    /// More than `limit` events: the run was stopped.
    WorkBound { limit: u64 },
    /// Jobs still wait after the last event (the allocator refused a job on an idle mesh).
    Stalled { waiting: usize },
    /// A model invariant failed (a bug): what.
    Invariant(&'static str),
}

impl fmt::Display for WormholeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WormholeError::BadConfig { field, message } => {
                write!(f, "wormhole model: {field} {message}")
            }
            WormholeError::BadSize { job, size, nodes } => {
                write!(f, "job #{job} needs {size} nodes; the mesh has {nodes}")
            }
            WormholeError::BadTime { job } => write!(
                f,
                "job #{job}: submit and compute times must be finite, ≥ 0, in submit order \
                 and below 2^52 flit times"
            ),
            WormholeError::BadAllocation { job } => {
                write!(
                    f,
                    "the allocator gave job #{job} an impossible set of nodes"
                )
            }
            WormholeError::Network(e) => write!(f, "wormhole model: {e}"),
            WormholeError::WorkBound { limit } => write!(
                f,
                "the wormhole run needs more than {limit} events (the work bound); use fewer \
                 or shorter jobs, or fewer rounds"
            ),
            WormholeError::Stalled { waiting } => {
                write!(f, "{waiting} jobs still wait after the last event")
            }
            WormholeError::Invariant(what) => write!(f, "wormhole model invariant broken: {what}"),
        }
    }
}

impl std::error::Error for WormholeError {}

impl From<NetworkError> for WormholeError {
    fn from(e: NetworkError) -> Self {
        WormholeError::Network(e)
    }
}

/// Per-channel counters, indexed like [`Network::link_index`] for the links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Messages (worms) that crossed the channel.
    pub messages: Vec<u64>,
    /// Flits that crossed it (messages × packet flits).
    pub flits: Vec<u64>,
    /// Flit times it was held by a worm.
    pub held: Vec<u64>,
    /// Flit times headers spent blocked waiting for it (summed over the waiting worms).
    pub blocked: Vec<u64>,
}

impl LinkStats {
    fn new(n: usize) -> LinkStats {
        LinkStats {
            messages: vec![0; n],
            flits: vec![0; n],
            held: vec![0; n],
            blocked: vec![0; n],
        }
    }
}

/// What a fabric run or a job run measured on the network.
#[derive(Clone, Debug, PartialEq)]
pub struct FabricStats {
    /// Per link (index of [`Network::link_index`]; entries past `link_slots` are not kept).
    pub links: LinkStats,
    /// Per node's ejection channel (index of the node on the extended grid, y · (W + 2) + x):
    /// flit times headers waited for it.
    pub eject_blocked: Vec<u64>,
    /// Messages injected and delivered.
    pub injected: u64,
    pub delivered: u64,
    /// Events processed.
    pub events: u64,
    /// Time of the last event, in flit times.
    pub end: u64,
}

impl FabricStats {
    /// The per-link CSV: `from_x,from_y,to_x,to_y,messages,flits,held,blocked` for every link
    /// of `net` that carried a message (times in flit times), in link index order.
    pub fn links_csv(&self, net: &Network) -> String {
        let mut s = String::from("from_x,from_y,to_x,to_y,messages,flits,held,blocked\n");
        for l in net.links() {
            let i = net.link_index(l);
            let m = self.links.messages.get(i).copied().unwrap_or(0);
            if m == 0 {
                continue;
            }
            let to = l.to();
            s.push_str(&format!(
                "{},{},{},{},{},{},{},{}\n",
                l.from.x,
                l.from.y,
                to.x,
                to.y,
                m,
                self.links.flits[i],
                self.links.held[i],
                self.links.blocked[i]
            ));
        }
        s
    }
}

/// One message of a fabric run: its injection request time, when its header entered the
/// injection channel, when its tail left the ejection channel, and the flit times its header
/// was blocked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub requested: u64,
    pub injected: u64,
    pub delivered: u64,
    pub blocked: u64,
}

const NONE: u32 = u32::MAX;

/// A channel: its holder and the headers waiting for it, in arrival order.
#[derive(Clone, Debug, Default)]
struct Channel {
    owner: u32,
    since: u64,
    waiters: VecDeque<u32>,
}

/// A worm in flight.
#[derive(Clone, Debug, Default)]
struct Worm {
    /// Channels of its path: injection, links, ejection.
    path: Vec<u32>,
    /// Position of the header (the number of path positions entered so far, minus one).
    head: usize,
    /// Oldest position still held.
    tail: usize,
    /// Owner tag: the job (or `NONE` for a fabric message) and the sending node's index.
    job: u32,
    node: u32,
    /// Fabric messages: index of its [`Delivery`].
    msg: u32,
    blocked_since: u64,
    blocked: u64,
    injected: u64,
    live: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// The worm's header tries its next position.
    Advance(u32),
    /// The worm's header is past the ejection channel: its tail leaves one more channel.
    Drain(u32),
}

/// The channels, worms and event queue: the packet-level fabric shared by [`Fabric`] and the
/// job engine.
struct Core {
    width: usize,
    link_slots: usize,
    node_slots: usize,
    flits: usize,
    channels: Vec<Channel>,
    worms: Vec<Worm>,
    free: Vec<u32>,
    queue: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    now: u64,
    stats: FabricStats,
    /// Worms whose header takes a channel at `now` (hand-overs), processed before the queue.
    pending: Vec<u32>,
    /// Senders whose injection channel freed at `now`: (job, node).
    freed: Vec<(u32, u32)>,
    /// Worms delivered at `now`: (job, msg, injection time, blocked flit times).
    done: Vec<(u32, u32, u64, u64)>,
    max_events: u64,
}

impl Core {
    fn new(net: &Network, flits: u32, max_events: u64) -> Core {
        let link_slots = net.link_slots();
        let node_slots = (net.width() as usize + 2) * (net.height() as usize + 2);
        let n = link_slots + 2 * node_slots;
        Core {
            width: net.width() as usize + 2,
            link_slots,
            node_slots,
            flits: flits as usize,
            channels: (0..n)
                .map(|_| Channel {
                    owner: NONE,
                    since: 0,
                    waiters: VecDeque::new(),
                })
                .collect(),
            worms: Vec::new(),
            free: Vec::new(),
            queue: BinaryHeap::new(),
            seq: 0,
            now: 0,
            stats: FabricStats {
                links: LinkStats::new(link_slots),
                eject_blocked: vec![0; node_slots],
                injected: 0,
                delivered: 0,
                events: 0,
                end: 0,
            },
            pending: Vec::new(),
            freed: Vec::new(),
            done: Vec::new(),
            max_events,
        }
    }

    fn node_slot(&self, n: NetNode) -> usize {
        n.y as usize * self.width + n.x as usize
    }

    fn push(&mut self, t: u64, ev: Ev) {
        self.seq += 1;
        self.queue.push(Reverse((t, self.seq, ev)));
    }

    fn count(&mut self) -> Result<(), WormholeError> {
        self.stats.events += 1;
        if self.stats.events > self.max_events {
            return Err(WormholeError::WorkBound {
                limit: self.max_events,
            });
        }
        Ok(())
    }

    /// Creates a worm from `from` to `to` whose header asks for the injection channel now.
    fn inject(
        &mut self,
        net: &Network,
        from: NetNode,
        to: NetNode,
        (job, node, msg): (u32, u32, u32),
    ) -> Result<(), WormholeError> {
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.worms.push(Worm::default());
                (self.worms.len() - 1) as u32
            }
        };
        let mut path = std::mem::take(&mut self.worms[id as usize].path);
        path.clear();
        path.push((self.link_slots + self.node_slot(from)) as u32);
        net.for_each_route_link(from, to, |l| path.push(net.link_index(l) as u32))?;
        path.push((self.link_slots + self.node_slots + self.node_slot(to)) as u32);
        self.worms[id as usize] = Worm {
            path,
            head: 0,
            tail: 0,
            job,
            node,
            msg,
            blocked_since: 0,
            blocked: 0,
            injected: 0,
            live: true,
        };
        self.stats.injected += 1;
        self.request(id, 0)
    }

    /// Worm `w`'s header asks for path position `pos` at `now`: takes it or queues for it.
    fn request(&mut self, w: u32, pos: usize) -> Result<(), WormholeError> {
        let c = self.worms[w as usize].path[pos] as usize;
        if self.channels[c].owner == NONE {
            self.enter(w, pos)
        } else {
            let worm = &mut self.worms[w as usize];
            worm.blocked_since = self.now;
            worm.head = pos;
            self.channels[c].waiters.push_back(w);
            Ok(())
        }
    }

    /// Worm `w`'s header enters path position `pos` at `now`.
    fn enter(&mut self, w: u32, pos: usize) -> Result<(), WormholeError> {
        self.count()?;
        let now = self.now;
        let (c, len) = {
            let worm = &mut self.worms[w as usize];
            worm.head = pos;
            if pos == 0 {
                worm.injected = now;
            }
            (worm.path[pos] as usize, worm.path.len())
        };
        let ch = &mut self.channels[c];
        if ch.owner != NONE {
            return Err(WormholeError::Invariant("a channel taken by two worms"));
        }
        ch.owner = w;
        ch.since = now;
        if c < self.link_slots {
            self.stats.links.messages[c] += 1;
            self.stats.links.flits[c] += self.flits as u64;
        }
        // The tail leaves the position `flits` behind the header.
        if pos >= self.flits {
            self.leave(w, pos - self.flits)?;
        }
        if pos + 1 < len {
            self.push(now + 1, Ev::Advance(w));
        } else {
            self.push(now + 1, Ev::Drain(w));
        }
        Ok(())
    }

    /// Worm `w`'s tail leaves path position `pos` at `now`; the channel passes to its first
    /// waiter, if any.
    fn leave(&mut self, w: u32, pos: usize) -> Result<(), WormholeError> {
        let now = self.now;
        let c = self.worms[w as usize].path[pos] as usize;
        self.worms[w as usize].tail = pos + 1;
        let ch = &mut self.channels[c];
        if ch.owner != w {
            return Err(WormholeError::Invariant(
                "a worm left a channel it did not hold",
            ));
        }
        ch.owner = NONE;
        let held = now - ch.since;
        if c < self.link_slots {
            self.stats.links.held[c] += held;
        }
        if let Some(next) = ch.waiters.pop_front() {
            let waited = {
                let nw = &mut self.worms[next as usize];
                let waited = now - nw.blocked_since;
                nw.blocked += waited;
                waited
            };
            if c < self.link_slots {
                self.stats.links.blocked[c] += waited;
            } else if c >= self.link_slots + self.node_slots {
                self.stats.eject_blocked[c - self.link_slots - self.node_slots] += waited;
            }
            self.pending.push(next);
        }
        if pos == 0 {
            let worm = &self.worms[w as usize];
            self.freed.push((worm.job, worm.node));
        }
        Ok(())
    }

    /// Processes the hand-overs at `now` (each may free more channels).
    fn settle(&mut self) -> Result<(), WormholeError> {
        while let Some(w) = self.pending.pop() {
            let pos = self.worms[w as usize].head;
            self.enter(w, pos)?;
        }
        Ok(())
    }

    /// Processes one queued event at `now` (its time); the caller set `now`.
    fn handle(&mut self, ev: Ev) -> Result<(), WormholeError> {
        match ev {
            Ev::Advance(w) => {
                let pos = self.worms[w as usize].head + 1;
                self.request(w, pos)?;
            }
            Ev::Drain(w) => {
                self.count()?;
                let (tail, len) = {
                    let worm = &self.worms[w as usize];
                    (worm.tail, worm.path.len())
                };
                // Past the ejection channel the header moves on every flit time: the tail
                // leaves the oldest held channel once the header is `flits` further.
                let head_virtual = self.worms[w as usize].head + 1;
                self.worms[w as usize].head = head_virtual;
                if head_virtual >= tail + self.flits && tail < len {
                    self.leave(w, tail)?;
                }
                if self.worms[w as usize].tail >= len {
                    let worm = &mut self.worms[w as usize];
                    worm.live = false;
                    self.stats.delivered += 1;
                    self.done
                        .push((worm.job, worm.msg, worm.injected, worm.blocked));
                    self.free.push(w);
                } else {
                    self.push(self.now + 1, Ev::Drain(w));
                }
            }
        }
        self.settle()
    }

    /// Time of the next queued event.
    fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|Reverse((t, _, _))| *t)
    }

    fn pop(&mut self) -> Result<Option<Ev>, WormholeError> {
        let Some(Reverse((t, _, ev))) = self.queue.pop() else {
            return Ok(None);
        };
        if t < self.now {
            return Err(WormholeError::Invariant("time went backwards"));
        }
        self.now = t;
        self.stats.end = t;
        Ok(Some(ev))
    }

    /// After a run: no live worm, every channel free, no waiter, every message delivered.
    fn check_drained(&self) -> Result<(), WormholeError> {
        if self.worms.iter().any(|w| w.live) {
            return Err(WormholeError::Invariant("a worm is still in the network"));
        }
        if self
            .channels
            .iter()
            .any(|c| c.owner != NONE || !c.waiters.is_empty())
        {
            return Err(WormholeError::Invariant("a channel is still held"));
        }
        if self.stats.injected != self.stats.delivered {
            return Err(WormholeError::Invariant("a message was not delivered"));
        }
        Ok(())
    }
}

/// A standalone fabric: messages injected at given times, for hand-computed cases and the
/// network's own invariants.
pub struct Fabric<'a> {
    net: &'a Network,
    core: Core,
    /// Requests (time, from, to) by time then order of [`Fabric::send`].
    requests: Vec<(u64, NetNode, NetNode)>,
}

impl<'a> Fabric<'a> {
    /// An empty fabric on `net` with `packet_flits`-flit packets (1 ..= 1024).
    pub fn new(net: &'a Network, packet_flits: u32) -> Result<Fabric<'a>, WormholeError> {
        let cfg = WormholeConfig {
            packet_flits,
            ..WormholeConfig::default()
        };
        cfg.validate()?;
        Ok(Fabric {
            net,
            core: Core::new(net, packet_flits, DEFAULT_MAX_EVENTS),
            requests: Vec::new(),
        })
    }

    /// A message from `from` to `to` whose header asks for `from`'s injection channel at `at`
    /// (messages from one node queue for it in the order they ask).
    pub fn send(&mut self, from: NetNode, to: NetNode, at: u64) -> Result<usize, WormholeError> {
        for n in [from, to] {
            if !self.net.is_node(n) {
                return Err(NetworkError::NotANode(n).into());
            }
        }
        if from == to {
            return Err(WormholeError::BadConfig {
                field: "message",
                message: format!("from {from} to itself"),
            });
        }
        self.requests.push((at, from, to));
        Ok(self.requests.len() - 1)
    }

    /// Runs every message to delivery: one [`Delivery`] per message (in send order) and the
    /// fabric's counters; checks that the network is empty at the end.
    pub fn run(mut self) -> Result<(Vec<Delivery>, FabricStats), WormholeError> {
        let mut order: Vec<usize> = (0..self.requests.len()).collect();
        order.sort_by_key(|&i| self.requests[i].0);
        let mut out: Vec<Delivery> = self
            .requests
            .iter()
            .map(|r| Delivery {
                requested: r.0,
                injected: 0,
                delivered: 0,
                blocked: 0,
            })
            .collect();
        let mut next = 0;
        loop {
            let arrival = order.get(next).map(|&i| self.requests[i].0);
            let event = self.core.next_time();
            let take_arrival = match (arrival, event) {
                (Some(a), Some(e)) => a <= e,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            match arrival.filter(|_| take_arrival) {
                Some(a) => {
                    if a < self.core.now {
                        return Err(WormholeError::Invariant("time went backwards"));
                    }
                    self.core.now = a;
                    let i = order[next];
                    next += 1;
                    let (_, from, to) = self.requests[i];
                    self.core.inject(self.net, from, to, (NONE, 0, i as u32))?;
                    self.core.settle()?;
                }
                None => {
                    if let Some(ev) = self.core.pop()? {
                        self.core.handle(ev)?;
                    }
                }
            }
            self.core.freed.clear();
            for (_, msg, injected, blocked) in self.core.done.drain(..) {
                if let Some(d) = out.get_mut(msg as usize) {
                    d.delivered = self.core.now;
                    d.injected = injected;
                    d.blocked = blocked;
                }
            }
        }
        self.core.check_drained()?;
        Ok((out, self.core.stats))
    }
}

/// Whether round `r` of job `job` is a complete-bipartite write: the rounds of every job
/// follow the sequence ⌊(r + 1) ρ + φ⌋ − ⌊r ρ + φ⌋ with φ = frac(job · 0.618…), so each job's
/// share of write rounds is within one round of ρ and over many jobs it is ρ.
pub fn round_is_io(job: usize, r: u64, rho: f64) -> bool {
    if rho >= 1.0 {
        return true;
    }
    if rho <= 0.0 {
        return false;
    }
    let phi = (job as f64 * 0.618_033_988_749_894_9).fract();
    let a = libm::floor((r + 1) as f64 * rho + phi);
    let b = libm::floor(r as f64 * rho + phi);
    a > b
}

/// A running job.
struct Running {
    job: usize,
    nodes: Vec<NetNode>,
    rounds: u64,
    round: u64,
    io: bool,
    /// Per node: messages of the round sent so far.
    sent: Vec<u32>,
    /// Messages of the round not yet delivered.
    outstanding: u64,
}

impl Running {
    /// Destinations of node `k` in this round: the others in order k + 1, k + 2, … (all-to-all),
    /// or the I/O nodes starting at I/O node k mod |IO| (writes).
    fn dest(&self, net: &Network, k: usize, m: usize) -> NetNode {
        if self.io {
            let io = net.io_nodes();
            io[(k + m) % io.len()]
        } else {
            self.nodes[(k + 1 + m) % self.nodes.len()]
        }
    }

    fn per_node(&self, net: &Network) -> usize {
        if self.io {
            net.io_nodes().len()
        } else {
            self.nodes.len() - 1
        }
    }
}

/// A job run under the wormhole model: every job's record (seconds) and the network counters.
#[derive(Clone, Debug, PartialEq)]
pub struct WormholeRun {
    pub records: Vec<FlowRecord>,
    pub stats: FabricStats,
}

/// The job engine: FCFS on `net`'s mesh with `alloc`, jobs' rounds on the fabric.
struct JobRun<'a> {
    net: &'a Network,
    alloc: &'a mut dyn NodeAllocator,
    cfg: WormholeConfig,
    mesh: Mesh,
    core: Core,
    jobs: Vec<FlowJob>,
    submit: Vec<u64>,
    records: Vec<Option<FlowRecord>>,
    /// Running jobs by job index (slot `None` when not running).
    running: Vec<Option<Running>>,
    running_count: usize,
    queue_head: usize,
    arrived: usize,
    /// Jobs ended.
    ended: usize,
}

/// Runs `jobs` (in submit order) FCFS on `net`'s mesh, allocating with `alloc`, under the
/// wormhole model `cfg`; times in the records are seconds (flit times × `flit_seconds`).
pub fn simulate_wormhole(
    net: &Network,
    jobs: &[FlowJob],
    alloc: &mut dyn NodeAllocator,
    cfg: WormholeConfig,
) -> Result<WormholeRun, WormholeError> {
    WormholeStepper::new(net, jobs, alloc, cfg)?.finish()
}

/// A wormhole run stepped a few events at a time (the page's worker runs a mesh run in slices
/// so that it can be cancelled); the same events, in the same order, as a run to the end.
pub struct WormholeStepper<'a> {
    run: JobRun<'a>,
    over: bool,
}

impl<'a> WormholeStepper<'a> {
    /// The run of `jobs` (in submit order) FCFS on `net`'s mesh with `alloc` under `cfg`,
    /// whose parameters and jobs are checked first; nothing simulated yet.
    pub fn new(
        net: &'a Network,
        jobs: &[FlowJob],
        alloc: &'a mut dyn NodeAllocator,
        cfg: WormholeConfig,
    ) -> Result<WormholeStepper<'a>, WormholeError> {
        cfg.validate()?;
        let mesh = Mesh::new(net.width(), net.height()).map_err(|_| WormholeError::BadConfig {
            field: "mesh",
            message: "size out of range".into(),
        })?;
        let n = mesh.size();
        let mut submit = Vec::with_capacity(jobs.len());
        let mut prev = 0u64;
        for (i, j) in jobs.iter().enumerate() {
            if j.size == 0 || j.size > n {
                return Err(WormholeError::BadSize {
                    job: i,
                    size: j.size,
                    nodes: n,
                });
            }
            let t = j.submit / cfg.flit_seconds;
            let ok = t.is_finite()
                && (0.0..4.0e15).contains(&t)
                && j.compute.is_finite()
                && j.compute >= 0.0;
            if !ok {
                return Err(WormholeError::BadTime { job: i });
            }
            let t = libm::round(t) as u64;
            if t < prev {
                return Err(WormholeError::BadTime { job: i });
            }
            prev = t;
            submit.push(t);
        }
        let run = JobRun {
            net,
            alloc,
            cfg,
            mesh,
            core: Core::new(net, cfg.packet_flits, cfg.max_events),
            jobs: jobs.to_vec(),
            submit,
            records: vec![None; jobs.len()],
            running: (0..jobs.len()).map(|_| None).collect(),
            running_count: 0,
            queue_head: 0,
            arrived: 0,
            ended: 0,
        };
        Ok(WormholeStepper { run, over: false })
    }

    /// Processes at most `n` × [`EVENTS_PER_STEP`] events (an arrival instant counts as one;
    /// a flit event is far cheaper than an instant of the other engines, whose callers slice
    /// runs by instants); `true` when the run is over (the network checked empty).
    pub fn step_instants(&mut self, n: usize) -> Result<bool, WormholeError> {
        if !self.over {
            self.over = self.run.step(n.saturating_mul(EVENTS_PER_STEP))?;
        }
        Ok(self.over)
    }

    /// The network the run is on.
    pub fn network(&self) -> &'a Network {
        self.run.net
    }

    /// Jobs completed and started and the simulated time (seconds) so far.
    pub fn progress(&self) -> crate::sim::Progress {
        crate::sim::Progress {
            completed: self.run.ended,
            started: self.run.queue_head,
            total: self.run.jobs.len(),
            now: self.run.core.now as f64 * self.run.cfg.flit_seconds,
        }
    }

    /// Runs to the end; every job's record (times in seconds) and the network counters.
    pub fn finish(mut self) -> Result<WormholeRun, WormholeError> {
        while !self.step_instants(1 << 10)? {}
        let run = self.run;
        let secs = run.cfg.flit_seconds;
        let waiting = run.jobs.len() - run.queue_head;
        let records = run
            .records
            .into_iter()
            .map(|r| {
                r.map(|mut r| {
                    r.start *= secs;
                    r.end *= secs;
                    r
                })
            })
            .collect::<Option<Vec<_>>>()
            .ok_or(WormholeError::Stalled { waiting })?;
        Ok(WormholeRun {
            records,
            stats: run.core.stats,
        })
    }
}

impl JobRun<'_> {
    /// At most `budget` steps (an arrival instant or one event); `true` when the run is over.
    fn step(&mut self, budget: usize) -> Result<bool, WormholeError> {
        for _ in 0..budget {
            let arrival = self.submit.get(self.arrived).copied();
            let event = self.core.next_time();
            let take_arrival = match (arrival, event) {
                (Some(a), Some(e)) => a <= e,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => {
                    if self.queue_head < self.jobs.len() {
                        return Err(WormholeError::Stalled {
                            waiting: self.jobs.len() - self.queue_head,
                        });
                    }
                    self.core.check_drained()?;
                    return Ok(true);
                }
            };
            match arrival.filter(|_| take_arrival) {
                Some(a) => {
                    self.core.now = a.max(self.core.now);
                    // Every arrival at this instant, then FCFS.
                    while self.submit.get(self.arrived) == Some(&self.core.now) {
                        self.arrived += 1;
                    }
                    self.schedule()?;
                }
                None => {
                    if let Some(ev) = self.core.pop()? {
                        self.core.handle(ev)?;
                    }
                }
            }
            self.after_event()?;
        }
        Ok(false)
    }

    /// Feeds freed senders their next message and closes finished rounds, until nothing more
    /// happens at this instant.
    fn after_event(&mut self) -> Result<(), WormholeError> {
        loop {
            let mut changed = false;
            while let Some((job, node)) = self.core.freed.pop() {
                changed = true;
                self.send_next(job as usize, node as usize)?;
                self.core.settle()?;
            }
            let done = std::mem::take(&mut self.core.done);
            let mut ended = false;
            for &(job, ..) in &done {
                changed = true;
                ended |= self.delivered(job as usize)?;
                self.core.settle()?;
            }
            if ended {
                self.schedule()?;
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// Node `node` of job `job` sends its next message of the round, if any.
    fn send_next(&mut self, job: usize, node: usize) -> Result<(), WormholeError> {
        let Some(Some(r)) = self.running.get_mut(job) else {
            return Ok(());
        };
        let m = r.sent[node] as usize;
        if m >= r.per_node(self.net) {
            return Ok(());
        }
        r.sent[node] += 1;
        let from = r.nodes[node];
        let to = r.dest(self.net, node, m);
        self.core
            .inject(self.net, from, to, (job as u32, node as u32, 0))
    }

    /// A message of `job` was delivered; `true` when the job ended.
    fn delivered(&mut self, job: usize) -> Result<bool, WormholeError> {
        let Some(Some(r)) = self.running.get_mut(job) else {
            return Err(WormholeError::Invariant("a message of no running job"));
        };
        r.outstanding = r
            .outstanding
            .checked_sub(1)
            .ok_or(WormholeError::Invariant(
                "more messages delivered than sent",
            ))?;
        if r.outstanding > 0 {
            return Ok(false);
        }
        r.round += 1;
        self.start_round(job)
    }

    /// Starts the job's next round (every node sends its first message now), skipping rounds
    /// with no message; ends the job after its last round (`true`).
    fn start_round(&mut self, job: usize) -> Result<bool, WormholeError> {
        let rho = self.cfg.traffic_io;
        loop {
            let Some(Some(r)) = self.running.get_mut(job) else {
                return Ok(false);
            };
            if r.round >= r.rounds {
                return self.end_job(job).map(|()| true);
            }
            r.io = match self.cfg.program {
                Some(p) => p.is_io(r.round),
                None => round_is_io(job, r.round, rho),
            };
            let per = r.per_node(self.net);
            if per == 0 {
                r.round += 1;
                continue;
            }
            r.sent.iter_mut().for_each(|s| *s = 0);
            r.outstanding = (per * r.nodes.len()) as u64;
            for k in 0..r.nodes.len() {
                self.send_next(job, k)?;
                self.core.settle()?;
            }
            return Ok(false);
        }
    }

    fn end_job(&mut self, job: usize) -> Result<(), WormholeError> {
        let Some(r) = self.running.get_mut(job).and_then(Option::take) else {
            return Ok(());
        };
        self.running_count -= 1;
        self.ended += 1;
        if let Some(rec) = self.records[job].as_mut() {
            rec.end = self.core.now as f64;
        }
        for n in &r.nodes {
            self.mesh
                .release(job, Submesh::at(n.x, n.y, 1, 1))
                .map_err(|_| WormholeError::Invariant("a job's node was not its own"))?;
        }
        Ok(())
    }

    /// FCFS: starts waiting jobs in arrival order while the first one gets nodes.
    fn schedule(&mut self) -> Result<(), WormholeError> {
        while self.queue_head < self.arrived {
            let i = self.queue_head;
            let size = self.jobs[i].size;
            if size > self.mesh.free_count() {
                break;
            }
            let Some(nodes) = self.alloc.select(&self.mesh, size) else {
                if self.running_count == 0 {
                    return Err(WormholeError::Stalled {
                        waiting: self.arrived - i,
                    });
                }
                break;
            };
            self.take(i, nodes)?;
            self.queue_head += 1;
            self.start_round(i)?;
        }
        Ok(())
    }

    fn take(&mut self, i: usize, nodes: Vec<Node>) -> Result<(), WormholeError> {
        if nodes.len() != self.jobs[i].size as usize {
            return Err(WormholeError::BadAllocation { job: i });
        }
        for &(x, y) in &nodes {
            self.mesh
                .allocate(i, Submesh::at(x, y, 1, 1))
                .map_err(|_| WormholeError::BadAllocation { job: i })?;
        }
        let now = self.core.now as f64;
        let net = self.net;
        self.records[i] = Some(FlowRecord {
            start: now,
            end: now,
            nodes_affected: nodes_affected(&nodes),
            balance: balance_factor(net, &nodes),
            system_balance: system_balance_factor(net, &self.mesh),
            nodes: nodes.clone(),
        });
        let size = nodes.len();
        self.running[i] = Some(Running {
            job: i,
            nodes: nodes.iter().map(|&(x, y)| NetNode::new(x, y)).collect(),
            rounds: match self.cfg.program {
                Some(p) => p.total(),
                None => self.cfg.rounds(self.jobs[i].compute),
            },
            round: 0,
            io: false,
            sent: vec![0; size],
            outstanding: 0,
        });
        self.running_count += 1;
        debug_assert_eq!(self.running[i].as_ref().map(|r| r.job), Some(i));
        Ok(())
    }
}
