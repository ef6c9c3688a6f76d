//! One experiment envelope for every mode: a versioned JSON object whose `mode` says which
//! kind of experiment it holds, read and validated by one path ([`Envelope::from_json`]) and
//! carried in share links by one codec (`#e=`, [`Envelope::to_fragment`] /
//! [`Envelope::from_fragment`]).
//!
//! ```json
//! {"v": 2, "mode": "flat", "experiment": {…}, "policies": ["fcfs", "easy"]}
//! {"v": 2, "mode": "mesh", "experiment": {…}, "allocators": ["mpl", "mc_elongated"]}
//! {"v": 2, "mode": "grid", "experiment": {…}}
//! {"v": 2, "mode": "moldable", "experiment": {…}, "strategies": ["base", "combined"]}
//! ```
//!
//! Apart from `v` and `mode`, the keys are those of the mode's own state ([`ShareState`],
//! [`MeshShare`], [`GridShare`], [`MoldableShare`]; `docs/experiment-format.md`), validated by that mode's reader
//! (limits included). Old links keep opening: `#x=` (flat), `#m=` (mesh) and `#g=` (grid) are
//! read by their own decoders and returned as the same [`Envelope`]. A new mode is a new
//! [`Mode`] and variant here, not a new link format. The same envelope is an experiment file
//! for the CLI (`schedlab open`, and `run`/`mesh`/`grid` accept an envelope of their mode).

use serde_json::Value;

use crate::error::Error;
use crate::limits::Limits;
use crate::modes::flat::link::{
    check_envelope, pack_fragment, unpack_fragment, ShareState, SHARE_VERSION,
};
use crate::modes::flat::run::TraceInput;
use crate::modes::flat::spec::WorkloadSpec;
use crate::modes::grid::link::{
    GridShare, GRID_FRAGMENT_PREFIX, GRID_SHARE_VERSION, MAX_GRID_FRAGMENT,
};
use crate::modes::mesh::link::{MeshShare, MESH_FRAGMENT_PREFIX, MESH_SHARE_VERSION};
use crate::modes::moldable::link::{MoldableShare, MOLDABLE_SHARE_VERSION};
use crate::modes::timing::PhaseTimes;
use crate::modes::{Mode, ModeExperiment, ModeLink};

/// Version of the envelope this build writes and reads.
pub const ENVELOPE_VERSION: u32 = 2;
/// Prefix of an envelope link's fragment (after `#`).
pub const ENVELOPE_PREFIX: &str = "e=";
/// Longest envelope fragment accepted (the largest of the old kinds: a grid of many sites).
pub const MAX_ENVELOPE_FRAGMENT: usize = MAX_GRID_FRAGMENT;

/// The version of the mode's own state inside the envelope.
fn state_version(mode: Mode) -> u32 {
    match mode {
        Mode::Flat => SHARE_VERSION,
        Mode::Mesh => MESH_SHARE_VERSION,
        Mode::Grid => GRID_SHARE_VERSION,
        Mode::Moldable => MOLDABLE_SHARE_VERSION,
    }
}

/// An experiment of any mode, with what its page compares.
#[derive(Clone, Debug, PartialEq)]
pub enum Envelope {
    Flat(ShareState),
    Mesh(MeshShare),
    Grid(GridShare),
    Moldable(MoldableShare),
}

/// An envelope in a message (the worker protocol, an exercise's run): its JSON object, read
/// back through [`Envelope::from_json`] (every value validated).
impl serde::Serialize for Envelope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v: Value = serde_json::from_str(&self.to_json()).unwrap_or(Value::Null);
        serde::Serialize::serialize(&v, s)
    }
}

impl<'de> serde::Deserialize<'de> for Envelope {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Envelope, D::Error> {
        let v = <Value as serde::Deserialize>::deserialize(d)?;
        Envelope::from_json(&v.to_string()).map_err(serde::de::Error::custom)
    }
}

impl Envelope {
    /// Its mode's link state: the one place that matches on the mode. Everything else —
    /// the experiment's run for sweeps, exercises, timing and `schedlab open` — goes through
    /// [`ModeLink`] and [`ModeExperiment`].
    pub fn link(&self) -> &dyn ModeLink {
        match self {
            Envelope::Flat(s) => s,
            Envelope::Mesh(s) => s,
            Envelope::Grid(s) => s,
            Envelope::Moldable(s) => s,
        }
    }

    /// Its mode.
    pub fn mode(&self) -> Mode {
        self.link().mode()
    }

    /// The experiment of its first run, as its mode's [`ModeExperiment`] (a mesh link's
    /// allocators and policy validated under `limits`).
    pub fn experiment(&self, limits: &Limits) -> Result<Box<dyn ModeExperiment>, Error> {
        self.link().experiment(limits)
    }

    /// The envelope's JSON: `v` = [`ENVELOPE_VERSION`], `mode`, then the mode's keys (flat
    /// and grid leave out values equal to their defaults, as their links always did).
    pub fn to_json(&self) -> String {
        let state = self.link().state_json();
        let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(&state) else {
            return String::new();
        };
        map.insert("v".into(), Value::from(ENVELOPE_VERSION));
        map.insert("mode".into(), Value::from(self.mode().as_str()));
        Value::Object(map).to_string()
    }

    /// Reads an envelope's JSON — the one validation path of every mode: the version first
    /// (another version is refused naming both), then `mode`, then the mode's keys by the
    /// mode's reader (every value validated, limits included; errors name the key).
    pub fn from_json(text: &str) -> Result<Envelope, String> {
        Envelope::from_json_with(text, &Limits::DEFAULT)
    }

    /// [`Envelope::from_json`] with the experiment validated under `limits` (the CLI's
    /// `--max-*` flags; the pages always use the defaults).
    pub fn from_json_with(text: &str, limits: &Limits) -> Result<Envelope, String> {
        check_envelope(text, ENVELOPE_VERSION, "experiment", None)?;
        let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(text) else {
            return Err("the experiment is not a JSON object".into());
        };
        let mode = match map.remove("mode") {
            Some(Value::String(m)) => Mode::parse(&m).ok_or_else(|| {
                format!(
                    "mode: unknown mode {} (expected {})",
                    crate::limits::echo_quoted(&m),
                    Mode::ALL.map(Mode::as_str).join(", ")
                )
            })?,
            Some(_) => return Err("mode: must be a string (flat, mesh, grid or moldable)".into()),
            None => return Err("mode: missing (flat, mesh, grid or moldable)".into()),
        };
        map.insert("v".into(), Value::from(state_version(mode)));
        let inner = Value::Object(map).to_string();
        // The mode's reader sees the state re-written on one line: a position in it would not
        // be the document's, so only the key path is kept.
        let read = || -> Result<Envelope, String> {
            Ok(match mode {
                Mode::Flat => Envelope::Flat(ShareState::from_json_with(&inner, limits)?),
                Mode::Mesh => Envelope::Mesh(MeshShare::from_json_with(&inner, limits)?),
                Mode::Grid => {
                    Envelope::Grid(GridShare::from_json_with(&inner, limits).map_err(|e| e.0)?)
                }
                Mode::Moldable => {
                    Envelope::Moldable(MoldableShare::from_json_with(&inner, limits)?)
                }
            })
        };
        read().map_err(|m| without_position(&m))
    }

    /// The fragment (without `#`): `e=` + base64url(JSON) + `.` + checksum.
    pub fn to_fragment(&self) -> String {
        pack_fragment(ENVELOPE_PREFIX, &self.to_json())
    }

    /// Reads a share link's fragment (with or without `#`) of any kind — `#e=`, or the old
    /// `#x=`, `#m=`, `#g=` — as an envelope. `Ok(None)` when it is no share link (empty,
    /// `#about`); `Err` says why a link cannot be used (too long, damaged, other version,
    /// invalid experiment naming the key).
    pub fn from_fragment(fragment: &str) -> Result<Option<Envelope>, String> {
        if let Some((text, checksum_ok)) =
            unpack_fragment(fragment, ENVELOPE_PREFIX, MAX_ENVELOPE_FRAGMENT)?
        {
            check_envelope(
                &text,
                ENVELOPE_VERSION,
                "experiment-link",
                Some(checksum_ok),
            )?;
            return Envelope::from_json(&text).map(Some);
        }
        if let Some(s) = ShareState::from_fragment(fragment)? {
            return Ok(Some(Envelope::Flat(s)));
        }
        if let Some(s) = MeshShare::from_fragment(fragment)? {
            return Ok(Some(Envelope::Mesh(s)));
        }
        if let Some(s) = GridShare::from_fragment(fragment).map_err(|e| e.0)? {
            return Ok(Some(Envelope::Grid(s)));
        }
        Ok(None)
    }

    /// The mode a fragment asks for, without validating it: by the old prefixes, or by the
    /// `mode` inside an `#e=` link (`None` for other fragments and unreadable links; opening
    /// the link then reports why).
    pub fn mode_of_fragment(fragment: &str) -> Option<Mode> {
        let f = fragment.strip_prefix('#').unwrap_or(fragment);
        if f.starts_with(crate::modes::flat::link::FRAGMENT_PREFIX) {
            return Some(Mode::Flat);
        }
        if f.starts_with(MESH_FRAGMENT_PREFIX) {
            return Some(Mode::Mesh);
        }
        if f.starts_with(GRID_FRAGMENT_PREFIX) {
            return Some(Mode::Grid);
        }
        let (text, _) = unpack_fragment(f, ENVELOPE_PREFIX, MAX_ENVELOPE_FRAGMENT)
            .ok()
            .flatten()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        Mode::parse(v.get("mode")?.as_str()?)
    }

    /// Reads an experiment file for the CLI: an envelope (a JSON object with `mode`), or
    /// `Ok(None)` when the text has no `mode` (a mode's own experiment format, read by its
    /// command as before).
    pub fn from_document(text: &str) -> Result<Option<Envelope>, String> {
        Envelope::from_document_with(text, &Limits::DEFAULT)
    }

    /// [`Envelope::from_document`] under `limits` (`run`/`mesh`/`grid`/`moldable --max-*`).
    ///
    /// An envelope followed by anything but white space is refused ("trailing data … at line
    /// L column C"), as is a document nested deeper than the JSON reader goes ("nested too
    /// deep"), instead of being taken for a document without `mode`.
    pub fn from_document_with(text: &str, limits: &Limits) -> Result<Option<Envelope>, String> {
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        match stream.next() {
            Some(Ok(Value::Object(map))) if map.contains_key("mode") => {
                let end = stream.byte_offset();
                let rest = text.get(end..).unwrap_or_default();
                if let Some(junk) = rest.find(|c| !matches!(c, ' ' | '\t' | '\n' | '\r')) {
                    let (line, column) = line_column(text, end + junk);
                    return Err(format!(
                        "trailing data after the experiment envelope (line {line}, column \
                         {column}): a file holds one document and nothing after it"
                    ));
                }
                Envelope::from_json_with(text, limits).map(Some)
            }
            Some(Err(e)) if e.to_string().starts_with("recursion limit exceeded") => Err(format!(
                "the document is nested too deep (line {}, column {}): the JSON reader \
                     follows at most 127 levels of arrays and objects",
                e.line(),
                e.column()
            )),
            _ => Ok(None),
        }
    }
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// `message` without serde's ` at line L column C` (a position in the re-written state).
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i)
            if message[i + 9..]
                .split(" column ")
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            message[..i].to_string()
        }
        _ => message.to_string(),
    }
}

/// Times `runs` runs of the experiment of `env` (its first run: a flat link's experiment, a
/// mesh link's first allocator, …). `trace` is the SWF trace (name, bytes) every trace
/// workload of the experiment reads.
pub fn time_envelope(
    env: &Envelope,
    trace: Option<(&str, &[u8])>,
    runs: usize,
    now_ms: &dyn Fn() -> f64,
) -> Result<PhaseTimes, String> {
    crate::modes::timing::check_runs(runs).map_err(|e| e.to_string())?;
    let exp = env
        .experiment(&Limits::DEFAULT)
        .map_err(|e| e.to_string())?;
    let mut traces = |w: &WorkloadSpec| {
        Ok(match w {
            WorkloadSpec::Swf(_) => trace.map(|(name, bytes)| TraceInput::from_bytes(name, bytes)),
            WorkloadSpec::Synthetic(_) => None,
        })
    };
    exp.time(&mut traces, runs, now_ms)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::flat::spec::{Experiment, ExperimentFile};
    use crate::modes::grid::spec::preset_global_grid;
    use crate::modes::mesh::presets::preset_contention;
    use crate::modes::mesh::spec::MeshAllocatorKind;
    use crate::modes::moldable::spec::MoldableExperiment;
    use crate::policy::moldable::MoldableStrategyKind;
    use crate::policy::PolicyKind;
    use crate::workload::moldable::MoldableModel;
    use crate::workload::synthetic::SyntheticModel;

    fn flat() -> ShareState {
        let exp = Experiment::new(
            crate::modes::flat::spec::WorkloadSpec::Synthetic(SyntheticModel::default()),
            PolicyKind::Easy,
        );
        ShareState::new(exp, vec![PolicyKind::Easy, PolicyKind::Fcfs])
    }

    fn mesh() -> MeshShare {
        let exp = preset_contention(0.4);
        MeshShare {
            v: MESH_SHARE_VERSION,
            allocators: vec![exp.allocator, MeshAllocatorKind::parse("mbs").unwrap()],
            experiment: exp,
            policy: None,
        }
    }

    fn moldable() -> MoldableShare {
        let exp = MoldableExperiment::new(
            crate::modes::flat::spec::WorkloadSpec::Synthetic(SyntheticModel::default()),
            MoldableModel::Downey {
                sigma: 1.0,
                range_factor: 2.0,
            },
            MoldableStrategyKind::Combined,
        );
        MoldableShare::new(
            exp,
            vec![MoldableStrategyKind::Base, MoldableStrategyKind::Combined],
        )
    }

    #[test]
    fn every_mode_round_trips_through_one_codec() {
        for env in [
            Envelope::Flat(flat()),
            Envelope::Mesh(mesh()),
            Envelope::Grid(GridShare::new(preset_global_grid())),
            Envelope::Moldable(moldable()),
        ] {
            let f = env.to_fragment();
            assert!(f.starts_with("e="), "{f}");
            assert_eq!(
                Envelope::mode_of_fragment(&format!("#{f}")),
                Some(env.mode())
            );
            assert_eq!(Envelope::from_fragment(&f), Ok(Some(env.clone())));
            let json = env.to_json();
            let v: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(v["v"], 2);
            assert_eq!(v["mode"], env.mode().as_str());
            assert_eq!(Envelope::from_json(&json), Ok(env.clone()));
            assert_eq!(Envelope::from_document(&json), Ok(Some(env)));
        }
    }

    #[test]
    fn old_links_open_as_envelopes() {
        let x = flat().to_fragment();
        assert!(x.starts_with("x="));
        assert_eq!(
            Envelope::from_fragment(&x),
            Ok(Some(Envelope::Flat(flat())))
        );
        let m = mesh().to_fragment();
        assert_eq!(Envelope::mode_of_fragment(&m), Some(Mode::Mesh));
        assert_eq!(
            Envelope::from_fragment(&m),
            Ok(Some(Envelope::Mesh(mesh())))
        );
        let g = GridShare::new(preset_global_grid()).to_fragment();
        assert_eq!(Envelope::mode_of_fragment(&g), Some(Mode::Grid));
        assert!(matches!(
            Envelope::from_fragment(&g),
            Ok(Some(Envelope::Grid(_)))
        ));
        assert_eq!(Envelope::from_fragment("#about"), Ok(None));
        assert_eq!(Envelope::from_fragment(""), Ok(None));
        assert_eq!(Envelope::mode_of_fragment("#about"), None);
    }

    #[test]
    fn bad_envelopes_are_refused_naming_what_is_wrong() {
        let err = |json: &str| Envelope::from_json(json).unwrap_err();
        assert!(err(r#"{"v":1,"mode":"flat"}"#).contains("format 1"));
        assert!(err(r#"{"v":2}"#).contains("mode: missing"));
        assert!(err(r#"{"v":2,"mode":"torus"}"#).contains("unknown mode \"torus\""));
        assert!(err(r#"{"v":2,"mode":3}"#).contains("mode: must be a string"));
        // The mode's own reader judges the rest, naming the key.
        let mut v: Value = serde_json::from_str(&Envelope::Flat(flat()).to_json()).unwrap();
        v["policies"] = serde_json::json!(["sjf"]);
        let e = err(&v.to_string());
        assert!(e.contains("policies") && e.contains("sjf"), "{e}");
        let mut v: Value = serde_json::from_str(&Envelope::Mesh(mesh()).to_json()).unwrap();
        v["experiment"]["width"] = serde_json::json!(0);
        let e = err(&v.to_string());
        assert!(e.to_lowercase().contains("width"), "{e}");
        let mut v: Value = serde_json::from_str(&Envelope::Moldable(moldable()).to_json()).unwrap();
        v["experiment"]["model"]["downey"]["range_factor"] = serde_json::json!(0.5);
        let e = err(&v.to_string());
        assert!(e.contains("experiment.model.downey.range_factor"), "{e}");
        v["experiment"]["model"]["downey"]["range_factor"] = serde_json::json!(2);
        v["strategies"] = serde_json::json!(["fastest"]);
        let e = err(&v.to_string());
        assert!(e.contains("strategies") && e.contains("fastest"), "{e}");
        // A damaged link: the checksum.
        let f = Envelope::Flat(flat()).to_fragment();
        let cut = format!("{}00000000", &f[..f.len() - 8]);
        assert!(Envelope::from_fragment(&cut)
            .unwrap_err()
            .contains("checksum"));
        // A bare experiment file is not an envelope.
        assert_eq!(
            Envelope::from_document(&flat().experiment.to_json()),
            Ok(None)
        );
    }
}

#[cfg(test)]
mod timing_tests {
    use super::*;
    use crate::modes::flat::link::ShareState;
    use crate::modes::flat::spec::{Experiment, WorkloadSpec};
    use crate::modes::mesh::link::{MeshShare, MESH_SHARE_VERSION};
    use crate::modes::mesh::presets::preset_window;
    use crate::modes::timing::MAX_RUNS;
    use crate::policy::PolicyKind;
    use crate::workload::synthetic::SyntheticModel;

    /// A clock that advances 1 ms per reading.
    fn ticks() -> impl Fn() -> f64 {
        let n = std::cell::Cell::new(0.0);
        move || {
            n.set(n.get() + 1.0);
            n.get()
        }
    }

    fn flat() -> Experiment {
        let model: SyntheticModel =
            serde_json::from_str(r#"{"model": "lublin", "jobs": 500}"#).expect("model");
        let mut exp = Experiment::new(WorkloadSpec::Synthetic(model), PolicyKind::Easy);
        exp.seed = 3;
        exp
    }

    #[test]
    fn phases_run_the_experiment_of_the_link() {
        let exp = flat();
        let env = Envelope::Flat(ShareState::new(exp.clone(), vec![]));
        let t = time_envelope(&env, None, 2, &ticks()).expect("flat runs");
        assert_eq!((t.mode.as_str(), t.load_ms.len()), ("flat", 2));
        assert!(t.simulate_ms.iter().all(|&ms| ms == 1.0));
        let whole = crate::modes::flat::run::run_experiment(&exp, None).expect("runs");
        assert_eq!(t.jobs, whole.summary.jobs);
        assert_eq!(t.summary, Some(whole.summary));

        let exp = preset_window();
        let env = Envelope::Mesh(MeshShare {
            v: MESH_SHARE_VERSION,
            allocators: vec![exp.allocator],
            experiment: exp.clone(),
            policy: None,
        });
        let t = time_envelope(&env, None, 1, &ticks()).expect("mesh runs");
        let whole = crate::modes::mesh::run::run_mesh(&exp, None).expect("mesh runs");
        assert_eq!((t.summary, t.jobs), (Some(whole.summary), whole.jobs.len()));
    }

    #[test]
    fn bad_run_counts_are_refused() {
        let env = Envelope::Flat(ShareState::new(flat(), vec![]));
        assert!(time_envelope(&env, None, 0, &ticks()).is_err());
        assert!(time_envelope(&env, None, MAX_RUNS + 1, &ticks()).is_err());
    }
}
