//! Share links, the same for every mode: opening the address bar's link as the core's one
//! [`Envelope`] (`#e=`, or an old `#x=`/`#m=`/`#g=` link) for the mode it belongs to
//! ([`open`]), and publishing a run's link ([`publish`]: the link's `href`, its panel shown,
//! the address bar's fragment replaced without a new history entry) and copying a link
//! ([`copy`]).

use crate::modes::envelope::{Envelope, ENVELOPE_PREFIX};
use crate::modes::Mode;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlAnchorElement, HtmlButtonElement, HtmlElement};

/// The address bar's fragment, with its `#` (empty if none).
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Shows `share` with `share_link` pointing at this page with `#fragment`, and writes the
/// fragment into the address bar.
pub fn publish(share: &HtmlElement, share_link: &HtmlAnchorElement, fragment: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let href = window.location().href().unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    share_link.set_href(&format!("{base}#{fragment}"));
    share.set_hidden(false);
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
}

/// The link in `hash` if it belongs to `mode`: `Ok(None)` when there is no link or it is
/// another mode's; `Err` says why a link of this mode cannot be opened. An `#e=` link too
/// damaged to show its mode is reported by the flat mode (the first tab) only.
pub fn open(hash: &str, mode: Mode) -> Result<Option<Envelope>, String> {
    let h = hash.trim_start_matches('#');
    match Envelope::mode_of_fragment(h) {
        Some(m) if m == mode => Envelope::from_fragment(h),
        None if mode == Mode::Flat && h.starts_with(ENVELOPE_PREFIX) => Envelope::from_fragment(h),
        _ => Ok(None),
    }
}

/// `true` when `hash` is a share link of `mode` (for `hashchange`).
pub fn is_link_of(hash: &str, mode: Mode) -> bool {
    Envelope::mode_of_fragment(hash) == Some(mode)
}

/// Copies `text` to the clipboard; `button` then says "Copied" (or how to copy by hand).
pub fn copy(text: &str, button: &HtmlButtonElement) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let clipboard = js_sys::Reflect::get(&window.navigator(), &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| !c.is_undefined() && !c.is_null());
    let write = clipboard.as_ref().and_then(|c| {
        js_sys::Reflect::get(c, &JsValue::from_str("writeText"))
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .and_then(|f| f.call1(c, &JsValue::from_str(text)).ok())
            .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
    });
    let button = button.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let ok = match write {
            Some(p) => JsFuture::from(p).await.is_ok(),
            None => false,
        };
        button.set_text_content(Some(if ok {
            "Copied"
        } else {
            "Copy failed: right-click the link"
        }));
    });
}
