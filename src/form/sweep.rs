//! The flat mode's sweep: `from`, `from + step`, …, up to `to` (inclusive) of one axis — the
//! load factor, the seed or the synthetic workload's jobs ([`SweepAxis`]). Share links carry
//! it ([`crate::modes::flat::link::Sweep`], defined with the `#x=` envelope); the flat form
//! ([`super::flat`]) expands it into its runs, an error naming the input at fault; and
//! [`sweep_file`] writes it as a sweep file for `schedlab sweep plan`.

pub use crate::modes::flat::link::{Sweep, SweepAxis, SweepError, MAX_SWEEP_POINTS};

use super::FieldError;

impl From<SweepError> for FieldError {
    fn from(e: SweepError) -> FieldError {
        FieldError::new(e.field, e.message)
    }
}

/// The flat page's comparison — its policies and, if any, its sweep — as a sweep file for
/// `schedlab sweep plan` (docs/sweeps.md): the experiment as the base envelope, a `policy`
/// axis when several policies are compared, then the sweep's axis (`load_factor`, `seed` or
/// `jobs`, whole numbers for the last two) listing its points, one replication. What the
/// page's "Download sweep file" link holds.
pub fn sweep_file(state: &crate::modes::flat::link::ShareState) -> Result<String, FieldError> {
    use serde_json::{json, Value};
    let policies = state.policies();
    let mut exp = state.experiment.clone();
    if let Some(first) = policies.first() {
        exp.policy = *first;
    }
    let mut axes: Vec<Value> = Vec::new();
    if policies.len() > 1 {
        axes.push(json!({"key": "policy", "values": policies.iter().map(|p| p.as_str()).collect::<Vec<_>>()}));
    }
    if let Some(sweep) = &state.sweep {
        let points = sweep.checked_points()?;
        let values: Vec<Value> = match sweep.axis {
            SweepAxis::LoadFactor => points.into_iter().map(Value::from).collect(),
            SweepAxis::Seed | SweepAxis::Jobs => {
                points.into_iter().map(|x| Value::from(x as u64)).collect()
            }
        };
        axes.push(json!({"key": sweep.axis.key(), "values": values}));
    }
    let base = crate::modes::envelope::Envelope::Flat(crate::modes::flat::link::ShareState::new(
        exp,
        Vec::new(),
    ));
    let base: Value = serde_json::from_str(&base.to_json()).unwrap_or(Value::Null);
    let file = json!({
        "version": crate::sweep::SWEEP_VERSION,
        "name": state.experiment.name.clone().unwrap_or_else(|| "schedlab flat sweep".into()),
        "base": base,
        "axes": axes,
        "replications": 1,
    });
    Ok(serde_json::to_string_pretty(&file).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modes::flat::link::ShareState;
    use crate::modes::flat::spec::{Experiment, WorkloadSpec};
    use crate::policy::PolicyKind;
    use crate::sweep::SweepSpec;
    use crate::workload::synthetic::SyntheticModel;

    #[test]
    fn the_flat_comparison_becomes_a_sweep_file() {
        let exp = Experiment::new(
            WorkloadSpec::Synthetic(SyntheticModel::default()),
            PolicyKind::Easy,
        );
        let state = ShareState::new(exp, vec![PolicyKind::Fcfs, PolicyKind::Conservative])
            .with_sweep(Some(Sweep {
                from: 0.5,
                to: 1.0,
                step: 0.1,
                axis: SweepAxis::LoadFactor,
            }));
        let text = sweep_file(&state).unwrap();
        let spec = SweepSpec::from_json(&text, "page").unwrap();
        assert_eq!(spec.points(), 12);
        assert_eq!(spec.axes[0].key, "policy");
        assert_eq!(spec.axes[1].values.len(), 6);
        let (e, _) = spec.point_experiment(11).unwrap();
        assert_eq!(e["policy"], "conservative");
        assert_eq!(e["transforms"]["load_factor"], 1.0);
        // One policy, no sweep: one point, the experiment itself.
        let single = ShareState::new(state.experiment.clone(), vec![]);
        let spec = SweepSpec::from_json(&sweep_file(&single).unwrap(), "page").unwrap();
        assert_eq!(spec.points(), 1);
        // A seed axis: whole numbers, the load factor the experiment's.
        let seeds = state.clone().with_sweep(Some(Sweep {
            from: 3.0,
            to: 5.0,
            step: 1.0,
            axis: SweepAxis::Seed,
        }));
        let text = sweep_file(&seeds).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v["axes"][1],
            serde_json::json!({"key": "seed", "values": [3, 4, 5]})
        );
        let spec = SweepSpec::from_json(&text, "page").unwrap();
        assert_eq!(spec.points(), 6);
        let (e, seed) = spec.point_experiment(5).unwrap();
        assert_eq!((e["policy"].as_str(), seed), (Some("conservative"), 5));
        assert_eq!(e["transforms"]["load_factor"], 1.0);
        // A jobs axis: the synthetic model's job count.
        let jobs = state.with_sweep(Some(Sweep {
            from: 100.0,
            to: 300.0,
            step: 100.0,
            axis: SweepAxis::Jobs,
        }));
        let spec = SweepSpec::from_json(&sweep_file(&jobs).unwrap(), "page").unwrap();
        assert_eq!(spec.axes[1].key, "jobs");
        let (e, _) = spec.point_experiment(2).unwrap();
        assert_eq!(e["workload"]["synthetic"]["jobs"], 300);
        // A fractional seed step is refused on the step input.
        let bad = Sweep {
            from: 1.0,
            to: 2.0,
            step: 0.5,
            axis: SweepAxis::Seed,
        };
        assert_eq!(bad.checked_points().unwrap_err().field, "sweep-step");
    }
}
