//! A panel's error box (`#error`, `#mesh-error`, `#grid-error`: the box and its text) and the
//! inline mark (`aria-invalid`) of the input a [`FieldError`] names. The page shows an error
//! and keeps its previous results.

use web_sys::{Document, Element, Event, HtmlElement};

use super::super::dom::listen;
use super::by_id;
use crate::form::FieldError;

/// The error box of a panel.
#[derive(Clone)]
pub struct ErrorBox {
    root: HtmlElement,
    text: HtmlElement,
    close: Option<Element>,
    /// The panel whose inputs are marked (the `aria-invalid` of its inputs is cleared on
    /// [`ErrorBox::hide`]).
    panel: Option<Element>,
}

impl ErrorBox {
    /// The box `#{id}` with its text `#{id}-text` and close button `#{id}-close` (if any);
    /// marks inputs inside `#{panel}`.
    pub fn find(doc: &Document, id: &str, panel: &str) -> Result<ErrorBox, String> {
        Ok(ErrorBox {
            root: by_id(doc, id)?,
            text: by_id(doc, &format!("{id}-text"))?,
            close: doc.get_element_by_id(&format!("{id}-close")),
            panel: doc.get_element_by_id(panel),
        })
    }

    /// The same box, its close button wired to hide it (once per page).
    pub fn wired(self) -> ErrorBox {
        if let Some(close) = &self.close {
            let b = self.clone();
            listen(close.as_ref(), "click", move |_: Event| b.hide());
        }
        self
    }

    /// Shows `message`.
    pub fn show(&self, message: &str) {
        self.text.set_text_content(Some(message));
        self.root.set_hidden(false);
    }

    /// Shows a form error and marks its input (by id, else by `data-testid`) invalid.
    pub fn show_field(&self, e: &FieldError) {
        self.show(&e.message);
        let Some(panel) = &self.panel else {
            return;
        };
        let selector = format!("#{0}, [data-testid=\"{0}\"]", e.field);
        if let Ok(Some(input)) = panel.query_selector(&selector) {
            let _ = input.set_attribute("aria-invalid", "true");
        }
    }

    /// Hides the box and clears the inputs' marks.
    pub fn hide(&self) {
        self.root.set_hidden(true);
        let Some(panel) = &self.panel else {
            return;
        };
        if let Ok(marked) = panel.query_selector_all("[aria-invalid]") {
            for i in 0..marked.length() {
                if let Some(Ok(e)) = marked
                    .item(i)
                    .map(wasm_bindgen::JsCast::dyn_into::<Element>)
                {
                    let _ = e.remove_attribute("aria-invalid");
                }
            }
        }
    }
}
