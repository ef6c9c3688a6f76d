//! Discrete-event simulation core: simulated time, the event queue ordered by
//! (time, sequence), the portable seeded RNG, the one engine loop ([`instant`]) and its flat
//! and mesh instances.

pub mod engine;
pub mod instant;
pub mod invariants;
pub mod mesh_engine;
pub mod mesh_invariants;

pub use crate::base::{EventQueue, JobId, SimRng, Time};
pub use engine::{SimError, SimResult, Simulation, TimelinePoint};
pub use instant::{Engine, Instance, JobOutcome, JobTable, Progress, StepReport};
