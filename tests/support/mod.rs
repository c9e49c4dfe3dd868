//! What the output tests share: the binary, a folder's names and bytes, a CSV's rows.
#![allow(clippy::unwrap_used, dead_code)]

pub mod browser;

use assert_cmd::Command;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;

pub fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Every file of `dir` by name, with its bytes (a folder as `<folder>`).
pub fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    names(dir)
        .into_iter()
        .map(|n| {
            let path = dir.join(&n);
            let bytes = if path.is_dir() {
                b"<folder>".to_vec()
            } else {
                fs::read(&path).unwrap()
            };
            (n, bytes)
        })
        .collect()
}

/// The rows of a CSV file as maps from column to text.
pub fn rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

/// A row's `column` as a number.
pub fn number(row: &HashMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap()
}
