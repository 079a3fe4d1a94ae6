//! Core's modules form no import cycle: the top-level modules of `core/src`, with an edge from
//! each to every module its (non-test) code names through `crate::`, are a DAG. A name the
//! crate root re-exports (`crate::Quad`) counts as its defining module. A cycle fails with its
//! modules and the files behind each edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every library `.rs` file under `dir`, test files and folders left out.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && !["tests.rs", "model_tests.rs", "test_rng.rs"].contains(&name.as_str()) {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without a trailing `#[cfg(test)] mod tests`.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first path segments of what `crate::` names in `code` (`crate::a::B`, `crate::{a::B, C}`).
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut item_start) = (0, true);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        out.push(ident(&group[i..]).to_string());
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest).to_string());
        }
    }
    out
}

#[test]
fn core_has_no_import_cycles() {
    let lib = code(&src().join("lib.rs"));
    let modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ").or_else(|| l.trim().strip_prefix("pub mod ")))
        .map(|l| ident(l).to_string())
        .collect();
    // Root re-exports: `pub use module::{A, B}` / `pub use crate::module::A`.
    let mut reexports = BTreeMap::new();
    for statement in lib.split(';').filter_map(|s| s.trim().split("pub use ").nth(1)) {
        let statement = statement.trim_start_matches("crate::");
        let module = ident(statement).to_string();
        let names = statement[module.len()..].trim_start_matches("::");
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = ident(name.trim().rsplit("::").next().unwrap_or_default());
            reexports.insert(name.to_string(), module.clone());
        }
    }
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(src()).unwrap();
        let from = ident(&relative.to_string_lossy()).to_string();
        if !modules.contains(&from) {
            continue;
        }
        for first in crate_paths(&code(file)) {
            let to = if modules.contains(&first) { Some(first) } else { reexports.get(&first).cloned() };
            if let Some(to) = to.filter(|to| *to != from) {
                let via = relative.display().to_string();
                edges.entry(from.clone()).or_default().entry(to).or_default().insert(via);
            }
        }
    }
    assert!(edges.len() > 10, "the graph has edges from only {} modules: {edges:?}", edges.len());
    let cycles = strongly_connected(&modules, &edges);
    let described: Vec<String> = cycles
        .iter()
        .map(|cycle| {
            let inner: Vec<String> = cycle
                .iter()
                .flat_map(|a| {
                    let targets = edges.get(a).into_iter().flatten();
                    targets.filter(|(b, _)| cycle.contains(*b)).map(move |(b, via)| format!("{a} -> {b} ({via:?})"))
                })
                .collect();
            format!("{cycle:?}: {}", inner.join("; "))
        })
        .collect();
    assert!(cycles.is_empty(), "{} import cycles in core:\n{}", cycles.len(), described.join("\n"));
}

/// Tarjan's strongly connected components of more than one module.
fn strongly_connected(
    modules: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
) -> Vec<BTreeSet<String>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(w: &mut Walk<'a>, v: &'a str) {
        let i = w.index.len();
        w.index.insert(v, i);
        w.low.insert(v, i);
        w.stack.push(v);
        for to in w.edges.get(v).into_iter().flat_map(|m| m.keys()) {
            if !w.index.contains_key(to.as_str()) {
                visit(w, to);
                let low = w.low[v].min(w.low[to.as_str()]);
                w.low.insert(v, low);
            } else if w.stack.contains(&to.as_str()) {
                let low = w.low[v].min(w.index[to.as_str()]);
                w.low.insert(v, low);
            }
        }
        if w.low[v] == w.index[v] {
            let mut component = BTreeSet::new();
            while let Some(top) = w.stack.pop() {
                component.insert(top.to_string());
                if top == v {
                    break;
                }
            }
            if component.len() > 1 {
                w.found.push(component);
            }
        }
    }
    let mut walk = Walk { edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for m in modules {
        if !walk.index.contains_key(m.as_str()) {
            visit(&mut walk, m);
        }
    }
    walk.found
}
