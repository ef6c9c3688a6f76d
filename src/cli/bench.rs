//! `schedlab bench`: STUB.
use clap::Args;
use crate::error::Error;
/// Args.
#[derive(Args, Debug)]
pub struct BenchArgs {}
/// Args.
#[derive(Args, Debug)]
pub struct BenchCaseArgs {}
/// Bench.
pub fn bench_command(_a: &BenchArgs) -> Result<(), Error> { Ok(()) }
/// Bench case.
pub fn bench_case_command(_a: &BenchCaseArgs) -> Result<(), Error> { Ok(()) }
