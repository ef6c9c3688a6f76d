//! Streaming SWF reader (plain or gzip, detected by magic bytes). STUB: being implemented.

use std::io::Read;

use super::error::{SwfError, SwfErrorKind};
use crate::workload::Workload;

/// How to read a trace.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Name used in error messages (file name).
    pub source: String,
    /// Skip and count malformed lines instead of failing.
    pub lenient: bool,
    /// Refuse inputs larger than this many (decompressed) bytes.
    pub max_bytes: Option<u64>,
}

/// Reads a whole trace from any reader.
pub fn read_swf<R: Read>(_input: R, opts: &ReadOptions) -> Result<Workload, SwfError> {
    Err(SwfError {
        source: opts.source.clone(),
        line: 0,
        kind: SwfErrorKind::Io("reader not implemented yet".into()),
    })
}

/// Reads a whole trace from bytes in memory.
pub fn read_swf_bytes(bytes: &[u8], opts: &ReadOptions) -> Result<Workload, SwfError> {
    read_swf(bytes, opts)
}
