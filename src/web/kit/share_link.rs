//! Publishing a run's share link, the same for the three modes: the link's `href` (this page's
//! address with the run's fragment), its panel shown, and the address bar's fragment replaced
//! without a new history entry. The fragments themselves come from the core's codecs
//! ([`crate::share`], [`crate::mesh_share`], [`crate::grid::view::GridShare`]).

use wasm_bindgen::JsValue;
use web_sys::{HtmlAnchorElement, HtmlElement};

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
