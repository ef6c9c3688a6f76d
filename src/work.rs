//! The time budget: what a flat or mesh run will cost, estimated before it starts from the
//! prepared workload (or, before a synthetic model is generated, from its job count), with no
//! simulation. The CLI refuses a run whose estimate is above `--max-work` (default
//! [`crate::limits::MAX_WORK_SECONDS`]) and the page does not start a share link's run above
//! [`crate::limits::PAGE_WORK_SECONDS`] by itself (docs/limits.md, "Work bounds"). No paper
//! defines it; the model and its calibration are in docs/limits.md.
//!
//! **Flat runs.** The offered load is ρ = Σ size × run time / (machine processors × span of the
//! submit times), after the transforms (the load factor divides the span). Under overload
//! (ρ > 1) the backlog grows to n (1 − 1/ρ) jobs by the last arrival and drains after it, so the
//! queue an event sees is about q = n (1 − 1/ρ) / 2; below saturation it is about
//! [`QUEUE_FLOOR`] / (1 − ρ) (ρ capped at 0.99, q at n / 2), and q is the larger of the two. A policy's work units per job are then
//!
//! * FCFS: [`JOB_UNITS`],
//! * EASY: [`JOB_UNITS`] + q / [`EASY_QUEUE_SCALE`] (the backfilling scan, mostly cut short by
//!   the queue trees),
//! * conservative: [`JOB_UNITS`] + q (1 + q / [`CONSERVATIVE_PROFILE_SCALE`]) — at every early completion
//!   every queued job may move to an earlier reservation (q moves per completion, so n · q
//!   moves, quadratic in the queue when most jobs wait), and each move walks a profile whose
//!   length grows with the queue. This cost is inherent to the policy, not to the simulator.
//!
//! **Mesh runs.** Every allocation looks at the mesh: work units = jobs × W · H, and for the
//! non-contiguous allocators, whose contention model's work per job grows with the jobs in the
//! system, × (1 + min(jobs, [`MESH_JOBS_CAP`]) / [`MESH_JOBS_SCALE`]); seconds = units × the
//! allocator class's seconds per unit ([`AllocatorClass`]). The mesh policies (window-K, OO,
//! …) add little in the measured cases and are not modelled.
//!
//! **Wormhole runs** (`network.model = "wormhole"`, a non-contiguous allocator, no phases; Mache
//! et al. §4.1, [`crate::network::wormhole`]) add the flit-level events of their rounds: a job of
//! n nodes (at most W · H) and run time C runs R = max(1, round(C / round length)) rounds
//! ([`crate::network::wormhole::WormholeConfig::rounds`]), a fraction ρ of them writes (n · |IO|
//! messages) and the rest all-to-all exchanges (n (n − 1) messages); a message of h hops costs
//! h + 2 + min(L, h + 2) events (header moves and tail steps, L flits; docs/network-model.md,
//! "Cost"), with h the mean XY distance: (W + H) / 3 between two nodes, W / 2 + H / 3 from a node
//! to an I/O node (west or east; H / 2 + W / 3 north or south). Seconds = events ×
//! [`WORMHOLE_SECONDS_PER_EVENT`], added to the allocation's. Before a synthetic model is
//! generated, the events are those of a sample of at most [`WORMHOLE_SAMPLE_JOBS`] jobs of the
//! same model and seed, scaled to its job count.
//!
//! Seconds = units × the class's seconds per unit, measured with the release build on the
//! development machine (docs/limits.md lists the commands and times). A browser tab runs the
//! wasm build at about the same speed; slower machines take longer, which is why the message
//! says "on this machine" only as an order of magnitude and the bound is generous.

use crate::alloc::node_allocator::NodeAllocatorKind;
use crate::limits::WorkEstimate;
use crate::modes::flat::spec::{Experiment, WorkloadSpec};
use crate::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment};
use crate::policy::PolicyKind;
use crate::workload::Workload;

/// Queue length a run below saturation sees at ρ = 0 (bursts of real traces); it grows as
/// 1 / (1 − ρ) towards saturation (capped at ρ = 0.99).
pub const QUEUE_FLOOR: f64 = 8.0;
/// Work units of one job's arrival, start and completion under any policy.
pub const JOB_UNITS: f64 = 4.0;
/// EASY's backfilling scan: one unit per this many queued jobs.
pub const EASY_QUEUE_SCALE: f64 = 1000.0;
/// Conservative backfilling: the profile walked by one move grows by one unit per this many
/// queued jobs.
pub const CONSERVATIVE_PROFILE_SCALE: f64 = 4000.0;
/// Seconds per flat work unit (one move of conservative), calibrated (docs/limits.md).
pub const FLAT_SECONDS_PER_UNIT: f64 = 1e-7;
/// Mesh runs of node allocators: the contention model's work per job grows with the jobs in
/// the system, by one more job's cost per this many jobs ...
pub const MESH_JOBS_SCALE: f64 = 500.0;
/// ... up to this many jobs (beyond it the system is taken to be in a steady state).
pub const MESH_JOBS_CAP: f64 = 5000.0;

/// Seconds per event of the wormhole model (a header move or a tail step), measured
/// (docs/limits.md, "Work bounds").
pub const WORMHOLE_SECONDS_PER_EVENT: f64 = 7e-8;
/// Jobs of a synthetic model generated to estimate a wormhole run before the model is
/// generated in full.
pub const WORMHOLE_SAMPLE_JOBS: usize = 10_000;

/// The flit-level work of a wormhole run: messages (worms) and events.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WormholeWork {
    pub messages: f64,
    pub events: f64,
}

/// Whether `exp` runs the wormhole model: a non-contiguous allocator, no phases, `network.model
/// = "wormhole"`.
pub fn runs_wormhole(exp: &MeshExperiment) -> bool {
    !exp.allocator.is_contiguous()
        && exp.network.phases.is_none()
        && exp.network.model == ContentionModel::Wormhole
}

/// The wormhole work of `exp`'s jobs, each (nodes, run time), or `None` when `exp` does not
/// run the wormhole model ([`runs_wormhole`]).
pub fn wormhole_work(
    exp: &MeshExperiment,
    jobs: impl IntoIterator<Item = (u32, f64)>,
) -> Option<WormholeWork> {
    if !runs_wormhole(exp) {
        return None;
    }
    let cfg = exp.wormhole_config();
    let (w, h) = (f64::from(exp.width), f64::from(exp.height));
    let area = exp.width.saturating_mul(exp.height).max(1);
    let (io, to_io) = match exp.network_model() {
        Ok(net) => {
            let across = matches!(
                net.io_side(),
                crate::network::IoSide::West | crate::network::IoSide::East
            );
            let hops = if across {
                w / 2.0 + h / 3.0
            } else {
                h / 2.0 + w / 3.0
            };
            (net.io_nodes().len() as f64, hops)
        }
        Err(_) => (f64::from(exp.height), w / 2.0 + h / 3.0),
    };
    let flits = f64::from(cfg.packet_flits);
    let per_message = |hops: f64| hops + 2.0 + flits.min(hops + 2.0);
    let (a2a_events, write_events) = (per_message((w + h) / 3.0), per_message(to_io));
    let rho = cfg.traffic_io;
    let mut work = WormholeWork::default();
    for (procs, run_time) in jobs {
        let n = f64::from(procs.min(area));
        let rounds = cfg.rounds(run_time) as f64;
        let writes = rounds * rho * n * io;
        let exchanges = rounds * (1.0 - rho) * n * (n - 1.0).max(0.0);
        work.messages += writes + exchanges;
        work.events += writes * write_events + exchanges * a2a_events;
    }
    Some(work)
}

/// `base` (the allocation's estimate) plus the wormhole work `w` of `jobs` jobs; the reason
/// names the wormhole model when its events dominate.
fn with_wormhole(
    base: WorkEstimate,
    exp: &MeshExperiment,
    jobs: usize,
    w: WormholeWork,
) -> WorkEstimate {
    let seconds = w.events * WORMHOLE_SECONDS_PER_EVENT;
    let why = if seconds > base.seconds {
        format!(
            "{jobs} jobs on a {} × {} mesh under the packet-level wormhole model: about {:.3e} \
             messages of {} flits, {:.3e} flit-level events",
            exp.width,
            exp.height,
            w.messages,
            exp.wormhole_config().packet_flits,
            w.events
        )
    } else {
        base.why
    };
    WorkEstimate {
        units: base.units + w.events,
        seconds: base.seconds + seconds,
        why,
    }
}

/// How costly one allocation attempt is per mesh node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocatorClass {
    /// First Fit, Best Fit, MPL: a scan of the busy array.
    Contiguous,
    /// Random, Paging, Hilbert, PLAS: free nodes in a fixed order.
    CheapNodes,
    /// MC, MC-Elongated, MBS, the binary-tree family: shells, buddies or trees searched around
    /// every candidate.
    Expensive,
}

impl AllocatorClass {
    /// The class of `kind`.
    pub fn of(kind: MeshAllocatorKind) -> AllocatorClass {
        match kind {
            MeshAllocatorKind::Contiguous(_) => AllocatorClass::Contiguous,
            MeshAllocatorKind::Nodes(
                NodeAllocatorKind::Random
                | NodeAllocatorKind::Paging(_)
                | NodeAllocatorKind::Hilbert(_)
                | NodeAllocatorKind::Plas,
            ) => AllocatorClass::CheapNodes,
            MeshAllocatorKind::Nodes(
                NodeAllocatorKind::Mc
                | NodeAllocatorKind::McElongated
                | NodeAllocatorKind::Mbs
                | NodeAllocatorKind::BinaryTree(_),
            ) => AllocatorClass::Expensive,
        }
    }

    /// Seconds per (job × mesh node) of one allocation attempt.
    pub fn seconds_per_node(self) -> f64 {
        match self {
            AllocatorClass::Contiguous => 3.5e-8,
            AllocatorClass::CheapNodes => 3e-8,
            AllocatorClass::Expensive => 6e-8,
        }
    }

    fn words(self) -> &'static str {
        match self {
            AllocatorClass::Contiguous => "a contiguous allocator scans the mesh for every job",
            AllocatorClass::CheapNodes => {
                "the allocator and the contention model visit the mesh for every job"
            }
            AllocatorClass::Expensive => {
                "the allocator searches shells, buddies or trees over the whole mesh for every job"
            }
        }
    }
}

/// Offered load of `workload` on `procs` processors: Σ size × run time / (procs × span of the
/// submit times); infinite when every job arrives at once (more than one job), 0 when empty.
pub fn offered_load(workload: &Workload, procs: u32) -> f64 {
    let jobs = &workload.jobs;
    if jobs.is_empty() || procs == 0 {
        return 0.0;
    }
    let (mut first, mut last, mut area) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
    for j in jobs {
        first = first.min(j.submit);
        last = last.max(j.submit);
        area += f64::from(j.procs.min(procs)) * j.run_time.max(0.0);
    }
    let span = last - first;
    if span.is_nan() || span <= 0.0 {
        return if jobs.len() > 1 && area > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    area / (f64::from(procs) * span)
}

/// The queue length an event sees, on average, for `jobs` jobs at offered load `rho`.
pub fn mean_queue(jobs: usize, rho: f64) -> f64 {
    let n = jobs as f64;
    let below = (QUEUE_FLOOR / (1.0 - rho.clamp(0.0, 0.99))).min(n / 2.0);
    let backlog = if rho > 1.0 {
        // 1 − 1/ρ → 1 as ρ → ∞.
        n * (1.0 - 1.0 / rho) / 2.0
    } else {
        0.0
    };
    below.max(backlog).min(n.max(1.0))
}

/// Work units of `jobs` jobs under `policy` at offered load `rho`.
pub fn flat_units(policy: PolicyKind, jobs: usize, rho: f64) -> f64 {
    let n = jobs as f64;
    let q = mean_queue(jobs, rho);
    let per_job = match policy {
        PolicyKind::Fcfs => JOB_UNITS,
        PolicyKind::Easy => JOB_UNITS + q / EASY_QUEUE_SCALE,
        PolicyKind::Conservative => JOB_UNITS + q * (1.0 + q / CONSERVATIVE_PROFILE_SCALE),
    };
    n * per_job
}

/// The estimate of a flat run of `exp` on its prepared `workload` and `procs` processors.
pub fn estimate_flat(exp: &Experiment, workload: &Workload, procs: u32) -> WorkEstimate {
    let jobs = workload.jobs.len();
    let rho = offered_load(workload, procs);
    let units = flat_units(exp.policy, jobs, rho);
    let load = if rho.is_finite() {
        format!("offered load {rho:.2}")
    } else {
        "every job submitted at once".to_string()
    };
    let why = match exp.policy {
        PolicyKind::Conservative if rho > 1.0 => format!(
            "{jobs} jobs, {load}: conservative backfilling under overload — at every early \
             completion each of about {:.0} queued jobs may move, so the number of moves grows \
             with the square of the queue; this cost is inherent to the policy (EASY does not \
             have it)",
            mean_queue(jobs, rho)
        ),
        p => format!("{jobs} jobs under {}, {load}", p.as_str()),
    };
    WorkEstimate {
        units,
        seconds: units * FLAT_SECONDS_PER_UNIT,
        why,
    }
}

/// Work units and seconds of `jobs` jobs on a `width` × `height` mesh with `allocator`.
pub fn mesh_estimate(
    allocator: MeshAllocatorKind,
    width: u32,
    height: u32,
    jobs: usize,
) -> WorkEstimate {
    let class = AllocatorClass::of(allocator);
    let area = f64::from(width) * f64::from(height);
    let n = jobs as f64;
    let growth = if allocator.is_contiguous() {
        1.0
    } else {
        1.0 + n.min(MESH_JOBS_CAP) / MESH_JOBS_SCALE
    };
    let units = n * area * growth;
    let why = format!(
        "{jobs} jobs on a {width} × {height} mesh with {}: {}",
        allocator.label(),
        class.words()
    );
    WorkEstimate {
        units,
        seconds: units * class.seconds_per_node(),
        why,
    }
}

/// The estimate of a mesh run of `exp` on its prepared `workload` ([`crate::modes::mesh::run::prepare_mesh`]).
pub fn estimate_mesh(exp: &MeshExperiment, workload: &Workload) -> WorkEstimate {
    let jobs = workload.jobs.len();
    let base = mesh_estimate(exp.allocator, exp.width, exp.height, jobs);
    match wormhole_work(exp, workload.jobs.iter().map(|j| (j.procs, j.run_time))) {
        Some(w) => with_wormhole(base, exp, jobs, w),
        None => base,
    }
}

/// The wormhole work of `jobs` jobs of synthetic `model` under `exp`: that of a sample of at
/// most [`WORMHOLE_SAMPLE_JOBS`] jobs generated with the experiment's seed, scaled.
fn sampled_wormhole_work(
    exp: &MeshExperiment,
    model: &crate::workload::synthetic::SyntheticModel,
    jobs: usize,
) -> Option<WormholeWork> {
    use crate::workload::synthetic::SyntheticModel;
    if !runs_wormhole(exp) {
        return None;
    }
    let sample = jobs.min(WORMHOLE_SAMPLE_JOBS);
    let mut m = model.clone();
    match &mut m {
        SyntheticModel::Lublin(p) => p.jobs = sample,
        SyntheticModel::MeshJobs(p) => p.jobs = sample,
        SyntheticModel::ExponentialJobs(p) => p.jobs = sample,
    }
    let drawn = m.generate(exp.seed);
    let w = wormhole_work(exp, drawn.jobs.iter().map(|j| (j.procs, j.run_time)))?;
    let k = if drawn.jobs.is_empty() {
        0.0
    } else {
        jobs as f64 / drawn.jobs.len() as f64
    };
    Some(WormholeWork {
        messages: w.messages * k,
        events: w.events * k,
    })
}

/// The estimate of a mesh run of `exp` from its experiment alone, before a synthetic model is
/// generated: its job count (after `first_jobs`), every job kept. `None` for a
/// trace (its jobs are known only once read) and when a time window or a cut may drop jobs.
/// It is what the page checks before it starts a share link's run, and the CLI's first check
/// (a 10^6-job model is refused before it is generated).
pub fn estimate_mesh_spec(exp: &MeshExperiment) -> Option<WorkEstimate> {
    let WorkloadSpec::Synthetic(model) = &exp.workload else {
        return None;
    };
    let t = &exp.transforms;
    if t.time_window.is_some() || t.cut_span.is_some() {
        return None;
    }
    let jobs = t.first_jobs.map_or(model.jobs(), |f| f.min(model.jobs()));
    let base = mesh_estimate(exp.allocator, exp.width, exp.height, jobs);
    Some(match sampled_wormhole_work(exp, model, jobs) {
        Some(w) => with_wormhole(base, exp, jobs, w),
        None => base,
    })
}

/// The estimate of a batch of mesh runs, `exp` with each of `allocators` (`exp.allocator`
/// alone when empty): the sum of the runs' estimates, from the model's job count or, for a
/// trace, from `trace_jobs` (the jobs read). `None` when the jobs are not known yet. This is
/// what the page checks before a share link runs by itself.
pub fn estimate_mesh_batch(
    exp: &MeshExperiment,
    allocators: &[MeshAllocatorKind],
    trace_jobs: Option<usize>,
) -> Option<WorkEstimate> {
    let one = |allocator: MeshAllocatorKind| {
        let mut e = exp.clone();
        e.allocator = allocator;
        match (&exp.workload, trace_jobs) {
            (WorkloadSpec::Swf(_), Some(jobs)) => {
                Some(mesh_estimate(allocator, exp.width, exp.height, jobs))
            }
            (WorkloadSpec::Swf(_), None) => None,
            _ => estimate_mesh_spec(&e),
        }
    };
    let list: Vec<MeshAllocatorKind> = if allocators.is_empty() {
        vec![exp.allocator]
    } else {
        allocators.to_vec()
    };
    let mut total: Option<WorkEstimate> = None;
    for a in list {
        let e = one(a)?;
        total = Some(match total {
            None => e,
            Some(t) if e.seconds > t.seconds => WorkEstimate {
                units: t.units + e.units,
                seconds: t.seconds + e.seconds,
                why: e.why,
            },
            Some(t) => WorkEstimate {
                units: t.units + e.units,
                seconds: t.seconds + e.seconds,
                why: t.why,
            },
        });
    }
    total
}

/// What the page shows instead of starting a share link's run estimated above
/// [`crate::limits::PAGE_WORK_SECONDS`]; `None` when the link may run by itself.
pub fn page_hold_message(estimate: &WorkEstimate) -> Option<String> {
    (estimate.seconds > crate::limits::PAGE_WORK_SECONDS).then(|| {
        format!(
            "This run is estimated at {} in this tab ({}); press Run to start it.",
            estimate.duration(),
            estimate.why
        )
    })
}

/// The time left of a run `fraction` done after `elapsed` seconds, in words (`about 3 min
/// left`), at the pace so far; `None` until the run has taken 2 s and done 1 %, or when the
/// values are not numbers (the page's progress label, docs/limits.md).
pub fn time_left_words(elapsed: f64, fraction: f64) -> Option<String> {
    if !(elapsed.is_finite() && fraction.is_finite()) || elapsed < 2.0 || fraction < 0.01 {
        return None;
    }
    let left = elapsed * (1.0 - fraction.min(1.0)) / fraction;
    Some(format!("{} left", crate::limits::duration_words(left)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::AllocatorKind;

    #[test]
    fn the_estimate_grows_with_jobs_load_and_area() {
        for policy in PolicyKind::ALL {
            for rho in [0.0, 0.5, 0.99, 1.0, 1.5, 5.0, f64::INFINITY] {
                let mut last = 0.0;
                for n in [1, 10, 100, 1000, 10_000, 1_000_000] {
                    let u = flat_units(policy, n, rho);
                    assert!(u >= last, "{policy:?} ρ {rho} n {n}");
                    last = u;
                }
            }
            let mut last = 0.0;
            for rho in [0.0, 0.5, 0.99, 1.0, 1.5, 5.0, f64::INFINITY] {
                let u = flat_units(policy, 4000, rho);
                assert!(u >= last, "{policy:?} ρ {rho}");
                last = u;
            }
        }
        let allocators = [
            MeshAllocatorKind::Contiguous(AllocatorKind::Mpl),
            MeshAllocatorKind::Nodes(NodeAllocatorKind::Paging(0)),
            MeshAllocatorKind::Nodes(NodeAllocatorKind::McElongated),
        ];
        for a in allocators {
            let mut last = 0.0;
            for side in [1, 16, 32, 64, 128, 256] {
                let mut row = 0.0;
                for n in [1, 100, 1000, 1_000_000] {
                    let s = mesh_estimate(a, side, side, n).seconds;
                    assert!(s >= row);
                    row = s;
                }
                let s = mesh_estimate(a, side, side, 1000).seconds;
                assert!(s >= last);
                last = s;
            }
        }
    }

    #[test]
    fn a_huge_mesh_link_is_held_in_the_page() {
        let mut exp = crate::modes::mesh::presets::preset_contention(0.6);
        let all = MeshAllocatorKind::all();
        let small = estimate_mesh_batch(&exp, &all, None).unwrap();
        assert_eq!(page_hold_message(&small), None);
        exp.width = 256;
        exp.height = 256;
        if let WorkloadSpec::Synthetic(
            crate::workload::synthetic::SyntheticModel::ExponentialJobs(p),
        ) = &mut exp.workload
        {
            p.jobs = 1_000_000;
        }
        let huge = estimate_mesh_batch(&exp, &[], None).unwrap();
        let text = page_hold_message(&huge).unwrap();
        assert!(
            text.starts_with("This run is estimated at about "),
            "{text}"
        );
        assert!(text.ends_with("; press Run to start it."), "{text}");
        let trace = crate::modes::mesh::spec::MeshExperiment {
            workload: WorkloadSpec::Swf(Default::default()),
            ..exp.clone()
        };
        assert_eq!(estimate_mesh_batch(&trace, &[], None), None);
        let read = estimate_mesh_batch(&trace, &all[..2], Some(1000)).unwrap();
        assert!(read.seconds > 0.0);
    }

    /// The wormhole model's rounds count: its estimate is the allocation's plus the flit-level
    /// events, close to the events a run processes (Table 1 jobs, two allocators), growing with
    /// the rounds, and a run of many rounds is refused by the CLI's bound and held in the page.
    #[test]
    fn wormhole_rounds_are_counted() {
        use crate::alloc::node_allocator::NodeAllocatorKind as N;
        use crate::modes::mesh::spec::{ContentionModel, WormholeSpec};
        use crate::network::flow::FlowJob;
        use crate::workload::synthetic::SyntheticModel;
        let mut exp = crate::modes::mesh::presets::preset_contention(0.5);
        exp.network.model = ContentionModel::Wormhole;
        if let WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p)) = &mut exp.workload {
            p.jobs = 120;
        }
        crate::modes::flat::spec::ExperimentFile::validate(&exp).unwrap();
        let WorkloadSpec::Synthetic(model) = &exp.workload else {
            panic!("synthetic preset");
        };
        let workload = model.generate(exp.seed);
        let net = exp.network_model().unwrap();
        let fjobs: Vec<FlowJob> = workload.jobs.iter().map(FlowJob::of).collect();
        for kind in [N::McElongated, N::Random] {
            exp.allocator = MeshAllocatorKind::Nodes(kind);
            let w =
                wormhole_work(&exp, workload.jobs.iter().map(|j| (j.procs, j.run_time))).unwrap();
            let mut alloc = kind.build(&net, exp.seed);
            let run = crate::network::wormhole::simulate_wormhole(
                &net,
                &fjobs,
                alloc.as_mut(),
                exp.wormhole_config(),
            )
            .unwrap();
            let (m, e) = (run.stats.injected as f64, run.stats.events as f64);
            assert!(
                (w.messages / m - 1.0).abs() < 0.1,
                "{kind:?}: {} vs {m}",
                w.messages
            );
            assert!(
                (0.8..1.5).contains(&(w.events / e)),
                "{kind:?}: {} vs {e}",
                w.events
            );
            let flow = mesh_estimate(exp.allocator, exp.width, exp.height, workload.jobs.len());
            let est = estimate_mesh(&exp, &workload);
            assert!(
                (est.seconds - flow.seconds - w.events * WORMHOLE_SECONDS_PER_EVENT).abs() < 1e-9
            );
            // Before the model is generated: the same jobs (fewer than the sample), the same
            // estimate.
            let spec = estimate_mesh_spec(&exp).unwrap();
            assert!(
                (spec.seconds / est.seconds - 1.0).abs() < 1e-9,
                "{spec:?} {est:?}"
            );
        }
        // Not under the other models, contiguous allocators or the phase model.
        let mut flow = exp.clone();
        flow.network.model = ContentionModel::Separated;
        assert_eq!(wormhole_work(&flow, [(16, 7150.0)]), None);
        let mut contiguous = exp.clone();
        contiguous.allocator = MeshAllocatorKind::Contiguous(AllocatorKind::Mpl);
        assert_eq!(wormhole_work(&contiguous, [(16, 7150.0)]), None);
        // Shorter rounds, more of them, more work; and a run of thousands of rounds per job is
        // over the CLI's bound (600 s) and held in the page, saying why.
        let base = estimate_mesh(&exp, &workload).seconds;
        let mut short = exp.clone();
        short.network.wormhole = Some(WormholeSpec {
            round_length: 715.0,
            ..WormholeSpec::default()
        });
        assert!(estimate_mesh(&short, &workload).seconds > 5.0 * base);
        let mut long = exp.clone();
        if let WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p)) = &mut long.workload {
            p.jobs = 1000;
        }
        long.network.wormhole = Some(WormholeSpec {
            round_length: 1.0,
            ..WormholeSpec::default()
        });
        let e = estimate_mesh_spec(&long).unwrap();
        assert!(e.seconds > crate::limits::MAX_WORK_SECONDS, "{e:?}");
        assert!(e.why.contains("packet-level wormhole model"), "{}", e.why);
        assert!(page_hold_message(&e).is_some());
    }

    #[test]
    fn overload_queues_and_durations_in_words() {
        assert!((mean_queue(4000, f64::INFINITY) - 2000.0).abs() < 1e-9);
        assert!(mean_queue(4000, 0.5) < 20.0);
        assert_eq!(crate::limits::duration_words(0.2), "under a second");
        assert_eq!(crate::limits::duration_words(40.0), "about 40 s");
        assert_eq!(crate::limits::duration_words(2400.0), "about 40 min");
        assert_eq!(crate::limits::duration_words(3.0 * 3600.0), "about 3 h");
        assert_eq!(time_left_words(1.0, 0.5), None);
        assert_eq!(time_left_words(10.0, 0.001), None);
        assert_eq!(time_left_words(10.0, f64::NAN), None);
        assert_eq!(
            time_left_words(60.0, 0.25).as_deref(),
            Some("about 3 min left")
        );
    }
}
