//! Contiguous submesh allocators for 2D meshes (Ababneh & Bani-Mohammad §3.2), one file each behind the
//! [`SubmeshAllocator`] trait:
//!
//! * [`first_fit`] — the first free w × h submesh, scanning bases row by row from row 1;
//! * [`best_fit`] — the base of the smallest maximal free submesh that can hold the request;
//! * [`mpl`] — Maximum Peripheral Length, the allocator Ababneh & Bani-Mohammad uses (§3.2).
//!
//! All three choose from the mesh's list of maximal free submeshes (Definition 1), which the
//! mesh keeps current; an allocator only *chooses* — it never changes which nodes are busy
//! (it takes `&mut Mesh` only so that the mesh can refresh its cached free list). Each is
//! cross-checked in its unit tests against a brute-force search over every busy/free state of
//! small meshes. See `docs/mesh.md` for the choices where the paper is vague.
//!
//! [`orientation`] wraps any of the three to switch a request's orientation (w × h → h × w)
//! when it does not fit as requested — an option, off by default.
//!
//! Non-contiguous allocators (Mache et al. §3–4, Liu et al. §1) — any j free nodes — are behind the
//! [`NodeAllocator`] trait of [`node_allocator`], one file each (`docs/network.md`).

pub mod best_fit;
pub mod binary_tree;
pub mod bt;
pub mod bt_tree;
pub mod compactness;
pub mod first_fit;
pub mod hilbert;
pub mod mbs;
pub mod mc;
pub mod mc_elongated;
pub mod mpl;
pub mod ncbt;
pub mod node;
pub mod node_allocator;
pub mod orientation;
pub mod paging;
pub mod plas;
pub mod random;
pub mod scbt;
pub mod shell_reference;
pub mod shells;

use std::fmt;

pub use best_fit::BestFit;
pub use first_fit::FirstFit;
pub use mpl::MaxPeripheralLength;
pub use node_allocator::{NodeAllocator, NodeAllocatorKind};

use crate::base::{Entry, Family, Registered};
use crate::machine::mesh::{Mesh, Submesh};

/// Chooses where a w × h request goes.
pub trait SubmeshAllocator {
    /// Short name (`first_fit`, `best_fit`, `mpl`).
    fn name(&self) -> &'static str;
    /// The free w × h submesh this allocator would give the request, or `None` when no free
    /// w × h submesh exists. Does not allocate.
    fn place(&self, mesh: &mut Mesh, w: u32, h: u32) -> Option<Submesh>;
    /// `true` when [`place`](Self::place) may return an h × w submesh for a w × h request
    /// (orientation switching, [`orientation::Switching`]).
    fn switches_orientation(&self) -> bool {
        false
    }
}

/// The allocators by name, as written in experiment files and on the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllocatorKind {
    FirstFit,
    BestFit,
    /// Maximum Peripheral Length (Ababneh & Bani-Mohammad §3.2), the default.
    #[default]
    Mpl,
}

/// An unknown allocator name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownAllocator(pub String);

impl fmt::Display for UnknownAllocator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        CONTIGUOUS_ALLOCATORS.unknown(&self.0).fmt(f)
    }
}

impl std::error::Error for UnknownAllocator {}

/// The contiguous allocators, each named once (file name, label, description).
pub const CONTIGUOUS_ALLOCATORS: Family = Family {
    key: "contiguous_allocator",
    noun: "allocator",
    sep: '_',
    entries: &[
        Entry::aliased("first_fit", &["ff"], "First Fit", "Contiguous: the first free w × h submesh, bases scanned row by row (Ababneh & Bani-Mohammad §3.2)."),
        Entry::aliased("best_fit", &["bf"], "Best Fit", "Contiguous: the base of the smallest maximal free submesh that holds the request (Ababneh & Bani-Mohammad §3.2)."),
        Entry::aliased("mpl", &["max_peripheral_length"], "MPL", "Contiguous: Maximum Peripheral Length, the submesh touching the most busy nodes and edges (Ababneh & Bani-Mohammad §3.2)."),
    ],
};

crate::base::registry::registered_enum!(AllocatorKind, CONTIGUOUS_ALLOCATORS, AllocatorKind::ALL);

impl AllocatorKind {
    /// All allocators.
    pub const ALL: [AllocatorKind; 3] = [
        AllocatorKind::FirstFit,
        AllocatorKind::BestFit,
        AllocatorKind::Mpl,
    ];

    /// A fresh allocator.
    pub fn build(self) -> Box<dyn SubmeshAllocator> {
        match self {
            AllocatorKind::FirstFit => Box::new(FirstFit),
            AllocatorKind::BestFit => Box::new(BestFit),
            AllocatorKind::Mpl => Box::new(MaxPeripheralLength),
        }
    }

    /// A fresh allocator that switches a request's orientation when it does not fit as
    /// requested (`switch_orientation`), or the plain one.
    pub fn build_with(self, switch_orientation: bool) -> Box<dyn SubmeshAllocator> {
        if switch_orientation {
            Box::new(orientation::Switching(self.build()))
        } else {
            self.build()
        }
    }

    /// The name used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        self.entry().name
    }

    /// Parses a name (`first_fit`/`ff`, `best_fit`/`bf`, `mpl`).
    pub fn parse(s: &str) -> Result<AllocatorKind, UnknownAllocator> {
        AllocatorKind::lookup(s).map_err(|_| UnknownAllocator(s.to_string()))
    }
}

/// Brute-force references shared by the allocators' unit tests.
#[cfg(test)]
pub(crate) mod brute {
    use crate::machine::mesh::{free_list_key, peripheral_length, Mesh, Submesh};

    /// Every free w × h placement, in row-major order of its base (row 1 first).
    pub fn placements(m: &Mesh, w: u32, h: u32) -> Vec<Submesh> {
        let mut v = Vec::new();
        if w > m.width() || h > m.height() {
            return v;
        }
        for y in 1..=m.height() - h + 1 {
            for x in 1..=m.width() - w + 1 {
                let s = Submesh::at(x, y, w, h);
                if (s.x1..=s.x2).all(|xx| (s.y1..=s.y2).all(|yy| m.is_free(xx, yy))) {
                    v.push(s);
                }
            }
        }
        v
    }

    /// Maximal free submeshes by enumerating every rectangle, in free-list order.
    pub fn maximal(m: &Mesh) -> Vec<Submesh> {
        let mut free = Vec::new();
        for h in 1..=m.height() {
            for w in 1..=m.width() {
                free.extend(placements(m, w, h));
            }
        }
        let mut max: Vec<Submesh> = free
            .iter()
            .copied()
            .filter(|s| !free.iter().any(|t| t != s && t.contains(s)))
            .collect();
        max.sort_by_key(free_list_key);
        max
    }

    /// Largest peripheral length of any free w × h placement.
    pub fn max_pl(m: &Mesh, w: u32, h: u32) -> Option<u32> {
        placements(m, w, h)
            .iter()
            .map(|s| peripheral_length(s, m.width(), m.height()))
            .max()
    }

    /// A mesh whose node i (row-major from (1, 1)) is busy when bit i of `bits` is set.
    pub fn mesh_from_bits(w: u32, h: u32, bits: u32) -> Mesh {
        let mut m = Mesh::new(w, h).expect("test mesh");
        for i in 0..w * h {
            if bits >> i & 1 == 1 {
                m.allocate(i as usize, Submesh::at(i % w + 1, i / w + 1, 1, 1))
                    .expect("free node");
            }
        }
        m
    }

    /// Every state of every small mesh used by the exhaustive cross-checks.
    pub const SMALL_MESHES: [(u32, u32); 6] = [(3, 3), (4, 3), (3, 4), (5, 2), (2, 5), (4, 4)];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in AllocatorKind::ALL {
            assert_eq!(AllocatorKind::parse(k.as_str()), Ok(k));
            assert_eq!(k.build().name(), k.as_str());
        }
        assert!(AllocatorKind::parse("worst-fit").is_err());
        assert_eq!(AllocatorKind::parse(" MPL "), Ok(AllocatorKind::Mpl));
    }
}
