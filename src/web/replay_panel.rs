//! The step-by-step replay of a flat run, one component used by the flat
//! page (after a run of at most `MAX_EXPLAINED_JOBS` jobs) and by the Exercises mode: a run
//! picker, Back / Play / Step and the time slider ([`super::kit::playback`], as in the mesh
//! view), the Gantt chart with a cursor at the replay's time (running jobs in the policy's
//! colour, waiting ones pale amber where they will run; hover a job for its explanation), and
//! the queue panel — the running jobs, the queue in order with each job's size, estimate and
//! (conservative) reservation, the blocked head's shadow time and extra processors (EASY), and
//! the last decisions in words. Everything shown comes from [`crate::sim::replay`].
//!
//! The component writes its own markup into a container element, its ids prefixed (`replay-`,
//! `ex-replay-`), so both pages share it.
//!
//! A run too large to replay whole on the page is replayed window by window
//! ([`crate::sim::replay_window`]): the panel asks its owner for the window around the
//! replay's time ([`ReplayPanel::on_window_request`]; the flat page asks the worker) whenever
//! that time leaves the window loaded, says it is loading meanwhile (a playback pauses and
//! goes on once the window is in), and replays the window ([`ReplayPanel::window_loaded`])
//! with the same [`Replay`]. The slider spans the whole run. The first window of a run is
//! asked only once the card has been in view since its runs were shown (or took the focus, or
//! the user picked a run): a batch that ends with the card below the fold costs the worker no
//! replay.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{
    Document, Event, HtmlButtonElement, HtmlCanvasElement, HtmlElement, HtmlInputElement,
    HtmlSelectElement, MouseEvent,
};

use super::chart::{self, Band, GanttLayout, PlotArea};
use super::dom::{escape, listen, SeenGate};
use super::format;
use super::kit::by_id;
use super::kit::playback::{Pace, Playback};
use crate::metrics::JobRecord;
use crate::network::heat::Timeline;
use crate::policy::PolicyKind;
use crate::sim::replay::{Replay, ReplayState};
use crate::sim::replay_window::ReplayWindow;
use crate::sim::story::{at_text, time_text};

/// Queued and running jobs listed at most (the rest are counted).
const MAX_LISTED: usize = 40;
/// The hover shows at most this many (the last) explanation lines of a job.
pub const MAX_WHY_LINES: usize = 4;
/// Runs with more jobs than this show the Gantt chart around the replay's time only.
const ZOOM_JOBS: usize = 60;
/// Frames ([`super::kit::playback::TICK_MS`]) between two events while playing.
const FRAMES_PER_EVENT: u32 = 18;

/// One run the replay can show.
pub struct ReplayRun {
    /// What the picker says (`EASY backfilling`, `easy: EASY backfilling on 4 processors`).
    pub label: String,
    /// The policy (for its colour), if known.
    pub policy: Option<PolicyKind>,
    pub replay: Replay,
    /// Where the jobs are drawn (`None`: machine too large for the Gantt chart).
    pub layout: Option<GanttLayout>,
    /// SWF job numbers whose times the hover leaves out (an exercise's question still asks
    /// them).
    pub secret: Vec<u64>,
    /// A run replayed window by window: `replay` and `layout` are those of the window loaded.
    pub windowed: Option<Windowed>,
}

/// A run replayed window by window.
pub struct Windowed {
    /// The run, as its owner names it to the worker.
    pub run: u32,
    /// The window loaded (its log moved into the run's replay), if any.
    pub window: Option<ReplayWindow>,
    /// [`ReplayWindow::timeline`] of that window.
    pub timeline: Timeline,
}

impl ReplayRun {
    /// The run of `replay`, laid out for the Gantt chart from the first submit.
    pub fn new(label: String, policy: Option<PolicyKind>, replay: Replay) -> ReplayRun {
        let layout = GanttLayout::new(replay.records(), replay.procs()).map(|mut l| {
            let first_submit = replay
                .records()
                .iter()
                .map(|r| r.submit)
                .fold(f64::INFINITY, f64::min);
            if first_submit < l.t0 {
                l.t0 = first_submit;
            }
            l
        });
        ReplayRun {
            label,
            policy,
            replay,
            layout,
            secret: Vec::new(),
            windowed: None,
        }
    }

    /// A run of `procs` processors replayed window by window, `run` naming it to the owner's
    /// [`ReplayPanel::on_window_request`]; nothing loaded yet.
    pub fn windowed(label: String, policy: Option<PolicyKind>, procs: u32, run: u32) -> ReplayRun {
        let mut r = ReplayRun::new(label, policy, Replay::new(procs, Vec::new(), Vec::new()));
        r.windowed = Some(Windowed {
            run,
            window: None,
            timeline: Timeline::default(),
        });
        r
    }

    /// Replays `w`, a window of this run.
    fn load(&mut self, mut w: ReplayWindow) {
        // The window keeps its records (its timeline and instant numbers read them); its log
        // moves into the replay.
        let replay = Replay::new(w.procs, w.records.clone(), std::mem::take(&mut w.log));
        let fresh = ReplayRun::new(String::new(), None, replay);
        self.replay = fresh.replay;
        self.layout = fresh.layout;
        if let Some(win) = &mut self.windowed {
            win.timeline = w.timeline();
            win.window = Some(w);
        }
    }
}

/// Asks for the window of run `run` around a time (its first instant when `None`).
type WindowRequest = Rc<dyn Fn(u32, Option<f64>)>;

/// The hover of a job whose times a pending question asks: its size and submit time only.
pub fn secret_tip(j: &JobRecord) -> String {
    format!(
        "Job {} · {} processor{}\nsubmit {}\nits start, end and wait stay hidden until you have \
         answered the question about it",
        j.id,
        format::count(u64::from(j.procs)),
        if j.procs == 1 { "" } else { "s" },
        format::duration(j.submit),
    )
}

/// `l` as it stands at time `t`: the bands of the jobs started by then, cut at `t` (the
/// time axis unchanged, so that the chart does not move as the replay advances).
fn up_to(l: &GanttLayout, t: f64) -> GanttLayout {
    GanttLayout {
        procs: l.procs,
        t0: l.t0,
        t1: l.t1,
        bands: l
            .bands
            .iter()
            .filter(|b| b.1 <= t)
            .map(|&(i, s, e, p0, n)| (i, s, e.min(t), p0, n))
            .collect(),
    }
}

/// The window of a large run's Gantt chart `l` at state `s`: from the earliest start of a
/// running job or submit of a waiting one to the latest expected end of a running job or end
/// of a waiting one, padded, at least 2 % of the run.
fn window_around(l: &GanttLayout, s: &ReplayState, r: &Replay) -> GanttLayout {
    let (mut lo, mut hi) = (s.time, s.time);
    for j in &s.running {
        lo = lo.min(j.start);
        hi = hi.max(j.expected_end);
    }
    for q in &s.queue {
        lo = lo.min(q.submit);
        hi = hi.max(r.records().get(q.job).map_or(hi, |j| j.end));
    }
    let span = l.t1 - l.t0;
    let pad = ((hi - lo) * 0.05).max(span * 0.01);
    // Whole seconds, so that the axis starts where the title says.
    let (lo, hi) = ((lo - pad).max(l.t0).floor(), (hi + pad).min(l.t1).ceil());
    l.window(lo, hi.max(lo + span * 0.02).min(l.t1))
}

/// The text of a job's hover: its numbers and its last explanation lines.
pub fn job_tip(j: &JobRecord, why: Option<&[String]>) -> String {
    let mut text = format!(
        "Job {} · {} processor{}\nsubmit {} · start {} · end {}\nwaited {} · ran {}",
        j.id,
        format::count(u64::from(j.procs)),
        if j.procs == 1 { "" } else { "s" },
        format::duration(j.submit),
        format::duration(j.start),
        format::duration(j.end),
        format::duration(j.wait),
        format::duration(j.end - j.start)
    );
    if let Some(lines) = why.filter(|l| !l.is_empty()) {
        text.push_str("\nWhy:");
        let skipped = lines.len().saturating_sub(MAX_WHY_LINES);
        if skipped > 0 {
            text.push_str(&format!("\n… {skipped} earlier"));
        }
        for line in &lines[skipped..] {
            text.push('\n');
            text.push_str(line);
        }
    }
    text
}

/// Shows the tip `tip` with `text` next to the mouse, or hides it; the tip goes left of the
/// pointer when it would cross `width` (CSS pixels from the tip's offset parent's left edge).
pub fn place_tip(tip: &HtmlElement, text: Option<&str>, ev: &MouseEvent, width: f64) {
    match text {
        Some(t) => {
            tip.set_text_content(Some(t));
            tip.set_hidden(false);
            let w = f64::from(tip.offset_width());
            let (ox, oy) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
            let left = if ox + 16.0 + w > width {
                (ox - w - 12.0).max(0.0)
            } else {
                ox + 16.0
            };
            let _ = tip.set_attribute(
                "style",
                &format!("left: {left:.0}px; top: {:.0}px", oy + 14.0),
            );
        }
        None => tip.set_hidden(true),
    }
}

/// The replay card's elements, runs and playback.
pub struct ReplayPanel {
    root: HtmlElement,
    pick: HtmlSelectElement,
    label: HtmlElement,
    canvas: HtmlCanvasElement,
    tip: HtmlElement,
    state: HtmlElement,
    playback: Rc<Playback>,
    runs: RefCell<Vec<ReplayRun>>,
    area: RefCell<Option<PlotArea>>,
    drawing: Cell<bool>,
    /// Draw only what has happened by the replay's time ([`ReplayPanel::set_past_only`]).
    past_only: Cell<bool>,
    /// Asks for a window of a run replayed window by window.
    request: RefCell<Option<WindowRequest>>,
    /// The window asked for and not yet received: run and time.
    pending: Cell<Option<(u32, Option<f64>)>>,
    /// Play again once the window asked for is in.
    resume: Cell<bool>,
    /// Holds the window `pending` names until the card is seen (in view, focused, or a run
    /// picked) since its runs were shown.
    gate: SeenGate,
}

/// The Gantt chart's legend (every job drawn where it runs).
const LEGEND: &str = r#"<span class="sw running"></span>running <span class="sw queued"></span>waiting (where it will run) <span class="sw done"></span>ended <span class="sw future"></span>not arrived yet <span class="sw cursor"></span>now"#;

/// The panel's markup, ids prefixed with `p`.
fn markup(p: &str) -> String {
    format!(
        r##"<div class="gantt-head replay-head">
  <label for="{p}-pick">Replay of</label>
  <select id="{p}-pick" data-testid="{p}-pick"></select>
  <small>Step through the run event by event: what runs, what waits and why. Hover a job in the chart for its explanation.</small>
</div>
<div class="mesh-time replay-controls">
  <button type="button" id="{p}-prev" class="secondary small" data-testid="{p}-prev" title="Previous event (submit, start or end)">◀ Back</button>
  <button type="button" id="{p}-play" class="secondary small" data-testid="{p}-play" title="Play / pause: one event at a time">▶ Play</button>
  <button type="button" id="{p}-step" class="secondary small" data-testid="{p}-step" title="Next event (submit, start or end)">Step ▶</button>
  <input type="range" id="{p}-time" data-testid="{p}-time" min="0" max="1" step="any" value="0" aria-label="Simulated time">
  <span id="{p}-time-label" class="mesh-time-label" data-testid="{p}-time-label"></span>
</div>
<div class="replay-grid">
  <div class="replay-chart">
    <div class="gantt-box">
      <canvas role="img" tabindex="0" id="{p}-canvas" data-testid="{p}-canvas" width="760" height="340" aria-label="Gantt chart of the run with a cursor at the replay's time"></canvas>
      <div class="gantt-tip" id="{p}-tip" data-testid="{p}-tip" hidden></div>
    </div>
    <p class="replay-legend">{LEGEND}</p>
  </div>
  <div class="replay-state" id="{p}-state" data-testid="{p}-state" tabindex="0" role="region" aria-label="The replay at its time: queue, running jobs and the last decision" aria-live="polite"></div>
</div>"##
    )
}

impl ReplayPanel {
    /// Writes the panel into `root` (ids prefixed with `prefix`) and wires it; the error names
    /// a missing element.
    pub fn mount(
        doc: &Document,
        root: HtmlElement,
        prefix: &str,
    ) -> Result<Rc<ReplayPanel>, String> {
        root.set_inner_html(&markup(prefix));
        let id = |s: &str| format!("{prefix}-{s}");
        let playback = Playback::new(
            by_id::<HtmlButtonElement>(doc, &id("prev"))?,
            by_id::<HtmlButtonElement>(doc, &id("play"))?,
            by_id::<HtmlButtonElement>(doc, &id("step"))?,
            by_id::<HtmlInputElement>(doc, &id("time"))?,
            Pace::Events {
                frames: FRAMES_PER_EVENT,
            },
        );
        let panel = Rc::new(ReplayPanel {
            pick: by_id(doc, &id("pick"))?,
            label: by_id(doc, &id("time-label"))?,
            canvas: by_id(doc, &id("canvas"))?,
            tip: by_id(doc, &id("tip"))?,
            state: by_id(doc, &id("state"))?,
            root,
            playback,
            runs: RefCell::new(Vec::new()),
            area: RefCell::new(None),
            drawing: Cell::new(false),
            past_only: Cell::new(false),
            request: RefCell::new(None),
            pending: Cell::new(None),
            resume: Cell::new(false),
            gate: SeenGate::new(),
        });
        {
            let weak = Rc::downgrade(&panel);
            panel.gate.watch(&panel.root, move || {
                if let Some(p) = weak.upgrade() {
                    p.ask_pending();
                }
            });
        }
        let weak = Rc::downgrade(&panel);
        panel.playback.on_change(move || {
            if let Some(p) = weak.upgrade() {
                p.draw();
            }
        });
        {
            let weak = Rc::downgrade(&panel);
            listen(&panel.pick, "change", move |_: Event| {
                if let Some(p) = weak.upgrade() {
                    if p.gate.see() {
                        p.ask_pending();
                    }
                    p.reset();
                }
            });
        }
        {
            let weak = Rc::downgrade(&panel);
            listen(&panel.canvas, "mousemove", move |ev: MouseEvent| {
                if let Some(p) = weak.upgrade() {
                    p.hover(&ev);
                }
            });
        }
        {
            let tip = panel.tip.clone();
            listen(&panel.canvas, "mouseleave", move |_: Event| {
                tip.set_hidden(true)
            });
        }
        Ok(panel)
    }

    /// Shows `runs` (the first one picked, at its first event); hides the panel when empty.
    pub fn show(&self, runs: Vec<ReplayRun>) {
        self.playback.stop();
        let options: String = runs
            .iter()
            .enumerate()
            .map(|(i, r)| format!(r#"<option value="{i}">{}</option>"#, escape(&r.label)))
            .collect();
        self.pick.set_inner_html(&options);
        self.pick.set_value("0");
        self.pending.set(None);
        self.resume.set(false);
        self.gate.reset();
        let empty = runs.is_empty();
        *self.runs.borrow_mut() = runs;
        self.root.set_hidden(empty);
        if !empty {
            self.reset();
        }
    }

    /// Sets the jobs whose times each run's hover leaves out (by the runs' places in the
    /// picker), without moving the replay.
    pub fn set_secrets(&self, secrets: &[Vec<u64>]) {
        for (run, secret) in self.runs.borrow_mut().iter_mut().zip(secrets) {
            run.secret.clone_from(secret);
        }
    }

    /// With `on`, the Gantt chart draws only what has happened by the replay's time: the jobs
    /// started by then, each up to then (not where a waiting job will run, nor when a running
    /// job will end), and its hover names nothing later — an exercise's replay, whose future
    /// would answer questions. The legend says so.
    pub fn set_past_only(&self, on: bool) {
        self.past_only.set(on);
        if let Ok(Some(legend)) = self.root.query_selector(".replay-legend") {
            legend.set_inner_html(if on {
                r#"<span class="sw running"></span>running (up to now) <span class="sw done"></span>ended <span class="sw cursor"></span>now — jobs not started yet are not drawn"#
            } else {
                LEGEND
            });
        }
    }

    /// Hides the panel (its runs are dropped).
    pub fn hide(&self) {
        self.show(Vec::new());
    }

    /// Picks the run `i` (by its place in the picker) and shows it from its first event.
    pub fn pick(&self, i: usize) {
        self.pick.set_value(&i.to_string());
        self.reset();
    }

    fn current(&self) -> usize {
        self.pick.value().parse().unwrap_or(0)
    }

    /// The picked run from its first event.
    fn reset(&self) {
        let timeline = {
            let runs = self.runs.borrow();
            match runs.get(self.current()) {
                Some(r) => match &r.windowed {
                    Some(w) if w.window.is_none() => {
                        let run = w.run;
                        drop(runs);
                        self.playback.set_timeline(Timeline::default(), 0.0);
                        self.fetch(run, None);
                        return;
                    }
                    Some(w) => w.timeline.clone(),
                    None => r.replay.timeline().clone(),
                },
                None => return,
            }
        };
        let t = timeline.first();
        self.playback.set_timeline(timeline, t);
        self.draw();
    }

    /// `f` asks for the window of a run replayed window by window around a time (its first
    /// instant when `None`); [`ReplayPanel::window_loaded`] takes the answer.
    pub fn on_window_request(&self, f: impl Fn(u32, Option<f64>) + 'static) {
        *self.request.borrow_mut() = Some(Rc::new(f));
    }

    /// Asks for the window of run `run` around `t` (once) and says so.
    fn fetch(&self, run: u32, t: Option<f64>) {
        if self.playback.is_playing() {
            self.playback.stop();
            self.resume.set(true);
        }
        let _ = self.root.set_attribute("aria-busy", "true");
        self.label.set_text_content(Some(&match t {
            Some(t) => format!("{} · loading the jobs around this time…", at_text(t)),
            None => "Loading the first jobs of the run…".to_string(),
        }));
        self.state.set_inner_html(
            r#"<p class="empty-note" data-testid="replay-loading">Loading the jobs and decisions around this time from the simulator…</p>"#,
        );
        if self.pending.get().is_some_and(|(r, _)| r == run) {
            // One request at a time: the time moved meanwhile is asked for once it is in.
            return;
        }
        self.pending.set(Some((run, t)));
        // Else asked once the card is seen ([`ReplayPanel::ask_pending`]).
        if self.gate.pass() {
            self.ask(run, t);
        }
    }

    /// Passes the request for the window of run `run` around `t` to the owner.
    fn ask(&self, run: u32, t: Option<f64>) {
        let request = self.request.borrow().clone();
        if let Some(f) = request {
            f(run, t);
        }
    }

    /// Asks for the window held until the card was seen.
    fn ask_pending(&self) {
        if let Some((run, t)) = self.pending.get() {
            self.ask(run, t);
        }
    }

    /// No window of run `run` could be made: says why in place of the replay; a later move of
    /// the time asks again.
    pub fn window_failed(&self, run: u32, message: &str) {
        if self.pending.get().is_none_or(|(r, _)| r != run) {
            return;
        }
        self.pending.set(None);
        self.resume.set(false);
        let _ = self.root.remove_attribute("aria-busy");
        self.label.set_text_content(Some("Not loaded."));
        self.state.set_inner_html(&format!(
            r#"<p class="empty-note" data-testid="replay-failed">{}</p>"#,
            escape(message)
        ));
    }

    /// The window `w` of run `run` has come: replays it at the replay's time (its first
    /// instant for the first window), or asks for the next one if the time moved out of it
    /// meanwhile.
    pub fn window_loaded(&self, run: u32, w: ReplayWindow) {
        let Some((_, asked)) = self.pending.get().filter(|(r, _)| *r == run) else {
            return;
        };
        self.pending.set(None);
        let _ = self.root.remove_attribute("aria-busy");
        let current = self.current();
        let timeline = {
            let mut runs = self.runs.borrow_mut();
            let Some((i, r)) = runs
                .iter_mut()
                .enumerate()
                .find(|(_, r)| r.windowed.as_ref().is_some_and(|x| x.run == run))
            else {
                return;
            };
            r.load(w);
            if i != current {
                return;
            }
            r.windowed.as_ref().map(|x| x.timeline.clone())
        };
        let Some(timeline) = timeline else {
            return;
        };
        let t = match asked {
            Some(_) => self.playback.time(),
            None => timeline.first(),
        };
        self.playback.set_timeline(timeline, t);
        self.draw();
        if self.resume.replace(false) && self.pending.get().is_none() {
            self.playback.toggle();
        }
    }

    /// Draws the chart and the queue panel at the playback's time.
    fn draw(&self) {
        if self.drawing.replace(true) {
            return;
        }
        let t = self.playback.time();
        let runs = self.runs.borrow();
        let outside = runs.get(self.current()).and_then(|run| {
            let w = run.windowed.as_ref()?;
            (!w.window.as_ref().is_some_and(|x| x.covers(t))).then_some(w.run)
        });
        if let Some(id) = outside {
            drop(runs);
            self.fetch(id, Some(t));
            self.drawing.set(false);
            return;
        }
        if let Some(run) = runs.get(self.current()) {
            let r = &run.replay;
            let s = r.state_at(t);
            let (at, n) = match run.windowed.as_ref().and_then(|w| w.window.as_ref()) {
                Some(w) => (w.instant_number(t), w.instants),
                None => (r.timeline().count_upto(t), r.timeline().len()),
            };
            self.label.set_text_content(Some(&format!(
                "{} · event {at} of {n} · {} running · {} waiting",
                at_text(t),
                s.running.len(),
                s.queue.len()
            )));
            let _ = self.root.set_attribute("data-t", &t.to_string());
            self.state.set_inner_html(&state_html(r, &s));
            let zoomed = run
                .layout
                .as_ref()
                .filter(|_| r.records().len() > ZOOM_JOBS)
                .map(|l| window_around(l, &s, r));
            let past = self
                .past_only
                .get()
                .then(|| zoomed.as_ref().or(run.layout.as_ref()).map(|l| up_to(l, t)))
                .flatten();
            let area = past
                .as_ref()
                .or(zoomed.as_ref())
                .or(run.layout.as_ref())
                .and_then(|layout| {
                    let band = |i: usize| match r.records().get(i) {
                        Some(j) if j.start <= t && t < j.end => Band::Running,
                        Some(j) if j.end <= t && j.start <= t => Band::Done,
                        Some(j) if j.submit <= t => Band::Queued,
                        _ => Band::Future,
                    };
                    let colour = run.policy.map_or(chart::series_colour(0), chart::colour);
                    if let Ok(Some(sw)) = self.root.query_selector(".sw.running") {
                        let css = format!(
                            "background: #{:02x}{:02x}{:02x}",
                            colour.0, colour.1, colour.2
                        );
                        let _ = sw.set_attribute("style", &css);
                    }
                    let (title, x_desc) = if zoomed.is_some() {
                        (
                            format!(
                                "{} at t = {} s (around it: t = {} – {} s)",
                                run.label,
                                time_text(t),
                                time_text(layout.t0),
                                time_text(layout.t1)
                            ),
                            format!("Simulated time since t = {} s", time_text(layout.t0)),
                        )
                    } else {
                        (
                            format!("{} at t = {} s", run.label, time_text(t)),
                            "Simulated time since the first submit".to_string(),
                        )
                    };
                    let label = |i: usize| {
                        r.records()
                            .get(i)
                            .map_or_else(String::new, |j| j.id.to_string())
                    };
                    let frame = chart::ReplayFrame {
                        title: &title,
                        x_desc: &x_desc,
                        colour,
                        t,
                    };
                    chart::draw_replay_gantt(&self.canvas.id(), &frame, layout, &band, &label).ok()
                });
            self.canvas.set_hidden(area.is_none());
            *self.area.borrow_mut() = area;
        }
        drop(runs);
        self.drawing.set(false);
    }

    fn hover(&self, ev: &MouseEvent) {
        let c = &self.canvas;
        let cw = f64::from(c.client_width().max(1));
        let ch = f64::from(c.client_height().max(1));
        let x = f64::from(ev.offset_x()) * f64::from(c.width()) / cw;
        let y = f64::from(ev.offset_y()) * f64::from(c.height()) / ch;
        let text = {
            let runs = self.runs.borrow();
            let area = self.area.borrow();
            runs.get(self.current()).and_then(|run| {
                let (t, p) = area.as_ref()?.at(x, y)?;
                let now = self.playback.time();
                if self.past_only.get() && t > now {
                    return None;
                }
                let k = run.layout.as_ref()?.job_at(t, p)?;
                let j = run.replay.records().get(k)?;
                if self.past_only.get() && j.start > now {
                    return None;
                }
                if run.secret.contains(&j.id) {
                    return Some(secret_tip(j));
                }
                Some(job_tip(j, Some(&run.replay.why(k))))
            })
        };
        // The tip may cover the queue panel to the right of the chart.
        let room = f64::from(self.root.client_width().max(1)) - 24.0;
        place_tip(&self.tip, text.as_deref(), ev, room);
    }
}

fn job_list(ids: &[usize], r: &Replay) -> String {
    ids.iter()
        .filter_map(|&j| r.records().get(j))
        .map(|j| j.id.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The queue panel at one instant.
fn state_html(r: &Replay, s: &ReplayState) -> String {
    let t = time_text;
    let mut h = String::new();
    // Now.
    let mut happened = Vec::new();
    for (what, ids) in [
        ("ended", &s.ended),
        ("arrived", &s.arrived),
        ("started", &s.started),
    ] {
        if !ids.is_empty() {
            let plural = if ids.len() == 1 { "job" } else { "jobs" };
            happened.push(format!("{plural} {} {what}", job_list(ids, r)));
        }
    }
    h.push_str(&format!(
        r#"<p class="replay-now" data-testid="replay-now"><strong>{}</strong> · {} of {} processors free{}</p>"#,
        at_text(s.time),
        format::count(u64::from(s.free)),
        format::count(u64::from(r.procs())),
        if happened.is_empty() {
            String::new()
        } else {
            format!("<br>Now: {}.", escape(&happened.join("; ")))
        }
    ));
    // The blocked head.
    if let Some(head) = &s.head {
        let shadow = match (head.shadow, head.extra) {
            (Some(sh), Some(x)) => format!(
                " Shadow time <strong data-testid=\"replay-shadow\">{}</strong> (enough processors free by the running jobs' estimates); <strong data-testid=\"replay-extra\">{x} extra</strong> processor{} then — a later job may start now if it ends by the shadow time or fits in the extra processors.",
                at_text(sh),
                if x == 1 { "" } else { "s" }
            ),
            _ => " Nothing behind it may start (FCFS).".to_string(),
        };
        h.push_str(&format!(
            r#"<div class="replay-blocked" data-testid="replay-head" data-job="{id}" data-shadow="{sh}" data-extra="{ex}"><h3>Blocked head: job {id}</h3><p>Needs {needs} processor{pl}, {free} free.{shadow} <small>(recorded at t = {since} s)</small></p></div>"#,
            id = head.id,
            sh = head.shadow.map(|v| v.to_string()).unwrap_or_default(),
            ex = head.extra.map(|v| v.to_string()).unwrap_or_default(),
            needs = head.needs,
            pl = if head.needs == 1 { "" } else { "s" },
            free = s.free,
            since = t(head.since),
        ));
    }
    // The queue.
    let reservations = s.queue.iter().any(|q| q.reservation.is_some());
    h.push_str(&format!(
        r#"<h3>Queue <span class="count">({})</span></h3>"#,
        s.queue.len()
    ));
    if s.queue.is_empty() {
        h.push_str(r#"<p class="empty-note">No job waits.</p>"#);
    } else {
        h.push_str(r#"<table class="replay-table" data-testid="replay-queue"><thead><tr><th>#</th><th>Job</th><th>Procs</th><th>Estimate</th><th>Arrived</th>"#);
        if reservations {
            h.push_str(
                r#"<th title="Conservative backfilling: its reservation now">Reserved at</th>"#,
            );
        }
        h.push_str("</tr></thead><tbody>");
        for (i, q) in s.queue.iter().take(MAX_LISTED).enumerate() {
            let head = s.head.as_ref().is_some_and(|hd| hd.job == q.job);
            h.push_str(&format!(
                r#"<tr data-job="{}" data-reservation="{}"{}><td>{}</td><td>{}</td><td>{}</td><td>{} s</td><td>{}</td>"#,
                q.id,
                q.reservation.map(|v| v.to_string()).unwrap_or_default(),
                if head { r#" class="head""# } else { "" },
                i + 1,
                q.id,
                q.procs,
                t(q.estimate),
                t(q.submit)
            ));
            if reservations {
                h.push_str(&format!(
                    "<td>{}</td>",
                    q.reservation
                        .map(|v| format!("t = {}", t(v)))
                        .unwrap_or_default()
                ));
            }
            h.push_str("</tr>");
        }
        h.push_str("</tbody></table>");
        if s.queue.len() > MAX_LISTED {
            h.push_str(&format!(
                r#"<p class="empty-note">… and {} more.</p>"#,
                s.queue.len() - MAX_LISTED
            ));
        }
    }
    // Running.
    h.push_str(&format!(
        r#"<h3>Running <span class="count">({})</span></h3>"#,
        s.running.len()
    ));
    if s.running.is_empty() {
        h.push_str(r#"<p class="empty-note">The machine is idle.</p>"#);
    } else {
        h.push_str(r#"<table class="replay-table" data-testid="replay-running"><thead><tr><th>Job</th><th>Procs</th><th>Started</th><th title="start + estimate: what a backfilling policy counts on">Expected end</th><th>Ends</th></tr></thead><tbody>"#);
        for j in s.running.iter().take(MAX_LISTED) {
            h.push_str(&format!(
                r#"<tr data-job="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                j.id,
                j.id,
                j.procs,
                t(j.start),
                t(j.expected_end),
                t(j.end)
            ));
        }
        h.push_str("</tbody></table>");
        if s.running.len() > MAX_LISTED {
            h.push_str(&format!(
                r#"<p class="empty-note">… and {} more.</p>"#,
                s.running.len() - MAX_LISTED
            ));
        }
    }
    // The last decisions.
    match s.decisions.first() {
        Some(d) => {
            h.push_str(&format!(
                r#"<h3>Last decision{} <span class="count">({})</span></h3><ul class="replay-decisions" data-testid="replay-decisions">"#,
                if s.decisions.len() == 1 { "" } else { "s" },
                at_text(d.time)
            ));
            for d in s.decisions.iter().take(MAX_LISTED) {
                h.push_str(&format!(
                    r#"<li data-kind="{}" data-job="{}"><strong>Job {}</strong>: {}.</li>"#,
                    d.kind,
                    d.id,
                    d.id,
                    escape(&d.text)
                ));
            }
            h.push_str("</ul>");
        }
        None if r.is_explained() => {
            h.push_str(r#"<h3>Last decision</h3><p class="empty-note">None yet.</p>"#)
        }
        None => h.push_str(r#"<p class="empty-note">This run recorded no explanations.</p>"#),
    }
    h
}
