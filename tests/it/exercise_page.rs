//! The pure pieces of the page's Exercises mode: `Exercise::work` (every run
//! once, the solutions, the flat runs' replay data), the Markdown subset (escaped, no markup
//! gets through), the answers kept in the browser and the exported answers file, "predict,
//! then reveal" (which runs and jobs stay hidden), and the number a student types.
#![cfg(not(target_arch = "wasm32"))]

use schedlab::exercise::answers::{
    hidden_runs, parse_number, secret_jobs, storage_key, AnswersFile, ExerciseAnswers,
    ANSWERS_FORMAT,
};
use schedlab::exercise::markdown::to_html;
use schedlab::exercise::{catalog, check, Answer, Exercise, QuestionKind};
use schedlab::sim::replay::Replay;

fn shipped(id: &str) -> Exercise {
    catalog::get(id).expect("shipped").expect("valid")
}

#[test]
fn work_runs_every_run_once_and_solves_like_solve() {
    for (name, text) in catalog::SHIPPED {
        let ex = Exercise::from_json(text, name).expect("valid");
        let worked = ex.work(name).expect("works");
        assert_eq!(worked.solutions, ex.solve(name).expect("solves"), "{name}");
        let names: Vec<&str> = worked.runs.iter().map(|r| r.name.as_str()).collect();
        let want: Vec<&str> = ex.envelopes().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, want, "{name}");
        for r in &worked.runs {
            assert_eq!(r.flat.is_some(), r.mode == "flat", "{name} {}", r.name);
            if let Some(f) = &r.flat {
                assert!(!f.explanations.is_empty(), "{name} {}", r.name);
                assert_eq!(
                    f.jobs.len() as f64,
                    r.results["summary"]["jobs"].as_f64().unwrap()
                );
            }
        }
        // The page solves from the worker's results and never simulates: without the runs,
        // a question is an error naming its key.
        if let Err(e) = ex.solve_from(name, &[]) {
            assert!(
                e.key.starts_with("questions[0]") && e.message.contains("not run"),
                "{e}"
            );
        } else {
            panic!("{name}: solved without runs");
        }
        // The requests and the report survive the worker's JSON.
        let req = ex.run_requests();
        let back: Vec<schedlab::exercise::RunRequest> =
            serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
        assert_eq!(back, req, "{name}");
        let back: schedlab::exercise::Worked =
            serde_json::from_str(&serde_json::to_string(&worked).unwrap()).unwrap();
        assert_eq!(back, worked, "{name}");
    }
}

/// Exercise 01 under EASY, at t=2 (the instant job 3 is backfilled): job 2 (4 processors) is
/// the blocked head, shadow time 10, 0 extra; job 3 ends by 7 ≤ 10. The e2e suite checks the
/// page shows this step.
#[test]
fn exercise_one_easy_replay_at_the_backfill() {
    let ex = shipped("fcfs-vs-easy");
    let w = ex.work("01").expect("works");
    let easy = w.runs.iter().find(|r| r.name == "easy").unwrap();
    assert_eq!(easy.title, "EASY backfilling on 4 processors");
    let f = easy.flat.clone().unwrap();
    let r = Replay::new(f.procs, f.jobs, f.explanations);
    let s = r.state_at(2.0);
    let h = s.head.unwrap();
    assert_eq!(
        (h.id, h.needs, h.shadow, h.extra),
        (2, 4, Some(10.0), Some(0))
    );
    assert_eq!(
        s.queue.iter().map(|q| q.id).collect::<Vec<_>>(),
        vec![2],
        "job 3 started"
    );
    assert_eq!(s.decisions.len(), 1);
    assert_eq!(s.decisions[0].kind, "before_shadow");
    assert!(s.decisions[0].text.contains("ahead of head job 2"));
    // Exercise 02 under conservative at t=3: every queued job's reservation.
    let ex = shipped("easy-vs-conservative");
    let w = ex.work("02").expect("works");
    let cons = w.runs.iter().find(|r| r.name == "conservative").unwrap();
    let f = cons.flat.clone().unwrap();
    let r = Replay::new(f.procs, f.jobs, f.explanations);
    let q: Vec<(u64, Option<f64>)> = r
        .state_at(3.0)
        .queue
        .iter()
        .map(|q| (q.id, q.reservation))
        .collect();
    assert_eq!(q, vec![(2, Some(10.0)), (3, Some(10.0)), (4, Some(20.0))]);
    assert_eq!(
        r.state_at(3.0).decisions[0].text,
        "reserved 1 processor from t = 20 s (the earliest time it is free for its whole estimate)"
    );
}

#[test]
fn a_problem_names_the_file_and_key() {
    // On 2 processors the 4-processor job 2 is dropped: the question on it cannot be solved.
    let text = catalog::SHIPPED[0]
        .1
        .replace("\"procs\": 4", "\"procs\": 2");
    let ex = Exercise::from_json(&text, "small.json").expect("valid");
    let e = ex.work("small.json").unwrap_err();
    assert_eq!(e.kind, schedlab::exercise::ErrorKind::Run);
    assert_eq!(
        e.to_string(),
        "small.json: questions[1].options[0].value.job: job 2 did not run in run \"fcfs\""
    );
}

#[test]
fn markdown_subset_and_escaping() {
    let html = to_html(
        "A machine has **4 processors**, the *head* and `io_side`; snake_case_name stays.\n\
         Same paragraph.\n\n\
         | job | submit |\n|---:|:---|\n| 1 | 0 |\n| 2 | 1 |\n\n\
         * one\n* two\n  continued\n\n1. first\n2. second\n\n## Title\n\n\
         <script>alert(1)</script> & \"q\" [ok](https://example.org/a?b=1&c=2) \
         [bad](javascript:alert(1)) \\*not em\\*",
    );
    assert!(html.contains("<p>A machine has <strong>4 processors</strong>, the <em>head</em> and <code>io_side</code>; snake_case_name stays. Same paragraph.</p>"), "{html}");
    assert!(
        html.contains(
            "<th style=\"text-align: right\">job</th><th style=\"text-align: left\">submit</th>"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<tr><td style=\"text-align: right\">2</td><td style=\"text-align: left\">1</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains("<ul>\n<li>one</li>\n<li>two continued</li>\n</ul>"),
        "{html}"
    );
    assert!(
        html.contains("<ol>\n<li>first</li>\n<li>second</li>\n</ol>"),
        "{html}"
    );
    assert!(html.contains("<h4>Title</h4>"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;"),
        "{html}"
    );
    assert!(html.contains(r#"<a href="https://example.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">ok</a>"#), "{html}");
    assert!(html.contains("[bad](javascript:alert(1))"), "{html}");
    assert!(html.contains("*not em*"), "{html}");
    // Unclosed marks stay text; nothing panics on odd input.
    assert_eq!(to_html("**a *b `c"), "<p>**a *b `c</p>\n");
    for s in [
        "|",
        "| a |\n|-",
        "1.",
        "```",
        "*",
        "[",
        "[a](",
        "\\",
        "# ",
        "|---|\n|---|",
    ] {
        let _ = to_html(s);
    }
    // Every shipped exercise's text renders with its table.
    for (name, text) in catalog::SHIPPED {
        let ex = Exercise::from_json(text, name).unwrap();
        let html = to_html(&ex.text);
        assert!(
            !html.contains("| "),
            "{name}: a table line left as text: {html}"
        );
    }
}

#[test]
fn answers_are_kept_per_question_and_exported() {
    let ex = shipped("fcfs-vs-easy");
    let solutions = ex.solve("01").unwrap();
    let mut a = ExerciseAnswers::new(&ex.id, &ex.title);
    let wrong = Answer::Number(15.0);
    let v = check(&ex.questions[0], &solutions[0], &wrong);
    assert!(!v.correct);
    a.record(
        0,
        QuestionKind::PredictStart,
        &wrong,
        &v,
        "2025-01-01T10:00:00.000Z",
    );
    let right = Answer::Number(2.0);
    let v = check(&ex.questions[0], &solutions[0], &right);
    assert!(v.correct);
    a.record(
        0,
        QuestionKind::PredictStart,
        &right,
        &v,
        "2025-01-01T10:01:00.000Z",
    );
    let pick = Answer::Options(vec![1]);
    let v = check(&ex.questions[1], &solutions[1], &pick);
    a.record(
        1,
        QuestionKind::Choice,
        &pick,
        &v,
        "2025-01-01T10:02:00.000Z",
    );
    a.show_hints(2, 1);
    assert_eq!(a.get(0).unwrap().attempts, 2);
    assert_eq!(a.get(0).unwrap().answer(), right);
    assert_eq!(a.get(1).unwrap().answer(), pick);
    assert_eq!(a.score(), (2, 2));
    assert_eq!(
        (a.hints_shown(2), a.hints_shown(0), a.hints_shown(9)),
        (1, 0, 0)
    );
    // Stored and read back; a damaged entry is ignored.
    assert_eq!(ExerciseAnswers::from_json(&a.to_json()), Some(a.clone()));
    assert_eq!(ExerciseAnswers::from_json("{\"id\": 3}"), None);
    assert_eq!(ExerciseAnswers::from_json("not json"), None);
    assert_eq!(storage_key("fcfs-vs-easy"), "schedlab.answers.fcfs-vs-easy");
    // The file.
    let b = ExerciseAnswers::new("a-first", "A");
    let file = AnswersFile::new(vec![a.clone(), b], "2025-01-01T11:00:00.000Z");
    let text = file.to_json();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["format"], ANSWERS_FORMAT);
    assert_eq!(v["version"], 1);
    assert_eq!(v["exported"], "2025-01-01T11:00:00.000Z");
    assert_eq!(v["exercises"][0]["id"], "a-first");
    let q0 = &v["exercises"][1]["answers"][0];
    assert_eq!(
        (
            q0["question"].as_u64(),
            q0["number"].as_f64(),
            q0["correct"].as_bool()
        ),
        (Some(0), Some(2.0), Some(true))
    );
    assert_eq!(v["exercises"][1]["answers"][1]["options"][0], 1);
    assert_eq!(AnswersFile::from_json(&text, "a.json").unwrap(), file);
    let e = AnswersFile::from_json(&text.replace("\"version\": 1", "\"version\": 2"), "a.json")
        .unwrap_err();
    assert!(e.starts_with("a.json: version:"), "{e}");
    let e = AnswersFile::from_json("{\"format\": 1}", "a.json").unwrap_err();
    assert!(e.starts_with("a.json: format:"), "{e}");
}

#[test]
fn runs_stay_hidden_until_their_questions_are_settled() {
    let names = |s: std::collections::BTreeSet<String>| s.into_iter().collect::<Vec<_>>().join(",");
    let ex = shipped("fcfs-vs-easy");
    let solutions = ex.solve("01").unwrap();
    let mut a = ExerciseAnswers::new(&ex.id, &ex.title);
    // Question 1 reads EASY's job 3, question 2 both runs' jobs, question 3 EASY's summary.
    assert_eq!(ex.questions[0].reads(), vec![("easy", Some(3))]);
    assert_eq!(names(hidden_runs(&ex, &a)), "easy,fcfs");
    assert!(secret_jobs(&ex, &a, "easy").contains(&3));
    // A wrong answer settles nothing; "Show the answer" after it does, and is kept over a
    // later check.
    let wrong = Answer::Number(15.0);
    let v = check(&ex.questions[0], &solutions[0], &wrong);
    a.record(0, QuestionKind::PredictStart, &wrong, &v, "t1");
    assert!(!a.settled(0));
    assert!(!a.give_up(1), "no answer to give up on");
    assert!(a.give_up(0));
    assert!(a.settled(0) && !a.get(0).unwrap().correct);
    a.record(0, QuestionKind::PredictStart, &wrong, &v, "t2");
    assert!(a.get(0).unwrap().gave_up && a.get(0).unwrap().attempts == 2);
    // Every question settled: every run shown, no secret job.
    for (i, answer) in [(1, Answer::Options(vec![1])), (2, Answer::Number(5.25))] {
        let v = check(&ex.questions[i], &solutions[i], &answer);
        assert!(v.correct, "{i}");
        a.record(i, ex.questions[i].kind, &answer, &v, "t3");
    }
    assert!(hidden_runs(&ex, &a).is_empty());
    assert!(secret_jobs(&ex, &a, "easy").is_empty());
    // Revealed early: runs shown, the pending questions' jobs still secret; noted once.
    let mut b = ExerciseAnswers::new(&ex.id, &ex.title);
    b.reveal("t4");
    b.reveal("t5");
    assert!(hidden_runs(&ex, &b).is_empty());
    assert!(secret_jobs(&ex, &b, "easy").contains(&3));
    assert_eq!(b.revealed.as_deref(), Some("t4"));
    let back = ExerciseAnswers::from_json(&a.to_json()).unwrap();
    assert_eq!(back, a);
    assert!(a.to_json().contains("\"gave_up\":true") && !a.to_json().contains("revealed"));
    assert!(b.to_json().contains("\"revealed\":\"t4\""));
}

#[test]
fn numbers_as_students_type_them() {
    assert_eq!(parse_number(" 12.5 ", None), Ok(12.5));
    assert_eq!(parse_number("12,5 s", Some("s")), Ok(12.5));
    assert_eq!(parse_number("20s", Some("s")), Ok(20.0));
    assert_eq!(parse_number("1e3", None), Ok(1000.0));
    assert_eq!(
        parse_number("", Some("s")).unwrap_err().to_string(),
        "Type a number first."
    );
    assert_eq!(
        parse_number(" ten ", None).unwrap_err().to_string(),
        "\"ten\" is not a number (e.g. 12.5)."
    );
    assert!(parse_number("inf", None).is_err());
    assert!(parse_number("NaN", None).is_err());
    assert!(parse_number("1,2,3", None).is_err());
}
