//! Chart export links: a canvas as a PNG data URL (encoded when its link is clicked), and a
//! download link shown with its URL or hidden without one.

use web_sys::{Document, Event, HtmlAnchorElement, HtmlCanvasElement};

use super::by_id;
use crate::web::dom::listen;

/// The PNG data URL of the canvas `#canvas_id`, if there is one and it can be read.
pub fn canvas_png(doc: &Document, canvas_id: &str) -> Option<String> {
    by_id::<HtmlCanvasElement>(doc, canvas_id)
        .ok()?
        .to_data_url()
        .ok()
}

/// Makes `link` download the canvas `#canvas_id` as it is at the moment of the click. The PNG
/// is encoded then, not when the chart is drawn: encoding every chart of a finished run at
/// once held the main thread for tens of milliseconds. Call once per link, when the page is
/// wired; showing and hiding the link is up to the chart's code.
pub fn png_on_click(link: &HtmlAnchorElement, canvas_id: &str) {
    let l = link.clone();
    let canvas_id = canvas_id.to_string();
    listen(link, "click", move |_: Event| {
        if let Some(url) = l
            .owner_document()
            .and_then(|doc| canvas_png(&doc, &canvas_id))
        {
            l.set_href(&url);
        }
    });
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
