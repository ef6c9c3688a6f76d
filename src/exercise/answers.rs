//! A student's answers (the page): what the page keeps in the browser for each
//! exercise (one `localStorage` entry per exercise id, [`storage_key`]) and the file the student
//! exports for the teacher ([`AnswersFile`]). Pure, so that reading a stored entry — which the
//! student can edit — is tested natively and never panics: an unreadable entry is ignored.
//!
//! The file (docs/exercises.md, "Answers file"):
//!
//! ```json
//! {"format": "schedlab-answers", "version": 1, "exported": "2025-01-31T10:00:00.000Z",
//!  "exercises": [{"id": "fcfs-vs-easy", "title": "…", "hints": [1, 0, 0],
//!    "revealed": "2025-01-31T09:59:00.000Z",
//!    "answers": [{"question": 0, "kind": "predict_start", "number": 2, "correct": true,
//!                 "feedback": "Correct: …", "attempts": 2, "answered": "2025-01-31T09:58:12.000Z"}]}]}
//! ```
//!
//! "Predict, then reveal": a question is *settled* once answered right or given up ("Show the
//! answer", `gave_up`); an exercise's run stays hidden while a question that reads it is not
//! settled ([`hidden_runs`]), unless the student revealed the simulation (`revealed`, when).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Answer, Exercise, QuestionKind, Verdict};

/// `format` of an answers file.
pub const ANSWERS_FORMAT: &str = "schedlab-answers";
/// `version` of the answers file this build writes.
pub const ANSWERS_VERSION: u32 = 1;
/// Prefix of the browser storage keys of answers: `schedlab.answers.<exercise id>`.
pub const STORAGE_PREFIX: &str = "schedlab.answers.";

/// The storage key of exercise `id`'s answers.
pub fn storage_key(id: &str) -> String {
    format!("{STORAGE_PREFIX}{id}")
}

/// The last answer a student checked for one question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GivenAnswer {
    /// The question's index (0-based).
    pub question: usize,
    pub kind: QuestionKind,
    /// numeric and predict_start: the number answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<f64>,
    /// choice: the options chosen (0-based).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<usize>,
    /// The verdict of the simulation.
    pub correct: bool,
    /// What the page said ([`Verdict::feedback`]).
    pub feedback: String,
    /// How many times the question was checked.
    #[serde(default)]
    pub attempts: u32,
    /// When it was last checked (ISO 8601, the browser's clock).
    #[serde(default)]
    pub answered: String,
    /// The student pressed "Show the answer" (after a wrong answer).
    #[serde(default, skip_serializing_if = "is_false")]
    pub gave_up: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl GivenAnswer {
    /// The answer as [`super::check`] takes it.
    pub fn answer(&self) -> Answer {
        match self.kind {
            QuestionKind::Choice => Answer::Options(self.options.clone()),
            _ => Answer::Number(self.number.unwrap_or(f64::NAN)),
        }
    }
}

/// One exercise's answers and the hints the student opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExerciseAnswers {
    pub id: String,
    #[serde(default)]
    pub title: String,
    /// Hints shown per question (index = question).
    #[serde(default)]
    pub hints: Vec<usize>,
    /// When the student pressed "Reveal the simulation" (ISO 8601), if they did: the runs were
    /// shown before every question about them was settled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revealed: Option<String>,
    /// The last checked answer of each answered question, by question index.
    #[serde(default)]
    pub answers: Vec<GivenAnswer>,
}

impl ExerciseAnswers {
    /// No answer yet.
    pub fn new(id: &str, title: &str) -> Self {
        ExerciseAnswers {
            id: id.to_string(),
            title: title.to_string(),
            hints: Vec::new(),
            revealed: None,
            answers: Vec::new(),
        }
    }

    /// A stored entry, or `None` when it is not one (edited, from another version): the page
    /// then starts afresh.
    pub fn from_json(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }

    /// The entry as stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The answer kept for question `q`.
    pub fn get(&self, q: usize) -> Option<&GivenAnswer> {
        self.answers.iter().find(|a| a.question == q)
    }

    /// Keeps `answer` to question `q` (of `kind`) and its verdict, checked at `now`; replaces an
    /// earlier answer and counts the attempt.
    pub fn record(
        &mut self,
        q: usize,
        kind: QuestionKind,
        answer: &Answer,
        verdict: &Verdict,
        now: &str,
    ) {
        let attempts = self.get(q).map_or(0, |a| a.attempts) + 1;
        let gave_up = self.get(q).is_some_and(|a| a.gave_up);
        let (number, options) = match answer {
            Answer::Number(v) => (Some(*v), Vec::new()),
            Answer::Options(o) => (None, o.clone()),
        };
        let given = GivenAnswer {
            question: q,
            kind,
            number,
            options,
            correct: verdict.correct,
            feedback: verdict.feedback.clone(),
            attempts,
            answered: now.to_string(),
            gave_up,
        };
        match self.answers.iter_mut().find(|a| a.question == q) {
            Some(a) => *a = given,
            None => {
                self.answers.push(given);
                self.answers.sort_by_key(|a| a.question);
            }
        }
    }

    /// Question `q` is settled: answered right, or its answer shown ("Show the answer").
    pub fn settled(&self, q: usize) -> bool {
        self.get(q).is_some_and(|a| a.correct || a.gave_up)
    }

    /// "Show the answer" on question `q`: only after a wrong answer (`false` otherwise).
    pub fn give_up(&mut self, q: usize) -> bool {
        match self.answers.iter_mut().find(|a| a.question == q) {
            Some(a) if !a.correct => {
                a.gave_up = true;
                true
            }
            _ => false,
        }
    }

    /// "Reveal the simulation" at `now` (the first time is kept).
    pub fn reveal(&mut self, now: &str) {
        if self.revealed.is_none() {
            self.revealed = Some(now.to_string());
        }
    }

    /// Hints shown for question `q`.
    pub fn hints_shown(&self, q: usize) -> usize {
        self.hints.get(q).copied().unwrap_or(0)
    }

    /// Notes that `n` hints of question `q` are shown.
    pub fn show_hints(&mut self, q: usize, n: usize) {
        if self.hints.len() <= q {
            self.hints.resize(q + 1, 0);
        }
        self.hints[q] = self.hints[q].max(n);
    }

    /// (correct, answered) questions.
    pub fn score(&self) -> (usize, usize) {
        (
            self.answers.iter().filter(|a| a.correct).count(),
            self.answers.len(),
        )
    }
}

/// The runs of `ex` the page keeps hidden: those a question not yet settled reads
/// ([`super::Question::reads`]); none once the student revealed the simulation.
pub fn hidden_runs(ex: &Exercise, answers: &ExerciseAnswers) -> BTreeSet<String> {
    if answers.revealed.is_some() {
        return BTreeSet::new();
    }
    ex.questions
        .iter()
        .enumerate()
        .filter(|(i, _)| !answers.settled(*i))
        .flat_map(|(_, q)| q.reads())
        .map(|(run, _)| run.to_string())
        .collect()
}

/// The jobs of run `run` whose times a question not yet settled asks (the page's hover leaves
/// their times out, even after "Reveal the simulation").
pub fn secret_jobs(ex: &Exercise, answers: &ExerciseAnswers, run: &str) -> Vec<u64> {
    let mut jobs: Vec<u64> = ex
        .questions
        .iter()
        .enumerate()
        .filter(|(i, _)| !answers.settled(*i))
        .flat_map(|(_, q)| q.reads())
        .filter(|(r, _)| *r == run)
        .filter_map(|(_, job)| job)
        .collect();
    jobs.sort_unstable();
    jobs.dedup();
    jobs
}

/// The file a student exports for the teacher: every exercise answered in this browser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswersFile {
    /// [`ANSWERS_FORMAT`].
    pub format: String,
    /// [`ANSWERS_VERSION`].
    pub version: u32,
    /// When it was exported (ISO 8601).
    pub exported: String,
    /// In exercise id order.
    pub exercises: Vec<ExerciseAnswers>,
}

impl AnswersFile {
    /// The file of `exercises` (sorted by id), exported at `now`.
    pub fn new(mut exercises: Vec<ExerciseAnswers>, now: &str) -> Self {
        exercises.sort_by(|a, b| a.id.cmp(&b.id));
        exercises.dedup_by(|a, b| a.id == b.id);
        AnswersFile {
            format: ANSWERS_FORMAT.to_string(),
            version: ANSWERS_VERSION,
            exported: now.to_string(),
            exercises,
        }
    }

    /// The file's text (pretty JSON, newline at the end).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Reads an answers file; the error names `source` and the key.
    pub fn from_json(text: &str, source: &str) -> Result<Self, String> {
        let file: AnswersFile = crate::modes::flat::spec::parse_json(text)
            .map_err(|e| format!("{source}: {}: {}", e.key, e.message))?;
        if file.format != ANSWERS_FORMAT {
            return Err(format!(
                "{source}: format: {:?} is not an answers file ({ANSWERS_FORMAT:?})",
                file.format
            ));
        }
        if file.version != ANSWERS_VERSION {
            return Err(format!(
                "{source}: version: answers file version {} is not supported (this build reads \
                 {ANSWERS_VERSION})",
                file.version
            ));
        }
        Ok(file)
    }
}

/// Why an answer box does not hold a number; prints what to type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// The box is empty (or holds only the unit).
    Empty,
    /// The box's text (trimmed) is not a finite number.
    NotANumber(String),
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::Empty => f.write_str("Type a number first."),
            NumberError::NotANumber(t) => write!(f, "{t:?} is not a number (e.g. 12.5)."),
        }
    }
}

impl std::error::Error for NumberError {}

/// A number as a student types it into an answer box: spaces around it, a decimal comma, and
/// the question's `unit` after it are accepted (`"12,5 s"` → 12.5). The error says what to type.
pub fn parse_number(text: &str, unit: Option<&str>) -> Result<f64, NumberError> {
    let mut t = text.trim();
    if let Some(u) = unit.map(str::trim).filter(|u| !u.is_empty()) {
        if let Some(rest) = t.strip_suffix(u) {
            t = rest.trim_end();
        }
    }
    if t.is_empty() {
        return Err(NumberError::Empty);
    }
    let t = if t.contains(',') && !t.contains('.') && t.matches(',').count() == 1 {
        t.replace(',', ".")
    } else {
        t.to_string()
    };
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(NumberError::NotANumber(text.trim().to_string())),
    }
}
