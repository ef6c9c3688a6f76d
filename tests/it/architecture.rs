//! ARCHITECTURE.md stays true: every source file sits in a folder its code map names (or is a
//! root file it names), and every folder or file the map names exists.

use std::path::Path;

use crate::layering::rust_files;

const MAP: &str = include_str!("../../ARCHITECTURE.md");

/// The `src/…` paths the map names in backticks: folders end with `/`, files with `.rs`.
fn named_paths() -> Vec<String> {
    MAP.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("src/"))
        // Patterns and the walk-throughs' examples (`src/**.rs`, `src/modes/<name>/`,
        // `src/policy/foo.rs`) are not paths.
        .filter(|s| !s.contains(['*', '<', '{', ' ']) && !s.contains("foo"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_source_file_is_in_a_folder_the_map_names() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let named = named_paths();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 100, "only {} files found", files.len());
    let unknown: Vec<String> = files
        .iter()
        .map(|f| {
            f.strip_prefix(root)
                .expect("below the crate")
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|rel| {
            let folder = format!("{}/", rel.rsplit_once('/').map_or("", |(d, _)| d));
            !named.iter().any(|n| n == rel || *n == folder)
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "files in no folder ARCHITECTURE.md's code map names (add the folder or file):\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_path_the_map_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let named = named_paths();
    assert!(named.len() > 30, "only {} paths found", named.len());
    let missing: Vec<&String> = named
        .iter()
        .filter(|n| !root.join(n.trim_end_matches('/')).exists())
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist: {missing:?}"
    );
}
