//! STUB
pub struct JobOutcome;
pub struct SimResult;
pub struct Simulation;
pub struct StepReport;
