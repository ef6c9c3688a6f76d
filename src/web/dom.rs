//! Small DOM helpers shared by the three modes' pages: event listeners that live as long as
//! the page, work deferred to a later main-thread task, an element's coming into and leaving
//! the viewport, HTML escaping for text put into markup, and object URLs for downloads.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::convert::FromWasmAbi;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::EventTarget;

/// Runs `f` in a later main-thread task (`setTimeout(f, 0)`): the work before it and `f` are
/// separate tasks, so the page can paint and take input between them. Without a window (never
/// on a page) `f` runs at once.
pub fn defer(f: impl FnOnce() + 'static) {
    match web_sys::window() {
        Some(w) => {
            let cb = Closure::once_into_js(f);
            let _ = w.set_timeout_with_callback(cb.unchecked_ref());
        }
        None => f(),
    }
}

/// Adds an event listener that lives as long as the page.
pub fn listen<E>(target: &EventTarget, event: &str, f: impl FnMut(E) + 'static)
where
    E: FromWasmAbi + 'static,
{
    let c = Closure::<dyn FnMut(E)>::new(f);
    let _ = target.add_event_listener_with_callback(event, c.as_ref().unchecked_ref());
    c.forget();
}

/// Calls `f(true)` each time `el` comes into the viewport (any part of it) and `f(false)` each
/// time it leaves it, for as long as the page lives; an element `hidden` is out of it. The
/// first call, with where `el` is, comes shortly after this one. `false` when the browser has
/// no `IntersectionObserver` (`f` is then never called).
pub fn on_visibility(el: &web_sys::Element, mut f: impl FnMut(bool) + 'static) -> bool {
    let c = Closure::<dyn FnMut(Array)>::new(move |entries: Array| {
        // Entries come oldest first: the last one says where the element is now.
        let last = entries.get(entries.length().saturating_sub(1));
        if let Ok(e) = last.dyn_into::<web_sys::IntersectionObserverEntry>() {
            f(e.is_intersecting());
        }
    });
    match web_sys::IntersectionObserver::new(c.as_ref().unchecked_ref()) {
        Ok(observer) => {
            observer.observe(el);
            c.forget();
            // Both live as long as the page.
            std::mem::forget(observer);
            true
        }
        Err(_) => false,
    }
}

/// Holds a card's request to the worker until the card is seen: in the viewport, focused
/// inside, or touched by the user since its content was last offered ([`SeenGate::reset`]).
/// Where the browser cannot say when an element comes into view, every request passes.
#[derive(Clone)]
pub struct SeenGate(Rc<GateState>);

struct GateState {
    /// Whether the card is in the viewport (as the browser last said).
    in_view: Cell<bool>,
    /// Whether requests may pass now.
    seen: Cell<bool>,
    /// A request waits for the card to be seen.
    held: Cell<bool>,
    /// Whether the browser says when the card comes into view (`in_view` is then kept).
    observed: Cell<bool>,
}

impl Default for SeenGate {
    fn default() -> SeenGate {
        SeenGate::new()
    }
}

impl SeenGate {
    /// A gate that lets every request pass until it [watches](SeenGate::watch) a card.
    pub fn new() -> SeenGate {
        SeenGate(Rc::new(GateState {
            in_view: Cell::new(false),
            seen: Cell::new(true),
            held: Cell::new(false),
            observed: Cell::new(false),
        }))
    }

    /// Watches `card`: each time it is seen with a request held, `release` is called (it asks
    /// again for what was held).
    pub fn watch(&self, card: &web_sys::Element, release: impl Fn() + 'static) {
        let gate = self;
        let release = Rc::new(release);
        let (g, r) = (gate.clone(), Rc::clone(&release));
        let observed = on_visibility(card, move |v| {
            g.0.in_view.set(v);
            if v && g.see() {
                r();
            }
        });
        gate.0.observed.set(observed);
        gate.0.seen.set(!observed);
        // Focus inside the card (a keyboard's or an assistive technology's) counts as seen.
        let g = gate.clone();
        listen(card.as_ref(), "focusin", move |_: web_sys::Event| {
            if g.see() {
                release();
            }
        });
    }

    /// New content is offered: seen at once if the card is in view, else once it comes into
    /// view; nothing held.
    pub fn reset(&self) {
        self.0.held.set(false);
        self.0
            .seen
            .set(!self.0.observed.get() || self.0.in_view.get());
    }

    /// Whether a request may go now; if not, it is held until the card is seen.
    pub fn pass(&self) -> bool {
        let seen = self.0.seen.get();
        self.0.held.set(!seen);
        seen
    }

    /// Drops a held request (the card's content is gone).
    pub fn drop_held(&self) {
        self.0.held.set(false);
    }

    /// The card is seen (the user touched it, or it came into view or took the focus): whether
    /// a request was held until now (the caller asks it again).
    pub fn see(&self) -> bool {
        self.0.seen.set(true);
        self.0.held.replace(false)
    }
}

/// `s` escaped for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An object URL of a blob holding `text` with type `mime` (the caller revokes it when the
/// download is replaced).
pub fn object_url(text: &str, mime: &str) -> Option<String> {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let parts = Array::of1(&JsValue::from_str(text));
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).ok()?;
    web_sys::Url::create_object_url_with_blob(&blob).ok()
}
