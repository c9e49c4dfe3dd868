//! What a command does, from validated configuration to printed results.
//!
//! Order matters for the user: read and check every input first (bad input fails before
//! anything is written), prepare the output directory (a bad path fails before the long
//! work), compute, write every file under a temporary name, rename them together, and
//! print last.

use crate::error::Error;
use crate::evaluate::{Study, evaluate};
use crate::ledger::Assumptions;
use crate::output::csv::SweepCsv;
use crate::output::{self, OutputDir};
use crate::report::{self, Report, Sources, SweepReport};
use crate::run::Run;
use crate::scenario;
pub use crate::sweep::SweepOverrides;
use crate::sweep::{self, Grid, SweepOptions};
use crate::timeline::Walker;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// What to print on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    /// `summary.csv` on stdout.
    Csv,
}

/// `simulate SCENARIO.toml`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    pub scenario: PathBuf,
    /// Results go to `out_root/<name>/`; None: write no files (`--no-write`, `--out -`).
    pub out_root: Option<PathBuf>,
    /// An edits file whose `[[edit]]` tables replace the scenario's.
    pub edits: Option<PathBuf>,
    /// Overrides the scenario's B.
    pub base_tokens: Option<f64>,
    /// Overrides the scenario's ρ.
    pub bytes_per_token: Option<f64>,
    pub format: Format,
    /// Draw SVG charts and the HTML report.
    pub charts: bool,
    pub sweep: SweepOverrides,
    /// Use closed forms in the sweep where they hold (default true).
    pub closed_form: bool,
}

/// `simulate ledger RUN.tsv`.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerConfig {
    pub trace: PathBuf,
    pub base_tokens: f64,
    pub bytes_per_token: f64,
    pub format: Format,
}

/// A validated command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Run(RunConfig),
    Ledger(LedgerConfig),
    Fit(crate::fit_command::FitConfig),
    /// `simulate import FORMAT PATH… --out DIR`.
    Import(crate::import::ImportConfig),
    /// `simulate history DIR --edits EDITS.toml`.
    History(crate::history_command::HistoryConfig),
}

/// Runs `command`, printing to `out`.
pub fn run(command: &Command, out: &mut dyn Write) -> Result<(), Error> {
    match command {
        Command::Run(c) => run_scenario(c, out),
        Command::Ledger(c) => run_ledger(c, out),
        Command::Fit(c) => crate::fit_command::run(c, out),
        Command::Import(c) => crate::import::run(c, out),
        Command::History(c) => crate::history_command::run(c, out),
    }
}

fn run_scenario(c: &RunConfig, out: &mut dyn Write) -> Result<(), Error> {
    let mut scenario = scenario::load(&c.scenario)?;
    if let Some(edits) = &c.edits {
        scenario = scenario.with_edits(scenario::load_edits(edits)?, &edits.display().to_string());
    }
    let study = Study::new(&scenario)?;
    let at = Assumptions {
        base_tokens: c.base_tokens.unwrap_or(scenario.base_tokens),
        bytes_per_token: c.bytes_per_token.unwrap_or(scenario.bytes_per_token),
    };
    let nominal_point = study.nominal(at);
    let grid = Grid::new(&scenario, &nominal_point, &c.sweep)?;
    study.check_bases(&grid_corners(&grid, at))?;
    // A bad output path fails here, before the long work.
    let mut dir = match &c.out_root {
        Some(root) => Some(OutputDir::prepare(root, &scenario.name)?),
        None => None,
    };
    let sources = Sources::of(
        &scenario,
        c.base_tokens.is_some(),
        c.bytes_per_token.is_some(),
    );
    let nominal = evaluate(&study, nominal_point);
    let options = SweepOptions {
        closed_form: c.closed_form,
        progress: true,
    };
    let mut slice = output::charts::SliceCollector::new(&grid);
    let swept = match dir.as_mut() {
        Some(dir) => {
            let mut swept = None;
            dir.write("sweep.csv", |w| {
                let names = study.edited.iter().map(|s| s.name.clone()).collect();
                let mut csv =
                    SweepCsv::new(w, scenario.cache.is_some(), study.baseline.run.len(), names)?;
                let mut sinks: [&mut dyn sweep::PointSink; 2] = [&mut csv, &mut slice];
                swept = Some(sweep::run(
                    &study,
                    &grid,
                    &nominal_point,
                    options,
                    &mut sinks,
                )?);
                csv.finish()
            })?;
            swept
        }
        None => {
            let mut sinks: [&mut dyn sweep::PointSink; 0] = [];
            Some(
                sweep::run(&study, &grid, &nominal_point, options, &mut sinks)
                    .map_err(Error::Print)?,
            )
        }
    };
    let slice = slice.cells.unwrap_or_default();
    let sweep_report = swept
        .as_ref()
        .map(|s| SweepReport::new(&study, s, c.closed_form));
    let report = Report::new(&study, &nominal, sources, sweep_report);
    let files = match dir {
        Some(mut dir) => {
            dir.write("summary.csv", |w| output::csv::write_summary(w, &report))?;
            dir.write("by_tool.csv", |w| output::csv::write_by_tool(w, &report))?;
            dir.write("ledger.csv", |w| {
                output::ledger_csv::write_ledger(w, &study, &nominal)
            })?;
            if c.charts {
                let swept_slice = swept.as_ref().filter(|_| !slice.is_empty());
                let input = output::charts::input(
                    &study,
                    &nominal,
                    swept_slice.map(|sw| (sw, slice.as_slice())),
                    &report,
                );
                let cost_map = match (swept_slice, &scenario.cache) {
                    (Some(sw), Some(_)) => output::charts::ranking_map(sw, &slice, at, true),
                    _ => None,
                };
                let charts = output::charts::draw(&input, cost_map.as_ref())?;
                drop(input);
                for (name, svg) in &charts {
                    dir.write(name, |w| w.write_all(svg.as_bytes()))?;
                }
                dir.write("report.html", |w| output::html::write(w, &report, &charts))?;
            }
            dir.commit()?
        }
        None => Vec::new(),
    };
    match c.format {
        Format::Table => output::table::write(out, &report, &files),
        Format::Json => output::json::write(out, &report),
        Format::Csv => output::csv::write_summary(out, &report),
    }
    .map_err(Error::Print)
}

/// The nominal point and the four (B, ρ) corners of the grid.
fn grid_corners(grid: &Grid, nominal: Assumptions) -> Vec<Assumptions> {
    let mut points = vec![nominal];
    for &b in [grid.base_tokens.first(), grid.base_tokens.last()]
        .iter()
        .flatten()
    {
        for &r in [grid.bytes_per_token.first(), grid.bytes_per_token.last()]
            .iter()
            .flatten()
        {
            points.push(Assumptions {
                base_tokens: *b,
                bytes_per_token: *r,
            });
        }
    }
    points
}

/// The `ledger` subcommand's report.
#[derive(Serialize)]
struct LedgerReport<'a> {
    trace: String,
    unit: String,
    base_tokens: f64,
    bytes_per_token: f64,
    sources: Sources,
    total_tokens: f64,
    calls: usize,
    average_call_tokens: f64,
    rows: Vec<LedgerLine<'a>>,
}

#[derive(Serialize)]
struct LedgerLine<'a> {
    call: &'a str,
    label: &'a str,
    bytes: f64,
    context_tokens: f64,
    cumulative_tokens: f64,
}

fn run_ledger(c: &LedgerConfig, out: &mut dyn Write) -> Result<(), Error> {
    let calls = scenario::read_tsv(&c.trace)?;
    let run = Run::baseline(&calls);
    let at = Assumptions {
        base_tokens: c.base_tokens,
        bytes_per_token: c.bytes_per_token,
    };
    let mut walker = Walker::<f64>::new(None, at, 0.0);
    let rows: Vec<LedgerLine> = calls
        .iter()
        .zip(run.iter())
        .map(|(call, slot)| {
            let figures = walker.step(&slot, call.gap_s, None);
            LedgerLine {
                call: &call.id,
                label: &call.label,
                bytes: call.bytes,
                context_tokens: figures.context,
                cumulative_tokens: walker.sums().context,
            }
        })
        .collect();
    let total = rows.last().map_or(0.0, |r| r.cumulative_tokens);
    let report = LedgerReport {
        trace: c.trace.display().to_string(),
        unit: report::unit(at.bytes_per_token),
        base_tokens: at.base_tokens,
        bytes_per_token: at.bytes_per_token,
        sources: Sources {
            base_tokens: "assumed (--base, default 30000)".into(),
            bytes_per_token: "assumed (--bpt, default 3.3)".into(),
        },
        total_tokens: total,
        calls: rows.len(),
        average_call_tokens: total / rows.len() as f64,
        rows,
    };
    match c.format {
        Format::Json => output::json::write(out, &report),
        // The ledger's flag offers table and json only.
        Format::Table | Format::Csv => ledger_table(out, &report),
    }
    .map_err(Error::Print)
}

fn ledger_table(out: &mut dyn Write, r: &LedgerReport) -> std::io::Result<()> {
    use output::number::grouped;
    writeln!(
        out,
        "{}: {} calls; B = {} ({}), ρ = {} ({}); unit: {}",
        r.trace,
        r.calls,
        grouped(r.base_tokens, 0),
        r.sources.base_tokens,
        r.bytes_per_token,
        r.sources.bytes_per_token,
        r.unit
    )?;
    let label_width = r
        .rows
        .iter()
        .map(|l| l.label.chars().count())
        .max()
        .unwrap_or(5)
        .clamp(5, 40);
    writeln!(
        out,
        "{:>6}  {:<label_width$}  {:>12}  {:>12}  {:>14}",
        "call", "label", "bytes", "context", "cumulative"
    )?;
    for l in &r.rows {
        let label: String = l.label.chars().take(label_width).collect();
        writeln!(
            out,
            "{:>6}  {:<label_width$}  {:>12}  {:>12}  {:>14}",
            l.call,
            label,
            grouped(l.bytes, 0),
            grouped(l.context_tokens, 0),
            grouped(l.cumulative_tokens, 0)
        )?;
    }
    writeln!(
        out,
        "reread total: {} est. tokens over {} calls; average call {} est. tokens",
        grouped(r.total_tokens, 0),
        r.calls,
        grouped(r.average_call_tokens, 0)
    )
}
