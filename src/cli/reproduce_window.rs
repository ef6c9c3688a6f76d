//! `schedlab reproduce window [--json]`: prints the Ababneh & Bani-Mohammad reproduction of
//! [`crate::reproduce::window`] (Figs. 2–11 and 15–18) as markdown tables next to the paper's
//! numbers, or as JSON rows.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::reproduce::stats::MeanCi;
use crate::reproduce::window::{
    self, knee, label, milli, paper_max_util, Figure, FigureKind, Point, PointStats, PolicyKey,
    TraceTable, WindowReproOptions, DECREASING_LOADS, JOBS_PER_RUN, MAX_RUNS, MIN_RUNS, QUEUE_CAP,
    SWEEP_POLICIES, TARGET_REL_ERROR, TRACE_POLICIES, UNIFORM_LOADS,
};

/// `reproduce window --readings`: Delay under every reading of λ and W (§2.3), Figs. 6–7,
/// with Window-240 and OO beside it ([`crate::reproduce::delay_readings`]).
pub fn readings(threads: usize, json: bool) -> Result<(), Error> {
    use crate::reproduce::delay_readings::{self, loads_where_beats, CurvePoint};
    let t0 = std::time::Instant::now();
    let figs = delay_readings::run(threads)?;
    if json {
        let mut rows = Vec::new();
        for f in &figs {
            for c in &f.curves {
                let mut push = |load: Option<f64>, metric: &str, ours: f64, paper: Option<f64>| {
                    rows.push(window::Row {
                        figure: f.name.into(),
                        policy: c.variant.label(),
                        load,
                        metric: metric.into(),
                        ours,
                        paper,
                    })
                };
                push(None, "knee_utilization_percent", c.knee.util.mean, c.paper);
                push(None, "knee_load", c.knee.load.unwrap_or(f64::NAN), None);
                push(
                    None,
                    "sweep_max_utilization_percent",
                    c.knee.sweep_max,
                    c.paper,
                );
                for p in &c.points {
                    push(Some(p.load), "utilization_percent", p.util.mean, None);
                    push(Some(p.load), "turnaround", p.turnaround.mean, None);
                    push(Some(p.load), "max_wait", p.max_wait.mean, None);
                }
            }
        }
        return super::streams::emit_json_lines(&rows);
    }
    println!("# Ababneh & Bani-Mohammad — Delay under the readings of λ and W (Figs. 6–7)\n");
    println!(
        "{MAX_RUNS} runs of {JOBS_PER_RUN} jobs a point, the main sweep's seeds; ± = 95 % half-width."
    );
    for f in &figs {
        println!(
            "\n## {} — utilisation (%), {} sides\n",
            f.name,
            if f.uniform {
                "uniform"
            } else {
                "uniform-decreasing"
            }
        );
        let loads: Vec<f64> = f.curves[0].points.iter().map(|p| p.load).collect();
        print!("| variant | paper max | at knee | knee λ | sweep max |");
        for l in &loads {
            print!(" λ={l} |");
        }
        println!();
        print!("|---|---:|---:|---:|---:|");
        for _ in &loads {
            print!("---:|");
        }
        println!();
        for c in &f.curves {
            print!(
                "| {} | {} | {:.1} ± {:.1} | {} | {:.1} |",
                c.variant.label(),
                c.paper.map_or("—".into(), |p| format!("{p}")),
                c.knee.util.mean,
                c.knee.util.half_width,
                c.knee.load.map_or("none".into(), |l| format!("{l}")),
                c.knee.sweep_max
            );
            for p in &c.points {
                print!(" {:.1} |", p.util.mean);
            }
            println!();
        }
        let w240 = f
            .curves
            .iter()
            .find(|c| c.variant == delay_readings::Variant::Window240);
        if let Some(w) = w240 {
            println!("\nLoads at which Delay beats Window-240 beyond both 95 % half-widths:\n");
            println!("| variant | utilisation (higher) | mean turnaround (lower) | maximum wait (lower) |");
            println!("|---|---|---|---|");
            let show = |v: Vec<f64>| {
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.iter()
                        .map(|l| format!("{l}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            for c in f
                .curves
                .iter()
                .filter(|c| matches!(c.variant, delay_readings::Variant::Delay(..)))
            {
                println!(
                    "| {} | {} | {} | {} |",
                    c.variant.label(),
                    show(loads_where_beats(c, w, |p: &CurvePoint| p.util, true)),
                    show(loads_where_beats(
                        c,
                        w,
                        |p: &CurvePoint| p.turnaround,
                        false
                    )),
                    show(loads_where_beats(c, w, |p: &CurvePoint| p.max_wait, false)),
                );
            }
        }
    }
    println!(
        "\n{:.1} s on {threads} thread(s).",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs the reproduction and prints it.
pub fn reproduce(o: &WindowReproOptions, json: bool) -> Result<(), Error> {
    let out = window::reproduce(o)?;
    if json {
        return super::streams::emit_json_lines(&out.rows);
    }
    print_tables(&out.figures, &out.stats);
    for (t, secs) in &out.trace_tables {
        print_trace_table(t, *secs);
    }
    let total_runs: usize = out.stats.values().map(|s| s.runs.len()).sum();
    let capped = out
        .stats
        .values()
        .filter(|s| s.rel_error() > TARGET_REL_ERROR)
        .count();
    println!(
        "\nSynthetic: {} points, {} runs of {} jobs ({}–{} per point), {} point(s) still above {:.0} % relative error after {} runs; {:.1} s. Total {:.1} s on {} thread(s).",
        out.stats.len(),
        total_runs,
        JOBS_PER_RUN,
        MIN_RUNS,
        MAX_RUNS,
        capped,
        TARGET_REL_ERROR * 100.0,
        MAX_RUNS,
        out.synthetic_seconds,
        out.seconds,
        o.threads
    );
    for t in &out.missing_traces {
        println!(
            "Trace {} not found in {}: {} / {} skipped.",
            t.file,
            o.traces.display(),
            t.figures.0,
            t.figures.1
        );
    }
    Ok(())
}

fn print_tables(figures: &[&Figure], stats: &BTreeMap<Point, PointStats>) {
    for f in figures {
        println!("\n### {}\n", f.title);
        match f.kind {
            FigureKind::MaxUtil => {
                let loads: &[f64] = if f.uniform {
                    &UNIFORM_LOADS
                } else {
                    &DECREASING_LOADS
                };
                print!("| policy | at knee ours (± 95 %) | knee λ | max paper |");
                for l in loads {
                    print!(" λ={l} |");
                }
                println!();
                print!("|---|---:|---:|---:|");
                for _ in loads {
                    print!("---:|");
                }
                println!();
                for &p in &SWEEP_POLICIES {
                    let curve: Vec<(f64, MeanCi)> = loads
                        .iter()
                        .filter_map(|&l| {
                            let s = stats.get(&Point {
                                uniform: f.uniform,
                                load_milli: milli(l),
                                policy: p,
                            })?;
                            Some((l, MeanCi::of(&s.values(|r| 100.0 * r.utilization))))
                        })
                        .collect();
                    let k = knee(&curve);
                    let paper = paper_max_util(f.uniform, p)
                        .map_or_else(|| "—".to_string(), |v| format!("{v}"));
                    let at = k
                        .load
                        .map_or_else(|| "none (rising)".to_string(), |l| format!("{l}"));
                    print!(
                        "| {} | {:.1} ± {:.1} | {at} | {paper} |",
                        label(p),
                        k.util.mean,
                        k.util.half_width
                    );
                    for (_, u) in curve {
                        print!(" {:.1} |", u.mean);
                    }
                    println!();
                }
            }
            FigureKind::Sweep(metric) => {
                let loads: &[f64] = if f.uniform {
                    &UNIFORM_LOADS
                } else {
                    &DECREASING_LOADS
                };
                print!("| λ |");
                for &p in &SWEEP_POLICIES {
                    print!(" {} |", label(p));
                }
                println!();
                print!("|---:|");
                for _ in SWEEP_POLICIES {
                    print!("---:|");
                }
                println!();
                for &l in loads {
                    print!("| {l} |");
                    for &p in &SWEEP_POLICIES {
                        let v = stats
                            .get(&Point {
                                uniform: f.uniform,
                                load_milli: milli(l),
                                policy: p,
                            })
                            .map_or(f64::NAN, |s| match metric {
                                "mean_turnaround" => s.mean(|r| r.turnaround),
                                _ => s.mean(|r| r.max_wait),
                            });
                        print!(" {} |", fmt_num(v));
                    }
                    println!();
                }
            }
            FigureKind::Window(metric, l) => {
                println!("| K | {metric} | runs |");
                println!("|---:|---:|---:|");
                for p in f.points() {
                    let Some(s) = stats.get(&p) else { continue };
                    let v = match metric {
                        "mean_turnaround" => s.mean(|r| r.turnaround),
                        _ => s.mean(|r| r.max_wait),
                    };
                    let k = match p.policy {
                        PolicyKey::Window(k) => k.to_string(),
                        _ => "∞ (OO)".to_string(),
                    };
                    println!("| {k} | {} | {} |", fmt_num(v), s.runs.len());
                }
                let _ = l;
            }
        }
    }
}

fn fmt_num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn print_trace_table(table: &TraceTable, seconds: f64) {
    for (fig, what, pick) in [
        (table.figures.0, "mean turnaround (s)", 0usize),
        (table.figures.1, "maximum waiting delay (s)", 1),
    ] {
        println!(
            "\n### {} — {what}, {} ({} jobs kept, {} dropped; offered load {:.2} at LF 1; \"sat.\" = more than {} jobs waiting)\n",
            fig.replace("fig", "Fig. "),
            table.label,
            table.jobs,
            table.dropped,
            table.offered_load_lf1,
            QUEUE_CAP
        );
        print!("| LF |");
        for p in TRACE_POLICIES {
            print!(" {} |", label(p));
        }
        println!();
        print!("|---:|");
        for _ in TRACE_POLICIES {
            print!("---:|");
        }
        println!();
        for (li, lf) in table.lfs.iter().enumerate() {
            print!("| {lf} |");
            for p in TRACE_POLICIES {
                let v = table.cells.get(&(li, p)).map_or(f64::NAN, |c| match pick {
                    0 => c.0,
                    _ => c.1,
                });
                if v.is_nan() {
                    print!(" sat. |");
                } else {
                    print!(" {v:.0} |");
                }
            }
            println!();
        }
    }
    println!("\n({} took {seconds:.1} s.)", table.label);
}
