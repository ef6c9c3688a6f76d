//! The grid site editor: one table row per site (name, nodes, time zone, workload, trace file
//! or jobs), kept as typed in [`crate::form::grid::SiteRow`]s.

use super::*;

/// Fills the editor with `exp` (preset or share link).
pub(super) fn load_experiment(app: &GridApp, exp: &GridExperiment) {
    {
        let mut st = app.state.borrow_mut();
        st.sites = exp.sites.iter().map(SiteRow::from_spec).collect();
        st.name = exp.name.clone();
        // A trace of the link that is already loaded (same name and hash) is used as it is.
        let loaded: Vec<(String, String)> = st
            .traces
            .iter()
            .map(|l| (l.info.name.clone(), l.info.sha256.clone()))
            .collect();
        for r in &mut st.sites {
            if let Some((name, sha)) = &r.want {
                let ok = loaded
                    .iter()
                    .any(|(n, s)| n == name && sha.as_ref().is_none_or(|h| h == s));
                if ok {
                    r.trace = Some(name.clone());
                    r.want = None;
                }
            }
        }
    }
    app.ui.policy.set_value(exp.policy.as_str());
    app.ui.seed.set_value(&exp.seed.to_string());
    app.ui.cut.set_checked(exp.cut_to_shortest);
    render_sites(app);
}

pub(super) fn render_sites(app: &GridApp) {
    let st = app.state.borrow();
    let n = st.sites.len();
    let mut html = String::new();
    for (i, r) in st.sites.iter().enumerate() {
        let k = i + 1;
        let loaded = r
            .trace
            .as_ref()
            .and_then(|t| st.traces.iter().find(|l| &l.info.name == t));
        let placeholder = if r.trace_mode {
            loaded
                .map(|l| {
                    l.info
                        .header_procs
                        .map(|p| p.to_string())
                        .unwrap_or_else(|| l.info.max_job_procs.to_string())
                })
                .unwrap_or_else(|| "from trace".into())
        } else {
            r.model.machine_procs().to_string()
        };
        let workload = if r.trace_mode {
            let (button, detail) = match (loaded, &r.want) {
                (Some(l), _) => (
                    "Replace…".to_string(),
                    format!(
                        "{} · {} jobs",
                        escape(&l.info.name),
                        format::count(l.info.jobs as u64)
                    ),
                ),
                (None, Some((name, _))) => (
                    "Choose file…".to_string(),
                    format!(r#"<span class="want">needs {}</span>"#, escape(name)),
                ),
                (None, None) => ("Choose file…".to_string(), "no file yet".to_string()),
            };
            let reading = st
                .pending_upload
                .as_ref()
                .filter(|p| p.0 == i)
                .map(|p| format!("reading {}…", escape(&p.1)));
            format!(
                r#"<label class="grid-file"><input type="file" data-field="file" accept=".swf,.gz,.swf.gz,text/plain,application/gzip" data-testid="grid-site-file-{i}" aria-label="Site {k} trace file"><span>{button}</span></label><small data-testid="grid-site-trace-{i}">{}</small>"#,
                reading.unwrap_or(detail)
            )
        } else {
            match model_jobs(&r.model) {
                Some(_) => format!(
                    r#"<input type="number" data-field="jobs" min="1" max="{MAX_JOBS}" step="1" inputmode="numeric" value="{}" aria-label="Site {k} jobs" data-testid="grid-site-jobs-{i}"><small>jobs, daily cycle</small>"#,
                    escape(&r.jobs)
                ),
                None => format!(
                    "<small>model {} (from the link)</small>",
                    escape(r.model.name())
                ),
            }
        };
        html.push_str(&format!(
            r#"<tr data-site="{i}" data-testid="grid-site-row">
<td><input type="text" data-field="name" value="{name}" maxlength="60" placeholder="site {k}" aria-label="Site {k} name" data-testid="grid-site-name-{i}"></td>
<td><input type="number" data-field="procs" min="1" max="{MAX_PROCS}" step="1" inputmode="numeric" value="{procs}" placeholder="{placeholder}" aria-label="Site {k} nodes" data-testid="grid-site-procs-{i}"></td>
<td><input type="number" data-field="tz" min="-168" max="168" step="1" inputmode="decimal" value="{tz}" aria-label="Site {k} time-zone offset in hours" data-testid="grid-site-tz-{i}"></td>
<td><select data-field="kind" aria-label="Site {k} workload" data-testid="grid-site-kind-{i}"><option value="synthetic"{syn}>Synthetic — Lublin–Feitelson</option><option value="trace"{trc}>Trace — SWF file</option></select></td>
<td><div class="wl-cell">{workload}</div></td>
<td><button type="button" class="link" data-remove="{i}" data-testid="grid-remove-site-{i}"{dis} title="Remove this site">Remove</button></td>
</tr>"#,
            name = escape(&r.name),
            procs = escape(&r.procs),
            placeholder = escape(&placeholder),
            tz = escape(&r.tz),
            syn = if r.trace_mode { "" } else { " selected" },
            trc = if r.trace_mode { " selected" } else { "" },
            dis = if n <= 1 { " disabled" } else { "" },
        ));
    }
    app.ui.tbody.set_inner_html(&html);
    app.ui.hint.set_text_content(Some(&format!(
        "{n} of at most {MAX_SITES} sites. Offset in hours behind grid time (local time = grid \
         time − offset): a site of offset +6 starts its Monday 6 hours after a site of offset 0 \
         — with grid time on Central European time (UTC+1), +6 is UTC−5, the Americas' east."
    )));
    drop(st);
    tab::refresh(app);
    if !app.tab.busy() {
        render_clocks(app, None);
    }
}

/// Re-renders the editor after the current event handler: replacing the rows may make the
/// browser fire `change` on a removed input, which must not re-enter the running handler.
pub(super) fn render_sites_later(app: &Rc<GridApp>) {
    let app = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move { render_sites(&app) });
}

/// The site row of an event target (its `tr[data-site]`) and the field it edits.
pub(super) fn row_of(target: &Element) -> Option<(usize, String)> {
    let field = target.get_attribute("data-field")?;
    let tr = target.closest("tr[data-site]").ok()??;
    let i = tr.get_attribute("data-site")?.parse().ok()?;
    Some((i, field))
}

pub(super) fn on_site_input(app: &GridApp, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some((i, field)) = row_of(&target) else {
        return;
    };
    let value = target
        .dyn_ref::<HtmlInputElement>()
        .map(|e| e.value())
        .or_else(|| target.dyn_ref::<HtmlSelectElement>().map(|s| s.value()))
        .unwrap_or_default();
    let mut st = app.state.borrow_mut();
    let Some(r) = st.sites.get_mut(i) else {
        return;
    };
    match field.as_str() {
        "name" => r.name = value,
        "procs" => r.procs = value,
        "tz" => r.tz = value,
        "jobs" => r.jobs = value,
        _ => {}
    }
    let _ = target.class_list().remove_1("invalid");
}

pub(super) fn on_site_change(app: &Rc<GridApp>, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some((i, field)) = row_of(&target) else {
        return;
    };
    match field.as_str() {
        "kind" => {
            let v = target
                .dyn_ref::<HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default();
            if let Some(r) = app.state.borrow_mut().sites.get_mut(i) {
                r.trace_mode = v == "trace";
                if !r.trace_mode && model_jobs(&r.model).is_some() && r.jobs.is_empty() {
                    r.jobs = model_jobs(&r.model).unwrap_or(10_000).to_string();
                }
            }
            render_sites_later(app);
        }
        "file" => {
            let Some(input) = target.dyn_ref::<HtmlInputElement>() else {
                return;
            };
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                upload(app, i, file);
            }
        }
        _ => {}
    }
}

pub(super) fn on_site_click(app: &Rc<GridApp>, ev: &Event) {
    let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some(i) = target
        .get_attribute("data-remove")
        .and_then(|s| s.parse::<usize>().ok())
    else {
        return;
    };
    {
        let mut st = app.state.borrow_mut();
        if st.sites.len() <= 1 || i >= st.sites.len() || app.tab.busy() {
            return;
        }
        st.sites.remove(i);
        if st.pending_upload.as_ref().is_some_and(|p| p.0 == i) {
            st.pending_upload = None;
        }
    }
    render_sites_later(app);
}

pub(super) fn add_site(app: &GridApp) {
    {
        let mut st = app.state.borrow_mut();
        if st.sites.len() >= MAX_SITES || app.tab.busy() {
            return;
        }
        let n = st.sites.len() + 1;
        st.sites.push(SiteRow::new_site(n));
    }
    render_sites(app);
}
