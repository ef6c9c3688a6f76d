//! The engines: the one engine loop ([`instant`], the instant rules of Ababneh & Bani-Mohammad §5 and
//! Ernemann et al. §III), its flat ([`engine`]), mesh ([`mesh_engine`]) and moldable
//! ([`moldable_engine`], Srinivasan et al.) instances, and the checks
//! run after every run; [`story`] puts decision explanations into words and [`replay`] shows a
//! finished flat run at any instant ([`replay_window`]: a window of a large one). The base vocabulary they use (time, ids, event queue, RNG) lives in
//! [`crate::base`] and is re-exported here for callers above the engines.

pub mod engine;
pub mod instant;
pub mod invariants;
pub mod mesh_engine;
pub mod mesh_invariants;
pub mod moldable_engine;
pub mod moldable_invariants;
pub mod replay;
pub mod replay_window;
pub mod story;

pub use crate::base::{EventQueue, JobId, SimRng, Time};
pub use engine::{SimError, SimResult, Simulation, TimelinePoint};
pub use instant::{Engine, Instance, JobOutcome, JobTable, Progress, StepReport};
