//! The binary-tree allocators of Liu et al. (§3.1, §3.2, §4.1.1) by name: [`BinaryTreeKind`]
//! and [`BinaryTreeKind::build`]. The allocators themselves are in [`crate::alloc::bt`]
//! (BT, SBT, DBT), [`crate::alloc::ncbt`] (ind-/d- variants) and [`crate::alloc::scbt`]
//! (SCBT), on the tree of [`crate::alloc::bt_tree`].
//!
//! **Names** (URL/JSON-safe; `-` and `_` are the same, case is ignored):
//!
//! | name | allocator |
//! |---|---|
//! | `bt` | BT |
//! | `sbt_<α>` | SBT with global tolerance α ∈ {0, 1, 2, 4, …, 4096} (paper: 4, 16, 64, 256) |
//! | `dbt_<d>` | DBT with tolerance ratio 1/d, d ∈ {1, 2, 4, …, 64} (paper: 16, 8, 4, 2); `dbt_1/8` is read as `dbt_8` |
//! | `ind_bt`, `ind_sbt_<α>`, `ind_dbt_<d>` | independent non-contiguous variants |
//! | `d_bt`, `d_sbt_<α>`, `d_dbt_<d>` | dependent non-contiguous variants |
//! | `scbt` | spatially compact BT |

use std::fmt;

use super::bt::BinaryTree;
use super::bt_tree::Balance;
use super::ncbt::NonContiguousTree;
use super::node::{IoLayout, NodeAllocator};
use super::scbt::SpatiallyCompactTree;

/// How sub-requests are formed (§3.1 vs §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeSplit {
    /// One contiguous rectangle (BT, SBT, DBT).
    Contiguous,
    /// MBS-style sub-requests, each searched from the root (ind-*).
    Independent,
    /// MBS-style sub-requests, each next one near the previous (d-*).
    Dependent,
}

/// The child rule of a binary-tree search (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeRule {
    /// BT: left child first.
    Plain,
    /// SBT: global imbalance tolerance α (a power of two up to 4096, or 0).
    Static(u32),
    /// DBT: tolerance ratio 1/d of the rectangle's size (d a power of two up to 64).
    Dynamic(u32),
}

/// The binary-tree allocators by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryTreeKind {
    /// BT, SBT, DBT and their ind-/d- variants.
    Tree(TreeSplit, TreeRule),
    /// Spatially compact BT (§4.1.1).
    Scbt,
}

/// An unknown or malformed binary-tree allocator name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBinaryTree(pub String);

impl fmt::Display for UnknownBinaryTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown binary-tree allocator {:?} (expected bt, sbt_<α>, dbt_<d>, their ind_ and \
             d_ variants, or scbt; α is 0 or a power of two up to 4096, d a power of two up \
             to 64)",
            self.0
        )
    }
}

impl std::error::Error for UnknownBinaryTree {}

/// Largest SBT tolerance exponent (α = 2^12 = 4096) and DBT denominator exponent (d = 64).
const MAX_ALPHA_EXP: u32 = 12;
const MAX_DEN_EXP: u32 = 6;

macro_rules! alpha_names {
    ($p:literal) => {
        [
            concat!($p, "_0"),
            concat!($p, "_1"),
            concat!($p, "_2"),
            concat!($p, "_4"),
            concat!($p, "_8"),
            concat!($p, "_16"),
            concat!($p, "_32"),
            concat!($p, "_64"),
            concat!($p, "_128"),
            concat!($p, "_256"),
            concat!($p, "_512"),
            concat!($p, "_1024"),
            concat!($p, "_2048"),
            concat!($p, "_4096"),
        ]
    };
}

macro_rules! den_names {
    ($p:literal) => {
        [
            concat!($p, "_1"),
            concat!($p, "_2"),
            concat!($p, "_4"),
            concat!($p, "_8"),
            concat!($p, "_16"),
            concat!($p, "_32"),
            concat!($p, "_64"),
        ]
    };
}

const SBT: [[&str; 14]; 3] = [
    alpha_names!("sbt"),
    alpha_names!("ind_sbt"),
    alpha_names!("d_sbt"),
];
const DBT: [[&str; 7]; 3] = [
    den_names!("dbt"),
    den_names!("ind_dbt"),
    den_names!("d_dbt"),
];
const BT: [&str; 3] = ["bt", "ind_bt", "d_bt"];

/// Index in the SBT name table of tolerance α (0 → 0, 2^e → e + 1).
fn alpha_index(alpha: u32) -> Option<usize> {
    match alpha {
        0 => Some(0),
        a if a.is_power_of_two() && a.trailing_zeros() <= MAX_ALPHA_EXP => {
            Some(a.trailing_zeros() as usize + 1)
        }
        _ => None,
    }
}

/// Index in the DBT name table of denominator d (2^e → e).
fn den_index(d: u32) -> Option<usize> {
    (d.is_power_of_two() && d.trailing_zeros() <= MAX_DEN_EXP)
        .then_some(d.trailing_zeros() as usize)
}

impl TreeSplit {
    fn index(self) -> usize {
        match self {
            TreeSplit::Contiguous => 0,
            TreeSplit::Independent => 1,
            TreeSplit::Dependent => 2,
        }
    }
}

impl BinaryTreeKind {
    /// BT.
    pub const BT: BinaryTreeKind = BinaryTreeKind::Tree(TreeSplit::Contiguous, TreeRule::Plain);

    /// The configurations of the paper (§5.3): for each of the contiguous, independent and
    /// dependent families, BT, SBT with α = 4, 16, 64, 256 and DBT with ratios 1/16, 1/8,
    /// 1/4, 1/2; then SCBT.
    pub fn paper() -> Vec<BinaryTreeKind> {
        let mut v = Vec::new();
        for split in [
            TreeSplit::Contiguous,
            TreeSplit::Independent,
            TreeSplit::Dependent,
        ] {
            v.push(BinaryTreeKind::Tree(split, TreeRule::Plain));
            for a in [4, 16, 64, 256] {
                v.push(BinaryTreeKind::Tree(split, TreeRule::Static(a)));
            }
            for d in [16, 8, 4, 2] {
                v.push(BinaryTreeKind::Tree(split, TreeRule::Dynamic(d)));
            }
        }
        v.push(BinaryTreeKind::Scbt);
        v
    }

    /// `true` for BT, SBT and DBT, which may return `None` although j nodes are free.
    pub fn is_contiguous(self) -> bool {
        matches!(self, BinaryTreeKind::Tree(TreeSplit::Contiguous, _))
    }

    /// The name used in files and on the command line; `None` for a parameter outside the
    /// named range (α not 0 or a power of two ≤ 4096, d not a power of two ≤ 64).
    pub fn name(self) -> Option<&'static str> {
        match self {
            BinaryTreeKind::Scbt => Some("scbt"),
            BinaryTreeKind::Tree(s, TreeRule::Plain) => Some(BT[s.index()]),
            BinaryTreeKind::Tree(s, TreeRule::Static(a)) => {
                alpha_index(a).map(|i| SBT[s.index()][i])
            }
            BinaryTreeKind::Tree(s, TreeRule::Dynamic(d)) => {
                den_index(d).map(|i| DBT[s.index()][i])
            }
        }
    }

    /// The name (as [`name`](Self::name)); a parameter outside the named range falls back to
    /// the family name (`sbt`, `ind_dbt`, …), as `paging` does.
    pub fn as_str(self) -> &'static str {
        self.name().unwrap_or(match self {
            BinaryTreeKind::Tree(s, TreeRule::Static(_)) => ["sbt", "ind_sbt", "d_sbt"][s.index()],
            BinaryTreeKind::Tree(s, _) => ["dbt", "ind_dbt", "d_dbt"][s.index()],
            BinaryTreeKind::Scbt => "scbt",
        })
    }

    /// Parses a name (see the module table).
    pub fn parse(s: &str) -> Result<BinaryTreeKind, UnknownBinaryTree> {
        let err = || UnknownBinaryTree(s.to_string());
        let n = s.trim().to_ascii_lowercase().replace('-', "_");
        if n == "scbt" {
            return Ok(BinaryTreeKind::Scbt);
        }
        let (split, rest) = if let Some(r) = n.strip_prefix("ind_") {
            (TreeSplit::Independent, r)
        } else if let Some(r) = n.strip_prefix("d_") {
            (TreeSplit::Dependent, r)
        } else {
            (TreeSplit::Contiguous, n.as_str())
        };
        let rule = if rest == "bt" {
            TreeRule::Plain
        } else if let Some(a) = rest.strip_prefix("sbt_") {
            let a: u32 = a.parse().map_err(|_| err())?;
            alpha_index(a).ok_or_else(err)?;
            TreeRule::Static(a)
        } else if let Some(d) = rest.strip_prefix("dbt_") {
            let d = d.strip_prefix("1/").unwrap_or(d);
            let d: u32 = d.parse().map_err(|_| err())?;
            den_index(d).ok_or_else(err)?;
            TreeRule::Dynamic(d)
        } else {
            return Err(err());
        };
        Ok(BinaryTreeKind::Tree(split, rule))
    }

    /// A fresh allocator for west-side I/O nodes on a mesh `height` rows high (the paper's
    /// setup; the height only matters to other allocators' middle link).
    pub fn build(self) -> Box<dyn NodeAllocator> {
        self.build_for(IoLayout::west(0))
    }

    /// A fresh allocator for the I/O line `io` (its side decides which line is "column 0"
    /// and which half of a square is the left child).
    pub fn build_for(self, io: IoLayout) -> Box<dyn NodeAllocator> {
        self.build_reading(io, false)
    }

    /// [`build_for`](Self::build_for), with DBT's tolerance ratio taken of the rectangle's
    /// available processors instead of its size when `dbt_of_free` (the second reading of
    /// §3.1, [`Balance::DynamicFree`]; `reproduce binary-tree --dbt-ratio-of free`).
    pub fn build_reading(self, io: IoLayout, dbt_of_free: bool) -> Box<dyn NodeAllocator> {
        self.build_readings(io, dbt_of_free, false)
    }

    /// [`build_reading`](Self::build_reading), and with `of_rectangle` the contiguous SBT and
    /// DBT count the tree rectangle a request takes instead of the request in the imbalance
    /// ([`Balance::StaticRect`], [`Balance::DynamicRect`]; `reproduce binary-tree
    /// --imbalance-counts rectangle`). The ind-/d- variants' sub-requests fill their squares,
    /// so the reading does not change them.
    pub fn build_readings(
        self,
        io: IoLayout,
        dbt_of_free: bool,
        of_rectangle: bool,
    ) -> Box<dyn NodeAllocator> {
        let name = self.as_str();
        match self {
            BinaryTreeKind::Scbt => Box::new(SpatiallyCompactTree::new(io)),
            BinaryTreeKind::Tree(split, rule) => {
                let rect = of_rectangle && split == TreeSplit::Contiguous;
                let balance = match rule {
                    TreeRule::Plain => Balance::Left,
                    TreeRule::Static(a) if rect => Balance::StaticRect(u64::from(a)),
                    TreeRule::Dynamic(d) if rect && !dbt_of_free => {
                        Balance::DynamicRect(u64::from(d.max(1)))
                    }
                    TreeRule::Static(a) => Balance::Static(u64::from(a)),
                    TreeRule::Dynamic(d) if dbt_of_free => {
                        Balance::DynamicFree(u64::from(d.max(1)))
                    }
                    TreeRule::Dynamic(d) => Balance::Dynamic(u64::from(d.max(1))),
                };
                match split {
                    TreeSplit::Contiguous => Box::new(BinaryTree::new(io, balance, name)),
                    TreeSplit::Independent => {
                        Box::new(NonContiguousTree::new(io, balance, false, name))
                    }
                    TreeSplit::Dependent => {
                        Box::new(NonContiguousTree::new(io, balance, true, name))
                    }
                }
            }
        }
    }
}

impl fmt::Display for BinaryTreeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let all = BinaryTreeKind::paper();
        assert_eq!(all.len(), 28);
        for k in all {
            assert_eq!(BinaryTreeKind::parse(k.as_str()), Ok(k), "{k}");
            assert_eq!(k.build().name(), k.as_str());
        }
        for (s, k) in [
            ("bt", BinaryTreeKind::BT),
            (
                "DBT-1/8",
                BinaryTreeKind::Tree(TreeSplit::Contiguous, TreeRule::Dynamic(8)),
            ),
            (
                " d-sbt-16 ",
                BinaryTreeKind::Tree(TreeSplit::Dependent, TreeRule::Static(16)),
            ),
            (
                "ind_dbt_2",
                BinaryTreeKind::Tree(TreeSplit::Independent, TreeRule::Dynamic(2)),
            ),
            (
                "sbt_0",
                BinaryTreeKind::Tree(TreeSplit::Contiguous, TreeRule::Static(0)),
            ),
        ] {
            assert_eq!(BinaryTreeKind::parse(s), Ok(k), "{s}");
        }
        for bad in [
            "sbt", "sbt_3", "sbt_8192", "dbt_0", "dbt_128", "dbt_x", "x_bt", "d_scbt", "",
        ] {
            assert!(BinaryTreeKind::parse(bad).is_err(), "{bad}");
        }
        // Out-of-range parameters still build, under the family name.
        let odd = BinaryTreeKind::Tree(TreeSplit::Independent, TreeRule::Static(3));
        assert_eq!(odd.name(), None);
        assert_eq!(odd.build().name(), "ind_sbt");
        assert!(BinaryTreeKind::BT.is_contiguous());
        assert!(!BinaryTreeKind::Scbt.is_contiguous());
    }
}
