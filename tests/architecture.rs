//! The house (docs/development.md): imports flow one way, input → scenario → study →
//! evaluation → report → outputs, with the subcommands on top.
//!
//! Read from the source itself: every file under `src/` is a module; a `crate::…` or
//! `super::…` path in its code (not in comments, not in its `#[cfg(test)] mod tests`) is an
//! import of the longest module that path names. The graph of those imports must have no
//! circle, and nothing but the argument parser may import a subcommand.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Module path (`history::files`, `error`) → the file's text, for every `.rs` under `src/`.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let mut name = prefix.to_vec();
            if path.is_dir() {
                name.push(stem);
                walk(&path, &name, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                if !matches!(stem.as_str(), "mod" | "lib" | "main") {
                    name.push(stem);
                }
                out.insert(name.join("::"), fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(Path::new("src"), &[], &mut out);
    out
}

/// The code of a file: comment lines and the unit-test module left out (a test may reach
/// anywhere; a doc comment may name any module).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a file names from the crate root: `crate::a::b::{c, d::e}` gives `a::b::c`
/// and `a::b::d::e`; `super::x` is resolved against the file's own module.
fn paths(module: &str, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (root, rest) in [("crate::", ""), ("super::", "super")] {
        let mut at = 0;
        while let Some(found) = code[at..].find(root) {
            let start = at + found;
            at = start + root.len();
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let prefix = if rest.is_empty() {
                Vec::new()
            } else {
                // `super` of a `mod.rs` is its parent's parent as a path: the file's
                // module is the folder, so its `super` is the folder's parent.
                let mut m: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
                m.pop();
                m.into_iter().map(String::from).collect()
            };
            expand(&code[at..], &prefix, &mut out);
        }
    }
    out
}

/// Expands one path after its root (`a::b::{c, d}` …) into full paths.
fn expand(text: &str, prefix: &[String], out: &mut Vec<String>) {
    let mut segments = prefix.to_vec();
    let mut rest = text;
    loop {
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            if let Some(group) = rest.strip_prefix('{') {
                let mut depth = 0;
                let mut item = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            expand(item.trim(), &segments, out);
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
                expand(item.trim(), &segments, out);
                // The group's own prefix is not a path of its own.
                return;
            }
            break;
        }
        segments.push(ident.clone());
        rest = &rest[ident.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    if !segments.is_empty() {
        out.push(segments.join("::"));
    }
}

/// The module a path lands in: its longest prefix that is a module.
fn resolve<'a>(path: &str, modules: &'a BTreeMap<String, String>) -> Option<&'a str> {
    let segments: Vec<&str> = path.split("::").collect();
    (1..=segments.len())
        .rev()
        .map(|n| segments[..n].join("::"))
        .find_map(|m| modules.get_key_value(&m).map(|(k, _)| k.as_str()))
}

/// Module → the other modules it imports. A module's imports of its own submodules and
/// of its parents' re-exports are kept: a circle through them is a circle too.
fn graph(modules: &BTreeMap<String, String>) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (module, text) in modules {
        let entry = edges.entry(module.as_str()).or_default();
        for path in paths(module, &code(text)) {
            if let Some(to) = resolve(&path, modules)
                && to != module
                && !to.is_empty()
            {
                entry.insert(to);
            }
        }
    }
    edges
}

/// Circles of the graph (strongly connected parts of more than one module), each sorted.
fn circles<'a>(edges: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    // Tarjan, iterative over a small graph: a few hundred modules.
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(v: &'a str, e: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for &w in e.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, e, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                part.push(w);
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort_unstable();
                s.out.push(part);
            }
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out.sort();
    s.out
}

/// A parent module (`history`, from `history/mod.rs`) re-exports and declares its
/// children, and its children use what it re-exports: that is one module in Rust's sense,
/// not a circle. Circles are looked for between files that are not each other's parent.
fn without_parents<'a>(
    edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
) -> BTreeMap<&'a str, BTreeSet<&'a str>> {
    let inside =
        |parent: &str, child: &str| parent.is_empty() || child.starts_with(&format!("{parent}::"));
    edges
        .iter()
        .map(|(&from, to)| {
            let kept = to
                .iter()
                .copied()
                .filter(|&t| !inside(from, t) && !inside(t, from))
                .collect();
            (from, kept)
        })
        .collect()
}

#[test]
fn the_modules_import_each_other_in_one_direction_only() {
    let modules = modules();
    assert!(modules.len() > 100, "{} modules read", modules.len());
    let found = circles(&without_parents(&graph(&modules)));
    assert!(
        found.is_empty(),
        "modules that import each other (directly or round a circle): {found:#?}"
    );
}

#[test]
fn only_the_argument_parser_and_the_binary_reach_the_subcommands() {
    let modules = modules();
    let edges = graph(&modules);
    for (from, to) in &edges {
        if from.starts_with("command") || matches!(*from, "cli" | "") {
            continue;
        }
        let reached: Vec<&&str> = to.iter().filter(|t| t.starts_with("command")).collect();
        assert!(reached.is_empty(), "{from} imports {reached:?}");
    }
}

#[test]
fn the_reader_of_imports_finds_what_a_file_names() {
    // The test's own parsing, on the forms the source uses.
    let mut out = Vec::new();
    expand("a::b::{c, d::{e, f}}, g;", &[], &mut out);
    assert_eq!(out, ["a::b::c", "a::b::d::e", "a::b::d::f"]);
    let code = "use crate::x::{self, y};\nlet z = super::w::f();\n// crate::comment\n";
    let found = paths("p::q", &self::code(code));
    assert_eq!(found, ["x::self", "x::y", "p::w::f"]);
    let found = paths("p::q", &self::code("#[cfg(test)]\nmod tests { crate::t }"));
    assert!(found.is_empty());
}

/// A circle put in on purpose is found: the check can fail.
#[test]
fn a_circle_is_found() {
    let mut modules = BTreeMap::new();
    modules.insert("a".to_string(), "use crate::b::X;".to_string());
    modules.insert("b".to_string(), "use crate::c::Y;".to_string());
    modules.insert("c".to_string(), "fn f() { crate::a::g() }".to_string());
    modules.insert("d".to_string(), "use crate::a;".to_string());
    assert_eq!(circles(&graph(&modules)), vec![vec!["a", "b", "c"]]);
}
