//! The Standard Workload Format (SWF 2.2, Parallel Workloads Archive): the 18-field record,
//! the `;` header, a streaming reader for plain or gzip input and a writer.

pub mod error;
pub mod header;
pub mod reader;
pub mod record;
pub mod writer;

pub use error::{SwfError, SwfErrorKind};
pub use header::SwfHeader;
pub use reader::{read_swf, read_swf_bytes, ReadOptions};
pub use record::SwfRecord;
pub use writer::{write_swf, write_swf_string};
