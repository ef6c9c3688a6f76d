//! The design of `schedlab reproduce binary-tree`: Liu et al. (*I/O Processor
//! Allocation for Mesh Cluster Computers*) §5, Figs. 3–6, on the phase model of
//! [`crate::network::flow`] (§2, §5.2: every task communicates — `exchanges` all-to-all
//! exchanges — then does one complete-bipartite write to every I/O node).
//!
//! §5.1: a 16 × 16 mesh with 16 I/O nodes on the left, link bandwidth 11.65 MB/s, disk write
//! speed 4.545 MB/s; 16 tasks with exponential sizes of mean 16 (rounded to the nearest
//! integer, clamped to 1..=256, as Mache et al.'s Table 1 workload), all submitted at time 0, run
//! FCFS; the communication/I/O mix is swept by the number of exchanges between two I/O phases
//! ([`EXCHANGES`], 0 = pure I/O); every point is the mean of [`RUNS`] independent runs (run r
//! draws its sizes from `SimRng` seeded [`SEED`] + r, the same for every allocator). The
//! measure is the paper's "total simulating time": the makespan (the last task's end).
//!
//! Figs. 3–5 sweep SBT's global tolerance (4, 16, 64, 256), DBT's and d-DBT's tolerance ratio
//! (1/16 … 1/2); Fig. 6 compares DBT, d-DBT (each at its best parameter), MBS and PLAS. Every
//! one of the 28 binary-tree configurations of the paper runs too (the `all` rows), and the
//! paper's conclusions (§5.3, §6) are checked against the numbers ([`BinaryTreeReproOutput::claims`]),
//! differences claimed only where the 95 % interval of the paired differences excludes zero.
//! Message sizes and the number of rounds are not in the paper (1 MB, one round; see
//! `docs/reproductions.md`).

use serde::Serialize;

use crate::alloc::binary_tree::{BinaryTreeKind, TreeRule, TreeSplit};
use crate::alloc::NodeAllocatorKind;
use crate::base::{Registered, SimRng};
use crate::error::Error;
use crate::modes::mesh::spec::ContentionModel;
use crate::network::flow::{simulate_phases, FlowJob, FlowRecord, PhaseConfig};
use crate::network::wormhole::{simulate_wormhole, ExchangeProgram, WormholeConfig};
use crate::network::{IoSide, Network, NetworkConfig};
use crate::reproduce::stats::MeanCi;

/// Mesh side (§5.1: 16 × 16).
pub const SIDE: u32 = 16;
/// Tasks per run (§5.1).
pub const TASKS: usize = 16;
/// Mean task size (§5.1).
pub const MEAN_SIZE: f64 = 16.0;
/// Independent runs per point (§5.2).
pub const RUNS: usize = 1000;
/// Seed of run 0 (run r uses `SEED + r`).
pub const SEED: u64 = 1001;
/// All-to-all exchanges between two I/O phases: the lines of Figs. 3–6 (0 = pure I/O).
pub const EXCHANGES: [u32; 5] = [0, 1, 4, 16, 64];
/// Runs per point under the wormhole model by default (`--model wormhole`): a run at E = 64
/// is about half a million worms, so 1000 runs × 30 allocators would take hours.
pub const WORMHOLE_RUNS: usize = 20;

/// How the reproduction's tasks communicate: the network model and the reading of §5.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BtSettings {
    /// `Flow`: the phase model on the flow engine ([`PhaseConfig::paper`], the default);
    /// `Wormhole`: the packet-level model of [`crate::network::wormhole`] with Liu et al.'s
    /// program ([`ExchangeProgram`]: E all-to-all rounds, then one write round), 8-flit worms,
    /// times in flit times. `Separated` is not a model of this paper (refused).
    pub model: ContentionModel,
    /// Repetitions of (E exchanges, one write) per task: 1 (the default) reads §5.2's "all
    /// tasks communicate first and then do one I/O operation"; 2 or more reads §2's
    /// "alternates between computation and I/O phases" and the figures' "communications
    /// between two I/O phases" (`--rounds`).
    pub rounds: u32,
    /// DBT's tolerance ratio of the rectangle's available processors instead of its size
    /// (§3.1's second reading, `--dbt-ratio-of free`; default `false`: of its size).
    pub dbt_of_free: bool,
    /// Contiguous SBT/DBT count the tree rectangle a task takes, not the task, in the
    /// imbalance (§3.1's other reading, `--imbalance-counts rectangle`; default `false`).
    pub imbalance_of_rectangle: bool,
}

impl Default for BtSettings {
    fn default() -> Self {
        BtSettings {
            model: ContentionModel::Flow,
            rounds: 1,
            dbt_of_free: false,
            imbalance_of_rectangle: false,
        }
    }
}

impl BtSettings {
    /// Checks the model and the rounds (1 ..= 64).
    pub fn validate(&self) -> Result<(), Error> {
        if self.model == ContentionModel::Separated {
            return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                key: "model".into(),
                message: "reproduce binary-tree runs Liu et al.'s phase model (flow, the \
                          default) or the packet-level wormhole model; separated is Mache et \
                          al.'s"
                    .into(),
            }));
        }
        if !(1..=64).contains(&self.rounds) {
            return Err(Error::Config(crate::modes::flat::spec::ConfigError {
                key: "rounds".into(),
                message: format!("must be between 1 and 64 (got {})", self.rounds),
            }));
        }
        Ok(())
    }
}

/// The 16 × 16 mesh with 16 I/O nodes on the west side.
pub fn network() -> Network {
    Network::new(NetworkConfig {
        width: SIDE,
        height: SIDE,
        io_side: IoSide::West,
        io_count: Some(SIDE),
    })
    .unwrap_or_else(|_| Network::mc_elongated())
}

/// The tasks of run `run`: [`TASKS`] tasks of exponential size (mean 16, rounded, clamped to
/// the mesh), all at time 0, no computation.
pub fn tasks(run: usize) -> Vec<FlowJob> {
    let mut rng = SimRng::new(SEED + run as u64);
    (0..TASKS)
        .map(|_| {
            let size = libm::round(rng.exponential(MEAN_SIZE)).clamp(1.0, f64::from(SIDE * SIDE));
            FlowJob {
                submit: 0.0,
                size: size as u32,
                compute: 0.0,
            }
        })
        .collect()
}

fn tree(split: TreeSplit, rule: TreeRule) -> NodeAllocatorKind {
    NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(split, rule))
}

/// Fig. 3: SBT with global tolerance 4, 16, 64, 256.
pub fn fig3() -> Vec<NodeAllocatorKind> {
    [4, 16, 64, 256]
        .map(|a| tree(TreeSplit::Contiguous, TreeRule::Static(a)))
        .to_vec()
}

/// Fig. 4: DBT with tolerance ratio 1/16, 1/8, 1/4, 1/2.
pub fn fig4() -> Vec<NodeAllocatorKind> {
    [16, 8, 4, 2]
        .map(|d| tree(TreeSplit::Contiguous, TreeRule::Dynamic(d)))
        .to_vec()
}

/// Fig. 5: d-DBT with tolerance ratio 1/16, 1/8, 1/4, 1/2.
pub fn fig5() -> Vec<NodeAllocatorKind> {
    [16, 8, 4, 2]
        .map(|d| tree(TreeSplit::Dependent, TreeRule::Dynamic(d)))
        .to_vec()
}

/// Every allocator run: the paper's 28 binary-tree configurations, MBS and PLAS.
pub fn kinds() -> Vec<NodeAllocatorKind> {
    let mut v = NodeAllocatorKind::trees();
    v.push(NodeAllocatorKind::Mbs);
    v.push(NodeAllocatorKind::Plas);
    v
}

/// One run's measures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunMeasures {
    /// Time the last task ends ("total simulating time").
    pub makespan: f64,
    /// Mean end time of the tasks (all submitted at 0).
    pub mean_turnaround: f64,
    /// Σ size · service / (nodes · makespan).
    pub utilization: f64,
}

fn err(message: String) -> Error {
    Error::Config(crate::modes::flat::spec::ConfigError {
        key: "reproduce binary-tree".into(),
        message,
    })
}

/// Runs one task set with `kind` at `exchanges` exchanges per I/O phase, under the phase
/// model (the default [`BtSettings`]).
pub fn run_one(
    net: &Network,
    kind: NodeAllocatorKind,
    exchanges: u32,
    jobs: &[FlowJob],
    seed: u64,
) -> Result<RunMeasures, Error> {
    run_one_with(net, kind, exchanges, jobs, seed, BtSettings::default())
}

/// [`run_one`] under `settings`: the phase model or the wormhole model, 1 or more rounds.
pub fn run_one_with(
    net: &Network,
    kind: NodeAllocatorKind,
    exchanges: u32,
    jobs: &[FlowJob],
    seed: u64,
    settings: BtSettings,
) -> Result<RunMeasures, Error> {
    let mut alloc = match kind {
        NodeAllocatorKind::BinaryTree(t)
            if settings.dbt_of_free || settings.imbalance_of_rectangle =>
        {
            t.build_readings(
                crate::alloc::node_allocator::IoLayout::of(net),
                settings.dbt_of_free,
                settings.imbalance_of_rectangle,
            )
        }
        _ => kind.build(net, seed),
    };
    let fail = |e: String| err(format!("{}: {e}", kind.as_str()));
    let recs: Vec<FlowRecord> = match settings.model {
        ContentionModel::Wormhole => {
            let cfg = WormholeConfig {
                program: Some(ExchangeProgram {
                    exchanges,
                    rounds: settings.rounds,
                }),
                ..WormholeConfig::default()
            };
            simulate_wormhole(net, jobs, alloc.as_mut(), cfg)
                .map(|r| r.records)
                .map_err(|e| fail(e.to_string()))?
        }
        ContentionModel::Flow | ContentionModel::Separated => {
            let cfg = PhaseConfig {
                rounds: settings.rounds,
                ..PhaseConfig::paper(exchanges)
            };
            simulate_phases(net, jobs, alloc.as_mut(), cfg).map_err(|e| fail(e.to_string()))?
        }
    };
    let makespan = recs.iter().map(|r| r.end).fold(0.0, f64::max);
    let n = recs.len().max(1) as f64;
    let work: f64 = recs
        .iter()
        .map(|r| r.nodes.len() as f64 * r.service())
        .sum();
    let area = makespan * f64::from(net.width() * net.height());
    Ok(RunMeasures {
        makespan,
        mean_turnaround: recs.iter().map(|r| r.end).sum::<f64>() / n,
        utilization: if area > 0.0 { work / area } else { 0.0 },
    })
}

/// Everything `reproduce binary-tree` computes: per allocator and exchange count, the measures of
/// every run.
pub struct BinaryTreeReproOutput {
    /// The allocators run (table order of [`kinds`], filtered by `--only`).
    pub kinds: Vec<NodeAllocatorKind>,
    /// Runs per point.
    pub runs: usize,
    /// The model and reading the runs used.
    pub settings: BtSettings,
    /// `[kind][exchange index]` → per run.
    pub measures: Vec<Vec<Vec<RunMeasures>>>,
}

/// Runs every allocator of [`kinds`] whose name contains `only` (all when `None`) at every
/// exchange count, `runs` runs each, on `threads` threads.
pub fn reproduce(
    threads: usize,
    only: Option<&str>,
    runs: usize,
) -> Result<BinaryTreeReproOutput, Error> {
    reproduce_with(threads, only, runs, BtSettings::default())
}

/// [`reproduce`] under `settings` (the model and the number of rounds).
pub fn reproduce_with(
    threads: usize,
    only: Option<&str>,
    runs: usize,
    settings: BtSettings,
) -> Result<BinaryTreeReproOutput, Error> {
    settings.validate()?;
    let kinds: Vec<NodeAllocatorKind> = kinds()
        .into_iter()
        .filter(|k| only.is_none_or(|o| k.as_str().contains(o)))
        .collect();
    if kinds.is_empty() {
        return Err(err(format!(
            "no allocator name contains {:?} (the reproduction runs {})",
            only.unwrap_or_default(),
            self::kinds()
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let net = network();
    let task_sets: Vec<Vec<FlowJob>> = (0..runs).map(tasks).collect();
    let items: Vec<(usize, usize)> = (0..kinds.len())
        .flat_map(|k| (0..EXCHANGES.len()).map(move |e| (k, e)))
        .collect();
    let done = super::parallel::par_map(&items, threads, |&(k, e)| {
        task_sets
            .iter()
            .enumerate()
            .map(|(r, jobs)| {
                run_one_with(
                    &net,
                    kinds[k],
                    EXCHANGES[e],
                    jobs,
                    SEED + r as u64,
                    settings,
                )
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let mut measures = vec![Vec::with_capacity(EXCHANGES.len()); kinds.len()];
    for (&(k, _), v) in items.iter().zip(done) {
        measures[k].push(v);
    }
    Ok(BinaryTreeReproOutput {
        kinds,
        runs,
        settings,
        measures,
    })
}

/// One JSON row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `fig3`, `fig4`, `fig5`, `fig6`, `all` or `claim`.
    pub figure: &'static str,
    /// Allocator name (for `claim`: the claim's id).
    pub policy: String,
    /// Exchanges between two I/O phases (null for claims over every mix).
    pub exchanges: Option<u32>,
    /// `makespan`, `makespan_ci95`, `mean_turnaround`, `utilization`, `runs`; for claims
    /// `holds` (1 or 0) and the numbers behind it.
    pub metric: String,
    /// Our value.
    pub ours: f64,
    /// The paper's value where it states one (for claims: 1, it holds).
    pub paper: Option<f64>,
}

/// One of the paper's conclusions, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Claim {
    /// Short id (`fig3_io_flat`).
    pub id: &'static str,
    /// What the paper says.
    pub paper: &'static str,
    /// Whether our numbers agree (`None`: the allocators it needs were not run).
    pub holds: Option<bool>,
    /// The numbers behind the verdict, as text.
    pub evidence: String,
}

impl BinaryTreeReproOutput {
    fn index(&self, k: NodeAllocatorKind) -> Option<usize> {
        self.kinds.iter().position(|&x| x == k)
    }

    /// Makespans of `kind` at exchange index `e`, per run.
    pub fn makespans(&self, k: usize, e: usize) -> Vec<f64> {
        self.measures[k][e].iter().map(|m| m.makespan).collect()
    }

    /// Mean makespan with its 95 % interval.
    pub fn makespan(&self, k: usize, e: usize) -> MeanCi {
        MeanCi::of(&self.makespans(k, e))
    }

    /// `true` when `a`'s makespan is smaller than `b`'s at exchange index `e` with the 95 %
    /// interval of the paired differences below zero.
    pub fn beats(&self, a: usize, b: usize, e: usize) -> bool {
        let (x, y) = (self.makespans(a, e), self.makespans(b, e));
        let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
        MeanCi::of(&d).high() < 0.0
    }

    /// Of the allocators `of` (indices), the one with the smallest mean makespan summed over
    /// every mix (the paper's "best performing configuration").
    pub fn best_overall(&self, of: &[usize]) -> Option<usize> {
        let total =
            |k: usize| -> f64 { (0..EXCHANGES.len()).map(|e| self.makespan(k, e).mean).sum() };
        of.iter()
            .copied()
            .min_by(|&a, &b| total(a).total_cmp(&total(b)))
    }

    /// Indices of the allocators of `list` that ran.
    pub fn present(&self, list: &[NodeAllocatorKind]) -> Vec<usize> {
        list.iter().filter_map(|&k| self.index(k)).collect()
    }

    /// Fig. 6's four: DBT and d-DBT at their best ratio, MBS, PLAS (those that ran).
    pub fn fig6(&self) -> Vec<usize> {
        let mut v = Vec::new();
        v.extend(self.best_overall(&self.present(&fig4())));
        v.extend(self.best_overall(&self.present(&fig5())));
        v.extend(self.index(NodeAllocatorKind::Mbs));
        v.extend(self.index(NodeAllocatorKind::Plas));
        v
    }

    /// All JSON rows: the figures, every allocator, then the claims.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        let figures: [(&'static str, Vec<usize>); 5] = [
            ("fig3", self.present(&fig3())),
            ("fig4", self.present(&fig4())),
            ("fig5", self.present(&fig5())),
            ("fig6", self.fig6()),
            ("all", (0..self.kinds.len()).collect()),
        ];
        for (figure, ks) in figures {
            for &k in &ks {
                for (e, &x) in EXCHANGES.iter().enumerate() {
                    let m = &self.measures[k][e];
                    let n = m.len().max(1) as f64;
                    let ci = self.makespan(k, e);
                    let mut push = |metric: &str, ours: f64| {
                        rows.push(Row {
                            figure,
                            policy: self.kinds[k].as_str(),
                            exchanges: Some(x),
                            metric: metric.to_string(),
                            ours,
                            paper: None,
                        })
                    };
                    push("makespan", ci.mean);
                    push("makespan_ci95", ci.half_width);
                    push(
                        "mean_turnaround",
                        m.iter().map(|r| r.mean_turnaround).sum::<f64>() / n,
                    );
                    push(
                        "utilization",
                        m.iter().map(|r| r.utilization).sum::<f64>() / n,
                    );
                    push("runs", m.len() as f64);
                }
            }
        }
        for c in self.claims() {
            rows.push(Row {
                figure: "claim",
                policy: c.id.to_string(),
                exchanges: None,
                metric: "holds".into(),
                ours: match c.holds {
                    Some(true) => 1.0,
                    Some(false) => 0.0,
                    None => f64::NAN,
                },
                paper: Some(1.0),
            });
        }
        rows
    }

    /// The paper's conclusions (§5.3.1, §6), each checked against the numbers.
    pub fn claims(&self) -> Vec<Claim> {
        let last = EXCHANGES.len() - 1;
        let name = |k: usize| self.kinds[k].label();
        let mean = |k: usize, e: usize| self.makespan(k, e).mean;
        let mut out = Vec::new();
        // A tolerance sweep (Figs. 3–5): flat at pure I/O, and the direction and growth of
        // the gap between the two ends of the sweep as communication grows.
        let sweep = |out: &mut Vec<Claim>,
                     ids: [&'static str; 2],
                     texts: [&'static str; 2],
                     list: Vec<NodeAllocatorKind>,
                     better_large: bool| {
            let ks = self.present(&list);
            if ks.len() != list.len() {
                out.push(Claim {
                    id: ids[0],
                    paper: texts[0],
                    holds: None,
                    evidence: "not run".into(),
                });
                out.push(Claim {
                    id: ids[1],
                    paper: texts[1],
                    holds: None,
                    evidence: "not run".into(),
                });
                return;
            }
            let io: Vec<f64> = ks.iter().map(|&k| mean(k, 0)).collect();
            let lo = io.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = io.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let spread = 100.0 * (hi - lo) / lo;
            out.push(Claim {
                id: ids[0],
                paper: texts[0],
                holds: Some(spread < 5.0),
                evidence: format!(
                    "pure I/O makespans {} (spread {spread:.1} %, flat if < 5 %)",
                    io.iter()
                        .map(|v| format!("{v:.1}"))
                        .collect::<Vec<_>>()
                        .join(" / ")
                ),
            });
            // The small end (first) against the large end (last) of the sweep.
            let (small, large) = (ks[0], ks[ks.len() - 1]);
            let (good, bad) = if better_large {
                (large, small)
            } else {
                (small, large)
            };
            let gap = |e: usize| 100.0 * (mean(bad, e) - mean(good, e)) / mean(good, e);
            let gaps: Vec<String> = (0..EXCHANGES.len())
                .map(|e| format!("{}: {:+.1} %", EXCHANGES[e], gap(e)))
                .collect();
            let holds = self.beats(good, bad, last) && gap(last) > gap(0);
            out.push(Claim {
                id: ids[1],
                paper: texts[1],
                holds: Some(holds),
                evidence: format!(
                    "{} slower than {} by, per exchange count, {} (significant at {}: {})",
                    name(bad),
                    name(good),
                    gaps.join(", "),
                    EXCHANGES[last],
                    self.beats(good, bad, last)
                ),
            });
        };
        sweep(
            &mut out,
            ["fig3_io_flat", "fig3_large_tolerance_helps_communication"],
            [
                "Fig. 3: SBT's pure-I/O line is flat in the global tolerance",
                "Fig. 3: a larger global tolerance is better as communication grows",
            ],
            fig3(),
            true,
        );
        sweep(
            &mut out,
            ["fig4_io_flat", "fig4_large_ratio_helps_communication"],
            [
                "Fig. 4: DBT's pure-I/O line is flat in the tolerance ratio",
                "Fig. 4: a larger tolerance ratio is better as communication grows",
            ],
            fig4(),
            true,
        );
        sweep(
            &mut out,
            ["fig5_io_flat", "fig5_large_ratio_hurts_communication"],
            [
                "Fig. 5: d-DBT's pure-I/O line is flat in the tolerance ratio",
                "Fig. 5: a larger ratio is worse for d-DBT, more so as communication grows",
            ],
            fig5(),
            false,
        );
        let four = self.fig6();
        let winners = |ks: &[usize]| -> Vec<usize> {
            (0..EXCHANGES.len())
                .map(|e| {
                    ks.iter()
                        .copied()
                        .min_by(|&a, &b| mean(a, e).total_cmp(&mean(b, e)))
                        .unwrap_or(0)
                })
                .collect()
        };
        if four.len() == 4 {
            let (dbt, ddbt) = (four[0], four[1]);
            let w = winners(&four);
            let per_mix: Vec<String> = (0..EXCHANGES.len())
                .map(|e| {
                    format!(
                        "{}: {}",
                        EXCHANGES[e],
                        four.iter()
                            .map(|&k| format!("{} {:.1}", name(k), mean(k, e)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
                .collect();
            let dbt_wins = four
                .iter()
                .filter(|&&k| k != dbt)
                .all(|&k| self.beats(dbt, k, last));
            out.push(Claim {
                id: "fig6_dbt_best_when_communication_dominates",
                paper: "Fig. 6: DBT is best when communication dominates (beats d-DBT, MBS, PLAS), more so with more exchanges",
                holds: Some(dbt_wins),
                evidence: format!(
                    "at {} exchanges (winner {}); {}",
                    EXCHANGES[last],
                    name(w[last]),
                    per_mix.join("; ")
                ),
            });
            let mixed: Vec<usize> = (1..last).collect();
            let ddbt_mixed = mixed.iter().filter(|&&e| w[e] == ddbt).count();
            out.push(Claim {
                id: "ddbt_best_for_mixed_traffic",
                paper: "§6: d-DBT is best when I/O and communication are well mixed",
                holds: Some(2 * ddbt_mixed > mixed.len()),
                evidence: format!(
                    "winners at {}: {}",
                    mixed
                        .iter()
                        .map(|&e| EXCHANGES[e].to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    mixed
                        .iter()
                        .map(|&e| name(w[e]))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
            // Robustness: the worst relative excess over the best of the four at each mix.
            let regret = |k: usize| -> f64 {
                (0..EXCHANGES.len())
                    .map(|e| {
                        let best = mean(w[e], e);
                        100.0 * (mean(k, e) - best) / best
                    })
                    .fold(0.0, f64::max)
            };
            let most_robust = four
                .iter()
                .copied()
                .min_by(|&a, &b| regret(a).total_cmp(&regret(b)))
                .unwrap_or(ddbt);
            out.push(Claim {
                id: "ddbt_most_robust",
                paper: "§6: d-DBT is the most robust under every mix of communication and I/O",
                holds: Some(most_robust == ddbt),
                evidence: format!(
                    "worst excess over the best of the four at any mix: {}",
                    four.iter()
                        .map(|&k| format!("{} {:.1} %", name(k), regret(k)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        // §6: SBT and DBT outperform BT.
        let bt = self.index(tree(TreeSplit::Contiguous, TreeRule::Plain));
        let sbt = self.best_overall(&self.present(&fig3()));
        let dbt = self.best_overall(&self.present(&fig4()));
        if let (Some(bt), Some(sbt), Some(dbt)) = (bt, sbt, dbt) {
            let better = |k: usize| {
                (0..EXCHANGES.len())
                    .filter(|&e| self.beats(k, bt, e))
                    .count()
            };
            let worse = |k: usize| {
                (0..EXCHANGES.len())
                    .filter(|&e| self.beats(bt, k, e))
                    .count()
            };
            out.push(Claim {
                id: "sbt_dbt_outperform_bt",
                paper: "§6: static and dynamic BT reduce external fragmentation and outperform BT",
                holds: Some(worse(sbt) == 0 && worse(dbt) == 0 && better(sbt) + better(dbt) > 0),
                evidence: format!(
                    "{} beats BT at {} of {} mixes, loses at {}; {} beats BT at {}, loses at {}",
                    name(sbt),
                    better(sbt),
                    EXCHANGES.len(),
                    worse(sbt),
                    name(dbt),
                    better(dbt),
                    worse(dbt)
                ),
            });
        }
        // §6: the dependent strategy suits DBT, the independent one SBT.
        let fam = |split, dynamic: bool| -> Vec<usize> {
            let list: Vec<NodeAllocatorKind> = if dynamic {
                [16, 8, 4, 2]
                    .map(|d| tree(split, TreeRule::Dynamic(d)))
                    .to_vec()
            } else {
                [4, 16, 64, 256]
                    .map(|a| tree(split, TreeRule::Static(a)))
                    .to_vec()
            };
            self.present(&list)
        };
        let total = |k: usize| -> f64 { (0..EXCHANGES.len()).map(|e| mean(k, e)).sum() };
        let pairs = [
            (
                fam(TreeSplit::Dependent, true),
                fam(TreeSplit::Independent, true),
            ),
            (
                fam(TreeSplit::Independent, false),
                fam(TreeSplit::Dependent, false),
            ),
        ];
        if let [(Some(dd), Some(id)), (Some(is), Some(ds))] =
            pairs.map(|(a, b)| (self.best_overall(&a), self.best_overall(&b)))
        {
            out.push(Claim {
                id: "dependent_suits_dbt_independent_suits_sbt",
                paper: "§6: the dependent strategy suits DBT, the independent one SBT",
                holds: Some(total(dd) < total(id) && total(is) < total(ds)),
                evidence: format!(
                    "sum of mean makespans over the mixes: {} {:.1} vs {} {:.1}; {} {:.1} vs {} {:.1}",
                    name(dd),
                    total(dd),
                    name(id),
                    total(id),
                    name(is),
                    total(is),
                    name(ds),
                    total(ds)
                ),
            });
        }
        // §6: among the non-contiguous BTs, d-DBT is best in most cases.
        let ncbt: Vec<usize> = (0..self.kinds.len())
            .filter(|&k| {
                matches!(
                    self.kinds[k],
                    NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(
                        TreeSplit::Independent | TreeSplit::Dependent,
                        _
                    ))
                )
            })
            .collect();
        if ncbt.len() == 18 {
            let w = winners(&ncbt);
            let is_ddbt = |k: usize| {
                matches!(
                    self.kinds[k],
                    NodeAllocatorKind::BinaryTree(BinaryTreeKind::Tree(
                        TreeSplit::Dependent,
                        TreeRule::Dynamic(_)
                    ))
                )
            };
            let n = w.iter().filter(|&&k| is_ddbt(k)).count();
            out.push(Claim {
                id: "ddbt_best_ncbt",
                paper: "§6: among the non-contiguous BTs, d-DBT performs best in most cases",
                holds: Some(2 * n > w.len()),
                evidence: format!(
                    "best non-contiguous BT per mix: {}",
                    (0..EXCHANGES.len())
                        .map(|e| format!("{}: {}", EXCHANGES[e], name(w[e])))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_seeded_and_sized_like_the_paper() {
        assert_eq!(tasks(3), tasks(3));
        assert_ne!(tasks(3), tasks(4));
        let sizes: Vec<u32> = (0..400).flat_map(tasks).map(|t| t.size).collect();
        assert!(sizes.iter().all(|&s| (1..=256).contains(&s)));
        let mean = sizes.iter().map(|&s| f64::from(s)).sum::<f64>() / sizes.len() as f64;
        assert!((mean - 16.0).abs() < 1.0, "{mean}");
        assert!(tasks(0).iter().all(|t| t.submit == 0.0 && t.compute == 0.0));
        let net = network();
        assert_eq!(
            (net.width(), net.height(), net.io_nodes().len()),
            (16, 16, 16)
        );
        assert_eq!(kinds().len(), 30);
    }

    #[test]
    fn a_small_reproduction_is_deterministic_and_checks_claims() {
        let a = reproduce(2, Some("dbt"), 6).unwrap();
        let b = reproduce(1, Some("dbt"), 6).unwrap();
        assert_eq!(a.measures, b.measures);
        // dbt, ind_dbt, d_dbt at 4 ratios each.
        assert_eq!(a.kinds.len(), 12);
        for k in 0..a.kinds.len() {
            for e in 0..EXCHANGES.len() {
                assert_eq!(a.measures[k][e].len(), 6);
                assert!(a.measures[k][e]
                    .iter()
                    .all(|m| m.utilization > 0.0 && m.utilization <= 1.0));
            }
        }
        // Communication only adds work.
        let last = EXCHANGES.len() - 1;
        assert!((0..a.kinds.len()).all(|k| a.makespan(k, last).mean > a.makespan(k, 0).mean));
        let claims = a.claims();
        assert!(claims
            .iter()
            .any(|c| c.id == "fig4_io_flat" && c.holds.is_some()));
        assert!(claims
            .iter()
            .any(|c| c.id == "fig3_io_flat" && c.holds.is_none()));
        assert!(!a.rows().is_empty());
        assert!(reproduce(1, Some("nothing"), 1).is_err());
    }
}
