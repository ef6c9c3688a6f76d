//! The sweep file (`docs/sweeps.md`): a base experiment envelope of any mode, axes (a key of
//! the mode's experiment and its values, listed or as a range) and a replication count;
//! expanded in a fixed order into points, each one experiment with deterministic seeds.
//!
//! ```json
//! {"version": 1, "name": "EASY vs conservative under load",
//!  "base": {"v": 2, "mode": "flat", "experiment": {…}},
//!  "axes": [{"key": "policy", "values": ["easy", "conservative"]},
//!           {"key": "load_factor", "from": 0.8, "to": 1.2, "step": 0.1}],
//!  "replications": 3}
//! ```
//!
//! Point `n` is the Cartesian product in axis order, the first axis slowest, the replication
//! fastest: `n = ((i₀ · len₁ + i₁) · len₂ + i₂) · replications + r`. Replication 0 runs the
//! experiment's own `seed`; replication `r ≥ 1` runs [`replica_seed`]`(seed, r)`, so that every
//! point of one replication sees the same workload (common random numbers across policies),
//! and the seeds depend on nothing but the sweep file.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::point::{set_path, PointError};
use super::SweepError;
use crate::limits::{Limits, MAX_SWEEP_FILE_POINTS};
use crate::modes::envelope::{Envelope, ENVELOPE_VERSION};
use crate::modes::flat::spec::{parse_json, ConfigError};
use crate::modes::Mode;

/// Version of the sweep file this build reads and writes.
pub const SWEEP_VERSION: u32 = 1;

/// One axis: the key as written, its path in the mode's experiment, its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// The key as the sweep file writes it (`load_factor`): the merged table's column.
    pub key: String,
    /// Where it goes in the mode's experiment (`transforms.load_factor`).
    pub path: Vec<String>,
    /// The values, in order (never empty).
    pub values: Vec<Value>,
}

/// A validated sweep: the mode, the base experiment (the mode's experiment as JSON, validated
/// through the envelope), the axes and the replication count.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepSpec {
    pub name: Option<String>,
    pub mode: Mode,
    /// The mode's experiment (what `experiment` holds inside a point's envelope).
    pub base: Value,
    pub axes: Vec<Axis>,
    pub replications: u32,
    /// The limits every point is validated under (the defaults, or `sweep plan --max-*`;
    /// not part of the sweep file: the plan's manifest records them).
    pub limits: Limits,
}

/// The file as written.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    #[serde(default = "one")]
    version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    base: Value,
    #[serde(default)]
    axes: Vec<RawAxis>,
    #[serde(default = "one")]
    replications: u32,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawAxis {
    key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    to: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    step: Option<f64>,
}

fn one() -> u32 {
    1
}

/// The seed of replication `r` of a point whose experiment has `seed`: `seed` itself for
/// `r = 0`, else the `r`-th output of SplitMix64 started at `seed`, keeping its top 53 bits
/// (so that it survives a JavaScript number in the page and in links).
pub fn replica_seed(seed: u64, r: u64) -> u64 {
    if r == 0 {
        return seed;
    }
    let mut z = seed.wrapping_add(r.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) >> 11
}

/// The path of an axis key in the mode's experiment: a few short names, else the dotted key
/// itself (`network.kappa`, `sites.0.procs`).
fn resolve(mode: Mode, key: &str) -> Vec<String> {
    let full = mode
        .entry()
        .axes
        .iter()
        .find(|(short, _)| *short == key)
        .map_or(key, |(_, full)| full);
    full.split('.').map(str::to_string).collect()
}

/// The values of a range `from, from + step, …, ≤ to` (rounded to 9 decimals; integers when
/// `from` and `step` are).
fn range_values(from: f64, to: f64, step: f64) -> Result<Vec<Value>, (&'static str, String)> {
    if !from.is_finite() {
        return Err((
            "from",
            format!(
                "must be a finite number (got {})",
                crate::limits::echo_number(from)
            ),
        ));
    }
    if !(to.is_finite() && to >= from) {
        return Err((
            "to",
            format!(
                "must be a number ≥ from = {} (got {})",
                crate::limits::echo_number(from),
                crate::limits::echo_number(to)
            ),
        ));
    }
    if !(step.is_finite() && step > 0.0) {
        return Err((
            "step",
            format!(
                "must be a number > 0 (got {})",
                crate::limits::echo_number(step)
            ),
        ));
    }
    let n = ((to - from) / step + 1e-9).floor() + 1.0;
    if n > MAX_SWEEP_FILE_POINTS as f64 {
        return Err((
            "step",
            format!(
                "{from} to {to} in steps of {step} is {n} values, above the limit \
                 max_sweep_file_points = {MAX_SWEEP_FILE_POINTS}"
            ),
        ));
    }
    let integral = |x: f64| x.fract() == 0.0 && x.abs() < 9.0e15;
    let ints = integral(from) && integral(step);
    Ok((0..n as u64)
        .map(|i| {
            let x = from + i as f64 * step;
            if ints && x >= 0.0 {
                Value::from(x as u64)
            } else if ints {
                Value::from(x as i64)
            } else {
                Value::from((x * 1e9).round() / 1e9)
            }
        })
        .collect())
}

impl SweepSpec {
    /// Reads a sweep file's text (`file` names it in errors): the version, the base envelope
    /// (validated by [`Envelope::from_json`], limits included), every axis, the point count
    /// (at most [`MAX_SWEEP_FILE_POINTS`]) and every point's experiment is left to
    /// [`SweepSpec::point_envelope`].
    pub fn from_json(text: &str, file: &str) -> Result<SweepSpec, SweepError> {
        SweepSpec::from_json_with(text, file, &Limits::DEFAULT)
    }

    /// [`SweepSpec::from_json`] with the base and every point validated under `limits`.
    pub fn from_json_with(
        text: &str,
        file: &str,
        limits: &Limits,
    ) -> Result<SweepSpec, SweepError> {
        let invalid = |key: String, message: String| SweepError::Invalid {
            file: file.to_string(),
            key,
            message,
        };
        let raw: RawSweep = parse_json(text)
            .map_err(|e| invalid(if e.key == "." { String::new() } else { e.key }, e.message))?;
        if raw.version != SWEEP_VERSION {
            return Err(invalid(
                "version".into(),
                format!(
                    "sweep format version {} is not supported (this build reads version \
                     {SWEEP_VERSION})",
                    raw.version
                ),
            ));
        }
        let (mode, base) = base_experiment(raw.base, limits).map_err(|(k, m)| invalid(k, m))?;
        if raw.replications == 0 {
            return Err(invalid("replications".into(), "must be ≥ 1".into()));
        }
        let mut axes: Vec<Axis> = Vec::with_capacity(raw.axes.len());
        for (i, a) in raw.axes.into_iter().enumerate() {
            let at = |k: &str| format!("axes[{i}].{k}");
            let key = a.key.trim().to_string();
            if key.is_empty() || key.split('.').any(str::is_empty) {
                return Err(invalid(
                    at("key"),
                    format!(
                        "{:?} is not a key (write e.g. \"policy\" or \"network.kappa\")",
                        a.key
                    ),
                ));
            }
            let path = resolve(mode, &key);
            if let Some(prev) = axes.iter().find(|b| b.path == path) {
                return Err(invalid(
                    at("key"),
                    format!("{key:?} sets the same key as the axis {:?}", prev.key),
                ));
            }
            if path.first().is_some_and(|p| p == "version") {
                return Err(invalid(
                    at("key"),
                    "the format version is not an axis".into(),
                ));
            }
            let values = match (a.values, a.from, a.to, a.step) {
                (Some(v), None, None, None) if v.is_empty() => {
                    return Err(invalid(at("values"), "the list is empty".into()))
                }
                (Some(v), None, None, None) => v,
                (None, Some(from), Some(to), Some(step)) => {
                    range_values(from, to, step).map_err(|(k, m)| invalid(at(k), m))?
                }
                (Some(_), ..) => {
                    return Err(invalid(
                        at("values"),
                        "give either \"values\" or \"from\", \"to\" and \"step\", not both".into(),
                    ))
                }
                _ => {
                    return Err(invalid(
                        at("key"),
                        format!(
                            "the axis {key:?} needs \"values\" (a list) or \"from\", \"to\" and \
                             \"step\" (a range)"
                        ),
                    ))
                }
            };
            axes.push(Axis { key, path, values });
        }
        let spec = SweepSpec {
            name: raw.name,
            mode,
            base,
            axes,
            replications: raw.replications,
            limits: *limits,
        };
        let points = spec.points_u128();
        if points > MAX_SWEEP_FILE_POINTS as u128 {
            let mut parts: Vec<String> = spec
                .axes
                .iter()
                .map(|a| format!("{} {}", a.key, a.values.len()))
                .collect();
            parts.push(format!("replications {}", spec.replications));
            return Err(SweepError::TooManyPoints {
                file: file.to_string(),
                detail: parts.join(" × "),
                points,
                max: MAX_SWEEP_FILE_POINTS,
            });
        }
        Ok(spec)
    }

    /// The sweep as a normalised sweep file (ranges written out as lists), which
    /// [`SweepSpec::from_json`] reads back to the same sweep.
    pub fn to_json(&self) -> String {
        let mut base = Map::new();
        base.insert("v".into(), Value::from(ENVELOPE_VERSION));
        base.insert("mode".into(), Value::from(self.mode.as_str()));
        base.insert("experiment".into(), self.base.clone());
        let raw = RawSweep {
            version: SWEEP_VERSION,
            name: self.name.clone(),
            base: Value::Object(base),
            axes: self
                .axes
                .iter()
                .map(|a| RawAxis {
                    key: a.key.clone(),
                    values: Some(a.values.clone()),
                    from: None,
                    to: None,
                    step: None,
                })
                .collect(),
            replications: self.replications,
        };
        serde_json::to_string(&raw).unwrap_or_default()
    }

    fn points_u128(&self) -> u128 {
        self.axes
            .iter()
            .fold(u128::from(self.replications), |n, a| {
                n.saturating_mul(a.values.len() as u128)
            })
    }

    /// Number of points (axes × replications; at most [`MAX_SWEEP_FILE_POINTS`]).
    pub fn points(&self) -> usize {
        usize::try_from(self.points_u128()).unwrap_or(usize::MAX)
    }

    /// Point `n`'s index into each axis and its replication.
    pub fn indices(&self, n: usize) -> (Vec<usize>, u32) {
        let reps = self.replications.max(1) as usize;
        let r = (n % reps) as u32;
        let mut rest = n / reps;
        let mut idx = vec![0; self.axes.len()];
        for (k, a) in self.axes.iter().enumerate().rev() {
            let len = a.values.len().max(1);
            idx[k] = rest % len;
            rest /= len;
        }
        (idx, r)
    }

    /// Point `n`'s axis values, in axis order.
    pub fn values(&self, n: usize) -> Vec<&Value> {
        let (idx, _) = self.indices(n);
        self.axes
            .iter()
            .zip(idx)
            .filter_map(|(a, i)| a.values.get(i))
            .collect()
    }

    /// `policy = "easy", load_factor = 1.2, replication 0` (for messages).
    pub fn describe(&self, n: usize) -> String {
        let (_, r) = self.indices(n);
        let mut parts: Vec<String> = self
            .axes
            .iter()
            .zip(self.values(n))
            .map(|(a, v)| format!("{} = {v}", a.key))
            .collect();
        parts.push(format!("replication {r}"));
        parts.join(", ")
    }

    /// Point `n`'s experiment (the base with its axis values, then its replication's seed)
    /// and that seed.
    pub fn point_experiment(&self, n: usize) -> Result<(Value, u64), PointError> {
        let (idx, r) = self.indices(n);
        let mut exp = self.base.clone();
        for (a, i) in self.axes.iter().zip(idx) {
            let v = a.values.get(i).cloned().unwrap_or(Value::Null);
            set_path(&mut exp, &a.path, v).map_err(|error| PointError::Axis {
                key: a.key.clone(),
                error,
            })?;
        }
        let seed = match exp.get("seed") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_u64().ok_or_else(|| PointError::Seed(v.clone()))?,
        };
        let seed = replica_seed(seed, u64::from(r));
        if let Value::Object(m) = &mut exp {
            m.insert("seed".into(), Value::from(seed));
        }
        Ok((exp, seed))
    }

    /// Point `n` as an experiment envelope of the sweep's mode — the text of its point file,
    /// validated by the envelope's one path. `rebase` rewrites every trace path (the CLI
    /// makes them absolute, so that the point runs from any folder).
    pub fn point_envelope(
        &self,
        n: usize,
        file: &str,
        rebase: &dyn Fn(&str) -> String,
    ) -> Result<String, SweepError> {
        let err = |message: String| SweepError::Point {
            file: file.to_string(),
            point: n,
            values: self.describe(n),
            message,
        };
        let (mut exp, _) = self.point_experiment(n).map_err(|e| err(e.to_string()))?;
        for p in trace_paths(self.mode, &mut exp) {
            if let Value::String(s) = p {
                *s = rebase(s);
            }
        }
        let mut env = Map::new();
        env.insert("v".into(), Value::from(ENVELOPE_VERSION));
        env.insert("mode".into(), Value::from(self.mode.as_str()));
        // A point's envelope lists its experiment's own run (`ModeEntry::compared`).
        if let Some((list, key, default)) = self.mode.entry().compared {
            let one = exp.get(key).cloned().unwrap_or(Value::from(default));
            env.insert(list.into(), Value::Array(vec![one]));
        }
        env.insert("experiment".into(), exp);
        let env = Value::Object(env);
        match Envelope::from_json_with(&env.to_string(), &self.limits) {
            Ok(valid) => Ok(valid.to_json()),
            // Checked as the mode's experiment file only when the envelope refuses it (the
            // common case costs one validation): its error names the axis and the key.
            Err(m) => {
                let exp = env.get("experiment").unwrap_or(&Value::Null);
                check_experiment(self.mode, exp, &self.limits)
                    .map_err(|e| err(self.blame(n, &e)))?;
                Err(err(m))
            }
        }
    }

    /// An invalid point's error naming the axis that set the key at fault and its value
    /// (`axis policy = "sjf": unknown policy …`, `axis jobs = 0 (key workload.synthetic.jobs):
    /// …`), or the key when no axis set it.
    fn blame(&self, n: usize, e: &ConfigError) -> String {
        let touches = |a: &Axis| {
            let path = a.path.join(".");
            e.key == path
                || e.key.starts_with(&format!("{path}."))
                || path.starts_with(&format!("{}.", e.key))
        };
        let at = self
            .axes
            .iter()
            .zip(self.values(n))
            .find(|(a, _)| touches(a));
        match at {
            Some((a, v)) if a.key == e.key => format!("axis {} = {v}: {}", a.key, e.message),
            Some((a, v)) => format!("axis {} = {v} (key {}): {}", a.key, e.key, e.message),
            None if e.key.is_empty() => e.message.clone(),
            None => format!("key {}: {}", e.key, e.message),
        }
    }
}

/// Checks a point's experiment JSON as its mode's experiment file under `limits` (what its
/// command checks): the error names the key at fault (and no position in a JSON text the
/// user never wrote).
pub fn check_experiment(mode: Mode, exp: &Value, limits: &Limits) -> Result<(), ConfigError> {
    let text = exp.to_string();
    let checked = (mode.entry().check)(&text, limits);
    checked.map_err(|mut e| {
        if let Some(at) = e.message.rfind(" at line ") {
            let tail = &e.message[at + " at line ".len()..];
            if tail.split(" column ").all(|n| n.parse::<u64>().is_ok()) {
                e.message.truncate(at);
            }
        }
        e
    })
}

/// The trace paths of a mode's experiment JSON (flat and mesh: `workload.swf.path`; grid:
/// every site's).
fn trace_paths(mode: Mode, exp: &mut Value) -> Vec<&mut Value> {
    fn swf_path(w: &mut Value) -> Option<&mut Value> {
        w.get_mut("workload")?.get_mut("swf")?.get_mut("path")
    }
    match mode.entry().workloads_in {
        None => swf_path(exp).into_iter().collect(),
        Some(list) => match exp.get_mut(list) {
            Some(Value::Array(items)) => items.iter_mut().filter_map(swf_path).collect(),
            _ => Vec::new(),
        },
    }
}

/// The base envelope's experiment as JSON, validated, with its mode. A base that compares
/// several policies or allocators is refused: a point runs one experiment (make them an axis).
fn base_experiment(base: Value, limits: &Limits) -> Result<(Mode, Value), (String, String)> {
    let Value::Object(mut map) = base else {
        return Err((
            "base".into(),
            "must be an experiment envelope: {\"v\": 2, \"mode\": …, \"experiment\": {…}}".into(),
        ));
    };
    // A mesh (moldable) envelope lists the allocators (strategies) it compares; a sweep's
    // base need not.
    let mode = map
        .get("mode")
        .and_then(Value::as_str)
        .and_then(Mode::parse);
    if let Some((list, key, default)) = mode.and_then(|m| m.entry().compared) {
        if !map.contains_key(list) {
            let one = map
                .get("experiment")
                .and_then(|e| e.get(key))
                .cloned()
                .unwrap_or(Value::from(default));
            map.insert(list.into(), Value::Array(vec![one]));
        }
    }
    let text = Value::Object(map).to_string();
    let env = Envelope::from_json_with(&text, limits).map_err(|m| ("base".to_string(), m))?;
    let exp = env.link().single_experiment(limits)?;
    Ok((env.mode(), exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAT: &str = r#"{"version": 1, "name": "t",
        "base": {"v": 2, "mode": "flat", "experiment": {"workload": {"synthetic":
            {"model": "lublin", "jobs": 50}}, "policy": "easy", "seed": 7}},
        "axes": [{"key": "policy", "values": ["fcfs", "easy"]},
                 {"key": "load_factor", "from": 0.8, "to": 1.2, "step": 0.2}],
        "replications": 2}"#;

    fn err(text: &str) -> String {
        SweepSpec::from_json(text, "s.json")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn expands_in_axis_order_with_replication_fastest() {
        let s = SweepSpec::from_json(FLAT, "s.json").unwrap();
        assert_eq!(s.points(), 12);
        assert_eq!(s.axes[1].values, vec![0.8, 1.0, 1.2]);
        assert_eq!(s.indices(0), (vec![0, 0], 0));
        assert_eq!(s.indices(1), (vec![0, 0], 1));
        assert_eq!(s.indices(2), (vec![0, 1], 0));
        assert_eq!(s.indices(11), (vec![1, 2], 1));
        let (e, seed) = s.point_experiment(11).unwrap();
        assert_eq!(e["policy"], "easy");
        assert_eq!(e["transforms"]["load_factor"], 1.2);
        assert_eq!(seed, replica_seed(7, 1));
        assert_eq!(s.point_experiment(10).unwrap().1, 7);
        let text = s.point_envelope(11, "s.json", &|p| p.to_string()).unwrap();
        let env = Envelope::from_json(&text).unwrap();
        assert_eq!(env.mode(), Mode::Flat);
        // Normalised and read back: the same sweep.
        assert_eq!(SweepSpec::from_json(&s.to_json(), "m").unwrap(), s);
    }

    #[test]
    fn seeds_are_distinct_and_javascript_safe() {
        let mut seen = std::collections::HashSet::new();
        for r in 0..1000 {
            let x = replica_seed(3, r);
            assert!(x < (1 << 53));
            assert!(seen.insert(x));
        }
        assert_eq!(replica_seed(3, 0), 3);
    }

    #[test]
    fn errors_name_the_file_and_key() {
        let e = err(&FLAT.replace("\"load_factor\", \"from\"", "\"load_factor\", \"fro\""));
        assert!(e.starts_with("s.json: axes[1]"), "{e}");
        let e = err(&FLAT.replace("\"step\": 0.2", "\"step\": -1"));
        assert_eq!(e, "s.json: axes[1].step: must be a number > 0 (got -1)");
        let e = err(&FLAT.replace("\"replications\": 2", "\"replications\": 0"));
        assert_eq!(e, "s.json: replications: must be ≥ 1");
        let e = err(&FLAT.replace("\"jobs\": 50", "\"jobs\": 0"));
        assert!(e.starts_with("s.json: base: ") && e.contains("jobs"), "{e}");
        let e = err(&FLAT.replace("\"step\": 0.2", "\"step\": 0.0000001"));
        assert!(e.contains("max_sweep_file_points"), "{e}");
        let e = err(&FLAT.replace("[\"fcfs\", \"easy\"]", "[]"));
        assert_eq!(e, "s.json: axes[0].values: the list is empty");
        let e = err(&FLAT.replace("\"replications\": 2", "\"replications\": 100000"));
        assert!(e.contains("600000 points (policy 2 × load_factor 3 × replications 100000)"));
        let e = err(&FLAT.replace("\"key\": \"policy\"", "\"key\": \"load_factor\""));
        assert!(e.contains("axes[1].key") && e.contains("same key"), "{e}");
        // A bad axis value is caught when the point is made, naming the point and its values.
        let s = SweepSpec::from_json(&FLAT.replace("\"fcfs\"", "\"sjf\""), "s.json").unwrap();
        let e = s
            .point_envelope(0, "s.json", &|p| p.to_string())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "s.json: point 0 (policy = \"sjf\", load_factor = 0.8, replication 0): axis policy = \
             \"sjf\": unknown policy \"sjf\" (expected fcfs, easy or conservative)"
        );
        // A key no axis sets is named as a key; an axis setting a nested key names both.
        let s = SweepSpec::from_json(
            &FLAT
                .replace("\"replications\": 2", "\"replications\": 1")
                .replace(
                    "\"step\": 0.2}",
                    "\"step\": 0.2}, {\"key\": \"workload.synthetic.jobs\", \"values\": [0]}",
                ),
            "s.json",
        )
        .unwrap();
        let e = s.point_envelope(0, "s.json", &|p| p.to_string());
        let e = e.unwrap_err().to_string();
        assert!(
            e.starts_with(
                "s.json: point 0 (policy = \"fcfs\", load_factor = 0.8, \
                 workload.synthetic.jobs = 0, replication 0): axis workload.synthetic.jobs = 0: "
            ),
            "{e}"
        );
        let blame = |key: &str| {
            let e = ConfigError {
                key: key.into(),
                message: "m".into(),
            };
            s.blame(0, &e)
        };
        assert_eq!(
            blame("transforms.load_factor"),
            "axis load_factor = 0.8 (key transforms.load_factor): m"
        );
        assert_eq!(blame("machine"), "key machine: m");
        assert_eq!(blame(""), "m");
    }
}
