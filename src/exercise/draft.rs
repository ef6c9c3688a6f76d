//! The exercise editor's model: an exercise as a teacher writes it in the page — a small
//! jobs table (submit, run time, request, processors, user), a machine size, the flat policies
//! to compare (backfilling × queue order × estimates, as the flat tab's policy builder offers)
//! and questions — every number kept as typed, so that a value a teacher has not finished
//! typing is an error naming its field rather than lost.
//!
//! [`Draft::exercise`] turns it into an [`Exercise`] through [`Exercise::from_json`] (the one
//! validation path of shipped files; its errors name the key, and a run's key `runs.<name>` is
//! told as the policy's, `policies[i]`); with the solutions computed by the simulation
//! ([`Exercise::solve_from`]) it writes each question's `answer` or `correct`, so the exported
//! file ([`Draft::export_json`]) is in the shipped format and `schedlab exercise --check`
//! verifies it. [`parse_swf_lines`] reads pasted SWF lines into jobs; [`Draft::from_flat_link`]
//! takes the machine size and the policies of a flat experiment's link.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::{ErrorKind, Exercise, ExerciseError, Expected, Pick, QuestionKind, Solution};
use crate::limits::{MAX_EXERCISE_JOBS, MAX_EXERCISE_RUNS};
use crate::modes::envelope::Envelope;
use crate::policy::order::{parse_policy, Estimates, PolicyAxes, PolicyNameError, QueueOrder};
use crate::policy::PolicyKind;

/// The name errors give an exercise being edited.
pub const DRAFT_SOURCE: &str = "editor";

/// The name of the draft's one workload in the exported file.
pub const DRAFT_WORKLOAD: &str = "jobs";

/// One job of the jobs table, as typed. The job's number is its row (1, 2, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DraftJob {
    pub submit: String,
    pub run_time: String,
    /// The run-time request (the estimate backfilling plans with); empty: the run time.
    pub request: String,
    pub procs: String,
    /// The user's number (SWF field 12; predicted estimates read it); empty: 1.
    pub user: String,
}

impl DraftJob {
    /// A job from numbers.
    pub fn new(submit: f64, run_time: f64, request: f64, procs: u32) -> DraftJob {
        DraftJob {
            submit: super::format_number(submit),
            run_time: super::format_number(run_time),
            request: super::format_number(request),
            procs: procs.to_string(),
            user: "1".into(),
        }
    }
}

/// One policy to compare, as the flat tab's builder names it: backfilling (`fcfs`, `easy`,
/// `conservative`), queue order (a name of the `order` registry) and estimates (`request`,
/// `exact`, `predicted`, `2x`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftPolicy {
    pub backfilling: String,
    pub order: String,
    pub estimates: String,
}

impl DraftPolicy {
    /// The policy `kind` with `axes` (its queue order and estimates).
    pub fn of(kind: PolicyKind, axes: &PolicyAxes) -> DraftPolicy {
        DraftPolicy {
            backfilling: kind.as_str().to_string(),
            order: axes.order.name(),
            estimates: axes.estimates.name(),
        }
    }

    /// The policy and its axes, or why not.
    pub fn parse(&self) -> Result<(PolicyKind, PolicyAxes), PolicyNameError> {
        let name = format!(
            "{}:{}::{}",
            self.backfilling.trim(),
            self.order.trim(),
            self.estimates.trim()
        );
        parse_policy(&name)
    }

    /// The run's name in the exercise: the backfilling, then the order and the estimates
    /// when not the default (`easy`, `easy-sjf`, `conservative-predicted`).
    pub fn run_name(&self) -> Result<String, PolicyNameError> {
        let (kind, axes) = self.parse()?;
        let mut name = kind.as_str().to_string();
        if !axes.order.is_arrival() {
            name.push('-');
            name.push_str(&axes.order.name());
        }
        if axes.estimates != Estimates::Request {
            name.push('-');
            name.push_str(&axes.estimates.name());
        }
        Ok(name)
    }
}

/// One option of a choice question: its text and the number it stands for (a run's metric,
/// or with `job` a job's).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DraftOption {
    pub text: String,
    /// Index into the draft's policies.
    pub run: usize,
    pub metric: String,
    /// The job's number, as typed; empty for a run's metric.
    pub job: String,
}

/// One question, as typed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DraftQuestion {
    pub kind: QuestionKind,
    pub prompt: String,
    /// numeric, predict_start: index into the draft's policies.
    pub run: usize,
    /// numeric: a run metric (`summary.mean_wait`) or, with `job`, a job field (`wait`).
    pub metric: String,
    /// predict_start (required), numeric (optional): the job's number, as typed.
    pub job: String,
    /// numeric, predict_start: as typed; empty: 0.
    pub tolerance: String,
    pub unit: String,
    /// choice.
    pub options: Vec<DraftOption>,
    pub pick: Pick,
    /// One hint per line.
    pub hints: String,
    pub explanation: String,
}

impl DraftQuestion {
    /// A new question of `kind` with its fields filled with a usable start.
    pub fn new(kind: QuestionKind) -> DraftQuestion {
        let (prompt, metric, job, unit) = match kind {
            QuestionKind::PredictStart => ("When does job 1 start?", "", "1", "s"),
            QuestionKind::Numeric => ("What is the mean wait?", "summary.mean_wait", "", "s"),
            QuestionKind::Choice => ("Which policy gives the lower mean wait?", "", "", ""),
        };
        let options = if kind == QuestionKind::Choice {
            (0..2)
                .map(|run| DraftOption {
                    text: format!("Policy {}", run + 1),
                    run,
                    metric: "summary.mean_wait".into(),
                    job: String::new(),
                })
                .collect()
        } else {
            Vec::new()
        };
        DraftQuestion {
            kind,
            prompt: prompt.into(),
            run: 0,
            metric: metric.into(),
            job: job.into(),
            tolerance: String::new(),
            unit: unit.into(),
            options,
            pick: Pick::Lowest,
            hints: String::new(),
            explanation: String::new(),
        }
    }
}

/// An exercise being written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Draft {
    pub id: String,
    pub title: String,
    pub text: String,
    pub jobs: Vec<DraftJob>,
    /// The machine size, as typed.
    pub procs: String,
    pub policies: Vec<DraftPolicy>,
    pub questions: Vec<DraftQuestion>,
}

impl Default for Draft {
    /// A start: four jobs on four processors, FCFS against EASY, one question.
    fn default() -> Draft {
        Draft {
            id: "my-exercise".into(),
            title: "FCFS or EASY?".into(),
            text: "A machine has **4 processors**; the jobs are in the table below.".into(),
            jobs: vec![
                DraftJob::new(0.0, 10.0, 10.0, 2),
                DraftJob::new(1.0, 5.0, 5.0, 4),
                DraftJob::new(2.0, 2.0, 2.0, 2),
                DraftJob::new(3.0, 8.0, 8.0, 1),
            ],
            procs: "4".into(),
            policies: vec![
                DraftPolicy::of(PolicyKind::Fcfs, &PolicyAxes::default()),
                DraftPolicy::of(PolicyKind::Easy, &PolicyAxes::default()),
            ],
            questions: vec![DraftQuestion::new(QuestionKind::PredictStart)],
        }
    }
}

fn draft_error(key: impl Into<String>, message: impl Into<String>) -> ExerciseError {
    ExerciseError {
        kind: ErrorKind::Format,
        source: DRAFT_SOURCE.into(),
        key: key.into(),
        message: message.into(),
    }
}

/// A number ≥ 0 as typed (a decimal comma accepted), or the error naming `key`.
fn non_negative(key: &str, s: &str) -> Result<f64, ExerciseError> {
    let t = s.trim().replace(',', ".");
    match t.parse::<f64>() {
        Ok(v) if (0.0..=1e12).contains(&v) => Ok(v),
        _ => Err(draft_error(
            key,
            format!("must be a number ≥ 0 (got {:?})", s.trim()),
        )),
    }
}

/// A whole number ≥ 1 as typed, or the error naming `key`.
fn positive_int(key: &str, s: &str) -> Result<u64, ExerciseError> {
    match s.trim().parse::<u64>() {
        Ok(v) if (1..=u64::from(u32::MAX)).contains(&v) => Ok(v),
        _ => Err(draft_error(
            key,
            format!("must be a whole number ≥ 1 (got {:?})", s.trim()),
        )),
    }
}

impl Draft {
    /// The jobs as SWF lines (a header line with the machine size, then one line per job,
    /// numbered from 1 in table order), or the error naming the job's field (`jobs[2].procs`).
    pub fn swf_lines(&self) -> Result<Vec<String>, ExerciseError> {
        let procs = positive_int("procs", &self.procs)?;
        if self.jobs.is_empty() {
            return Err(draft_error("jobs", "add at least one job"));
        }
        if self.jobs.len() > MAX_EXERCISE_JOBS {
            return Err(draft_error(
                "jobs",
                format!(
                    "{} jobs is above the limit max_exercise_jobs = {MAX_EXERCISE_JOBS}",
                    self.jobs.len()
                ),
            ));
        }
        let mut lines = vec![
            "; job submit wait run procs cpu mem req_procs req_time req_mem status user group app queue partition preceding think".to_string(),
            format!("; MaxProcs: {procs}"),
        ];
        let mut last_submit = 0.0;
        for (i, j) in self.jobs.iter().enumerate() {
            let key = |f: &str| format!("jobs[{i}].{f}");
            let submit = non_negative(&key("submit"), &j.submit)?;
            if submit < last_submit {
                return Err(draft_error(
                    key("submit"),
                    format!(
                        "job {} is submitted at {} before job {} (at {}): list the jobs in submit order",
                        i + 1,
                        super::format_number(submit),
                        i,
                        super::format_number(last_submit)
                    ),
                ));
            }
            last_submit = submit;
            let run = non_negative(&key("run_time"), &j.run_time)?;
            let request = if j.request.trim().is_empty() {
                run
            } else {
                non_negative(&key("request"), &j.request)?
            };
            let p = positive_int(&key("procs"), &j.procs)?;
            if p > procs {
                return Err(draft_error(
                    key("procs"),
                    format!(
                        "job {} asks for {p} processors; the machine has {procs}",
                        i + 1
                    ),
                ));
            }
            let user = if j.user.trim().is_empty() {
                1
            } else {
                positive_int(&key("user"), &j.user)?
            };
            let n = super::format_number;
            lines.push(format!(
                "{} {} -1 {} {p} -1 -1 {p} {} -1 1 {user} -1 -1 -1 -1 -1 -1",
                i + 1,
                n(submit),
                n(run),
                n(request)
            ));
        }
        Ok(lines)
    }

    /// The run names, one per policy (`easy`, `easy-sjf`), or the error naming the policy.
    pub fn run_names(&self) -> Result<Vec<String>, ExerciseError> {
        if self.policies.is_empty() || self.policies.len() > MAX_EXERCISE_RUNS {
            return Err(draft_error(
                "policies",
                format!(
                    "needs 1 to {MAX_EXERCISE_RUNS} policies (got {})",
                    self.policies.len()
                ),
            ));
        }
        let mut names: Vec<String> = Vec::with_capacity(self.policies.len());
        for (i, p) in self.policies.iter().enumerate() {
            let name = p
                .run_name()
                .map_err(|e| draft_error(format!("policies[{i}]"), e.to_string()))?;
            if let Some(j) = names.iter().position(|n| *n == name) {
                return Err(draft_error(
                    format!("policies[{i}]"),
                    format!("the same policy as policies[{j}] ({name})"),
                ));
            }
            names.push(name);
        }
        Ok(names)
    }

    /// The exercise's JSON, with each question's `answer` / `correct` from `solutions` when
    /// given (question by question).
    fn to_value(&self, solutions: Option<&[Solution]>) -> Result<Value, ExerciseError> {
        let lines = self.swf_lines()?;
        let names = self.run_names()?;
        let procs = positive_int("procs", &self.procs)?;
        let mut runs = Map::new();
        for (p, name) in self.policies.iter().zip(&names) {
            let (kind, axes) = p
                .parse()
                .map_err(|e| draft_error("policies", e.to_string()))?;
            let mut exp = json!({
                "workload": {"swf": {"name": DRAFT_WORKLOAD}},
                "machine": {"flat": {"procs": procs}},
                "policy": kind.as_str(),
            });
            if !axes.is_default() {
                exp["queue"] = serde_json::to_value(&axes).unwrap_or_default();
            }
            runs.insert(
                name.clone(),
                json!({"v": 2, "mode": "flat", "experiment": exp}),
            );
        }
        let run_of = |key: String, i: usize| {
            names
                .get(i)
                .cloned()
                .ok_or_else(|| draft_error(key, format!("policy {} does not exist", i + 1)))
        };
        let job_of = |key: String, s: &str| -> Result<Option<u64>, ExerciseError> {
            if s.trim().is_empty() {
                Ok(None)
            } else {
                positive_int(&key, s).map(Some)
            }
        };
        let mut questions = Vec::with_capacity(self.questions.len());
        for (i, q) in self.questions.iter().enumerate() {
            let key = |f: &str| format!("questions[{i}].{f}");
            let mut o = Map::new();
            o.insert(
                "kind".into(),
                serde_json::to_value(q.kind).unwrap_or_default(),
            );
            o.insert("prompt".into(), q.prompt.clone().into());
            match q.kind {
                QuestionKind::Numeric | QuestionKind::PredictStart => {
                    o.insert("run".into(), run_of(key("run"), q.run)?.into());
                    if q.kind == QuestionKind::Numeric {
                        o.insert("metric".into(), q.metric.trim().into());
                    }
                    if let Some(j) = job_of(key("job"), &q.job)? {
                        o.insert("job".into(), j.into());
                    }
                    let solved = solutions.and_then(|s| s.get(i)).map(|s| &s.expected);
                    if let Some(Expected::Number { value, .. }) = solved {
                        o.insert("answer".into(), json!(value));
                    }
                    if !q.tolerance.trim().is_empty() {
                        let t = non_negative(&key("tolerance"), &q.tolerance)?;
                        o.insert("tolerance".into(), json!(t));
                    }
                    if !q.unit.trim().is_empty() {
                        o.insert("unit".into(), q.unit.trim().into());
                    }
                }
                QuestionKind::Choice => {
                    let mut options = Vec::with_capacity(q.options.len());
                    for (k, opt) in q.options.iter().enumerate() {
                        let okey = |f: &str| format!("questions[{i}].options[{k}].{f}");
                        let mut value = Map::new();
                        value.insert("run".into(), run_of(okey("value.run"), opt.run)?.into());
                        value.insert("metric".into(), opt.metric.trim().into());
                        if let Some(j) = job_of(okey("value.job"), &opt.job)? {
                            value.insert("job".into(), j.into());
                        }
                        options.push(json!({"text": opt.text, "value": value}));
                    }
                    o.insert("options".into(), options.into());
                    o.insert(
                        "pick".into(),
                        serde_json::to_value(q.pick).unwrap_or_default(),
                    );
                    let solved = solutions.and_then(|s| s.get(i)).map(|s| &s.expected);
                    if let Some(Expected::Options { correct, .. }) = solved {
                        o.insert("correct".into(), json!(correct));
                    }
                }
            }
            let hints: Vec<&str> = q
                .hints
                .lines()
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .collect();
            if !hints.is_empty() {
                o.insert("hints".into(), json!(hints));
            }
            o.insert("explanation".into(), q.explanation.clone().into());
            questions.push(Value::Object(o));
        }
        Ok(json!({
            "format": super::EXERCISE_FORMAT,
            "id": self.id.trim(),
            "title": self.title,
            "text": self.text,
            "workloads": {DRAFT_WORKLOAD: lines},
            "runs": runs,
            "questions": questions,
        }))
    }

    /// The exercise, validated as a shipped file is; with `solutions` (of this draft's
    /// questions, in order) each question states the simulation's answer. Errors name the
    /// draft's field: `jobs[1].run_time`, `policies[0]`, `questions[2].job`.
    pub fn exercise(&self, solutions: Option<&[Solution]>) -> Result<Exercise, ExerciseError> {
        let value = self.to_value(solutions)?;
        let names = self.run_names()?;
        Exercise::from_json(&value.to_string(), DRAFT_SOURCE).map_err(|e| self.tell(e, &names))
    }

    /// `e` with a run's key (`runs.easy-sjf.…`) told as its policy's (`policies[1]`) and the
    /// workload's (`workloads.jobs…`) as the jobs table's.
    pub fn tell(&self, mut e: ExerciseError, names: &[String]) -> ExerciseError {
        if let Some(rest) = e.key.strip_prefix("runs.") {
            if let Some(i) = names
                .iter()
                .position(|n| rest == n || rest.starts_with(&format!("{n}.")))
            {
                e.key = format!("policies[{i}]");
            }
        } else if e.key.starts_with("workloads") {
            e.key = "jobs".into();
        }
        e
    }

    /// The exercise file, pretty JSON as shipped, every answer the simulation's.
    pub fn export_json(&self, solutions: &[Solution]) -> Result<String, ExerciseError> {
        let ex = self.exercise(Some(solutions))?;
        let mut text = serde_json::to_string_pretty(&ex).unwrap_or_default();
        text.push('\n');
        Ok(text)
    }

    /// The machine size and the policies of a flat experiment's link (`#e=…` of the flat
    /// tab): its policy and queue axes, once per policy it compares. The jobs stay the
    /// draft's: an exercise's workload is the small table, not the link's model or trace.
    pub fn from_flat_link(&mut self, fragment: &str) -> Result<(), String> {
        let fragment = fragment.trim();
        let fragment = fragment.rsplit_once('#').map_or(fragment, |(_, f)| f);
        let env = Envelope::from_fragment(fragment)?
            .ok_or("this is no experiment link (it should contain #e=)")?;
        let Envelope::Flat(state) = env else {
            return Err("this link is not a flat experiment's (open the flat tab's link)".into());
        };
        let exp = &state.experiment;
        let crate::modes::flat::spec::MachineSpec::Flat { procs } = exp.machine;
        if let Some(p) = procs {
            self.procs = p.to_string();
        }
        let mut kinds = state.policies();
        if kinds.is_empty() {
            kinds.push(exp.policy);
        }
        kinds.truncate(MAX_EXERCISE_RUNS);
        self.policies = kinds
            .into_iter()
            .map(|k| DraftPolicy::of(k, &exp.queue))
            .collect();
        let n = self.policies.len();
        self.fix_runs(|r| if r < n { r } else { 0 });
        Ok(())
    }

    /// Sets the field at `path` (the page's `data-f`: `title`, `jobs.2.procs`,
    /// `policies.0.order`, `questions.1.options.0.run`) to `value` as typed; `false` when
    /// there is no such field (or a run index is no number).
    pub fn set(&mut self, path: &str, value: &str) -> bool {
        let p: Vec<&str> = path.split('.').collect();
        let idx = |i: usize| p.get(i).and_then(|s| s.parse::<usize>().ok());
        let v = value.to_string();
        let run = || value.parse::<usize>().ok();
        let slot: Option<&mut String> = match p.as_slice() {
            ["id"] => Some(&mut self.id),
            ["title"] => Some(&mut self.title),
            ["text"] => Some(&mut self.text),
            ["procs"] => Some(&mut self.procs),
            ["jobs", _, f] => {
                self.jobs
                    .get_mut(idx(1).unwrap_or(usize::MAX))
                    .and_then(|j| match *f {
                        "submit" => Some(&mut j.submit),
                        "run_time" => Some(&mut j.run_time),
                        "request" => Some(&mut j.request),
                        "procs" => Some(&mut j.procs),
                        "user" => Some(&mut j.user),
                        _ => None,
                    })
            }
            ["policies", _, f] => self
                .policies
                .get_mut(idx(1).unwrap_or(usize::MAX))
                .and_then(|x| match *f {
                    "backfilling" => Some(&mut x.backfilling),
                    "order" => Some(&mut x.order),
                    "estimates" => Some(&mut x.estimates),
                    _ => None,
                }),
            ["questions", _, rest @ ..] => {
                let Some(q) = self.questions.get_mut(idx(1).unwrap_or(usize::MAX)) else {
                    return false;
                };
                match rest {
                    ["run"] => return run().map(|r| q.run = r).is_some(),
                    ["pick"] => {
                        q.pick = if value == "highest" {
                            Pick::Highest
                        } else {
                            Pick::Lowest
                        };
                        return true;
                    }
                    ["prompt"] => Some(&mut q.prompt),
                    ["metric"] => Some(&mut q.metric),
                    ["job"] => Some(&mut q.job),
                    ["tolerance"] => Some(&mut q.tolerance),
                    ["unit"] => Some(&mut q.unit),
                    ["hints"] => Some(&mut q.hints),
                    ["explanation"] => Some(&mut q.explanation),
                    ["options", k, f] => {
                        let Some(o) = k.parse::<usize>().ok().and_then(|k| q.options.get_mut(k))
                        else {
                            return false;
                        };
                        match *f {
                            "run" => return run().map(|r| o.run = r).is_some(),
                            "text" => Some(&mut o.text),
                            "metric" => Some(&mut o.metric),
                            "job" => Some(&mut o.job),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        match slot {
            Some(s) => {
                *s = v;
                true
            }
            None => false,
        }
    }

    /// Does one of the editor's buttons (`add-job`, `del-job`, `add-policy`, `del-policy`,
    /// `add-q:<kind>`, `del-q`, `up-q`, `down-q`, `add-opt`, `del-opt`) on item `i` (option
    /// `k`); `false` when it changed nothing. Sizes stay within the format's limits.
    pub fn act(&mut self, action: &str, i: usize, k: usize) -> bool {
        use crate::limits::{MAX_EXERCISE_OPTIONS, MAX_EXERCISE_QUESTIONS};
        let n = self.questions.len();
        match action {
            "add-job" if self.jobs.len() < MAX_EXERCISE_JOBS => {
                let last = self.jobs.last().map(|j| j.submit.clone());
                let mut j = DraftJob::new(0.0, 1.0, 1.0, 1);
                j.submit = last.unwrap_or_else(|| "0".into());
                self.jobs.push(j);
            }
            "del-job" if i < self.jobs.len() => {
                self.jobs.remove(i);
            }
            "add-policy" if self.policies.len() < MAX_EXERCISE_RUNS => {
                // The first combination not yet in the list.
                let taken = self.run_names().unwrap_or_default();
                let next = ["easy", "conservative", "fcfs"]
                    .iter()
                    .flat_map(|b| ["arrival", "sjf"].map(|o| (*b, o)))
                    .map(|(b, o)| DraftPolicy {
                        backfilling: b.into(),
                        order: o.into(),
                        estimates: "request".into(),
                    })
                    .find(|p| p.run_name().is_ok_and(|r| !taken.contains(&r)));
                match next {
                    Some(p) => self.policies.push(p),
                    None => return false,
                }
            }
            "del-policy" if self.policies.len() > 1 && i < self.policies.len() => {
                self.remove_policy(i)
            }
            "del-q" if i < n => {
                self.questions.remove(i);
            }
            "up-q" if i > 0 && i < n => self.questions.swap(i - 1, i),
            "down-q" if i + 1 < n => self.questions.swap(i, i + 1),
            "add-opt" if i < n && self.questions[i].options.len() < MAX_EXERCISE_OPTIONS => {
                let q = &mut self.questions[i];
                let run = q.options.len().min(self.policies.len().saturating_sub(1));
                q.options.push(DraftOption {
                    text: format!("Option {}", q.options.len() + 1),
                    run,
                    metric: "summary.mean_wait".into(),
                    job: String::new(),
                });
            }
            "del-opt" if i < n && k < self.questions[i].options.len() => {
                self.questions[i].options.remove(k);
            }
            a if a.starts_with("add-q:") && n < MAX_EXERCISE_QUESTIONS => {
                let kind = match &a[6..] {
                    "numeric" => QuestionKind::Numeric,
                    "choice" => QuestionKind::Choice,
                    "predict_start" => QuestionKind::PredictStart,
                    _ => return false,
                };
                let mut q = DraftQuestion::new(kind);
                let last = self.policies.len().saturating_sub(1);
                for o in &mut q.options {
                    o.run = o.run.min(last);
                }
                self.questions.push(q);
            }
            _ => return false,
        }
        true
    }

    /// Policy `i` removed: the questions that read it read the first policy, the later ones
    /// keep theirs.
    pub fn remove_policy(&mut self, i: usize) {
        if i < self.policies.len() && self.policies.len() > 1 {
            self.policies.remove(i);
            self.fix_runs(|r| match r.cmp(&i) {
                std::cmp::Ordering::Less => r,
                std::cmp::Ordering::Equal => 0,
                std::cmp::Ordering::Greater => r - 1,
            });
        }
    }

    fn fix_runs(&mut self, f: impl Fn(usize) -> usize) {
        for q in &mut self.questions {
            q.run = f(q.run);
            for o in &mut q.options {
                o.run = f(o.run);
            }
        }
    }

    /// Reads an exercise back into a draft, when it is one this editor writes (flat runs on
    /// one inline workload not transformed, no option subtracting a measure): to edit a copy of an exercise.
    pub fn from_exercise(ex: &Exercise) -> Option<Draft> {
        let (_, first) = ex.envelopes().first()?;
        let Envelope::Flat(_) = first else {
            return None;
        };
        let mut policies = Vec::new();
        let mut names = Vec::new();
        let mut workload = None;
        let mut procs = None;
        for (name, env) in ex.envelopes() {
            let Envelope::Flat(s) = env else {
                return None;
            };
            let e = &s.experiment;
            let crate::modes::flat::spec::WorkloadSpec::Swf(src) = &e.workload else {
                return None;
            };
            if workload.is_some() && workload != src.name {
                return None;
            }
            workload = src.name.clone();
            let crate::modes::flat::spec::MachineSpec::Flat { procs: p } = e.machine;
            procs = procs.or(p);
            if e.transforms != Default::default()
                || !e
                    .queue
                    .backfill_order
                    .as_ref()
                    .is_none_or(QueueOrder::is_arrival)
            {
                return None;
            }
            policies.push(DraftPolicy::of(e.policy, &e.queue));
            names.push(name.clone());
        }
        if ex
            .questions
            .iter()
            .any(|q| q.options.iter().any(|o| o.value.minus.is_some()))
        {
            return None;
        }
        let lines = ex.workloads.get(workload.as_deref()?)?;
        let jobs = parse_swf_lines(&lines.join("\n")).ok()?;
        let run_index = |r: &str| names.iter().position(|n| n == r).unwrap_or(0);
        let num = |v: Option<f64>| v.map(super::format_number).unwrap_or_default();
        let questions = ex
            .questions
            .iter()
            .map(|q| DraftQuestion {
                kind: q.kind,
                prompt: q.prompt.clone(),
                run: q.run.as_deref().map(run_index).unwrap_or(0),
                metric: q.metric.clone().unwrap_or_default(),
                job: q.job.map(|j| j.to_string()).unwrap_or_default(),
                tolerance: num(q.tolerance),
                unit: q.unit.clone().unwrap_or_default(),
                options: q
                    .options
                    .iter()
                    .map(|o| DraftOption {
                        text: o.text.clone(),
                        run: run_index(&o.value.run),
                        metric: o.value.metric.clone(),
                        job: o.value.job.map(|j| j.to_string()).unwrap_or_default(),
                    })
                    .collect(),
                pick: q.pick.unwrap_or(Pick::Lowest),
                hints: q.hints.join("\n"),
                explanation: q.explanation.clone(),
            })
            .collect();
        Some(Draft {
            id: ex.id.clone(),
            title: ex.title.clone(),
            text: ex.text.clone(),
            procs: procs
                .map(|p| p.to_string())
                .or(jobs.machine.map(|p| p.to_string()))
                .unwrap_or_default(),
            jobs: jobs.jobs,
            policies,
            questions,
        })
    }
}

/// Jobs read from pasted SWF lines.
#[derive(Clone, Debug, PartialEq)]
pub struct PastedJobs {
    pub jobs: Vec<DraftJob>,
    /// The machine size of a `; MaxProcs:` header line, if any.
    pub machine: Option<u32>,
}

/// Reads SWF lines (the 18 fields; `;` lines are headers, `; MaxProcs: N` gives the machine):
/// each job's submit (field 2), run time (4), processors (8, else 5), request (9, else the run
/// time) and user (12). Jobs are renumbered 1, 2, … in the order given. An error names the
/// line (1-based) and the field.
pub fn parse_swf_lines(text: &str) -> Result<PastedJobs, String> {
    let mut jobs = Vec::new();
    let mut machine = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix(';') {
            if let Some(v) = h.trim().strip_prefix("MaxProcs:") {
                machine = v.trim().parse::<u32>().ok().filter(|p| *p > 0);
            }
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() != 18 {
            return Err(format!(
                "line {}: an SWF line has 18 fields (got {})",
                n + 1,
                f.len()
            ));
        }
        let num = |i: usize, name: &str| -> Result<f64, String> {
            f[i - 1]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    format!(
                        "line {}: field {i} ({name}): {:?} is no number",
                        n + 1,
                        f[i - 1]
                    )
                })
        };
        let submit = num(2, "submit time")?;
        let run = num(4, "run time")?;
        let alloc = num(5, "allocated processors")?;
        let req_procs = num(8, "requested processors")?;
        let req_time = num(9, "requested time")?;
        let user = num(12, "user")?;
        if submit < 0.0 {
            return Err(format!(
                "line {}: field 2 (submit time): must be ≥ 0",
                n + 1
            ));
        }
        if run < 0.0 {
            return Err(format!("line {}: field 4 (run time): must be ≥ 0", n + 1));
        }
        let procs = if req_procs > 0.0 { req_procs } else { alloc };
        if procs < 1.0 || procs.fract() != 0.0 {
            return Err(format!(
                "line {}: fields 8 and 5 (processors): no whole number ≥ 1",
                n + 1
            ));
        }
        let fmt = super::format_number;
        jobs.push(DraftJob {
            submit: fmt(submit),
            run_time: fmt(run),
            request: if req_time >= 0.0 {
                fmt(req_time)
            } else {
                fmt(run)
            },
            procs: fmt(procs),
            user: if user >= 1.0 { fmt(user) } else { "1".into() },
        });
        if jobs.len() > MAX_EXERCISE_JOBS {
            return Err(format!(
                "more than {MAX_EXERCISE_JOBS} jobs (the limit max_exercise_jobs)"
            ));
        }
    }
    if jobs.is_empty() {
        return Err("no job line (SWF lines have 18 fields; `;` lines are headers)".into());
    }
    Ok(PastedJobs { jobs, machine })
}
