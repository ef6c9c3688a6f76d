//! `schedlab bench phases LINK`: times the phases (load, simulate, measure) of a flat or mesh
//! share link's experiment over `--runs` runs in this process ([`crate::modes::timing`]) and prints
//! them as JSON — the native side of `scripts/bench-browser.mjs`, whose browser side times
//! the same phases in the page's worker.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::cli::open::envelope_of;
use crate::cli::streams::{emit_line, io_err};
use crate::error::Error;
use crate::modes::envelope::time_envelope;

/// `schedlab bench phases`.
#[derive(Args, Debug)]
pub struct BenchPhasesArgs {
    /// A share link of any mode (or its fragment), or an envelope file.
    pub link: String,
    /// Runs of the experiment (1 to 1000).
    #[arg(long, default_value_t = 10)]
    pub runs: usize,
    /// The SWF trace the experiment reads, if any (read into memory before the timing).
    #[arg(long)]
    pub trace: Option<PathBuf>,
}

/// Times the runs and prints one line of JSON ([`crate::modes::timing::PhaseTimes`]).
pub fn bench_phases_command(a: &BenchPhasesArgs) -> Result<(), Error> {
    let env = envelope_of(&a.link)?;
    let trace = match &a.trace {
        Some(p) => Some((
            p.display().to_string(),
            std::fs::read(p).map_err(|e| io_err(p, e))?,
        )),
        None => None,
    };
    let start = Instant::now();
    let now_ms = || start.elapsed().as_secs_f64() * 1000.0;
    let times = time_envelope(
        &env,
        trace.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
        a.runs,
        &now_ms,
    )
    .map_err(|m| super::traces::cfg_err(format!("bench phases: {m}")))?;
    emit_line(&serde_json::to_string(&times).unwrap_or_default())
}
