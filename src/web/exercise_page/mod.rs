//! The Exercises mode of the page (the `#exercises-mode` panel of
//! `index.html`): the shipped exercises ([`crate::exercise::catalog`]) in a list, "Open file…"
//! for a teacher's exercise file, and exercise links (`#ex=`, [`Exercise::from_fragment`]).
//!
//! An exercise is shown as its title and Markdown text ([`crate::exercise::markdown`]), its
//! questions (a number box, choice buttons or a predicted start time; Check → correct, or
//! wrong with the next hint; the simulation's value and the explanation only once the answer
//! is right or the student pressed "Show the answer"), and its runs: each flat run in the
//! step-by-step replay ([`super::replay_panel`]), the others (mesh, grid) as a table of their
//! jobs or summary. Predict, then reveal: a run stays hidden until every question that reads
//! it is settled, or the student presses "Reveal the simulation" (noted in the answers). The runs are done in this mode's own worker
//! ([`super::exercise_worker`]: the functions of `schedlab exercise`); the page solves the
//! questions from their results ([`Exercise::solve_from`]) and compares answers with the
//! solutions ([`crate::exercise::check`]).
//!
//! A student's answers stay in the browser (`localStorage`, one entry per exercise id,
//! [`crate::exercise::answers`]) and survive a reload; "Export my answers" downloads every
//! exercise's answers as one JSON file for the teacher. "Copy link" gives the exercise's
//! `#ex=` link (the address bar holds it too, so a reload reopens the exercise).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Document, Element, Event, HtmlAnchorElement, HtmlButtonElement, HtmlElement, HtmlInputElement,
};

use super::dom::{escape, listen};
use super::kit::by_id;
use super::kit::downloads::Downloads;
use super::kit::error_box::ErrorBox;
use super::protocol::{FromWorker, ToWorker};
use super::replay_panel::ReplayPanel;
use super::worker_link::{js_message, ModeWorker};
use crate::exercise::answers::ExerciseAnswers;
use crate::exercise::{catalog, Exercise, Worked, EXERCISE_PREFIX};

mod editor;
mod questions;
mod runs;
mod store;

/// Largest exercise file read (the format's own limit applies after).
const MAX_FILE_BYTES: f64 = crate::limits::MAX_EXERCISE_BYTES as f64;

/// The panel's elements.
struct Ui {
    doc: Document,
    panel: HtmlElement,
    list: HtmlElement,
    file: HtmlInputElement,
    export: HtmlAnchorElement,
    export_note: HtmlElement,
    errors: ErrorBox,
    view: HtmlElement,
    title: HtmlElement,
    score: HtmlElement,
    link: HtmlAnchorElement,
    copy: HtmlButtonElement,
    text: HtmlElement,
    status: HtmlElement,
    questions: HtmlElement,
    reveal: HtmlElement,
    reveal_button: HtmlButtonElement,
    runs: HtmlElement,
    tab: HtmlElement,
}

/// The exercise on screen.
struct Current {
    ex: Exercise,
    /// Where it came from (a file name, `link`): errors name it.
    source: String,
    /// The run of the worker that answers for it.
    id: u32,
    /// The runs and solutions, once the worker answered.
    worked: Option<Worked>,
    answers: ExerciseAnswers,
    /// The runs on screen (`None`: none drawn yet).
    shown: Option<runs::Shown>,
}

#[derive(Default)]
struct State {
    ready: bool,
    next_id: u32,
    current: Option<Current>,
    /// Fragment this page wrote into the address bar last.
    fragment: String,
    downloads: Downloads,
}

struct App {
    ui: Ui,
    state: RefCell<State>,
    worker: ModeWorker,
    worker_started: Cell<bool>,
    replay: Rc<ReplayPanel>,
    ed: editor::EdUi,
    ed_state: RefCell<editor::EdState>,
}

/// Entry point, called once from [`super::app::start`]. Does nothing if the page has no
/// Exercises panel.
pub fn start(doc: &Document) {
    if doc.get_element_by_id("exercises-mode").is_none() {
        return;
    }
    let built = build_ui(doc).and_then(|ui| {
        let replay = ReplayPanel::mount(doc, by_id(doc, "ex-replay")?, "ex-replay")?;
        replay.set_past_only(true);
        Ok((ui, replay, editor::build(doc)?))
    });
    let (ui, replay, ed) = match built {
        Ok(x) => x,
        Err(m) => {
            web_sys::console::error_1(&JsValue::from_str(&format!("exercises mode: {m}")));
            return;
        }
    };
    let app = Rc::new(App {
        ui,
        state: RefCell::new(State::default()),
        worker: ModeWorker::default(),
        worker_started: Cell::new(false),
        replay,
        ed,
        ed_state: RefCell::new(editor::EdState::default()),
    });
    render_list(&app);
    wire(&app);
    editor::wire(&app);
    open_fragment(&app);
}

fn build_ui(doc: &Document) -> Result<Ui, String> {
    Ok(Ui {
        panel: by_id(doc, "exercises-mode")?,
        list: by_id(doc, "ex-list")?,
        file: by_id(doc, "ex-file")?,
        export: by_id(doc, "ex-export")?,
        export_note: by_id(doc, "ex-export-note")?,
        errors: ErrorBox::find(doc, "ex-error", "exercises-mode")?.wired(),
        view: by_id(doc, "ex-view")?,
        title: by_id(doc, "ex-title")?,
        score: by_id(doc, "ex-score")?,
        link: by_id(doc, "ex-link")?,
        copy: by_id(doc, "ex-copy")?,
        text: by_id(doc, "ex-text")?,
        status: by_id(doc, "ex-status")?,
        questions: by_id(doc, "ex-questions")?,
        reveal: by_id(doc, "ex-reveal")?,
        reveal_button: by_id(doc, "ex-reveal-button")?,
        runs: by_id(doc, "ex-runs")?,
        tab: by_id(doc, "mode-exercises")?,
        doc: doc.clone(),
    })
}

/// The shipped exercises, each a button, with the student's score so far.
fn render_list(app: &App) {
    let mut html = String::new();
    for (i, (id, title)) in catalog::list().iter().enumerate() {
        let score = store::load(id)
            .filter(|a| !a.answers.is_empty())
            .map(|a| {
                let (ok, n) = a.score();
                format!(r#" <span class="ex-list-score">{ok} of {n} correct</span>"#)
            })
            .unwrap_or_default();
        html.push_str(&format!(
            r#"<li><button type="button" class="link" data-open="{}" data-testid="ex-open-{}"><span class="ex-num">{}</span> {}</button>{score}</li>"#,
            escape(id),
            escape(id),
            i + 1,
            escape(title),
        ));
    }
    app.ui.list.set_inner_html(&html);
}

fn wire(app: &Rc<App>) {
    let ui = &app.ui;
    {
        let a = Rc::clone(app);
        listen(&ui.list, "click", move |ev: Event| {
            let id = ev
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|e| e.closest("[data-open]").ok().flatten())
                .and_then(|e| e.get_attribute("data-open"));
            if let Some(id) = id {
                open_shipped(&a, &id);
            }
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.tab, "click", move |_: Event| ensure_worker(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.file, "change", move |_: Event| {
            if let Some(file) = a.ui.file.files().and_then(|f| f.get(0)) {
                open_file(&a, file);
            }
            a.ui.file.set_value("");
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.export, "click", move |_: Event| {
            store::prepare_export(&a)
        });
    }
    {
        let a = Rc::clone(app);
        listen(&ui.copy, "click", move |_: Event| copy_link(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.reveal_button, "click", move |_: Event| reveal(&a));
    }
    {
        let a = Rc::clone(app);
        listen(&ui.questions, "click", move |ev: Event| {
            questions::on_click(&a, &ev)
        });
    }
    {
        let a = Rc::clone(app);
        listen(
            &ui.questions,
            "keydown",
            move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Enter" {
                    questions::on_enter(&a, &ev);
                }
            },
        );
    }
    if let Some(w) = web_sys::window() {
        let a = Rc::clone(app);
        listen(&w, "hashchange", move |_: Event| {
            let hash = super::kit::share_link::location_hash();
            if hash.trim_start_matches('#') != a.state.borrow().fragment {
                open_fragment(&a);
            }
        });
    }
}

/// Starts this mode's worker once (on the first visit of the tab or the first exercise).
fn ensure_worker(app: &Rc<App>) {
    if app.worker_started.replace(true) {
        return;
    }
    let a = Rc::clone(app);
    let b = Rc::clone(app);
    app.worker.start_in_panel(
        &app.ui.errors,
        move |msg| on_worker_message(&a, msg),
        move || {
            b.ui.status
                .set_text_content(Some("The simulator stopped: reload the page."));
        },
    );
}

fn on_worker_message(app: &Rc<App>, msg: FromWorker) {
    match msg {
        FromWorker::Ready { .. } => {
            app.state.borrow_mut().ready = true;
            let _ = app.ui.panel.set_attribute("data-worker", "ready");
            send_current(app);
            editor::send(app);
        }
        FromWorker::ExerciseDone { id, runs } if editor::owns(id) => {
            editor::on_done(app, id, &runs);
        }
        FromWorker::Error {
            id: Some(id),
            message,
            ..
        } if editor::owns(id) => editor::on_error(app, &message),
        FromWorker::ExerciseDone { id, runs } => {
            // The questions are solved here, from the worker's results.
            let solved = {
                let mut st = app.state.borrow_mut();
                st.current.as_mut().filter(|c| c.id == id).map(|c| {
                    c.ex.solve_from(&c.source, &runs).map(|solutions| {
                        c.worked = Some(Worked { runs, solutions });
                    })
                })
            };
            match solved {
                None => {}
                Some(Ok(())) => {
                    let _ = app.ui.panel.set_attribute("data-state", "idle");
                    questions::render(app);
                    runs::render(app);
                }
                Some(Err(e)) => {
                    // The file's error ends the loading: no questions, no runs.
                    let _ = app.ui.panel.set_attribute("data-state", "idle");
                    app.ui.status.set_text_content(Some(
                        "This exercise cannot be used (see the error above): ask its author for \
                         a corrected file.",
                    ));
                    app.ui.errors.show(&e.to_string());
                }
            }
        }
        FromWorker::Error { id, message, .. } => {
            let source = app
                .state
                .borrow()
                .current
                .as_ref()
                .filter(|c| id.is_none() || Some(c.id) == id)
                .map(|c| c.source.clone());
            if let Some(source) = source {
                let _ = app.ui.panel.set_attribute("data-state", "idle");
                app.ui.status.set_text_content(Some(
                    "The runs of this exercise could not be done (see the error above).",
                ));
                app.ui.errors.show(&format!("{source}: {message}"));
            }
        }
        _ => {}
    }
}

/// Sends the exercise on screen to the worker, if it is ready and the exercise is not solved.
fn send_current(app: &Rc<App>) {
    let msg = {
        let st = app.state.borrow();
        if !st.ready {
            return;
        }
        match st.current.as_ref().filter(|c| c.worked.is_none()) {
            Some(c) => ToWorker::RunExercise {
                id: c.id,
                runs: c.ex.run_requests(),
            },
            None => return,
        }
    };
    let _ = app.ui.panel.set_attribute("data-state", "running");
    app.worker.post(&msg);
}

/// Opens the shipped exercise `id`.
fn open_shipped(app: &Rc<App>, id: &str) {
    let Some((name, text)) = catalog::SHIPPED
        .iter()
        .find(|(_, text)| Exercise::from_json(text, "").is_ok_and(|e| e.id == id))
    else {
        return;
    };
    match Exercise::from_json(text, name) {
        Ok(ex) => show(app, ex, name),
        Err(e) => app.ui.errors.show(&e.to_string()),
    }
}

/// Opens an exercise link in the address bar (`#ex=…`), if there is one.
fn open_fragment(app: &Rc<App>) {
    let hash = super::kit::share_link::location_hash();
    let h = hash.trim_start_matches('#');
    if !h.starts_with(EXERCISE_PREFIX) {
        return;
    }
    super::modes::show_mode(&app.ui.doc, "exercises");
    match Exercise::from_fragment(h) {
        Ok(Some(ex)) => {
            app.state.borrow_mut().fragment = h.to_string();
            show(app, ex, "link");
        }
        Ok(None) => {}
        Err(e) => app.ui.errors.show(&format!(
            "This exercise link cannot be opened: {e}. Ask for the link again, or open the \
             exercise's file."
        )),
    }
}

/// Reads a teacher's exercise file.
fn open_file(app: &Rc<App>, file: web_sys::File) {
    let name = file.name();
    if file.size() > MAX_FILE_BYTES {
        app.ui.errors.show(&format!(
            "{name}: the file is too large for an exercise ({} bytes, limit {}).",
            file.size(),
            crate::limits::MAX_EXERCISE_BYTES
        ));
        return;
    }
    let a = Rc::clone(app);
    wasm_bindgen_futures::spawn_local(async move {
        match JsFuture::from(file.text()).await {
            Ok(text) => {
                let text = text.as_string().unwrap_or_default();
                match Exercise::from_json(&text, &name) {
                    Ok(ex) => show(&a, ex, &name),
                    Err(e) => a.ui.errors.show(&e.to_string()),
                }
            }
            Err(e) => {
                a.ui.errors
                    .show(&format!("{name}: cannot read the file: {}", js_message(&e)))
            }
        }
    });
}

/// Shows `ex` (from `source`): its text at once, its questions and runs once the worker has
/// run and solved it.
fn show(app: &Rc<App>, ex: Exercise, source: &str) {
    app.ui.errors.hide();
    super::modes::show_mode(&app.ui.doc, "exercises");
    ensure_worker(app);
    let fragment = ex.to_fragment();
    let answers = store::load(&ex.id).unwrap_or_else(|| ExerciseAnswers::new(&ex.id, &ex.title));
    let ui = &app.ui;
    ui.title.set_text_content(Some(&ex.title));
    ui.text
        .set_inner_html(&crate::exercise::markdown::to_html(&ex.text));
    ui.status.set_text_content(Some("Simulating the runs…"));
    ui.questions.set_inner_html("");
    ui.runs.set_inner_html("");
    ui.runs.set_hidden(true);
    ui.reveal.set_hidden(true);
    app.replay.hide();
    ui.view.set_hidden(false);
    let _ = ui.view.set_attribute("data-exercise", &ex.id);
    super::kit::share_link::publish(&ui.view, &ui.link, &fragment);
    ui.copy.set_text_content(Some("Copy link"));
    {
        let mut st = app.state.borrow_mut();
        st.fragment = fragment;
        st.next_id += 1;
        st.current = Some(Current {
            ex,
            source: source.to_string(),
            id: st.next_id,
            worked: None,
            answers,
            shown: None,
        });
    }
    questions::render_score(app);
    send_current(app);
    ui.view.scroll_into_view();
}

/// "Reveal the simulation": every run shown before the questions are settled; noted in the
/// answers (exported for the teacher).
fn reveal(app: &App) {
    let saved = {
        let mut st = app.state.borrow_mut();
        let Some(c) = st.current.as_mut() else {
            return;
        };
        c.answers.reveal(&now_iso());
        store::save(&c.answers)
    };
    if !saved {
        questions::storage_blocked(app);
    }
    runs::render(app);
}

/// Copies the exercise's link (`#ex=…`) to the clipboard.
fn copy_link(app: &Rc<App>) {
    super::kit::share_link::copy(&app.ui.link.href(), &app.ui.copy);
}

/// The browser's clock as ISO 8601.
fn now_iso() -> String {
    String::from(js_sys::Date::new_0().to_iso_string())
}
