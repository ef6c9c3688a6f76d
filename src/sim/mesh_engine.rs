//! The discrete-event engine for 2D meshes with contiguous submesh allocation (Ababneh & Bani-Mohammad).
//!
//! The one engine loop ([`super::instant`]) with a [`MeshMachine`] — the mesh, a submesh
//! allocator and a mesh policy — as its instance: time advances from instant to instant; at
//! each instant all completions at that time (in (time, sequence) order), then all arrivals at
//! that time (in arrival order), then one call of the policy's `decide`. A job that starts and
//! ends at the same instant completes in a second pass over that time, after which the policy
//! is asked again. `step` processes one instant, `step_until(t)` every instant
//! up to `t`, `step_instants(n)` at most `n` instants.
//!
//! Policies decide through a [`Planner`] over a scratch copy of the mesh, using the engine's
//! allocator; the engine validates every decision against the real mesh — the job is waiting,
//! the submesh has the job's shape, lies inside the mesh and is entirely free — and refuses an
//! impossible one with a [`MeshSimError`]. Every start and end is logged (for the invariant
//! checker [`super::mesh_invariants`] and for replaying the run).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::instant::{Engine, Instance, JobOutcome, JobTable, StepReport};
use crate::alloc::{AllocatorKind, SubmeshAllocator};
use crate::base::event::EventQueue;
use crate::base::{Explainer, Explanation, JobId, Time};
use crate::machine::mesh::{Fragmentation, Mesh, MeshError, Submesh};
use crate::metrics::{JobRecord, Summary};
use crate::policy::mesh::{MeshContext, MeshPolicy, MeshPolicyKind, MeshStart, Planner};
use crate::workload::Job;

/// A mesh simulation that cannot start or go on.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshSimError {
    /// The mesh size is impossible.
    Mesh(MeshError),
    /// A job has no submesh shape (give shapes with `workload::shape`).
    NoShape { job: u64 },
    /// A job's shape is empty or larger than the mesh.
    BadShape {
        job: u64,
        w: u32,
        h: u32,
        width: u32,
        height: u32,
    },
    /// Jobs are not in submit-time order (or a submit time is not a number).
    Unsorted { job: u64 },
    /// A job's duration is negative or not a number.
    BadDuration { job: u64 },
    /// The policy started a job that is not waiting.
    NotWaiting { policy: String, job: u64 },
    /// The policy gave a job a submesh of another shape.
    WrongShape {
        policy: String,
        job: u64,
        sub: Submesh,
        w: u32,
        h: u32,
    },
    /// The policy's submesh is outside the mesh or not free.
    Placement {
        policy: String,
        job: u64,
        error: MeshError,
    },
    /// Every event is processed but jobs are still waiting on an idle mesh.
    Stalled { policy: String, waiting: usize },
}

impl fmt::Display for MeshSimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshSimError::Mesh(e) => write!(f, "{e}"),
            MeshSimError::NoShape { job } => write!(
                f,
                "job {job} has no submesh shape (apply a shape rule for mesh machines)"
            ),
            MeshSimError::BadShape {
                job,
                w,
                h,
                width,
                height,
            } => write!(
                f,
                "job {job} requests a {w} × {h} submesh, which a {width} × {height} mesh cannot hold"
            ),
            MeshSimError::Unsorted { job } => {
                write!(f, "job {job} is out of submit-time order (or has no submit time)")
            }
            MeshSimError::BadDuration { job } => {
                write!(f, "job {job} has a negative or undefined run time")
            }
            MeshSimError::NotWaiting { policy, job } => {
                write!(f, "policy {policy} started job {job}, which is not waiting")
            }
            MeshSimError::WrongShape {
                policy,
                job,
                sub,
                w,
                h,
            } => write!(
                f,
                "policy {policy} gave job {job} the submesh {sub}, but it requests {w} × {h}"
            ),
            MeshSimError::Placement { policy, job, error } => {
                write!(f, "policy {policy} made an impossible start of job {job}: {error}")
            }
            MeshSimError::Stalled { policy, waiting } => write!(
                f,
                "policy {policy} left {waiting} jobs waiting after the last event"
            ),
        }
    }
}

impl std::error::Error for MeshSimError {}

/// What happened to the mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum MeshAction {
    /// `job` was allocated `sub` and started.
    Start { job: JobId, sub: Submesh },
    /// `job` finished and released its submesh.
    End { job: JobId },
}

/// One logged action at a time.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeshEvent {
    pub time: Time,
    #[serde(flatten)]
    pub action: MeshAction,
}

/// The finished mesh run.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshSimResult {
    pub policy: String,
    pub allocator: &'static str,
    pub width: u32,
    pub height: u32,
    pub jobs: Vec<Job>,
    pub outcomes: Vec<JobOutcome>,
    /// The submesh each job ran on.
    pub placements: Vec<Option<Submesh>>,
    /// The policy's window size K, if it has one (checked by the invariants).
    pub window: Option<usize>,
    /// `true` when a job may have run on an h × w submesh for its w × h shape (orientation
    /// switching, [`crate::alloc::orientation`]).
    pub switch_orientation: bool,
    /// Every start and end in the order the engine applied them (empty when not recorded).
    pub log: Vec<MeshEvent>,
    /// Why jobs waited and where they started, when recorded
    /// ([`Engine::with_explanations`]; `crate::base::explain`).
    pub explanations: Vec<Explanation>,
}

impl MeshSimResult {
    /// Per-job records (wait, turnaround, slowdowns) of the jobs that started.
    pub fn records(&self) -> Vec<JobRecord> {
        crate::metrics::records_of(&self.jobs, &self.outcomes)
    }

    /// The run summary (mean turnaround, mean and max waiting delay, utilisation = Σ w·h ·
    /// run / (W·H · makespan), …) on the W·H nodes of the mesh.
    pub fn summary(&self) -> Summary {
        Summary::from_records(&self.records(), self.width * self.height, 0)
    }
}

/// The mesh, its allocator and its policy: the [`Instance`] of the mesh engine.
pub struct MeshMachine<P: MeshPolicy> {
    shapes: Vec<(u32, u32)>,
    mesh: Mesh,
    scratch: Mesh,
    allocator: Box<dyn SubmeshAllocator>,
    policy: P,
    placements: Vec<Option<Submesh>>,
    running: usize,
    log: Option<Vec<MeshEvent>>,
    explainer: Explainer,
}

/// A mesh simulation of one workload under one policy and one allocator.
pub type MeshSimulation<P> = Engine<MeshMachine<P>>;

impl Engine<MeshMachine<Box<dyn MeshPolicy>>> {
    /// A simulation with a policy and an allocator chosen by name.
    pub fn by_kind(
        jobs: Vec<Job>,
        width: u32,
        height: u32,
        allocator: AllocatorKind,
        policy: MeshPolicyKind,
    ) -> Result<Self, MeshSimError> {
        MeshSimulation::new(jobs, width, height, allocator.build(), policy.build())
    }

    /// As [`by_kind`](Self::by_kind), the allocator switching a request's orientation when it
    /// does not fit as requested if `switch_orientation` ([`crate::alloc::orientation`]).
    pub fn by_kind_with(
        jobs: Vec<Job>,
        width: u32,
        height: u32,
        allocator: AllocatorKind,
        switch_orientation: bool,
        policy: MeshPolicyKind,
    ) -> Result<Self, MeshSimError> {
        let a = allocator.build_with(switch_orientation);
        MeshSimulation::new(jobs, width, height, a, policy.build())
    }
}

impl<P: MeshPolicy> Engine<MeshMachine<P>> {
    /// A simulation of `jobs` (in submit order, each with a shape that fits) on an
    /// M(`width`, `height`) under `policy`, allocating with `allocator`. The log is recorded.
    pub fn new(
        jobs: Vec<Job>,
        width: u32,
        height: u32,
        allocator: Box<dyn SubmeshAllocator>,
        policy: P,
    ) -> Result<Self, MeshSimError> {
        let mesh = Mesh::new(width, height).map_err(MeshSimError::Mesh)?;
        let mut shapes = Vec::with_capacity(jobs.len());
        let mut last = f64::NEG_INFINITY;
        for j in &jobs {
            let Some((w, h)) = j.shape else {
                return Err(MeshSimError::NoShape { job: j.id });
            };
            if w == 0 || h == 0 || w > width || h > height {
                return Err(MeshSimError::BadShape {
                    job: j.id,
                    w,
                    h,
                    width,
                    height,
                });
            }
            if j.submit.is_nan() || j.submit < last {
                return Err(MeshSimError::Unsorted { job: j.id });
            }
            last = j.submit;
            let d = j.duration();
            if d.is_nan() || d < 0.0 || !d.is_finite() {
                return Err(MeshSimError::BadDuration { job: j.id });
            }
            shapes.push((w, h));
        }
        let n = jobs.len();
        let machine = MeshMachine {
            scratch: mesh.clone(),
            mesh,
            shapes,
            allocator,
            policy,
            placements: vec![None; n],
            running: 0,
            log: Some(Vec::with_capacity(2 * n)),
            explainer: Explainer::default(),
        };
        Ok(Engine::with_instance(jobs, machine))
    }

    /// Does not record the start/end log (faster; the invariant checker needs the log).
    pub fn without_log(mut self) -> Self {
        self.instance_mut().0.log = None;
        self
    }

    /// Records why each job waited (no free submesh of its shape, with the largest free one)
    /// and where it started (`crate::base::explain`).
    pub fn with_explanations(mut self) -> Self {
        self.instance_mut().0.explainer = Explainer::new(true);
        self
    }

    /// The mesh as it is now.
    pub fn mesh(&self) -> &Mesh {
        &self.instance().mesh
    }

    /// The policy (to inspect its queue or window).
    pub fn policy(&self) -> &P {
        &self.instance().policy
    }

    /// Fragmentation now: free nodes, free nodes that no waiting job could use (no free
    /// placement of any waiting job's shape covers them), largest free submesh.
    pub fn fragmentation(&mut self) -> Fragmentation {
        let (m, table) = self.instance_mut();
        let shapes: Vec<(u32, u32)> = m
            .shapes
            .iter()
            .enumerate()
            .filter(|&(j, _)| table.is_waiting(j))
            .map(|(_, &shape)| shape)
            .collect();
        m.mesh.fragmentation(&shapes)
    }

    /// The submesh of `job`, once it has started.
    pub fn placement(&self, job: JobId) -> Option<Submesh> {
        self.instance().placements.get(job).copied().flatten()
    }

    /// When `job` started and ends, once it has started.
    pub fn outcome(&self, job: JobId) -> Option<JobOutcome> {
        self.table().outcome(job)
    }
}

impl<P: MeshPolicy> MeshMachine<P> {
    fn context<'a>(&self, table: &'a JobTable) -> MeshContext<'a> {
        MeshContext {
            now: table.now(),
            jobs: table.jobs(),
            width: self.mesh.width(),
            height: self.mesh.height(),
            free_nodes: self.mesh.free_count(),
            running: self.running,
        }
    }

    fn placement_error(&self, table: &JobTable, j: JobId, error: MeshError) -> MeshSimError {
        MeshSimError::Placement {
            policy: self.policy.name(),
            job: table.id_of(j),
            error,
        }
    }
}

impl<P: MeshPolicy> Instance for MeshMachine<P> {
    type Start = MeshStart;
    type Error = MeshSimError;
    type Report = StepReport;
    type Output = MeshSimResult;

    fn job_of(start: MeshStart) -> JobId {
        start.job
    }

    fn complete(&mut self, table: &JobTable, j: JobId) -> Result<(), MeshSimError> {
        if let Some(sub) = self.placements[j] {
            self.mesh
                .release(j, sub)
                .map_err(|error| self.placement_error(table, j, error))?;
            self.scratch
                .release(j, sub)
                .map_err(|error| self.placement_error(table, j, error))?;
        }
        self.running -= 1;
        if let Some(log) = self.log.as_mut() {
            log.push(MeshEvent {
                time: table.now(),
                action: MeshAction::End { job: j },
            });
        }
        let ctx = self.context(table);
        self.policy.job_completed(j, &ctx);
        Ok(())
    }

    fn arrive(&mut self, table: &JobTable, j: JobId) -> Result<(), MeshSimError> {
        let ctx = self.context(table);
        self.policy.job_arrived(j, &ctx);
        Ok(())
    }

    /// Decisions on the scratch mesh, through a [`Planner`].
    fn decide(&mut self, _d: usize, table: &JobTable, starts: &mut Vec<MeshStart>) {
        let ctx = self.context(table);
        let mut plan = Planner::explained(
            &mut self.scratch,
            self.allocator.as_ref(),
            table.jobs(),
            starts,
            Some((table.now(), &mut self.explainer)),
        );
        self.policy.decide(&ctx, &mut plan);
    }

    fn not_waiting(&self, _d: usize, job: u64) -> MeshSimError {
        MeshSimError::NotWaiting {
            policy: self.policy.name(),
            job,
        }
    }

    fn start(&mut self, _d: usize, table: &JobTable, s: MeshStart) -> Result<Time, MeshSimError> {
        let j = s.job;
        let (w, h) = self.shapes[j];
        let (sw, sh) = (s.sub.width(), s.sub.height());
        let shape_ok =
            (sw, sh) == (w, h) || (self.allocator.switches_orientation() && (sw, sh) == (h, w));
        if !shape_ok || s.sub.x1 > s.sub.x2 || s.sub.y1 > s.sub.y2 {
            return Err(MeshSimError::WrongShape {
                policy: self.policy.name(),
                job: table.id_of(j),
                sub: s.sub,
                w,
                h,
            });
        }
        self.mesh
            .allocate(j, s.sub)
            .map_err(|error| self.placement_error(table, j, error))?;
        self.placements[j] = Some(s.sub);
        self.running += 1;
        let now = table.now();
        if let Some(log) = self.log.as_mut() {
            log.push(MeshEvent {
                time: now,
                action: MeshAction::Start { job: j, sub: s.sub },
            });
        }
        Ok(now + table.jobs()[j].duration())
    }

    /// Keeps the scratch mesh equal to the real one for any later inspection.
    fn refused(&mut self) {
        self.scratch.copy_from(&self.mesh);
    }

    fn stalled(&self, waiting: usize) -> MeshSimError {
        MeshSimError::Stalled {
            policy: self.policy.name(),
            waiting,
        }
    }

    fn finish_instant(
        &mut self,
        _table: &JobTable,
        _completions: &mut EventQueue,
        report: StepReport,
    ) -> Result<StepReport, MeshSimError> {
        Ok(report)
    }

    fn result(mut self, table: JobTable) -> MeshSimResult {
        let (jobs, outcomes) = table.into_parts();
        MeshSimResult {
            policy: self.policy.name(),
            allocator: self.allocator.name(),
            width: self.mesh.width(),
            height: self.mesh.height(),
            window: self.policy.window(),
            switch_orientation: self.allocator.switches_orientation(),
            jobs,
            outcomes,
            placements: self.placements,
            log: self.log.unwrap_or_default(),
            explanations: self.explainer.take(),
        }
    }
}
