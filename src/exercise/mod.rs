//! Exercises: a small JSON format for teaching the papers' ideas on tiny
//! workloads — a title, a Markdown text, one or more named experiments (each an experiment
//! envelope of [`crate::modes::envelope`]), inline SWF workloads small enough to follow by hand, and
//! questions whose correct answers are **computed by running the simulation**
//! ([`Exercise::solve`]), so an exercise can never state a wrong answer. The format is
//! documented in `docs/exercises.md`.
//!
//! ```json
//! {"format": 1, "id": "fcfs-vs-easy", "title": "…", "text": "Markdown …",
//!  "workloads": {"jobs": ["; MaxProcs: 4", "1 0 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1"]},
//!  "runs": {"easy": {"v": 2, "mode": "flat", "experiment": {
//!     "workload": {"swf": {"name": "jobs"}}, "machine": {"flat": {"procs": 4}}, "policy": "easy"}}},
//!  "questions": [{"kind": "predict_start", "prompt": "When does job 1 start?", "run": "easy",
//!                 "job": 1, "answer": 0, "hints": ["…"], "explanation": "…"}]}
//! ```
//!
//! * [`Exercise::from_json`] parses and validates (errors name the file and the key path,
//!   e.g. `questions[2].tolerance`; sizes bounded by the `MAX_EXERCISE_*` limits of
//!   [`crate::limits`]);
//! * [`Exercise::solve`] runs every experiment once through the library functions of the CLI
//!   ([`crate::modes::flat::run`], [`crate::modes::mesh::run`], [`crate::modes::grid::spec`]) and computes each question's
//!   correct value or options; an answer the file states that disagrees is an error;
//! * [`check`] judges a student's answer against a [`Solution`];
//! * a teacher publishes an exercise as a file or as a link (`#ex=`, [`Exercise::to_fragment`],
//!   [`Exercise::from_fragment`]: the share links' codec with a checksum).
//!
//! [`catalog`] holds the shipped exercises (`www/exercises/*.json`). For the page:
//! [`Exercise::work`] runs everything once (flat runs with the data of their step-by-step
//! replay), [`markdown`] renders the texts, [`answers`] keeps a student's answers and writes
//! the file exported for the teacher.

pub mod answers;
pub mod catalog;
pub mod draft;
pub mod markdown;
mod solve;

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::limits::{
    Limits, MAX_EXERCISE_BYTES, MAX_EXERCISE_JOBS, MAX_EXERCISE_OPTIONS, MAX_EXERCISE_QUESTIONS,
    MAX_EXERCISE_RUNS, MAX_EXERCISE_TEXT,
};
use crate::modes::envelope::Envelope;

pub use solve::{
    check, number as format_number, Answer, Expected, FlatRun, RunRequest, RunResult, RunSpec,
    Solution, Verdict, Worked,
};

/// The format version this build reads.
pub const EXERCISE_FORMAT: u32 = 1;

/// The name of the run given by `experiment` (an exercise with a single experiment).
pub const MAIN_RUN: &str = "main";

/// Fields of a job's record a question may ask about (with `job`).
pub const JOB_METRICS: [&str; 10] = [
    "submit",
    "start",
    "end",
    "wait",
    "turnaround",
    "slowdown",
    "bounded_slowdown",
    "run_time",
    "estimate",
    "procs",
];

/// What went wrong with an exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file is not a valid exercise (JSON, a key, a value, a limit).
    Format,
    /// A run could not be done, or a metric it names does not exist.
    Run,
    /// An answer the file states disagrees with the simulation.
    WrongAnswer,
}

/// An error in an exercise: the file, the key path and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ExerciseError {
    pub kind: ErrorKind,
    /// The file or link the exercise came from.
    pub source: String,
    /// Key path in the exercise (`questions[2].tolerance`; empty for the whole document).
    pub key: String,
    pub message: String,
}

impl fmt::Display for ExerciseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}: {}", self.source, self.message)
        } else {
            write!(f, "{}: {}: {}", self.source, self.key, self.message)
        }
    }
}

impl std::error::Error for ExerciseError {}

/// The kinds of question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// A number read from a run (`run`, `metric`, optional `job`), within `tolerance`.
    Numeric,
    /// One or more of `options`, the correct ones computed from their `value`s by `pick`.
    Choice,
    /// The start time of job `job` in run `run`, within `tolerance`.
    PredictStart,
}

/// How the correct options of a choice question are computed from their values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The option(s) with the lowest value (all of them on a tie).
    Lowest,
    /// The option(s) with the highest value.
    Highest,
}

/// A number read from a run: a metric of the run (`summary.mean_wait`), or of one job
/// (`job` = SWF job number, `metric` = `start`, `wait`, …); optionally minus another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub run: String,
    pub metric: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u64>,
    /// Subtract this measure (e.g. a job's start under FCFS minus under EASY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minus: Option<Box<Measure>>,
}

/// One option of a choice question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChoiceOption {
    /// What the student reads (Markdown).
    pub text: String,
    /// The number this option stands for; [`Pick`] chooses among them.
    pub value: Measure,
}

/// One question. Which keys it takes depends on `kind` (docs/exercises.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub kind: QuestionKind,
    /// The question (Markdown).
    pub prompt: String,
    /// numeric, predict_start: the run the number comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// numeric: the metric (`summary.mean_wait`, or with `job` a job field such as `wait`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// numeric (optional), predict_start (required): the SWF job number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<u64>,
    /// numeric, predict_start: the answer the author states; checked against the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<f64>,
    /// numeric, predict_start: how far an answer may be from the simulated value (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// numeric, predict_start: the unit shown next to the answer box (`s`, `%`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// choice: the options, 2 ..= MAX_EXERCISE_OPTIONS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ChoiceOption>,
    /// choice: how the correct options follow from their values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<Pick>,
    /// choice: the correct option indices (0-based) the author states; checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct: Option<Vec<usize>>,
    /// Shown one at a time on request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
    /// Shown after answering (Markdown).
    #[serde(default)]
    pub explanation: String,
}

impl Question {
    /// The tolerance of a numeric or predict_start question (0 when not given).
    pub fn tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(0.0)
    }

    /// What the question reads from the runs: the run (and job, if any) of its number, or of
    /// every option's value and what it subtracts. While the question is not settled these
    /// runs stay hidden in the page and these jobs' times stay out of its hover
    /// ([`answers::hidden_runs`], [`answers::secret_jobs`]).
    pub fn reads(&self) -> Vec<(&str, Option<u64>)> {
        let mut out = Vec::new();
        if let Some(run) = self.run.as_deref() {
            out.push((run, self.job));
        }
        for o in &self.options {
            let mut m = Some(&o.value);
            while let Some(x) = m {
                out.push((x.run.as_str(), x.job));
                m = x.minus.as_deref();
            }
        }
        out
    }
}

/// An exercise as its file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    /// Format version ([`EXERCISE_FORMAT`]).
    pub format: u32,
    /// Short identifier: lower-case letters, digits and `-`.
    pub id: String,
    pub title: String,
    /// The exercise's text (Markdown).
    pub text: String,
    /// Inline SWF workloads by name: one SWF line per string (`;` header lines allowed). A
    /// run uses one through `"workload": {"swf": {"name": "<name>"}}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workloads: BTreeMap<String, Vec<String>>,
    /// The single experiment of the exercise (an envelope), run under the name `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<serde_json::Value>,
    /// Named experiments (envelopes), e.g. `{"fcfs": …, "easy": …}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub runs: BTreeMap<String, serde_json::Value>,
    pub questions: Vec<Question>,
    /// The runs, validated (filled in by [`Exercise::from_json`]).
    #[serde(skip)]
    envelopes: Vec<(String, Envelope)>,
}

/// Prefix of an exercise link's fragment (after `#`): `#ex=` + base64url(JSON) + `.` +
/// checksum, the codec of every share link ([`crate::modes::flat::link::pack_fragment`]).
pub const EXERCISE_PREFIX: &str = "ex=";

/// Longest exercise fragment accepted: the base64url of [`MAX_EXERCISE_BYTES`] and a checksum.
pub const MAX_EXERCISE_FRAGMENT: usize = MAX_EXERCISE_BYTES / 3 * 4 + 16;

/// The limits an exercise's experiments are validated and run under: the defaults, with at
/// most [`MAX_EXERCISE_JOBS`] jobs per model or trace.
pub fn exercise_limits() -> Limits {
    Limits {
        max_jobs: MAX_EXERCISE_JOBS,
        max_trace_jobs: MAX_EXERCISE_JOBS,
        ..Limits::DEFAULT
    }
}

impl Exercise {
    /// Parses and validates an exercise; `source` (a file name, `link`) names it in errors.
    pub fn from_json(text: &str, source: &str) -> Result<Exercise, ExerciseError> {
        let fail = |key: String, message: String| ExerciseError {
            kind: ErrorKind::Format,
            source: source.to_string(),
            key,
            message,
        };
        if text.len() > MAX_EXERCISE_BYTES {
            return Err(fail(
                String::new(),
                format!(
                    "{} bytes is above the limit max_exercise_bytes = {MAX_EXERCISE_BYTES}",
                    text.len()
                ),
            ));
        }
        let mut ex: Exercise = crate::modes::flat::spec::parse_json(text)
            .map_err(|e| fail(if e.key == "." { String::new() } else { e.key }, e.message))?;
        ex.validate().map_err(|(k, m)| fail(k, m))?;
        Ok(ex)
    }

    /// The exercise as compact JSON (what [`Exercise::from_json`] reads back).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The fragment of a link that opens this exercise (without `#`): `ex=…`.
    pub fn to_fragment(&self) -> String {
        crate::modes::flat::link::pack_fragment(EXERCISE_PREFIX, &self.to_json())
    }

    /// Reads a link's fragment (with or without `#`): `Ok(None)` when it is no exercise link;
    /// a cut or edited link (checksum), or an invalid exercise, is an error with source `link`.
    pub fn from_fragment(fragment: &str) -> Result<Option<Exercise>, ExerciseError> {
        let fail = |message: String| ExerciseError {
            kind: ErrorKind::Format,
            source: "link".into(),
            key: String::new(),
            message,
        };
        let Some((text, checksum_ok)) = crate::modes::flat::link::unpack_fragment(
            fragment,
            EXERCISE_PREFIX,
            MAX_EXERCISE_FRAGMENT,
        )
        .map_err(fail)?
        else {
            return Ok(None);
        };
        if !checksum_ok {
            return Err(fail(
                "the link is damaged (its checksum does not match: was it cut or edited?)".into(),
            ));
        }
        Exercise::from_json(&text, "link").map(Some)
    }

    /// The runs by name, in name order, validated.
    pub fn envelopes(&self) -> &[(String, Envelope)] {
        &self.envelopes
    }

    /// The envelope of run `name`.
    pub fn envelope(&self, name: &str) -> Option<&Envelope> {
        self.envelopes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| e)
    }

    /// The inline workload `name` as SWF text.
    pub fn workload_text(&self, name: &str) -> Option<String> {
        self.workloads.get(name).map(|lines| {
            let mut s = lines.join("\n");
            s.push('\n');
            s
        })
    }

    fn validate(&mut self) -> Result<(), (String, String)> {
        let err = |k: &str, m: String| Err((k.to_string(), m));
        if self.format != EXERCISE_FORMAT {
            return err(
                "format",
                format!(
                    "exercise format {} is not supported (this build reads {EXERCISE_FORMAT})",
                    self.format
                ),
            );
        }
        if self.id.is_empty()
            || self.id.len() > 64
            || !self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return err(
                "id",
                format!(
                    "must be 1 to 64 lower-case letters, digits and `-` (got {:?})",
                    self.id
                ),
            );
        }
        check_text("title", &self.title, true)?;
        check_text("text", &self.text, true)?;
        // Workloads: bounded, every line an SWF line (read for real by the runs).
        for (name, lines) in &self.workloads {
            let key = format!("workloads.{name}");
            let jobs = lines
                .iter()
                .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
                .count();
            if jobs == 0 {
                return err(&key, "has no job line".into());
            }
            if jobs > MAX_EXERCISE_JOBS {
                return err(
                    &key,
                    format!(
                        "{jobs} jobs is above the limit max_exercise_jobs = {MAX_EXERCISE_JOBS}"
                    ),
                );
            }
            if let Some(i) = lines.iter().position(|l| l.contains('\n')) {
                return err(&format!("{key}[{i}]"), "one SWF line per string".into());
            }
        }
        // Runs: `experiment` or `runs`, each a valid envelope reading only inline workloads.
        let mut raw: Vec<(String, String, &serde_json::Value)> = Vec::new();
        match (&self.experiment, self.runs.is_empty()) {
            (Some(v), true) => raw.push((MAIN_RUN.into(), "experiment".into(), v)),
            (None, false) => {
                for (name, v) in &self.runs {
                    raw.push((name.clone(), format!("runs.{name}"), v));
                }
            }
            (Some(_), false) => return err("runs", "give `experiment` or `runs`, not both".into()),
            (None, true) => return err("runs", "missing: give `experiment` or `runs`".into()),
        }
        if raw.len() > MAX_EXERCISE_RUNS {
            return err(
                "runs",
                format!(
                    "{} runs is above the limit max_exercise_runs = {MAX_EXERCISE_RUNS}",
                    raw.len()
                ),
            );
        }
        let limits = exercise_limits();
        let mut envelopes = Vec::with_capacity(raw.len());
        for (name, key, v) in raw {
            if name.is_empty() || name.len() > 32 {
                return err(&key, "a run's name must have 1 to 32 characters".into());
            }
            let env =
                Envelope::from_json_with(&v.to_string(), &limits).map_err(|m| (key.clone(), m))?;
            for (wkey, wname) in workload_names(&env) {
                match wname {
                    Some(w) if self.workloads.contains_key(&w) => {}
                    Some(w) => {
                        return err(
                            &format!("{key}.{wkey}.name"),
                            format!("names the workload {w:?}, which `workloads` does not have"),
                        )
                    }
                    None => {
                        return err(
                            &format!("{key}.{wkey}"),
                            "an exercise reads only its inline `workloads`: give `name`".into(),
                        )
                    }
                }
            }
            envelopes.push((name, env));
        }
        self.envelopes = envelopes;
        // Questions.
        if self.questions.is_empty() || self.questions.len() > MAX_EXERCISE_QUESTIONS {
            return err(
                "questions",
                format!(
                    "needs 1 to {MAX_EXERCISE_QUESTIONS} questions (got {})",
                    self.questions.len()
                ),
            );
        }
        for (i, q) in self.questions.iter().enumerate() {
            self.validate_question(&format!("questions[{i}]"), q)?;
        }
        Ok(())
    }

    fn check_run(&self, key: &str, run: &Option<String>) -> Result<(), (String, String)> {
        match run {
            None => Err((key.to_string(), "missing".into())),
            Some(r) if self.envelope(r).is_some() => Ok(()),
            Some(r) => Err((
                key.to_string(),
                format!(
                    "no run named {r:?} (runs: {})",
                    self.envelopes
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    fn check_measure(&self, key: &str, m: &Measure, depth: usize) -> Result<(), (String, String)> {
        self.check_run(&format!("{key}.run"), &Some(m.run.clone()))?;
        check_metric(&format!("{key}.metric"), &m.metric, m.job)?;
        if let Some(inner) = &m.minus {
            if depth >= 1 {
                return Err((format!("{key}.minus"), "may not be nested".into()));
            }
            self.check_measure(&format!("{key}.minus"), inner, depth + 1)?;
        }
        Ok(())
    }

    fn validate_question(&self, key: &str, q: &Question) -> Result<(), (String, String)> {
        let at = |k: &str| format!("{key}.{k}");
        let forbid = |k: &str, present: bool| {
            if present {
                Err((
                    at(k),
                    format!("not a key of a {} question", kind_name(q.kind)),
                ))
            } else {
                Ok(())
            }
        };
        check_text(&at("prompt"), &q.prompt, true)?;
        check_text(&at("explanation"), &q.explanation, false)?;
        if q.hints.len() > MAX_EXERCISE_OPTIONS {
            return Err((
                at("hints"),
                format!(
                    "at most {MAX_EXERCISE_OPTIONS} hints (got {})",
                    q.hints.len()
                ),
            ));
        }
        for (i, h) in q.hints.iter().enumerate() {
            check_text(&format!("{key}.hints[{i}]"), h, true)?;
        }
        if let Some(u) = &q.unit {
            check_text(&at("unit"), u, false)?;
        }
        match q.kind {
            QuestionKind::Numeric | QuestionKind::PredictStart => {
                forbid("options", !q.options.is_empty())?;
                forbid("pick", q.pick.is_some())?;
                forbid("correct", q.correct.is_some())?;
                self.check_run(&at("run"), &q.run)?;
                if q.kind == QuestionKind::PredictStart {
                    forbid("metric", q.metric.is_some())?;
                    if q.job.is_none() {
                        return Err((at("job"), "missing: the SWF job number".into()));
                    }
                } else {
                    match &q.metric {
                        Some(m) => check_metric(&at("metric"), m, q.job)?,
                        None => return Err((at("metric"), "missing".into())),
                    }
                }
                if let Some(t) = q.tolerance {
                    if !(t.is_finite() && t >= 0.0) {
                        return Err((at("tolerance"), format!("must be a number ≥ 0 (got {t})")));
                    }
                }
                if let Some(a) = q.answer {
                    if !a.is_finite() {
                        return Err((at("answer"), format!("must be a finite number (got {a})")));
                    }
                }
            }
            QuestionKind::Choice => {
                for k in ["run", "metric", "job", "answer", "tolerance", "unit"] {
                    let present = match k {
                        "run" => q.run.is_some(),
                        "metric" => q.metric.is_some(),
                        "job" => q.job.is_some(),
                        "answer" => q.answer.is_some(),
                        "tolerance" => q.tolerance.is_some(),
                        _ => q.unit.is_some(),
                    };
                    forbid(k, present)?;
                }
                if q.options.len() < 2 || q.options.len() > MAX_EXERCISE_OPTIONS {
                    return Err((
                        at("options"),
                        format!(
                            "needs 2 to {MAX_EXERCISE_OPTIONS} options (got {})",
                            q.options.len()
                        ),
                    ));
                }
                for (i, o) in q.options.iter().enumerate() {
                    let ok = format!("{key}.options[{i}]");
                    check_text(&format!("{ok}.text"), &o.text, true)?;
                    self.check_measure(&format!("{ok}.value"), &o.value, 0)?;
                }
                if q.pick.is_none() {
                    return Err((
                        at("pick"),
                        "missing: `lowest` or `highest` (how the correct option is computed)"
                            .into(),
                    ));
                }
                if let Some(c) = &q.correct {
                    if c.is_empty() {
                        return Err((at("correct"), "names no option".into()));
                    }
                    if let Some((j, &bad)) =
                        c.iter().enumerate().find(|(_, &i)| i >= q.options.len())
                    {
                        return Err((
                            format!("{key}.correct[{j}]"),
                            format!(
                                "option {bad} does not exist (options are numbered 0 to {})",
                                q.options.len() - 1
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn kind_name(k: QuestionKind) -> &'static str {
    match k {
        QuestionKind::Numeric => "numeric",
        QuestionKind::Choice => "choice",
        QuestionKind::PredictStart => "predict_start",
    }
}

/// A text must be at most [`MAX_EXERCISE_TEXT`] characters (and not empty if `required`).
fn check_text(key: &str, text: &str, required: bool) -> Result<(), (String, String)> {
    let n = text.chars().count();
    if required && text.trim().is_empty() {
        return Err((key.to_string(), "must not be empty".into()));
    }
    if n > MAX_EXERCISE_TEXT {
        return Err((
            key.to_string(),
            format!("{n} characters is above the limit max_exercise_text = {MAX_EXERCISE_TEXT}"),
        ));
    }
    Ok(())
}

/// A job metric must be one of [`JOB_METRICS`]; a run metric a dotted path of names and
/// indices (`summary.mean_wait`, `sites.0.submitted.awrt`), resolved when the run is done.
fn check_metric(key: &str, metric: &str, job: Option<u64>) -> Result<(), (String, String)> {
    if job.is_some() {
        if !JOB_METRICS.contains(&metric) {
            return Err((
                key.to_string(),
                format!(
                    "unknown job metric {metric:?} (expected {})",
                    JOB_METRICS.join(", ")
                ),
            ));
        }
        return Ok(());
    }
    let ok = !metric.is_empty()
        && metric.len() <= 100
        && metric
            .split('.')
            .all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    if ok {
        Ok(())
    } else {
        Err((
            key.to_string(),
            format!("{metric:?} is no metric path (e.g. summary.mean_wait)"),
        ))
    }
}

/// The SWF sources of an envelope: (key path inside the envelope, workload `name`).
fn workload_names(env: &Envelope) -> Vec<(String, Option<String>)> {
    use crate::modes::flat::spec::WorkloadSpec;
    env.link()
        .written_experiment()
        .workloads()
        .into_iter()
        .filter_map(|(key, w)| match w {
            WorkloadSpec::Swf(s) => Some((
                format!("{key}.swf"),
                if s.path.is_some() {
                    None
                } else {
                    s.name.clone()
                },
            )),
            WorkloadSpec::Synthetic(_) => None,
        })
        .collect()
}
