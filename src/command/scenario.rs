//! `simulate SCENARIO.toml`: the main job, from validated configuration to printed results.
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
use crate::report::{Report, Sources, SweepReport};
use crate::scenario;
pub use crate::sweep::SweepOverrides;
use crate::sweep::{self, Grid, SweepOptions};
use std::io::Write;
use std::path::PathBuf;

/// What `simulate SCENARIO.toml` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunFormat {
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
    pub format: RunFormat,
    /// Draw SVG charts and the HTML report.
    pub charts: bool,
    /// Write `ledger.csv` however long (`--ledger-csv`); by default only up to
    /// [`output::ledger_csv::DEFAULT_MAX_ROWS`] rows.
    pub ledger_csv: bool,
    pub sweep: SweepOverrides,
    /// Use closed forms in the sweep where they hold (default true).
    pub closed_form: bool,
}

/// Runs `simulate SCENARIO.toml`, printing to `out`.
pub fn run(c: &RunConfig, out: &mut dyn Write) -> Result<(), Error> {
    // An agent log given as the scenario: say which, and the import that reads it.
    let mut scenario = scenario::load(&c.scenario)
        .map_err(|e| crate::import::sniff::not_a_scenario(&c.scenario).map_or(e, Error::from))?;
    if let Some(edits) = &c.edits {
        let file = edits.display().to_string();
        let set = scenario::load_edits(edits)?;
        scenario = scenario
            .with_edits(set.edits, &file)
            .with_parts(&set.parts, &file);
    }
    // Another provider's mechanism on these calls: an error at the edit's key.
    scenario::provider::check(&scenario)?;
    let study = Study::new(&scenario)?;
    let at = Assumptions {
        base_tokens: c.base_tokens.unwrap_or(scenario.base_tokens),
        bytes_per_token: c.bytes_per_token.unwrap_or(scenario.bytes_per_token),
    };
    let nominal_point = study.nominal(at);
    let grid = Grid::new(&scenario, &nominal_point, &c.sweep)?;
    let corners = grid_corners(&grid, at);
    study.check_bases(&corners)?;
    crate::refuse::compaction_triggers(&study, &corners)?;
    // A bad output path fails here, before the long work.
    let mut dir = match &c.out_root {
        Some(root) => Some(OutputDir::prepare(root, &scenario.name, &scenario.inputs)?),
        None => None,
    };
    let sources = Sources::of(
        &scenario,
        c.base_tokens.is_some(),
        c.bytes_per_token.is_some(),
    );
    // The split by tool is a pass over every call of the baseline: a long run computes it
    // beside the nominal walks.
    let shares = || crate::report::by_tool(&study, nominal_point.assumptions());
    let (nominal, shares) = match study.walks_in_parallel() {
        true => rayon::join(|| evaluate(&study, nominal_point), shares),
        false => (evaluate(&study, nominal_point), shares()),
    };
    // Never inf or NaN in a file: a non-finite figure is a bug, stopped before any write.
    crate::evaluate::check_finite(&study, &nominal)?;
    let options = SweepOptions {
        closed_form: c.closed_form,
        progress: true,
    };
    let mut slice = output::charts::SliceCollector::new(&grid).at_refetch(nominal_point.refetch);
    // The sweep's totals the page's sliders interpolate for runs without a closed form.
    let mut samples = crate::report::LiveSamples::new(&grid, &nominal_point);
    let swept = match dir.as_mut() {
        Some(dir) => {
            let mut swept = None;
            dir.write("sweep.csv", |w| {
                let names = study.edited.iter().map(|s| s.name.clone()).collect();
                let mut csv =
                    SweepCsv::new(w, scenario.cache.is_some(), study.baseline.run.len(), names)?;
                let mut sinks: [&mut dyn sweep::PointSink; 3] =
                    [&mut csv, &mut slice, &mut samples];
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
                    .map_err(|e| non_finite(Error::Print(e)))?,
            )
        }
    };
    let slice = slice.cells.unwrap_or_default();
    let mut sweep_report = swept
        .as_ref()
        .map(|s| SweepReport::new(&study, s, c.closed_form));
    if let Some(s) = sweep_report.as_mut() {
        s.closed_forms.samples = samples.finish();
    }
    let mut report = Report::with_by_tool(&study, &nominal, sources, sweep_report, shares);
    report.warnings.extend(size_warnings(
        &study,
        &grid,
        study.edited.len(),
        c,
        slice.is_empty(),
    ));
    let files = match dir {
        Some(mut dir) => {
            dir.write("summary.csv", |w| output::csv::write_summary(w, &report))?;
            dir.write("by_tool.csv", |w| output::csv::write_by_tool(w, &report))?;
            if report.edits.iter().any(|e| e.what_if.is_some()) {
                dir.write("whatif.csv", |w| output::csv::write_whatif(w, &report))?;
            }
            if c.ledger_csv
                || output::ledger_csv::rows(&study) <= output::ledger_csv::DEFAULT_MAX_ROWS
            {
                dir.write("ledger.csv", |w| {
                    output::ledger_csv::write_ledger(w, &study, &nominal)
                })?;
            }
            if c.charts {
                let swept_slice = swept.as_ref().filter(|_| !slice.is_empty());
                let input = output::charts::input(
                    &study,
                    &nominal,
                    swept_slice.map(|sw| (sw, slice.as_slice())),
                    &report,
                );
                let mut charts = output::charts::draw(&input)?;
                drop(input);
                charts.extend(output::charts::by_tool(&report)?);
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
        RunFormat::Table => output::table::write(out, &report, &files),
        RunFormat::Json => output::json::write(out, &report),
        RunFormat::Csv => {
            // Standard output is the CSV another program reads: the warnings go to
            // standard error, so they reach the person without breaking the CSV.
            let mut stderr = std::io::stderr().lock();
            for w in &report.warnings {
                let _ = writeln!(stderr, "Warning: {w}");
            }
            output::csv::write_summary(out, &report)
        }
    }
    .map_err(Error::Print)
}

/// What a very large sweep leaves out or makes large, said before the user finds out:
/// `sweep.csv` of tens of millions of rows, and the charts of the (B, ρ) plane, which are
/// not drawn beyond `output::charts::MAX_SLICE` points.
fn size_warnings(
    study: &Study,
    grid: &Grid,
    edits: usize,
    c: &RunConfig,
    no_slice: bool,
) -> Vec<String> {
    use crate::number::grouped;
    let mut warnings = Vec::new();
    if c.out_root.is_none() {
        return warnings;
    }
    let ledger_rows = output::ledger_csv::rows(study);
    if !c.ledger_csv && ledger_rows > output::ledger_csv::DEFAULT_MAX_ROWS {
        warnings.push(format!(
            "ledger.csv is not written: it would hold {} rows (one per call of each of the {} runs, roughly {} GB); the summary, sweep and charts hold every figure the comparison needs; pass --ledger-csv to write it anyway",
            grouped(ledger_rows as f64, 0),
            study.edited.len() + 1,
            grouped(ledger_rows as f64 * 82.0 / 1e9, 1)
        ));
    }
    let rows = grid.len().saturating_mul(edits.max(1));
    if rows > 10_000_000 {
        warnings.push(format!(
            "sweep.csv holds {} rows ({} points × {} edits, roughly {} GB): sweep fewer values if you do not need every point",
            grouped(rows as f64, 0),
            grouped(grid.len() as f64, 0),
            edits,
            grouped(rows as f64 * 130.0 / 1e9, 1)
        ));
    }
    let [nb, nr, ..] = grid.dims();
    if c.charts && no_slice && edits > 0 {
        warnings.push(format!(
            "savings.svg and ranking.svg are not drawn: the B × ρ plane has {} points, more than the {} a chart draws; sweep fewer values of B or ρ to get them",
            grouped(nb.saturating_mul(nr) as f64, 0),
            grouped(output::charts::MAX_SLICE as f64, 0)
        ));
    }
    warnings
}

/// The sweep's guard against non-finite figures reaches here as an I/O error of the sink
/// it stopped; give it back its own kind (exit 1, a bug) instead of "writing failed".
fn non_finite(e: Error) -> Error {
    let source = match &e {
        Error::Write { source, .. } | Error::Print(source) => source,
        _ => return e,
    };
    match source
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<crate::finite::NonFinite>())
    {
        Some(bad) => Error::NonFinite(bad.clone()),
        None => e,
    }
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
