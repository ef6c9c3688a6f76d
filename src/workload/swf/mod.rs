//! The Standard Workload Format (SWF 2.2, Parallel Workloads Archive): the 18-field record,
//! the `;` header, a streaming reader for plain or gzip input and a writer.
//!
//! - `record.rs`: [`SwfRecord`], the 18 fields of a data line;
//! - `header.rs`: [`SwfHeader`] and its loose, never-failing parser ([`HeaderBuilder`]);
//! - `reader.rs`: [`read_swf`] / [`read_swf_bytes`], trace → [`crate::workload::Workload`];
//! - `scan.rs`: the byte scanner of data lines (the fast path of the reader) and the general
//!   field parser, which names the field of an error;
//! - `writer.rs`: [`write_swf`] / [`write_swf_string`], header and records → SWF text that
//!   reads back bit for bit;
//! - `error.rs`: [`SwfError`], naming the source, the line and the field.

pub mod error;
pub mod header;
pub mod reader;
pub mod record;
pub mod scan;
pub mod writer;

pub use error::{SwfError, SwfErrorKind};
pub use header::{HeaderBuilder, SwfHeader};
pub use reader::{read_swf, read_swf_bytes, ReadOptions};
pub use record::SwfRecord;
pub use writer::{write_swf, write_swf_string};
