//! How a page talks to a simulation worker ([`super::worker`]): start one from Trunk's loader
//! shim with its `message` and `error` handlers, post JSON messages ([`super::protocol`]) and
//! trace uploads (the file itself, which the worker reads). Shared by the modes
//! ([`super::page`], [`super::mesh_page`], [`super::grid_page`], [`super::moldable_page`]),
//! each of which runs its own worker.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker};

use super::protocol::{Beside, FromWorker, ToWorker};

/// Script of the worker, as written by Trunk's loader shim for the `worker` binary.
pub const WORKER_URL: &str = "./worker_loader.js";

/// A JavaScript exception's message.
pub fn js_message(v: &JsValue) -> String {
    v.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| v.as_string())
        .unwrap_or_else(|| format!("{v:?}"))
}

/// Starts a worker. `on_message` gets every message, parsed (or the reason it could not be);
/// `on_error`, if any, the message of a failure to load or run the worker script. `Err` (the
/// exception's message) when the browser refuses to start it.
pub fn start_worker(
    mut on_message: impl FnMut(Result<FromWorker, String>) + 'static,
    on_error: Option<Box<dyn FnMut(String)>>,
) -> Result<Worker, String> {
    let worker = Worker::new(WORKER_URL).map_err(|e| js_message(&e))?;
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        if Array::is_array(&data) {
            // A message with bytes beside its JSON: a run's schedule.
            let arr: Array = data.unchecked_into();
            let text = arr.get(0).as_string().unwrap_or_default();
            let msg = FromWorker::from_json(&text).map(|m| match m {
                FromWorker::Schedule { id, .. } => FromWorker::Schedule {
                    id,
                    bytes: arr
                        .get(1)
                        .dyn_into::<Uint8Array>()
                        .map(beside)
                        .unwrap_or_default(),
                },
                other => other,
            });
            on_message(msg);
            return;
        }
        let text = data.as_string().unwrap_or_default();
        on_message(FromWorker::from_json(&text));
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    if let Some(mut on_error) = on_error {
        let handler = Closure::<dyn FnMut(ErrorEvent)>::new(move |ev: ErrorEvent| {
            ev.prevent_default();
            on_error(ev.message());
        });
        worker.set_onerror(Some(handler.as_ref().unchecked_ref()));
        handler.forget();
    }
    Ok(worker)
}

/// A message's bytes left in their JavaScript array, read a piece at a time (each piece copied
/// from a view on the array straight into the reader's buffer).
fn beside(a: Uint8Array) -> Beside {
    let len = a.length() as usize;
    Beside::new(len, move |at, dst| {
        a.subarray(at as u32, (at + dst.len()) as u32).copy_to(dst)
    })
}

/// Posts `msg` as JSON.
pub fn post_to(w: &Worker, msg: &ToWorker) {
    let _ = w.post_message(&JsValue::from_str(&msg.to_json()));
}

/// Posts a trace upload: `[ToWorker::Trace JSON, file]`. The file travels as a handle (a
/// structured clone of a `Blob` copies no bytes): the worker reads it, the page never does.
pub fn post_trace_to(w: &Worker, name: &str, file: &Blob) {
    let arr = Array::new();
    arr.push(&JsValue::from_str(
        &ToWorker::Trace {
            name: name.to_string(),
        }
        .to_json(),
    ));
    arr.push(file);
    let _ = w.post_message(&arr);
}

/// A page mode's simulation worker: started, posted to, terminated (each mode owns one, so the
/// modes never share state). Posting to a worker that is not running does nothing.
#[derive(Default)]
pub struct ModeWorker {
    worker: std::cell::RefCell<Option<Worker>>,
}

impl ModeWorker {
    /// Starts the worker with [`start_worker`]'s handlers (any previous one is terminated);
    /// `Err` (the exception's message) when the browser refuses to start it.
    pub fn start(
        &self,
        on_message: impl FnMut(Result<FromWorker, String>) + 'static,
        on_error: Option<Box<dyn FnMut(String)>>,
    ) -> Result<(), String> {
        let w = start_worker(on_message, on_error)?;
        self.terminate();
        *self.worker.borrow_mut() = Some(w);
        Ok(())
    }

    /// Starts the worker of a panel whose problems go to `errors`: its messages to
    /// `on_message` (an unreadable one is shown), a failure to load or run the worker script
    /// is shown and calls `on_failed` (the panel ends its run), a refusal to start is shown.
    pub fn start_in_panel(
        &self,
        errors: &super::kit::error_box::ErrorBox,
        on_message: impl Fn(FromWorker) + 'static,
        on_failed: impl Fn() + 'static,
    ) {
        let shown = errors.clone();
        let on_message = move |msg: Result<FromWorker, String>| match msg {
            Ok(msg) => on_message(msg),
            Err(m) => shown.show(&m),
        };
        let shown = errors.clone();
        let on_error = move |message: String| {
            shown.show(&format!("The simulator failed to load: {message}"));
            on_failed();
        };
        if let Err(e) = self.start(on_message, Some(Box::new(on_error))) {
            errors.show(&format!("The simulator could not be started: {e}"));
        }
    }

    /// Posts `msg` as JSON.
    pub fn post(&self, msg: &ToWorker) {
        if let Some(w) = self.worker.borrow().as_ref() {
            post_to(w, msg);
        }
    }

    /// Posts a trace upload: the file, which the worker reads ([`post_trace_to`]).
    pub fn post_trace(&self, name: &str, file: &Blob) {
        if let Some(w) = self.worker.borrow().as_ref() {
            post_trace_to(w, name, file);
        }
    }

    /// Stops the worker, if one runs.
    pub fn terminate(&self) {
        if let Some(w) = self.worker.borrow_mut().take() {
            w.terminate();
        }
    }
}
