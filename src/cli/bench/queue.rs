//! `schedlab bench queue`: long queues under EASY and conservative backfilling
//! (the backfilling of Ernemann et al. §III-C and Srinivasan et al. §1). Cases: a 300,000-job Lublin–Feitelson
//! workload compressed by a load factor of 10^12 (every job submitted within the first 10^-4 s,
//! so the queue holds nearly all of them), and the CTC trace at load factor 100. Each case runs
//! in a child process, killed after `--timeout` seconds; prints a Markdown table.

use std::path::PathBuf;

use clap::Args;

use super::traces::print_cases;
use crate::error::Error;

/// `schedlab bench queue`.
#[derive(Args, Debug)]
pub struct BenchQueueArgs {
    /// Folder holding CTC-SP2-1996-3.1-cln.swf.gz.
    #[arg(long, default_value = "../shared/traces")]
    pub traces: PathBuf,
    /// Jobs of the synthetic burst.
    #[arg(long, default_value_t = 300_000)]
    pub jobs: usize,
    /// Comma-separated policies.
    #[arg(long, default_value = "easy,conservative")]
    pub policies: String,
    /// Seconds after which a case is stopped and reported as unfinished.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
}

/// Runs the cases and prints the table.
pub fn bench_queue_command(a: &BenchQueueArgs) -> Result<(), Error> {
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: "current executable".into(),
        message: e.to_string(),
    })?;
    let ctc = a.traces.join("CTC-SP2-1996-3.1-cln.swf.gz");
    let mut cases: Vec<Vec<String>> = Vec::new();
    for p in a.policies.split(',') {
        cases.push(
            [
                "bench",
                "case",
                "--synthetic-jobs",
                &a.jobs.to_string(),
                "--load-factor",
                "1e12",
                "--policy",
                p,
            ]
            .map(String::from)
            .to_vec(),
        );
    }
    for p in a.policies.split(',') {
        cases.push(
            [
                "bench",
                "case",
                "--swf",
                &ctc.display().to_string(),
                "--load-factor",
                "100",
                "--policy",
                p,
            ]
            .map(String::from)
            .to_vec(),
        );
    }
    print_cases(&exe, &cases, Some(a.timeout))
}
