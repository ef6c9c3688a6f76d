//! Playing a finished run back: a Back / Play–Pause / Step button row and a time slider over
//! the run's instants ([`Timeline`]: every submit, start and end), shared by the mesh view
//! ([`crate::web::mesh_page`]) and the flat replay ([`crate::web::replay_panel`]). The
//! playback owns the current time; its owner redraws in the callback given to
//! [`Playback::on_change`] and reads the time with [`Playback::time`].
//!
//! Step and Back jump to the next / previous instant (and stop playing); the slider moves
//! freely; Play advances by [`Pace`] every [`TICK_MS`] until the last instant (from the end it
//! starts again at the first).

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Event, HtmlButtonElement, HtmlInputElement};

use super::super::dom::listen;
use crate::network::heat::Timeline;

/// Interval between two frames while playing, milliseconds.
pub const TICK_MS: i32 = 40;

/// How Play moves the time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// A fraction 1 / `steps` of the run's span per frame (the mesh view: 16 s for a run).
    Continuous { steps: f64 },
    /// To the next instant every `frames` frames (the flat replay: each decision stays in view).
    Events { frames: u32 },
}

/// The controls and the current time.
pub struct Playback {
    prev: HtmlButtonElement,
    play: HtmlButtonElement,
    next: HtmlButtonElement,
    range: HtmlInputElement,
    pace: Pace,
    timeline: RefCell<Timeline>,
    t: Cell<f64>,
    /// Frames since the last instant (`Pace::Events`).
    frames: Cell<u32>,
    /// The interval of a playback in progress.
    handle: Cell<Option<i32>>,
    tick: RefCell<Option<Closure<dyn FnMut()>>>,
    redraw: RefCell<Option<Rc<dyn Fn()>>>,
}

impl Playback {
    /// A playback driving the buttons `prev`, `play`, `next` and the slider `range` (events
    /// wired here, for the life of the page).
    pub fn new(
        prev: HtmlButtonElement,
        play: HtmlButtonElement,
        next: HtmlButtonElement,
        range: HtmlInputElement,
        pace: Pace,
    ) -> Rc<Playback> {
        let p = Rc::new(Playback {
            prev,
            play,
            next,
            range,
            pace,
            timeline: RefCell::new(Timeline::default()),
            t: Cell::new(0.0),
            frames: Cell::new(0),
            handle: Cell::new(None),
            tick: RefCell::new(None),
            redraw: RefCell::new(None),
        });
        let weak = Rc::downgrade(&p);
        let with = move |f: fn(&Rc<Playback>)| {
            let w: Weak<Playback> = weak.clone();
            move |_: Event| {
                if let Some(p) = w.upgrade() {
                    f(&p);
                }
            }
        };
        listen(&p.prev, "click", with(|p| p.step(false)));
        listen(&p.next, "click", with(|p| p.step(true)));
        listen(&p.play, "click", with(|p| p.toggle()));
        listen(
            &p.range,
            "input",
            with(|p| {
                let t = p.range.value_as_number();
                if t.is_finite() {
                    p.seek(t);
                }
            }),
        );
        p
    }

    /// `f` redraws the owner's view at [`Playback::time`]; called after every change of time.
    pub fn on_change(&self, f: impl Fn() + 'static) {
        *self.redraw.borrow_mut() = Some(Rc::new(f));
    }

    /// The current time.
    pub fn time(&self) -> f64 {
        self.t.get()
    }

    /// The instants played through.
    pub fn timeline(&self) -> std::cell::Ref<'_, Timeline> {
        self.timeline.borrow()
    }

    /// Plays `timeline` from now on, at time `t` (stops playing; no redraw).
    pub fn set_timeline(&self, timeline: Timeline, t: f64) {
        self.stop();
        self.range.set_min(&timeline.first().to_string());
        self.range.set_max(&timeline.last().to_string());
        *self.timeline.borrow_mut() = timeline;
        self.t.set(t);
        self.range.set_value(&t.to_string());
    }

    /// Moves to time `t` and redraws.
    pub fn seek(&self, t: f64) {
        self.t.set(t);
        self.range.set_value(&t.to_string());
        let redraw = self.redraw.borrow().clone();
        if let Some(f) = redraw {
            f();
        }
    }

    /// Stops playing and moves to the next (`forward`) or previous instant, if any.
    pub fn step(&self, forward: bool) {
        self.stop();
        let next = {
            let tl = self.timeline.borrow();
            if forward {
                tl.next_after(self.t.get())
            } else {
                tl.prev_before(self.t.get())
            }
        };
        if let Some(t) = next {
            self.seek(t);
        }
    }

    /// Whether it is playing.
    pub fn is_playing(&self) -> bool {
        self.handle.get().is_some()
    }

    /// Stops playing.
    pub fn stop(&self) {
        if let Some(h) = self.handle.take() {
            if let Some(w) = web_sys::window() {
                w.clear_interval_with_handle(h);
            }
        }
        self.play.set_text_content(Some("▶ Play"));
    }

    /// Plays, or pauses when playing.
    pub fn toggle(self: &Rc<Self>) {
        if self.is_playing() {
            self.stop();
            return;
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        if self.tick.borrow().is_none() {
            let weak = Rc::downgrade(self);
            *self.tick.borrow_mut() = Some(Closure::<dyn FnMut()>::new(move || {
                if let Some(p) = weak.upgrade() {
                    p.frame();
                }
            }));
        }
        // From the end, play starts again at the beginning.
        let (first, last) = {
            let tl = self.timeline.borrow();
            (tl.first(), tl.last())
        };
        if self.t.get() >= last {
            self.seek(first);
        }
        self.frames.set(0);
        let handle = self.tick.borrow().as_ref().and_then(|c| {
            window
                .set_interval_with_callback_and_timeout_and_arguments_0(
                    c.as_ref().unchecked_ref(),
                    TICK_MS,
                )
                .ok()
        });
        self.handle.set(handle);
        self.play.set_text_content(Some("Pause"));
    }

    /// One frame of playing.
    fn frame(&self) {
        let (first, last, next) = {
            let tl = self.timeline.borrow();
            (tl.first(), tl.last(), tl.next_after(self.t.get()))
        };
        match self.pace {
            Pace::Continuous { steps } => {
                let t = (self.t.get() + (last - first) / steps.max(1.0)).min(last);
                self.seek(t);
            }
            Pace::Events { frames } => {
                let n = self.frames.get() + 1;
                if n < frames {
                    self.frames.set(n);
                    return;
                }
                self.frames.set(0);
                if let Some(t) = next {
                    self.seek(t);
                }
            }
        }
        if self.t.get() >= last {
            self.stop();
        }
    }
}
