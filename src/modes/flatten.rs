//! A run's metrics as flat (dotted key, value) pairs in document order: what a sweep's result
//! file records for every point (`docs/sweeps.md`), for every mode alike.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Metrics of one run: (dotted key, value), in document order.
pub type Metrics = Vec<(String, Value)>;

/// Appends the leaves of `value`'s JSON as (`prefix.key`, value), in field order.
pub fn flatten<T: Serialize>(prefix: &str, value: &T, out: &mut Metrics) {
    let Ok(text) = serde_json::to_string(value) else {
        return;
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    let _ = Flatten {
        prefix: prefix.to_string(),
        out,
    }
    .deserialize(&mut de);
}

/// Walks JSON in document order (serde_json's `Value` would sort the keys).
struct Flatten<'a> {
    prefix: String,
    out: &'a mut Metrics,
}

impl<'de> DeserializeSeed<'de> for Flatten<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Flatten<'_> {
    fn leaf(self, v: Value) {
        self.out.push((self.prefix, v));
    }
}

impl<'de> Visitor<'de> for Flatten<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let out = self.out;
        while let Some(k) = map.next_key::<String>()? {
            let prefix = if self.prefix.is_empty() {
                k
            } else {
                format!("{}.{k}", self.prefix)
            };
            map.next_value_seed(Flatten {
                prefix,
                out: &mut *out,
            })?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let v = Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
        self.leaf(v);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.leaf(Value::from(v));
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.leaf(Value::Null);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatten_keeps_field_order() {
        #[derive(Serialize)]
        struct S {
            b: u32,
            a: f64,
            c: Inner,
        }
        #[derive(Serialize)]
        struct Inner {
            z: &'static str,
            y: Vec<u8>,
        }
        let mut out = Vec::new();
        let s = S {
            b: 1,
            a: 0.5,
            c: Inner { z: "x", y: vec![1] },
        };
        flatten("p", &s, &mut out);
        let names: Vec<&str> = out.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["p.b", "p.a", "p.c.z", "p.c.y"]);
    }
}
