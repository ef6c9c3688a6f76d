//! The crate's top-level error: everything a user can get wrong, each with a message naming
//! the file, line, field or key, and a simulation that stops ([`Error::Simulation`], one
//! variant for the flat, mesh, flow and grid engines). Implements no paper section: it is the
//! error side of every reader and runner (ARCHITECTURE.md, invariant 3).

use std::fmt;

use crate::grid::GridError;
use crate::limits::WorkExceeded;
use crate::modes::flat::spec::ConfigError;
use crate::modes::grid::GridRunError;
use crate::sim::mesh_engine::MeshSimError;
use crate::sim::SimError;
use crate::workload::swf::SwfError;

/// Any failure of loading or running an experiment.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The experiment description is invalid.
    Config(ConfigError),
    /// The trace cannot be read.
    Swf(SwfError),
    /// A file cannot be opened or written.
    Io { path: String, message: String },
    /// The experiment needs a trace that was not supplied.
    MissingTrace(String),
    /// Nothing is left to simulate.
    EmptyWorkload(String),
    /// A simulation stopped on a step its engine refused (flat, mesh, flow or grid).
    Simulation(SimulationError),
    /// A document that is no experiment (an exercise file, docs/exercises.md) is invalid or
    /// contradicts the simulation: the file or link, the key path and what is wrong.
    Document {
        source: String,
        key: String,
        message: String,
    },
    /// The run's estimated work is above the work bound (`--max-work`, docs/limits.md): refused
    /// before it starts.
    TooMuchWork(WorkExceeded),
    /// The reader of our output went away (`schedlab … | head -c1`): not a failure, the
    /// command stops quietly.
    ClosedPipe,
}

/// Which engine a [`SimulationError`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The flat-machine engine (`schedlab run`).
    Flat,
    /// The contiguous 2D-mesh engine (Ababneh & Bani-Mohammad).
    Mesh,
    /// The flow-level contention engine (Mache et al.).
    Flow,
    /// The grid engine (Ernemann et al.).
    Grid,
    /// The moldable engine (Srinivasan et al.).
    Moldable,
}

impl Engine {
    fn as_str(self) -> &'static str {
        match self {
            Engine::Flat => "flat-machine",
            Engine::Mesh => "mesh",
            Engine::Flow => "contention (flow)",
            Engine::Grid => "grid",
            Engine::Moldable => "moldable",
        }
    }
}

/// A simulation that stopped: the engine, what was being run and why it stopped.
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationError {
    pub engine: Engine,
    /// What was running (`window-240`, `window CTC LF 1.2 FCFS`), empty if nothing to add.
    pub context: String,
    /// The engine's own message (the job, the policy, the step refused).
    pub message: String,
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} simulation", self.engine.as_str())?;
        if !self.context.is_empty() {
            write!(f, " ({})", self.context)?;
        }
        write!(
            f,
            " stopped: {}. The experiment passed validation, so this is a bug in schedlab's \
             policies or engines, not in your input: please report it with the experiment \
             file (or share link) and the command",
            self.message
        )
    }
}

impl Error {
    /// A [`Error::Simulation`] of `engine` while running `context`.
    pub fn simulation(engine: Engine, context: impl Into<String>, e: impl fmt::Display) -> Error {
        Error::Simulation(SimulationError {
            engine,
            context: context.into(),
            message: e.to_string(),
        })
    }

    /// Output to `target` (stdout, stderr, a file) failed: a closed pipe becomes
    /// [`Error::ClosedPipe`], anything else (`/dev/full`) an [`Error::Io`] naming the target.
    pub fn output(target: &str, e: &std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Error::ClosedPipe
        } else {
            Error::Io {
                path: target.to_string(),
                message: format!("cannot write: {e}"),
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => write!(f, "{e}"),
            Error::Swf(e) => write!(f, "{e}"),
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::MissingTrace(m) => write!(f, "missing trace: {m}"),
            Error::EmptyWorkload(m) => write!(f, "empty workload: {m}"),
            Error::Simulation(e) => write!(f, "{e}"),
            Error::Document {
                source,
                key,
                message,
            } if key.is_empty() => write!(f, "{source}: {message}"),
            Error::Document {
                source,
                key,
                message,
            } => write!(f, "{source}: {key}: {message}"),
            Error::TooMuchWork(e) => write!(f, "{e}"),
            Error::ClosedPipe => write!(f, "output closed by its reader"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<WorkExceeded> for Error {
    fn from(e: WorkExceeded) -> Self {
        Error::TooMuchWork(e)
    }
}

impl From<SwfError> for Error {
    fn from(e: SwfError) -> Self {
        Error::Swf(e)
    }
}

impl From<SimError> for Error {
    fn from(e: SimError) -> Self {
        Error::simulation(Engine::Flat, "", e)
    }
}

impl From<MeshSimError> for Error {
    fn from(e: MeshSimError) -> Self {
        Error::simulation(Engine::Mesh, "", e)
    }
}

impl From<GridError> for Error {
    fn from(e: GridError) -> Self {
        Error::simulation(Engine::Grid, "", e)
    }
}

impl From<GridRunError> for Error {
    fn from(e: GridRunError) -> Self {
        match e {
            GridRunError::Config(c) => Error::Config(c),
            GridRunError::Swf(s) => Error::Swf(s),
            GridRunError::Grid(g) => g.into(),
            other @ GridRunError::MissingTrace { .. } => Error::MissingTrace(other.to_string()),
            other @ GridRunError::EmptySite { .. } => Error::EmptyWorkload(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulation_errors_say_what_stopped_and_what_to_do() {
        let e = Error::simulation(Engine::Mesh, "window-240", "job 7 started twice");
        assert_eq!(
            e.to_string(),
            "the mesh simulation (window-240) stopped: job 7 started twice. The experiment \
             passed validation, so this is a bug in schedlab's policies or engines, not in \
             your input: please report it with the experiment file (or share link) and the \
             command"
        );
        let grid: Error = GridError::NoSites.into();
        assert!(matches!(
            grid,
            Error::Simulation(SimulationError {
                engine: Engine::Grid,
                ..
            })
        ));
        let pipe = Error::output("stdout", &std::io::ErrorKind::BrokenPipe.into());
        assert_eq!(pipe, Error::ClosedPipe);
        let full = Error::output("stdout", &std::io::Error::other("No space left on device"));
        assert_eq!(
            full.to_string(),
            "stdout: cannot write: No space left on device"
        );
    }
}
