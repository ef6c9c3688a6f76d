//! Helpers shared by the tests that drive the `schedlab` binary (each test binary uses a
//! subset, hence the `dead_code` allowance).
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// A fresh folder under the system's temp dir for test `tag` of this process.
pub fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("schedlab-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// Runs the `schedlab` binary: (exit code, stdout, stderr).
pub fn schedlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
