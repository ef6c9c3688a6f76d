//! "Write an exercise": the teacher's editor in the Exercises tab. The draft
//! ([`crate::exercise::draft::Draft`]: a jobs table or pasted SWF lines, the machine size, the
//! flat policies to compare, questions) is rendered as a form (`data-f` names each field's
//! path, `data-key` the key its errors name); every edit validates it as a shipped file
//! ([`Draft::exercise`]) and sends its runs to the tab's worker — the same runs the checker
//! does — whose results solve the questions ([`Exercise::solve_from`]): each question shows its
//! computed answer, an error is shown naming the field, and the field is marked. The exported
//! file states the computed answers ([`Draft::export_json`]); the link is an exercise link
//! (`#ex=`) that opens it as a student sees it. The draft is kept in `localStorage`.

use super::*;
use crate::exercise::draft::{parse_swf_lines, Draft, DRAFT_SOURCE};
use crate::exercise::{Expected, Pick, QuestionKind, Solution, JOB_METRICS};
use crate::policy::order::ORDERS;
use crate::policy::POLICIES;

/// Worker run ids of the editor start here (the exercise on screen counts from 1).
pub(super) const EDITOR_IDS: u32 = 1 << 30;

const STORAGE_KEY: &str = "schedlab.editor.draft";

/// The summary keys a numeric question may read from a flat run (docs/exercises.md).
const RUN_METRICS: [&str; 12] = [
    "mean_wait",
    "max_wait",
    "mean_turnaround",
    "mean_slowdown",
    "mean_bounded_slowdown",
    "utilization",
    "makespan",
    "awrt",
    "awwt",
    "awsd",
    "jobs",
    "dropped",
];

const ESTIMATES: [(&str, &str); 4] = [
    ("request", "the user's request"),
    ("exact", "exact run times"),
    ("predicted", "predicted (user's last two)"),
    ("2x", "2 × run time"),
];

/// The editor's elements.
pub(super) struct EdUi {
    section: HtmlElement,
    new: HtmlButtonElement,
    copy_open: HtmlButtonElement,
    body: HtmlElement,
    form: HtmlElement,
    status: HtmlElement,
    error: HtmlElement,
    download: HtmlAnchorElement,
    link: HtmlAnchorElement,
    link_note: HtmlElement,
    try_it: HtmlButtonElement,
}

/// The draft and what the worker computed for it.
#[derive(Default)]
pub(super) struct EdState {
    draft: Option<Draft>,
    /// The id of the last run sent; answers of older ones are dropped.
    id: u32,
    sent: Option<Exercise>,
    solutions: Option<Vec<Solution>>,
    /// The exercise with its answers, once solved.
    solved: Option<Exercise>,
    downloads: Downloads,
}

pub(super) fn build(doc: &Document) -> Result<EdUi, String> {
    Ok(EdUi {
        section: by_id(doc, "ed")?,
        new: by_id(doc, "ed-new")?,
        copy_open: by_id(doc, "ed-copy-open")?,
        body: by_id(doc, "ed-body")?,
        form: by_id(doc, "ed-form")?,
        status: by_id(doc, "ed-status")?,
        error: by_id(doc, "ed-error")?,
        download: by_id(doc, "ed-download")?,
        link: by_id(doc, "ed-link")?,
        link_note: by_id(doc, "ed-link-note")?,
        try_it: by_id(doc, "ed-try")?,
    })
}

pub(super) fn wire(app: &Rc<App>) {
    let ed = &app.ed;
    {
        let a = Rc::clone(app);
        listen(&ed.new, "click", move |_: Event| {
            start_draft(&a, Draft::default());
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ed.copy_open, "click", move |_: Event| copy_open(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ed.form, "input", move |ev: Event| on_input(&a, &ev));
    }
    {
        let a = Rc::clone(app);
        listen(&ed.form, "change", move |ev: Event| {
            // A policy changed: its run's name, where it is shown, in place (drawing the form
            // again inside this event would move the focus and lose what is being typed).
            let policy = ev
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|e| e.get_attribute("data-f"))
                .is_some_and(|f| f.starts_with("policies."));
            if policy {
                relabel(&a);
            }
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ed.form, "click", move |ev: Event| on_click(&a, &ev));
    }
    {
        let a = Rc::clone(app);
        listen(&ed.try_it, "click", move |_: Event| {
            let ex = a.ed_state.borrow().solved.clone();
            if let Some(ex) = ex {
                show(&a, ex, DRAFT_SOURCE);
            }
        });
    }
    if let Some(d) = load() {
        start_draft(app, d);
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn load() -> Option<Draft> {
    let text = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
    serde_json::from_str(&text).ok()
}

fn save(d: &Draft) {
    if let (Some(s), Ok(text)) = (storage(), serde_json::to_string(d)) {
        let _ = s.set_item(STORAGE_KEY, &text);
    }
}

fn start_draft(app: &Rc<App>, d: Draft) {
    app.ed_state.borrow_mut().draft = Some(d);
    app.ed.body.set_hidden(false);
    app.ed.new.set_text_content(Some("Start again"));
    ensure_worker(app);
    render(app);
}

/// "Edit a copy of the open exercise": the exercise on screen as a draft, when the editor can
/// write it (flat runs on one inline workload).
fn copy_open(app: &Rc<App>) {
    let draft = {
        let st = app.state.borrow();
        match st.current.as_ref() {
            None => Err("Open an exercise first (from the list, a file or a link).".to_string()),
            Some(c) => Draft::from_exercise(&c.ex).ok_or_else(|| {
                format!(
                    "“{}” cannot be edited here: the editor writes flat runs on one table of jobs \
                     (no mesh or grid runs, no transformed workload, no option subtracting \
                     another).",
                    c.ex.title
                )
            }),
        }
    };
    match draft {
        Ok(d) => {
            start_draft(app, d);
            app.ed.section.scroll_into_view();
        }
        Err(m) => app.ui.errors.show(&m),
    }
}

/// An input's new value into the draft; the draft checked and solved again.
fn on_input(app: &Rc<App>, ev: &Event) {
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Some(path) = el.get_attribute("data-f") else {
        return;
    };
    let value = js_sys::Reflect::get(&el, &JsValue::from_str("value"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    let changed = app
        .ed_state
        .borrow_mut()
        .draft
        .as_mut()
        .is_some_and(|d| d.set(&path, &value));
    if changed {
        update(app);
    }
}

fn on_click(app: &Rc<App>, ev: &Event) {
    let Some(button) = ev
        .target()
        .and_then(|t| t.dyn_into::<Element>().ok())
        .and_then(|e| e.closest("[data-act]").ok().flatten())
    else {
        return;
    };
    let act = button.get_attribute("data-act").unwrap_or_default();
    let num = |k: &str| {
        button
            .get_attribute(k)
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(0)
    };
    let (i, k) = (num("data-i"), num("data-k"));
    let result = {
        let mut st = app.ed_state.borrow_mut();
        let Some(d) = st.draft.as_mut() else {
            return;
        };
        match act.as_str() {
            "read-swf" => read_swf(app, d),
            "from-link" => {
                let text = input_value(app, "ed-flat-link");
                d.from_flat_link(&text).map(|()| true)
            }
            _ => Ok(d.act(&act, i, k)),
        }
    };
    match result {
        Ok(true) => render(app),
        Ok(false) => {}
        Err(m) => show_error(app, None, &m),
    }
}

fn input_value(app: &App, id: &str) -> String {
    app.ui
        .doc
        .get_element_by_id(id)
        .and_then(|e| js_sys::Reflect::get(&e, &JsValue::from_str("value")).ok())
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// "Replace the jobs" with the pasted SWF lines (and the machine size of a `MaxProcs` header).
fn read_swf(app: &App, d: &mut Draft) -> Result<bool, String> {
    let p = parse_swf_lines(&input_value(app, "ed-swf")).map_err(|m| format!("SWF lines: {m}"))?;
    d.jobs = p.jobs;
    if let Some(m) = p.machine {
        d.procs = m.to_string();
    }
    Ok(true)
}

/// The draft saved, checked and sent to the worker (its answers come back in [`on_done`]).
fn update(app: &Rc<App>) {
    let built = {
        let mut st = app.ed_state.borrow_mut();
        let Some(d) = st.draft.as_ref() else {
            return;
        };
        save(d);
        let built = d.exercise(None);
        st.id = st.id.wrapping_add(1);
        st.solutions = None;
        st.solved = None;
        st.sent = built.as_ref().ok().cloned();
        built
    };
    set_export(app, false);
    match built {
        Ok(_) => {
            app.ed.error.set_hidden(true);
            mark(app, None);
            app.ed
                .status
                .set_text_content(Some("Computing the answers…"));
            send(app);
        }
        Err(e) => {
            clear_answers(app);
            show_error(app, Some(&e.key), &e.to_string());
        }
    }
}

/// Sends the checked draft's runs, when the worker is ready.
pub(super) fn send(app: &Rc<App>) {
    if !app.state.borrow().ready {
        return;
    }
    let msg = {
        let st = app.ed_state.borrow();
        match st.sent.as_ref().filter(|_| st.solutions.is_none()) {
            Some(ex) => ToWorker::RunExercise {
                id: EDITOR_IDS + st.id % EDITOR_IDS,
                runs: ex.run_requests(),
            },
            None => return,
        }
    };
    app.worker.post(&msg);
}

/// Whether a worker answer with `id` is the editor's.
pub(super) fn owns(id: u32) -> bool {
    id >= EDITOR_IDS
}

/// The worker's runs of the draft: each question solved and its answer shown; the export ready.
pub(super) fn on_done(app: &Rc<App>, id: u32, runs: &[crate::exercise::RunResult]) {
    let outcome = {
        let mut st = app.ed_state.borrow_mut();
        if id != EDITOR_IDS + st.id % EDITOR_IDS {
            return;
        }
        let (Some(ex), Some(d)) = (st.sent.clone(), st.draft.clone()) else {
            return;
        };
        let names = d.run_names().unwrap_or_default();
        let solved = ex
            .solve_from(DRAFT_SOURCE, runs)
            .and_then(|sol| {
                let full = d.exercise(Some(&sol))?;
                let file = d.export_json(&sol)?;
                Ok((sol, full, file))
            })
            .map_err(|e| d.tell(e, &names));
        match solved {
            Ok((sol, full, file)) => {
                st.solutions = Some(sol.clone());
                st.solved = Some(full.clone());
                st.downloads.revoke_all();
                let url = st.downloads.url(&file, "application/json");
                Ok((sol, full, url))
            }
            Err(e) => Err(e),
        }
    };
    match outcome {
        Ok((sol, full, url)) => {
            show_answers(app, &full, &sol);
            let fragment = full.to_fragment();
            let href = format!("{}#{fragment}", page_base());
            app.ed.link.set_href(&href);
            app.ed.link_note.set_text_content(Some(&format!(
                "{} characters",
                thousands(href.chars().count())
            )));
            if let Some(url) = url {
                app.ed.download.set_href(&url);
            }
            let _ = app
                .ed
                .download
                .set_attribute("download", &format!("{}.json", full.id));
            set_export(app, true);
            app.ed.status.set_text_content(Some(&format!(
                "Every answer computed by the simulation ({} question{}).",
                sol.len(),
                if sol.len() == 1 { "" } else { "s" }
            )));
        }
        Err(e) => {
            clear_answers(app);
            show_error(app, Some(&e.key), &e.to_string());
        }
    }
}

/// An error of the worker for the editor's run.
pub(super) fn on_error(app: &Rc<App>, message: &str) {
    clear_answers(app);
    show_error(app, None, &format!("{DRAFT_SOURCE}: {message}"));
}

fn page_base() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn set_export(app: &App, ready: bool) {
    for el in [
        app.ed.download.unchecked_ref::<Element>(),
        app.ed.link.unchecked_ref::<Element>(),
    ] {
        if ready {
            let _ = el.remove_attribute("aria-disabled");
        } else {
            let _ = el.set_attribute("aria-disabled", "true");
            let _ = el.remove_attribute("href");
        }
    }
    app.ed.try_it.set_disabled(!ready);
    if !ready {
        app.ed.link_note.set_text_content(None);
    }
    let _ = app
        .ed
        .section
        .set_attribute("data-state", if ready { "solved" } else { "pending" });
}

/// The error line, and the field its key names marked (`aria-invalid`, described by it).
fn show_error(app: &App, key: Option<&str>, message: &str) {
    app.ed.error.set_text_content(Some(message));
    app.ed.error.set_hidden(false);
    app.ed
        .status
        .set_text_content(Some("Fix the field named below; the answers follow."));
    set_export(app, false);
    mark(app, key);
}

/// Marks the field whose `data-key` is the longest prefix of `key` (none: every mark cleared).
fn mark(app: &App, key: Option<&str>) {
    let Ok(all) = app.ed.form.query_selector_all("[data-key]") else {
        return;
    };
    let mut best: Option<(usize, Element)> = None;
    for i in 0..all.length() {
        let Some(el) = all.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
            continue;
        };
        let _ = el.remove_attribute("aria-invalid");
        let _ = el.remove_attribute("aria-describedby");
        let k = el.get_attribute("data-key").unwrap_or_default();
        if let Some(key) = key {
            let fits =
                key == k || key.starts_with(&format!("{k}.")) || key.starts_with(&format!("{k}["));
            if fits && best.as_ref().is_none_or(|(n, _)| k.len() > *n) {
                best = Some((k.len(), el));
            }
        }
    }
    if let Some((_, el)) = best {
        let _ = el.set_attribute("aria-invalid", "true");
        let _ = el.set_attribute("aria-describedby", "ed-error");
    }
}

fn clear_answers(app: &App) {
    if let Ok(all) = app.ed.form.query_selector_all(".ed-answer") {
        for i in 0..all.length() {
            if let Some(n) = all.item(i) {
                n.set_text_content(Some("Computed answer: —"));
            }
        }
    }
}

/// Each question's computed answer under it.
fn show_answers(app: &App, ex: &Exercise, solutions: &[Solution]) {
    for (q, s) in ex.questions.iter().zip(solutions) {
        let Some(el) = app
            .ui
            .doc
            .get_element_by_id(&format!("ed-answer-{}", s.question))
        else {
            continue;
        };
        let unit = q
            .unit
            .as_deref()
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        let text = match &s.expected {
            Expected::Number { .. } => format!("{}{unit}", s.describe()),
            Expected::Options { correct, values } => {
                let names: Vec<String> = correct
                    .iter()
                    .filter_map(|&i| q.options.get(i))
                    .map(|o| o.text.clone())
                    .collect();
                let all: Vec<String> = q
                    .options
                    .iter()
                    .zip(values)
                    .map(|(o, v)| format!("{} {}", o.text, crate::exercise::format_number(*v)))
                    .collect();
                format!("{} (values: {})", names.join("; "), all.join(", "))
            }
        };
        let _ = el.set_attribute("data-answer", &answer_value(&s.expected));
        el.set_text_content(Some(&format!("Computed answer: {text}")));
    }
}

/// The answer as the tests read it: a number, or the correct option indices (`1` or `0,2`).
fn answer_value(e: &Expected) -> String {
    match e {
        Expected::Number { value, .. } => crate::exercise::format_number(*value),
        Expected::Options { correct, .. } => correct
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// The policies' run names where the form shows them (each policy's heading, every run picker).
fn relabel(app: &App) {
    let labels = {
        let st = app.ed_state.borrow();
        let Some(d) = st.draft.as_ref() else {
            return;
        };
        run_options(d)
    };
    let names = app.ed.form.query_selector_all("[data-policy-name]");
    if let Ok(names) = names {
        for i in 0..names.length() {
            let Some(el) = names.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let k = el
                .get_attribute("data-policy-name")
                .and_then(|v| v.parse::<usize>().ok());
            if let Some((_, label)) = k.and_then(|k| labels.get(k)) {
                let name = label
                    .split_once('(')
                    .map_or("", |(_, n)| n.trim_end_matches(')'));
                el.set_text_content(Some(name));
            }
        }
    }
    if let Ok(opts) = app.ed.form.query_selector_all("select[data-run] option") {
        for i in 0..opts.length() {
            let Some(o) = opts.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else {
                continue;
            };
            let k = o
                .get_attribute("value")
                .and_then(|v| v.parse::<usize>().ok());
            if let Some((_, label)) = k.and_then(|k| labels.get(k)) {
                o.set_text_content(Some(label));
            }
        }
    }
}

/// The form drawn again from the draft (the focused field keeps the focus), then checked.
fn render(app: &Rc<App>) {
    let html = {
        let st = app.ed_state.borrow();
        let Some(d) = st.draft.as_ref() else {
            return;
        };
        form_html(d)
    };
    let focused = app
        .ui
        .doc
        .active_element()
        .and_then(|e| e.get_attribute("data-f").or_else(|| e.get_attribute("id")));
    app.ed.form.set_inner_html(&html);
    if let Some(f) = focused {
        let sel = format!("[data-f=\"{f}\"], #{f}");
        if let Ok(Some(el)) = app.ed.form.query_selector(&sel) {
            if let Ok(h) = el.dyn_into::<HtmlElement>() {
                let _ = h.focus();
            }
        }
    }
    update(app);
}

fn attr(s: &str) -> String {
    escape(s)
}

/// A text input bound to `path`.
fn input(path: &str, key: &str, value: &str, label: &str, extra: &str) -> String {
    let id = field_id(path);
    format!(
        r#"<div class="field"><label for="{id}">{label}</label><input id="{id}" type="text" data-f="{path}" data-key="{key}" data-testid="{id}" value="{}" autocomplete="off" spellcheck="false"{extra}></div>"#,
        attr(value)
    )
}

fn textarea(path: &str, key: &str, value: &str, label: &str, rows: u32) -> String {
    let id = field_id(path);
    format!(
        r#"<div class="field"><label for="{id}">{label}</label><textarea id="{id}" rows="{rows}" data-f="{path}" data-key="{key}" data-testid="{id}">{}</textarea></div>"#,
        escape(value)
    )
}

fn select(path: &str, key: &str, label: &str, options: &[(String, String)], value: &str) -> String {
    let id = field_id(path);
    let mut opts = String::new();
    for (v, l) in options {
        let sel = if v == value { " selected" } else { "" };
        opts.push_str(&format!(
            r#"<option value="{}"{sel}>{}</option>"#,
            attr(v),
            escape(l)
        ));
    }
    let run = if path.ends_with(".run") {
        " data-run"
    } else {
        ""
    };
    format!(
        r#"<div class="field"><label for="{id}">{label}</label><select id="{id}" data-f="{path}" data-key="{key}" data-testid="{id}"{run}>{opts}</select></div>"#
    )
}

/// An element id from a field path (`questions.1.job` → `ed-questions-1-job`).
fn field_id(path: &str) -> String {
    format!("ed-{}", path.replace('.', "-"))
}

fn button(act: &str, i: usize, k: usize, text: &str, label: &str) -> String {
    format!(
        r#"<button type="button" class="secondary small" data-act="{act}" data-i="{i}" data-k="{k}" data-testid="ed-{act}-{i}-{k}" aria-label="{}">{}</button>"#,
        attr(label),
        escape(text)
    )
}

fn run_options(d: &Draft) -> Vec<(String, String)> {
    d.policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                i.to_string(),
                format!(
                    "Policy {} ({})",
                    i + 1,
                    p.run_name().unwrap_or_else(|_| "invalid".into())
                ),
            )
        })
        .collect()
}

/// What a number may read: the run's summary, or with a job's number one of its fields (both
/// offered always, so that typing a job's number redraws nothing; a field read without a job,
/// or a summary with one, is an error naming the metric).
fn metric_options() -> Vec<(String, String)> {
    RUN_METRICS
        .iter()
        .map(|m| {
            (
                format!("summary.{m}"),
                format!("the run's {}", m.replace('_', " ")),
            )
        })
        .chain(
            JOB_METRICS
                .iter()
                .map(|m| (m.to_string(), format!("the job's {}", m.replace('_', " ")))),
        )
        .collect()
}

fn form_html(d: &Draft) -> String {
    let mut h = String::new();
    // The exercise.
    h.push_str(r#"<fieldset class="ed-group"><legend>Exercise</legend><div class="ed-row">"#);
    h.push_str(&input(
        "id",
        "id",
        &d.id,
        "Identifier <span class=\"unit\">a-z, 0-9, -</span>",
        "",
    ));
    h.push_str(&input("title", "title", &d.title, "Title", ""));
    h.push_str("</div>");
    h.push_str(&textarea("text", "text", &d.text, "Text (Markdown)", 4));
    h.push_str("</fieldset>");
    // The workload.
    h.push_str(r#"<fieldset class="ed-group"><legend>Workload</legend>"#);
    h.push_str(&input(
        "procs",
        "procs",
        &d.procs,
        "Machine size <span class=\"unit\">processors</span>",
        r#" inputmode="numeric""#,
    ));
    h.push_str(
        r#"<div class="table-wrap" tabindex="0" role="region" aria-label="Jobs of the workload (scrolls)"><table class="ed-jobs" data-testid="ed-jobs" data-key="jobs"><caption class="visually-hidden">Jobs of the workload</caption><thead><tr><th scope="col">Job</th><th scope="col">Submit <span class="unit">s</span></th><th scope="col">Run time <span class="unit">s</span></th><th scope="col">Request <span class="unit">s</span></th><th scope="col">Proc&shy;essors</th><th scope="col">User</th><th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead><tbody>"#,
    );
    for (i, j) in d.jobs.iter().enumerate() {
        h.push_str(&format!("<tr><th scope=\"row\">{}</th>", i + 1));
        for (f, v, what) in [
            ("submit", &j.submit, "submit time"),
            ("run_time", &j.run_time, "run time"),
            ("request", &j.request, "requested time"),
            ("procs", &j.procs, "processors"),
            ("user", &j.user, "user"),
        ] {
            let path = format!("jobs.{i}.{f}");
            h.push_str(&format!(
                r#"<td><input type="text" inputmode="decimal" size="5" id="{}" data-f="{path}" data-key="jobs[{i}].{f}" data-testid="{}" value="{}" aria-label="Job {} {what}"></td>"#,
                field_id(&path),
                field_id(&path),
                attr(v),
                i + 1
            ));
        }
        h.push_str(&format!(
            "<td>{}</td></tr>",
            button("del-job", i, 0, "×", &format!("Remove job {}", i + 1))
        ));
    }
    h.push_str("</tbody></table></div>");
    h.push_str(&format!(
        r#"<div class="ed-actions">{}</div>"#,
        button("add-job", 0, 0, "Add a job", "Add a job")
    ));
    h.push_str(
        r#"<details class="ed-paste"><summary>Paste SWF lines instead</summary><div class="field"><label for="ed-swf">SWF lines <span class="unit">18 fields each; a “; MaxProcs: N” line sets the machine</span></label><textarea id="ed-swf" rows="4" data-testid="ed-swf" spellcheck="false"></textarea></div><button type="button" class="secondary small" data-act="read-swf" data-testid="ed-read-swf">Replace the jobs</button></details>"#,
    );
    h.push_str("</fieldset>");
    // The policies.
    h.push_str(r#"<fieldset class="ed-group"><legend>Policies to compare</legend>"#);
    let backfillings: Vec<(String, String)> = POLICIES
        .entries
        .iter()
        .map(|e| (e.name.to_string(), e.label.to_string()))
        .collect();
    let orders: Vec<(String, String)> = ORDERS
        .entries
        .iter()
        .filter(|e| e.param.is_none())
        .map(|e| (e.name.to_string(), e.label.to_string()))
        .collect();
    let estimates: Vec<(String, String)> = ESTIMATES
        .iter()
        .map(|(v, l)| (v.to_string(), l.to_string()))
        .collect();
    for (i, p) in d.policies.iter().enumerate() {
        let name = p.run_name().unwrap_or_else(|e| e.to_string());
        h.push_str(&format!(
            r#"<div class="ed-policy" data-key="policies[{i}]" data-testid="ed-policy-{i}"><p class="ed-sub">Policy {} <code data-policy-name="{i}">{}</code></p><div class="ed-row">"#,
            i + 1,
            escape(&name)
        ));
        let key = format!("policies[{i}]");
        h.push_str(&select(
            &format!("policies.{i}.backfilling"),
            &key,
            "Backfilling",
            &backfillings,
            &p.backfilling,
        ));
        h.push_str(&select(
            &format!("policies.{i}.order"),
            &key,
            "Queue order",
            &orders,
            &p.order,
        ));
        h.push_str(&select(
            &format!("policies.{i}.estimates"),
            &key,
            "Run-time estimates",
            &estimates,
            &p.estimates,
        ));
        if d.policies.len() > 1 {
            h.push_str(&button(
                "del-policy",
                i,
                0,
                "Remove",
                &format!("Remove policy {}", i + 1),
            ));
        }
        h.push_str("</div></div>");
    }
    h.push_str(&format!(
        r#"<div class="ed-actions">{}</div>"#,
        button("add-policy", 0, 0, "Add a policy", "Add a policy")
    ));
    h.push_str(
        r#"<details class="ed-paste"><summary>Take the machine and policies of a flat-tab link</summary><div class="field"><label for="ed-flat-link">The flat tab's link <span class="unit">(its “Link to this run”)</span></label><input id="ed-flat-link" type="url" data-testid="ed-flat-link" autocomplete="off"></div><button type="button" class="secondary small" data-act="from-link" data-testid="ed-from-link">Use its machine and policies</button></details>"#,
    );
    h.push_str("</fieldset>");
    // The questions.
    h.push_str(r#"<fieldset class="ed-group"><legend>Questions</legend>"#);
    let runs = run_options(d);
    let n = d.questions.len();
    for (i, q) in d.questions.iter().enumerate() {
        let kind = match q.kind {
            QuestionKind::PredictStart => "Predict a job's start",
            QuestionKind::Numeric => "A number",
            QuestionKind::Choice => "A choice",
        };
        let at = |f: &str| format!("questions.{i}.{f}");
        let key = |f: &str| format!("questions[{i}].{f}");
        h.push_str(&format!(
            r#"<section class="ed-q" data-testid="ed-q-{i}" aria-labelledby="ed-q-{i}-title" data-key="questions[{i}]"><div class="ed-q-head"><h3 id="ed-q-{i}-title">Question {} · {kind}</h3><span class="ed-q-tools">"#,
            i + 1
        ));
        if i > 0 {
            h.push_str(&button(
                "up-q",
                i,
                0,
                "↑",
                &format!("Move question {} up", i + 1),
            ));
        }
        if i + 1 < n {
            h.push_str(&button(
                "down-q",
                i,
                0,
                "↓",
                &format!("Move question {} down", i + 1),
            ));
        }
        h.push_str(&button(
            "del-q",
            i,
            0,
            "Remove",
            &format!("Remove question {}", i + 1),
        ));
        h.push_str("</span></div>");
        h.push_str(&textarea(
            &at("prompt"),
            &key("prompt"),
            &q.prompt,
            "Question (Markdown)",
            2,
        ));
        match q.kind {
            QuestionKind::PredictStart | QuestionKind::Numeric => {
                h.push_str(r#"<div class="ed-row">"#);
                h.push_str(&select(
                    &at("run"),
                    &key("run"),
                    "Run",
                    &runs,
                    &q.run.to_string(),
                ));
                let job_label = if q.kind == QuestionKind::PredictStart {
                    "Job"
                } else {
                    "Job <span class=\"unit\">optional</span>"
                };
                h.push_str(&input(
                    &at("job"),
                    &key("job"),
                    &q.job,
                    job_label,
                    r#" inputmode="numeric" size="4""#,
                ));
                if q.kind == QuestionKind::Numeric {
                    let mut metrics = metric_options();
                    if !metrics.iter().any(|(v, _)| *v == q.metric) {
                        metrics.insert(0, (q.metric.clone(), format!("{} (choose one)", q.metric)));
                    }
                    h.push_str(&select(
                        &at("metric"),
                        &key("metric"),
                        "Metric",
                        &metrics,
                        &q.metric,
                    ));
                }
                h.push_str(&input(
                    &at("tolerance"),
                    &key("tolerance"),
                    &q.tolerance,
                    "Tolerance <span class=\"unit\">±</span>",
                    r#" inputmode="decimal" size="4" placeholder="0""#,
                ));
                h.push_str(&input(
                    &at("unit"),
                    &key("unit"),
                    &q.unit,
                    "Unit",
                    r#" size="4""#,
                ));
                h.push_str("</div>");
            }
            QuestionKind::Choice => {
                let picks = [
                    ("lowest".to_string(), "the lowest value".to_string()),
                    ("highest".to_string(), "the highest value".to_string()),
                ];
                let pick = if q.pick == Pick::Highest {
                    "highest"
                } else {
                    "lowest"
                };
                h.push_str(&select(
                    &at("pick"),
                    &key("pick"),
                    "Correct: the option(s) with",
                    &picks,
                    pick,
                ));
                for (k, o) in q.options.iter().enumerate() {
                    let op = |f: &str| format!("questions.{i}.options.{k}.{f}");
                    let okey = |f: &str| format!("questions[{i}].options[{k}].{f}");
                    h.push_str(&format!(
                        r#"<div class="ed-option" data-key="questions[{i}].options[{k}]"><p class="ed-sub">Option {}</p><div class="ed-row">"#,
                        k + 1
                    ));
                    h.push_str(&input(&op("text"), &okey("text"), &o.text, "Text", ""));
                    h.push_str(&select(
                        &op("run"),
                        &okey("value.run"),
                        "Run",
                        &runs,
                        &o.run.to_string(),
                    ));
                    h.push_str(&input(
                        &op("job"),
                        &okey("value.job"),
                        &o.job,
                        "Job <span class=\"unit\">optional</span>",
                        r#" inputmode="numeric" size="4""#,
                    ));
                    let mut metrics = metric_options();
                    if !metrics.iter().any(|(v, _)| *v == o.metric) {
                        metrics.insert(0, (o.metric.clone(), format!("{} (choose one)", o.metric)));
                    }
                    h.push_str(&select(
                        &op("metric"),
                        &okey("value.metric"),
                        "Value",
                        &metrics,
                        &o.metric,
                    ));
                    if q.options.len() > 2 {
                        h.push_str(&button(
                            "del-opt",
                            i,
                            k,
                            "Remove",
                            &format!("Remove option {} of question {}", k + 1, i + 1),
                        ));
                    }
                    h.push_str("</div></div>");
                }
                h.push_str(&format!(
                    r#"<div class="ed-actions">{}</div>"#,
                    button(
                        "add-opt",
                        i,
                        0,
                        "Add an option",
                        &format!("Add an option to question {}", i + 1)
                    )
                ));
            }
        }
        h.push_str(&textarea(
            &at("hints"),
            &key("hints"),
            &q.hints,
            "Hints <span class=\"unit\">one per line, shown one at a time</span>",
            2,
        ));
        h.push_str(&textarea(
            &at("explanation"),
            &key("explanation"),
            &q.explanation,
            "Explanation (Markdown, shown after answering)",
            2,
        ));
        h.push_str(&format!(
            r#"<p class="ed-answer" id="ed-answer-{i}" data-testid="ed-answer-{i}" aria-live="polite">Computed answer: —</p></section>"#
        ));
    }
    h.push_str(&format!(
        r#"<div class="ed-actions"><span>Add a question:</span>{}{}{}</div>"#,
        button(
            "add-q:predict_start",
            0,
            0,
            "Predict a start",
            "Add a question: Predict a start"
        ),
        button(
            "add-q:numeric",
            0,
            0,
            "A number",
            "Add a question: A number"
        ),
        button("add-q:choice", 0, 0, "A choice", "Add a question: A choice"),
    ));
    h.push_str("</fieldset>");
    h
}
