//! The base layer: simulated time, job ids, the event queue ordered by (time, sequence) and
//! the portable seeded RNG — the vocabulary of every paper's discrete-event simulation (Ababneh
//! & Bani-Mohammad §5, Ernemann et al. §III, Srinivasan et al. §2). Imports nothing of the crate.

pub mod config_error;
pub mod event;
pub mod explain;
pub mod id_map;
pub mod nice_step;
pub mod papers;
pub mod param_error;
pub mod registry;
pub mod rng;
pub mod unknown_name;

pub use config_error::ConfigError;
pub use event::EventQueue;
pub use explain::{Choice, Explainer, Explanation, Reason, SiteOffer};
pub use id_map::{id_map_with_capacity, IdMap};
pub use param_error::{OutOfRange, ParamError};
pub use registry::{Entry, Family, Param, Registered};
pub use rng::SimRng;
pub use unknown_name::UnknownName;

/// Simulated time in seconds (trace time) or model time units (synthetic models).
///
/// `f64` holds every integer second of a trace exactly, and `+ - * /` are IEEE-exact on every
/// platform, so native and wasm32 runs agree bit for bit. Transcendental functions go through
/// `libm` (see [`rng`]).
pub type Time = f64;

/// Index of a job in the workload's `jobs` vector (arrival order), not the SWF job number.
pub type JobId = usize;
