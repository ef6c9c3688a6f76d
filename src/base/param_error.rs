//! The error of a rejected model parameter or setting (`workload.synthetic.jobs must be > 0`):
//! the dotted key at fault and the requirement it breaks. Base vocabulary, so that the
//! workload models, the transforms and the limits can say which key is wrong without
//! importing the experiment layer; it becomes a [`ConfigError`] with the same key.

use std::fmt;

use super::config_error::ConfigError;

/// A number as an error message repeats it: Rust's shortest form (`1000`, `0.5`) when that
/// is short, else the exponent form (`1e300`, not 301 digits).
pub fn echo_number(v: f64) -> String {
    let plain = format!("{v}");
    if plain.len() <= 16 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// A number outside its closed range: "must be a number ≥ `min` and ≤ `max``unit` (got
/// `value`)". Keyless, for the checks whose callers name the field their own way (the form's
/// "Load factor …").
#[derive(Clone, Debug, PartialEq)]
pub struct OutOfRange {
    pub min: f64,
    pub max: f64,
    /// Appended to the maximum: `""` or `" seconds"`.
    pub unit: &'static str,
    pub value: f64,
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "must be a number ≥ {} and ≤ {}{} (got {})",
            echo_number(self.min),
            echo_number(self.max),
            self.unit,
            echo_number(self.value)
        )
    }
}

impl std::error::Error for OutOfRange {}

/// A rejected parameter: its dotted key and the requirement it breaks. Prints as
/// "`key` `requirement`".
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// A count that must be at least 1 is 0: "must be > 0".
    Zero { key: String },
    /// Not a positive finite number: "must be a finite number > 0 (got …)".
    NotPositive { key: String, value: f64 },
    /// Not in [0, 1]: "must be a probability in [0, 1] (got …)".
    NotProbability { key: String, value: f64 },
    /// NaN or infinite where any finite number will do: "must be finite".
    NotFinite { key: String },
    /// Outside a closed range ([`OutOfRange`]).
    OutOfRange { key: String, range: OutOfRange },
    /// Any other requirement, in words (`must be ≤ 40`), with the value at fault when it is
    /// worth repeating. A requirement on several keys (`+ workload.synthetic.pow2_prob must
    /// be ≤ 1`) is keyed by the first of them.
    Rule {
        key: String,
        rule: String,
        value: Option<f64>,
    },
}

impl ParamError {
    /// [`ParamError::Zero`] for `key`.
    pub fn zero(key: &str) -> ParamError {
        ParamError::Zero { key: key.into() }
    }

    /// [`ParamError::Rule`] for `key`, without a value.
    pub fn rule(key: &str, rule: impl Into<String>) -> ParamError {
        ParamError::Rule {
            key: key.into(),
            rule: rule.into(),
            value: None,
        }
    }

    /// [`ParamError::Rule`] for `key`, repeating `value`.
    pub fn rule_got(key: &str, rule: impl Into<String>, value: f64) -> ParamError {
        ParamError::Rule {
            key: key.into(),
            rule: rule.into(),
            value: Some(value),
        }
    }

    /// The dotted key at fault (the first one, for a requirement on several keys).
    pub fn key(&self) -> &str {
        match self {
            ParamError::Zero { key }
            | ParamError::NotPositive { key, .. }
            | ParamError::NotProbability { key, .. }
            | ParamError::NotFinite { key }
            | ParamError::OutOfRange { key, .. }
            | ParamError::Rule { key, .. } => key,
        }
    }

    /// The message without the key: "must be > 0".
    pub fn requirement(&self) -> String {
        match self {
            ParamError::Zero { .. } => "must be > 0".into(),
            ParamError::NotPositive { value, .. } => {
                format!("must be a finite number > 0 (got {})", echo_number(*value))
            }
            ParamError::NotProbability { value, .. } => format!(
                "must be a probability in [0, 1] (got {})",
                echo_number(*value)
            ),
            ParamError::NotFinite { .. } => "must be finite".into(),
            ParamError::OutOfRange { range, .. } => range.to_string(),
            ParamError::Rule {
                rule, value: None, ..
            } => rule.clone(),
            ParamError::Rule {
                rule,
                value: Some(v),
                ..
            } => format!("{rule} (got {})", echo_number(*v)),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.key(), self.requirement())
    }
}

impl std::error::Error for ParamError {}

impl From<ParamError> for ConfigError {
    fn from(e: ParamError) -> ConfigError {
        ConfigError {
            message: e.requirement(),
            key: e.key().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_prints_key_then_requirement() {
        let k = "workload.synthetic.a1";
        let cases = [
            (ParamError::zero(k), "workload.synthetic.a1 must be > 0"),
            (
                ParamError::NotPositive {
                    key: k.into(),
                    value: -2.5,
                },
                "workload.synthetic.a1 must be a finite number > 0 (got -2.5)",
            ),
            (
                ParamError::NotProbability {
                    key: k.into(),
                    value: f64::NAN,
                },
                "workload.synthetic.a1 must be a probability in [0, 1] (got NaN)",
            ),
            (
                ParamError::NotFinite { key: k.into() },
                "workload.synthetic.a1 must be finite",
            ),
            (
                ParamError::OutOfRange {
                    key: k.into(),
                    range: OutOfRange {
                        min: 1e-6,
                        max: 1e12,
                        unit: " seconds",
                        value: 0.0,
                    },
                },
                "workload.synthetic.a1 must be a number ≥ 0.000001 and ≤ 1000000000000 seconds \
                 (got 0)",
            ),
            (
                ParamError::rule(k, "must be ≤ 40"),
                "workload.synthetic.a1 must be ≤ 40",
            ),
            (
                ParamError::rule_got(k, "must be ≥ 0", -1.0),
                "workload.synthetic.a1 must be ≥ 0 (got -1)",
            ),
        ];
        for (e, text) in cases {
            assert_eq!(e.to_string(), text);
            assert_eq!(e.key(), k);
            let c = ConfigError::from(e.clone());
            assert_eq!(c.key, k);
            assert_eq!(format!("{} {}", c.key, c.message), text);
        }
    }

    #[test]
    fn numbers_are_echoed_short() {
        assert_eq!(echo_number(0.5), "0.5");
        assert_eq!(echo_number(1e-320), "1e-320");
        assert_eq!(echo_number(1e300), "1e300");
        let r = OutOfRange {
            min: 0.001,
            max: 1000.0,
            unit: "",
            value: 5000.0,
        };
        assert_eq!(
            r.to_string(),
            "must be a number ≥ 0.001 and ≤ 1000 (got 5000)"
        );
    }
}
