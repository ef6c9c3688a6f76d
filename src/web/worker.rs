//! The simulation worker (a dedicated Web Worker running the `worker` binary): the entry point
//! and the one dispatch of the page's messages. The pieces every kind of run shares — kept
//! traces, the active run, slicing, posting, the flat run's report — are
//! [`super::worker_core`] (re-exported here); each mode's run is its own `*_worker` module.

use std::cell::Cell;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::MessageEvent;

use super::protocol::{FromWorker, RunReport, ToWorker};
pub use super::worker_core::*;
use super::worker_core::{load_trace, scope, ACTIVE};
use crate::modes::flat::spec::Experiment;
use crate::modes::Envelope;

/// Entry point of the `worker` binary: installs the panic hooks and the message handler, then
/// announces [`FromWorker::Ready`].
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        post(&FromWorker::Error {
            id: ACTIVE.with(Cell::get),
            message: format!("the simulator crashed: {info}"),
            fatal: true,
        });
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(on_message);
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&FromWorker::Ready {
        version: env!("CARGO_PKG_VERSION").to_string(),
    });
}

fn on_message(ev: MessageEvent) {
    let data = ev.data();
    let (text, bytes) = if let Some(s) = data.as_string() {
        (s, None)
    } else if Array::is_array(&data) {
        let arr: Array = data.unchecked_into();
        let bytes = arr.get(1).dyn_into::<Uint8Array>().ok().map(|a| a.to_vec());
        (arr.get(0).as_string().unwrap_or_default(), bytes)
    } else {
        (String::new(), None)
    };
    let msg = match ToWorker::from_json(&text) {
        Ok(m) => m,
        Err(message) => {
            post(&FromWorker::Error {
                id: None,
                message,
                fatal: false,
            });
            return;
        }
    };
    match msg {
        ToWorker::Trace { name } => load_trace(name, bytes.unwrap_or_default()),
        ToWorker::Run {
            id,
            envelope,
            traces,
            max_work,
            lite,
        } => {
            let trace = traces.first().cloned();
            match *envelope {
                Envelope::Flat(s) => run_flat(id, s.experiment, trace, max_work),
                Envelope::Mesh(s) => super::mesh_worker::start(id, s.experiment, trace, lite),
                Envelope::Grid(s) => super::grid_worker::start(id, s.experiment, traces),
                Envelope::Moldable(s) => super::moldable_worker::start(id, s, trace),
            }
        }
        ToWorker::Cancel { id } => cancel(id),
        msg @ ToWorker::RunExercise { .. } => super::exercise_worker::handle(msg),
        ToWorker::Bench {
            id,
            link,
            runs,
            trace,
            phases_only,
        } => super::bench_worker::start(id, link, runs, trace, phases_only),
        ToWorker::Schedule { id } => match schedule(id) {
            Ok(bytes) => post_schedule(id, &bytes),
            Err(message) => post(&FromWorker::Error {
                id: None,
                message,
                fatal: false,
            }),
        },
        ToWorker::Compare { a, b, sort } => post(&match super::compare_worker::view(a, b, sort) {
            Ok(view) => FromWorker::Compared {
                a,
                b,
                view: Box::new(view),
            },
            Err(message) => FromWorker::CompareFailed { a, b, message },
        }),
        ToWorker::CompareCsv { a, b } => post(&match super::compare_worker::csv(a, b) {
            Ok(text) => FromWorker::ComparedCsv { a, b, text },
            Err(message) => FromWorker::CompareFailed { a, b, message },
        }),
        ToWorker::ReplayWindow { id, t } => post(&match super::replay_worker::window(id, t) {
            Ok(window) => FromWorker::ReplayWindow {
                id,
                window: Box::new(window),
            },
            Err(message) => FromWorker::ReplayFailed { id, message },
        }),
        ToWorker::Export { id, format } => post(&match export(id, format) {
            Ok(text) => FromWorker::Exported { id, format, text },
            Err(message) => FromWorker::Error {
                id: None,
                message,
                fatal: false,
            },
        }),
    }
}

/// Starts a flat [`ToWorker::Run`]: makes `id` the active run (replacing any other), holds it
/// when its estimate is above `max_work`, else runs it in slices and posts its outcome.
fn run_flat(id: u32, experiment: Experiment, trace: Option<String>, max_work: Option<f64>) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = match stored_trace(trace.as_deref()) {
            Ok(stored) => run_bounded(id, &experiment, stored, max_work, &post).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(Bounded::Held(message)) => {
                cancel(Some(id));
                post(&FromWorker::Held { id, message });
            }
            Ok(Bounded::Ran(outcome)) => post_outcome(id, Ok(outcome.map(|r| *r))),
            Err(e) => post_outcome::<RunReport>(id, Err(e)),
        }
    });
}
