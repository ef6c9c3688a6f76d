//! The one shape of every mode (`src/modes/`, ARCHITECTURE.md "The modes"): for every mode's
//! preset, prepare → simulate → finish → measure through its `ModeRun` gives exactly what the
//! mode's own pipeline gives (what the CLI prints); stepping the simulation in small slices
//! (as the page's worker does) gives the same result as running it to the end; progress never
//! goes back, ends with every job completed at the run's last simulated time, and a multi-run
//! mode's `stage` ends on its last simulation. The envelope hands out the same experiment.

use schedlab::form::moldable::preset_moldable;
use schedlab::limits::Limits;
use schedlab::modes::flat::run::TraceInput;
use schedlab::modes::flat::spec::{Experiment, WorkloadSpec};
use schedlab::modes::grid::link::GridShare;
use schedlab::modes::grid::run::{run_comparison, CONFIGURATIONS};
use schedlab::modes::grid::spec::preset_global_grid;
use schedlab::modes::mesh::presets::{preset_contention, preset_window};
use schedlab::modes::{flat, grid, mesh, moldable};
use schedlab::modes::{Envelope, Mode, ModeRun, Report, SimOptions, Stepper};
use schedlab::policy::PolicyKind;
use schedlab::workload::synthetic::{LublinParams, SyntheticModel};

fn no_trace(_: &WorkloadSpec) -> Result<Option<TraceInput<'static>>, schedlab::error::Error> {
    Ok(None)
}

/// Runs `exp` through `M` in slices of `n` instants, checking progress on the way; returns
/// the output and the last progress and stage.
fn sliced<M: ModeRun>(exp: &M::Experiment, n: usize) -> (M::Output, usize, usize, f64, usize) {
    let mut prepared = M::prepare(exp, &mut no_trace, &Limits::DEFAULT).expect("prepares");
    let mut sim = M::simulate(exp, &mut prepared, SimOptions::default()).expect("builds");
    let mut last = sim.progress();
    let mut stage = sim.stage();
    loop {
        let done = sim.step_instants(n).expect("steps");
        let p = sim.progress();
        assert!(p.completed >= last.completed, "progress went back");
        assert!(sim.stage() >= stage, "stage went back");
        assert!(p.completed <= p.total);
        last = p;
        stage = sim.stage();
        if done {
            break;
        }
    }
    let simulated = M::finish(sim).expect("finishes");
    let out = M::measure(exp, prepared, simulated).expect("measures");
    (out, last.completed, last.total, last.now, stage)
}

fn whole<M: ModeRun>(exp: &M::Experiment) -> M::Output {
    schedlab::modes::run::<M>(exp, &mut no_trace, &Limits::DEFAULT, SimOptions::default())
        .expect("runs")
}

fn small_grid() -> schedlab::modes::grid::GridExperiment {
    let mut exp = preset_global_grid();
    for s in &mut exp.sites {
        if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut s.workload {
            p.jobs = 300;
        }
    }
    exp
}

#[test]
fn flat_runs_through_its_mode_as_the_cli_runs_it() {
    let model = SyntheticModel::Lublin(LublinParams {
        jobs: 500,
        ..Default::default()
    });
    let mut exp = Experiment::new(WorkloadSpec::Synthetic(model), PolicyKind::Easy);
    exp.seed = 5;
    let cli = flat::run::run_experiment(&exp, None).expect("runs");
    let out = whole::<flat::Flat>(&exp);
    assert_eq!(out.output.summary, cli.summary);
    assert_eq!(out.output.jobs, cli.jobs);
    let (sliced_out, completed, total, now, stage) = sliced::<flat::Flat>(&exp, 7);
    assert_eq!(sliced_out.output.summary, cli.summary);
    assert_eq!((completed, total, stage), (500, 500, 0));
    let last_end = cli.jobs.iter().map(|j| j.end).fold(0.0, f64::max);
    assert_eq!(now, last_end);
    assert_eq!(out.jobs(), 500);
    assert_eq!(out.summary(), Some(&cli.summary));
}

#[test]
fn mesh_runs_through_its_mode_as_the_cli_runs_it() {
    for exp in [preset_window(), preset_contention(0.4)] {
        let cli = mesh::run::run_mesh(&exp, None).expect("runs");
        assert_eq!(whole::<mesh::Mesh>(&exp), cli);
        let (out, completed, total, _, stage) = sliced::<mesh::Mesh>(&exp, 5);
        assert_eq!(out, cli);
        assert_eq!(
            (completed, total, stage),
            (cli.jobs.len(), cli.jobs.len(), 0)
        );
        // The sweep's metrics: the summary, then the layout metrics under `mesh.`.
        let keys: Vec<String> = out.metrics().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys.first().map(String::as_str), Some("jobs"));
        assert!(keys.iter().any(|k| k.starts_with("mesh.")), "{keys:?}");
    }
}

#[test]
fn grid_runs_both_configurations_through_its_mode() {
    let exp = small_grid();
    let cli = run_comparison(&exp, |_| None).expect("runs");
    assert_eq!(whole::<grid::Grid>(&exp), cli);
    let (out, completed, total, now, stage) = sliced::<grid::Grid>(&exp, 11);
    assert_eq!(out, cli);
    let jobs: usize = cli.runs.iter().map(|r| r.metrics.overall.jobs).sum();
    assert_eq!((completed, total), (jobs, jobs));
    // The last stage is the last configuration, and the clock stays at its end.
    assert_eq!(stage, CONFIGURATIONS.len() - 1);
    assert!(now > 86_400.0, "{now}");
    // Exercises read the experiment's own configuration (job sharing in the preset).
    let own = out.own_run().expect("own configuration");
    assert_eq!(own.sharing, exp.sharing);
    assert_eq!(out.values(), serde_json::to_value(&own.metrics).unwrap());
}

#[test]
fn moldable_runs_the_reference_then_its_strategy_through_its_mode() {
    let mut share = preset_moldable();
    if let WorkloadSpec::Synthetic(SyntheticModel::Lublin(p)) = &mut share.experiment.workload {
        p.jobs = 300;
    }
    let exp = share.experiment.clone();
    let cli = moldable::run::run_moldable_with(&exp, &[], None, &Limits::DEFAULT).expect("runs");
    assert_eq!(whole::<moldable::Moldable>(&exp), cli);
    let (out, completed, total, _, stage) = sliced::<moldable::Moldable>(&exp, 13);
    assert_eq!(out, cli);
    assert_eq!((completed, total, stage), (2 * cli.jobs, 2 * cli.jobs, 1));
}

#[test]
fn the_envelope_hands_out_its_first_runs_experiment_for_every_mode() {
    let grid = Envelope::Grid(GridShare::new(small_grid()));
    let e = grid.experiment(&Limits::DEFAULT).expect("grid experiment");
    assert_eq!(e.mode(), Mode::Grid);
    assert_eq!(e.workloads().len(), 4);
    assert_eq!(e.workloads()[2].0, "experiment.sites[2].workload");
    assert_eq!(e.title(), "4 grid sites, job sharing, EASY");
    for mode in Mode::ALL {
        assert_eq!(Mode::parse(mode.as_str()), Some(mode));
        assert_eq!(mode.entry().key, mode.as_str());
        assert!(mode.command().starts_with("schedlab "));
    }
}
