//! Scheduling policies for 2D meshes with contiguous submesh allocation (Ababneh & Bani-Mohammad §2, §4, §5),
//! one file each behind the [`MeshPolicy`] trait:
//!
//! * [`fcfs`] — first-come first-served (= Window-1);
//! * [`out_of_order`] — aggressive out-of-order (OO, [1] of Ababneh & Bani-Mohammad; = unbounded window);
//! * [`oocb`] — out-of-order with constant bound, OOCB-k (Max-Bound k, reservation-free, §5);
//! * [`window`] — Window-K, exactly the arrival and de-allocation steps of §4;
//! * [`delay`] — the delay-based scheme of [20] (§2.3): the head may be overtaken until its
//!   wait reaches λW.
//!
//! Like the flat policies, a mesh policy is told of arrivals and completions and asked once
//! per instant (after all completions, then all arrivals) which jobs to start. The paper's
//! policies act *per event*; each of ours replays the instant's events in that order inside
//! [`MeshPolicy::decide`]: first the de-allocation pass (if anything completed), then the
//! arrival step of each new job in arrival order (`docs/mesh.md`).
//!
//! A policy never touches the machine. It works through a [`Planner`]: `fits` asks whether a
//! job's submesh is free, `try_start` lets the engine's allocator choose a submesh and records
//! the decision on a *scratch copy* of the mesh, so the next question of the same instant sees
//! it. The engine then validates every decision against the real mesh (job waiting, submesh
//! of the job's shape, inside the mesh, all nodes free) and applies it.

pub mod delay;
pub mod fcfs;
pub mod oocb;
pub mod out_of_order;
pub mod window;

use std::fmt;

pub use delay::DelayBased;
pub use fcfs::MeshFcfs;
pub use oocb::Oocb;
pub use out_of_order::OutOfOrder;
pub use window::{EntryState, Window};

use crate::alloc::SubmeshAllocator;
use crate::base::{Entry, Explainer, Family, JobId, Param, Reason, Registered, Time};
use crate::machine::mesh::{Mesh, Submesh};
use crate::workload::Job;

/// What a mesh policy may look at.
#[derive(Clone, Copy)]
pub struct MeshContext<'a> {
    /// The current instant.
    pub now: Time,
    /// All jobs, indexed by [`JobId`] (arrival order); every one has a shape.
    pub jobs: &'a [Job],
    /// Mesh width W.
    pub width: u32,
    /// Mesh height H.
    pub height: u32,
    /// Free nodes before this instant's decisions.
    pub free_nodes: u32,
    /// Jobs running.
    pub running: usize,
}

/// One decision: start `job` on `sub`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshStart {
    pub job: JobId,
    pub sub: Submesh,
}

/// The policy's view of the mesh during one decision: a scratch copy that already holds the
/// submeshes chosen so far in this instant, and the engine's allocator.
pub struct Planner<'a> {
    mesh: &'a mut Mesh,
    allocator: &'a dyn SubmeshAllocator,
    jobs: &'a [Job],
    starts: &'a mut Vec<MeshStart>,
    /// The instant and where to record explanations, when they are on.
    explain: Option<(Time, &'a mut Explainer)>,
}

impl<'a> Planner<'a> {
    /// A planner over `mesh` (which it marks tentatively) recording into `starts`.
    pub fn new(
        mesh: &'a mut Mesh,
        allocator: &'a dyn SubmeshAllocator,
        jobs: &'a [Job],
        starts: &'a mut Vec<MeshStart>,
    ) -> Self {
        Planner::explained(mesh, allocator, jobs, starts, None)
    }

    /// A planner that records, in `explain` (time and explainer), why each job it tries
    /// starts or does not ([`crate::base::explain`]).
    pub fn explained(
        mesh: &'a mut Mesh,
        allocator: &'a dyn SubmeshAllocator,
        jobs: &'a [Job],
        starts: &'a mut Vec<MeshStart>,
        explain: Option<(Time, &'a mut Explainer)>,
    ) -> Self {
        Planner {
            mesh,
            allocator,
            jobs,
            starts,
            explain: explain.filter(|(_, e)| e.is_on()),
        }
    }

    fn shape(&self, job: JobId) -> Option<(u32, u32)> {
        self.jobs.get(job).and_then(|j| j.shape)
    }

    /// `true` when a free submesh of `job`'s shape exists now (decisions of this instant
    /// included). Changes nothing.
    pub fn fits(&mut self, job: JobId) -> bool {
        match self.shape(job) {
            Some((w, h)) => self.mesh.can_fit(w, h),
            None => false,
        }
    }

    /// Where the allocator would put `job` now, without deciding anything.
    pub fn placement(&mut self, job: JobId) -> Option<Submesh> {
        let (w, h) = self.shape(job)?;
        self.allocator.place(self.mesh, w, h)
    }

    /// Attempts allocation for `job`: when the allocator finds a submesh, decides to start the
    /// job there and returns `true`.
    pub fn try_start(&mut self, job: JobId) -> bool {
        let Some(sub) = self.placement(job) else {
            self.explain_no_submesh(job);
            return false;
        };
        if self.mesh.allocate(job, sub).is_err() {
            return false;
        }
        if let Some((now, e)) = self.explain.as_mut() {
            let placed = Reason::Placed {
                x: sub.x1,
                y: sub.y1,
                w: sub.width(),
                h: sub.height(),
            };
            e.record(*now, job, placed);
        }
        self.starts.push(MeshStart { job, sub });
        true
    }

    /// Records that `job` found no free submesh, with the largest free one (by area; the
    /// first in free-list order among equals).
    fn explain_no_submesh(&mut self, job: JobId) {
        let Some((now, e)) = self.explain.as_mut() else {
            return;
        };
        let Some((w, h)) = self.jobs.get(job).and_then(|j| j.shape) else {
            return;
        };
        let largest =
            self.mesh
                .maximal_free_submeshes()
                .into_iter()
                .fold(None::<Submesh>, |best, s| match best {
                    Some(b) if b.width() * b.height() >= s.width() * s.height() => Some(b),
                    _ => Some(s),
                });
        let (largest_w, largest_h) = largest.map_or((0, 0), |s| (s.width(), s.height()));
        let blocked = Reason::NoSubmesh {
            w,
            h,
            rotated: self.allocator.switches_orientation(),
            free_nodes: self.mesh.free_count(),
            largest_w,
            largest_h,
        };
        e.record(*now, job, blocked);
    }

    /// Decides to start `job` on `sub` as given (no allocator). The engine validates it; an
    /// impossible start makes the run fail.
    pub fn start_at(&mut self, job: JobId, sub: Submesh) {
        let _ = self.mesh.allocate(job, sub);
        self.starts.push(MeshStart { job, sub });
    }

    /// The decisions made so far in this instant.
    pub fn starts(&self) -> &[MeshStart] {
        self.starts
    }

    /// The scratch mesh (this instant's decisions included).
    pub fn mesh(&self) -> &Mesh {
        self.mesh
    }
}

/// A scheduling policy for a mesh.
pub trait MeshPolicy {
    /// Name as in the paper's figures: `FCFS`, `OO`, `OOCB-8`, `Window-240`, `Delay`.
    fn name(&self) -> String;
    /// `job` was submitted at `ctx.now`.
    fn job_arrived(&mut self, job: JobId, ctx: &MeshContext<'_>);
    /// `job` finished at `ctx.now`; its submesh is already free.
    fn job_completed(&mut self, job: JobId, ctx: &MeshContext<'_>);
    /// Makes this instant's decisions through `plan`.
    fn decide(&mut self, ctx: &MeshContext<'_>, plan: &mut Planner<'_>);
    /// Jobs waiting for allocation.
    fn queue_len(&self) -> usize;
    /// The window size K when the policy may only start jobs among the K successive jobs
    /// that begin with the oldest waiting one (Window-K, FCFS = 1); checked after every run.
    fn window(&self) -> Option<usize> {
        None
    }
}

impl<P: MeshPolicy + ?Sized> MeshPolicy for Box<P> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn job_arrived(&mut self, job: JobId, ctx: &MeshContext<'_>) {
        (**self).job_arrived(job, ctx)
    }
    fn job_completed(&mut self, job: JobId, ctx: &MeshContext<'_>) {
        (**self).job_completed(job, ctx)
    }
    fn decide(&mut self, ctx: &MeshContext<'_>, plan: &mut Planner<'_>) {
        (**self).decide(ctx, plan)
    }
    fn queue_len(&self) -> usize {
        (**self).queue_len()
    }
    fn window(&self) -> Option<usize> {
        (**self).window()
    }
}

/// The events of the current instant that a policy replays in [`MeshPolicy::decide`].
#[derive(Clone, Debug, Default)]
pub struct InstantEvents {
    /// Something completed (a de-allocation pass is due).
    pub freed: bool,
    /// Jobs that arrived, in arrival order.
    pub arrived: Vec<JobId>,
}

impl InstantEvents {
    /// Takes the events, leaving none.
    pub fn take(&mut self) -> (bool, Vec<JobId>) {
        (
            std::mem::take(&mut self.freed),
            std::mem::take(&mut self.arrived),
        )
    }

    /// Gives the (emptied) arrival buffer back for reuse.
    pub fn recycle(&mut self, mut arrived: Vec<JobId>) {
        arrived.clear();
        if self.arrived.is_empty() {
            self.arrived = arrived;
        }
    }
}

/// The mesh policies by name: `fcfs`, `oo`, `oocb-<k>`, `window-<K>`, `delay`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshPolicyKind {
    Fcfs,
    OutOfOrder,
    /// Max-Bound k.
    Oocb(u32),
    /// Window size K.
    Window(usize),
    Delay,
}

/// The mesh policies, each named once (file name, label, description).
pub const MESH_POLICIES: Family = Family {
    key: "mesh_policy",
    noun: "mesh policy",
    sep: '-',
    entries: &[
        Entry::plain(
            "fcfs",
            "FCFS",
            "First come, first served (= Window-1): the queue head is placed first (Ababneh & Bani-Mohammad §2).",
        ),
        Entry::aliased(
            "oo",
            &["out_of_order"],
            "OO",
            "Aggressive out-of-order: every waiting job that fits starts, in arrival order (Ababneh & Bani-Mohammad §2.3).",
        ),
        Entry::with_param(
            "oocb",
            "OOCB-{}",
            "Out-of-order with a constant bound: a job may be overtaken at most k times (Ababneh & Bani-Mohammad §5).",
            Param {
                symbol: "k",
                label: "Max bound k",
                min: 0,
                max: u32::MAX as u64,
                bare: None,
                description: "largest number of overtakes",
            },
        ),
        Entry::with_param(
            "window",
            "Window-{}",
            "Window-K: the first K waiting jobs are considered together on arrivals and departures (Ababneh & Bani-Mohammad §4).",
            Param {
                symbol: "K",
                label: "Window size K",
                min: 1,
                max: u32::MAX as u64,
                bare: None,
                description: "window size, K ≥ 1",
            },
        ),
        Entry::plain(
            "delay",
            "Delay",
            "Delay-based: the head may be overtaken until its wait reaches λ·W (Ababneh & Bani-Mohammad §2.3, [20]).",
        ),
    ],
};

crate::base::registry::registered_serde!(MeshPolicyKind);

impl Registered for MeshPolicyKind {
    fn family() -> &'static Family {
        &MESH_POLICIES
    }
    fn key(self) -> (usize, Option<u64>) {
        match self {
            MeshPolicyKind::Fcfs => (0, None),
            MeshPolicyKind::OutOfOrder => (1, None),
            MeshPolicyKind::Oocb(k) => (2, Some(u64::from(k))),
            MeshPolicyKind::Window(k) => (3, Some(k as u64)),
            MeshPolicyKind::Delay => (4, None),
        }
    }
    fn from_key(i: usize, p: Option<u64>) -> Option<MeshPolicyKind> {
        Some(match (i, p) {
            (0, _) => MeshPolicyKind::Fcfs,
            (1, _) => MeshPolicyKind::OutOfOrder,
            (2, Some(k)) => MeshPolicyKind::Oocb(u32::try_from(k).ok()?),
            (3, Some(k)) => MeshPolicyKind::Window(usize::try_from(k).ok()?),
            (4, _) => MeshPolicyKind::Delay,
            _ => return None,
        })
    }
}

/// A policy name that cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMeshPolicy(pub String);

impl fmt::Display for UnknownMeshPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        MESH_POLICIES.unknown(&self.0).fmt(f)
    }
}

impl std::error::Error for UnknownMeshPolicy {}

impl MeshPolicyKind {
    /// A fresh policy instance.
    pub fn build(self) -> Box<dyn MeshPolicy> {
        match self {
            MeshPolicyKind::Fcfs => Box::new(MeshFcfs::new()),
            MeshPolicyKind::OutOfOrder => Box::new(OutOfOrder::new()),
            MeshPolicyKind::Oocb(k) => Box::new(Oocb::new(k)),
            MeshPolicyKind::Window(k) => Box::new(Window::new(k)),
            MeshPolicyKind::Delay => Box::new(DelayBased::new()),
        }
    }

    /// Name as in the paper's figures (`Window-240`).
    pub fn label(self) -> String {
        Registered::label(self)
    }

    /// Parses `fcfs`, `oo`, `oocb-8`, `window-240`, `delay` (case-insensitive; `_` or `-`).
    pub fn parse(s: &str) -> Result<MeshPolicyKind, UnknownMeshPolicy> {
        MeshPolicyKind::lookup(s).map_err(|_| UnknownMeshPolicy(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_names_parse() {
        for (s, k) in [
            ("fcfs", MeshPolicyKind::Fcfs),
            ("OO", MeshPolicyKind::OutOfOrder),
            ("oocb-8", MeshPolicyKind::Oocb(8)),
            ("Window-240", MeshPolicyKind::Window(240)),
            ("window_10", MeshPolicyKind::Window(10)),
            ("delay", MeshPolicyKind::Delay),
        ] {
            assert_eq!(MeshPolicyKind::parse(s), Ok(k));
            assert_eq!(MeshPolicyKind::parse(&k.label()), Ok(k));
            assert_eq!(k.build().name(), k.label());
        }
        for bad in ["window-0", "window-x", "oocb-", "easy", ""] {
            assert!(MeshPolicyKind::parse(bad).is_err(), "{bad}");
        }
    }
}
