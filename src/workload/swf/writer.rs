//! SWF writer. STUB: being implemented.

use std::io::Write;

use super::{SwfHeader, SwfRecord};

/// Writes header and records as SWF.
pub fn write_swf<W: Write>(
    _out: &mut W,
    _header: &SwfHeader,
    _records: &[SwfRecord],
) -> std::io::Result<()> {
    Ok(())
}

/// Writes header and records as an SWF string.
pub fn write_swf_string(header: &SwfHeader, records: &[SwfRecord]) -> String {
    let mut v = Vec::new();
    let _ = write_swf(&mut v, header, records);
    String::from_utf8_lossy(&v).into_owned()
}
