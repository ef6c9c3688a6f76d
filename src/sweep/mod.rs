//! Parameter sweeps beyond one machine: a sweep file — a base experiment of any mode
//! (the envelope of [`crate::modes::envelope`]) plus axes of values and a replication count — is
//! expanded into numbered, self-contained point files (one experiment each), run anywhere
//! (locally on every core, under GNU parallel or as a Slurm job array), and the points'
//! result files are merged into one CSV / JSON table. Implements no paper section: it is the
//! experiment design around every mode (`docs/sweeps.md`).
//!
//! Everything here is pure (no file system, no threads): [`spec`] reads and expands the sweep
//! file, [`plan`] makes the point texts, the manifest and the two job scripts, [`result`] runs
//! one point with the same library functions as `schedlab run` / `mesh` / `grid` / `moldable`
//! and writes
//! and checks its result file, [`merge`] merges results. The CLI (`schedlab sweep
//! plan|run|merge`) does the file I/O and the threads.

pub mod merge;
pub mod plan;
pub mod plot;
pub mod point;
pub mod result;
pub mod spec;

use std::fmt;

pub use merge::{merge, Merged, PointStatus};
pub use plan::{plan, Manifest, Plan};
pub use result::{run_point, PointResult};
pub use spec::{replica_seed, Axis, SweepSpec, SWEEP_VERSION};

/// Everything that can be wrong with a sweep file, a plan or a point, naming the file and
/// the key (or point) at fault.
#[derive(Clone, Debug, PartialEq)]
pub enum SweepError {
    /// The sweep file is not valid: the key at fault (`axes[1].step`) and why.
    Invalid {
        file: String,
        key: String,
        message: String,
    },
    /// The sweep has more points than [`crate::limits::MAX_SWEEP_FILE_POINTS`].
    TooManyPoints {
        file: String,
        /// How the count comes about (`policy 3 × load_factor 11 × replications 5`).
        detail: String,
        points: u128,
        max: usize,
    },
    /// One point's experiment is not valid (the envelope's validation, naming the key).
    Point {
        file: String,
        point: usize,
        /// The point's axis values (`policy = "easy", load_factor = 1.2`).
        values: String,
        message: String,
    },
    /// The plan's manifest (`sweep-plan.json`) cannot be used.
    Manifest { file: String, message: String },
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Invalid { file, key, message } if key.is_empty() => {
                write!(f, "{file}: {message}")
            }
            SweepError::Invalid { file, key, message } => write!(f, "{file}: {key}: {message}"),
            SweepError::TooManyPoints {
                file,
                detail,
                points,
                max,
            } => write!(
                f,
                "{file}: the sweep has {points} points ({detail}), above the limit \
                 max_sweep_file_points = {max}: use fewer axis values or replications, or split \
                 it into several sweeps"
            ),
            SweepError::Point {
                file,
                point,
                values,
                message,
            } => write!(f, "{file}: point {point} ({values}): {message}"),
            SweepError::Manifest { file, message } => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for SweepError {}

/// FNV-1a (64 bits) of `data` as 16 lower-case hex digits: identifies a point's text and
/// catches a damaged result file (not an adversary).
pub fn checksum64(data: &[u8]) -> String {
    let h = data.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{h:016x}")
}

/// Point numbers as short ranges: `[0, 1, 2, 5, 7, 8]` → `0-2, 5, 7-8`.
pub fn ranges(points: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let start = points[i];
        let mut end = start;
        while i + 1 < points.len() && points[i + 1] == end + 1 {
            i += 1;
            end = points[i];
        }
        out.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[3]), "3");
    }

    #[test]
    fn checksum_is_fnv1a_64() {
        assert_eq!(checksum64(b""), "cbf29ce484222325");
        assert_eq!(checksum64(b"a"), "af63dc4c8601ec8c");
    }
}
