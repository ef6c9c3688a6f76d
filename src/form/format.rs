//! Number formatting for the results table and the progress line (no locale dependence, so
//! the page reads the same everywhere).

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
