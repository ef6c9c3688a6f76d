//! A panel's Run form and Cancel button: submitting the form (Enter in a field, or Run) runs
//! without reloading the page; Cancel cancels.

use web_sys::{Event, EventTarget};

use super::super::dom::listen;

/// Wires `form`'s submit to `run` and `cancel`'s click to `on_cancel`.
pub fn wire_run_cancel(
    form: &EventTarget,
    cancel: &EventTarget,
    run: impl Fn() + 'static,
    on_cancel: impl Fn() + 'static,
) {
    listen(form, "submit", move |ev: Event| {
        ev.prevent_default();
        run();
    });
    listen(cancel, "click", move |_: Event| on_cancel());
}
