//! Small DOM helpers shared by the three modes' pages: event listeners that live as long as
//! the page, work deferred to a later main-thread task, an element's coming into and leaving
//! the viewport, HTML escaping for text put into markup, and object URLs for downloads.

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
