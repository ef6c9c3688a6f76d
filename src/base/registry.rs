//! The registry vocabulary: every policy and allocator is named **once**, as an [`Entry`] of
//! its kind's [`Family`] table (name in files and on the command line, aliases, the label of
//! the papers' figures, a short label for charts, a description, an optional integer
//! parameter). Each kind enum implements [`Registered`] — the one match from its variants to
//! the table — and gets its file name, label, parser and error message from the table. The
//! experiment layer's `crate::registry` lists every family for the CLI help, `schedlab list`
//! and the page pickers.
//!
//! Names compare case-insensitively with `-` and `_` the same; a parameter follows its name
//! after `-` or `_` (`window-240`, `paging_0`, `oocb-8`). Imports nothing of the crate outside
//! the base layer.

use super::unknown_name::UnknownName;

/// An integer parameter of an entry (`K` of Window-K).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its symbol in names and help (`K`, `k`, `i`).
    pub symbol: &'static str,
    /// Label of its form field (`Window size K`).
    pub label: &'static str,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
    /// The value the bare name means (`paging` = `paging_0`), if the bare name is accepted.
    pub bare: Option<u64>,
    /// What it is.
    pub description: &'static str,
}

/// One policy or allocator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Name in files and on the command line (`easy`, `window`, `mc_elongated`).
    pub name: &'static str,
    /// Other names accepted when reading (`cons`).
    pub aliases: &'static [&'static str],
    /// Label of the papers' tables and figures; `{}` stands for the parameter (`Window-{}`).
    pub label: &'static str,
    /// Short label (chart legends); `{}` stands for the parameter.
    pub short: &'static str,
    /// One sentence: what it does and where it comes from.
    pub description: &'static str,
    /// Its integer parameter, if any.
    pub param: Option<Param>,
}

impl Entry {
    /// An entry without parameter whose short label is its label.
    pub const fn plain(
        name: &'static str,
        label: &'static str,
        description: &'static str,
    ) -> Entry {
        Entry {
            name,
            aliases: &[],
            label,
            short: label,
            description,
            param: None,
        }
    }
}

impl Entry {
    /// An entry without parameter, with other names it is read by.
    pub const fn aliased(
        name: &'static str,
        aliases: &'static [&'static str],
        label: &'static str,
        description: &'static str,
    ) -> Entry {
        Entry {
            aliases,
            ..Entry::plain(name, label, description)
        }
    }

    /// An entry with an integer parameter (`{}` in `label` stands for it).
    pub const fn with_param(
        name: &'static str,
        label: &'static str,
        description: &'static str,
        param: Param,
    ) -> Entry {
        Entry {
            param: Some(param),
            ..Entry::plain(name, label, description)
        }
    }
}

/// The entries of one kind (flat policies, mesh policies, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    /// Key in `schedlab list --json` and in experiment files (`policy`, `mesh_policy`).
    pub key: &'static str,
    /// Noun in messages (`policy`, `mesh policy`, `allocator`).
    pub noun: &'static str,
    /// Separator written between a name and its parameter (`-` or `_`).
    pub sep: char,
    /// The entries, in the order pickers and help list them.
    pub entries: &'static [Entry],
}

fn normal(s: &str) -> String {
    s.trim().to_ascii_lowercase().replace('-', "_")
}

impl Family {
    /// The entry index and parameter a name means, if any.
    pub fn find(&self, s: &str) -> Option<(usize, Option<u64>)> {
        let n = normal(s);
        for (i, e) in self.entries.iter().enumerate() {
            if normal(e.name) == n || e.aliases.iter().any(|a| normal(a) == n) {
                return match e.param {
                    None => Some((i, None)),
                    Some(p) => p.bare.map(|v| (i, Some(v))),
                };
            }
        }
        for (i, e) in self.entries.iter().enumerate() {
            let Some(p) = e.param else { continue };
            let Some(rest) = n.strip_prefix(&format!("{}_", normal(e.name))) else {
                continue;
            };
            if let Ok(v) = rest.parse::<u64>() {
                if rest.bytes().all(|b| b.is_ascii_digit()) && (p.min..=p.max).contains(&v) {
                    return Some((i, Some(v)));
                }
            }
        }
        None
    }

    /// The name of entry `i` with parameter `p` (`window-240`).
    pub fn name_of(&self, i: usize, p: Option<u64>) -> String {
        let name = self.entries.get(i).map_or("?", |e| e.name);
        match p {
            Some(v) => format!("{name}{}{v}", self.sep),
            None => name.to_string(),
        }
    }

    /// The label of entry `i` with parameter `p` (`Window-240`).
    pub fn label_of(&self, i: usize, p: Option<u64>) -> String {
        fill(self.entries.get(i).map_or("?", |e| e.label), p)
    }

    /// The short label of entry `i` with parameter `p`.
    pub fn short_of(&self, i: usize, p: Option<u64>) -> String {
        fill(self.entries.get(i).map_or("?", |e| e.short), p)
    }

    /// The accepted names as a sentence: `fcfs, easy or conservative`, `window-<K>`.
    pub fn expected(&self) -> String {
        let names: Vec<String> = self.entries.iter().map(|e| self.pattern(e)).collect();
        match names.split_last() {
            None => String::new(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }

    /// How an entry is written: `easy`, `window-<K>`.
    pub fn pattern(&self, e: &Entry) -> String {
        match e.param {
            Some(p) => format!("{}{}<{}>", e.name, self.sep, p.symbol),
            None => e.name.to_string(),
        }
    }

    /// How an entry's label is shown where the parameter is still to be chosen (`Window-K`).
    pub fn label_pattern(&self, e: &Entry) -> String {
        match e.param {
            Some(p) => e.label.replace("{}", p.symbol),
            None => e.label.to_string(),
        }
    }

    /// The index of the entry named exactly `name` (a picker's value), if any.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.name == name)
    }

    /// The error for a name that is none of these.
    pub fn unknown(&self, s: &str) -> UnknownName {
        UnknownName {
            noun: self.noun,
            name: s.to_string(),
            expected: self.expected(),
        }
    }

    /// One line per entry for `--help`: `  window-<K>  Window-K scheduling …`.
    pub fn help(&self) -> String {
        let rows: Vec<(String, &Entry)> =
            self.entries.iter().map(|e| (self.pattern(e), e)).collect();
        let width = rows.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
        let mut out = String::new();
        for (p, e) in rows {
            out.push_str(&format!("  {p:<width$}  {}", e.description));
            if let Some(par) = e.param {
                out.push_str(&format!(" ({}: {})", par.symbol, par.description));
            }
            out.push('\n');
        }
        out
    }
}

fn fill(template: &str, p: Option<u64>) -> String {
    match p {
        Some(v) => template.replace("{}", &v.to_string()),
        None => template.to_string(),
    }
}

/// A kind enum named in a [`Family`] table: the one match from variants to entries.
pub trait Registered: Copy + Sized + 'static {
    /// The table.
    fn family() -> &'static Family;
    /// This variant's entry index and parameter.
    fn key(self) -> (usize, Option<u64>);
    /// The variant of entry `i` with parameter `p` (`None` for an index not in the table).
    fn from_key(i: usize, p: Option<u64>) -> Option<Self>;

    /// This variant's entry.
    fn entry(self) -> &'static Entry {
        let f = Self::family();
        &f.entries[self.key().0.min(f.entries.len() - 1)]
    }
    /// Name in files and on the command line.
    fn name(self) -> String {
        let (i, p) = self.key();
        Self::family().name_of(i, p)
    }
    /// Label of the papers' tables and figures.
    fn label(self) -> String {
        let (i, p) = self.key();
        Self::family().label_of(i, p)
    }
    /// Short label (chart legends).
    fn short_label(self) -> String {
        let (i, p) = self.key();
        Self::family().short_of(i, p)
    }
    /// Reads a name; the error lists the accepted ones.
    fn lookup(s: &str) -> Result<Self, UnknownName> {
        let f = Self::family();
        f.find(s)
            .and_then(|(i, p)| Self::from_key(i, p))
            .ok_or_else(|| f.unknown(s))
    }
    /// Every variant without parameter, and each parameterised one at the value its bare name
    /// means or its minimum, in table order.
    fn listed() -> Vec<Self> {
        let f = Self::family();
        (0..f.entries.len())
            .filter_map(|i| {
                let p = f.entries[i].param.map(|p| p.bare.unwrap_or(p.min));
                Self::from_key(i, p)
            })
            .collect()
    }
}

/// Implements `Serialize`/`Deserialize` for a [`Registered`] kind by its name (so files,
/// links and the command line share one spelling; an unknown name's error lists the others).
macro_rules! registered_serde {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&$crate::base::Registered::name(*self))
            }
        }
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <String as serde::Deserialize>::deserialize(d)?;
                <$t as $crate::base::Registered>::lookup(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}
pub(crate) use registered_serde;

/// Implements [`Registered`] (and serde by name) for a kind without parameters whose variants,
/// in declaration order, are the entries of `$family` and the items of `$all`.
macro_rules! registered_enum {
    ($t:ty, $family:expr, $all:expr) => {
        $crate::base::registry::registered_serde!($t);

        impl $crate::base::Registered for $t {
            fn family() -> &'static $crate::base::Family {
                &$family
            }
            fn key(self) -> (usize, Option<u64>) {
                (self as usize, None)
            }
            fn from_key(i: usize, _: Option<u64>) -> Option<$t> {
                $all.get(i).copied()
            }
        }
    };
}
pub(crate) use registered_enum;

#[cfg(test)]
mod tests {
    use super::*;

    const fn param(symbol: &'static str, min: u64, max: u64, bare: Option<u64>) -> Param {
        Param {
            symbol,
            label: symbol,
            min,
            max,
            bare,
            description: "size",
        }
    }

    const FAM: Family = Family {
        key: "demo",
        noun: "demo policy",
        sep: '-',
        entries: &[
            Entry::plain("fcfs", "FCFS", "first come first served"),
            Entry {
                short: "W{}",
                ..Entry::with_param("window", "Window-{}", "window", param("K", 1, 1000, None))
            },
            Entry {
                aliases: &["pg"],
                ..Entry::with_param("paging", "Paging({})", "paging", param("i", 0, 15, Some(0)))
            },
        ],
    };

    #[test]
    fn names_parse_with_parameters_and_separators() {
        assert_eq!(FAM.find(" FCFS "), Some((0, None)));
        assert_eq!(FAM.find("window-240"), Some((1, Some(240))));
        assert_eq!(FAM.find("Window_7"), Some((1, Some(7))));
        assert_eq!(FAM.find("window"), None);
        assert_eq!(FAM.find("window-0"), None);
        assert_eq!(FAM.find("window-1001"), None);
        assert_eq!(FAM.find("window-+3"), None);
        assert_eq!(FAM.find("paging"), Some((2, Some(0))));
        assert_eq!(FAM.find("pg"), Some((2, Some(0))));
        assert_eq!(FAM.find("paging_3"), Some((2, Some(3))));
        assert_eq!(FAM.find(""), None);
        assert_eq!(FAM.name_of(1, Some(240)), "window-240");
        assert_eq!(FAM.label_of(1, Some(240)), "Window-240");
        assert_eq!(FAM.short_of(1, Some(8)), "W8");
        assert_eq!(
            FAM.unknown("x").to_string(),
            "unknown demo policy \"x\" (expected fcfs, window-<K> or paging-<i>)"
        );
        let help = FAM.help();
        assert!(help.contains("  window-<K>  window (K: size)\n"), "{help}");
    }
}
