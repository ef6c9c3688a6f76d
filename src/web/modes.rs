//! The mode tabs in the top bar: "Flat machine" (the core experiment, [`super::page`]),
//! "2D mesh" (Ababneh & Bani-Mohammad; Mache, Lo, Garg; Liu, Hsu, Wu), "Grid" (Ernemann et
//! al.), "Moldable jobs" (Srinivasan et al.) and
//! "Exercises" ([`super::exercise_page`]). Each mode owns one panel of `index.html`
//! (`#flat-mode`, `#mesh-mode`, `#grid-mode`, `#moldable-mode`, `#exercises-mode`); switching
//! shows its panel (firing `schedlab-shown` on it: the mesh, grid and moldable tabs start
//! their workers the first time they are shown), hides the others and sets `body[data-mode]`.
//! A share link opens its own mode (the `mode` of an `#e=` link; old links by prefix: `#x=`
//! flat, `#m=` mesh, `#g=` grid; an exercise link `#ex=` the Exercises tab).
//!
//! The tabs follow the ARIA tabs pattern: `role="tablist"`/`tab`/`tabpanel`, `aria-selected`
//! and `aria-controls` on each tab, a roving `tabindex` (only the selected tab is in the Tab
//! order), and Left/Right (wrapping), Home and End move to another tab and open it.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Document, HtmlElement};

/// The modes, in tab order.
pub const MODES: [&str; 5] = ["flat", "mesh", "grid", "moldable", "exercises"];

/// Shows mode `mode` (one of [`MODES`]); unknown names are ignored.
pub fn show_mode(doc: &Document, mode: &str) {
    if !MODES.contains(&mode) {
        return;
    }
    for m in MODES {
        let on = m == mode;
        if let Some(panel) = doc.get_element_by_id(&format!("{m}-mode")) {
            if let Ok(panel) = panel.dyn_into::<HtmlElement>() {
                panel.set_hidden(!on);
                if on {
                    // A tab starts its worker the first time it is shown
                    // (`kit::tab::spawn_worker_when_shown`).
                    if let Ok(shown) = web_sys::Event::new(super::kit::tab::SHOWN_EVENT) {
                        let _ = panel.dispatch_event(&shown);
                    }
                }
            }
        }
        if let Some(tab) = doc.get_element_by_id(&format!("mode-{m}")) {
            let _ = tab.set_attribute("aria-selected", if on { "true" } else { "false" });
            let _ = tab.set_attribute("tabindex", if on { "0" } else { "-1" });
        }
    }
    if let Some(body) = doc.body() {
        let _ = body.set_attribute("data-mode", mode);
    }
}

/// The mode a share-link fragment asks for (`#e=` by its `mode`, or an old `#x=` flat, `#m=`
/// mesh, `#g=` grid; `#ex=` the exercises); other fragments (`#about`) ask for none.
pub fn mode_of_fragment(hash: &str) -> Option<&'static str> {
    if hash
        .trim_start_matches('#')
        .starts_with(crate::exercise::EXERCISE_PREFIX)
    {
        return Some("exercises");
    }
    crate::modes::envelope::Envelope::mode_of_fragment(hash).map(crate::modes::Mode::as_str)
}

/// The tab a key moves to from the tab at `index` of [`MODES`]: Left/Right (wrapping),
/// Home, End; `None` for any other key.
pub fn tab_for_key(index: usize, key: &str) -> Option<usize> {
    let n = MODES.len();
    match key {
        "ArrowRight" => Some((index + 1) % n),
        "ArrowLeft" => Some((index + n - 1) % n),
        "Home" => Some(0),
        "End" => Some(n - 1),
        _ => None,
    }
}

/// Wires the tab buttons (click, and the arrow keys, Home and End) and opens the mode of the
/// current URL fragment.
pub fn wire(doc: &Document) {
    for (i, m) in MODES.into_iter().enumerate() {
        let Some(tab) = doc.get_element_by_id(&format!("mode-{m}")) else {
            continue;
        };
        let d = doc.clone();
        let cb = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| show_mode(&d, m));
        let _ = tab.add_event_listener_with_callback("click", cb.as_ref().unchecked_ref());
        cb.forget();
        let d = doc.clone();
        let keys =
            Closure::<dyn FnMut(web_sys::KeyboardEvent)>::new(move |ev: web_sys::KeyboardEvent| {
                let Some(to) = tab_for_key(i, &ev.key()) else {
                    return;
                };
                ev.prevent_default();
                let next = MODES[to];
                show_mode(&d, next);
                if let Some(t) = d.get_element_by_id(&format!("mode-{next}")) {
                    if let Ok(t) = t.dyn_into::<HtmlElement>() {
                        let _ = t.focus();
                    }
                }
            });
        let _ = tab.add_event_listener_with_callback("keydown", keys.as_ref().unchecked_ref());
        keys.forget();
    }
    let hash = || {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default()
    };
    if let Some(m) = mode_of_fragment(&hash()) {
        show_mode(doc, m);
    }
    if let Some(w) = web_sys::window() {
        let d = doc.clone();
        let cb = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            if let Some(m) = mode_of_fragment(&hash()) {
                show_mode(&d, m);
            }
        });
        let _ = w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
        cb.forget();
    }
}
