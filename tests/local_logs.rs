//! `simulate suggest`, `history` and `import` with no path: the user's own logs, found in a
//! fake home laid out as Claude Code and Codex CLI lay theirs out (copies of the import
//! fixtures), chosen by period and project, imported once into the cache and reused.
#![allow(clippy::unwrap_used)]

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use support::simulate;

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A home with both agents' logs: Claude Code's project `shop` (4 files) and a second
/// project `blog` (one session, its cwd rewritten), Codex CLI's 2 rollouts (cwd `shop`).
fn home() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let fixtures = Path::new("tests/fixtures/import");
    copy_dir(
        &fixtures.join("claude-code/projects"),
        &t.path().join(".claude/projects"),
    );
    copy_dir(
        &fixtures.join("codex/sessions"),
        &t.path().join(".codex/sessions"),
    );
    let shop = t.path().join(".claude/projects/-home-dev-shop");
    let blog = t.path().join(".claude/projects/-home-dev-blog");
    fs::create_dir_all(&blog).unwrap();
    let session = "9f8e7d6c-2222-4333-8444-555566667777.jsonl";
    let text = fs::read_to_string(shop.join(session)).unwrap();
    fs::write(
        blog.join(session),
        text.replace("/home/dev/shop", "/home/dev/blog"),
    )
    .unwrap();
    fs::remove_file(shop.join(session)).unwrap();
    t
}

fn run(home: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    simulate()
        .current_dir(home)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .args(args)
        .assert()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn cache_folders(home: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(home.join(".cache/simulate"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn suggest_with_no_path_reads_both_agents_logs_imports_them_once_and_writes_their_settings() {
    let h = home();
    let a = run(h.path(), &["suggest", "--out", "out"]).success();
    let out = stdout(&a);
    assert!(
        out.contains("Read Claude Code logs in ~/.claude/projects: 4 files\n"),
        "{out}"
    );
    assert!(
        out.contains("Read Codex CLI logs in ~/.codex/sessions: 2 files\n"),
        "{out}"
    );
    assert!(
        out.contains("Scenarios: imported and fitted into ~/.cache/simulate/sessions-"),
        "{out}"
    );
    assert!(out.contains("local-suggest: "), "{out}");
    let folders = cache_folders(h.path());
    assert_eq!(folders.len(), 1, "{folders:?}");
    let mut agents = support::names(&folders[0]);
    agents.retain(|n| !n.starts_with('.'));
    assert_eq!(agents, ["claude-code", "codex", "sources.tsv"]);
    // Nothing written into the logs' folders.
    assert!(!h.path().join(".claude/projects/simulate").exists());
    let written = h.path().join("out/local-suggest");
    for f in [
        "suggested.toml",
        "claude-code.settings.json",
        "codex.config.toml",
    ] {
        assert!(
            written.join(f).is_file(),
            "{f}: {:?}",
            support::names(&written)
        );
    }
    let settings: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(written.join("claude-code.settings.json")).unwrap(),
    )
    .unwrap();
    assert!(
        settings["_comment"]
            .as_str()
            .unwrap()
            .contains("NOT your settings")
    );

    // The same logs again: nothing imported, the same folder.
    let a = run(h.path(), &["suggest", "--no-write"]).success();
    let out = stdout(&a);
    assert!(
        out.contains(
            "(reused: no log changed since they were imported and fitted; nothing imported)"
        ),
        "{out}"
    );
    assert_eq!(cache_folders(h.path()), folders);

    // A log written again: imported again, into a new folder that replaces the old one.
    let codex = h.path().join(".codex/sessions/2025/10/01");
    let rollout = fs::read_dir(&codex)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut text = fs::read_to_string(&rollout).unwrap();
    text.push('\n');
    fs::write(&rollout, text).unwrap();
    let a = run(h.path(), &["suggest", "--no-write"]).success();
    assert!(
        stdout(&a).contains("imported and fitted into"),
        "{}",
        stdout(&a)
    );
    let after = cache_folders(h.path());
    assert_eq!(after.len(), 1);
    assert_ne!(after, folders);
}

#[test]
fn claude_config_dir_is_a_list_and_codex_home_replaces_the_default() {
    let h = home();
    let p = h.path();
    fs::rename(p.join(".claude"), p.join("work-claude")).unwrap();
    fs::create_dir_all(p.join("empty")).unwrap();
    fs::rename(p.join(".codex"), p.join("codex-home")).unwrap();
    let a = simulate()
        .current_dir(p)
        .env("HOME", p)
        .env("XDG_CACHE_HOME", p.join("cache"))
        .env(
            "CLAUDE_CONFIG_DIR",
            format!("{}/work-claude, ~/empty", p.display()),
        )
        .env("CODEX_HOME", "~/codex-home")
        .args(["suggest", "--no-write"])
        .assert()
        .success();
    let out = stdout(&a);
    assert!(
        out.contains(
            "Read Claude Code logs in ~/work-claude/projects, from CLAUDE_CONFIG_DIR: 4 files"
        ),
        "{out}"
    );
    assert!(
        out.contains("Read Codex CLI logs in ~/codex-home/sessions, from CODEX_HOME: 2 files"),
        "{out}"
    );
    assert!(out.contains("into ~/cache/simulate/sessions-"), "{out}");
    // A list naming no Claude folder is refused, saying what it wants.
    let a = simulate()
        .current_dir(p)
        .env("HOME", p)
        .env("CLAUDE_CONFIG_DIR", "~/empty")
        .args(["suggest", "--no-write"])
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains(
            "CLAUDE_CONFIG_DIR: `~/empty` names no Claude Code folder with a projects/ folder"
        ),
        "{}",
        stderr(&a)
    );
}

#[test]
fn since_last_and_project_choose_the_logs() {
    let h = home();
    let p = h.path();
    // Every log last written in 2025, but one Claude Code session now.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_760_000_000);
    for dir in [".claude/projects", ".codex/sessions"] {
        for e in walk(&p.join(dir)) {
            fs::File::options()
                .write(true)
                .open(&e)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
    let blog = p.join(".claude/projects/-home-dev-blog/9f8e7d6c-2222-4333-8444-555566667777.jsonl");
    fs::File::options()
        .write(true)
        .open(&blog)
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    let a = run(p, &["suggest", "--no-write", "--last", "30d"]).success();
    let out = stdout(&a);
    assert!(out.contains("Read Claude Code logs in ~/.claude/projects: 1 file (left out: 3 files outside the last 30 days)"), "{out}");
    assert!(out.contains("Read Codex CLI logs in ~/.codex/sessions: 0 files (left out: 2 files outside the last 30 days)"), "{out}");
    let a = run(
        p,
        &[
            "suggest",
            "--no-write",
            "--since",
            "2025-01-01",
            "--project",
            "shop",
        ],
    )
    .success();
    let out = stdout(&a);
    assert!(
        out.contains("~/.claude/projects: 3 files (left out: 1 file of other projects than shop)"),
        "{out}"
    );
    assert!(out.contains("~/.codex/sessions: 2 files\n"), "{out}");
    // Claude Code's folder name is a project's name too.
    let a = run(p, &["suggest", "--no-write", "--project", "-home-dev-blog"]).success();
    assert!(
        stdout(&a).contains("~/.claude/projects: 1 file (left out: 3 files"),
        "{}",
        stdout(&a)
    );
    // Nothing left: exit 2, saying what was left out and what to do.
    let a = run(p, &["suggest", "--no-write", "--since", "2030-01-01"]).code(2);
    assert!(stderr(&a).contains("no log left to read"), "{}", stderr(&a));
    assert!(
        stderr(&a).contains("widen --since/--last"),
        "{}",
        stderr(&a)
    );
    let a = run(p, &["suggest", "--no-write", "--last", "30 days"]).code(2);
    assert!(stderr(&a).contains("e.g. --last 30d"), "{}", stderr(&a));
    // With a path the filters have nothing to apply to.
    let a = run(p, &["suggest", ".", "--project", "shop"]).code(2);
    assert!(stderr(&a).contains("drop the path"), "{}", stderr(&a));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn history_and_import_take_the_same_defaults() {
    let h = home();
    let p = h.path();
    fs::write(
        p.join("edits.toml"),
        "[[edit]]\nname = \"clear idle\"\nclear = { after_gap_s = 300 }\n",
    )
    .unwrap();
    let a = run(p, &["history", "--edits", "edits.toml", "--no-write"]).success();
    let out = stdout(&a);
    assert!(
        out.contains("Read Claude Code logs in ~/.claude/projects: 4 files"),
        "{out}"
    );
    assert!(out.contains("clear idle"), "{out}");
    let a = run(p, &["import", "codex", "--out", "mine"]).success();
    let out = stdout(&a);
    assert!(
        out.contains("Read Codex CLI logs in ~/.codex/sessions: 2 files"),
        "{out}"
    );
    assert!(!out.contains("Claude Code logs"), "{out}");
    assert!(p.join("mine/codex").is_dir());
    assert!(!p.join("mine/claude-code").exists());
    run(p, &["import", "otel", "--out", "mine"]).code(2);
}

#[test]
fn simulate_alone_says_where_to_start() {
    let a = simulate().assert().code(2);
    let err = stderr(&a);
    assert!(
        err.contains("You have Claude Code or Codex CLI logs on this machine:\n  simulate suggest"),
        "{err}"
    );
    assert!(err.contains("You have a scenario file"), "{err}");
    assert!(
        err.contains("simulate import --out sessions --fit"),
        "{err}"
    );
}

#[test]
fn no_logs_at_all_says_where_it_looked() {
    let t = tempfile::tempdir().unwrap();
    let a = run(t.path(), &["suggest"]).code(2);
    let err = stderr(&a);
    assert!(
        err.contains("none found: looked for ~/.claude/projects, ~/.config/claude/projects"),
        "{err}"
    );
    assert!(!t.path().join("out").exists());
}

/// A log the import cannot read (here a named pipe) is said on the first run and on every
/// run that reuses the cache folder: it is still left out (the import's own summary, which
/// lists it, is not printed here).
#[cfg(unix)]
#[test]
fn a_log_that_cannot_be_read_is_said_on_every_run() {
    let home = home();
    let pipe = home
        .path()
        .join(".claude/projects/-home-dev-shop/pipe.jsonl");
    let mode = rustix::fs::Mode::from_bits_truncate(0o644);
    rustix::fs::mkfifoat(rustix::fs::CWD, &pipe, mode).unwrap();
    let said = "Not read: 1 log (~/.claude/projects/-home-dev-shop/pipe.jsonl: is a named pipe (FIFO), not a regular file: save what it carries to a file first); the rest was imported\n";
    for run_number in 0..2 {
        let a = run(home.path(), &["suggest", "--no-write"]).success();
        let out = stdout(&a);
        assert!(out.contains(said), "run {run_number}: {out}");
    }
    let reused = stdout(&run(home.path(), &["suggest", "--no-write"]).success());
    assert!(reused.contains("(reused: no log changed"), "{reused}");
}
