//! The crate's top-level error: everything a user can get wrong, each with a message naming
//! the file, line, field or key.

use std::fmt;

use crate::config::ConfigError;
use crate::grid::GridError;
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
    /// The simulation failed (a policy bug).
    Sim(SimError),
    /// A mesh simulation failed.
    Mesh {
        context: String,
        error: MeshSimError,
    },
    /// A grid simulation failed.
    Grid(GridError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => write!(f, "{e}"),
            Error::Swf(e) => write!(f, "{e}"),
            Error::Io { path, message } => write!(f, "{path}: {message}"),
            Error::MissingTrace(m) => write!(f, "missing trace: {m}"),
            Error::EmptyWorkload(m) => write!(f, "empty workload: {m}"),
            Error::Sim(e) => write!(f, "simulation failed: {e}"),
            Error::Mesh { context, error } => {
                write!(f, "mesh simulation {context} failed: {error}")
            }
            Error::Grid(e) => write!(f, "grid simulation failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

impl From<SwfError> for Error {
    fn from(e: SwfError) -> Self {
        Error::Swf(e)
    }
}

impl From<SimError> for Error {
    fn from(e: SimError) -> Self {
        Error::Sim(e)
    }
}

impl From<GridError> for Error {
    fn from(e: GridError) -> Self {
        Error::Grid(e)
    }
}
