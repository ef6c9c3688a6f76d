//! Number formatting for the results table and the progress line (no locale dependence, so
//! the page reads the same everywhere).

use crate::base::nice_step::nice_step;

/// `1234567.891` with `decimals = 1` → `"1,234,567.9"`.
pub fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "–".to_string()
        } else if v > 0.0 {
            "∞".to_string()
        } else {
            "−∞".to_string()
        };
    }
    let s = format!("{:.*}", decimals, v.abs());
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s.as_str(), None),
    };
    let mut out = String::with_capacity(s.len() + s.len() / 3 + 1);
    // A value that rounds to zero is shown without a sign.
    if v < 0.0 && s.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        out.push('−');
    }
    let digits = int.len();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (digits - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `v` with at most `digits` significant digits, thousands separated, trailing zeros dropped:
/// `73.41390568010814` → `"73.4139"` (6 digits), `302271.0` → `"302,271"`.
pub fn significant(v: f64, digits: usize) -> String {
    if !v.is_finite() || v == 0.0 {
        return fixed(v, 0);
    }
    let magnitude = v.abs().log10().floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).clamp(0, 12) as usize;
    let s = fixed(v, decimals);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A whole number with thousands separators.
pub fn count(n: u64) -> String {
    fixed(n as f64, 0)
}

/// A duration in seconds as a short human reading: `"42 s"`, `"17 min"`, `"5.2 h"`, `"12.3 d"`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        return fixed(secs, 0);
    }
    let a = secs.abs();
    if a < 60.0 {
        format!("{} s", fixed(secs, 0))
    } else if a < 3600.0 {
        format!("{} min", fixed(secs / 60.0, 0))
    } else if a < 86_400.0 {
        format!("{} h", fixed(secs / 3600.0, 1))
    } else {
        format!("{} d", fixed(secs / 86_400.0, 1))
    }
}

/// A byte count: `"812 B"`, `"1.4 MB"`.
pub fn bytes(n: usize) -> String {
    let n = n as f64;
    if n < 1000.0 {
        format!("{} B", fixed(n, 0))
    } else if n < 1e6 {
        format!("{} kB", fixed(n / 1e3, 1))
    } else {
        format!("{} MB", fixed(n / 1e6, 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_for_tooltips() {
        assert_eq!(significant(73.41390568010814, 6), "73.4139");
        assert_eq!(significant(302_271.0, 6), "302,271");
        assert_eq!(significant(1_234_567.89, 6), "1,234,568");
        assert_eq!(significant(0.000123456789, 6), "0.000123457");
        assert_eq!(significant(-2.5, 6), "−2.5");
        assert_eq!(significant(0.0, 6), "0");
    }
}

/// One number format for every tick of a chart axis: the same suffix (`k` for thousands, `M`
/// for millions, chosen by the axis' largest value) and the same number of decimals (as few as
/// the tick step needs: none when the ticks are whole numbers) on every label, so that an axis
/// never mixes `10.0k` with `8000` or prints `4.0` for a count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisFormat {
    scale: f64,
    suffix: &'static str,
    decimals: usize,
    /// Only whole-number ticks are labelled (counts: processors, jobs).
    whole: bool,
}

impl AxisFormat {
    /// The format of an axis from `lo` to `hi` with about `labels` tick labels (as plotters
    /// places them: a step of 1, 2 or 5 times a power of ten, at most `labels` of them).
    pub fn new(lo: f64, hi: f64, labels: usize) -> AxisFormat {
        let top = if lo.is_finite() && hi.is_finite() {
            lo.abs().max(hi.abs())
        } else {
            0.0
        };
        let (scale, suffix) = if top >= 1e6 {
            (1e6, "M")
        } else if top >= 1e4 {
            (1e3, "k")
        } else {
            (1.0, "")
        };
        let span = if hi.is_finite() && lo.is_finite() {
            (hi - lo).abs()
        } else {
            0.0
        };
        let step = nice_step(span / labels.max(1) as f64) / scale;
        let decimals = if step > 0.0 && step < 1.0 {
            ((-step.log10()).ceil() as usize).min(4)
        } else {
            0
        };
        AxisFormat {
            scale,
            suffix,
            decimals,
            whole: false,
        }
    }

    /// The format of an axis of counts (processors, jobs): whole numbers only, the ticks
    /// between them left unlabelled.
    pub fn counts(lo: f64, hi: f64, labels: usize) -> AxisFormat {
        let f = AxisFormat::new(lo, hi, labels);
        AxisFormat {
            decimals: if f.scale > 1.0 { f.decimals } else { 0 },
            whole: true,
            ..f
        }
    }

    /// `v` as the axis labels it.
    pub fn label(&self, v: f64) -> String {
        if !v.is_finite() {
            return fixed(v, 0);
        }
        if self.whole && (v - v.round()).abs() > 1e-9 * v.abs().max(1.0) {
            return String::new();
        }
        let s = format!("{:.*}", self.decimals, v / self.scale);
        // "-0" is 0.
        let s = if s.starts_with('-') && s[1..].bytes().all(|b| b == b'0' || b == b'.') {
            s[1..].to_string()
        } else {
            s.replacen('-', "\u{2212}", 1)
        };
        if s.bytes().all(|b| b == b'0' || b == b'.') {
            "0".to_string()
        } else {
            format!("{s}{}", self.suffix)
        }
    }
}
