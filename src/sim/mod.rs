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

/// Adds what every engine shares — `progress`, `is_finished`, `next_time`, `step_until(t)`,
/// `step_instants(n)`, `run` and `run_to_end` — to an engine type with the fields `jobs`,
/// `next_arrival`, `completions` (an [`EventQueue`]), `completed`, `started` and `now`, and
/// the methods `step() -> Result<Option<_>, E>` and `into_result()`.
macro_rules! impl_stepping {
    ([$($generics:tt)*] $engine:ty, $error:ty, $result:ty) => {
        impl<$($generics)*> $engine {
            /// How far the run is.
            pub fn progress(&self) -> $crate::sim::Progress {
                $crate::sim::Progress {
                    completed: self.completed,
                    started: self.started,
                    total: self.jobs.len(),
                    now: self.now,
                }
            }

            /// `true` once every job has arrived and every completion is processed.
            pub fn is_finished(&self) -> bool {
                self.next_arrival >= self.jobs.len() && self.completions.is_empty()
            }

            /// Time of the next instant, if any.
            pub fn next_time(&self) -> Option<$crate::sim::Time> {
                let arrival = self.jobs.get(self.next_arrival).map(|j| j.submit);
                match (arrival, self.completions.peek_time()) {
                    (Some(a), Some(c)) => Some(if c <= a { c } else { a }),
                    (a, c) => a.or(c),
                }
            }

            /// Processes every instant with time ≤ `t`. Returns `true` when the run is over.
            pub fn step_until(&mut self, t: $crate::sim::Time) -> Result<bool, $error> {
                while let Some(next) = self.next_time() {
                    if next > t {
                        return Ok(false);
                    }
                    self.step()?;
                }
                self.step()?;
                Ok(true)
            }

            /// Processes at most `n` instants. Returns `true` when the run is over.
            pub fn step_instants(&mut self, n: usize) -> Result<bool, $error> {
                for _ in 0..n {
                    if self.step()?.is_none() {
                        return Ok(true);
                    }
                }
                Ok(self.is_finished())
            }

            /// Runs to the end.
            pub fn run(&mut self) -> Result<(), $error> {
                while self.step()?.is_some() {}
                Ok(())
            }

            /// Runs to the end and returns the result.
            pub fn run_to_end(mut self) -> Result<$result, $error> {
                self.run()?;
                Ok(self.into_result())
            }
        }
    };
    ($engine:ty, $error:ty, $result:ty) => {
        $crate::sim::impl_stepping!([] $engine, $error, $result);
    };
}
pub(crate) use impl_stepping;
