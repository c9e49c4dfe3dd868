//! Files a hostile battery found (issue 26, items 9 and 10): a symbolic link loop under a
//! directory read, a gzip log cut short, and what `fit --write` does to the file it
//! rewrites (its mode, its other names, its byte-order mark and line ends).

#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// A copy of the fixture `fit --write` fits well, at `dir/s.toml`.
fn fit_fixture(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("s.toml");
    fs::copy("tests/fixtures/good/fit_synthetic.toml", &path).unwrap();
    path
}

#[test]
fn a_symbolic_link_loop_under_a_history_is_listed_and_the_rest_read() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    fs::create_dir(&sessions).unwrap();
    for f in ["a.toml", "b.toml", "c.toml"] {
        fs::copy(
            Path::new("tests/fixtures/history/small").join(f),
            sessions.join(f),
        )
        .unwrap();
    }
    // A link to the folder above it, and a link to itself.
    fs::create_dir(sessions.join("deeper")).unwrap();
    symlink("..", sessions.join("deeper/up")).unwrap();
    symlink("self.toml", sessions.join("self.toml")).unwrap();
    let out = dir.path().join("out");
    let assert = simulate()
        .arg("history")
        .arg(&sessions)
        .args(["--edits", "tests/fixtures/history/edits.toml", "--out"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("3 sessions"), "{stdout}");
    assert!(stdout.contains("a symbolic link loop"), "{stdout}");
}

#[test]
fn a_symbolic_link_loop_under_a_suggest_directory_is_listed_and_the_rest_read() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    fs::create_dir(&sessions).unwrap();
    for f in ["a.toml", "b.toml", "c.toml"] {
        fs::copy(
            Path::new("tests/fixtures/history/small").join(f),
            sessions.join(f),
        )
        .unwrap();
    }
    fs::create_dir(sessions.join("deeper")).unwrap();
    symlink("..", sessions.join("deeper/up")).unwrap();
    symlink("self.toml", sessions.join("self.toml")).unwrap();
    let out = dir.path().join("out");
    let assert = simulate()
        .arg("suggest")
        .arg(&sessions)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    // Both loops named, each once, as `history` lists them.
    assert_eq!(
        stdout.matches("a symbolic link loop").count(),
        2,
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped self.toml: a symbolic link loop"),
        "{stdout}"
    );
    assert!(
        stdout.contains("skipped deeper/up: a symbolic link loop"),
        "{stdout}"
    );
}

#[test]
fn a_symbolic_link_loop_under_an_import_is_listed_as_unreadable_and_the_rest_imported() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).unwrap();
    let from = Path::new("tests/fixtures/import/claude-code/projects/-home-dev-shop");
    let session = "9f8e7d6c-2222-4333-8444-555566667777.jsonl";
    fs::copy(from.join(session), logs.join(session)).unwrap();
    symlink(".", logs.join("loop")).unwrap();
    symlink("self.jsonl", logs.join("self.jsonl")).unwrap();
    let out = dir.path().join("out");
    let assert = simulate()
        .args(["import", "claude-code"])
        .arg(&logs)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let all = String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&assert.get_output().stderr);
    assert!(all.contains("a symbolic link loop"), "{all}");
    assert!(
        fs::read_dir(&out).unwrap().any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "toml"))
    );
}

#[test]
fn a_gzip_log_cut_inside_its_only_line_says_one_of_one_and_truncated() {
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let line = format!(
        "{{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n",
        "x".repeat(200_000)
    );
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(line.as_bytes()).unwrap();
    let packed = gz.finish().unwrap();
    let path = dir.path().join("s.jsonl");
    fs::write(&path, &packed[..packed.len() * 3 / 4]).unwrap();
    let assert = simulate()
        .args(["import", "claude-code"])
        .arg(&path)
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("1 of 1 lines malformed; line 1: the gzip stream is truncated"),
        "{stderr}"
    );
}

#[test]
fn fit_write_refuses_a_read_only_scenario_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = fit_fixture(dir.path());
    let before = fs::read(&path).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let assert = simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("s.toml: --write: is read-only"), "{stderr}");
    assert!(!stderr.contains("--out"), "{stderr}");
    assert_eq!(fs::read(&path).unwrap(), before);
    let mode = fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
}

#[test]
fn fit_write_refuses_a_scenario_with_other_hard_links() {
    let dir = tempfile::tempdir().unwrap();
    let path = fit_fixture(dir.path());
    let other = dir.path().join("other.toml");
    fs::hard_link(&path, &other).unwrap();
    let before = fs::read(&path).unwrap();
    let assert = simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("has 2 names (hard links)"), "{stderr}");
    assert_eq!(fs::read(&path).unwrap(), before);
    assert_eq!(fs::read(&other).unwrap(), before);
}

#[test]
fn fit_write_keeps_a_byte_order_mark_and_crlf_line_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = fit_fixture(dir.path());
    let text = fs::read_to_string(&path).unwrap();
    let windows = format!("\u{feff}{}", text.replace('\n', "\r\n"));
    fs::write(&path, &windows).unwrap();
    simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .success();
    let written = fs::read_to_string(&path).unwrap();
    assert_ne!(written, windows);
    assert!(
        written.contains("base_tokens_source = \"fitted"),
        "{written}"
    );
    assert!(written.starts_with('\u{feff}'));
    assert_eq!(written.matches('\u{feff}').count(), 1);
    let lone = written
        .match_indices('\n')
        .filter(|(i, _)| !written[..*i].ends_with('\r'));
    assert_eq!(lone.count(), 0, "{written:?}");
    // And it still runs.
    simulate().arg(&path).arg("--no-write").assert().success();
}

#[test]
fn fit_write_into_a_folder_it_cannot_write_names_no_out() {
    if rustix::process::geteuid().is_root() {
        eprintln!("skipped: root writes into any folder, so none can refuse it here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("locked");
    fs::create_dir(&inner).unwrap();
    let path = fit_fixture(&inner);
    fs::set_permissions(&inner, fs::Permissions::from_mode(0o555)).unwrap();
    let assert = simulate()
        .args(["fit", "--write"])
        .arg(&path)
        .assert()
        .code(2);
    fs::set_permissions(&inner, fs::Permissions::from_mode(0o755)).unwrap();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("cannot write the fitted scenario"),
        "{stderr}"
    );
    assert!(!stderr.contains("--out"), "{stderr}");
}
