//! Writing a sweep point's axis values into the base experiment: [`set_path`] and the errors
//! of a point that cannot be built ([`PathError`], [`PointError`]).

use std::fmt;

use serde_json::{Map, Value};

/// Why an axis path cannot be set in an experiment.
#[derive(Clone, Debug, PartialEq)]
pub enum PathError {
    /// The path has no segment.
    Empty,
    /// A list on the way (at dotted path `at`) has no element `segment`.
    NoElementOnTheWay {
        at: String,
        segment: String,
        len: usize,
    },
    /// The value at dotted path `at` is neither an object nor a list.
    NotAnObject { at: String },
    /// The last list has no element `segment`.
    NoElement { segment: String, len: usize },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("empty key"),
            PathError::NoElementOnTheWay { at, segment, len } => {
                write!(f, "{at} has no element {segment:?} (it has {len})")
            }
            PathError::NotAnObject { at } => write!(f, "{at} is not an object"),
            PathError::NoElement { segment, len } => {
                write!(f, "no element {segment:?} (the list has {len})")
            }
        }
    }
}

impl std::error::Error for PathError {}

/// Why a point's experiment cannot be built.
#[derive(Clone, Debug, PartialEq)]
pub enum PointError {
    /// The axis `key` cannot be set.
    Axis { key: String, error: PathError },
    /// The experiment's `seed` is not an integer ≥ 0.
    Seed(Value),
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PointError::Axis { key, error } => write!(f, "{key}: {error}"),
            PointError::Seed(v) => write!(f, "seed: must be an integer ≥ 0 (got {v})"),
        }
    }
}

impl std::error::Error for PointError {}

/// Sets `path` in `v` to `new`, making missing objects on the way; array elements by index.
pub fn set_path(v: &mut Value, path: &[String], new: Value) -> Result<(), PathError> {
    let Some((last, init)) = path.split_last() else {
        return Err(PathError::Empty);
    };
    let mut cur = v;
    for (i, seg) in init.iter().enumerate() {
        cur = match cur {
            Value::Object(m) => m
                .entry(seg.clone())
                .or_insert_with(|| Value::Object(Map::new())),
            Value::Array(a) => {
                let len = a.len();
                seg.parse::<usize>()
                    .ok()
                    .and_then(|k| a.get_mut(k))
                    .ok_or_else(|| PathError::NoElementOnTheWay {
                        at: path[..i].join("."),
                        segment: seg.clone(),
                        len,
                    })?
            }
            _ => {
                return Err(PathError::NotAnObject {
                    at: path[..i].join("."),
                })
            }
        };
    }
    match cur {
        Value::Object(m) => {
            m.insert(last.clone(), new);
            Ok(())
        }
        Value::Array(a) => {
            let len = a.len();
            let slot = last
                .parse::<usize>()
                .ok()
                .and_then(|k| a.get_mut(k))
                .ok_or_else(|| PathError::NoElement {
                    segment: last.clone(),
                    len,
                })?;
            *slot = new;
            Ok(())
        }
        _ => Err(PathError::NotAnObject { at: init.join(".") }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(s: &str) -> Vec<String> {
        s.split('.').map(str::to_string).collect()
    }

    #[test]
    fn sets_objects_and_list_elements() {
        let mut v = json!({"sites": [{"procs": 1}]});
        assert_eq!(set_path(&mut v, &path("sites.0.procs"), json!(8)), Ok(()));
        assert_eq!(set_path(&mut v, &path("a.b"), json!(2)), Ok(()));
        assert_eq!(v, json!({"sites": [{"procs": 8}], "a": {"b": 2}}));
    }

    #[test]
    fn each_error_says_where() {
        let mut v = json!({"sites": [{"procs": 1}], "seed": 3});
        let cases = [
            (Vec::new(), "empty key"),
            (
                path("sites.4.procs"),
                "sites has no element \"4\" (it has 1)",
            ),
            (path("seed.x.y"), "seed is not an object"),
            (path("sites.x"), "no element \"x\" (the list has 1)"),
            (path("sites.0.procs.x"), "sites.0.procs is not an object"),
        ];
        for (p, text) in cases {
            let e = set_path(&mut v, &p, json!(1)).unwrap_err();
            assert_eq!(e.to_string(), text);
        }
        let e = PointError::Axis {
            key: "procs".into(),
            error: PathError::Empty,
        };
        assert_eq!(e.to_string(), "procs: empty key");
        assert_eq!(
            PointError::Seed(json!(-1)).to_string(),
            "seed: must be an integer ≥ 0 (got -1)"
        );
    }
}
