//! Your own logs, with no path: `simulate suggest`, `simulate history --edits E` and
//! `simulate import --out DIR` read the logs where Claude Code and Codex CLI keep them
//! (`crate::local`), say which they read, and import them (as `simulate import … --fit`
//! would) into simulate's cache folder, reused while no log changed.

use super::import::{self, ImportConfig};
use crate::error::{Error, Located};
use crate::import::Format;
use crate::local::{self, Env, Filter, Selected, cache};
use std::io::Write;
use std::path::PathBuf;

/// Which of the user's own logs to read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalConfig {
    pub filter: Filter,
    /// Only this agent's logs (`simulate import claude-code --out DIR`); None: every agent.
    pub format: Option<Format>,
}

/// The scenarios of the user's logs, and what to tell them about where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The cache folder holding the scenarios (a folder per agent in it).
    pub dir: PathBuf,
    /// Sentences for the user: which logs were read, which left out, where the scenarios
    /// are and whether they were imported now.
    pub said: Vec<String>,
    /// The agents whose scenarios are in `dir`.
    pub formats: Vec<Format>,
}

/// The logs `c` selects on this machine, by agent, with the sentences that say so.
///
/// Errors (exit 2): `CLAUDE_CONFIG_DIR` naming no Claude folder; no agent's logs found, or
/// none left by the filter — each saying where it looked and what to do.
pub fn find(c: &LocalConfig, env: &Env) -> Result<(Vec<Selected>, Vec<String>), Error> {
    let roots: Vec<local::Root> = local::paths::roots(env)?
        .into_iter()
        .filter(|r| c.format.is_none_or(|f| f == r.format))
        .collect();
    if roots.is_empty() {
        return Err(Located::new(
            "your agent logs",
            format!(
                "none found: looked for {} (set {} where yours are elsewhere); or give the logs' folder yourself, e.g. `simulate import claude-code DIR --out sessions --fit`, then `simulate suggest sessions`",
                looked_in(c.format),
                match c.format {
                    Some(Format::ClaudeCode) => "CLAUDE_CONFIG_DIR",
                    Some(Format::Codex) => "CODEX_HOME",
                    _ => "CLAUDE_CONFIG_DIR or CODEX_HOME",
                }
            ),
        )
        .into());
    }
    let selected: Vec<Selected> = roots
        .iter()
        .map(|r| local::select::select(r, &c.filter))
        .collect();
    let mut said = Vec::new();
    for s in &selected {
        let mut left = Vec::new();
        if s.outside_period > 0 {
            left.push(format!(
                "{} outside {}",
                crate::number::plural(s.outside_period, "file", "files"),
                c.filter.period.as_deref().unwrap_or("the period")
            ));
        }
        if s.other_projects > 0 {
            left.push(format!(
                "{} of other projects than {}",
                crate::number::plural(s.other_projects, "file", "files"),
                c.filter.project.as_deref().unwrap_or("")
            ));
        }
        let from = if s.root.from == "default" {
            String::new()
        } else {
            format!(", from {}", s.root.from)
        };
        said.push(format!(
            "Read {} logs in {}{from}: {}{}",
            s.root.format.reader().product(),
            env.shown(&s.root.dir),
            crate::number::plural(s.files.len(), "file", "files"),
            if left.is_empty() {
                String::new()
            } else {
                format!(" (left out: {})", left.join("; "))
            }
        ));
    }
    for format in [Format::ClaudeCode, Format::Codex] {
        if c.format.is_none_or(|f| f == format) && !roots.iter().any(|r| r.format == format) {
            said.push(format!(
                "No {} logs here (looked for {})",
                format.reader().product(),
                looked_in(Some(format))
            ));
        }
    }
    if selected.iter().all(|s| s.files.is_empty()) {
        return Err(Located::new(
            "your agent logs",
            format!(
                "no log left to read: {} (widen --since/--last, or check --project's name: a project is named by the last folder of its working directory, or by Claude Code's folder under projects/)",
                said.join("; ")
            ),
        )
        .into());
    }
    Ok((selected, said))
}

/// Where the logs are looked for, for messages.
fn looked_in(format: Option<Format>) -> &'static str {
    match format {
        Some(Format::ClaudeCode) => {
            "~/.claude/projects, ~/.config/claude/projects and CLAUDE_CONFIG_DIR's folders"
        }
        Some(Format::Codex) => "~/.codex/sessions and CODEX_HOME's",
        _ => {
            "~/.claude/projects, ~/.config/claude/projects, CLAUDE_CONFIG_DIR's folders, ~/.codex/sessions and CODEX_HOME's"
        }
    }
}

/// Finds the user's logs and imports them, fitted, into the cache folder (or reuses it).
///
/// Errors: as [`find`]; no cache folder (neither `XDG_CACHE_HOME` nor `HOME` set), or
/// one inside the logs (exit 2); the import's own errors.
pub fn import_cached(c: &LocalConfig, env: &Env) -> Result<Imported, Error> {
    let (selected, mut said) = find(c, env)?;
    let cache_root = env.cache_dir().ok_or_else(|| {
        Located::new(
            "cache folder",
            "neither XDG_CACHE_HOME nor HOME is set: set one, or import the logs yourself with `simulate import FORMAT DIR --out DIR --fit`",
        )
    })?;
    let roots: Vec<&std::path::Path> = selected.iter().map(|s| s.root.dir.as_path()).collect();
    cache::check_apart(&cache_root, &roots)?;
    let plan = cache::plan(&cache_root, &selected);
    let formats: Vec<Format> = [Format::ClaudeCode, Format::Codex]
        .into_iter()
        .filter(|f| {
            selected
                .iter()
                .any(|s| s.root.format == *f && !s.files.is_empty())
        })
        .collect();
    let shown = env.shown(&plan.dir);
    if plan.reuse {
        said.push(format!(
            "Scenarios: {shown} (reused: no log changed since they were imported and fitted; nothing imported)"
        ));
        // What the import could not read is said again on every reuse: it is still left out.
        if let Ok(note) = std::fs::read_to_string(plan.dir.join(cache::NOT_READ)) {
            said.extend(note.lines().map(String::from));
        }
    } else {
        let mut not_read = Vec::new();
        for &format in &formats {
            let paths: Vec<PathBuf> = selected
                .iter()
                .filter(|s| s.root.format == format)
                .flat_map(|s| s.files.iter().cloned())
                .collect();
            let config = ImportConfig {
                format,
                paths,
                out: plan.dir.join(format.reader().format()),
                output: crate::output::Format::Table,
                // The folder is simulate's own: a scenario from an earlier, stopped run is
                // replaced.
                force: true,
                fit: true,
            };
            // The import's own summary is long; what matters is said below, with every
            // file it could not read.
            not_read.extend(import::run_listing(&config, &mut std::io::sink())?);
        }
        let note = not_read_note(&not_read, env);
        cache::finish(&plan, &note)?;
        said.push(format!(
            "Scenarios: imported and fitted into {shown} (simulate's cache: reused while no log changes; never written into the logs' folders)"
        ));
        said.extend(note.lines().map(String::from));
    }
    Ok(Imported {
        dir: plan.dir,
        said,
        formats,
    })
}

/// `Not read: 2 logs (~/.claude/projects/p/a.jsonl: Permission denied; …); the rest was
/// imported`, the files named (at most 5), or nothing when every log was read.
fn not_read_note(not_read: &[crate::import::files::Unreadable], env: &Env) -> String {
    if not_read.is_empty() {
        return String::new();
    }
    let named: Vec<String> = not_read
        .iter()
        .take(5)
        .map(|u| {
            format!(
                "{}: {}",
                crate::printable::printable(&env.shown(std::path::Path::new(&u.file))),
                crate::printable::printable(&u.reason)
            )
        })
        .collect();
    let more = not_read.len().saturating_sub(named.len());
    format!(
        "Not read: {} ({}{}); the rest was imported\n",
        crate::number::plural(not_read.len(), "log", "logs"),
        named.join("; "),
        if more > 0 {
            format!("; and {more} more: `simulate import` lists them")
        } else {
            String::new()
        }
    )
}

/// `simulate import [FORMAT] --out DIR` with no path: the user's own logs, each agent's
/// into `DIR/<format>/`, with each import's summary.
pub fn import_into(
    c: &LocalConfig,
    out_dir: &std::path::Path,
    fit: bool,
    force: bool,
    output: crate::output::Format,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let env = Env::from_process();
    let (selected, said) = find(c, &env)?;
    tell(&said, output, out)?;
    for format in [Format::ClaudeCode, Format::Codex] {
        let paths: Vec<PathBuf> = selected
            .iter()
            .filter(|s| s.root.format == format)
            .flat_map(|s| s.files.iter().cloned())
            .collect();
        if paths.is_empty() {
            continue;
        }
        let config = ImportConfig {
            format,
            paths,
            out: out_dir.join(format.reader().format()),
            output,
            force,
            fit,
        };
        import::run(&config, out)?;
    }
    Ok(())
}

/// Prints `said` before a table, or on stderr beside JSON (stdout stays one document).
pub fn tell(
    said: &[String],
    format: crate::output::Format,
    out: &mut dyn Write,
) -> Result<(), Error> {
    for line in said {
        match format {
            crate::output::Format::Table => writeln!(out, "{line}").map_err(Error::Print)?,
            crate::output::Format::Json => eprintln!("{line}"),
        }
    }
    if format == crate::output::Format::Table && !said.is_empty() {
        writeln!(out).map_err(Error::Print)?;
    }
    Ok(())
}
