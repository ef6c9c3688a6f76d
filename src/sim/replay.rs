//! Step-by-step replay of a finished flat run: the state of the machine and
//! of the queue at any instant, derived from the run's per-job records (submit, start, end,
//! size, estimate) and its decision explanations ([`crate::base::explain`]) — the policies are
//! not run again and not asked anything.
//!
//! At time `t` (after every event of the instant `t`: completions, arrivals, the policy's
//! decisions):
//!
//! * **running** — jobs with start ≤ t < end, each with its expected end (start + estimate,
//!   what a backfilling policy counts on) and its real end;
//! * **queue** — jobs with submit ≤ t < start, in arrival order, each with its reservation
//!   under conservative backfilling: the latest `reserved` / `moved` entry at or before `t`;
//! * **head** — for FCFS and EASY, the blocked head (the first queued job) as the policy last
//!   recorded it: its size and, for EASY, the shadow time of its latest `head_blocked` entry
//!   at or before `t`. The extra processors are those free at that shadow time that the head
//!   does not need, counted from the machine at `t` exactly as EASY counts them (free now plus
//!   the jobs expected to end by the shadow time, minus the head's size): an entry is recorded
//!   again only when the shadow time moves (docs/explanations.md), so its own `extra` can be
//!   older than `t` (a backfill into the extra processors, a job running past the shadow time
//!   that ended early). At the instant of an entry both agree (tests/it/replay.rs checks it);
//! * **decisions** — the entries of the last instant at or before `t` that recorded any, in
//!   words ([`crate::sim::story`]).
//!
//! Event times (every submit, start and end) are a [`Timeline`], the same type the mesh view
//! steps through.

use crate::base::{Explanation, JobId, Reason, Time};
use crate::metrics::JobRecord;
use crate::network::heat::Timeline;
use crate::sim::story::{self, Names};
use crate::workload::Job;

/// A finished flat run, ready to be looked at any instant.
#[derive(Clone, Debug)]
pub struct Replay {
    procs: u32,
    /// The jobs in arrival order (index = [`JobId`]), rebuilt from the records for the names.
    jobs: Vec<Job>,
    records: Vec<JobRecord>,
    /// The explanations in time order (as recorded).
    log: Vec<Explanation>,
    /// Indices into `log` of each job's own entries.
    by_job: Vec<Vec<usize>>,
    timeline: Timeline,
}

/// A job running at the replay's instant.
#[derive(Clone, Debug, PartialEq)]
pub struct RunningJob {
    pub job: JobId,
    /// SWF job number.
    pub id: u64,
    pub procs: u32,
    pub start: Time,
    /// start + estimate: when the policy expects it to end.
    pub expected_end: Time,
    /// When it really ends.
    pub end: Time,
}

/// A job waiting at the replay's instant.
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedJob {
    pub job: JobId,
    /// SWF job number.
    pub id: u64,
    pub submit: Time,
    pub procs: u32,
    pub estimate: Time,
    /// Conservative backfilling: its reservation at the instant (the latest `reserved` or
    /// `moved` entry); `None` under other policies.
    pub reservation: Option<Time>,
}

/// The blocked head of the queue as FCFS or EASY last recorded it.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockedHead {
    pub job: JobId,
    /// SWF job number.
    pub id: u64,
    /// Processors it needs.
    pub needs: u32,
    /// EASY: the shadow time of its latest `head_blocked` entry.
    pub shadow: Option<Time>,
    /// EASY: the processors free at the shadow time that it does not need, at the instant.
    pub extra: Option<u32>,
    /// When that entry was recorded.
    pub since: Time,
}

/// One recorded decision, in words.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub time: Time,
    pub job: JobId,
    /// SWF job number.
    pub id: u64,
    /// The entry's kind (`head_blocked`, `before_shadow`, …; [`story::kind`]).
    pub kind: &'static str,
    /// The entry in words ([`story::reason_text`]).
    pub text: String,
}

/// The machine and the queue at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayState {
    pub time: Time,
    /// Processors idle after the instant's decisions.
    pub free: u32,
    /// Running jobs, by start time (then arrival).
    pub running: Vec<RunningJob>,
    /// Waiting jobs in arrival order.
    pub queue: Vec<QueuedJob>,
    /// The blocked head (FCFS, EASY), if the first queued job has a `head_blocked` entry.
    pub head: Option<BlockedHead>,
    /// The entries of the last instant at or before `time` that recorded any.
    pub decisions: Vec<Decision>,
    /// Jobs that arrived, started and ended exactly at `time`.
    pub arrived: Vec<JobId>,
    pub started: Vec<JobId>,
    pub ended: Vec<JobId>,
}

impl Replay {
    /// The replay of a run on `procs` processors whose jobs (in arrival order, every one of
    /// them started: index = [`JobId`]) are `records`, with the explanations `log` the run
    /// recorded (in the order recorded; entries naming a job beyond `records` are dropped).
    pub fn new(procs: u32, records: Vec<JobRecord>, log: Vec<Explanation>) -> Replay {
        let jobs: Vec<Job> = records
            .iter()
            .map(|r| Job::new(r.id, r.submit, r.run_time, r.estimate, r.procs))
            .collect();
        let mut log: Vec<Explanation> = log.into_iter().filter(|e| e.job < jobs.len()).collect();
        // Recorded in time order already; a stable sort keeps the order within an instant.
        log.sort_by(|a, b| a.time.total_cmp(&b.time));
        let mut by_job = vec![Vec::new(); jobs.len()];
        for (i, e) in log.iter().enumerate() {
            by_job[e.job].push(i);
        }
        let timeline = Timeline::new(records.iter().map(|r| (r.submit, r.start, r.end)));
        Replay {
            procs,
            jobs,
            records,
            log,
            by_job,
            timeline,
        }
    }

    /// Processors of the machine.
    pub fn procs(&self) -> u32 {
        self.procs
    }

    /// The per-job records (index = [`JobId`]).
    pub fn records(&self) -> &[JobRecord] {
        &self.records
    }

    /// The explanations, in time order.
    pub fn explanations(&self) -> &[Explanation] {
        &self.log
    }

    /// Every instant at which a job arrives, starts or ends: what a step moves between.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Whether the run recorded explanations.
    pub fn is_explained(&self) -> bool {
        !self.log.is_empty()
    }

    /// The names explanations are written with.
    pub fn names(&self) -> Names<'_> {
        Names::jobs(&self.jobs)
    }

    /// Job `j`'s own entries as lines `t = … s: text` ([`story::by_job`] of one job).
    pub fn why(&self, j: JobId) -> Vec<String> {
        let names = self.names();
        self.by_job.get(j).map_or_else(Vec::new, |entries| {
            entries
                .iter()
                .filter_map(|&i| self.log.get(i))
                .map(|e| {
                    format!(
                        "{}: {}",
                        story::at_text(e.time),
                        story::reason_text(&e.reason, &names)
                    )
                })
                .collect()
        })
    }

    /// Job `j`'s latest entry at or before `t` that `pick` accepts.
    fn latest_of<T>(
        &self,
        j: JobId,
        t: Time,
        pick: impl Fn(&Explanation) -> Option<T>,
    ) -> Option<(Time, T)> {
        self.by_job
            .get(j)?
            .iter()
            .rev()
            .filter_map(|&i| self.log.get(i))
            .filter(|e| e.time <= t)
            .find_map(|e| pick(e).map(|v| (e.time, v)))
    }

    /// The machine and the queue at `t`, after the events of the instant `t`.
    pub fn state_at(&self, t: Time) -> ReplayState {
        let mut running = Vec::new();
        let mut queue = Vec::new();
        let (mut arrived, mut started, mut ended) = (Vec::new(), Vec::new(), Vec::new());
        let mut busy: u64 = 0;
        for (j, r) in self.records.iter().enumerate() {
            if r.submit == t {
                arrived.push(j);
            }
            if r.start == t {
                started.push(j);
            }
            if r.end == t {
                ended.push(j);
            }
            if r.start <= t && t < r.end {
                busy += u64::from(r.procs);
                running.push(RunningJob {
                    job: j,
                    id: r.id,
                    procs: r.procs,
                    start: r.start,
                    expected_end: r.start + r.estimate,
                    end: r.end,
                });
            } else if r.submit <= t && t < r.start {
                let reservation = self.latest_of(j, t, |e| match e.reason {
                    Reason::Reserved { at, .. } => Some(at),
                    Reason::Moved { to, .. } => Some(to),
                    _ => None,
                });
                queue.push(QueuedJob {
                    job: j,
                    id: r.id,
                    submit: r.submit,
                    procs: r.procs,
                    estimate: r.estimate,
                    reservation: reservation.map(|(_, at)| at),
                });
            }
        }
        running.sort_by(|a, b| a.start.total_cmp(&b.start).then(a.job.cmp(&b.job)));
        let free = u64::from(self.procs).saturating_sub(busy) as u32;
        let head = queue.first().and_then(|q| {
            let (since, (needs, shadow)) = self.latest_of(q.job, t, |e| match e.reason {
                Reason::HeadBlocked { needs, shadow, .. } => Some((needs, shadow)),
                _ => None,
            })?;
            let extra = shadow.map(|s| {
                let by_shadow: u64 = running
                    .iter()
                    .filter(|r| r.expected_end <= s)
                    .map(|r| u64::from(r.procs))
                    .sum();
                (u64::from(free) + by_shadow).saturating_sub(u64::from(needs)) as u32
            });
            Some(BlockedHead {
                job: q.job,
                id: q.id,
                needs,
                shadow,
                extra,
                since,
            })
        });
        ReplayState {
            time: t,
            free,
            running,
            queue,
            head,
            decisions: self.decisions_at(t),
            arrived,
            started,
            ended,
        }
    }

    /// The entries of the last instant at or before `t` that recorded any.
    pub fn decisions_at(&self, t: Time) -> Vec<Decision> {
        let end = self.log.partition_point(|e| e.time <= t);
        let Some(last) = end.checked_sub(1).and_then(|i| self.log.get(i)) else {
            return Vec::new();
        };
        let at = last.time;
        let begin = self.log[..end].partition_point(|e| e.time < at);
        let names = self.names();
        self.log[begin..end]
            .iter()
            .map(|e| Decision {
                time: e.time,
                job: e.job,
                id: self.records.get(e.job).map_or(e.job as u64, |r| r.id),
                kind: story::kind(&e.reason),
                text: story::reason_text(&e.reason, &names),
            })
            .collect()
    }
}
