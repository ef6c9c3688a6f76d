//! The flat mode's load-factor sweep: `from`, `from + step`, …, up to `to` (inclusive). Share
//! links carry it ([`crate::web::share`] re-exports it); the flat form ([`super::flat`]) expands
//! it into its load factors.

use serde::{Deserialize, Serialize};

use super::FieldError;

/// A load-factor sweep: `from`, `from + step`, …, up to `to` (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    pub from: f64,
    pub to: f64,
    pub step: f64,
}

/// Most points a sweep may have.
pub const MAX_SWEEP_POINTS: usize = 50;

impl Sweep {
    /// The load factors of the sweep (rounded to 9 decimals, so that `0.5 + 5 × 0.1` is `1`),
    /// or why the sweep is not valid.
    pub fn points(&self) -> Result<Vec<f64>, String> {
        self.checked_points().map_err(|e| e.message)
    }

    /// [`Sweep::points`], the error naming the input at fault (`sweep-from`, `sweep-to`,
    /// `sweep-step`).
    pub fn checked_points(&self) -> Result<Vec<f64>, FieldError> {
        let Sweep { from, to, step } = *self;
        if !(from.is_finite() && from > 0.0) {
            return Err(FieldError::new(
                "sweep-from",
                format!("Sweep: \"from\" must be a number > 0 (got {from})."),
            ));
        }
        if !(to.is_finite() && to >= from) {
            return Err(FieldError::new(
                "sweep-to",
                format!("Sweep: \"to\" must be a number ≥ \"from\" ({from}) (got {to})."),
            ));
        }
        if !(step.is_finite() && step > 0.0) {
            return Err(FieldError::new(
                "sweep-step",
                format!("Sweep: \"step\" must be a number > 0 (got {step})."),
            ));
        }
        let n = ((to - from) / step + 1e-9).floor() + 1.0;
        if n > MAX_SWEEP_POINTS as f64 {
            return Err(FieldError::new(
                "sweep-step",
                format!(
                    "Sweep: {from} to {to} in steps of {step} is {n} points; at most \
                     {MAX_SWEEP_POINTS}. Use a larger step."
                ),
            ));
        }
        let round = |x: f64| (x * 1e9).round() / 1e9;
        Ok((0..n as usize)
            .map(|i| round(from + i as f64 * step))
            .collect())
    }
}
