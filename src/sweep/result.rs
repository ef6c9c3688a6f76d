//! One point's run and its result file. [`run_point`] runs a point's envelope with the library
//! functions of `schedlab run` (flat: `prepare_with` → `simulation` → `finish`), `schedlab
//! mesh` (`run_mesh_with`), `schedlab grid` (`run_comparison_with`) and `schedlab moldable`
//! (`run_moldable_with`), and returns its metrics in order: flat the summary `schedlab run`
//! prints; mesh the summary and `mesh.*`; grid `single.*` / `sharing.*` (each configuration's
//! overall summary, jobs migrated, invariant violations); moldable the strategy's summary,
//! `mean_procs_ratio` and `change.*` (% change of mean turnaround against rigid conservative,
//! overall and per weight category).
//!
//! A result file is one line of JSON, its last key a checksum of the text before it:
//!
//! ```json
//! {"point":42,"point_checksum":"…","metrics":[["jobs",5000],["mean_wait",812.5],…],"checksum":"…"}
//! {"point":43,"point_checksum":"…","error":"…","checksum":"…"}
//! ```
//!
//! `point_checksum` is the checksum of the point file it ran, so a result of another plan's
//! point is never taken for this one's; a cut, edited or foreign file fails
//! [`PointResult::from_text`] and is run again.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checksum64;
use super::spec::check_experiment;
use crate::error::Error;
use crate::limits::Limits;
use crate::modes::envelope::Envelope;
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::{ConfigError, SwfSource, WorkloadSpec};
use crate::modes::Mode;
use crate::modes::SimOptions;

/// Metric names and values, in order.
pub use crate::modes::flatten::Metrics;

/// What a point's run gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Metrics(Metrics),
    /// The run stopped with this error (an invalid point, a missing trace, …).
    Failed(String),
}

/// A point's result file.
#[derive(Clone, Debug, PartialEq)]
pub struct PointResult {
    pub point: usize,
    /// [`checksum64`] of the point file that was run.
    pub point_checksum: String,
    pub outcome: Outcome,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Body {
    point: usize,
    point_checksum: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metrics: Option<Metrics>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

const CHECKSUM_KEY: &str = ",\"checksum\":\"";

impl PointResult {
    /// The result file's text (one line, ending in a line break).
    pub fn to_text(&self) -> String {
        let (metrics, error) = match &self.outcome {
            Outcome::Metrics(m) => (Some(m.clone()), None),
            Outcome::Failed(e) => (None, Some(e.clone())),
        };
        let body = serde_json::to_string(&Body {
            point: self.point,
            point_checksum: self.point_checksum.clone(),
            metrics,
            error,
        })
        .unwrap_or_default();
        let open = body.strip_suffix('}').unwrap_or(&body);
        format!("{open}{CHECKSUM_KEY}{}\"}}\n", checksum64(open.as_bytes()))
    }

    /// Reads a result file's text, or says why it is damaged.
    pub fn from_text(text: &str) -> Result<PointResult, DamagedResult> {
        let line = text.strip_suffix('\n').unwrap_or(text);
        let (open, rest) = line
            .rsplit_once(CHECKSUM_KEY)
            .ok_or(DamagedResult::NoChecksum)?;
        let sum = rest
            .strip_suffix("\"}")
            .ok_or(DamagedResult::AfterChecksum)?;
        if sum != checksum64(open.as_bytes()) {
            return Err(DamagedResult::ChecksumMismatch);
        }
        let body: Body = serde_json::from_str(&format!("{open}}}"))
            .map_err(|e| DamagedResult::NotAResult(e.to_string()))?;
        let outcome = match (body.metrics, body.error) {
            (Some(m), None) => Outcome::Metrics(m),
            (None, Some(e)) => Outcome::Failed(e),
            _ => return Err(DamagedResult::NeitherMetricsNorError),
        };
        Ok(PointResult {
            point: body.point,
            point_checksum: body.point_checksum,
            outcome,
        })
    }
}

/// Opens a trace named by a point file (the CLI: a file, natively).
pub type OpenTrace<'a> = dyn FnMut(&str) -> Result<TraceInput<'static>, Error> + 'a;

fn swf_path(w: &WorkloadSpec) -> Option<&str> {
    match w {
        WorkloadSpec::Swf(SwfSource { path: Some(p), .. }) => Some(p),
        _ => None,
    }
}

/// Runs a point file's envelope (any mode) under `limits` and returns its metrics, computed
/// by the same functions as `schedlab run` / `mesh` / `grid` / `moldable`. An invalid point's
/// error names its key.
pub fn run_point(text: &str, open: &mut OpenTrace<'_>, limits: &Limits) -> Result<Metrics, Error> {
    let point_err = |message: String| {
        Error::Config(ConfigError {
            key: "point".into(),
            message,
        })
    };
    // A refused envelope is checked as its mode's experiment file, whose error names the key
    // (without the envelope reader's wording).
    let env = Envelope::from_json_with(text, limits).map_err(|m| {
        let raw: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        let mode = raw
            .get("mode")
            .and_then(Value::as_str)
            .and_then(Mode::parse);
        match (mode, raw.get("experiment")) {
            (Some(mode), Some(exp)) => match check_experiment(mode, exp, limits) {
                Err(e) => Error::Config(e),
                Ok(()) => point_err(m),
            },
            _ => point_err(m),
        }
    })?;
    let mut traces = |w: &WorkloadSpec| swf_path(w).map(&mut *open).transpose();
    let report = env
        .experiment(limits)?
        .run(&mut traces, limits, SimOptions::default())?;
    Ok(report.metrics())
}

/// Why a result file's text is not a result: each variant prints the sentence a sweep's
/// status shows after "corrupt: ".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DamagedResult {
    /// No checksum key: the file was cut, or is something else.
    NoChecksum,
    /// The text after the checksum is not the closing `"}`.
    AfterChecksum,
    /// The checksum does not match the text before it.
    ChecksumMismatch,
    /// The checksum matches but the JSON is not a result (serde's message).
    NotAResult(String),
    /// Both metrics and an error, or neither.
    NeitherMetricsNorError,
}

impl fmt::Display for DamagedResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DamagedResult::NoChecksum => f.write_str("no checksum (cut or not a result file)"),
            DamagedResult::AfterChecksum => f.write_str("damaged after the checksum"),
            DamagedResult::ChecksumMismatch => {
                f.write_str("the checksum does not match (the file was cut or edited)")
            }
            DamagedResult::NotAResult(e) => write!(f, "not a result file: {e}"),
            DamagedResult::NeitherMetricsNorError => f.write_str("neither metrics nor an error"),
        }
    }
}

impl std::error::Error for DamagedResult {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_files_round_trip_and_damage_is_detected() {
        let r = PointResult {
            point: 3,
            point_checksum: "00ff".into(),
            outcome: Outcome::Metrics(vec![
                ("jobs".into(), Value::from(10)),
                ("mean_wait".into(), Value::from(1.5)),
            ]),
        };
        let t = r.to_text();
        assert!(t.ends_with("\"}\n") && t.contains("\"checksum\":\""), "{t}");
        assert_eq!(PointResult::from_text(&t), Ok(r));
        let cut = &t[..t.len() / 2];
        assert!(PointResult::from_text(cut).is_err());
        let edited = t.replace("1.5", "2.5");
        assert_eq!(
            PointResult::from_text(&edited),
            Err(DamagedResult::ChecksumMismatch)
        );
        let f = PointResult {
            point: 4,
            point_checksum: "1".into(),
            outcome: Outcome::Failed("no trace".into()),
        };
        assert_eq!(PointResult::from_text(&f.to_text()), Ok(f));
    }

    #[test]
    fn damage_is_told_in_words() {
        let cases = [
            (
                DamagedResult::NoChecksum,
                "no checksum (cut or not a result file)",
            ),
            (DamagedResult::AfterChecksum, "damaged after the checksum"),
            (
                DamagedResult::ChecksumMismatch,
                "the checksum does not match (the file was cut or edited)",
            ),
            (
                DamagedResult::NotAResult("EOF".into()),
                "not a result file: EOF",
            ),
            (
                DamagedResult::NeitherMetricsNorError,
                "neither metrics nor an error",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
        }
        assert_eq!(PointResult::from_text("{}"), Err(DamagedResult::NoChecksum));
    }
}
