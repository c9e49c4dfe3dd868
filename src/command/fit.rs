//! `simulate fit SCENARIO.toml`: fit B and ρ to a scenario's measured usage, print the fit,
//! and with `--write` make the fitted values the scenario's nominal point.

use crate::error::{Error, Located};
use crate::fit::{self, Fit};
use crate::number::{decimal, grouped, plural};
use crate::output::Format;
use crate::scenario;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `simulate fit`.
#[derive(Debug, Clone, PartialEq)]
pub struct FitConfig {
    pub scenario: PathBuf,
    pub format: Format,
    /// Write the fitted values into the scenario file.
    pub write: bool,
    /// Write even a poor fit.
    pub force: bool,
}

#[derive(Serialize)]
struct FitReport<'a> {
    scenario: String,
    #[serde(flatten)]
    fit: &'a Fit,
    /// Whether B, ρ and the named terms were written into the scenario file.
    written: bool,
    /// `[sweep]` axes removed so the default grid centres on the fitted values.
    removed_sweep_axes: Vec<String>,
    /// Whether `[cache] miss_share` was written.
    wrote_miss_share: bool,
    /// The `[cache]` keys written (`miss_share`, `warm_share`, `ttl_s`, `min_tokens`):
    /// written even when B and ρ are not, since they rest on the measured cache reads alone.
    cache_written: Vec<&'static str>,
    /// What the fitted values are labelled with in the file.
    source: String,
    /// Simulated against measured cost, percent, with the scenario's values as they were
    /// and with the fitted ones (whether or not written: B and ρ where they are not
    /// refused, and the cache terms); None without a measured cost.
    cost_difference_pct_before: Option<f64>,
    cost_difference_pct_after: Option<f64>,
}

/// Runs `simulate fit`.
pub fn run(c: &FitConfig, out: &mut dyn Write) -> Result<(), Error> {
    let text = scenario::read_scenario_text(&c.scenario)?;
    let s = scenario::load_str(&text, &c.scenario)?;
    let file = c.scenario.display().to_string();
    let f = fit::fit(&s).map_err(|e| Located::new(&file, e.to_string()))?;
    let date = jiff::tz::Offset::UTC
        .to_datetime(jiff::Timestamp::now())
        .date();
    let source = format!("fitted ({}, {date})", fit::summary(&f, s.calls.len()));
    // The cost against the measured one, before and with the fit (the fitted text is
    // made whether or not it is written).
    let before = crate::report::cost_difference_pct(&s);
    let fitted = fit::fitted_text(&text, &file, &f, &source, f.refused.is_none())?;
    let after = scenario::load_str(&fitted.0, &c.scenario)
        .ok()
        .and_then(|s| crate::report::cost_difference_pct(&s));
    // B and ρ go in unless refused, or poor without --force; the cache terms in any case.
    let with_base = f.refused.is_none() && (f.poor.is_none() || c.force);
    let mut changes = scenario::FittedChanges::default();
    if c.write {
        let new_text = fit::fitted_text(&text, &file, &f, &source, with_base)?;
        if new_text.1.any() {
            // The new file must still be a valid scenario before it replaces the old one.
            scenario::load_str(&new_text.0, &c.scenario)?;
            replace(&c.scenario, &text, &new_text.0)?;
            changes = new_text.1;
        }
    }
    let report = FitReport {
        scenario: file,
        fit: &f,
        written: changes.wrote_base,
        removed_sweep_axes: changes.removed_sweep_axes,
        wrote_miss_share: changes.wrote_miss_share,
        cache_written: changes.cache_keys,
        source,
        cost_difference_pct_before: before,
        cost_difference_pct_after: after,
    };
    match c.format {
        Format::Json => crate::output::json::write(out, &report),
        Format::Table => table(out, &report, c),
    }
    .map_err(Error::Print)?;
    // Asked to write and nothing went in: a script must not go on as if the values were.
    if c.write && !report.written && report.cache_written.is_empty() {
        let why = match (&f.refused, &f.poor) {
            (Some(refused), _) => format!(
                "not written: the fitted values cannot be used ({refused}); check the trace, or keep the assumed values"
            ),
            (None, Some(poor)) => format!(
                "not written: the fit is poor ({poor}); write it anyway with --write --force"
            ),
            (None, None) => "not written".to_string(),
        };
        return Err(Located::new(report.scenario, why).into());
    }
    Ok(())
}

/// Replaces the scenario with `text` through the output sets: whole or not at all, keeping
/// the file's mode, and through a symbolic link into the file it points to; `old` is the
/// text it replaces, whose byte-order mark and CRLF line ends the new text keeps.
///
/// Errors ([`Error::Input`], exit 2, nothing written): a read-only file (its mode says
/// "do not change me"); a file with other hard links (a replacement would leave the
/// other names with the old text); a folder where it cannot be written.
fn replace(path: &Path, old: &str, text: &str) -> Result<(), Error> {
    use std::os::unix::fs::MetadataExt;
    let file = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.permissions().readonly() {
        return Err(Located::new(
            file,
            "is read-only: nothing was written; make it writable (chmod u+w) to write the fit into it, or leave out --write",
        )
        .place("--write")
        .into());
    }
    if meta.nlink() > 1 {
        return Err(Located::new(
            file,
            format!(
                "has {} names (hard links): a rewritten file would leave the others with the old text, so nothing was written; fit a copy of its own (cp), or copy the fitted values in by hand",
                meta.nlink()
            ),
        )
        .place("--write")
        .into());
    }
    let text = same_form(old, text);
    crate::output::set::replace_file(path, text.as_bytes()).map_err(|e| match e {
        Error::Unwritable { path, source } => Located::new(
            path.display().to_string(),
            format!(
                "cannot write the fitted scenario here ({source}): nothing was written; make the file and its folder writable, or leave out --write"
            ),
        )
        .place("--write")
        .into(),
        other => other,
    })
}

/// `new` in the form of `old`: with its byte-order mark, and with CRLF line ends where
/// most of `old`'s lines end so (an editor on Windows keeps the file as it wrote it).
fn same_form(old: &str, new: &str) -> String {
    let body = new.strip_prefix('\u{feff}').unwrap_or(new);
    let mut out = String::with_capacity(new.len() + new.len() / 16 + 3);
    if old.starts_with('\u{feff}') {
        out.push('\u{feff}');
    }
    let crlf = old.matches("\r\n").count();
    if crlf == 0 || crlf * 2 < old.matches('\n').count() {
        out.push_str(body);
        return out;
    }
    let mut after_cr = false;
    for c in body.chars() {
        if c == '\n' && !after_cr {
            out.push('\r');
        }
        out.push(c);
        after_cr = c == '\r';
    }
    out
}

fn table(out: &mut dyn Write, r: &FitReport, c: &FitConfig) -> std::io::Result<()> {
    let f = r.fit;
    writeln!(
        out,
        "{}: least-squares fit of measured total input against what joined the context",
        r.scenario
    )?;
    writeln!(
        out,
        "  base tokens B       {:>10} ± {:<8} (intercept)",
        grouped(f.base_tokens, 0),
        grouped(f.base_tokens_standard_error, 0)
    )?;
    writeln!(
        out,
        "  bytes/token ρ       {:>10} ± {:<8} (1 / slope)",
        decimal(f.bytes_per_token),
        decimal(f.bytes_per_token_standard_error)
    )?;
    for t in &f.terms {
        writeln!(
            out,
            "  {:<19} {:>10} ± {:<8} ({} over {})",
            t.key,
            grouped(t.tokens, 0),
            grouped(t.standard_error, 0),
            t.term.describe(),
            grouped(t.units, 0)
        )?;
    }
    for t in &f.terms_not_fitted {
        writeln!(
            out,
            "  {:<19} not fitted: {}; {} used",
            t.key,
            t.reason,
            grouped(t.tokens_used, 0)
        )?;
    }
    writeln!(out, "  R²                  {:>10.4}", f.r_squared)?;
    writeln!(
        out,
        "  residuals           measured − fitted: median of the absolute values {} tokens ({:.1} %)",
        grouped(f.median_residual_tokens, 0),
        f.median_residual_pct
    )?;
    if let Some(w) = &f.worst_residual {
        writeln!(
            out,
            "                      worst {} tokens ({:+.1} %) at call {} ({})",
            grouped(w.tokens, 0),
            w.percent,
            w.call,
            w.id
        )?;
    }
    writeln!(
        out,
        "  calls               {} used, {} left out; unit: {}",
        f.calls_used, f.calls_left_out, f.unit
    )?;
    for l in f.left_out.iter().take(10) {
        writeln!(
            out,
            "    left out: call {} ({}): {}",
            l.call, l.id, l.reason
        )?;
    }
    if f.left_out.len() > 10 {
        writeln!(out, "    … and {} more", f.left_out.len() - 10)?;
    }
    if let Some(cache) = &f.cache {
        cache_lines(out, cache)?;
    }
    if let Some(b) = &f.breaks {
        crate::output::breaks::table(out, b)?;
    }
    if let Some(c) = &f.compaction {
        let pre = c.pre_tokens.map_or_else(String::new, |p| {
            format!(" at {} tokens", grouped(p as f64, 0))
        });
        let trigger = c
            .trigger
            .as_deref()
            .map_or_else(String::new, |t| format!(" ({t})"));
        let summary = match (c.summary_tokens, c.summary_bytes) {
            (Some(t), Some(b)) => format!(
                "; its summary of {} bytes is about {} tokens at the fitted ρ (summary_tokens of a compact edit for sessions like this)",
                grouped(b as f64, 0),
                grouped(t, 0)
            ),
            _ => String::new(),
        };
        writeln!(
            out,
            "  compaction          this trace starts after a compaction{trigger}{pre}: its first request read {} tokens{summary}",
            grouped(c.first_input_tokens, 0)
        )?;
    }
    if let (Some(b), Some(a)) = (r.cost_difference_pct_before, r.cost_difference_pct_after) {
        writeln!(
            out,
            "  cost vs measured    {b:+.1} % with the scenario's values, {a:+.1} % with the fitted ones (simulated against the provider's usage)"
        )?;
    }
    if let Some(p) = &f.refused {
        writeln!(out, "\nThese values cannot be used: {p}.")?;
    }
    if let Some(p) = &f.poor {
        writeln!(out, "\nThis is a poor fit: {p}.")?;
    }
    if let Some(caution) = &f.caution {
        writeln!(out, "\nCaution: {caution}.")?;
    }
    if r.written {
        writeln!(
            out,
            "\nWritten into {} as the nominal point, labelled \"{}\".",
            r.scenario, r.source
        )?;
        if !f.terms.is_empty() {
            let keys: Vec<&str> = f.terms.iter().map(|t| t.key).collect();
            writeln!(out, "Written into [terms]: {}.", keys.join(", "))?;
        }
    } else if !r.cache_written.is_empty() {
        let why = match (&f.refused, &f.poor) {
            (Some(_), _) => "they cannot be used (above), and --force does not change that",
            _ => "the fit is poor (above); write them too with --write --force",
        };
        writeln!(
            out,
            "\nB and ρ are not written: {why}. The scenario keeps its assumed B and ρ."
        )?;
    }
    if !r.cache_written.is_empty() {
        writeln!(
            out,
            "Written into [cache], labelled with their evidence: {}.",
            r.cache_written.join(", ")
        )?;
    } else if r.written && f.cache.is_some() {
        writeln!(
            out,
            "The cache terms are not written: the scenario has no [cache] table to hold them."
        )?;
    }
    for axis in &r.removed_sweep_axes {
        writeln!(
            out,
            "Removed {axis} so the default sweep centres on the fitted values."
        )?;
    }
    if r.written || !r.cache_written.is_empty() {
        return Ok(());
    }
    if f.refused.is_some() && c.write {
        writeln!(
            out,
            "\nNot written, and --force does not change that: the scenario keeps its assumed values."
        )?;
    } else if f.refused.is_some() {
        writeln!(
            out,
            "\n--write refuses these values: the scenario keeps its assumed ones."
        )?;
    } else if c.write {
        writeln!(
            out,
            "\nNot written: the fit is poor. Check the trace, or write it anyway with --force."
        )?;
    } else if f.poor.is_some() {
        writeln!(
            out,
            "\nTo use these values anyway: simulate fit {} --write --force",
            r.scenario
        )?;
    } else {
        writeln!(
            out,
            "\nTo use these values: simulate fit {} --write",
            r.scenario
        )?;
    }
    Ok(())
}

/// The cache terms fitted (docs/model.md §4): the miss share, the lifetime, the minimum
/// and the warm shared prefix, each with its evidence.
fn cache_lines(out: &mut dyn Write, cache: &fit::cache::CacheFit) -> std::io::Result<()> {
    writeln!(
        out,
        "  cache miss share μ  {:>10.3}   ({} of {} prefix tokens a perfect cache would read were written again)",
        cache.miss_share,
        grouped(cache.missed_tokens, 0),
        grouped(cache.prefix_tokens, 0)
    )?;
    writeln!(
        out,
        "                      of {} within the {} s TTL: {} read less than half of the previous input ({} nothing), {} only part of it",
        plural(cache.requests_compared, "request", "requests"),
        grouped(cache.ttl_s, 0),
        cache.missed_requests,
        cache.read_nothing,
        cache.partial_requests
    )?;
    let t = &cache.ttl;
    let evidence = match fit::written::ttl_evidence(cache) {
        Some(e) => format!("fitted: {e}"),
        None => {
            let cold = t.shortest_cold_pause_s.map_or_else(String::new, |s| {
                format!(
                    "; {} after a longer pause ({} s or more) read at most the warm prefix",
                    plural(t.cold_after_pause, "request", "requests"),
                    grouped(s, 0)
                )
            });
            format!(
                "the scenario's: no request read the previous input after a pause past it{cold}"
            )
        }
    };
    writeln!(
        out,
        "  cache lifetime      {:>8} s   ({evidence})",
        grouped(cache.ttl_s, 0)
    )?;
    if let Some(e) = fit::written::min_evidence(cache) {
        writeln!(
            out,
            "  cache minimum       {:>8} tokens   (fitted: {e})",
            grouped(cache.min_tokens.floor(), 0)
        )?;
    }
    if let Some(e) = fit::written::warm_evidence(cache) {
        writeln!(
            out,
            "  cache warm share    {:>10.3}   ({e})",
            cache.warm_share
        )?;
    }
    Ok(())
}
