//! Layering (ARCHITECTURE.md "Layers"): reads every `src/**.rs` and checks each
//! `crate::…`, `super::…` and `self::…` path — multi-line `use` groups included — against the
//! layer table: a module may import only its own layer and the layers below it. Inside a
//! layer the files must not import each other in a circle (a folder's `mod.rs` may re-export
//! its children, and a child may name its folder's items). Only `src/web/` and the two wasm
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
    ("network::wormhole", 6),
    ("grid::align", 6),
    ("grid::dispatch", 6),
    ("grid::engine", 6),
    ("grid::invariants", 6),
    ("grid::local", 6),
    ("grid::site", 6),
    ("error", 7),
    ("grid", 7),
    ("modes", 7),
    ("modes::envelope", 8),
    ("modes::mesh::link", 8),
    ("registry", 7),
    ("work", 7),
    ("exercise", 8),
    ("form", 8),
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

/// Every `.rs` file below `dir`, sorted.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// The text of a source file with comments, strings and character literals blanked out
/// (replaced by spaces, newlines kept), so that offsets still give line numbers and a path
/// inside a doc comment or a string is not an import.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |k| i + k);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
                blank(&mut out, i, end);
                i = end;
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !is_ident(b[i - 1] as char)) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                let end = text[body..]
                    .find(&close)
                    .map_or(b.len(), |k| body + k + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut k = i + 1;
                while k < b.len() && b[k] != b'"' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, k + 1);
                i = k + 1;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\''), not a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    text[i + 2..].find('\'').map(|k| i + 2 + k + 1)
                } else if b.get(i + 2) == Some(&b'\'') {
                    Some(i + 3)
                } else {
                    text[i + 1..]
                        .chars()
                        .next()
                        .filter(|c| c.len_utf8() > 1)
                        .and_then(|c| {
                            (b.get(i + 1 + c.len_utf8()) == Some(&b'\''))
                                .then(|| i + 2 + c.len_utf8())
                        })
                };
                match end {
                    Some(e) => {
                        blank(&mut out, i, e);
                        i = e;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every module path `code` names through `crate::`, `super::` or `self::`, with the offset
/// where it starts, resolved from module `here`. From offset `inline_from` on the code is
/// inside an inline module such as `mod tests { … }`, where `super` is `here`. A group
/// `crate::{a, b::c}` — over several lines or not — names each of its items.
fn targets(code: &str, here: &[String], inline_from: Option<usize>) -> Vec<(usize, Vec<String>)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for (i, _) in code.match_indices("::") {
        // The path's first segment ends right before this `::`.
        let start = code[..i].rfind(|c: char| !is_ident(c)).map_or(0, |k| k + 1);
        if start > 0 && (bytes[start - 1] == b':' || bytes[start - 1] == b'$') {
            continue; // not the first segment of the path
        }
        let inline = inline_from.is_some_and(|k| i > k);
        let first = &code[start..i];
        let mut base: Vec<String> = match first {
            "crate" => Vec::new(),
            "self" => here.to_vec(),
            "super" if inline => here.to_vec(),
            "super" => here[..here.len().saturating_sub(1)].to_vec(),
            _ => continue,
        };
        let mut rest = &code[i + 2..];
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        let (segs, after) = segments(rest);
        base.extend(segs);
        let group = after
            .trim_start()
            .strip_prefix("::")
            .map(str::trim_start)
            .and_then(|g| g.strip_prefix('{'))
            .or(if base.is_empty() {
                rest.strip_prefix('{')
            } else {
                None
            });
        if let Some(group) = group {
            group_items(group, &base, start, &mut found);
        } else if !base.is_empty() {
            found.push((start, base));
        }
    }
    found
}

/// The items of a `{ … }` group (its text after the `{`), nested groups included, each
/// prefixed with `base`.
fn group_items(group: &str, base: &[String], at: usize, found: &mut Vec<(usize, Vec<String>)>) {
    let mut depth = 0;
    let mut item_start = true;
    let mut last: Vec<String> = Vec::new();
    for (k, c) in group.char_indices() {
        match c {
            '{' if depth == 0 => {
                // `a::{b, c}` inside the group: the items of the inner group.
                let (inner_found_len, inner) = (found.len(), &group[k + 1..]);
                if !last.is_empty() && found.last().is_some_and(|(_, p)| *p == last) {
                    found.truncate(inner_found_len - 1);
                }
                group_items(inner, &last, at, found);
                depth += 1;
            }
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && is_ident(c) && depth == 0 => {
                item_start = false;
                let (s, _) = segments(&group[k..]);
                let mut t = base.to_vec();
                t.extend(s);
                last = t.clone();
                found.push((at, t));
            }
            _ => {}
        }
    }
}

/// One source file: its path below `src/`, its module path, its code (comments and strings
/// blanked), where an inline module starts and where its test code starts.
struct Source {
    rel: PathBuf,
    module: Vec<String>,
    code: String,
    inline_from: Option<usize>,
    tests_from: usize,
}

/// Every file below `src/` except the crate root and the bins (the root declares the
/// modules; the bins are front ends).
fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut out = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).expect("below src").to_path_buf();
        if rel == Path::new("lib.rs") || rel.starts_with("bin") {
            continue;
        }
        let text = fs::read_to_string(file).expect("readable source");
        let code = code_of(&text);
        let mut offset = 0;
        let mut inline_from = None;
        let mut tests_from = code.len();
        for line in code.split_inclusive('\n') {
            let t = line.trim_start();
            if inline_from.is_none()
                && (t.starts_with("mod ")
                    || t.starts_with("pub mod ")
                    || t.starts_with("pub(crate) mod "))
                && t.contains('{')
            {
                inline_from = Some(offset);
            }
            if tests_from == code.len()
                && (t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test"))
            {
                tests_from = offset;
            }
            offset += line.len();
        }
        out.push(Source {
            module: module_of(&rel),
            rel,
            code,
            inline_from,
            tests_from,
        });
    }
    out
}

fn line_of(code: &str, offset: usize) -> usize {
    code[..offset].matches('\n').count() + 1
}

#[test]
fn no_module_imports_a_higher_layer() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for src in sources() {
        let Some(own) = layer_of(&src.module) else {
            problems.push(format!(
                "src/{}: module {} is in no layer (add it to the table here and in ARCHITECTURE.md)",
                src.rel.display(),
                src.module.join("::")
            ));
            continue;
        };
        for (at, target) in targets(&src.code, &src.module, src.inline_from) {
            checked += 1;
            match layer_of(&target) {
                Some(l) if l <= own => {}
                Some(l) => problems.push(format!(
                    "src/{}:{}: {} ({}) imports crate::{} ({})",
                    src.rel.display(),
                    line_of(&src.code, at),
                    src.module.join("::"),
                    LAYER_NAMES[own],
                    target.join("::"),
                    LAYER_NAMES[l]
                )),
                None => problems.push(format!(
                    "src/{}:{}: crate::{} is in no layer",
                    src.rel.display(),
                    line_of(&src.code, at),
                    target.join("::")
                )),
            }
        }
    }
    assert!(
        checked > 1000,
        "only {checked} paths found: is the parser broken?"
    );
    assert!(
        problems.is_empty(),
        "upward imports:\n{}",
        problems.join("\n")
    );
}

/// The file-level import graph of the non-test code: an edge from a file to the file of the
/// longest module path it names. A folder's `mod.rs` naming its own children (re-exports) and
/// a file naming one of its ancestors' `mod.rs` (the folder's items) are not edges: the first
/// is how a folder shows its API, the second names that API.
fn import_graph(sources: &[Source]) -> Vec<Vec<usize>> {
    let index_of = |path: &[String]| -> Option<usize> {
        (0..=path.len())
            .rev()
            .find_map(|n| sources.iter().position(|s| s.module == path[..n]))
    };
    sources
        .iter()
        .map(|src| {
            let mut edges: Vec<usize> =
                targets(&src.code[..src.tests_from], &src.module, src.inline_from)
                    .into_iter()
                    .filter_map(|(_, t)| index_of(&t))
                    .filter(|&j| {
                        let other = &sources[j].module;
                        other != &src.module
                            && !other.starts_with(&src.module)
                            && !src.module.starts_with(other)
                    })
                    .collect();
            edges.sort_unstable();
            edges.dedup();
            edges
        })
        .collect()
}

/// The strongly connected components of more than one file (Tarjan).
fn circles(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        graph: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.graph[v].len() {
            let w = s.graph[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort_unstable();
                s.out.push(scc);
            }
        }
    }
    let n = graph.len();
    let mut s = State {
        graph,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let sources = sources();
    let graph = import_graph(&sources);
    assert!(
        graph.iter().map(Vec::len).sum::<usize>() > 300,
        "too few edges: is the parser broken?"
    );
    let found: Vec<String> = circles(&graph)
        .iter()
        .map(|scc| {
            scc.iter()
                .map(|&i| format!("src/{}", sources[i].rel.display()))
                .collect::<Vec<_>>()
                .join(" ⇄ ")
        })
        .collect();
    assert!(found.is_empty(), "import circles:\n{}", found.join("\n"));
}

#[test]
fn the_circle_finder_finds_circles_and_only_them() {
    // 0 → 1 → 2 → 0 is a circle; 3 → 0 and 4 alone are not.
    let graph = vec![vec![1], vec![2], vec![0], vec![0], vec![]];
    assert_eq!(circles(&graph), vec![vec![0, 1, 2]]);
    assert!(circles(&[vec![1], vec![]]).is_empty());
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
        None,
    );
    let t: Vec<String> = t.iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(
        t,
        vec![
            "sim::Engine",
            "sim::engine::context",
            "grid::local::X",
            "base::Time"
        ]
    );
    let inner: Vec<Vec<String>> = targets("use super::*; use super::super::x::Y;", &here, Some(0))
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    assert_eq!(
        inner,
        vec![
            here.clone(),
            vec!["grid".to_string(), "x".into(), "Y".into()]
        ]
    );
    // A group over several lines, with a nested group, and paths in comments and strings
    // that are not imports.
    let code = code_of(
        "use crate::{\n    a::b, // crate::not::this\n    c::{d, e::f},\n};\nlet s = \"crate::nor::this\";",
    );
    let t: Vec<String> = targets(&code, &here, None)
        .iter()
        .map(|(_, p)| p.join("::"))
        .collect();
    assert_eq!(t, ["a::b", "c::d", "c::e::f"]);
    assert_eq!(layer_of(&["grid".into(), "engine".into()]), Some(6));
    assert_eq!(layer_of(&["grid".into(), "spec".into()]), Some(7));
    assert_eq!(layer_of(&["network".into(), "heat".into()]), Some(3));
    assert_eq!(layer_of(&["network".into(), "flow".into()]), Some(6));
    assert_eq!(layer_of(&["nowhere".into()]), None);
}
