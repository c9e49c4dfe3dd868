//! The README is a front page a newcomer reads in minutes (issue 27 §6), and every relative
//! link in it and in docs/ reaches a file and, where it names one, a heading there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// GitHub's anchor of a heading: lower case, punctuation but `-` and `_` removed, spaces as
/// `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings, outside code blocks.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            if heading.starts_with(' ') {
                out.insert(anchor(heading));
            }
        }
    }
    out
}

/// Every `](target)` of a Markdown text, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            if let Some(end) = rest.find(')') {
                out.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    for entry in std::fs::read_dir("docs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
}

#[test]
fn every_relative_link_in_the_readme_and_docs_reaches_its_file_and_heading() {
    let mut broken = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap_or(Path::new("")).join(path)
            };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            if !fragment.is_empty() && target.extension().is_some_and(|e| e == "md") {
                let there = std::fs::read_to_string(&target).unwrap();
                if !anchors(&there).contains(fragment) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_page_with_the_quick_start_and_links_to_every_docs_page() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move detail to docs/"
    );
    assert!(readme.contains("cargo run --release -- scenarios/merge.toml"));
    assert!(readme.contains("cargo test --locked"));
    for file in markdown_files().iter().skip(1) {
        let name = file.file_name().unwrap().to_str().unwrap();
        assert!(
            readme.contains(&format!("(docs/{name}")),
            "README.md links no docs/{name}"
        );
    }
}
