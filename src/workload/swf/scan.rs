//! The byte scanner of SWF data lines: the 18 numbers of a line read straight from the reader's
//! buffer, without a `String` (or a `&str` check) per line or per field.
//!
//! [`fast_line`] accepts only the common case — a complete line (ending in `\n`) made of
//! exactly 18 fields separated by spaces, tabs or `\r`, each field a number of digits, `-`,
//! `.`, `e`, `E`, `+` that reads as a finite `f64` — and returns `None` for everything else
//! (comments, blank lines, a byte-order mark, other bytes, a line cut by the end of the buffer,
//! a wrong field count, a bad number). The reader then reads that line the general way
//! ([`parse_fields`]), which gives the same numbers for every line [`fast_line`] accepts and
//! names the line and field of every error, so the fast path never changes a result or a
//! message.
//!
//! Numbers: a plain integer of at most 15 digits (exact in both `u64` and `f64`) is read by
//! hand; anything else (decimals, exponents, longer integers) goes through `str::parse::<f64>`,
//! and `NaN`, infinities and values overflowing to infinity are rejected.

use super::error::SwfErrorKind;

/// Fields of a data line.
pub const FIELDS: usize = 18;

/// Reads one data line from the start of `bytes` when it is plain (see the module
/// documentation): the fields and the line's length in bytes, `\n` included.
#[inline]
pub fn fast_line(bytes: &[u8]) -> Option<([f64; FIELDS], usize)> {
    let mut fields = [0.0f64; FIELDS];
    let mut found = 0usize;
    let mut i = 0usize;
    loop {
        // Separators.
        let mut c = *bytes.get(i)?;
        while c == b' ' || c == b'\t' || c == b'\r' {
            i += 1;
            c = *bytes.get(i)?;
        }
        if c == b'\n' {
            return (found == FIELDS).then_some((fields, i + 1));
        }
        let slot = fields.get_mut(found)?;
        found += 1;
        // A token: an optional '-', then digits read as an integer.
        let start = i;
        let negative = c == b'-';
        if negative {
            i += 1;
        }
        let digits_start = i;
        let mut n: u64 = 0;
        loop {
            let d = bytes.get(i)?.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            n = n.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let digits = i - digits_start;
        let next = *bytes.get(i)?;
        let separator = matches!(next, b' ' | b'\t' | b'\r' | b'\n');
        if separator && (1..=15).contains(&digits) {
            let v = n as f64;
            *slot = if negative { -v } else { v };
            continue;
        }
        // Not a plain integer: the rest of the token, then std's float parse.
        while !matches!(*bytes.get(i)?, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
        }
        *slot = parse_float(bytes.get(start..i)?)?;
    }
}

/// A decimal or exponent token of the fast path: only the bytes a number may hold, read by
/// `str::parse::<f64>`, finite.
fn parse_float(token: &[u8]) -> Option<f64> {
    if !token
        .iter()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    let v: f64 = std::str::from_utf8(token).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Parses the 18 fields of a data line in general: any ASCII whitespace separates fields; the
/// error names the first field that is not a number, or the field count.
pub fn parse_fields(line: &str) -> Result<[f64; FIELDS], SwfErrorKind> {
    let mut fields = [0.0f64; FIELDS];
    let mut found = 0usize;
    let mut bad: Option<(usize, &str)> = None;
    for token in line.split_ascii_whitespace() {
        if let Some(slot) = fields.get_mut(found) {
            match parse_number(token) {
                Some(v) => *slot = v,
                None => {
                    if bad.is_none() {
                        bad = Some((found + 1, token));
                    }
                }
            }
        }
        found += 1;
    }
    if found != FIELDS {
        return Err(SwfErrorKind::FieldCount { found });
    }
    match bad {
        Some((field, text)) => Err(SwfErrorKind::NotANumber {
            field,
            text: text.to_string(),
        }),
        None => Ok(fields),
    }
}

/// A finite number: fast path for plain integers, `str::parse::<f64>` otherwise; `NaN`,
/// infinities and values overflowing to infinity are rejected.
pub fn parse_number(token: &str) -> Option<f64> {
    let bytes = token.as_bytes();
    let (negative, digits) = match bytes.first() {
        Some(b'-') => (true, bytes.get(1..).unwrap_or(&[])),
        _ => (false, bytes),
    };
    // Up to 15 digits are exact in both i64 and f64.
    if !digits.is_empty() && digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let mut n: i64 = 0;
        for &d in digits {
            n = n * 10 + i64::from(d - b'0');
        }
        let v = n as f64;
        return Some(if negative { -v } else { v });
    }
    match token.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general path's reading of a line, `None` when it is an error.
    fn general(line: &str) -> Option<[f64; FIELDS]> {
        parse_fields(line).ok()
    }

    fn same_bits(a: &[f64; FIELDS], b: &[f64; FIELDS]) -> bool {
        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }

    /// Every line the fast path accepts reads the same, bit for bit, through the general path.
    fn check(line: &str) {
        let with_nl = format!("{line}\n");
        if let Some((fast, len)) = fast_line(with_nl.as_bytes()) {
            assert_eq!(len, with_nl.len(), "{line:?}");
            let slow = general(line).unwrap_or_else(|| panic!("general path refuses {line:?}"));
            assert!(same_bits(&fast, &slow), "{line:?}: {fast:?} vs {slow:?}");
        }
        // Without its line end the fast path never decides.
        assert!(fast_line(line.as_bytes()).is_none(), "{line:?}");
    }

    #[test]
    fn plain_lines_take_the_fast_path() {
        let line = "1 100 5 50 4 1.5 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1";
        let (f, len) = fast_line(format!("{line}\nnext").as_bytes()).expect("plain line");
        assert_eq!(len, line.len() + 1);
        assert_eq!(f[0], 1.0);
        assert_eq!(f[5], 1.5);
        assert_eq!(f[6], -1.0);
        check(line);
        check("  1\t100  5 50 4 1.5 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1  \r");
        check("9 5 0 7.5 16.9 -1 -1 16 1e3 -1 1 1 1 -1 1 -1 -1 0.5");
        check("-0 5 0 7.5 16.9 -1 -1 16 1E+3 -1 1 1 1 -1 1 -1 -1 .5");
        check("1234567890123456789 5 0 7 16 -1 -1 16 1 -1 1 1 1 -1 1 -1 -1 5");
        check("123456789012345 999999999999999 0 7 16 -1 -1 16 1 -1 1 1 1 -1 1 -1 -1 5");
    }

    #[test]
    fn other_lines_are_left_to_the_general_path() {
        for line in [
            "",
            "   ",
            "; MaxProcs: 128",
            "\u{feff}1 100 5 50 4 1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1 -1 4 60 -1 1 1 1 -1 1 -1 -1",
            "1 100 5 50 4 1 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1 7",
            "1 100 5 50 4 x -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 - -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1e999 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 nan -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1..2 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1\x0c2 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1\x002 -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
            "1 100 5 50 4 1é -1 4 60 -1 1 1 1 -1 1 -1 -1 -1",
        ] {
            assert!(
                fast_line(format!("{line}\n").as_bytes()).is_none(),
                "{line:?}"
            );
            check(line);
        }
    }

    #[test]
    fn fast_and_general_paths_agree_on_mixed_tokens() {
        let tokens = [
            "0",
            "-0",
            "-1",
            "7",
            "12",
            "3600",
            "1.5",
            "-2.25",
            "1e3",
            "1E-3",
            "+4",
            "00012",
            ".5",
            "5.",
            "-",
            "+",
            "e",
            "1e",
            "9999999999999999",
            "-123456789012345",
            "1e308",
            "1e309",
            "0.1e-400",
            "--1",
            "1-",
            "1.2.3",
        ];
        let mut k = 0usize;
        for a in tokens {
            for b in tokens {
                k += 1;
                let mut fields: Vec<String> = (0..16).map(|i| ((i * k) % 97).to_string()).collect();
                fields.insert(k % 17, a.to_string());
                fields.insert((k * 7) % 18, b.to_string());
                check(&fields.join(" "));
                check(&fields.join("\t"));
            }
        }
    }
}
