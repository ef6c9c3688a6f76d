//! The simulation worker (a dedicated Web Worker running the `worker` binary).
//!
//! It keeps the last successfully read trace, runs one experiment at a time through the same
//! [`crate::run`] functions as the CLI, and simulates in slices of about
//! [`SLICE_MS`] milliseconds: between slices it yields to the event loop (a `MessageChannel`
//! round trip, which unlike a resolved promise lets queued `message` events — a
//! [`ToWorker::Cancel`] — run first, and unlike `setTimeout(0)` is not clamped to 4 ms).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Array, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel, MessageEvent};

use super::format;
use super::protocol::{FromWorker, RunReport, ToWorker, TraceInfo, MAX_JOB_RECORDS};
use crate::config::{Experiment, MachineSpec};
use crate::run::{self, TraceInput};
use crate::workload::swf::{read_swf_bytes, ReadOptions};

/// Target wall-clock length of one simulation slice, milliseconds.
pub const SLICE_MS: f64 = 30.0;
/// Minimum interval between two progress messages, milliseconds.
pub const PROGRESS_MS: f64 = 100.0;
/// Instants simulated between two clock readings.
const INSTANTS_PER_CHECK: usize = 256;

/// A trace kept by the worker.
struct StoredTrace {
    name: String,
    bytes: Rc<[u8]>,
}

/// A trace file: its name (for messages) and its bytes (plain or gzip SWF).
pub type NamedTrace = (String, Rc<[u8]>);

/// The channel used to yield to the event loop, with its `message` handler.
type YieldChannel = (MessageChannel, Closure<dyn FnMut(MessageEvent)>);

thread_local! {
    static TRACE: RefCell<Option<StoredTrace>> = const { RefCell::new(None) };
    /// The run allowed to continue; cancelling clears it.
    static ACTIVE: Cell<Option<u32>> = const { Cell::new(None) };
    /// Channel used to yield to the event loop (created on first use).
    static YIELD: RefCell<Option<YieldChannel>> = const { RefCell::new(None) };
    /// Resolvers of the pending yields, oldest first (one channel message wakes one).
    static YIELD_WAITERS: RefCell<VecDeque<js_sys::Function>> = const { RefCell::new(VecDeque::new()) };
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Posts a message to the page.
pub fn post(msg: &FromWorker) {
    let _ = scope().post_message(&JsValue::from_str(&msg.to_json()));
}

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
            experiment,
            trace,
        } => {
            // A new run replaces any run still going.
            activate(id);
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = match stored_trace(trace.as_deref()) {
                    Ok(input) => run_sliced(id, &experiment, input, &post).await,
                    Err(e) => Err(e),
                };
                let msg = match outcome {
                    Ok(Some(report)) => FromWorker::Done {
                        id,
                        report: Box::new(report),
                    },
                    Ok(None) => FromWorker::Cancelled { id },
                    Err(message) => FromWorker::Error {
                        id: Some(id),
                        message,
                        fatal: false,
                    },
                };
                ACTIVE.with(|a| {
                    if a.get() == Some(id) {
                        a.set(None);
                    }
                });
                post(&msg);
            });
        }
        ToWorker::Cancel { id } => cancel(id),
    }
}

/// Makes `id` the run allowed to go on (any other run stops at its next slice boundary).
pub fn activate(id: u32) {
    ACTIVE.with(|a| a.set(Some(id)));
}

/// Stops run `id` (any run when `None`) at its next slice boundary.
pub fn cancel(id: Option<u32>) {
    ACTIVE.with(|a| {
        if id.is_none() || a.get() == id {
            a.set(None);
        }
    });
}

/// The stored trace called `name`, if a name is given.
fn stored_trace(name: Option<&str>) -> Result<Option<NamedTrace>, String> {
    let Some(want) = name else {
        return Ok(None);
    };
    TRACE
        .with(|t| {
            t.borrow()
                .as_ref()
                .filter(|s| s.name == want)
                .map(|s| (s.name.clone(), Rc::clone(&s.bytes)))
        })
        .map(Some)
        .ok_or_else(|| format!("the trace {want:?} is not loaded; upload it again"))
}

/// Reads an uploaded trace once to check it and describe it; keeps it only if it parses.
fn load_trace(name: String, bytes: Vec<u8>) {
    let opts = ReadOptions {
        source: name.clone(),
        ..ReadOptions::default()
    };
    match read_swf_bytes(&bytes, &opts) {
        Ok(w) => {
            let header_procs = w
                .header
                .max_procs
                .filter(|&p| p > 0)
                .or(w.header.max_nodes.filter(|&p| p > 0));
            let info = TraceInfo {
                name: name.clone(),
                bytes: bytes.len(),
                jobs: w.jobs.len(),
                dropped: w.dropped.total(),
                max_job_procs: w.max_procs(),
                header_procs,
            };
            TRACE.with(|t| {
                *t.borrow_mut() = Some(StoredTrace {
                    name,
                    bytes: bytes.into(),
                })
            });
            post(&FromWorker::TraceLoaded(info));
        }
        Err(e) => post(&FromWorker::Error {
            id: None,
            message: e.to_string(),
            fatal: false,
        }),
    }
}

/// Lets the event loop run queued tasks (incoming messages) before the next slice.
async fn yield_to_event_loop() {
    let promise = Promise::new(&mut |resolve, _reject| {
        YIELD_WAITERS.with(|w| w.borrow_mut().push_back(resolve));
        YIELD.with(|y| {
            let mut y = y.borrow_mut();
            if y.is_none() {
                if let Ok(channel) = MessageChannel::new() {
                    let wake = Closure::<dyn FnMut(MessageEvent)>::new(|_ev: MessageEvent| {
                        if let Some(f) = YIELD_WAITERS.with(|w| w.borrow_mut().pop_front()) {
                            let _ = f.call0(&JsValue::NULL);
                        }
                    });
                    channel
                        .port1()
                        .set_onmessage(Some(wake.as_ref().unchecked_ref()));
                    *y = Some((channel, wake));
                }
            }
            match y.as_ref() {
                Some((channel, _)) => {
                    let _ = channel.port2().post_message(&JsValue::NULL);
                }
                // No channel: resolve at once (a microtask; cancellation then waits for the end).
                None => {
                    if let Some(f) = YIELD_WAITERS.with(|w| w.borrow_mut().pop_front()) {
                        let _ = f.call0(&JsValue::NULL);
                    }
                }
            }
        });
    });
    let _ = JsFuture::from(promise).await;
}

fn is_active(id: u32) -> bool {
    ACTIVE.with(Cell::get) == Some(id)
}

/// Runs experiment `exp` (on the trace `(name, bytes)` for SWF workloads) in slices, passing
/// [`FromWorker::Progress`] messages to `report` at most every [`PROGRESS_MS`], and stops at a
/// slice boundary once `id` is no longer the active run (see [`activate`], [`cancel`]).
/// `Ok(None)` when cancelled. The numbers are those of [`run::run_experiment`].
pub async fn run_sliced(
    id: u32,
    exp: &Experiment,
    trace: Option<NamedTrace>,
    report: &dyn Fn(&FromWorker),
) -> Result<Option<RunReport>, String> {
    let t0 = now_ms();
    let stored = trace;
    let input = stored
        .as_ref()
        .map(|(name, bytes)| TraceInput::from_bytes(name, bytes));
    let prepared = run::prepare(exp, input).map_err(|e| e.to_string())?;
    if let MachineSpec::Flat { procs: Some(p) } = exp.machine {
        let too_large = prepared.workload.dropped.too_large;
        if too_large > 0 {
            return Err(format!(
                "The machine ({} processors) is smaller than {} of the jobs. Enlarge it, or \
                 leave the machine size empty to use the trace's.",
                format::count(u64::from(p)),
                format::count(too_large as u64)
            ));
        }
    }
    let mut sim = run::simulation(exp, &prepared, false);
    let progress = |sim: &crate::sim::Simulation| {
        let p = sim.progress();
        report(&FromWorker::Progress {
            id,
            completed: p.completed,
            total: p.total,
            sim_time: p.now,
        });
    };
    progress(&sim);
    let mut last_progress = now_ms();
    loop {
        let slice_start = now_ms();
        let mut finished = false;
        while now_ms() - slice_start < SLICE_MS {
            if sim
                .step_instants(INSTANTS_PER_CHECK)
                .map_err(|e| e.to_string())?
            {
                finished = true;
                break;
            }
        }
        if finished {
            break;
        }
        if now_ms() - last_progress >= PROGRESS_MS {
            progress(&sim);
            last_progress = now_ms();
        }
        yield_to_event_loop().await;
        if !is_active(id) {
            return Ok(None);
        }
    }
    progress(&sim);
    let result = sim.into_result();
    let output = run::finish(&result, &prepared);
    let jobs = (output.jobs.len() <= MAX_JOB_RECORDS).then(|| output.jobs.clone());
    Ok(Some(RunReport {
        output,
        jobs,
        wall_ms: now_ms() - t0,
    }))
}
