//! `schedlab reproduce mc-elongated [--json]`: prints the Mache et al. reproduction of
//! [`crate::reproduce::mc_elongated`] (Table 2, Figs. 9–10, the Workload II stand-in) as tables
//! next to the paper's numbers, or as JSON rows.

use super::streams::emit;
use crate::error::Error;
use crate::modes::mesh::spec::ContentionModel;
use crate::reproduce::mc_elongated::{
    self, paper_spread, spread, McElongatedReproOutput, SdscPart, COMPUTE, KAPPA, RATIOS,
    REPLICATIONS, SDSC_DAYS, SDSC_RATIOS, SDSC_TRACE, SEED, STRATEGIES, TABLE2, TARGET_UTIL,
};
use crate::reproduce::stats::{paired_ranks, ranks, MeanCi};

/// Options of `reproduce mc-elongated`.
#[derive(Clone, Debug)]
pub struct McElongatedReproOptions {
    /// JSON rows instead of tables.
    pub json: bool,
    /// Worker threads.
    pub threads: usize,
    /// Folder of the SWF traces (the SDSC Paragon part runs when its trace is there).
    pub traces: std::path::PathBuf,
    /// The contention model (default [`mc_elongated::MODEL`]).
    pub model: ContentionModel,
}

/// Appends a formatted line to a `String`.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// Runs the reproduction and prints it.
pub fn reproduce(o: &McElongatedReproOptions) -> Result<(), Error> {
    let output = mc_elongated::reproduce(o.model, o.threads, &o.traces)?;
    let mut out = String::new();
    if o.json {
        return super::streams::emit_json_lines(output.rows());
    }
    print_table2(&output, &mut out);
    print_replications(&output, &mut out);
    print_sdsc(&output.sdsc, &mut out);
    emit(&out)
}

fn print_table2(output: &McElongatedReproOutput, out: &mut String) {
    let model = match output.model {
        ContentionModel::Flow => format!("flow model, κ = {KAPPA}"),
        ContentionModel::Separated => {
            format!("separated-classes model, κ = {KAPPA}, σ = {COMPUTE}")
        }
        ContentionModel::Wormhole => {
            let w = mc_elongated::wormhole(0.0);
            format!(
                "wormhole model, {}-flit packets, {} s flits, a round per {} s",
                w.packet_flits, w.flit_seconds, w.round_seconds
            )
        }
    };
    outln!(
        out,
        "Mache et al. Table 2 ({model}, FCFS, utilisation target {TARGET_UTIL})"
    );
    for (&r, (ia, sums)) in &output.sweep {
        let services: Vec<f64> = sums.iter().map(|s| s.mean_service).collect();
        let rk = ranks(&services);
        outln!(
            out,
            "\n{:>3} % I/O — mean interarrival {:.1}",
            libm::round(RATIOS[r] * 100.0),
            ia
        );
        outln!(
            out,
            "{:<14} {:>10} {:>4} {:>9} {:>4} {:>6} {:>9} {:>8} {:>8}",
            "strategy",
            "service",
            "rank",
            "paper",
            "rank",
            "util",
            "nodes_aff",
            "balance",
            "sys_bal"
        );
        for (k, s) in sums.iter().enumerate() {
            let (pt, pr) = TABLE2[k][r];
            outln!(
                out,
                "{:<14} {:>10.1} {:>4} {:>9.1} {:>4} {:>6.3} {:>9.1} {:>8.2} {:>8.2}",
                STRATEGIES[k].as_str(),
                s.mean_service,
                rk[k],
                pt,
                pr,
                s.utilization,
                s.mean_nodes_affected,
                s.mean_balance,
                s.mean_system_balance
            );
        }
    }
}

/// Means over the replications with 95 % intervals, ranks claimed only where intervals
/// separate, and the spread of the strategies next to the paper's.
fn print_replications(output: &McElongatedReproOutput, out: &mut String) {
    outln!(
        out,
        "\nTable 2 over {REPLICATIONS} replications (seeds {SEED}…, the same for every strategy; \
         rank = 1 + strategies faster with the 95 % interval of the paired differences below \
         zero; equal ranks = tied within noise)"
    );
    for (&r, per) in &output.replications {
        let cis: Vec<MeanCi> = per.iter().map(|v| MeanCi::of(v)).collect();
        let rk = paired_ranks(per);
        let means: Vec<f64> = cis.iter().map(|c| c.mean).collect();
        outln!(
            out,
            "\n{:>3} % I/O — spread {:.1} % (paper {:.1} %)",
            libm::round(RATIOS[r] * 100.0),
            spread(&means),
            paper_spread(r)
        );
        for (k, c) in cis.iter().enumerate() {
            let (pt, pr) = TABLE2[k][r];
            outln!(
                out,
                "{:<14} {:>10.1} ± {:>7.1} {:>4} {:>9.1} {:>4}",
                STRATEGIES[k].as_str(),
                c.mean,
                c.half_width,
                rk[k],
                pt,
                pr
            );
        }
    }
}

/// The SDSC part's text tables; a note when the trace is missing.
fn print_sdsc(part: &SdscPart, out: &mut String) {
    let results = match part {
        SdscPart::Ran(results) => results,
        SdscPart::Skipped { path, reason } => {
            outln!(
                out,
                "\nWorkload II (SDSC Paragon): skipped, {path} cannot be read: {reason}"
            );
            return;
        }
    };
    outln!(
        out,
        "\nWorkload II stand-in: first {SDSC_DAYS} days of {SDSC_TRACE} on 16 × 22 (paper: \
         no numbers, \"very similar\" to Table 2)"
    );
    for (&r, (lf, outs)) in results {
        let pct = libm::round(SDSC_RATIOS[r] * 100.0) as u32;
        let services: Vec<f64> = outs.iter().map(|x| x.mesh.mean_service).collect();
        let rk = ranks(&services);
        outln!(
            out,
            "\n{pct:>3} % I/O — load factor {lf:.2}, {} jobs",
            outs.first().map_or(0, |x| x.summary.jobs)
        );
        outln!(
            out,
            "{:<14} {:>10} {:>4} {:>6} {:>9} {:>8}",
            "strategy",
            "service",
            "rank",
            "util",
            "nodes_aff",
            "balance"
        );
        for (k, x) in outs.iter().enumerate() {
            outln!(
                out,
                "{:<14} {:>10.1} {:>4} {:>6.3} {:>9.1} {:>8.2}",
                STRATEGIES[k].as_str(),
                x.mesh.mean_service,
                rk[k],
                x.summary.utilization,
                x.mesh.mean_nodes_affected,
                x.mesh.mean_balance
            );
        }
    }
}
