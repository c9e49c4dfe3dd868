//! `simulate fit SCENARIO.toml`: fit B and ρ to a scenario's measured usage, print the fit,
//! and with `--write` make the fitted values the scenario's nominal point.

use crate::app::Format;
use crate::error::{Error, Located};
use crate::fit::{self, Fit};
use crate::output::number::{decimal, grouped, plural};
use crate::scenario::{self, Fitted};
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
    /// Whether the values were written into the scenario file.
    written: bool,
    /// `[sweep]` axes removed so the default grid centres on the fitted values.
    removed_sweep_axes: Vec<String>,
    /// What the fitted values are labelled with in the file.
    source: String,
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
    let source = format!(
        "fitted (simulate fit: R² = {:.3} on {} of {}, {date})",
        f.r_squared,
        f.calls_used,
        plural(s.calls.len(), "call", "calls")
    );
    let mut written = false;
    let mut removed = Vec::new();
    if c.write && (f.poor.is_none() || c.force) {
        let fitted = Fitted {
            base_tokens: f.base_tokens,
            bytes_per_token: f.bytes_per_token,
            source: source.clone(),
        };
        let (new_text, changes) = scenario::write_fitted(&text, &file, &fitted)?;
        // The new file must still be a valid scenario before it replaces the old one.
        scenario::load_str(&new_text, &c.scenario)?;
        replace(&c.scenario, &new_text)?;
        written = true;
        removed = changes.removed_sweep_axes;
    }
    let report = FitReport {
        scenario: file,
        fit: &f,
        written,
        removed_sweep_axes: removed,
        source,
    };
    match c.format {
        Format::Json => crate::output::json::write(out, &report),
        Format::Table => table(out, &report, c),
    }
    .map_err(Error::Print)?;
    // Asked to write and refused: a script must not go on as if the values were in.
    match (&f.poor, c.write && !written) {
        (Some(why), true) => Err(Located::new(
            report.scenario,
            format!("not written: the fit is poor ({why}); write it anyway with --write --force"),
        )
        .into()),
        _ => Ok(()),
    }
}

/// Replaces the scenario with `text` through the output sets: whole or not at all, keeping
/// the file's mode, and through a symbolic link into the file it points to.
fn replace(path: &Path, text: &str) -> Result<(), Error> {
    crate::output::set::replace_file(path, text.as_bytes())
}

fn table(out: &mut dyn Write, r: &FitReport, c: &FitConfig) -> std::io::Result<()> {
    let f = r.fit;
    writeln!(
        out,
        "{}: least-squares fit of measured total input against the bytes in the context",
        r.scenario
    )?;
    writeln!(
        out,
        "  base tokens B     {:>10}   (intercept)",
        grouped(f.base_tokens, 0)
    )?;
    writeln!(
        out,
        "  bytes/token ρ     {:>10}   (1 / slope)",
        decimal(f.bytes_per_token)
    )?;
    writeln!(out, "  R²                {:>10.4}", f.r_squared)?;
    writeln!(
        out,
        "  residuals         measured − fitted: median of the absolute values {} tokens ({:.1} %)",
        grouped(f.median_residual_tokens, 0),
        f.median_residual_pct
    )?;
    if let Some(w) = &f.worst_residual {
        writeln!(
            out,
            "                    worst {} tokens ({:+.1} %) at call {} ({})",
            grouped(w.tokens, 0),
            w.percent,
            w.call,
            w.id
        )?;
    }
    writeln!(
        out,
        "  calls             {} used, {} left out; unit: {}",
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
        for axis in &r.removed_sweep_axes {
            writeln!(
                out,
                "Removed {axis} so the default sweep centres on the fitted values."
            )?;
        }
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
