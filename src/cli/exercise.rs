//! `schedlab exercise FILE|LINK` (a teacher's view: each question with the answer the simulation
//! computes) and `schedlab exercise --check-all DIR` (every `*.json` exercise of a folder
//! parsed, validated and solved; exit 2 naming the file and key of the first problem). The
//! exercise format is [`crate::exercise`] (docs/exercises.md).

use std::path::{Path, PathBuf};

use clap::Args;

use super::streams::{emit, read_document};
use crate::error::Error;
use crate::exercise::{Exercise, ExerciseError, Expected, QuestionKind, Solution};

/// `schedlab exercise`.
#[derive(Args, Debug)]
pub struct ExerciseArgs {
    /// An exercise file (JSON, docs/exercises.md) or link (`…#ex=…`): its questions and
    /// computed answers.
    #[arg(required_unless_present = "check_all")]
    pub file: Option<PathBuf>,
    /// Check every `*.json` exercise in this folder (parse, validate, solve).
    #[arg(long, value_name = "DIR", conflicts_with = "file")]
    pub check_all: Option<PathBuf>,
}

fn exercise_err(e: ExerciseError) -> Error {
    Error::Document {
        source: e.source,
        key: e.key,
        message: e.message,
    }
}

/// Reads, validates and solves one exercise file, or an exercise link (`…#ex=…`).
fn load(path: &Path) -> Result<(Exercise, Vec<Solution>), Error> {
    let name = path.display().to_string();
    let link = name.rsplit_once('#').map_or(name.as_str(), |(_, f)| f);
    if link.starts_with(crate::exercise::EXERCISE_PREFIX) && !path.is_file() {
        let ex = Exercise::from_fragment(link)
            .map_err(exercise_err)?
            .ok_or_else(|| Error::Document {
                source: "link".into(),
                key: String::new(),
                message: "not an exercise link".into(),
            })?;
        let solutions = ex.solve("link").map_err(exercise_err)?;
        return Ok((ex, solutions));
    }
    let text = read_document(path)?;
    let ex = Exercise::from_json(&text, &name).map_err(exercise_err)?;
    let solutions = ex.solve(&name).map_err(exercise_err)?;
    Ok((ex, solutions))
}

/// The teacher's view of an exercise.
pub fn describe(ex: &Exercise, solutions: &[Solution]) -> String {
    let mut s = format!("{} — {}\n", ex.id, ex.title);
    let runs: Vec<String> = ex
        .envelopes()
        .iter()
        .map(|(n, e)| format!("{n} ({})", e.mode()))
        .collect();
    s.push_str(&format!("runs: {}\n", runs.join(", ")));
    for (q, sol) in ex.questions.iter().zip(solutions) {
        let kind = match q.kind {
            QuestionKind::Numeric => "numeric",
            QuestionKind::Choice => "choice",
            QuestionKind::PredictStart => "predict_start",
        };
        s.push_str(&format!(
            "\nQ{} [{kind}] {}\n",
            sol.question + 1,
            q.prompt.trim()
        ));
        if let Expected::Options { correct, values } = &sol.expected {
            for (i, (o, v)) in q.options.iter().zip(values).enumerate() {
                let mark = if correct.contains(&i) { '*' } else { ' ' };
                s.push_str(&format!(
                    "  {mark} {i}. {} (value {})\n",
                    o.text,
                    crate::exercise::format_number(*v)
                ));
            }
        }
        let unit = q
            .unit
            .as_deref()
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        s.push_str(&format!("  answer: {}{unit}\n", sol.describe()));
    }
    s
}

/// `schedlab exercise`.
pub fn exercise_command(a: &ExerciseArgs) -> Result<(), Error> {
    if let Some(dir) = &a.check_all {
        let entries = std::fs::read_dir(dir).map_err(|e| super::io_err(dir, e))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::Document {
                source: dir.display().to_string(),
                key: String::new(),
                message: "no *.json exercise in this folder".into(),
            });
        }
        let mut report = String::new();
        for f in &files {
            let (ex, solutions) = load(f)?;
            report.push_str(&format!(
                "ok {} ({}, {} questions)\n",
                f.display(),
                ex.id,
                solutions.len()
            ));
        }
        report.push_str(&format!("{} exercises checked\n", files.len()));
        return emit(&report);
    }
    let Some(path) = &a.file else {
        return Err(Error::Document {
            source: "exercise".into(),
            key: String::new(),
            message: "give an exercise FILE or --check-all DIR".into(),
        });
    };
    let (ex, solutions) = load(path)?;
    emit(&describe(&ex, &solutions))
}
