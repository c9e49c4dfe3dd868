//! Which of the logs found to read: the period (`--since DATE`, `--last 30d`) and the
//! project (`--project NAME`).
//!
//! The period is judged by each file's last write (its modification time): a session
//! file written on or after the start had activity in the period. Cheap (no file is
//! opened), and what a user means by "my sessions of the last month"; a session that
//! began before the start and went on after it is read whole.

use super::paths::Root;
use crate::error::Located;
use crate::import::Format;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// What to read of the logs found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Files last written before this are left out.
    pub since: Option<SystemTime>,
    /// How the period was given, for messages (`since 2026-11-01`, `the last 30 days`).
    pub period: Option<String>,
    /// Only the sessions of this project (its readable name, or Claude Code's folder name).
    pub project: Option<String>,
}

/// `--since DATE`: a day (`2026-11-01`, from 00:00 UTC) or an RFC 3339 time.
pub fn since(text: &str) -> Result<(SystemTime, String), Located> {
    let err = || {
        Located::new(
            "command line",
            format!(
                "`{text}` is not a date: give YYYY-MM-DD (from 00:00 UTC), e.g. --since 2026-11-01"
            ),
        )
        .place("--since")
    };
    let t = text.trim();
    let ts = if t.parse::<jiff::civil::Date>().is_ok() {
        format!("{t}T00:00:00Z")
            .parse::<jiff::Timestamp>()
            .map_err(|_| err())?
    } else {
        t.parse::<jiff::Timestamp>().map_err(|_| err())?
    };
    // Before 1970 no log was written: the epoch is as good a start.
    let secs = u64::try_from(ts.as_second()).unwrap_or(0);
    let start = SystemTime::UNIX_EPOCH + Duration::new(secs, ts.subsec_nanosecond().max(0) as u32);
    Ok((start, format!("since {t}")))
}

/// `--last N{h,d,w}`: the period ending now.
pub fn last(text: &str, now: SystemTime) -> Result<(SystemTime, String), Located> {
    let err = || {
        Located::new(
            "command line",
            format!("`{text}` is not a period: give a whole number and a unit, h (hours), d (days) or w (weeks), e.g. --last 30d"),
        )
        .place("--last")
    };
    let t = text.trim();
    let (number, unit) = t.split_at(t.len().saturating_sub(1));
    let n: u64 = number.parse().map_err(|_| err())?;
    let (hours, word) = match unit {
        "h" => (n, "hour"),
        "d" => (n * 24, "day"),
        "w" => (n * 24 * 7, "week"),
        _ => return Err(err()),
    };
    if n == 0 || n > 100_000 {
        return Err(err());
    }
    let start = now
        .checked_sub(Duration::from_secs(hours * 3600))
        .ok_or_else(err)?;
    let said = if n == 1 {
        format!("the last {word}")
    } else {
        format!("the last {n} {word}s")
    };
    Ok((start, said))
}

/// The logs of one root that pass the filter, and how many did not.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    pub root: Root,
    /// Sorted by path.
    pub files: Vec<PathBuf>,
    pub outside_period: usize,
    pub other_projects: usize,
}

/// Every log under `root` its reader accepts, filtered.
pub fn select(root: &Root, filter: &Filter) -> Selected {
    let reader = root.format.reader();
    let mut files = Vec::new();
    let (mut outside_period, mut other_projects) = (0, 0);
    for entry in walkdir::WalkDir::new(&root.dir)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        // An unreadable entry is the import's to report, when it is a log; here it is
        // simply not among the files.
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if entry.file_type().is_dir() || !reader.is_log(path) {
            continue;
        }
        if let Some(since) = filter.since {
            let written = entry.metadata().ok().and_then(|m| m.modified().ok());
            if written.is_some_and(|w| w < since) {
                outside_period += 1;
                continue;
            }
        }
        if let Some(name) = &filter.project
            && !project_names(root, path).iter().any(|p| p == name)
        {
            other_projects += 1;
            continue;
        }
        files.push(path.to_path_buf());
    }
    Selected {
        root: root.clone(),
        files,
        outside_period,
        other_projects,
    }
}

/// The names a log's project goes by: the last component of the working directory the
/// log records (`cwd`, or Codex's `payload.cwd`), and for Claude Code the project folder
/// (`-home-me-shop`) too.
pub fn project_names(root: &Root, path: &Path) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(cwd) = recorded_cwd(path)
        && let Some(last) = Path::new(&cwd).file_name()
    {
        names.push(last.to_string_lossy().into_owned());
    }
    if root.format == Format::ClaudeCode
        && let Ok(rest) = path.strip_prefix(&root.dir)
        && let Some(folder) = rest.components().next()
        && rest.components().count() > 1
    {
        names.push(folder.as_os_str().to_string_lossy().into_owned());
    }
    names
}

/// The first working directory among a log's first lines.
fn recorded_cwd(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    // A transcript names its cwd on its first message lines; 64 lines is past the
    // summaries and snapshots some versions write first.
    BufReader::new(file)
        .lines()
        .take(64)
        .map_while(Result::ok)
        .filter(|l| l.contains("\"cwd\""))
        .find_map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l).ok()?;
            v.get("cwd")
                .or_else(|| v.get("payload").and_then(|p| p.get("cwd")))
                .and_then(|c| c.as_str())
                .filter(|c| !c.is_empty())
                .map(String::from)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_parse_and_bad_ones_say_what_is_valid() {
        let (t, said) = since("2026-11-01").unwrap();
        assert_eq!(
            t,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_793_491_200)
        );
        assert_eq!(said, "since 2026-11-01");
        assert!(since("2026-11-01T12:00:00Z").is_ok());
        let e = since("yesterday").unwrap_err();
        assert!(e.to_string().contains("give YYYY-MM-DD"), "{e}");
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10_000_000);
        let (t, said) = last("30d", now).unwrap();
        assert_eq!(
            now.duration_since(t).unwrap(),
            Duration::from_secs(30 * 86_400)
        );
        assert_eq!(said, "the last 30 days");
        assert_eq!(last("1w", now).unwrap().1, "the last week");
        assert_eq!(
            now.duration_since(last("12h", now).unwrap().0).unwrap(),
            Duration::from_secs(12 * 3600)
        );
        for bad in ["30", "d", "0d", "3m", "-1d", "1.5d"] {
            let e = last(bad, now).unwrap_err();
            assert!(e.to_string().contains("e.g. --last 30d"), "{bad}: {e}");
        }
    }
}
