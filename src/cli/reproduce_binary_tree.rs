//! `schedlab reproduce binary-tree [--json] [--only TEXT] [--model flow|wormhole] [--rounds K]
//! [--runs N]`: prints the Liu et al. reproduction of [`crate::reproduce::binary_tree`] (Figs.
//! 3–6 and the paper's conclusions, §5.3 and §6) as tables, or as JSON rows.

use super::streams::emit;
use crate::base::Registered;
use crate::error::Error;
use crate::modes::mesh::spec::ContentionModel;
use crate::reproduce::binary_tree::{
    self, fig3, fig4, fig5, BinaryTreeReproOutput, BtSettings, EXCHANGES, SEED, SIDE, TASKS,
};

/// Appends a formatted line to a `String`.
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// Options of `reproduce binary-tree`.
#[derive(Clone, Debug)]
pub struct BinaryTreeReproOptions {
    /// JSON rows instead of tables.
    pub json: bool,
    /// Only allocators whose name contains this text.
    pub only: Option<String>,
    /// Worker threads.
    pub threads: usize,
    /// The model and the number of rounds.
    pub settings: BtSettings,
    /// Runs per point.
    pub runs: usize,
}

/// Runs the reproduction and prints it.
pub fn reproduce(o: &BinaryTreeReproOptions) -> Result<(), Error> {
    let start = std::time::Instant::now();
    let runs = o.runs;
    let output = binary_tree::reproduce_with(o.threads, o.only.as_deref(), runs, o.settings)?;
    let secs = start.elapsed().as_secs_f64();
    let mut out = String::new();
    if o.json {
        return super::streams::emit_json_lines(output.rows());
    }
    let model = match o.settings.model {
        ContentionModel::Wormhole => {
            "packet-level wormhole model (8-flit worms, one-flit buffers, one-port nodes; \
             makespan in flit times)"
        }
        _ => "phase model (1 MB messages, links 11.65 MB/s, disks 4.545 MB/s; makespan in s)",
    };
    let rounds = o.settings.rounds;
    let dbt = match (o.settings.dbt_of_free, o.settings.imbalance_of_rectangle) {
        (false, false) => "",
        (true, false) => "; DBT's ratio of the available processors (§3.1, second reading)",
        (false, true) => "; SBT/DBT imbalance counts the rectangle taken (§3.1, second reading)",
        (true, true) => {
            "; DBT's ratio of the available processors, SBT's imbalance counts the rectangle \
             taken (§3.1, second readings)"
        }
    };
    outln!(
        out,
        "Liu et al. §5: {SIDE} × {SIDE} mesh, {SIDE} west I/O nodes, {TASKS} tasks (sizes exp. mean \
         16) at time 0, FCFS, {model}; {rounds} × (E exchanges, one write) per task{dbt}; mean \
         makespan ± 95 % over {runs} runs (seeds {SEED}…); columns: exchanges E between two I/O \
         phases"
    );
    let figures = [
        ("Fig. 3 (SBT, global tolerance)", output.present(&fig3())),
        ("Fig. 4 (DBT, tolerance ratio)", output.present(&fig4())),
        ("Fig. 5 (d-DBT, tolerance ratio)", output.present(&fig5())),
        ("Fig. 6 (best DBT, best d-DBT, MBS, PLAS)", output.fig6()),
        (
            "Every allocator",
            (0..output.kinds.len()).collect::<Vec<_>>(),
        ),
    ];
    for (title, ks) in figures {
        if ks.is_empty() {
            continue;
        }
        table(&output, title, &ks, &mut out);
    }
    outln!(out, "\nThe paper's conclusions:");
    for c in output.claims() {
        let verdict = match c.holds {
            Some(true) => "HOLDS",
            Some(false) => "DOES NOT HOLD",
            None => "not run",
        };
        outln!(
            out,
            "\n[{verdict}] {} ({})\n  {}",
            c.paper,
            c.id,
            c.evidence
        );
    }
    let claims = output.claims();
    let held = claims.iter().filter(|c| c.holds == Some(true)).count();
    let checked = claims.iter().filter(|c| c.holds.is_some()).count();
    outln!(
        out,
        "\n{held} of {checked} checked claims hold ({} stated)",
        claims.len()
    );
    outln!(
        out,
        "\n{} allocators × {} mixes × {runs} runs in {secs:.1} s",
        output.kinds.len(),
        EXCHANGES.len()
    );
    emit(&out)
}

fn table(output: &BinaryTreeReproOutput, title: &str, ks: &[usize], out: &mut String) {
    outln!(out, "\n{title}");
    let mut head = format!("{:<16}", "allocator");
    for x in EXCHANGES {
        head.push_str(&format!(" {x:>15}"));
    }
    outln!(out, "{head}");
    for &k in ks {
        let mut line = format!("{:<16}", output.kinds[k].label());
        for e in 0..EXCHANGES.len() {
            let c = output.makespan(k, e);
            line.push_str(&format!(" {:>8.1} ± {:>4.1}", c.mean, c.half_width));
        }
        outln!(out, "{line}");
    }
}
