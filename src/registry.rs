//! The registry of every mode: each policy and allocator is named once, in its kind's
//! [`Family`] table (see [`crate::base::registry`]), and this module lists the tables. From
//! them come the CLI's `--policy`/`--allocator` help and `schedlab list [--json]`, the names
//! in experiment files and share links (each kind's serde reads and writes its table's names),
//! and the page's pickers (`web::kit::picker`, every element with `data-registry="<key>"`).
//!
//! | key | kind | table |
//! |---|---|---|
//! | `policy` | flat policies ([`PolicyKind`]): their backfilling | [`POLICIES`] |
//! | `order` | a flat policy's queue order ([`BuiltinOrder`]; or a priority one writes) | [`ORDERS`] |
//! | `grid_policy` | a grid site's local policy ([`LocalPolicy`]) | [`GRID_POLICIES`] |
//! | `mesh_policy` | mesh policies ([`MeshPolicyKind`]) | [`MESH_POLICIES`] |
//! | `contiguous_allocator` | submesh allocators ([`AllocatorKind`]) | [`CONTIGUOUS_ALLOCATORS`] |
//! | `node_allocator` | non-contiguous allocators ([`NodeAllocatorKind`]) | [`NODE_ALLOCATORS`] |
//! | `moldable_strategy` | moldable strategies, Srinivasan et al. ([`MoldableStrategyKind`]) | [`MOLDABLE_STRATEGIES`] |
//!
//! [`PolicyKind`]: crate::policy::PolicyKind
//! [`BuiltinOrder`]: crate::policy::order::BuiltinOrder
//! [`LocalPolicy`]: crate::grid::local::LocalPolicy
//! [`MeshPolicyKind`]: crate::policy::mesh::MeshPolicyKind
//! [`AllocatorKind`]: crate::alloc::AllocatorKind
//! [`NodeAllocatorKind`]: crate::alloc::NodeAllocatorKind
//! [`MoldableStrategyKind`]: crate::policy::moldable::MoldableStrategyKind

use serde_json::{json, Value};

pub use crate::alloc::node_allocator::NODE_ALLOCATORS;
pub use crate::alloc::CONTIGUOUS_ALLOCATORS;
pub use crate::base::registry::{Entry, Family, Param, Registered};
pub use crate::grid::local::GRID_POLICIES;
pub use crate::policy::mesh::MESH_POLICIES;
pub use crate::policy::moldable::MOLDABLE_STRATEGIES;
pub use crate::policy::order::ORDERS;
pub use crate::policy::POLICIES;

/// Every family, in the order `schedlab list` prints them.
pub const FAMILIES: [&Family; 7] = [
    &POLICIES,
    &ORDERS,
    &GRID_POLICIES,
    &MESH_POLICIES,
    &CONTIGUOUS_ALLOCATORS,
    &NODE_ALLOCATORS,
    &MOLDABLE_STRATEGIES,
];

/// The family with key `key` (`policy`, `mesh_policy`, …).
pub fn family(key: &str) -> Option<&'static Family> {
    FAMILIES.iter().copied().find(|f| f.key == key)
}

/// The `--allocator` help of `schedlab mesh`: both allocator tables.
pub fn mesh_allocator_help() -> String {
    format!(
        "Allocator (or a comma-separated list to compare).\nContiguous:\n{}Non-contiguous (FCFS, contention model):\n{}",
        CONTIGUOUS_ALLOCATORS.help(),
        NODE_ALLOCATORS.help()
    )
}

/// `schedlab list`: every family with its names and descriptions.
pub fn to_text() -> String {
    let mut out = String::new();
    for f in FAMILIES {
        out.push_str(&format!("{} ({}):\n{}\n", f.key, f.noun, f.help()));
    }
    out
}

/// `schedlab list --json`: `{"<key>": [{"name", "label", "short", "aliases", "description",
/// "param": {"symbol", "label", "min", "max", "bare"} | null}, …], …}`.
pub fn to_json() -> Value {
    let mut map = serde_json::Map::new();
    for f in FAMILIES {
        let entries: Vec<Value> = f
            .entries
            .iter()
            .map(|e| {
                json!({
                    "name": e.name,
                    "pattern": f.pattern(e),
                    "label": e.label,
                    "short": e.short,
                    "aliases": e.aliases,
                    "description": e.description,
                    "param": e.param.map(|p| json!({
                        "symbol": p.symbol,
                        "label": p.label,
                        "min": p.min,
                        "max": p.max,
                        "bare": p.bare,
                    })),
                })
            })
            .collect();
        map.insert(f.key.to_string(), Value::Array(entries));
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc::{AllocatorKind, NodeAllocatorKind};
    use crate::grid::local::LocalPolicy;
    use crate::policy::mesh::MeshPolicyKind;
    use crate::policy::moldable::MoldableStrategyKind;
    use crate::policy::PolicyKind;

    /// Every listed variant of `T` writes a name that reads back as itself, and serde agrees.
    fn round_trips<T>()
    where
        T: Registered
            + PartialEq
            + std::fmt::Debug
            + serde::Serialize
            + serde::de::DeserializeOwned,
    {
        let listed = T::listed();
        assert_eq!(listed.len(), T::family().entries.len());
        for k in listed {
            assert_eq!(T::lookup(&k.name()), Ok(k));
            assert_eq!(T::lookup(&k.name().to_uppercase()), Ok(k));
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("{:?}", k.name()));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), k);
            assert!(!k.label().is_empty() && !k.entry().description.is_empty());
        }
        let e = T::lookup("nonsense").unwrap_err().to_string();
        assert!(
            e.contains(T::family().noun) && e.contains("nonsense"),
            "{e}"
        );
    }

    #[test]
    fn every_family_round_trips_its_names() {
        round_trips::<PolicyKind>();
        round_trips::<LocalPolicy>();
        round_trips::<MeshPolicyKind>();
        round_trips::<AllocatorKind>();
        round_trips::<NodeAllocatorKind>();
        round_trips::<MoldableStrategyKind>();
    }

    #[test]
    fn names_keep_their_old_spellings() {
        assert_eq!(PolicyKind::lookup("cons"), Ok(PolicyKind::Conservative));
        assert_eq!(MeshPolicyKind::Window(240).name(), "window-240");
        assert_eq!(MeshPolicyKind::Oocb(8).label(), "OOCB-8");
        assert_eq!(NodeAllocatorKind::Paging(2).name(), "paging_2");
        assert_eq!(
            NodeAllocatorKind::lookup("paging"),
            Ok(NodeAllocatorKind::Paging(0))
        );
        assert_eq!(
            NodeAllocatorKind::lookup("mce"),
            Ok(NodeAllocatorKind::McElongated)
        );
        assert_eq!(AllocatorKind::lookup("FF"), Ok(AllocatorKind::FirstFit));
        assert_eq!(
            LocalPolicy::lookup("backfilling"),
            Ok(LocalPolicy::Conservative)
        );
        assert_eq!(LocalPolicy::Conservative.label(), "backfilling");
    }

    #[test]
    fn keys_are_unique_and_listed() {
        for f in FAMILIES {
            assert_eq!(family(f.key), Some(f));
            let names: std::collections::BTreeSet<&str> =
                f.entries.iter().map(|e| e.name).collect();
            assert_eq!(names.len(), f.entries.len(), "{}", f.key);
        }
        let json = to_json();
        assert_eq!(json["mesh_policy"][3]["pattern"], "window-<K>");
        assert!(to_text().contains("  window-<K>  Window-K"));
    }
}
