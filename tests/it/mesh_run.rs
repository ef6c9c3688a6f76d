//! Mesh experiments end to end (`schedlab::modes::mesh::run`): JSON format and errors, both engines,
//! layout metrics, determinism, invariants of the produced layouts.

use schedlab::modes::flat::spec::ExperimentFile;
use schedlab::modes::mesh::presets::{preset_contention, preset_window};
use schedlab::modes::mesh::run::{link_loads_at, mesh_jobs_csv, run_mesh, MeshRunOutput};
use schedlab::modes::mesh::spec::{ContentionModel, MeshAllocatorKind, MeshExperiment};

/// No node is used by two jobs at once; every job starts after its submit time.
fn check_layouts(out: &MeshRunOutput) {
    let (w, h) = (out.width, out.height);
    let mut ev: Vec<(f64, bool, usize)> = Vec::new();
    for (i, l) in out.layouts.iter().enumerate() {
        ev.push((l.start, true, i));
        ev.push((l.end, false, i));
        let r = &out.jobs[i].record;
        assert!(r.start >= r.submit, "job {} starts before its submit", r.id);
        assert_eq!(l.node_list().len() as u32, r.procs, "job {} size", r.id);
    }
    ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut owner = vec![usize::MAX; (w * h) as usize];
    for (_, start, i) in ev {
        for (x, y) in out.layouts[i].node_list() {
            assert!((1..=w).contains(&x) && (1..=h).contains(&y));
            let k = ((y - 1) * w + (x - 1)) as usize;
            if start {
                assert_eq!(owner[k], usize::MAX, "node ({x}, {y}) used twice");
                owner[k] = i;
            } else {
                owner[k] = usize::MAX;
            }
        }
    }
}

#[test]
fn window_preset_runs_contiguous_and_is_deterministic() {
    let mut exp = preset_window();
    if let schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        schedlab::workload::synthetic::SyntheticModel::MeshJobs(p),
    ) = &mut exp.workload
    {
        p.jobs = 300;
    }
    let a = run_mesh(&exp, None).unwrap();
    let b = run_mesh(&MeshExperiment::from_json(&exp.to_json()).unwrap(), None).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.mesh.engine, "contiguous");
    assert_eq!(a.jobs.len(), 300);
    assert!(a.layouts.iter().all(|l| l.rect.is_some()));
    // A w × h rectangle: nodes_affected is its area.
    for j in &a.jobs {
        assert_eq!(j.nodes_affected, u64::from(j.w * j.h));
        assert!((j.record.end - j.record.start - j.record.run_time).abs() < 1e-9);
    }
    check_layouts(&a);
    let csv = mesh_jobs_csv(&a);
    assert_eq!(csv.lines().count(), 301);
    assert!(csv.starts_with("id,submit,start,end,procs,"));
    assert_eq!(csv.lines().nth(1).unwrap().split(',').count(), 17);
}

#[test]
fn contention_preset_runs_flow_engine_with_layout_metrics() {
    let mut exp = preset_contention(0.8);
    // The flow model (the preset runs the separated one, below).
    exp.network.model = ContentionModel::Flow;
    let out = run_mesh(&exp, None).unwrap();
    assert_eq!(out.mesh.engine, "flow");
    assert_eq!(out.jobs.len(), 1000);
    check_layouts(&out);
    // Contention only slows jobs down.
    assert!(out
        .jobs
        .iter()
        .all(|j| j.record.end - j.record.start >= j.record.run_time - 1e-9));
    assert!(out.mesh.mean_service > 0.0);
    let peak = out.mesh.max_link_load;
    assert!(peak > 0.0 && out.mesh.io_hot_spot <= peak);
    // The loads at any instant never exceed the run's peak.
    let net = exp.network_model().unwrap();
    let t = out.layouts[500].start;
    let loads = link_loads_at(&net, &out.layouts, 0.8, t);
    let now = loads.iter().cloned().fold(0.0, f64::max);
    assert!(now > 0.0 && now <= peak + 1e-9);
}

/// The preset's separated-classes model: service time is network time, at least what the
/// job's own traffic costs alone, C · κ (ρ max B + (1 − ρ) max A); the model key round-trips
/// and selects a different result than the flow model.
#[test]
fn contention_preset_runs_the_separated_model() {
    let rho = 0.8;
    let exp = preset_contention(rho);
    assert_eq!(exp.network.model, ContentionModel::Separated);
    assert!(exp.to_json().contains("\"model\": \"separated\""));
    assert_eq!(MeshExperiment::from_json(&exp.to_json()).unwrap(), exp);
    let out = run_mesh(&exp, None).unwrap();
    assert_eq!(out.mesh.engine, "separated");
    assert_eq!(out.jobs.len(), 1000);
    check_layouts(&out);
    let net = exp.network_model().unwrap();
    let kappa = exp.network.kappa;
    let mut below_compute = 0;
    for (j, l) in out.jobs.iter().zip(&out.layouts) {
        let links = schedlab::network::flow::job_links(&net, &l.node_list());
        let max_a = links.iter().map(|x| x.1).max().unwrap_or(0) as f64;
        let max_b = links.iter().map(|x| x.2).max().unwrap_or(0) as f64;
        let alone = j.record.run_time * kappa * (rho * max_b + (1.0 - rho) * max_a);
        let service = j.record.end - j.record.start;
        assert!(
            service >= alone * (1.0 - 1e-9),
            "job {}: {service} < {alone}",
            j.record.id
        );
        if service < j.record.run_time {
            below_compute += 1;
        }
    }
    // No computation term: lightly loaded jobs take less than their run time.
    assert!(below_compute > 0);
    assert_eq!(run_mesh(&exp, None).unwrap(), out, "deterministic");
    let mut flow = exp.clone();
    flow.network.model = ContentionModel::Flow;
    assert!(
        !flow.to_json().contains("\"flow\""),
        "flow is the default, not written"
    );
    assert_ne!(
        run_mesh(&flow, None).unwrap().mesh.mean_service,
        out.mesh.mean_service
    );
}

#[test]
fn bad_mesh_experiments_name_the_key() {
    let cases = [
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":0,"height":16}"#,
            "width",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"allocator":"mc_elongated","policy":"window-10"}"#,
            "policy",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"allocator":"nope"}"#,
            "allocator",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"traffic_io":2}}"#,
            "network.traffic_io",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"io_count":40}}"#,
            "network.io_count",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"policy":"window-0"}"#,
            "policy",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"allocator":"sbt_3"}"#,
            "allocator",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"phases":{"exchanges":2,"rounds":0}}}"#,
            "network.phases.rounds",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"phases":{"exchanges":2,"disk_mb_s":-1}}}"#,
            "network.phases.disk_mb_s",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"model":"separated","phases":{"exchanges":2}}}"#,
            "network.model",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"model":"separated","compute":1.5}}"#,
            "network.compute",
        ),
        (
            r#"{"workload":{"synthetic":{"model":"exponential_jobs"}},"width":22,"height":16,"network":{"model":"fluid"}}"#,
            "network.model",
        ),
    ];
    for (json, key) in cases {
        let e = MeshExperiment::from_json(json).unwrap_err();
        assert_eq!(e.key, key, "{json}: {e}");
    }
}

/// Liu et al.: the binary-tree allocators run as node allocators, under the fluid model and
/// under the phase model (`network.phases`); BT's refusals make jobs wait, never fail.
#[test]
fn binary_tree_allocators_and_the_phase_model_run_in_mesh_experiments() {
    let json = r#"{"workload":{"synthetic":{"model":"exponential_jobs","jobs":150,"mean_interarrival":300}},
        "width":16,"height":16,"allocator":"sbt_16","network":{"phases":{"exchanges":4}},"seed":3}"#;
    let exp = MeshExperiment::from_json(json).unwrap();
    assert_eq!(exp.network.phases.map(|p| p.rounds), Some(1));
    assert!(exp.to_json().contains("\"phases\""));
    // Off by default: an experiment without it writes no `phases` key.
    assert!(!preset_contention(0.5).to_json().contains("phases"));
    for name in ["bt", "sbt_16", "dbt_8", "ind_sbt_64", "d_dbt_8", "scbt"] {
        let mut e = exp.clone();
        e.allocator = MeshAllocatorKind::parse(name).unwrap();
        let out = run_mesh(&e, None).unwrap();
        assert_eq!(out.allocator, name);
        assert_eq!(out.jobs.len(), 150);
        check_layouts(&out);
        assert_eq!(run_mesh(&e, None).unwrap(), out, "{name} deterministic");
        e.network.phases = None;
        let fluid = run_mesh(&e, None).unwrap();
        check_layouts(&fluid);
        assert_ne!(fluid.mesh.mean_service, out.mesh.mean_service);
    }
}

#[test]
fn allocator_names_round_trip() {
    for k in MeshAllocatorKind::all() {
        assert_eq!(MeshAllocatorKind::parse(&k.as_str()), Ok(k));
    }
    assert_eq!(MeshAllocatorKind::all().len(), 12);
}

/// The run's peak link load (closed-form link counts) is the highest load that route-walking
/// `link_loads_at` finds at any job start.
#[test]
fn peak_link_load_matches_route_walking() {
    let mut exp = preset_contention(0.6);
    if let schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        schedlab::workload::synthetic::SyntheticModel::ExponentialJobs(p),
    ) = &mut exp.workload
    {
        p.jobs = 120;
    }
    let out = run_mesh(&exp, None).unwrap();
    let net = exp.network_model().unwrap();
    let mut peak = 0.0f64;
    for l in &out.layouts {
        let loads = link_loads_at(&net, &out.layouts, 0.6, l.start);
        peak = loads.into_iter().fold(peak, f64::max);
    }
    assert!(peak > 0.0);
    assert!(
        (out.mesh.max_link_load - peak).abs() <= 1e-9 * peak,
        "{} vs {peak}",
        out.mesh.max_link_load
    );
}

/// The Mache et al. preset lands near Table 2's 60–70 % utilisation at every traffic ratio.
#[test]
fn contention_preset_runs_at_table_2_utilisation() {
    for rho in [0.0, 0.5, 1.0] {
        let out = run_mesh(&preset_contention(rho), None).unwrap();
        let u = out.summary.utilization;
        assert!((0.58..=0.75).contains(&u), "rho {rho}: utilisation {u}");
    }
}

#[test]
fn orientation_switching_is_an_option_on_only_in_the_window_preset() {
    let mut exp = preset_window();
    assert!(exp.switch_orientation);
    assert!(exp.to_json().contains("\"switch_orientation\": true"));
    assert!(!preset_contention(0.5).switch_orientation);
    // Off by default: files without the key read as off, and off is not written.
    exp.switch_orientation = false;
    assert!(!exp.to_json().contains("switch_orientation"));
    assert!(
        !MeshExperiment::from_json(&exp.to_json())
            .unwrap()
            .switch_orientation
    );
    // On, 300 jobs at λ = 2.5 (past FCFS saturation): same jobs, utilisation no lower, and
    // some job runs lying down.
    exp.policy = schedlab::policy::mesh::MeshPolicyKind::Fcfs;
    if let schedlab::modes::flat::spec::WorkloadSpec::Synthetic(
        schedlab::workload::synthetic::SyntheticModel::MeshJobs(p),
    ) = &mut exp.workload
    {
        p.jobs = 300;
        p.arrival_rate = 2.5;
    }
    let fixed = run_mesh(&exp, None).unwrap();
    exp.switch_orientation = true;
    let switching = run_mesh(&exp, None).unwrap();
    check_layouts(&switching);
    assert!(switching.summary.utilization > fixed.summary.utilization);
    let shapes =
        |o: &MeshRunOutput| -> Vec<(u32, u32)> { o.jobs.iter().map(|j| (j.w, j.h)).collect() };
    let rotated = shapes(&fixed)
        .iter()
        .zip(shapes(&switching))
        .filter(|(a, b)| **a != *b)
        .inspect(|(a, b)| assert_eq!((a.1, a.0), *b))
        .count();
    assert!(rotated > 0);
}
