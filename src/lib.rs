//! schedlab — a deterministic parallel-job-scheduling simulator.
//!
//! The core (everything except [`web`]) is pure Rust with no web dependencies and builds for
//! x86_64 and wasm32. See `ARCHITECTURE.md` for the code map and the invariants.

pub mod alloc;
pub mod base;
pub mod error;
pub mod exercise;
pub mod form;
pub mod grid;
pub mod limits;
pub mod machine;
pub mod metrics;
pub mod modes;
pub mod network;
pub mod policy;
pub mod registry;
#[cfg(not(target_arch = "wasm32"))]
pub mod reproduce;
pub mod sim;
pub mod sweep;
pub mod work;
pub mod workload;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

#[cfg(target_arch = "wasm32")]
pub mod web;
