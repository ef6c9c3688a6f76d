//! Chart export links: a canvas as a PNG data URL, and a download link shown with its URL or
//! hidden without one.

use web_sys::{Document, HtmlAnchorElement, HtmlCanvasElement};

use super::by_id;

/// The PNG data URL of the canvas `#canvas_id`, if there is one and it can be read.
pub fn canvas_png(doc: &Document, canvas_id: &str) -> Option<String> {
    by_id::<HtmlCanvasElement>(doc, canvas_id)
        .ok()?
        .to_data_url()
        .ok()
}

/// Points `link` at `url` and shows it; hides it when there is no URL.
pub fn show_link(link: &HtmlAnchorElement, url: Option<String>) {
    match url {
        Some(url) => {
            link.set_href(&url);
            link.set_hidden(false);
        }
        None => link.set_hidden(true),
    }
}
