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

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::checksum64;
use super::spec::check_experiment;
use crate::config::{ConfigError, SwfSource, WorkloadSpec};
use crate::envelope::{Envelope, Mode};
use crate::error::Error;
use crate::grid::view::run_comparison_with;
use crate::limits::Limits;
use crate::mesh_run::run_mesh_with;
use crate::moldable_run::{run_moldable_with, MoldableReport};
use crate::run::{finish, prepare_with, simulation, TraceInput};

/// Metric names and values, in order.
pub type Metrics = Vec<(String, Value)>;

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
    pub fn from_text(text: &str) -> Result<PointResult, String> {
        let line = text.strip_suffix('\n').unwrap_or(text);
        let (open, rest) = line
            .rsplit_once(CHECKSUM_KEY)
            .ok_or("no checksum (cut or not a result file)")?;
        let sum = rest
            .strip_suffix("\"}")
            .ok_or("damaged after the checksum")?;
        if sum != checksum64(open.as_bytes()) {
            return Err("the checksum does not match (the file was cut or edited)".into());
        }
        let body: Body = serde_json::from_str(&format!("{open}}}"))
            .map_err(|e| format!("not a result file: {e}"))?;
        let outcome = match (body.metrics, body.error) {
            (Some(m), None) => Outcome::Metrics(m),
            (None, Some(e)) => Outcome::Failed(e),
            _ => return Err("neither metrics nor an error".into()),
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
    let mut out = Vec::new();
    match env {
        Envelope::Flat(s) => {
            let exp = s.experiment;
            let trace = swf_path(&exp.workload).map(&mut *open).transpose()?;
            let prepared = prepare_with(&exp, trace, limits)?;
            let result = simulation(&exp, &prepared, false).run_to_end()?;
            flatten("", &finish(&result, &prepared).summary, &mut out);
        }
        Envelope::Mesh(s) => {
            let exp = s
                .experiments_with(limits)
                .map_err(|message| {
                    Error::Config(ConfigError {
                        key: "experiment".into(),
                        message,
                    })
                })?
                .into_iter()
                .next()
                .ok_or_else(|| {
                    Error::Config(ConfigError {
                        key: "allocators".into(),
                        message: "empty".into(),
                    })
                })?;
            let trace = swf_path(&exp.workload).map(&mut *open).transpose()?;
            let r = run_mesh_with(&exp, trace, limits)?;
            flatten("", &r.summary, &mut out);
            flatten("mesh", &r.mesh, &mut out);
        }
        Envelope::Moldable(s) => {
            let exp = s.experiment;
            let trace = swf_path(&exp.workload).map(&mut *open).transpose()?;
            let report = run_moldable_with(&exp, &[], trace, limits)?;
            moldable_metrics(&report, &mut out);
        }
        Envelope::Grid(s) => {
            let exp = s.experiment;
            let mut first_error = None;
            let cmp = run_comparison_with(
                &exp,
                |i| {
                    let p = exp.sites.get(i).and_then(|site| swf_path(&site.workload))?;
                    match open(p) {
                        Ok(t) => Some((t.name, t.reader)),
                        Err(e) => {
                            first_error.get_or_insert(e);
                            None
                        }
                    }
                },
                limits,
            );
            if let Some(e) = first_error {
                return Err(e);
            }
            for r in &cmp?.runs {
                let p = r.sharing.as_str();
                flatten(p, &r.metrics.overall, &mut out);
                out.push((format!("{p}.migrated"), Value::from(r.metrics.migrated)));
                out.push((format!("{p}.violations"), Value::from(r.violations.len())));
            }
        }
    }
    Ok(out)
}

/// A moldable point's metrics: its strategy's core summary, `mean_procs_ratio`, then the %
/// change of mean turnaround against rigid conservative backfilling, overall
/// (`change.overall_pct`) and per weight category (`change.category_0_pct` … `_9_pct`, null
/// where the category has no job) — what `schedlab moldable` prints as
/// `change_vs_rigid_conservative`.
fn moldable_metrics(report: &MoldableReport, out: &mut Metrics) {
    let Some(run) = report.runs.first() else {
        return;
    };
    flatten("", &run.output.summary, out);
    out.push((
        "mean_procs_ratio".into(),
        Value::from(run.output.mean_procs_ratio),
    ));
    out.push((
        "change.overall_pct".into(),
        Value::from(run.change.overall_pct),
    ));
    for (k, c) in run.change.categories_pct.iter().enumerate() {
        out.push((format!("change.category_{k}_pct"), Value::from(*c)));
    }
}

/// Appends the leaves of `value`'s JSON as (`prefix.key`, value), in field order.
fn flatten<T: Serialize>(prefix: &str, value: &T, out: &mut Metrics) {
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    let _ = Flatten {
        prefix: prefix.to_string(),
        out,
    }
    .deserialize(&mut de);
}

/// Walks JSON in document order (serde_json's `Value` would sort the keys).
struct Flatten<'a> {
    prefix: String,
    out: &'a mut Metrics,
}

impl<'de> DeserializeSeed<'de> for Flatten<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Flatten<'_> {
    fn leaf(self, v: Value) {
        self.out.push((self.prefix, v));
    }
}

impl<'de> Visitor<'de> for Flatten<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        while let Some(k) = map.next_key::<String>()? {
            let prefix = if self.prefix.is_empty() {
                k
            } else {
                format!("{}.{k}", self.prefix)
            };
            map.next_value_seed(Flatten {
                prefix,
                out: &mut *out,
            })?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let v = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        self.leaf(v);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.leaf(Value::Null);
        Ok(())
    }
}

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
        assert!(PointResult::from_text(&edited)
            .unwrap_err()
            .contains("checksum"));
        let f = PointResult {
            point: 4,
            point_checksum: "1".into(),
            outcome: Outcome::Failed("no trace".into()),
        };
        assert_eq!(PointResult::from_text(&f.to_text()), Ok(f));
    }

    #[test]
    fn flatten_keeps_field_order() {
        #[derive(Serialize)]
        struct S {
            b: u32,
            a: f64,
            c: Inner,
        }
        #[derive(Serialize)]
        struct Inner {
            z: &'static str,
            y: Vec<u8>,
        }
        let mut out = Vec::new();
        let s = S {
            b: 1,
            a: 0.5,
            c: Inner { z: "x", y: vec![1] },
        };
        flatten("p", &s, &mut out);
        let names: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["p.b", "p.a", "p.c.z", "p.c.y"]);
    }
}
