//! Where the agents keep their logs on this machine, as usage trackers look for them.
//!
//! Claude Code: `$CLAUDE_CONFIG_DIR` when set (a comma-separated list; each a Claude
//! configuration folder holding `projects/`, or that `projects/` folder itself), else
//! `$XDG_CONFIG_HOME/claude` (`~/.config/claude`) and `~/.claude`, each where it holds
//! `projects/`. Codex CLI: `$CODEX_HOME` when set (a comma-separated list), else `~/.codex`,
//! each's `sessions/` where it has one. The same rules as ccusage
//! (ryoppippi/ccusage, rust/crates/ccusage/src/adapter/claude/paths.rs and
//! adapter/codex/paths.rs; docs/guide/environment-variables.md, read 2026-12-02): a
//! `CLAUDE_CONFIG_DIR` naming no folder with `projects/` is an error, not a silent
//! fallback to the defaults.

use crate::error::Located;
use crate::import::Format;
use std::path::{Path, PathBuf};

/// The environment the locations depend on, read once (tests build their own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Env {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`; default `~/.config`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$XDG_CACHE_HOME`; default `~/.cache`.
    pub xdg_cache_home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, as set.
    pub claude_config_dir: Option<String>,
    /// `$CODEX_HOME`, as set.
    pub codex_home: Option<String>,
}

impl Env {
    /// This process's environment; an empty variable counts as unset.
    pub fn from_process() -> Env {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let text = |name: &str| var(name).map(|v| v.to_string_lossy().into_owned());
        Env {
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            xdg_cache_home: var("XDG_CACHE_HOME").map(PathBuf::from),
            claude_config_dir: text("CLAUDE_CONFIG_DIR"),
            codex_home: text("CODEX_HOME"),
        }
    }

    /// `~/…` and `~` expanded against `$HOME`.
    fn expand(&self, raw: &str) -> PathBuf {
        match (raw, raw.strip_prefix("~/"), &self.home) {
            ("~", _, Some(home)) => home.clone(),
            (_, Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(raw),
        }
    }

    /// `~/…` for a path under `$HOME`, for messages.
    pub fn shown(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) if rest.as_os_str().is_empty() => "~".into(),
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }

    /// The cache folder of simulate's own: `$XDG_CACHE_HOME/simulate`, else
    /// `~/.cache/simulate`; None without either variable.
    pub fn cache_dir(&self) -> Option<PathBuf> {
        self.xdg_cache_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".cache")))
            .map(|c| c.join("simulate"))
    }
}

/// One folder of logs to read, and why it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct Root {
    pub format: Format,
    /// The folder the logs are under (`…/projects`, `…/sessions`).
    pub dir: PathBuf,
    /// Where the location came from: `default` or the variable's name.
    pub from: &'static str,
}

/// The log folders of every agent that has one here, Claude Code's first.
///
/// Errors: `CLAUDE_CONFIG_DIR` set but naming no folder with `projects/` (exit 2), as
/// ccusage: the user pointed somewhere, so silence would hide a typo.
pub fn roots(env: &Env) -> Result<Vec<Root>, Located> {
    let mut roots = claude_code(env)?;
    roots.extend(codex(env));
    Ok(roots)
}

fn claude_code(env: &Env) -> Result<Vec<Root>, Located> {
    let mut roots: Vec<Root> = Vec::new();
    let mut push = |config: PathBuf, from| {
        // The `projects/` folder itself is accepted too.
        let dir = if config.file_name().is_some_and(|n| n == "projects") && config.is_dir() {
            config
        } else {
            config.join("projects")
        };
        if dir.is_dir() && !roots.iter().any(|r| same(&r.dir, &dir)) {
            roots.push(Root {
                format: Format::ClaudeCode,
                dir,
                from,
            });
        }
    };
    if let Some(list) = &env.claude_config_dir {
        for raw in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            push(env.expand(raw), "CLAUDE_CONFIG_DIR");
        }
        if roots.is_empty() {
            return Err(Located::new(
                "CLAUDE_CONFIG_DIR",
                format!(
                    "`{list}` names no Claude Code folder with a projects/ folder in it: give a comma-separated list of folders such as ~/.claude (or their projects/ folders), or unset it to read ~/.claude and ~/.config/claude"
                ),
            ));
        }
        return Ok(roots);
    }
    let config = env
        .xdg_config_home
        .clone()
        .or_else(|| env.home.as_ref().map(|h| h.join(".config")));
    if let Some(config) = config {
        push(config.join("claude"), "default");
    }
    if let Some(home) = &env.home {
        push(home.join(".claude"), "default");
    }
    Ok(roots)
}

fn codex(env: &Env) -> Vec<Root> {
    let (homes, from): (Vec<PathBuf>, _) = match &env.codex_home {
        Some(list) => (
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|raw| env.expand(raw))
                .collect(),
            "CODEX_HOME",
        ),
        None => (
            env.home.iter().map(|h| h.join(".codex")).collect(),
            "default",
        ),
    };
    let mut roots: Vec<Root> = Vec::new();
    for home in homes {
        let sessions = home.join("sessions");
        let dir = if sessions.is_dir() { sessions } else { home };
        if dir.is_dir() && !roots.iter().any(|r| same(&r.dir, &dir)) {
            roots.push(Root {
                format: Format::Codex,
                dir,
                from,
            });
        }
    }
    roots
}

/// The same folder, through links too.
fn same(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(home: &Path) -> Env {
        Env {
            home: Some(home.to_path_buf()),
            ..Env::default()
        }
    }

    #[test]
    fn the_defaults_are_read_where_they_hold_logs() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path();
        std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
        std::fs::create_dir_all(home.join(".config/claude/projects")).unwrap();
        std::fs::create_dir_all(home.join(".codex/sessions")).unwrap();
        let r = roots(&env(home)).unwrap();
        let dirs: Vec<(Format, PathBuf)> = r.iter().map(|r| (r.format, r.dir.clone())).collect();
        assert_eq!(
            dirs,
            [
                (Format::ClaudeCode, home.join(".config/claude/projects")),
                (Format::ClaudeCode, home.join(".claude/projects")),
                (Format::Codex, home.join(".codex/sessions")),
            ]
        );
        assert_eq!(env(home).shown(&r[1].dir), "~/.claude/projects");
        assert_eq!(env(home).cache_dir(), Some(home.join(".cache/simulate")));
        // Nothing there: nothing read, no error.
        let empty = tempfile::tempdir().unwrap();
        assert!(roots(&env(empty.path())).unwrap().is_empty());
    }

    #[test]
    fn claude_config_dir_is_a_comma_separated_list_replacing_the_defaults() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path();
        for d in [".claude/projects", "work/projects", "other/projects"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        let mut e = env(home);
        e.claude_config_dir = Some(format!(
            " ~/work , {}/other/projects,,~/missing",
            home.display()
        ));
        let r = roots(&e).unwrap();
        let dirs: Vec<&Path> = r.iter().map(|r| r.dir.as_path()).collect();
        assert_eq!(
            dirs,
            [home.join("work/projects"), home.join("other/projects")]
        );
        assert!(r.iter().all(|r| r.from == "CLAUDE_CONFIG_DIR"));
        e.claude_config_dir = Some("~/missing".into());
        let err = roots(&e).unwrap_err();
        assert!(
            err.to_string().contains("names no Claude Code folder"),
            "{err}"
        );
    }

    #[test]
    fn codex_home_takes_sessions_or_the_folder_itself() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path();
        std::fs::create_dir_all(home.join("a/sessions")).unwrap();
        std::fs::create_dir_all(home.join("b")).unwrap();
        let mut e = env(home);
        e.codex_home = Some("~/a,~/b".into());
        let r = roots(&e).unwrap();
        let dirs: Vec<&Path> = r.iter().map(|r| r.dir.as_path()).collect();
        assert_eq!(dirs, [home.join("a/sessions"), home.join("b")]);
        let mut e = env(home);
        e.xdg_cache_home = Some(home.join("xc"));
        assert_eq!(e.cache_dir(), Some(home.join("xc/simulate")));
    }
}
