//! Discrete-event simulation core: simulated time, the event queue ordered by
//! (time, sequence), the portable seeded RNG, the one engine loop ([`instant`]) and its flat
//! and mesh instances.

pub mod engine;
pub mod event;
pub mod instant;
pub mod invariants;
pub mod mesh_engine;
pub mod mesh_invariants;
pub mod rng;

pub use engine::{SimError, SimResult, Simulation, TimelinePoint};
pub use instant::{Engine, Instance, JobOutcome, JobTable, Progress, StepReport};
pub use event::EventQueue;
pub use rng::SimRng;

/// Simulated time in seconds (trace time) or model time units (synthetic models).
///
/// `f64` holds every integer second of a trace exactly, and `+ - * /` are IEEE-exact on every
/// platform, so native and wasm32 runs agree bit for bit. Transcendental functions go through
/// `libm` (see [`rng`]).
pub type Time = f64;

/// Index of a job in the workload's `jobs` vector (arrival order), not the SWF job number.
pub type JobId = usize;
