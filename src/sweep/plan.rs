//! A sweep's plan (`schedlab sweep plan`): the point files' names and texts, the manifest
//! (`sweep-plan.json`: the normalised sweep, the chunk size and every point's checksum) and
//! the two job scripts — `run-slurm.sh` (an `sbatch --array` job, one chunk of points per
//! array task) and `run-parallel.sh` (GNU parallel, local or `--sshloginfile`). Every script
//! task runs `schedlab sweep run DIR --points FIRST-LAST`, the same code as a local run.

use serde::{Deserialize, Serialize};

use super::{checksum64, SweepError, SweepSpec};
use crate::limits::Limits;

/// Version of the manifest this build writes and reads.
pub const PLAN_VERSION: u32 = 1;
/// The manifest's file name in the plan folder.
pub const MANIFEST: &str = "sweep-plan.json";
/// The folder of the point files.
pub const POINTS_DIR: &str = "points";
/// The folder of the result files.
pub const RESULTS_DIR: &str = "results";
/// The folder of the Slurm tasks' logs.
pub const LOGS_DIR: &str = "logs";
/// Most array tasks of the default chunking (below Slurm's default `MaxArraySize` of 1001).
pub const MAX_ARRAY_TASKS: usize = 1000;

/// The file name of point `n` (in [`POINTS_DIR`]) and of its result (in [`RESULTS_DIR`]).
pub fn point_file(n: usize) -> String {
    format!("{n:06}.json")
}

/// What `sweep-plan.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`PLAN_VERSION`].
    pub plan: u32,
    /// The normalised sweep file ([`SweepSpec::to_json`]).
    pub sweep: serde_json::Value,
    /// Number of points.
    pub points: usize,
    /// Points per Slurm array task / GNU parallel job.
    pub chunk: usize,
    /// [`checksum64`] of every point file's text, by point number.
    pub checksums: Vec<String>,
    /// The limits the points were planned under, when not the defaults (`sweep plan
    /// --max-*`): every run of the plan uses them unless its own flags say otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
}

/// A plan: the manifest and every point's text (point `n` at index `n`).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub manifest: Manifest,
    pub points: Vec<String>,
}

/// Points per task so that there are at most [`MAX_ARRAY_TASKS`] tasks.
pub fn default_chunk(points: usize) -> usize {
    points.div_ceil(MAX_ARRAY_TASKS).max(1)
}

/// Expands `spec` into its plan: every point's envelope (validated; `rebase` rewrites trace
/// paths) and the manifest. `chunk` points per task (default [`default_chunk`]).
pub fn plan(
    spec: &SweepSpec,
    file: &str,
    rebase: &dyn Fn(&str) -> String,
    chunk: Option<usize>,
) -> Result<Plan, SweepError> {
    let n = spec.points();
    let points = (0..n)
        .map(|i| spec.point_envelope(i, file, rebase))
        .collect::<Result<Vec<String>, SweepError>>()?;
    let checksums = points.iter().map(|p| checksum64(p.as_bytes())).collect();
    let sweep = serde_json::from_str(&spec.to_json()).unwrap_or_default();
    Ok(Plan {
        manifest: Manifest {
            plan: PLAN_VERSION,
            sweep,
            points: n,
            chunk: chunk.unwrap_or_else(|| default_chunk(n)).max(1),
            checksums,
            limits: (spec.limits != Limits::DEFAULT).then_some(spec.limits),
        },
        points,
    })
}

impl Manifest {
    /// The manifest's JSON (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads a manifest (`file` names it in errors) and its sweep.
    pub fn from_json(text: &str, file: &str) -> Result<(Manifest, SweepSpec), SweepError> {
        let bad = |message: String| SweepError::Manifest {
            file: file.to_string(),
            message,
        };
        let m: Manifest = crate::modes::flat::spec::parse_json(text).map_err(|e| {
            bad(format!(
                "not a sweep plan ({}{}{}); make one with `schedlab sweep plan`",
                e.key,
                if e.key.is_empty() { "" } else { ": " },
                e.message
            ))
        })?;
        if m.plan != PLAN_VERSION {
            return Err(bad(format!(
                "plan: version {} is not supported (this build reads version {PLAN_VERSION}); \
                 plan the sweep again",
                m.plan
            )));
        }
        let spec = SweepSpec::from_json_with(
            &m.sweep.to_string(),
            &format!("{file}: sweep"),
            &m.limits.unwrap_or_default(),
        )?;
        if spec.points() != m.points || m.checksums.len() != m.points || m.chunk == 0 {
            return Err(bad(format!(
                "damaged: {} points, {} checksums, chunk {}, while its sweep has {} points",
                m.points,
                m.checksums.len(),
                m.chunk,
                spec.points()
            )));
        }
        Ok((m, spec))
    }

    /// Number of chunks (Slurm array tasks, GNU parallel jobs).
    pub fn tasks(&self) -> usize {
        self.points.div_ceil(self.chunk).max(1)
    }

    /// The points of chunk `t`: `FIRST-LAST`.
    pub fn chunk_range(&self, t: usize) -> (usize, usize) {
        let first = t * self.chunk;
        (
            first,
            (first + self.chunk).min(self.points).saturating_sub(1),
        )
    }
}

/// `s` quoted for a POSIX shell.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shell lines every script starts with: where the plan and the binary are (overridable
/// with `SWEEP_DIR` / `SCHEDLAB`), how many points and how many per task.
fn preamble(m: &Manifest, dir: &str, exe: &str) -> String {
    format!(
        "set -euo pipefail\n\
         SWEEP_DIR=${{SWEEP_DIR:-{}}}\n\
         SCHEDLAB=${{SCHEDLAB:-{}}}\n\
         POINTS={}\n\
         CHUNK={}\n",
        sh_quote(dir),
        sh_quote(exe),
        m.points,
        m.chunk
    )
}

/// `run-slurm.sh`: `sbatch run-slurm.sh` submits an array of [`Manifest::tasks`] tasks, at
/// most `max_concurrent` at once; task `t` runs points `t·chunk … (t+1)·chunk − 1`. `dir` and
/// `exe` are absolute paths the compute nodes see (a shared file system).
pub fn slurm_script(
    m: &Manifest,
    name: &str,
    dir: &str,
    exe: &str,
    max_concurrent: usize,
) -> String {
    let last = m.tasks() - 1;
    format!(
        "#!/bin/bash\n\
         # Generated by `schedlab sweep plan` for the sweep {name:?}: {points} points, {tasks} \
         array tasks of up to {chunk} points.\n\
         # Submit from anywhere: sbatch {dir}/run-slurm.sh   (extra sbatch options override \
         the lines below)\n\
         # Each task runs `schedlab sweep run DIR --points FIRST-LAST`; points that already \
         have a valid\n\
         # result are skipped, so submitting again resumes. Then: schedlab sweep merge DIR\n\
         #SBATCH --job-name=schedlab-sweep\n\
         #SBATCH --array=0-{last}%{conc}\n\
         #SBATCH --ntasks=1\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --output={dir}/{LOGS_DIR}/%A_%a.out\n\
         {pre}\
         FIRST=$(( SLURM_ARRAY_TASK_ID * CHUNK ))\n\
         LAST=$(( FIRST + CHUNK - 1 ))\n\
         if [ \"$LAST\" -ge \"$POINTS\" ]; then LAST=$(( POINTS - 1 )); fi\n\
         exec \"$SCHEDLAB\" sweep run \"$SWEEP_DIR\" --points \"$FIRST-$LAST\" --jobs \
         \"${{SLURM_CPUS_PER_TASK:-1}}\"\n",
        points = m.points,
        tasks = m.tasks(),
        chunk = m.chunk,
        conc = max_concurrent.max(1),
        pre = preamble(m, dir, exe),
    )
}

/// `run-parallel.sh`: runs every chunk under GNU parallel; its arguments go to `parallel`
/// (`-j 8`, `--sshloginfile nodes.txt`; remote hosts must see the same paths).
pub fn parallel_script(m: &Manifest, name: &str, dir: &str, exe: &str) -> String {
    format!(
        "#!/bin/bash\n\
         # Generated by `schedlab sweep plan` for the sweep {name:?}: {points} points in \
         chunks of {chunk}.\n\
         # Usage: bash run-parallel.sh [GNU parallel options, e.g. -j 8 or --sshloginfile \
         nodes.txt]\n\
         # (remote hosts must see SWEEP_DIR and SCHEDLAB at the same paths). Points that \
         already have a\n\
         # valid result are skipped, so running it again resumes. Then: schedlab sweep merge \
         DIR\n\
         {pre}\
         for (( first = 0; first < POINTS; first += CHUNK )); do\n\
         \x20 last=$(( first + CHUNK - 1 ))\n\
         \x20 if [ \"$last\" -ge \"$POINTS\" ]; then last=$(( POINTS - 1 )); fi\n\
         \x20 echo \"$first-$last\"\n\
         done | parallel --will-cite --halt never \"$@\" -q \"$SCHEDLAB\" sweep run \
         \"$SWEEP_DIR\" --jobs 1 --points {{}}\n",
        points = m.points,
        chunk = m.chunk,
        pre = preamble(m, dir, exe),
    )
}

/// Reads `--points`: `3`, `0-99`, `0-9,20,30-39` (each below `n`), sorted, without repeats.
pub fn parse_points(s: &str, n: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |x: &str| {
            x.trim()
                .parse::<usize>()
                .map_err(|_| format!("{x:?} is not a point number"))
        };
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(part)?, num(part)?),
        };
        if a > b {
            return Err(format!("{part}: the range is empty"));
        }
        if b >= n {
            return Err(format!(
                "{part}: the plan has points 0 to {}",
                n.saturating_sub(1)
            ));
        }
        out.extend(a..=b);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_and_point_lists() {
        assert_eq!(default_chunk(10_000), 10);
        assert_eq!(default_chunk(7), 1);
        assert_eq!(parse_points("0-2, 5,4", 6), Ok(vec![0, 1, 2, 4, 5]));
        assert!(parse_points("3-9", 6).unwrap_err().contains("0 to 5"));
        assert!(parse_points("x", 6).is_err());
        assert_eq!(sh_quote("a'b"), r"'a'\''b'");
    }
}
