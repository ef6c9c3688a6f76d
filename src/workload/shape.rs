//! Job shapes for mesh machines from trace job sizes — Ababneh & Bani-Mohammad §5.4.
//!
//! **Square transformation.** A request for n processors becomes a w × h submesh with
//! n = w·h, w ≤ W, h ≤ H and |w − h| minimal; between the two orientations of the best pair,
//! w ≤ h ("In choosing w and h, we have w ≤ h"): in a 12 × 12 mesh, 15 → 3 × 5. An n that
//! cannot be shaped for the mesh becomes the smallest larger integer that can: 17 → 18 = 3 × 6
//! in 12 × 12 (1 × 17 does not fit, H < 17).
//!
//! **Paragon rule** (SDSC Paragon, 22 × 16, after Bunde et al. [10]): a size that is a
//! multiple of 16 becomes w × 16 with n = 16w; every other size takes the square
//! transformation with w ≥ h.
//!
//! Choice (docs/mesh.md): the orientation (w ≤ h, or w ≥ h for the Paragon rule) only breaks
//! the tie between (a, b) and (b, a); when only one orientation fits the mesh it is used, so a
//! 22 × 16 machine can still run 22 × 16 jobs. A shaped job's `procs` becomes w·h (the nodes
//! it holds).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::workload::Workload;

/// Which orientation wins between (a, b) and (b, a).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// w ≤ h (Ababneh & Bani-Mohammad's square transformation).
    Tall,
    /// w ≥ h (the non-multiples of 16 under the Paragon rule).
    Wide,
}

/// How trace job sizes become submesh shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeRule {
    /// Square transformation with w ≤ h.
    #[default]
    Square,
    /// Multiples of 16 → w × 16; others square with w ≥ h.
    Paragon,
}

impl ShapeRule {
    /// The name used in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeRule::Square => "square",
            ShapeRule::Paragon => "paragon",
        }
    }

    /// Parses `square` or `paragon`.
    pub fn parse(s: &str) -> Result<ShapeRule, ShapeError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "square" => Ok(ShapeRule::Square),
            "paragon" => Ok(ShapeRule::Paragon),
            _ => Err(ShapeError::UnknownRule(s.to_string())),
        }
    }

    /// The shape of an n-processor request on an M(`width`, `height`); `None` when n is 0 or
    /// larger than the mesh.
    pub fn shape(self, n: u32, width: u32, height: u32) -> Option<(u32, u32)> {
        match self {
            ShapeRule::Square => square_shape(n, width, height, Orientation::Tall),
            ShapeRule::Paragon => paragon_shape(n, width, height),
        }
    }
}

/// A shape rule name that does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShapeError {
    UnknownRule(String),
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::UnknownRule(s) => {
                write!(
                    f,
                    "unknown shape rule {} (expected square or paragon)",
                    crate::limits::echo_quoted(s)
                )
            }
        }
    }
}

impl std::error::Error for ShapeError {}

/// The exact factorisation n = w·h fitting M(`width`, `height`) with |w − h| minimal, ties by
/// `prefer`; `None` when n has none.
pub fn exact_shape(n: u32, width: u32, height: u32, prefer: Orientation) -> Option<(u32, u32)> {
    let mut best: Option<(u32, bool, (u32, u32))> = None;
    for w in 1..=width.min(n) {
        if n % w != 0 {
            continue;
        }
        let h = n / w;
        if h > height {
            continue;
        }
        let gap = w.abs_diff(h);
        let unpreferred = match prefer {
            Orientation::Tall => w > h,
            Orientation::Wide => w < h,
        };
        if best.is_none_or(|(g, u, _)| (gap, unpreferred) < (g, u)) {
            best = Some((gap, unpreferred, (w, h)));
        }
    }
    best.map(|(_, _, s)| s)
}

/// Square transformation (Ababneh & Bani-Mohammad §5.4): the exact shape of n, else of the smallest larger
/// integer that has one. `None` for n = 0 or n > W·H.
pub fn square_shape(n: u32, width: u32, height: u32, prefer: Orientation) -> Option<(u32, u32)> {
    let total = width.checked_mul(height)?;
    if n == 0 || n > total {
        return None;
    }
    (n..=total).find_map(|m| exact_shape(m, width, height, prefer))
}

/// The Paragon rule (Ababneh & Bani-Mohammad §5.4): n = 16w → w × 16 when it fits, else the square
/// transformation with w ≥ h.
pub fn paragon_shape(n: u32, width: u32, height: u32) -> Option<(u32, u32)> {
    if n > 0 && n % 16 == 0 && n / 16 <= width && height >= 16 {
        return Some((n / 16, 16));
    }
    square_shape(n, width, height, Orientation::Wide)
}

/// What [`apply_shapes`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeReport {
    /// Jobs given a shape.
    pub shaped: usize,
    /// Jobs whose size had to grow (no exact shape).
    pub enlarged: usize,
    /// Jobs dropped because they are larger than the mesh (added to `dropped.too_large`).
    pub dropped: usize,
}

/// Gives every job of `workload` a shape on M(`width`, `height`) by `rule` and sets its
/// `procs` to w·h. Jobs that cannot be shaped (larger than the mesh) are dropped and counted
/// in `workload.dropped.too_large`.
pub fn apply_shapes(
    workload: &mut Workload,
    width: u32,
    height: u32,
    rule: ShapeRule,
) -> ShapeReport {
    let mut report = ShapeReport::default();
    let before = workload.jobs.len();
    workload
        .jobs
        .retain_mut(|job| match rule.shape(job.procs, width, height) {
            Some((w, h)) => {
                if w * h != job.procs {
                    report.enlarged += 1;
                }
                job.shape = Some((w, h));
                job.procs = w * h;
                report.shaped += 1;
                true
            }
            None => false,
        });
    report.dropped = before - workload.jobs.len();
    workload.dropped.too_large += report.dropped;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Job;

    #[test]
    fn section_5_4_square_cases() {
        // "in a 12 × 12 mesh a request for fifteen processors is transformed into 3 × 5"
        assert_eq!(ShapeRule::Square.shape(15, 12, 12), Some((3, 5)));
        // "17 is changed to 18 (3 × 6) in a 12 × 12 system because H < 17"
        assert_eq!(ShapeRule::Square.shape(17, 12, 12), Some((3, 6)));
        assert_eq!(ShapeRule::Square.shape(16, 12, 12), Some((4, 4)));
        assert_eq!(ShapeRule::Square.shape(12, 12, 12), Some((3, 4)));
        assert_eq!(ShapeRule::Square.shape(1, 12, 12), Some((1, 1)));
        assert_eq!(ShapeRule::Square.shape(144, 12, 12), Some((12, 12)));
        // 13 is prime and 1 × 13 does not fit: 14 = 2 × 7.
        assert_eq!(ShapeRule::Square.shape(13, 12, 12), Some((2, 7)));
        // 143 = 11 × 13 does not fit: 144.
        assert_eq!(ShapeRule::Square.shape(143, 12, 12), Some((12, 12)));
        assert_eq!(ShapeRule::Square.shape(145, 12, 12), None);
        assert_eq!(ShapeRule::Square.shape(0, 12, 12), None);
        // Every shape obeys the rules.
        for n in 1..=144 {
            let (w, h) = ShapeRule::Square.shape(n, 12, 12).unwrap();
            assert!(w * h >= n && w <= 12 && h <= 12 && w <= h, "{n}");
            for m in n..w * h {
                assert_eq!(exact_shape(m, 12, 12, Orientation::Tall), None, "{n}");
            }
        }
    }

    #[test]
    fn paragon_rule() {
        assert_eq!(ShapeRule::Paragon.shape(16, 22, 16), Some((1, 16)));
        assert_eq!(ShapeRule::Paragon.shape(64, 22, 16), Some((4, 16)));
        assert_eq!(ShapeRule::Paragon.shape(352, 22, 16), Some((22, 16)));
        // Others: square with w ≥ h.
        assert_eq!(ShapeRule::Paragon.shape(8, 22, 16), Some((4, 2)));
        assert_eq!(ShapeRule::Paragon.shape(15, 22, 16), Some((5, 3)));
        assert_eq!(ShapeRule::Paragon.shape(9, 22, 16), Some((3, 3)));
        // 23 is prime and 23 × 1 does not fit a 22-wide mesh: 24 = 6 × 4.
        assert_eq!(ShapeRule::Paragon.shape(23, 22, 16), Some((6, 4)));
        assert_eq!(ShapeRule::Paragon.shape(353, 22, 16), None);
    }

    #[test]
    fn only_one_orientation_fits() {
        // 22 × 16 under the w ≤ h rule: 22 · 16 only fits as 22 × 16.
        assert_eq!(square_shape(352, 22, 16, Orientation::Tall), Some((22, 16)));
        assert_eq!(square_shape(20, 22, 2, Orientation::Tall), Some((10, 2)));
    }

    #[test]
    fn apply_shapes_sets_shapes_and_drops_oversized_jobs() {
        let mut w = Workload::from_jobs(
            Default::default(),
            vec![
                Job::new(1, 0.0, 1.0, 1.0, 15),
                Job::new(2, 1.0, 1.0, 1.0, 17),
                Job::new(3, 2.0, 1.0, 1.0, 200),
            ],
        );
        let r = apply_shapes(&mut w, 12, 12, ShapeRule::Square);
        assert_eq!(
            r,
            ShapeReport {
                shaped: 2,
                enlarged: 1,
                dropped: 1
            }
        );
        assert_eq!(w.jobs[0].shape, Some((3, 5)));
        assert_eq!(w.jobs[1].shape, Some((3, 6)));
        assert_eq!(w.jobs[1].procs, 18);
        assert_eq!(w.dropped.too_large, 1);
        assert_eq!(ShapeRule::parse("Paragon"), Ok(ShapeRule::Paragon));
        assert!(ShapeRule::parse("round").is_err());
    }
}
