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

/// `reproduce moldable --readings`: the whole reproduction under every reading of §3–4.3
/// ([`crate::policy::moldable::readings`]), the claims checked under each.
fn readings(o: &MoldableReproOptions, json: bool) -> Result<(), Error> {
    use crate::policy::moldable::readings::Readings;
    let t0 = std::time::Instant::now();
    let mut all = Vec::new();
    for r in Readings::all() {
        let out = moldable::reproduce(&MoldableReproOptions {
            readings: r,
            ..o.clone()
        })?;
        all.push((r, out));
    }
    if json {
        return emit_json_lines(all.iter().flat_map(|(r, out)| {
            out.claims
                .iter()
                .map(move |c| serde_json::json!({"reading": r.label(), "claim": c}))
        }));
    }
    println!("# Srinivasan et al. — the claims under every reading of §3–4.3\n");
    println!("W = fair-share weight (ESRT by the estimate / by the actual run time); X = Xfactor scale (sequential by the estimate / by the run time / the estimate at the requested count); C = the scheduler's category (requested × estimate / × run time / W: the fair-share weight). k = 4 throughout.\n");
    let claims: Vec<&'static str> = all
        .first()
        .map(|(_, out)| out.claims.iter().map(|c| c.id).collect())
        .unwrap_or_default();
    print!("| reading |");
    for c in &claims {
        print!(" {c} |");
    }
    println!(" holds |");
    print!("|---|");
    for _ in &claims {
        print!("---|");
    }
    println!("---:|");
    for (r, out) in &all {
        print!("| {} |", r.label());
        let mut n = 0;
        for c in &out.claims {
            let cell = match c.holds {
                Some(true) => {
                    n += 1;
                    "yes"
                }
                Some(false) => "no",
                None => "—",
            };
            print!(" {cell} |");
        }
        println!(" {n} of {} |", out.claims.len());
    }
    for id in &claims {
        println!("\n## {id}\n");
        println!("| reading | holds | evidence |");
        println!("|---|---|---|");
        for (r, out) in &all {
            if let Some(c) = out.claims.iter().find(|c| c.id == *id) {
                println!(
                    "| {} | {} | {} |",
                    r.label(),
                    match c.holds {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "—",
                    },
                    c.evidence
                );
            }
        }
    }
    println!(
        "\n{} readings, {:.1} s on {} thread(s).",
        all.len(),
        t0.elapsed().as_secs_f64(),
        o.threads
    );
    Ok(())
}

/// Runs the reproduction and prints it; with `readings`, the sensitivity table instead.
pub fn reproduce(o: &MoldableReproOptions, json: bool, readings_only: bool) -> Result<(), Error> {
    if readings_only {
        return readings(o, json);
    }
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
