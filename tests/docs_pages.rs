//! The docs stay true: every `docs/` page with Rust blocks is compiled as a doc-test, and the
//! counter and `Config` tables of `docs/plans-and-budgets.md` name exactly the fields the types
//! have (a new counter or field without a row fails here, as does a row for one that is gone).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use layerbatch::{Config, Counters, DeviceCounters};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_docs_page_with_rust_blocks_is_a_doc_test_and_packaged() {
    let lib = read(&root().join("src/lib.rs"));
    let manifest = read(&root().join("Cargo.toml"));
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") && read(&path).contains("```rust") {
            pages.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    pages.sort();
    assert!(pages.len() >= 5, "docs/ pages with Rust blocks: {pages:?}");
    for page in &pages {
        let include = format!("include_str!(\"../docs/{page}\")");
        assert!(
            lib.contains(&include),
            "src/lib.rs does not compile docs/{page}'s Rust blocks: add `#[doc = {include}]`"
        );
        let packaged = format!("\"/docs/{page}\"");
        assert!(manifest.contains(&packaged), "Cargo.toml's include list lacks {packaged} (src/lib.rs includes it)");
    }
}

/// The top-level field names of a struct's `Debug` output (`Name { a: .., b: .. }`).
fn debug_fields(debug: &str) -> BTreeSet<String> {
    let body = &debug[debug.find('{').expect("a struct's Debug") + 1..];
    let (mut fields, mut depth, mut in_str, mut escaped, mut start) = (BTreeSet::new(), 0i32, false, false, 0);
    for (i, c) in body.char_indices() {
        if in_str {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => in_str = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' if depth > 0 => depth -= 1,
            ':' if depth == 0 && start <= i => {
                fields.insert(body[start..i].trim().to_string());
                start = usize::MAX;
            }
            ',' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    fields
}

/// The first column's backticked names of the table whose header row starts with `header`;
/// `_suffix` stands for the first word of the name before it plus the suffix
/// (`arrays_created` / `_destroyed`).
fn table_names(page: &str, header: &str) -> BTreeSet<String> {
    let mut lines = page.lines().skip_while(|l| !l.starts_with(header)).skip(2);
    let mut names = BTreeSet::new();
    for line in lines.by_ref().take_while(|l| l.starts_with('|')) {
        let first = line.split('|').nth(1).unwrap_or_default();
        let mut prefix = String::new();
        for (i, part) in first.split('`').enumerate() {
            if i % 2 == 0 || !part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
                continue;
            }
            let name = if part.starts_with('_') { format!("{prefix}{part}") } else { part.to_string() };
            prefix = name.split('_').next().unwrap_or_default().to_string();
            names.insert(name);
        }
    }
    assert!(!names.is_empty(), "no table headed {header:?}");
    names
}

#[test]
fn the_counter_table_names_every_counter() {
    let page = read(&root().join("docs/plans-and-budgets.md"));
    let documented = table_names(&page, "| counter |");
    let mut fields = debug_fields(&format!("{:?}", Counters::default()));
    fields.extend(debug_fields(&format!("{:?}", DeviceCounters::default())));
    let missing: Vec<_> = fields.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&fields).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/plans-and-budgets.md's counter table: missing {missing:?}, no such counter {stale:?}"
    );
}

#[test]
fn the_config_table_names_every_field() {
    let page = read(&root().join("docs/plans-and-budgets.md"));
    let documented = table_names(&page, "| `Config` field |");
    let fields = debug_fields(&format!("{:?}", Config::default()));
    let missing: Vec<_> = fields.difference(&documented).collect();
    let stale: Vec<_> = documented.difference(&fields).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/plans-and-budgets.md's Config table: missing {missing:?}, no such field {stale:?}"
    );
}
