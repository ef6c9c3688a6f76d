//! One SWF data line: the 18 fields of SWF 2.2, `-1` meaning unknown.

use serde::{Deserialize, Serialize};

/// Names of the 18 fields, in file order (1-based field number = index + 1).
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

/// The 18 fields of a record. All are kept as `f64` because real logs carry decimals in
/// several of them; `-1.0` means unknown.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwfRecord {
    pub job_number: f64,
    pub submit_time: f64,
    pub wait_time: f64,
    pub run_time: f64,
    pub allocated_procs: f64,
    pub avg_cpu_time: f64,
    pub used_memory: f64,
    pub requested_procs: f64,
    pub requested_time: f64,
    pub requested_memory: f64,
    pub status: f64,
    pub user_id: f64,
    pub group_id: f64,
    pub executable: f64,
    pub queue: f64,
    pub partition: f64,
    pub preceding_job: f64,
    pub think_time: f64,
}

impl SwfRecord {
    /// A record with every field unknown (`-1`).
    pub const fn unknown() -> SwfRecord {
        SwfRecord::from_fields([-1.0; 18])
    }

    /// The fields in file order.
    pub fn fields(&self) -> [f64; 18] {
        [
            self.job_number,
            self.submit_time,
            self.wait_time,
            self.run_time,
            self.allocated_procs,
            self.avg_cpu_time,
            self.used_memory,
            self.requested_procs,
            self.requested_time,
            self.requested_memory,
            self.status,
            self.user_id,
            self.group_id,
            self.executable,
            self.queue,
            self.partition,
            self.preceding_job,
            self.think_time,
        ]
    }

    /// A record from the fields in file order.
    pub const fn from_fields(f: [f64; 18]) -> SwfRecord {
        SwfRecord {
            job_number: f[0],
            submit_time: f[1],
            wait_time: f[2],
            run_time: f[3],
            allocated_procs: f[4],
            avg_cpu_time: f[5],
            used_memory: f[6],
            requested_procs: f[7],
            requested_time: f[8],
            requested_memory: f[9],
            status: f[10],
            user_id: f[11],
            group_id: f[12],
            executable: f[13],
            queue: f[14],
            partition: f[15],
            preceding_job: f[16],
            think_time: f[17],
        }
    }
}
