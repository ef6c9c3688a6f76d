//! A panel's Run form and Cancel button: submitting the form (Enter in a field, or Run) runs
//! without reloading the page; Cancel cancels.

use std::rc::Rc;

use web_sys::{Event, EventTarget};

use super::super::dom::listen;

/// Wires `form`'s submit to `run(app)` and `cancel`'s click to `on_cancel(app)`.
pub fn wire_run_cancel<A: 'static>(
    app: &Rc<A>,
    form: &EventTarget,
    cancel: &EventTarget,
    run: impl Fn(&Rc<A>) + 'static,
    on_cancel: impl Fn(&A) + 'static,
) {
    let a = Rc::clone(app);
    listen(form, "submit", move |ev: Event| {
        ev.prevent_default();
        run(&a);
    });
    let a = Rc::clone(app);
    listen(cancel, "click", move |_: Event| on_cancel(&a));
}
