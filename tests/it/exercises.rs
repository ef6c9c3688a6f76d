//! Exercises: every shipped exercise parses and its stated answers agree
//! with the simulation; hand-computed schedules of the FCFS-vs-EASY and EASY-vs-conservative
//! exercises; malformed exercises are refused naming the key path; verdicts of `check`
//! (tolerance edges included); `schedlab exercise` and `--check-all`.
#![cfg(not(target_arch = "wasm32"))]

use crate::common;

use common::{schedlab, temp_dir};
use schedlab::exercise::catalog::{self, SHIPPED};
use schedlab::exercise::{check, Answer, ErrorKind, Exercise, Expected, QuestionKind, Solution};
use schedlab::modes::envelope::Envelope;
use schedlab::modes::flat::run::{run_experiment, TraceInput};
use serde_json::{json, Value};

fn shipped(file: &str) -> Exercise {
    let (_, text) = SHIPPED
        .iter()
        .find(|(n, _)| *n == file)
        .unwrap_or_else(|| panic!("{file} is not shipped"));
    Exercise::from_json(text, file).unwrap()
}

/// Start times by SWF job number of run `run` of a flat exercise, through `run_experiment`
/// (the CLI's path).
fn flat_starts(ex: &Exercise, run: &str) -> Vec<(u64, f64)> {
    let Some(Envelope::Flat(s)) = ex.envelope(run) else {
        panic!("{run} is no flat run")
    };
    let text = ex.workload_text("jobs").unwrap();
    let out = run_experiment(
        &s.experiment,
        Some(TraceInput::from_bytes("jobs", text.as_bytes())),
    )
    .unwrap();
    out.jobs.iter().map(|j| (j.id, j.start)).collect()
}

fn number(s: &Solution) -> f64 {
    match s.expected {
        Expected::Number { value, .. } => value,
        _ => panic!("not a number: {s:?}"),
    }
}

fn options(s: &Solution) -> (Vec<usize>, Vec<f64>) {
    match &s.expected {
        Expected::Options { correct, values } => (correct.clone(), values.clone()),
        _ => panic!("not a choice: {s:?}"),
    }
}

#[test]
fn every_shipped_exercise_states_answers_the_simulation_confirms() {
    // The catalog holds exactly the files of www/exercises.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("www/exercises");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    let names: Vec<String> = SHIPPED.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, files);
    assert!(SHIPPED.len() >= 8);
    for (name, text) in SHIPPED {
        let ex = Exercise::from_json(text, name).unwrap_or_else(|e| panic!("{e}"));
        let solutions = ex.solve(name).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(solutions.len(), ex.questions.len());
        assert!((1..=3).contains(&ex.questions.len()), "{name}");
        for q in &ex.questions {
            // Every answer is stated (and so checked by `solve` against the simulation).
            match q.kind {
                QuestionKind::Choice => assert!(q.correct.is_some(), "{name}: {}", q.prompt),
                _ => assert!(q.answer.is_some(), "{name}: {}", q.prompt),
            }
            assert!(!q.hints.is_empty() && !q.explanation.is_empty(), "{name}");
        }
        // Tiny, hand-followable workloads.
        for lines in ex.workloads.values() {
            let jobs = lines.iter().filter(|l| !l.starts_with(';')).count();
            assert!((1..=10).contains(&jobs), "{name}: {jobs} jobs");
        }
    }
    let list = catalog::list();
    let ids: Vec<&str> = list.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "fcfs-vs-easy",
            "easy-vs-conservative",
            "bad-estimates",
            "mesh-fragmentation",
            "window-vs-fcfs",
            "io-vs-communication",
            "grid-time-zones",
            "load-and-saturation",
            "sjf-starves-a-wide-job",
            "predicted-run-times"
        ]
    );
    assert!(matches!(catalog::get("window-vs-fcfs"), Some(Ok(e)) if e.questions.len() == 3));
    assert!(catalog::get("nope").is_none());
}

#[test]
fn fcfs_vs_easy_backfills_job_3_by_hand() {
    let ex = shipped("01-fcfs-vs-easy.json");
    // Hand schedule (4 processors): FCFS 1@0, 2@10, 3@15, 4@15; EASY backfills job 3 at 2
    // (ends 7 ≤ shadow 10); job 4 (ends 27 > 10, no extra processors) waits for job 2.
    assert_eq!(
        flat_starts(&ex, "fcfs"),
        vec![(1, 0.0), (2, 10.0), (3, 15.0), (4, 15.0)]
    );
    assert_eq!(
        flat_starts(&ex, "easy"),
        vec![(1, 0.0), (2, 10.0), (3, 2.0), (4, 15.0)]
    );
    let s = ex.solve("01").unwrap();
    assert_eq!(number(&s[0]), 2.0);
    assert_eq!(options(&s[1]), (vec![1], vec![0.0, 13.0, 0.0]));
    assert_eq!(number(&s[2]), 5.25); // (0 + 9 + 0 + 12) / 4
}

#[test]
fn easy_delays_job_3_which_conservative_does_not() {
    let ex = shipped("02-easy-vs-conservative.json");
    // EASY: the head (job 2) has shadow 10 and 2 extra processors; job 4 takes one of them
    // at 3 and keeps job 3 out until job 2 ends at 20. Conservative reserves 10 for job 3,
    // so job 4 (which would overlap [10, 20)) is reserved at 20.
    assert_eq!(
        flat_starts(&ex, "easy"),
        vec![(1, 0.0), (2, 10.0), (3, 20.0), (4, 3.0)]
    );
    assert_eq!(
        flat_starts(&ex, "conservative"),
        vec![(1, 0.0), (2, 10.0), (3, 10.0), (4, 20.0)]
    );
    let s = ex.solve("02").unwrap();
    assert_eq!(number(&s[0]), 3.0);
    assert_eq!(number(&s[1]), 20.0);
    assert_eq!(options(&s[2]), (vec![1], vec![0.0, 10.0, -17.0]));
}

#[test]
fn the_other_exercises_give_their_hand_computed_answers() {
    let solve = |f: &str| shipped(f).solve(f).unwrap();
    let s = solve("03-bad-estimates.json");
    assert_eq!(
        (number(&s[0]), number(&s[1]), number(&s[2])),
        (15.0, 2.0, 10.0)
    );
    let s = solve("04-mesh-fragmentation.json");
    assert_eq!((number(&s[0]), number(&s[1])), (50.0, 0.0));
    let s = solve("05-window-vs-fcfs.json");
    assert_eq!((number(&s[0]), number(&s[1])), (50.0, 12.0));
    assert_eq!(options(&s[2]).0, vec![1]);
    let s = solve("06-io-vs-communication.json");
    assert_eq!(number(&s[0]), 16.0);
    assert_eq!(options(&s[1]).0, vec![0]);
    assert!((number(&s[2]) - 104.0).abs() < 1e-9);
    let s = solve("07-grid-time-zones.json");
    assert_eq!((number(&s[0]), number(&s[1])), (1.0, 7200.0));
    assert_eq!(options(&s[2]), (vec![1], vec![6300.0, 4500.0]));
    let s = solve("08-load-and-saturation.json");
    assert_eq!((number(&s[0]), number(&s[1])), (0.0, 12.5));
    assert_eq!(options(&s[2]).0, vec![1, 2]); // a tie: both are correct
    let s = solve("09-sjf-starves-a-wide-job.json");
    assert_eq!((number(&s[0]), number(&s[1])), (4.0, 16.0));
    assert_eq!(options(&s[2]), (vec![1], vec![9.9, 2.3]));
    let s = solve("10-predicted-run-times.json");
    assert_eq!((number(&s[0]), number(&s[1])), (18.0, 5.0));
    assert_eq!(options(&s[2]).0, vec![1]);
}

/// A small valid exercise as JSON, to break in the tests below.
fn base() -> Value {
    json!({
        "format": 1, "id": "t", "title": "T", "text": "x",
        "workloads": {"jobs": ["1 0 -1 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1",
                               "2 1 -1 10 2 -1 -1 2 10 -1 1 -1 -1 -1 -1 -1 -1 -1"]},
        "runs": {"fcfs": {"v": 2, "mode": "flat", "experiment": {
            "workload": {"swf": {"name": "jobs"}}, "machine": {"flat": {"procs": 2}},
            "policy": "fcfs"}}},
        "questions": [
            {"kind": "predict_start", "prompt": "p", "run": "fcfs", "job": 2, "answer": 10,
             "tolerance": 1},
            {"kind": "choice", "prompt": "c", "pick": "lowest", "correct": [0], "options": [
                {"text": "a", "value": {"run": "fcfs", "metric": "start", "job": 1}},
                {"text": "b", "value": {"run": "fcfs", "metric": "summary.mean_wait"}}]}
        ]
    })
}

fn error_of(v: &Value) -> (ErrorKind, String, String) {
    let e = match Exercise::from_json(&v.to_string(), "bad.json") {
        Err(e) => e,
        Ok(ex) => ex.solve("bad.json").unwrap_err(),
    };
    assert_eq!(e.source, "bad.json");
    assert!(e.to_string().starts_with("bad.json: "), "{e}");
    (e.kind, e.key, e.message)
}

#[test]
fn malformed_exercises_name_the_key_path() {
    let ex = Exercise::from_json(&base().to_string(), "ok.json").unwrap();
    assert_eq!(ex.solve("ok.json").unwrap().len(), 2);
    let broken = |f: &dyn Fn(&mut Value)| {
        let mut v = base();
        f(&mut v);
        error_of(&v)
    };
    let (k, key, m) = broken(&|v| v["questions"][0]["tolerance"] = json!("one"));
    assert_eq!(
        (k, key.as_str()),
        (ErrorKind::Format, "questions[0].tolerance")
    );
    assert!(m.contains("invalid type"), "{m}");
    let (_, key, m) = broken(&|v| v["questions"][0]["tolerance"] = json!(-1));
    assert_eq!(key, "questions[0].tolerance");
    assert!(m.contains("≥ 0"), "{m}");
    let (_, key, m) = broken(&|v| v["questions"][1]["options"][1]["value"]["run"] = json!("easy"));
    assert_eq!(key, "questions[1].options[1].value.run");
    assert!(m.contains("no run named \"easy\""), "{m}");
    let (_, key, m) = broken(&|v| v["questions"][0]["colour"] = json!(1));
    assert_eq!(key, "questions[0].colour");
    assert!(m.contains("unknown field `colour`"), "{m}");
    let (_, key, _) =
        broken(&|v| v["questions"][0]["options"] = v["questions"][1]["options"].clone());
    assert_eq!(key, "questions[0].options");
    let (_, key, _) = broken(&|v| v["questions"][1]["correct"] = json!([0, 5]));
    assert_eq!(key, "questions[1].correct[1]");
    let (_, key, _) = broken(&|v| {
        v["questions"][1].as_object_mut().unwrap().remove("pick");
    });
    assert_eq!(key, "questions[1].pick");
    let (_, key, m) = broken(&|v| v["questions"][0]["job"] = json!(null));
    assert_eq!(key, "questions[0].job");
    assert!(m.contains("missing"), "{m}");
    let (_, key, m) = broken(&|v| v["format"] = json!(2));
    assert_eq!(key, "format");
    assert!(m.contains("format 2"), "{m}");
    let (_, key, _) = broken(&|v| v["id"] = json!("Has Spaces"));
    assert_eq!(key, "id");
    let (_, key, m) = broken(&|v| v["text"] = json!("x".repeat(20_001)));
    assert_eq!(key, "text");
    assert!(m.contains("max_exercise_text"), "{m}");
    let (_, key, m) = broken(&|v| {
        let q = v["questions"][0].clone();
        v["questions"] = json!(vec![q; 13]);
    });
    assert_eq!(key, "questions");
    assert!(m.contains("1 to 12"), "{m}");
    // The runs: each an envelope, reading only inline workloads.
    let (_, key, m) = broken(&|v| v["runs"]["fcfs"]["experiment"]["policy"] = json!("sjf"));
    assert_eq!(key, "runs.fcfs");
    assert!(m.contains("sjf"), "{m}");
    let (_, key, m) = broken(&|v| {
        v["runs"]["fcfs"]["experiment"]["workload"]["swf"] = json!({"path": "/etc/passwd"})
    });
    assert_eq!(key, "runs.fcfs.experiment.workload.swf");
    assert!(m.contains("inline"), "{m}");
    let (_, key, _) =
        broken(&|v| v["runs"]["fcfs"]["experiment"]["workload"]["swf"]["name"] = json!("other"));
    assert_eq!(key, "runs.fcfs.experiment.workload.swf.name");
    let (_, key, m) = broken(&|v| v["experiment"] = v["runs"]["fcfs"].clone());
    assert_eq!(key, "runs");
    assert!(m.contains("not both"), "{m}");
    let (_, key, m) = broken(&|v| {
        v["runs"]["fcfs"]["experiment"]["workload"] =
            json!({"synthetic": {"model": "lublin", "jobs": 5000}})
    });
    assert_eq!(key, "runs.fcfs");
    assert!(m.contains("max_jobs = 1000"), "{m}");
    let (_, key, _) = broken(&|v| v["workloads"]["jobs"] = json!(["; only a header"]));
    assert_eq!(key, "workloads.jobs");
    // Found only when the runs are done.
    let (k, key, m) =
        broken(&|v| v["questions"][1]["options"][1]["value"]["metric"] = json!("summary.nope"));
    assert_eq!(
        (k, key.as_str()),
        (ErrorKind::Run, "questions[1].options[1].value.metric")
    );
    assert!(m.contains("mean_wait"), "{m}"); // lists what the run has
    let (k, key, m) = broken(&|v| v["questions"][0]["job"] = json!(7));
    assert_eq!((k, key.as_str()), (ErrorKind::Run, "questions[0].job"));
    assert!(m.contains("job 7 did not run"), "{m}");
    let (k, key, _) = broken(&|v| v["workloads"]["jobs"][1] = json!("2 1 -1 10 2 -1 -1 2 10 -1 1"));
    assert_eq!((k, key.as_str()), (ErrorKind::Run, "questions[0].run"));
    // A stated answer the simulation contradicts is refused.
    let (k, key, m) = broken(&|v| v["questions"][0]["answer"] = json!(12));
    assert_eq!(
        (k, key.as_str()),
        (ErrorKind::WrongAnswer, "questions[0].answer")
    );
    assert_eq!(m, "states 12 but the simulation gives 10 (tolerance 1)");
    let (k, key, m) = broken(&|v| v["questions"][1]["correct"] = json!([1]));
    assert_eq!(
        (k, key.as_str()),
        (ErrorKind::WrongAnswer, "questions[1].correct")
    );
    assert!(m.contains("[0]") && m.contains("0, 4.5"), "{m}");
    // Not JSON at all.
    let e = Exercise::from_json("{\"format\": 1,", "cut.json").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Format);
    assert!(e.to_string().starts_with("cut.json: "), "{e}");
    let e = Exercise::from_json(&" ".repeat(300_000), "big.json").unwrap_err();
    assert!(e.message.contains("max_exercise_bytes"), "{e}");
}

#[test]
fn check_judges_answers_with_the_tolerance_bounds_included() {
    let ex = Exercise::from_json(&base().to_string(), "ok.json").unwrap();
    let s = ex.solve("ok.json").unwrap();
    let (q0, q1) = (&ex.questions[0], &ex.questions[1]);
    // Job 2 starts at 10, tolerance 1: [9, 11] is right.
    for (a, right) in [
        (10.0, true),
        (9.0, true),
        (11.0, true),
        (11.001, false),
        (8.999, false),
        (f64::NAN, false),
    ] {
        let v = check(q0, &s[0], &Answer::Number(a));
        assert_eq!(v.correct, right, "{a}: {v:?}");
        assert_eq!(v.expected, "10 ± 1");
    }
    let v = check(q0, &s[0], &Answer::Number(12.0));
    assert_eq!(
        v.feedback,
        "Not quite: you answered 12, the simulation gives 10."
    );
    assert!(!check(q0, &s[0], &Answer::Options(vec![0])).correct);
    // Choice: option 0 (job 1 starts at 0) is lower than option 1 (mean wait 4.5).
    let v = check(q1, &s[1], &Answer::Options(vec![0]));
    assert!(v.correct && v.feedback == "Correct." && v.expected == "a");
    assert!(check(q1, &s[1], &Answer::Options(vec![0, 0])).correct);
    let v = check(q1, &s[1], &Answer::Options(vec![1]));
    assert!(!v.correct);
    assert_eq!(v.feedback, "Not quite: the correct answer is a.");
    assert!(!check(q1, &s[1], &Answer::Options(vec![0, 1])).correct);
    assert!(!check(q1, &s[1], &Answer::Options(vec![])).correct);
    // A tie: every tied option is needed.
    let ex = shipped("08-load-and-saturation.json");
    let s = ex.solve("08").unwrap();
    let q = &ex.questions[2];
    assert!(check(q, &s[2], &Answer::Options(vec![2, 1])).correct);
    assert!(!check(q, &s[2], &Answer::Options(vec![1])).correct);
    // Tolerance 0 means the exact value (integers here).
    let q = &ex.questions[0];
    assert!(check(q, &s[0], &Answer::Number(0.0)).correct);
    assert!(!check(q, &s[0], &Answer::Number(0.5)).correct);
}

#[test]
fn the_cli_prints_answers_and_checks_folders() {
    let root = env!("CARGO_MANIFEST_DIR");
    let file = format!("{root}/www/exercises/01-fcfs-vs-easy.json");
    let (code, out, err) = schedlab(&["exercise", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("fcfs-vs-easy — FCFS vs EASY"), "{out}");
    assert!(out.contains("answer: 2 s"), "{out}");
    assert!(out.contains("  * 1. Job 3 (value 13)"), "{out}");
    assert!(out.contains("answer: 5.25 ± 0.01 s"), "{out}");
    let (code, out, err) = schedlab(&["exercise", "--check-all", &format!("{root}/www/exercises")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("10 exercises checked\n"), "{out}");
    // A folder with a wrong exercise: exit 2, naming the file and the key.
    let dir = temp_dir("exercises");
    std::fs::write(dir.join("a.json"), base().to_string()).unwrap();
    let mut bad = base();
    bad["questions"][0]["answer"] = json!(3);
    std::fs::write(dir.join("b.json"), bad.to_string()).unwrap();
    let (code, _, err) = schedlab(&["exercise", "--check-all", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    let b = dir.join("b.json");
    assert_eq!(
        err.trim_end(),
        format!(
            "schedlab: {}: questions[0].answer: states 3 but the simulation gives 10 (tolerance 1)",
            b.display()
        )
    );
    let (code, _, err) = schedlab(&["exercise"]);
    assert_eq!(code, 2, "{err}");
    // The same exercise from a link.
    let link = format!(
        "https://example.org/#{}",
        shipped("01-fcfs-vs-easy.json").to_fragment()
    );
    let (code, out2, err) = schedlab(&["exercise", &link]);
    assert_eq!(code, 0, "{err}");
    assert!(out2.contains("  * 1. Job 3 (value 13)"), "{out2}");
    let empty = temp_dir("exercises-empty");
    let (code, _, err) = schedlab(&["exercise", "--check-all", empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no *.json exercise in this folder"), "{err}");
}

#[test]
fn exercises_travel_in_links() {
    for (name, text) in SHIPPED {
        let ex = Exercise::from_json(text, name).unwrap();
        let f = ex.to_fragment();
        assert!(f.starts_with("ex="), "{f}");
        let back = Exercise::from_fragment(&format!("#{f}")).unwrap().unwrap();
        assert_eq!(back, ex);
        assert_eq!(back.solve("link").unwrap(), ex.solve(name).unwrap());
    }
    let f = shipped("01-fcfs-vs-easy.json").to_fragment();
    // A cut or edited link is refused; other fragments are no exercise links.
    let cut = format!("{}00000000", &f[..f.len() - 8]);
    let e = Exercise::from_fragment(&cut).unwrap_err();
    assert!(
        e.to_string().starts_with("link: the link is damaged"),
        "{e}"
    );
    assert_eq!(Exercise::from_fragment("#e=abc.00000000"), Ok(None));
    assert_eq!(Exercise::from_fragment(""), Ok(None));
    // An invalid exercise in an intact link names the key.
    let mut v = base();
    v["questions"][0]["tolerance"] = json!(-1);
    let link = schedlab::modes::flat::link::pack_fragment("ex=", &v.to_string());
    let e = Exercise::from_fragment(&link).unwrap_err();
    assert_eq!(
        (e.source.as_str(), e.key.as_str()),
        ("link", "questions[0].tolerance")
    );
}

/// An exercise may run every mode: a moldable run's questions point into the comparison
/// (`reference.summary.…`, `runs.0.change.overall_pct`), with the numbers of
/// `schedlab moldable`.
#[test]
fn a_moldable_run_answers_with_the_numbers_of_schedlab_moldable() {
    use schedlab::limits::Limits;
    use schedlab::modes::moldable::run::run_moldable_with;
    let jobs = [
        "1 0 -1 100 8 -1 -1 8 100 -1 1 -1 -1 -1 -1 -1 -1 -1",
        "2 1 -1 50 4 -1 -1 4 50 -1 1 -1 -1 -1 -1 -1 -1 -1",
        "3 2 -1 80 8 -1 -1 8 80 -1 1 -1 -1 -1 -1 -1 -1 -1",
        "4 3 -1 20 2 -1 -1 2 20 -1 1 -1 -1 -1 -1 -1 -1 -1",
    ];
    let moldable = json!({"workload": {"swf": {"name": "jobs"}},
        "machine": {"flat": {"procs": 8}},
        "model": {"downey": {"sigma": 0.0, "range_factor": 2.0}},
        "strategy": "base"});
    let text = json!({
        "format": 1, "id": "moldable-run", "title": "A moldable run", "text": "…",
        "workloads": {"jobs": jobs},
        "runs": {"m": {"v": 2, "mode": "moldable", "experiment": moldable,
                       "strategies": ["base"]}},
        "questions": [
            {"kind": "numeric", "prompt": "Rigid mean turnaround?", "run": "m",
             "metric": "reference.summary.mean_turnaround", "answer": 0, "tolerance": 1e9},
            {"kind": "numeric", "prompt": "Change?", "run": "m",
             "metric": "runs.0.change.overall_pct", "answer": 0, "tolerance": 1e9}]
    })
    .to_string();
    let ex = Exercise::from_json(&text, "moldable.json").expect("a moldable run is accepted");
    let solved = ex.solve("moldable.json").expect("solves");
    let Some(Envelope::Moldable(s)) = ex.envelope("m") else {
        panic!("m is no moldable run")
    };
    let swf = jobs.join("\n");
    let cli = run_moldable_with(
        &s.experiment,
        &[],
        Some(TraceInput::from_bytes("jobs", swf.as_bytes())),
        &Limits::DEFAULT,
    )
    .unwrap();
    assert_eq!(number(&solved[0]), cli.reference.summary.mean_turnaround);
    assert_eq!(number(&solved[1]), cli.runs[0].change.overall_pct);
    assert!(cli.reference.summary.mean_turnaround > 0.0);
}
