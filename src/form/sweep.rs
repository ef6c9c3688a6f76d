//! The flat mode's load-factor sweep: `from`, `from + step`, …, up to `to` (inclusive). Share
//! links carry it ([`crate::share::Sweep`], defined with the `#x=` envelope); the flat form
//! ([`super::flat`]) expands it into its load factors, an error naming the input at fault.

pub use crate::share::{Sweep, SweepError, MAX_SWEEP_POINTS};

use super::FieldError;

impl From<SweepError> for FieldError {
    fn from(e: SweepError) -> FieldError {
        FieldError::new(e.field, e.message)
    }
}

/// The flat page's comparison — its policies and, if any, its load-factor sweep — as a sweep
/// file for `schedlab sweep plan` (docs/sweeps.md): the experiment as the base envelope, a
/// `policy` axis when several policies are compared, a `load_factor` axis listing the sweep's
/// points, one replication. What the page's "Download sweep file" link is to hold (the link
/// itself is not built yet).
pub fn sweep_file(state: &crate::share::ShareState) -> Result<String, FieldError> {
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
        axes.push(json!({"key": "load_factor", "values": sweep.checked_points()?}));
    }
    let base = crate::envelope::Envelope::Flat(crate::share::ShareState::new(exp, Vec::new()));
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
    use crate::config::{Experiment, WorkloadSpec};
    use crate::policy::PolicyKind;
    use crate::share::ShareState;
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
    }
}
