//! The simulation worker (a dedicated Web Worker running the `worker` binary): the entry point
//! and the one dispatch of the page's messages. The pieces every kind of run shares — kept
//! traces, the active run, slicing, posting, the flat run's report — are
//! [`super::worker_core`] (re-exported here); each mode's run is its own `*_worker` module.

use std::cell::Cell;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, FileReaderSync, MessageEvent};

use super::kit::upload::unreadable_message;
use super::protocol::{FromWorker, RunReport, ToWorker};
pub use super::worker_core::*;
use super::worker_core::{load_trace, scope, ACTIVE};
use super::worker_link::js_message;
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
    let (text, file) = if let Some(s) = data.as_string() {
        (s, None)
    } else if Array::is_array(&data) {
        let arr: Array = data.unchecked_into();
        let file = arr.get(1).dyn_into::<Blob>().ok();
        (arr.get(0).as_string().unwrap_or_default(), file)
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
        ToWorker::Trace { name } => match read_file(file.as_ref()) {
            Ok(bytes) => load_trace(name, bytes),
            Err(why) => post(&FromWorker::Error {
                id: None,
                message: unreadable_message(&name, &why),
                fatal: false,
            }),
        },
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

/// Bytes read at a time from an uploaded file ([`read_file`]).
const READ_PIECE: f64 = (1 << 20) as f64;

/// The bytes of an uploaded file (the page posts the browser's `File`, never its bytes), read
/// synchronously a piece at a time, each piece copied into wasm memory, so no JavaScript copy of
/// the whole file is made. `Err`: why it could not be read (none posted, too large, or the
/// browser's reason).
fn read_file(file: Option<&Blob>) -> Result<Vec<u8>, String> {
    let file = file.ok_or_else(|| "no file came with the upload".to_string())?;
    let size = file.size();
    if size > crate::limits::MAX_UPLOAD_BYTES as f64 {
        return Err(format!(
            "it is larger than {} bytes",
            crate::limits::MAX_UPLOAD_BYTES
        ));
    }
    let reader = FileReaderSync::new().map_err(|e| js_message(&e))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size as usize)
        .map_err(|_| "there is not enough memory to read it".to_string())?;
    bytes.resize(size as usize, 0);
    let mut at = 0usize;
    while at < bytes.len() {
        let end = (at + READ_PIECE as usize).min(bytes.len());
        let piece = file
            .slice_with_f64_and_f64(at as f64, end as f64)
            .and_then(|b| reader.read_as_array_buffer(&b))
            .map_err(|e| js_message(&e))?;
        let piece = Uint8Array::new(&piece);
        if piece.length() as usize != end - at {
            return Err("the file changed while it was read".to_string());
        }
        piece.copy_to(&mut bytes[at..end]);
        at = end;
    }
    Ok(bytes)
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
