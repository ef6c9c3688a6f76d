//! Fuzzing of every decoder of untrusted input: generated and mutated SWF traces
//! (plain and gzip, then simulated), experiment JSON of every kind (flat, mesh, grid; run
//! when small), share-link fragments of every kind (`#x=`, `#m=`, `#g=`) and exercise files
//! (parsed, then run and solved as the page does; their Markdown; stored answers and answers
//! files). A case passes when the decoder returns (Ok or Err)
//! without panicking; proptest reports any panic with the input that caused it. Every input is bounded (traces of a few kB, documents of a few
//! hundred bytes, runs of at most [`RUN_JOBS`] jobs), so no case can hang or grow memory.
//!
//! Cases per target: `SCHEDLAB_FUZZ_CASES` (default 256, a few seconds in `cargo test`). The
//! generator's seed is fixed, so CI runs the same cases every time (a failure reproduces);
//! `SCHEDLAB_FUZZ_SEED=N` picks another fixed seed and `SCHEDLAB_FUZZ_SEED=random` a fresh one.
//! The long run (docs/limits.md) is
//! `SCHEDLAB_FUZZ_SEED=random SCHEDLAB_FUZZ_CASES=130000 cargo test --release --test it fuzz`
//! — 13 targets, over 1,690,000 cases.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::modes::flat::spec::ExperimentFile;
use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::{json, Value};

use schedlab::limits::Limits;
use schedlab::modes::envelope::Envelope;
use schedlab::modes::flat::link::{pack_fragment, ShareState};
use schedlab::modes::flat::run::{run_experiment, TraceInput};
use schedlab::modes::flat::spec::Experiment;
use schedlab::modes::grid::link::GridShare;
use schedlab::modes::grid::{run_grid, GridExperiment};
use schedlab::modes::mesh::link::MeshShare;
use schedlab::modes::mesh::run::run_mesh;
use schedlab::modes::mesh::spec::MeshExperiment;
use schedlab::modes::moldable::run::run_moldable_with;
use schedlab::modes::moldable::spec::MoldableExperiment;
use schedlab::policy::moldable::MoldableStrategyKind;
use schedlab::workload::swf::{read_swf_bytes, ReadOptions};

/// Experiments with at most this many jobs (and meshes with sides ≤ 64) are run, not only
/// parsed.
const RUN_JOBS: u64 = 120;

/// With `SCHEDLAB_FUZZ_STATS` set, one line `FUZZSTAT target outcome` per case on stderr
/// (how deep the cases went: refused, parsed, run).
fn stat(target: &str, outcome: &str) {
    if std::env::var_os("SCHEDLAB_FUZZ_STATS").is_some() {
        eprintln!("FUZZSTAT {target} {outcome}");
    }
}

/// The generator's seed when `SCHEDLAB_FUZZ_SEED` is not set.
const FUZZ_SEED: u64 = 0x5c4e_d1ab;

fn config() -> Config {
    let cases = std::env::var("SCHEDLAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let rng_seed = match std::env::var("SCHEDLAB_FUZZ_SEED").ok().as_deref() {
        Some("random") => RngSeed::Random,
        Some(n) => RngSeed::Fixed(n.parse().unwrap_or(FUZZ_SEED)),
        None => RngSeed::Fixed(FUZZ_SEED),
    };
    Config {
        cases,
        failure_persistence: None,
        rng_seed,
        ..Config::default()
    }
}

// ---------------------------------------------------------------- SWF traces

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        200 => (-3i64..2000).prop_map(|n| n.to_string()),
        20 => (-1.0f64..1e6).prop_map(|x| x.to_string()),
        5 => any::<i64>().prop_map(|n| n.to_string()),
        5 => any::<f64>().prop_map(|x| x.to_string()),
        2 => prop::sample::select(vec![
            "NaN", "inf", "-inf", "1e309", "-0", "0.5", "1e-400", "18446744073709551616",
            "9999999999999999999999", "4294967296", "", "-", "+1", "1.", ".5", "0x10", "abc",
            "1e308", "-1e308", "1e12", "1000000000001", "18446744073709551615", "4294967295",
        ])
        .prop_map(String::from),
        1 => "[ -~]{0,6}",
    ]
}

/// `Some` one time in `n` (rare damage, so that most cases go deep).
fn rarely<T: Strategy>(n: u32, s: T) -> impl Strategy<Value = Option<T::Value>> {
    prop::option::weighted(1.0 / f64::from(n), s)
}

fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        40 => prop::collection::vec(token(), 18).prop_map(|t| t.join(" ").into_bytes()),
        1 => prop::collection::vec(token(), 0..24).prop_map(|t| t.join("\t").into_bytes()),
        4 => "; ?(MaxProcs|MaxNodes|UnixStartTime|TimeZoneString|Version|Note): [ -~]{0,24}"
            .prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..48),
    ]
}

fn trace() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(line(), 0..40), any::<bool>()).prop_map(|(lines, crlf)| {
        let sep: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        lines.join(sep)
    })
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    let _ = enc.write_all(bytes);
    enc.finish().unwrap_or_default()
}

/// Reads `bytes` as a trace and, when it parses, simulates it (the path of an upload).
fn read_and_run(target: &str, bytes: &[u8], lenient: bool, policy: &str) {
    let opts = ReadOptions::limited("fuzz.swf", lenient, &Limits::DEFAULT);
    let Ok(w) = read_swf_bytes(bytes, &opts) else {
        return stat(target, "refused");
    };
    if w.jobs.len() as u64 > RUN_JOBS {
        return stat(target, "read");
    }
    let exp = Experiment::from_json(&format!(
        r#"{{"workload": {{"swf": {{"path": "fuzz.swf", "lenient": {lenient}}}}}, "policy": "{policy}"}}"#
    ));
    if let Ok(exp) = exp {
        let r = run_experiment(&exp, Some(TraceInput::from_bytes("fuzz.swf", bytes)));
        stat(target, if r.is_ok() { "run" } else { "run-refused" });
    }
}

fn policy() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["fcfs", "easy", "conservative"])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn swf_plain(bytes in trace(), lenient in any::<bool>(), policy in policy()) {
        read_and_run("swf_plain", &bytes, lenient, policy);
    }

    #[test]
    fn swf_gzip(bytes in trace(), cut in rarely(8, any::<prop::sample::Index>()),
                flip in rarely(8, any::<(prop::sample::Index, u8)>()), lenient in any::<bool>(),
                policy in policy()) {
        let mut gz = gzip(&bytes);
        if let Some(cut) = cut {
            let n = cut.index(gz.len() + 1);
            gz.truncate(n);
        }
        if let Some((at, x)) = flip {
            if !gz.is_empty() {
                let i = at.index(gz.len());
                gz[i] ^= x;
            }
        }
        read_and_run("swf_gzip", &gz, lenient, policy);
    }
}

// ---------------------------------------------------------------- experiment documents

fn flat_base() -> Vec<Value> {
    vec![
        json!({"workload": {"synthetic": {"model": "lublin", "jobs": 60, "procs": 64}},
               "policy": "easy", "seed": 3}),
        json!({"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 40}},
               "transforms": {"load_factor": 1.5, "first_jobs": 30,
                              "time_window": {"start": 0, "end": 100000}},
               "machine": {"flat": {"procs": 400}}, "policy": "conservative"}),
        json!({"workload": {"swf": {"path": "t.swf", "lenient": true}}, "policy": "fcfs"}),
    ]
}

fn mesh_base() -> Vec<Value> {
    vec![
        json!({"workload": {"synthetic": {"model": "mesh_jobs", "jobs": 60, "width": 8, "height": 8}},
               "width": 8, "height": 8, "allocator": "mpl", "policy": "window-4", "seed": 1}),
        json!({"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 40, "procs": 64}},
               "width": 8, "height": 8, "allocator": "mc_elongated",
               "network": {"io_side": "west", "traffic_io": 0.6, "kappa": 0.001}}),
        json!({"workload": {"synthetic": {"model": "lublin", "jobs": 50, "procs": 64}},
               "width": 8, "height": 8, "allocator": "first_fit", "policy": "oocb-2",
               "shape_rule": "paragon", "transforms": {"load_factor": 2}}),
    ]
}

fn grid_base() -> Vec<Value> {
    vec![json!({"sites": [
        {"name": "a", "procs": 32, "workload": {"synthetic": {"model": "lublin", "jobs": 40, "procs": 32}}},
        {"procs": 64, "tz_offset_hours": 6, "align_monday": false,
         "workload": {"synthetic": {"model": "exponential_jobs", "jobs": 30, "procs": 64}}}],
        "sharing": "job_sharing", "policy": "conservative", "seed": 2, "cut_to_shortest": true})]
}

fn moldable_base() -> Vec<Value> {
    vec![
        json!({"workload": {"synthetic": {"model": "lublin", "jobs": 60, "procs": 64}},
               "model": {"downey": {"sigma": 1.5, "range_factor": 2}}, "strategy": "combined"}),
        json!({"workload": {"synthetic": {"model": "exponential_jobs", "jobs": 40}},
               "transforms": {"load_factor": 1.25, "first_jobs": 30},
               "machine": {"flat": {"procs": 64}},
               "model": {"profiles": {"profiles": [
                   {"name": "a", "points": [[2, 100.0], [8, 30.0]]},
                   {"name": "b", "points": [[1, 10.0], [64, 1.0]]}]}},
               "strategy": "all_sizes", "seed": 4}),
    ]
}

fn interesting_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => prop::sample::select(vec![
            json!(0), json!(-1), json!(1), json!(2), json!(u64::MAX), json!(i64::MIN),
            json!(1e308), json!(-1e308), json!(1e-308), json!(4294967296u64),
            json!(100000000), json!(0.5), json!(1000), json!(1000.0001), json!(168),
            json!(-168.5), json!(256), json!(257), json!(64), json!(65), json!(null),
            json!(true), json!(false), json!(""), json!([]), json!({}), json!([1, 2]),
            json!({"model": "lublin"}), json!({"flat": {}}), json!({"swf": {}}),
            // Inside the old limits but breaking the numbers: a tiny load factor, huge times.
            json!(1e-320), json!(4.9e-324), json!(1e-300), json!(1e300), json!(-10),
            json!(0.001), json!(1e12), json!(1e12 + 1.0), json!({"flat": []}),
        ]),
        2 => prop::sample::select(vec![
            "fcfs", "easy", "conservative", "lublin", "mesh_jobs", "exponential_jobs", "window-240",
            "window-0", "oocb-8", "oo", "delay", "first_fit", "best_fit", "mpl", "random",
            "paging_3", "paging_99", "mbs", "mc", "mc_elongated", "plas", "hilbert_bf",
            "west", "east", "north", "south", "job_sharing", "single", "square", "paragon",
            "uniform", "uniform_decreasing", "Europe/Berlin",
        ])
        .prop_map(|s| json!(s)),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<f64>().prop_map(|x| json!(x)),
        1 => "[a-z_]{0,10}".prop_map(|s| json!(s)),
    ]
}

#[derive(Clone, Debug)]
enum Mutation {
    Replace(Value),
    Remove,
    AddKey(String, Value),
}

fn mutation() -> impl Strategy<Value = (prop::sample::Index, Mutation)> {
    let m = prop_oneof![
        4 => interesting_value().prop_map(Mutation::Replace),
        1 => Just(Mutation::Remove),
        1 => (
            prop::sample::select(vec![
                "jobs", "procs", "width", "height", "seed", "load_factor", "first_jobs",
                "tz_offset_hours", "cut_span", "io_count", "policy", "allocator", "name",
                "sweep", "policies", "unknown_key",
            ]),
            interesting_value()
        )
            .prop_map(|(k, v)| Mutation::AddKey(k.to_string(), v)),
    ];
    (any::<prop::sample::Index>(), m)
}

/// Every node of `v`, in pre-order, as a path of keys and indices.
fn paths(v: &Value, here: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(here.clone());
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                here.push(PathStep::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(PathStep::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn node_mut<'a>(v: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(v);
    };
    let next = match first {
        PathStep::Key(k) => v.get_mut(k.as_str())?,
        PathStep::Index(i) => v.get_mut(*i)?,
    };
    node_mut(next, rest)
}

fn apply(mut v: Value, muts: &[(prop::sample::Index, Mutation)]) -> Value {
    for (at, m) in muts {
        let mut all = Vec::new();
        paths(&v, &mut Vec::new(), &mut all);
        let path = all[at.index(all.len())].clone();
        match m {
            Mutation::Replace(x) => {
                if let Some(n) = node_mut(&mut v, &path) {
                    *n = x.clone();
                }
            }
            Mutation::Remove => {
                if let Some((last, parent)) = path.split_last() {
                    if let Some(p) = node_mut(&mut v, parent) {
                        match (p, last) {
                            (Value::Object(o), PathStep::Key(k)) => {
                                o.remove(k);
                            }
                            (Value::Array(a), PathStep::Index(i)) if *i < a.len() => {
                                a.remove(*i);
                            }
                            _ => {}
                        }
                    }
                }
            }
            Mutation::AddKey(k, x) => {
                if let Some(Value::Object(o)) = node_mut(&mut v, &path) {
                    o.insert(k.clone(), x.clone());
                }
            }
        }
    }
    v
}

/// A document: a base mutated as JSON, then maybe cut or edited as text.
fn document(base: Vec<Value>) -> impl Strategy<Value = String> {
    (
        prop::sample::select(base),
        prop::collection::vec(mutation(), 0..4),
        rarely(10, any::<(prop::sample::Index, char)>()),
        rarely(10, any::<prop::sample::Index>()),
        trailing_junk(),
    )
        .prop_map(|(b, muts, edit, cut, junk)| {
            let mut text = apply(b, &muts).to_string();
            if let Some((at, c)) = edit {
                let mut chars: Vec<char> = text.chars().collect();
                let i = at.index(chars.len() + 1);
                chars.insert(i, c);
                text = chars.into_iter().collect();
            }
            if let Some(at) = cut {
                let chars: Vec<char> = text.chars().collect();
                text = chars[..at.index(chars.len() + 1)].iter().collect();
            }
            if let Some(junk) = junk {
                text.push_str(junk);
            }
            text
        })
}

/// What may follow a document: refused as trailing data, never read as part of it.
fn trailing_junk() -> impl Strategy<Value = Option<&'static str>> {
    rarely(
        10,
        prop::sample::select(vec![" garbage", "{\"a\": 1}", ",", "\0", "\n\n{}", " ]"]),
    )
}

/// Jobs of a synthetic workload (0 for a trace, which these cases never supply).
fn model_jobs(w: &schedlab::modes::flat::spec::WorkloadSpec) -> u64 {
    match w {
        schedlab::modes::flat::spec::WorkloadSpec::Synthetic(m) => m.jobs() as u64,
        schedlab::modes::flat::spec::WorkloadSpec::Swf(_) => 0,
    }
}

fn flat_jobs(e: &Experiment) -> u64 {
    model_jobs(&e.workload)
}

fn small_mesh(e: &MeshExperiment) -> bool {
    model_jobs(&e.workload) <= RUN_JOBS && e.width <= 64 && e.height <= 64
}

fn small_grid(e: &GridExperiment) -> bool {
    let jobs: u64 = e.sites.iter().map(|s| model_jobs(&s.workload)).sum();
    jobs <= RUN_JOBS && e.sites.len() <= 8
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn flat_experiment_json(text in document(flat_base())) {
        let outcome = match Experiment::from_json(&text) {
            Err(_) => "refused",
            Ok(exp) if flat_jobs(&exp) > RUN_JOBS => "parsed",
            Ok(exp) => if run_experiment(&exp, None).is_ok() { "run" } else { "run-refused" },
        };
        stat("flat_json", outcome);
    }

    #[test]
    fn mesh_experiment_json(text in document(mesh_base())) {
        let outcome = match MeshExperiment::from_json(&text) {
            Err(_) => "refused",
            Ok(exp) if !small_mesh(&exp) => "parsed",
            Ok(exp) => if run_mesh(&exp, None).is_ok() { "run" } else { "run-refused" },
        };
        stat("mesh_json", outcome);
    }

    #[test]
    fn moldable_experiment_json(text in document(moldable_base())) {
        let outcome = match MoldableExperiment::from_json(&text) {
            Err(_) => "refused",
            Ok(exp) if model_jobs(&exp.workload) > RUN_JOBS => "parsed",
            Ok(exp) => {
                let all = MoldableStrategyKind::ALL;
                if run_moldable_with(&exp, &all, None, &Limits::DEFAULT).is_ok() {
                    "run"
                } else {
                    "run-refused"
                }
            }
        };
        stat("moldable_json", outcome);
    }

    #[test]
    fn grid_experiment_json(text in document(grid_base())) {
        let outcome = match GridExperiment::from_json(&text) {
            Err(_) => "refused",
            Ok(exp) if !small_grid(&exp) => "parsed",
            Ok(exp) => if run_grid(&exp, vec![]).is_ok() { "run" } else { "run-refused" },
        };
        stat("grid_json", outcome);
    }
}

// ---------------------------------------------------------------- share links

/// A link: a mutated envelope packed with its true checksum (so decoding goes deep), or that
/// fragment edited as text (so the damaged-link paths run too).
fn link(prefix: &'static str, envelopes: Vec<Value>) -> impl Strategy<Value = String> {
    (
        document(envelopes),
        rarely(10, any::<(prop::sample::Index, char)>()),
        rarely(10, any::<prop::sample::Index>()),
        "[A-Za-z0-9_=+/.-]{0,80}",
        0..16u8,
    )
        .prop_map(move |(json, edit, cut, noise, pick)| {
            if pick == 0 {
                return format!("#{prefix}{noise}");
            }
            let mut f: Vec<char> = pack_fragment(prefix, &json).chars().collect();
            if let Some((at, c)) = edit {
                let i = at.index(f.len());
                f[i] = c;
            }
            if let Some(at) = cut {
                f.truncate(at.index(f.len() + 1).max(2));
            }
            f.into_iter().collect()
        })
}

fn flat_envelopes() -> Vec<Value> {
    flat_base()
        .into_iter()
        .map(|e| {
            json!({"v": 1, "experiment": e, "policies": ["fcfs", "easy"],
                        "sweep": {"from": 0.5, "to": 1.5, "step": 0.25}})
        })
        .collect()
}

fn mesh_envelopes() -> Vec<Value> {
    mesh_base()
        .into_iter()
        .map(|e| {
            json!({"v": 1, "experiment": e, "allocators": ["mpl", "mc", "hilbert_ff"],
                        "policy": "window-8"})
        })
        .collect()
}

fn grid_envelopes() -> Vec<Value> {
    grid_base()
        .into_iter()
        .map(|e| json!({"v": 1, "experiment": e}))
        .collect()
}

/// Envelopes of every mode (`{"v": 2, "mode": …}` + the mode's keys).
fn mode_envelopes() -> Vec<Value> {
    let tag = |mut v: Value, mode: &str| {
        v["v"] = json!(2);
        v["mode"] = json!(mode);
        v
    };
    let mut out: Vec<Value> = flat_envelopes()
        .into_iter()
        .map(|v| tag(v, "flat"))
        .collect();
    out.extend(mesh_envelopes().into_iter().map(|v| tag(v, "mesh")));
    out.extend(grid_envelopes().into_iter().map(|v| tag(v, "grid")));
    out.extend(moldable_base().into_iter().map(|e| {
        tag(
            json!({"experiment": e, "strategies": ["base", "combined"]}),
            "moldable",
        )
    }));
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn envelope_share_link(f in link("e=", mode_envelopes())) {
        let r = Envelope::from_fragment(&f);
        if let Ok(Some(env)) = &r {
            // What decodes re-encodes to an envelope that decodes to the same thing.
            let again = Envelope::from_json(&env.to_json());
            prop_assert_eq!(again.as_ref(), Ok(env));
            prop_assert_eq!(Envelope::mode_of_fragment(&f), Some(env.mode()));
        }
        stat("envelope_link", if matches!(r, Ok(Some(_))) { "decoded" } else { "refused" });
    }

    #[test]
    fn flat_share_link(f in link("x=", flat_envelopes())) {
        let r = ShareState::from_fragment(&f);
        if let Ok(Some(s)) = &r {
            prop_assert!(!s.policies().is_empty());
            if let Some(sweep) = s.sweep {
                prop_assert!(sweep.points().is_ok());
            }
        }
        stat("flat_link", if matches!(r, Ok(Some(_))) { "decoded" } else { "refused" });
    }

    #[test]
    fn mesh_share_link(f in link("m=", mesh_envelopes())) {
        let r = MeshShare::from_fragment(&f);
        if let Ok(Some(s)) = &r {
            let _ = s.experiments();
        }
        stat("mesh_link", if matches!(r, Ok(Some(_))) { "decoded" } else { "refused" });
    }

    #[test]
    fn grid_share_link(f in link("g=", grid_envelopes())) {
        let r = GridShare::from_fragment(&f);
        if let Ok(Some(s)) = &r {
            prop_assert!(s.experiment.validate().is_ok());
        }
        stat("grid_link", if matches!(r, Ok(Some(_))) { "decoded" } else { "refused" });
    }
}

// ---------------------------------------------------------------- exercises

/// The shipped exercises as JSON (tiny inline workloads, no synthetic model: every case that
/// parses is solved).
/// The editor's starting draft, with a question of each kind, as the page stores it.
fn draft_base() -> Vec<Value> {
    use schedlab::exercise::draft::{Draft, DraftQuestion};
    use schedlab::exercise::QuestionKind;
    let mut d = Draft::default();
    d.questions.push(DraftQuestion::new(QuestionKind::Numeric));
    d.questions.push(DraftQuestion::new(QuestionKind::Choice));
    vec![serde_json::to_value(&d).expect("a draft is JSON")]
}

fn exercise_base() -> Vec<Value> {
    schedlab::exercise::catalog::SHIPPED
        .iter()
        .map(|(_, text)| serde_json::from_str(text).expect("shipped exercise is JSON"))
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn exercise_json(text in document(exercise_base())) {
        use schedlab::exercise::Exercise;
        let outcome = match Exercise::from_json(&text, "fuzz.json") {
            Err(e) => {
                prop_assert_eq!(e.source.as_str(), "fuzz.json");
                "refused"
            }
            // What the page does: every run (flat ones explained), then the solutions.
            Ok(ex) => if ex.work("fuzz.json").is_ok() { "solved" } else { "solve-refused" },
        };
        stat("exercise_json", outcome);
    }

    /// The page's Markdown of exercise texts on any text made of its marks.
    #[test]
    fn exercise_markdown(text in "([ a-z0-9|:`*_#>.\\\\\\[\\]()\n-]|https://|<b>|&){0,120}") {
        let html = schedlab::exercise::markdown::to_html(&text);
        prop_assert!(!html.contains("<b>"));
        stat("exercise_markdown", if html.is_empty() { "empty" } else { "html" });
    }

    /// The exercise editor's input: pasted SWF lines, and a stored draft (in `localStorage`,
    /// editable by hand) read back, checked, run and solved as the page does.
    #[test]
    fn exercise_draft(
        lines in prop::collection::vec(line(), 0..6),
        text in document(draft_base()),
    ) {
        let pasted = lines.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect::<Vec<_>>().join("\n");
        let p = schedlab::exercise::draft::parse_swf_lines(&pasted);
        stat("exercise_draft_swf", if p.is_ok() { "read" } else { "refused" });
        let outcome = match serde_json::from_str::<schedlab::exercise::draft::Draft>(&text) {
            Err(_) => "unreadable",
            Ok(d) => match d.exercise(None) {
                Err(e) => {
                    prop_assert_eq!(e.source.as_str(), "editor");
                    "refused"
                }
                Ok(ex) => match ex.work("editor") {
                    Ok(w) => {
                        prop_assert!(d.export_json(&w.solutions).is_ok());
                        "solved"
                    }
                    Err(_) => "solve-refused",
                },
            },
        };
        stat("exercise_draft", outcome);
    }

    /// A stored answers entry (the student can edit it) and an answers file.
    #[test]
    fn exercise_answers(text in document(answers_base())) {
        use schedlab::exercise::answers::{AnswersFile, ExerciseAnswers};
        let stored = ExerciseAnswers::from_json(&text).is_some();
        let file = AnswersFile::from_json(&text, "answers.json");
        if let Err(e) = &file {
            prop_assert!(e.starts_with("answers.json: "), "{}", e);
        }
        stat("exercise_answers", match (stored, file.is_ok()) {
            (true, _) => "entry",
            (false, true) => "file",
            _ => "refused",
        });
    }
}

/// An answers file holding one stored entry of each kind of question.
fn answers_base() -> Vec<Value> {
    let entry = json!({"id": "fcfs-vs-easy", "title": "t", "hints": [1, 0],
        "answers": [
            {"question": 0, "kind": "predict_start", "number": 2.0, "correct": true,
             "feedback": "Correct", "attempts": 2, "answered": "2025-01-01T00:00:00.000Z"},
            {"question": 1, "kind": "choice", "options": [1], "correct": false,
             "feedback": "Not quite", "attempts": 1, "answered": ""}]});
    vec![
        json!({"format": "schedlab-answers", "version": 1, "exported": "2025", "exercises": [entry.clone()]}),
        entry,
    ]
}

/// Found by `swf_plain` (2026-11-27): a job of u32::MAX processors makes the machine that
/// large, and giving its processors back overflowed the profile's free count (a panic in debug
/// builds, a wrapped count in release). Every policy now runs it.
#[test]
fn a_job_of_u32_max_processors_runs_under_every_policy() {
    let bytes = b"0 210258.22978725805 0 0 0 0 0 1 1 0 0 0 0 0 0 0 0 0\n\
        0 442 0 0 4294967295 0 0 0 1 0 0 0 0 0 0 0 0 0\n\
        0 305 0 138 0 0 0 1 139 0 0 0 0 0 0 0 0 0";
    for lenient in [false, true] {
        for policy in ["fcfs", "easy", "conservative"] {
            read_and_run("regression", bytes, lenient, policy);
        }
    }
}
