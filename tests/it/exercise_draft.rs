//! The exercise editor's model (`exercise::draft`): a draft written as a teacher types it
//! becomes an exercise in the shipped format, its answers computed by the simulation; errors
//! name the draft's field; pasted SWF lines and shipped exercises read back into drafts.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::exercise::draft::{parse_swf_lines, Draft, DraftJob, DraftPolicy, DraftQuestion};
use schedlab::exercise::{catalog, Exercise, Expected, Pick, QuestionKind};
use schedlab::policy::order::PolicyAxes;
use schedlab::policy::PolicyKind;

use crate::common::{schedlab, temp_dir};

/// The default draft (FCFS and EASY on 4 processors, four jobs) with one question of each kind.
fn authored() -> Draft {
    let mut d = Draft::default();
    let mut start = DraftQuestion::new(QuestionKind::PredictStart);
    start.prompt = "When does job 3 start under EASY?".into();
    start.run = 1;
    start.job = "3".into();
    start.hints = "Job 2 is the head.\n\nWhen does job 1 end?".into();
    start.explanation = "Job 3 ends at 4, before the shadow time 10.".into();
    let mut wait = DraftQuestion::new(QuestionKind::Numeric);
    wait.run = 0;
    wait.tolerance = "0,5".into();
    let mut choice = DraftQuestion::new(QuestionKind::Choice);
    choice.options[0].text = "FCFS".into();
    choice.options[1].text = "EASY".into();
    d.questions = vec![start, wait, choice];
    d
}

#[test]
fn a_draft_solves_and_exports_the_shipped_format() {
    let d = authored();
    let ex = d.exercise(None).expect("valid");
    let names: Vec<&str> = ex.envelopes().iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["easy", "fcfs"]);
    let worked = ex.work("editor").expect("works");
    // FCFS: job 1 0–10, job 2 (4 procs) 10–15, jobs 3 and 4 at 15 → waits 0, 9, 13, 12.
    // EASY: job 3 (2 procs, 2 s) backfilled at 2 (ends 4 ≤ shadow 10) → waits 0, 9, 0, 12.
    let numbers: Vec<&Expected> = worked.solutions.iter().map(|s| &s.expected).collect();
    assert_eq!(
        numbers[0],
        &Expected::Number {
            value: 2.0,
            tolerance: 0.0
        }
    );
    assert_eq!(
        numbers[1],
        &Expected::Number {
            value: 8.5,
            tolerance: 0.5
        }
    );
    assert_eq!(
        numbers[2],
        &Expected::Options {
            correct: vec![1],
            values: vec![8.5, 5.25]
        }
    );
    let text = d.export_json(&worked.solutions).expect("exports");
    let back = Exercise::from_json(&text, "mine.json").expect("reads back");
    assert_eq!(back.questions[0].answer, Some(2.0));
    assert_eq!(back.questions[1].answer, Some(8.5));
    assert_eq!(back.questions[1].tolerance, Some(0.5));
    assert_eq!(back.questions[2].correct, Some(vec![1]));
    assert_eq!(
        back.questions[0].hints,
        ["Job 2 is the head.", "When does job 1 end?"]
    );
    assert_eq!(back.solve("mine.json").expect("verifies"), worked.solutions);
    assert_eq!(
        back.workloads["jobs"][2],
        "1 0 -1 10 2 -1 -1 2 10 -1 1 1 -1 -1 -1 -1 -1 -1"
    );
    assert!(text.starts_with("{\n  \"format\": 1,\n  \"id\": \"my-exercise\""));

    // The command line verifies the file and prints the page's answers.
    let dir = temp_dir("draft");
    let path = dir.join("mine.json");
    std::fs::write(&path, &text).expect("write");
    let (code, out, err) = schedlab(&["exercise", path.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("answer: 2 s\n"), "{out}");
    assert!(out.contains("answer: 8.5 ± 0.5 s\n"), "{out}");
    assert!(out.contains("* 1. EASY (value 5.25)"), "{out}");
    let (code, out, err) = schedlab(&["exercise", "--check-all", dir.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 exercises checked"), "{out}");
    // The link opens the same exercise.
    let link = Exercise::from_fragment(&back.to_fragment())
        .expect("link")
        .expect("some");
    assert_eq!(link.to_json(), back.to_json());
}

#[test]
fn errors_name_the_drafts_field() {
    let key = |d: &Draft| d.exercise(None).expect_err("refused").key;
    let mut d = authored();
    d.jobs[1].procs = "8".into();
    let e = d.exercise(None).expect_err("refused");
    assert_eq!(e.key, "jobs[1].procs");
    assert_eq!(e.message, "job 2 asks for 8 processors; the machine has 4");
    let mut d = authored();
    d.jobs[2].run_time = "ten".into();
    assert_eq!(key(&d), "jobs[2].run_time");
    let mut d = authored();
    d.jobs[3].submit = "0".into();
    assert_eq!(key(&d), "jobs[3].submit");
    let mut d = authored();
    d.procs = "0".into();
    assert_eq!(key(&d), "procs");
    let mut d = authored();
    d.policies
        .push(DraftPolicy::of(PolicyKind::Easy, &PolicyAxes::default()));
    let e = d.exercise(None).expect_err("refused");
    assert_eq!(
        (e.key.as_str(), e.message.as_str()),
        ("policies[2]", "the same policy as policies[1] (easy)")
    );
    let mut d = authored();
    d.policies[0].order = "nonsense".into();
    assert_eq!(key(&d), "policies[0]");
    let mut d = authored();
    d.questions[0].job = String::new();
    let e = d.exercise(None).expect_err("refused");
    assert_eq!(
        (e.key.as_str(), e.message.as_str()),
        ("questions[0].job", "missing: the SWF job number")
    );
    let mut d = authored();
    d.questions[1].metric = "summary.nothing here".into();
    assert_eq!(key(&d), "questions[1].metric");
    let mut d = authored();
    d.questions[1].tolerance = "-1".into();
    assert_eq!(key(&d), "questions[1].tolerance");
    let mut d = authored();
    d.questions[2].options[1].text = " ".into();
    assert_eq!(key(&d), "questions[2].options[1].text");
    let mut d = authored();
    d.id = "My Exercise".into();
    assert_eq!(key(&d), "id");
    // A job that does not exist is found by the simulation, naming the question.
    let mut d = authored();
    d.questions[0].job = "9".into();
    let ex = d.exercise(None).expect("valid");
    assert_eq!(
        ex.work("editor").expect_err("no job 9").key,
        "questions[0].job"
    );
}

#[test]
fn removing_a_policy_keeps_the_questions_on_theirs() {
    let mut d = authored();
    d.policies.push(DraftPolicy {
        backfilling: "conservative".into(),
        order: "sjf".into(),
        estimates: "predicted".into(),
    });
    d.questions[1].run = 2;
    assert_eq!(
        d.run_names().expect("names"),
        ["fcfs", "easy", "conservative-sjf-predicted"]
    );
    d.remove_policy(1);
    assert_eq!(
        d.questions[0].run, 0,
        "read the removed policy: now the first"
    );
    assert_eq!(d.questions[1].run, 1);
    assert_eq!(d.questions[2].options[1].run, 0);
    let ex = d.exercise(None).expect("valid");
    let run = ex.envelope("conservative-sjf-predicted").expect("run");
    let json = run.to_json();
    assert!(json.contains("\"policy\":\"conservative\""), "{json}");
    assert!(json.contains("\"estimates\":\"predicted\""), "{json}");
    assert!(json.contains("\"order\":\"sjf\""), "{json}");
}

#[test]
fn swf_lines_paste_into_the_jobs_table() {
    let text = "; MaxProcs: 8\n\n1 0 -1 10 2 -1 -1 2 20 -1 1 3 -1 -1 -1 -1 -1 -1\n7 5 -1 3 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";
    let p = parse_swf_lines(text).expect("reads");
    assert_eq!(p.machine, Some(8));
    assert_eq!(
        p.jobs,
        [
            DraftJob {
                submit: "0".into(),
                run_time: "10".into(),
                request: "20".into(),
                procs: "2".into(),
                user: "3".into()
            },
            DraftJob {
                submit: "5".into(),
                run_time: "3".into(),
                request: "3".into(),
                procs: "4".into(),
                user: "1".into()
            },
        ]
    );
    assert_eq!(
        parse_swf_lines("1 0 -1 10").expect_err("short"),
        "line 1: an SWF line has 18 fields (got 4)"
    );
    assert_eq!(
        parse_swf_lines("; c\n1 x -1 10 2 -1 -1 2 20 -1 1 3 -1 -1 -1 -1 -1 -1").expect_err("bad"),
        "line 2: field 2 (submit time): \"x\" is no number"
    );
    assert!(parse_swf_lines("; only a header").is_err());
}

#[test]
fn shipped_flat_exercises_read_back_into_drafts() {
    let mut read = 0;
    for (name, text) in catalog::SHIPPED {
        let ex = Exercise::from_json(text, name).expect("valid");
        let Some(d) = Draft::from_exercise(&ex) else {
            continue;
        };
        read += 1;
        let again = d.exercise(None).expect(name);
        let a: Vec<_> = ex
            .solve(name)
            .expect("solves")
            .into_iter()
            .map(|s| s.expected)
            .collect();
        let b: Vec<_> = again
            .solve(name)
            .expect("solves")
            .into_iter()
            .map(|s| s.expected)
            .collect();
        assert_eq!(a, b, "{name}");
        assert_eq!(d.questions.len(), ex.questions.len());
        assert_eq!(
            d.questions
                .iter()
                .filter(|q| q.pick == Pick::Highest)
                .count(),
            ex.questions
                .iter()
                .filter(|q| q.pick == Some(Pick::Highest))
                .count()
        );
    }
    assert!(read >= 2, "{read} shipped exercises read back");
}

#[test]
fn a_flat_link_gives_the_machine_and_the_policies() {
    use schedlab::modes::flat::link::ShareState;
    use schedlab::modes::flat::spec::{Experiment, MachineSpec};
    let mut exp = Experiment::for_trace("t.swf", PolicyKind::Easy);
    exp.machine = MachineSpec::Flat { procs: Some(16) };
    exp.queue.order = schedlab::policy::order::QueueOrder::parse("sjf").expect("order");
    let link = ShareState::new(exp, vec![PolicyKind::Fcfs, PolicyKind::Conservative]);
    let env = schedlab::modes::envelope::Envelope::Flat(link);
    let mut d = authored();
    d.questions[1].run = 1;
    d.from_flat_link(&format!("https://x/#{}", env.to_fragment()))
        .expect("reads");
    assert_eq!(d.procs, "16");
    assert_eq!(
        d.run_names().expect("names"),
        ["fcfs-sjf", "conservative-sjf"]
    );
    assert!(d.from_flat_link("#ex=abc").is_err());
}

#[test]
fn the_pages_fields_and_buttons_edit_the_draft() {
    let mut d = Draft::default();
    assert!(d.set("jobs.1.procs", "3"));
    assert!(d.set("policies.1.order", "sjf"));
    assert!(d.set("questions.0.run", "1"));
    assert!(d.set("title", "Mine"));
    assert!(!d.set("jobs.9.procs", "3"));
    assert!(!d.set("questions.0.run", "one"));
    assert!(!d.set("nothing", "x"));
    assert_eq!(d.jobs[1].procs, "3");
    assert_eq!(d.run_names().expect("names"), ["fcfs", "easy-sjf"]);
    assert_eq!(d.questions[0].run, 1);
    assert!(d.act("add-q:choice", 0, 0));
    assert!(d.set("questions.1.options.1.text", "EASY"));
    assert!(d.set("questions.1.pick", "highest"));
    assert_eq!(d.questions[1].pick, Pick::Highest);
    assert!(d.act("up-q", 1, 0));
    assert_eq!(d.questions[0].kind, QuestionKind::Choice);
    assert!(!d.act("up-q", 0, 0));
    assert!(d.act("add-opt", 0, 0));
    assert_eq!(d.questions[0].options.len(), 3);
    assert!(d.act("del-opt", 0, 2));
    assert!(d.act("add-policy", 0, 0));
    assert_eq!(d.run_names().expect("names"), ["fcfs", "easy-sjf", "easy"]);
    assert!(d.act("add-job", 0, 0));
    assert_eq!(d.jobs.len(), 5);
    assert_eq!(d.jobs[4].submit, "3");
    assert!(d.act("del-job", 0, 0));
    assert!(d.act("del-policy", 0, 0));
    assert!(!d.act("add-q:bogus", 0, 0));
    assert!(d.exercise(None).is_ok());
}
