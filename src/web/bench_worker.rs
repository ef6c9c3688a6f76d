//! The worker side of `scripts/bench-browser.mjs` (browser vs. native): a
//! [`ToWorker::Bench`](super::protocol::ToWorker::Bench) message times the phases of a flat or mesh share link's experiment with
//! `performance.now()` through [`crate::modes::timing`] — the same calls, in the same order, as
//! `schedlab bench phases` natively — then what only the page's path adds: building the
//! page's report, writing it as JSON, and the whole path of a Run (sliced, with progress
//! messages). Answered by a [`BenchReply`].

use wasm_bindgen::{JsCast, JsValue};

use super::mesh_worker;
use super::protocol::{BenchReply, FromWorker};
use super::worker_core::{activate, is_active, post, run_sliced, stored_trace, NamedTrace};
use crate::modes::envelope::time_envelope;
use crate::modes::envelope::Envelope;
use crate::modes::flat::run;
use crate::modes::timing::PhaseTimes;

/// Handles a [`ToWorker::Bench`](super::protocol::ToWorker::Bench): makes `id` the active
/// run, times it (only the phases when `phases_only`) and posts the reply.
pub fn start(id: u32, link: String, runs: usize, trace: Option<String>, phases_only: bool) {
    activate(id);
    wasm_bindgen_futures::spawn_local(async move {
        match bench(id, &link, runs, trace.as_deref(), phases_only).await {
            Ok(reply) => {
                super::worker_core::cancel(Some(id));
                let json = serde_json::to_string(&reply).unwrap_or_default();
                let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
                let _ = scope.post_message(&JsValue::from_str(&json));
            }
            Err(message) => {
                super::worker_core::cancel(Some(id));
                post(&FromWorker::Error {
                    id: Some(id),
                    message,
                    fatal: false,
                });
            }
        }
    });
}

/// `performance.now()` of the worker (`Date.now()` where there is none).
fn clock() -> impl Fn() -> f64 {
    let perf = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok());
    move || perf.as_ref().map_or_else(js_sys::Date::now, |p| p.now())
}

async fn bench(
    id: u32,
    link: &str,
    runs: usize,
    trace: Option<&str>,
    phases_only: bool,
) -> Result<BenchReply, String> {
    let fragment = link.rsplit_once('#').map_or(link, |(_, f)| f);
    let env = Envelope::from_fragment(fragment)?
        .ok_or_else(|| format!("{link:?} is not a share link"))?;
    let stored: Option<NamedTrace> = stored_trace(trace)?;
    let now = clock();
    let phases: PhaseTimes = time_envelope(
        &env,
        stored.as_ref().map(|(n, b)| (n.as_str(), &b[..])),
        runs,
        &now,
    )?;
    let mut reply = BenchReply {
        kind: "benched".into(),
        id,
        phases,
        report_ms: Vec::with_capacity(runs),
        json_ms: Vec::with_capacity(runs),
        json_bytes: 0,
        page_ms: Vec::with_capacity(runs),
    };
    if phases_only {
        return Ok(reply);
    }
    let input = || {
        stored
            .as_ref()
            .map(|(n, b)| run::TraceInput::from_bytes(n, b))
    };
    match &env {
        Envelope::Flat(s) => {
            let exp = &s.experiment;
            let explain = reply.phases.jobs <= super::protocol::MAX_EXPLAINED_JOBS;
            for _ in 0..runs {
                // The report from a finished run, as run_sliced builds it.
                let prepared = run::prepare(exp, input()).map_err(|e| e.to_string())?;
                let mut sim = run::simulation(exp, &prepared, true);
                if explain {
                    sim = sim.with_explanations();
                }
                let result = sim.run_to_end().map_err(|e| e.to_string())?;
                let output = run::finish(&result, &prepared);
                let t0 = now();
                let report = super::worker_core::page_report(&result, output, explain);
                let t1 = now();
                let json = FromWorker::Done {
                    id,
                    report: Box::new(report.into()),
                }
                .to_json();
                let t2 = now();
                reply.report_ms.push(t1 - t0);
                reply.json_ms.push(t2 - t1);
                reply.json_bytes = json.len();
                // The whole path of a Run message (progress messages go nowhere).
                let t0 = now();
                let report = run_sliced(id, exp, stored.clone(), &|_| {})
                    .await?
                    .ok_or("the benchmark was cancelled")?;
                let json = FromWorker::Done {
                    id,
                    report: Box::new(report.into()),
                }
                .to_json();
                reply.page_ms.push(now() - t0);
                drop(json);
                if !is_active(id) {
                    return Err("the benchmark was cancelled".into());
                }
            }
        }
        Envelope::Mesh(s) => {
            let exp = s
                .experiments()?
                .into_iter()
                .next()
                .ok_or("the mesh link has no experiment")?;
            for _ in 0..runs {
                let output =
                    crate::modes::mesh::run::run_mesh(&exp, input()).map_err(|e| e.to_string())?;
                let t0 = now();
                let report = mesh_worker::page_report(output, false);
                let t1 = now();
                let json = FromWorker::Done {
                    id,
                    report: Box::new(report.into()),
                }
                .to_json();
                let t2 = now();
                reply.report_ms.push(t1 - t0);
                reply.json_ms.push(t2 - t1);
                reply.json_bytes = json.len();
                // The whole path of a mesh Run message.
                let t0 = now();
                let report = mesh_worker::report(&exp, trace, false)?;
                let json = FromWorker::Done {
                    id,
                    report: Box::new(report.into()),
                }
                .to_json();
                reply.page_ms.push(now() - t0);
                drop(json);
            }
        }
        // The phases of grid and moldable links are timed above; their page path is not.
        Envelope::Grid(_) | Envelope::Moldable(_) => {}
    }
    Ok(reply)
}
