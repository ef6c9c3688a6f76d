//! Discrete-event simulation core: simulated time, the event queue ordered by
//! (time, sequence), the portable seeded RNG and the engine with `step` / `step_until`.

pub mod engine;
pub mod event;
pub mod invariants;
pub mod mesh_engine;
pub mod mesh_invariants;
pub mod rng;

pub use engine::{
    JobOutcome, Progress, SimError, SimResult, Simulation, StepReport, TimelinePoint,
};
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
