//! Solving an exercise: every run it references is simulated once, through the same library
//! functions as the CLI (its mode's [`crate::modes::ModeRun`]: prepare → simulate → finish →
//! measure, any mode), and each question's correct value or options are read from the
//! results; [`check`] judges a student's answer. Answers the file states are compared with
//! the simulation, so a wrong exercise is refused (docs/exercises.md "How answers are checked").
//! [`Exercise::work`] runs every run for the page: the results, the solutions, and for flat runs
//! the per-job records and decision explanations its step-by-step replay needs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    exercise_limits, ErrorKind, Exercise, ExerciseError, Measure, Pick, Question, QuestionKind,
};
use crate::error::Error;
use crate::modes::envelope::Envelope;
pub use crate::modes::flat::report::FlatRun;
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::SimOptions;

/// The correct answer of one question, computed from the runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Expected {
    /// numeric and predict_start: the simulated value and the tolerance allowed.
    Number { value: f64, tolerance: f64 },
    /// choice: the correct option indices (ascending) and every option's value.
    Options {
        correct: Vec<usize>,
        values: Vec<f64>,
    },
}

/// The solution of question `question` (0-based).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    pub question: usize,
    pub expected: Expected,
}

impl Solution {
    /// The correct answer as text (`42`, `12.5 ± 0.5`, `option 2`, `options 1, 3`).
    pub fn describe(&self) -> String {
        match &self.expected {
            Expected::Number { value, tolerance } if *tolerance > 0.0 => {
                format!("{} ± {}", number(*value), number(*tolerance))
            }
            Expected::Number { value, .. } => number(*value),
            Expected::Options { correct, .. } if correct.len() == 1 => {
                format!("option {}", correct[0])
            }
            Expected::Options { correct, .. } => format!(
                "options {}",
                correct
                    .iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A student's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// To a numeric or predict_start question.
    Number(f64),
    /// To a choice question: the option indices chosen.
    Options(Vec<usize>),
}

/// The judgement of one answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub correct: bool,
    /// The correct answer as text ([`Solution::describe`], with the options' text).
    pub expected: String,
    /// One sentence for the student (the page shows the explanation after it).
    pub feedback: String,
}

/// A number as a student would write it: integers without decimals, others with up to
/// three (trailing zeros dropped).
pub fn number(v: f64) -> String {
    if v.is_finite() && v == v.round() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Judges `answer` to `question` against its `solution`. A number is correct when it is
/// within the tolerance of the simulated value (bounds included); a choice when exactly the
/// correct options are chosen.
pub fn check(question: &Question, solution: &Solution, answer: &Answer) -> Verdict {
    match (&solution.expected, answer) {
        (Expected::Number { value, tolerance }, Answer::Number(a)) => {
            let expected = solution.describe();
            if !a.is_finite() {
                return Verdict {
                    correct: false,
                    expected,
                    feedback: "That is not a number.".into(),
                };
            }
            let correct = within(*a, *value, *tolerance);
            let unit = question
                .unit
                .as_deref()
                .map(|u| format!(" {u}"))
                .unwrap_or_default();
            let feedback = if correct {
                format!("Correct: the simulation gives {}{unit}.", number(*value))
            } else {
                format!(
                    "Not quite: you answered {}{unit}, the simulation gives {}{unit}.",
                    number(*a),
                    number(*value)
                )
            };
            Verdict {
                correct,
                expected,
                feedback,
            }
        }
        (Expected::Options { correct, .. }, Answer::Options(chosen)) => {
            let mut c = chosen.clone();
            c.sort_unstable();
            c.dedup();
            let ok = &c == correct;
            let texts: Vec<String> = correct
                .iter()
                .map(|&i| {
                    question
                        .options
                        .get(i)
                        .map_or_else(|| format!("option {i}"), |o| o.text.clone())
                })
                .collect();
            let expected = texts.join("; ");
            let feedback = if ok {
                "Correct.".to_string()
            } else {
                format!("Not quite: the correct answer is {expected}.")
            };
            Verdict {
                correct: ok,
                expected,
                feedback,
            }
        }
        _ => Verdict {
            correct: false,
            expected: solution.describe(),
            feedback: "This question takes another kind of answer.".into(),
        },
    }
}

/// One run of an exercise, done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The run's name in the exercise (`easy`, or `main`).
    pub name: String,
    /// `flat`, `mesh` or `grid`.
    pub mode: String,
    /// What was run, in words (`EASY backfilling on 4 processors`).
    pub title: String,
    /// The results the questions' metrics read (`summary`, `jobs`, … by mode; docs/exercises.md).
    pub results: Value,
    /// Flat runs: what the replay needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flat: Option<FlatRun>,
}

/// Every run of an exercise and every question's solution: what the page shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Worked {
    pub runs: Vec<RunResult>,
    pub solutions: Vec<Solution>,
}

/// `a` within `tolerance` of `v` (with a relative slack of 1e-9 for rounding).
fn within(a: f64, v: f64, tolerance: f64) -> bool {
    (a - v).abs() <= tolerance + 1e-9 * v.abs().max(1.0)
}

impl Exercise {
    /// Runs every experiment a question refers to (once each) and returns each question's
    /// correct answer. An answer or `correct` the file states that disagrees with the
    /// simulation (beyond the tolerance) is an error of kind [`ErrorKind::WrongAnswer`]; a run
    /// that fails or a metric it does not have, of kind [`ErrorKind::Run`].
    pub fn solve(&self, source: &str) -> Result<Vec<Solution>, ExerciseError> {
        self.solve_with(source, &mut BTreeMap::new(), &mut |env| {
            let spec = RunSpec(env.clone());
            let workloads = spec
                .workload_names()
                .into_iter()
                .filter_map(|w| self.workload_text(&w).map(|t| (w, t)))
                .collect::<Vec<_>>();
            match simulate(&spec, &workloads, false).map_err(|e| e.to_string())? {
                Simulated::Done(v, _) => Ok(v),
                Simulated::Refused(m) => Err(m),
            }
        })
    }

    /// Runs every run of the exercise once (flat runs with their decision explanations) and
    /// solves every question from those results: what the page shows ([`Exercise::run_requests`]
    /// done by [`RunRequest::run`] in its worker, then [`Exercise::solve_from`]). A run that
    /// fails is an error of kind [`ErrorKind::Run`] naming the run's key (`runs.easy`).
    pub fn work(&self, source: &str) -> Result<Worked, ExerciseError> {
        let mut runs = Vec::with_capacity(self.envelopes().len());
        for req in self.run_requests() {
            runs.push(req.run().map_err(|message| ExerciseError {
                kind: ErrorKind::Run,
                source: source.to_string(),
                key: req.key.clone(),
                message,
            })?);
        }
        let solutions = self.solve_from(source, &runs)?;
        Ok(Worked { runs, solutions })
    }

    /// Every run of the exercise as a worker does it: the experiment and the inline workloads
    /// it reads (moldable runs are refused by validation and left out).
    pub fn run_requests(&self) -> Vec<RunRequest> {
        self.envelopes()
            .iter()
            .map(|(name, env)| {
                let spec = RunSpec(env.clone());
                let workloads = spec
                    .workload_names()
                    .into_iter()
                    .filter_map(|w| self.workload_text(&w).map(|t| (w, t)))
                    .collect();
                RunRequest {
                    name: name.clone(),
                    key: if self.experiment.is_some() {
                        "experiment".to_string()
                    } else {
                        format!("runs.{name}")
                    },
                    spec,
                    workloads,
                }
            })
            .collect()
    }

    /// Every question's solution from the results of runs done already (by
    /// [`RunRequest::run`]); nothing is simulated here — a question on a run not in `runs` is
    /// an error.
    pub fn solve_from(
        &self,
        source: &str,
        runs: &[RunResult],
    ) -> Result<Vec<Solution>, ExerciseError> {
        let mut results: BTreeMap<String, Value> = runs
            .iter()
            .map(|r| (r.name.clone(), r.results.clone()))
            .collect();
        self.solve_with(source, &mut results, &mut |_| {
            Err("it was not run".to_string())
        })
    }

    /// [`Exercise::solve`] with the results of the runs done so far; the others are done by
    /// `run` and added.
    fn solve_with(
        &self,
        source: &str,
        results: &mut BTreeMap<String, Value>,
        run: &mut dyn FnMut(&Envelope) -> Result<Value, String>,
    ) -> Result<Vec<Solution>, ExerciseError> {
        let mut out = Vec::with_capacity(self.questions.len());
        for (i, q) in self.questions.iter().enumerate() {
            let key = format!("questions[{i}]");
            let fail = |kind: ErrorKind, k: String, message: String| ExerciseError {
                kind,
                source: source.to_string(),
                key: k,
                message,
            };
            let expected = match q.kind {
                QuestionKind::Numeric | QuestionKind::PredictStart => {
                    let measure = Measure {
                        run: q.run.clone().unwrap_or_default(),
                        metric: q.metric.clone().unwrap_or_else(|| "start".into()),
                        job: q.job,
                        minus: None,
                    };
                    let value = self
                        .measure(&measure, results, run)
                        .map_err(|(k, m)| fail(ErrorKind::Run, format!("{key}.{k}"), m))?;
                    let tolerance = q.tolerance();
                    if let Some(a) = q.answer {
                        if !within(a, value, tolerance) {
                            return Err(fail(
                                ErrorKind::WrongAnswer,
                                format!("{key}.answer"),
                                format!(
                                    "states {} but the simulation gives {} (tolerance {})",
                                    number(a),
                                    number(value),
                                    number(tolerance)
                                ),
                            ));
                        }
                    }
                    Expected::Number { value, tolerance }
                }
                QuestionKind::Choice => {
                    let mut values = Vec::with_capacity(q.options.len());
                    for (j, o) in q.options.iter().enumerate() {
                        let v = self.measure(&o.value, results, run).map_err(|(k, m)| {
                            fail(ErrorKind::Run, format!("{key}.options[{j}].value.{k}"), m)
                        })?;
                        values.push(v);
                    }
                    let best = match q.pick {
                        Some(Pick::Highest) => values.iter().copied().fold(f64::MIN, f64::max),
                        _ => values.iter().copied().fold(f64::MAX, f64::min),
                    };
                    let correct: Vec<usize> = values
                        .iter()
                        .enumerate()
                        .filter(|(_, &v)| within(v, best, 0.0))
                        .map(|(j, _)| j)
                        .collect();
                    if let Some(stated) = &q.correct {
                        let mut s = stated.clone();
                        s.sort_unstable();
                        s.dedup();
                        if s != correct {
                            return Err(fail(
                                ErrorKind::WrongAnswer,
                                format!("{key}.correct"),
                                format!(
                                    "states {s:?} but the simulation makes {correct:?} correct \
                                     (option values {})",
                                    values
                                        .iter()
                                        .map(|v| number(*v))
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ),
                            ));
                        }
                    }
                    Expected::Options { correct, values }
                }
            };
            out.push(Solution {
                question: i,
                expected,
            });
        }
        Ok(out)
    }

    /// The value of `m`; an error names the key inside the measure (`run`, `metric`, `job`).
    fn measure(
        &self,
        m: &Measure,
        results: &mut BTreeMap<String, Value>,
        run: &mut dyn FnMut(&Envelope) -> Result<Value, String>,
    ) -> Result<f64, (String, String)> {
        if !results.contains_key(&m.run) {
            let Some(env) = self.envelope(&m.run) else {
                return Err(("run".into(), format!("no run named {:?}", m.run)));
            };
            let value = run(env)
                .map_err(|e| ("run".to_string(), format!("run {:?} failed: {e}", m.run)))?;
            results.insert(m.run.clone(), value);
        }
        let Some(result) = results.get(&m.run) else {
            return Err(("run".into(), format!("no result for run {:?}", m.run)));
        };
        let v = match m.job {
            Some(job) => {
                let record = result
                    .get("jobs")
                    .and_then(Value::as_array)
                    .ok_or_else(|| {
                        (
                            "job".to_string(),
                            format!("run {:?} has no per-job results (a grid run)", m.run),
                        )
                    })?
                    .iter()
                    .find(|r| r.get("id").and_then(Value::as_u64) == Some(job))
                    .ok_or_else(|| {
                        (
                            "job".to_string(),
                            format!("job {job} did not run in run {:?}", m.run),
                        )
                    })?;
                record
                    .get(&m.metric)
                    .and_then(Value::as_f64)
                    .ok_or_else(|| {
                        (
                            "metric".to_string(),
                            format!("jobs have no number {:?}", m.metric),
                        )
                    })?
            }
            None => {
                let mut at = result;
                for seg in m.metric.split('.') {
                    let next = match at {
                        Value::Object(map) => map.get(seg),
                        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
                        _ => None,
                    };
                    at = next.ok_or_else(|| {
                        (
                            "metric".to_string(),
                            format!(
                                "run {:?} has no metric {:?} (stuck at {seg:?}; it has {})",
                                m.run,
                                m.metric,
                                keys_of(at)
                            ),
                        )
                    })?;
                }
                at.as_f64().ok_or_else(|| {
                    (
                        "metric".to_string(),
                        format!("{:?} is not a number in run {:?}", m.metric, m.run),
                    )
                })?
            }
        };
        match &m.minus {
            Some(other) => {
                let w = self
                    .measure(other, results, run)
                    .map_err(|(k, msg)| (format!("minus.{k}"), msg))?;
                Ok(v - w)
            }
            None => Ok(v),
        }
    }
}

/// One run of an exercise as the page's worker does it ([`Exercise::run_requests`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// The run's name in the exercise (`easy`, or `main`).
    pub name: String,
    /// Its key in the exercise (`runs.easy`, `experiment`), for errors.
    pub key: String,
    pub spec: RunSpec,
    /// The inline SWF workloads it reads: (name, SWF text).
    pub workloads: Vec<(String, String)>,
}

/// The experiment of one run: an envelope of any mode, carried to the worker as its JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunSpec(pub Envelope);

impl RunSpec {
    /// The names of the inline workloads it reads.
    fn workload_names(&self) -> Vec<String> {
        self.0
            .link()
            .written_experiment()
            .workloads()
            .into_iter()
            .filter_map(|(_, w)| match w {
                WorkloadSpec::Swf(s) => s.name.clone(),
                WorkloadSpec::Synthetic(_) => None,
            })
            .collect()
    }
}

impl RunRequest {
    /// Simulates the run through the functions of the CLI (flat runs with their decision
    /// explanations and replay data); the error says why it could not be done.
    pub fn run(&self) -> Result<RunResult, String> {
        let exp = self.spec.0.link().written_experiment();
        match simulate(&self.spec, &self.workloads, true).map_err(|e| e.to_string())? {
            Simulated::Done(results, flat) => Ok(RunResult {
                name: self.name.clone(),
                mode: exp.mode().to_string(),
                title: exp.title(),
                results,
                flat,
            }),
            Simulated::Refused(m) => Err(m),
        }
    }
}

/// Simulates `spec` on the inline `workloads` (name, SWF text) with the exercise limits; the
/// result as JSON (`summary`, `jobs`, … by mode); with `explain`, a flat run records its decision
/// explanations and comes with its [`FlatRun`].
fn simulate(
    spec: &RunSpec,
    workloads: &[(String, String)],
    explain: bool,
) -> Result<Simulated, Error> {
    let limits = exercise_limits();
    let exp = spec.0.link().written_experiment();
    let mut traces = |w: &WorkloadSpec| {
        Ok(match w {
            WorkloadSpec::Swf(s) => s.name.as_ref().and_then(|name| {
                workloads
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(n, t)| TraceInput::from_bytes(n, t.as_bytes()))
            }),
            WorkloadSpec::Synthetic(_) => None,
        })
    };
    let options = SimOptions {
        timeline: false,
        explain,
    };
    let report = exp.run(&mut traces, &limits, options)?;
    if let Some(m) = report.refused() {
        return Ok(Simulated::Refused(m));
    }
    let values = report.values();
    let flat = if explain { report.replay() } else { None };
    Ok(Simulated::Done(values, flat))
}

/// A run's results (with a flat run's replay data when asked for), or why they cannot be used.
enum Simulated {
    Done(Value, Option<FlatRun>),
    Refused(String),
}

fn keys_of(v: &Value) -> String {
    match v {
        Value::Object(map) => map.keys().cloned().collect::<Vec<_>>().join(", "),
        Value::Array(a) => format!("indices 0 to {}", a.len().saturating_sub(1)),
        _ => "no keys".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_a_student_writes_them() {
        assert_eq!(number(2.0), "2");
        assert_eq!(number(-17.0), "-17");
        assert_eq!(number(5.25), "5.25");
        assert_eq!(number(29.833_333), "29.833");
        assert_eq!(number(0.5454), "0.545");
        assert_eq!(number(f64::NAN), "NaN");
    }

    #[test]
    fn tolerance_bounds_are_included_with_a_rounding_slack_only() {
        assert!(within(11.0, 10.0, 1.0));
        assert!(within(0.1 + 0.2, 0.3, 0.0));
        assert!(!within(10.000_001, 10.0, 0.0));
        assert!(!within(f64::NAN, 10.0, 1.0));
        let s = Solution {
            question: 0,
            expected: Expected::Options {
                correct: vec![1, 2],
                values: vec![0.5, 1.0, 1.0],
            },
        };
        assert_eq!(s.describe(), "options 1, 2");
    }
}
