//! `schedlab reproduce moldable [--json]`: prints the Srinivasan et al. reproduction of
//! [`crate::reproduce::moldable`] (Figs. 1–11: % change of mean turnaround against rigid
//! conservative backfilling, overall and per weight category) as markdown tables and the
//! paper's claims checked, or as JSON rows (then one JSON line per claim).

use super::streams::emit_json_lines;
use crate::base::Registered;
use crate::error::Error;
use crate::metrics::CATEGORY_COUNT;
use crate::reproduce::moldable::{
    self, point, MoldableReproOptions, COMPARABLE_PCT, JOBS, MIN_CATEGORY_JOBS,
};

/// Runs the reproduction and prints it.
pub fn reproduce(o: &MoldableReproOptions, json: bool) -> Result<(), Error> {
    let out = moldable::reproduce(o)?;
    if json {
        emit_json_lines(&out.rows)?;
        return emit_json_lines(out.claims.iter().map(|c| serde_json::json!({"claim": c})));
    }
    for (t, jobs, procs) in &out.workloads {
        println!(
            "{}: first {JOBS} jobs, {jobs} kept, {procs} processors.",
            t.label()
        );
    }
    for f in &out.figures {
        println!("\n### {}\n", f.title);
        if let Some(r) = out
            .reference
            .get(&(f.trace, libm::round(f.load_factor * 1000.0) as u32))
        {
            print!(
                "Rigid conservative: mean turnaround {:.0} s; jobs per category:",
                r.summary.mean_turnaround
            );
            for c in &r.categories {
                print!(" {}", c.jobs);
            }
            println!(".\n");
        }
        print!("| strategy | RF | overall |");
        for k in 0..CATEGORY_COUNT {
            print!(" c{k} |");
        }
        println!(" procs ratio |");
        print!("|---|---:|---:|");
        for _ in 0..CATEGORY_COUNT {
            print!("---:|");
        }
        println!("---:|");
        for &rf in f.range_factors {
            for &s in f.strategies {
                let Some(c) = out.cells.get(&point(f, rf, s)) else {
                    continue;
                };
                print!("| {} | {rf} | {:+.1} |", s.label(), c.change.overall_pct);
                for k in 0..CATEGORY_COUNT {
                    match c.change.categories_pct.get(k).copied().flatten() {
                        Some(v) => {
                            let few = c
                                .output
                                .categories
                                .get(k)
                                .is_some_and(|s| s.jobs < MIN_CATEGORY_JOBS);
                            print!(" {v:+.1}{} |", if few { "*" } else { "" });
                        }
                        None => print!(" — |"),
                    }
                }
                println!(" {:.2} |", c.output.mean_procs_ratio);
            }
        }
    }
    println!(
        "\n% change of mean turnaround against rigid conservative backfilling (negative = better); \
         * = fewer than {MIN_CATEGORY_JOBS} jobs (not used to judge claims); \"comparable\" = at most +{COMPARABLE_PCT} %.\n"
    );
    println!("### Claims\n");
    println!("| claim | section | holds | evidence |");
    println!("|---|---|---|---|");
    for c in &out.claims {
        let holds = match c.holds {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "not run",
        };
        println!(
            "| {} — {} | {} | {holds} | {} |",
            c.id, c.text, c.section, c.evidence
        );
    }
    for t in &out.missing {
        println!(
            "\nTrace {} not found in {}: its figures were skipped.",
            t.file(),
            o.traces.display()
        );
    }
    println!(
        "\n{} runs of up to {JOBS} jobs on {} thread(s): {:.1} s.",
        out.runs, o.threads, out.seconds
    );
    Ok(())
}
