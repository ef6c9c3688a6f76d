//! Layering (ARCHITECTURE.md "Layers"): reads every `src/**.rs` and checks each
//! `crate::…`, `super::…` and `self::…` path against the layer table — a module may import
//! only its own layer and the layers below it — and that only `src/web/` and the two wasm
//! bins name `web_sys`.

use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first (the table of ARCHITECTURE.md).
const LAYER_NAMES: [&str; 10] = [
    "base",
    "workload",
    "machine",
    "network",
    "alloc",
    "policy",
    "engines",
    "experiment",
    "designs",
    "front ends",
];

/// Module path prefix → layer index; the longest matching prefix wins.
const LAYERS: &[(&str, usize)] = &[
    ("base", 0),
    ("limits", 0),
    ("workload", 1),
    ("machine", 2),
    ("network", 3),
    ("alloc", 4),
    ("policy", 5),
    ("sim", 6),
    ("metrics", 6),
    ("network::flow", 6),
    ("network::separated", 6),
    ("grid::align", 6),
    ("grid::dispatch", 6),
    ("grid::engine", 6),
    ("grid::invariants", 6),
    ("grid::local", 6),
    ("grid::site", 6),
    ("config", 7),
    ("error", 7),
    ("run", 7),
    ("mesh_run", 7),
    ("moldable_run", 7),
    ("grid", 7),
    ("share", 7),
    ("registry", 7),
    ("envelope", 8),
    ("exercise", 8),
    ("form", 8),
    ("mesh_share", 8),
    ("reproduce", 8),
    ("sweep", 8),
    ("timing", 8),
    ("cli", 9),
    ("web", 9),
];

fn layer_of(path: &[String]) -> Option<usize> {
    LAYERS
        .iter()
        .filter(|(prefix, _)| {
            let p: Vec<&str> = prefix.split("::").collect();
            p.len() <= path.len() && p.iter().zip(path).all(|(a, b)| a == b)
        })
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, layer)| layer)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file below `src/`: `grid/engine.rs` → [grid, engine],
/// `sim/mod.rs` → [sim].
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifiers of a path starting at `s` (`a::b::C`), and the rest of the text.
fn segments(s: &str) -> (Vec<String>, &str) {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_string());
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(r) if r.starts_with(is_ident) => rest = r,
            _ => break,
        }
    }
    (out, rest)
}

/// Every module path a line names through `crate::`, `super::` or `self::`, resolved from
/// module `here` (`inline`: inside an inline module such as `mod tests { … }`, where `super`
/// is `here`). A group `crate::{a, b::c}` names each of its items.
fn targets(line: &str, here: &[String], inline: bool) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices("::") {
        // The path's first segment ends right before this `::`.
        let start = line[..i].rfind(|c: char| !is_ident(c)).map_or(0, |k| k + 1);
        if start > 0 && (bytes[start - 1] == b':' || bytes[start - 1] == b'$') {
            continue; // not the first segment of the path
        }
        let first = &line[start..i];
        let mut base: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => here.to_vec(),
            "super" if inline => here.to_vec(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        let mut rest = &line[i + 2..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        let (segs, after) = segments(rest);
        base.extend(segs);
        if let Some(group) = after.strip_prefix("::{").or(if base.is_empty() {
            rest.strip_prefix('{')
        } else {
            None
        }) {
            let mut depth = 0;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && is_ident(c) && depth == 0 => {
                        item_start = false;
                        let (s, _) = segments(&group[k..]);
                        let mut t = base.clone();
                        t.extend(s);
                        found.push(t);
                    }
                    _ => {}
                }
            }
        } else if !base.is_empty() {
            found.push(base);
        }
    }
    found
}

#[test]
fn no_module_imports_a_higher_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&root).expect("below src");
        if rel == Path::new("lib.rs") || rel.starts_with("bin") {
            continue; // the crate root declares the modules; the bins are front ends
        }
        let here = module_of(rel);
        let Some(own) = layer_of(&here) else {
            problems.push(format!(
                "src/{}: module {} is in no layer (add it to the table here and in ARCHITECTURE.md)",
                rel.display(),
                here.join("::")
            ));
            continue;
        };
        let text = fs::read_to_string(file).expect("readable source");
        let mut inline = false;
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let t = code.trim_start();
            if (t.starts_with("mod ") || t.starts_with("pub mod ")) && t.contains('{') {
                inline = true;
            }
            for target in targets(code, &here, inline) {
                checked += 1;
                match layer_of(&target) {
                    Some(l) if l <= own => {}
                    Some(l) => problems.push(format!(
                        "src/{}:{}: {} ({}) imports crate::{} ({})",
                        rel.display(),
                        n + 1,
                        here.join("::"),
                        LAYER_NAMES[own],
                        target.join("::"),
                        LAYER_NAMES[l]
                    )),
                    None => problems.push(format!(
                        "src/{}:{}: crate::{} is in no layer",
                        rel.display(),
                        n + 1,
                        target.join("::")
                    )),
                }
            }
        }
    }
    assert!(
        checked > 300,
        "only {checked} paths found: is the parser broken?"
    );
    assert!(
        problems.is_empty(),
        "upward imports:\n{}",
        problems.join("\n")
    );
}

#[test]
fn only_the_web_front_end_names_web_sys() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let allowed = |rel: &Path| {
        rel.starts_with("web")
            || rel == Path::new("bin/app.rs")
            || rel == Path::new("bin/worker.rs")
    };
    let offenders: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(&root).expect("below src");
            let text = fs::read_to_string(f).expect("readable source");
            let uses = text
                .lines()
                .any(|l| l.split("//").next().unwrap_or("").contains("web_sys"));
            (uses && !allowed(rel)).then(|| rel.display().to_string())
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "web_sys outside src/web: {offenders:?}"
    );
}

#[test]
fn the_path_parser_resolves_groups_and_relative_paths() {
    let here: Vec<String> = vec!["grid".into(), "engine".into()];
    let t = targets(
        "use crate::sim::{Engine, engine::context}; use super::local::X; f(crate::base::Time)",
        &here,
        false,
    );
    let t: Vec<String> = t.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        t,
        vec![
            "sim::Engine",
            "sim::engine::context",
            "grid::local::X",
            "base::Time"
        ]
    );
    let inner = targets("use super::*; use super::super::x::Y;", &here, true);
    assert_eq!(
        inner,
        vec![
            here.clone(),
            vec!["grid".to_string(), "x".into(), "Y".into()]
        ]
    );
    assert_eq!(layer_of(&["grid".into(), "engine".into()]), Some(6));
    assert_eq!(layer_of(&["grid".into(), "spec".into()]), Some(7));
    assert_eq!(layer_of(&["network".into(), "heat".into()]), Some(3));
    assert_eq!(layer_of(&["network".into(), "flow".into()]), Some(6));
    assert_eq!(layer_of(&["nowhere".into()]), None);
}
