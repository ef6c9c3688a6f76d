//! Round steps for chart axes: 1, 2 or 5 times a power of ten — one rule for every chart's
//! ticks and labels (the Gantt chart's ticks in `metrics::gantt`, every axis format in
//! `form::format`). `libm`, so the page and the CLI compute the same steps.

/// The smallest step of 1, 2 or 5 times a power of ten at least `raw` (0 for no step).
pub fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 0.0;
    }
    let p = libm::pow(10.0, libm::floor(libm::log10(raw)));
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    use super::nice_step;

    #[test]
    fn steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(1.4), 2.0);
        assert_eq!(nice_step(192.0), 200.0);
        assert_eq!(nice_step(2000.0), 2000.0);
        assert_eq!(nice_step(6.0), 10.0);
        assert_eq!(nice_step(0.0), 0.0);
        assert_eq!(nice_step(f64::NAN), 0.0);
    }
}
