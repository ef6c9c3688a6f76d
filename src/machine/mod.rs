//! Machines jobs run on. `flat` is a pool of identical processors (Ernemann et al., 004); mesh and
//! grid machines follow in their own modules.

pub mod flat;
pub mod mesh;

pub use flat::{FlatMachine, MachineError, RunningJob, RunningSet};
pub use mesh::{Mesh, MeshError, Submesh};
