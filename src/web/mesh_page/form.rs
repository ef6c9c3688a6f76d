//! The mesh form: which fields show for the workload and policy chosen, filling it from an
//! experiment (preset or link), and reading it into plain fields for [`crate::form::mesh`].

use super::*;
use crate::form::mesh::WormholeFields;

/// The network model picker and the wormhole model's fields (Mache et al. §4.1,
/// docs/network-model.md), and the heatmap's choice of what it shows.
pub(super) struct WormUi {
    /// `#mesh-model`: flow, separated or wormhole.
    pub model: HtmlSelectElement,
    /// `#mesh-worm-fields`: shown under the wormhole model only.
    pub fields: HtmlElement,
    pub flits: HtmlInputElement,
    pub flit_time: HtmlInputElement,
    pub round: HtmlInputElement,
    /// `#mesh-heat-kind`: link load at t, or blocked time per link over the run.
    pub heat_kind: HtmlSelectElement,
}

impl WormUi {
    pub(super) fn find(doc: &Document) -> Result<WormUi, String> {
        Ok(WormUi {
            model: by_id(doc, "mesh-model")?,
            fields: by_id(doc, "mesh-worm-fields")?,
            flits: by_id(doc, "mesh-worm-flits")?,
            flit_time: by_id(doc, "mesh-worm-flit-time")?,
            round: by_id(doc, "mesh-worm-round")?,
            heat_kind: by_id(doc, "mesh-heat-kind")?,
        })
    }
}

/// Shows the wormhole fields when the wormhole model is chosen.
pub(super) fn update_model_fields(ui: &Ui) {
    let worm = ui.worm.model.value() == ContentionModel::Wormhole.as_str();
    ui.worm.fields.set_hidden(!worm);
}

/// The model picker and the heatmap's choice: their listeners.
pub(super) fn wire_worm(app: &Rc<App>) {
    {
        let a = Rc::clone(app);
        listen(&app.ui.worm.model, "change", move |_: Event| {
            update_model_fields(&a.ui)
        });
    }
    let a = Rc::clone(app);
    listen(&app.ui.worm.heat_kind, "change", move |_: Event| {
        draw_view(&a)
    });
}

pub(super) fn update_workload_fields(ui: &Ui) {
    let on_mesh_jobs = ui.wl_mesh_jobs.checked();
    let on_exponential = ui.wl_exponential.checked();
    for i in [&ui.mesh_jobs, &ui.rate] {
        i.set_disabled(!on_mesh_jobs);
    }
    ui.sides.set_disabled(!on_mesh_jobs);
    for i in [&ui.exp_jobs, &ui.interarrival] {
        i.set_disabled(!on_exponential);
    }
    let _ = ui
        .wl_mesh_jobs_fields
        .class_list()
        .toggle_with_force("off", !on_mesh_jobs);
    let _ = ui
        .wl_exponential_fields
        .class_list()
        .toggle_with_force("off", !on_exponential);
}

pub(super) fn update_rho_label(ui: &Ui) {
    ui.rho_value
        .set_text_content(Some(&format!("{} % I/O", ui.rho.value())));
}

pub(super) fn selected_allocators(ui: &Ui) -> Vec<MeshAllocatorKind> {
    ui.allocs
        .iter()
        .filter(|(_, b)| b.checked())
        .map(|(a, _)| *a)
        .collect()
}

/// The policy picker applies to contiguous allocators only: disabled (FCFS) when none is
/// selected, with a hint saying why.
pub(super) fn update_policy_ui(ui: &Ui) {
    let sel = selected_allocators(ui);
    let contig = sel.iter().any(|a| a.is_contiguous());
    let nodes = sel.iter().any(|a| !a.is_contiguous());
    ui.policy.set_disabled(!contig);
    let p = ui.policy.value();
    let param = MESH_POLICIES
        .position(&p)
        .and_then(|i| MESH_POLICIES.entries[i].param);
    ui.policy_k_field.set_hidden(!(contig && param.is_some()));
    if let Some(param) = param {
        ui.policy_k_label.set_text_content(Some(param.label));
    }
    let hint = match (contig, nodes) {
        (false, true) => {
            "Non-contiguous allocators run FCFS under the contention model (Mache et al.): the \
             policy is fixed to FCFS."
        }
        (true, true) => "Applies to the contiguous allocators; the non-contiguous ones run FCFS.",
        (true, false) => {
            "Ababneh & Bani-Mohammad §4–5: Window-K considers the first K queued jobs together."
        }
        (false, false) => "Select at least one allocator.",
    };
    ui.policy_hint.set_text_content(Some(hint));
    let _ = ui
        .policy
        .set_attribute("data-forced", if contig { "false" } else { "true" });
}

pub(super) fn policy_value(p: MeshPolicyKind) -> (&'static str, Option<u64>) {
    (p.entry().name, p.key().1)
}

/// Fills the form from an experiment, the allocators to compare and (if not the experiment's)
/// the contiguous allocators' policy.
pub(super) fn fill_form(
    app: &App,
    exp: &MeshExperiment,
    allocs: &[MeshAllocatorKind],
    policy: Option<MeshPolicyKind>,
) {
    let ui = &app.ui;
    ui.width.set_value(&exp.width.to_string());
    ui.height.set_value(&exp.height.to_string());
    match &exp.workload {
        WorkloadSpec::Synthetic(SyntheticModel::MeshJobs(p)) => {
            ui.wl_mesh_jobs.set_checked(true);
            ui.mesh_jobs.set_value(&p.jobs.to_string());
            ui.rate.set_value(&p.arrival_rate.to_string());
            ui.sides.set_value(&option_value(&p.sides));
        }
        WorkloadSpec::Synthetic(SyntheticModel::ExponentialJobs(p)) => {
            ui.wl_exponential.set_checked(true);
            ui.exp_jobs.set_value(&p.jobs.to_string());
            ui.interarrival.set_value(&p.mean_interarrival.to_string());
        }
        WorkloadSpec::Swf(_) if !ui.wl_trace.disabled() => ui.wl_trace.set_checked(true),
        _ => {}
    }
    ui.shape.set_value(&option_value(&exp.shape_rule));
    ui.io_side.set_value(&option_value(&exp.network.io_side));
    ui.io_count.set_value(
        &exp.network
            .io_count
            .map(|c| c.to_string())
            .unwrap_or_default(),
    );
    ui.rho
        .set_value(&format!("{}", (exp.network.traffic_io * 100.0).round()));
    ui.worm.model.set_value(exp.network.model.as_str());
    let w = WormholeFields::of(&exp.network.wormhole.unwrap_or_default());
    ui.worm.flits.set_value(&w.flits);
    ui.worm.flit_time.set_value(&w.flit_time);
    ui.worm.round.set_value(&w.round_length);
    update_model_fields(ui);
    ui.seed.set_value(&exp.seed.to_string());
    ui.exchanges.set_value(
        &exp.network
            .phases
            .map_or(String::new(), |p| p.exchanges.to_string()),
    );
    let (p, k) = policy_value(policy.unwrap_or(exp.policy));
    ui.policy.set_value(p);
    if let Some(k) = k {
        ui.policy_k.set_value(&k.to_string());
    }
    for (a, b) in &ui.allocs {
        b.set_checked(allocs.contains(a));
    }
    app.state.borrow_mut().base = Some(exp.clone());
    update_workload_fields(ui);
    update_policy_ui(ui);
    update_rho_label(ui);
}

/// The mesh form as typed.
pub(super) fn read_fields(ui: &Ui) -> MeshFields {
    let workload = if ui.wl_mesh_jobs.checked() {
        MeshWorkload::MeshJobs {
            jobs: ui.mesh_jobs.value(),
            rate: ui.rate.value(),
            sides: ui.sides.value(),
        }
    } else if ui.wl_exponential.checked() {
        MeshWorkload::ExponentialJobs {
            jobs: ui.exp_jobs.value(),
            interarrival: ui.interarrival.value(),
        }
    } else {
        MeshWorkload::Trace
    };
    MeshFields {
        width: ui.width.value(),
        height: ui.height.value(),
        workload,
        shape: ui.shape.value(),
        io_side: ui.io_side.value(),
        io_count: ui.io_count.value(),
        rho: ui.rho.value(),
        exchanges: ui.exchanges.value(),
        model: ui.worm.model.value(),
        wormhole: WormholeFields {
            flits: ui.worm.flits.value(),
            flit_time: ui.worm.flit_time.value(),
            round_length: ui.worm.round.value(),
        },
        seed: ui.seed.value(),
        allocators: selected_allocators(ui),
        policy: ui.policy.value(),
        policy_k: ui.policy_k.value(),
    }
}

/// Reads the form: the base experiment (first allocator), the allocators and the policy of the
/// contiguous ones. Errors name the field.
pub(super) fn read_form(
    app: &App,
) -> Result<(MeshExperiment, Vec<MeshAllocatorKind>, MeshPolicyKind), FieldError> {
    let st = app.state.borrow();
    let trace = st.trace.as_ref().map(|t| TraceFacts {
        name: t.name.clone(),
        sha256: t.sha256.clone(),
        max_job_procs: t.max_job_procs,
        header_procs: t.header_procs,
    });
    mesh::read(&read_fields(&app.ui), st.base.as_ref(), trace.as_ref())
}
