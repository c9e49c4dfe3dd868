//! The subcommands, one file each, each thin over the engine: from a validated
//! configuration (`crate::cli` builds it) to files written and results printed.
//!
//! Commands sit on top of everything else: they read inputs, build the study, evaluate it
//! and hand the report to the outputs. Nothing below imports from here.

pub mod context;
pub mod fit;
pub mod history;
pub mod import;
pub mod ledger;
pub mod local;
pub mod scenario;
pub mod suggest;
pub mod suggest_shard;
pub mod telemetry;

use crate::error::Error;
use std::io::Write;

/// A validated command.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `simulate SCENARIO.toml`.
    Run(scenario::RunConfig),
    /// `simulate ledger TRACE`.
    Ledger(ledger::LedgerConfig),
    /// `simulate fit SCENARIO.toml`.
    Fit(fit::FitConfig),
    /// `simulate import FORMAT PATH… --out DIR`.
    Import(import::ImportConfig),
    /// `simulate import context FILE --out DIR`.
    ImportContext(context::ContextConfig),
    /// `simulate import [FORMAT] --out DIR` with no path: the user's own logs.
    ImportLocal(ImportLocalConfig),
    /// `simulate telemetry FILE.jsonl --unit NAME`.
    Telemetry(telemetry::TelemetryConfig),
    /// `simulate history DIR --edits EDITS.toml`.
    History(history::HistoryConfig),
    /// `simulate suggest FILE|DIR`.
    Suggest(suggest::SuggestConfig),
}

/// `simulate import [FORMAT] --out DIR` with no path, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportLocalConfig {
    pub local: local::LocalConfig,
    /// Each agent's scenarios go to `out/<format>/`.
    pub out: std::path::PathBuf,
    pub fit: bool,
    pub force: bool,
    pub output: crate::output::Format,
}

/// Runs `command`, printing to `out`.
pub fn run(command: &Command, out: &mut dyn Write) -> Result<(), Error> {
    // The user's own prices join the price data before anything looks one up.
    crate::cache::user_prices::install_from_env()?;
    match command {
        Command::Run(c) => scenario::run(c, out),
        Command::Ledger(c) => ledger::run(c, out),
        Command::Fit(c) => fit::run(c, out),
        Command::Import(c) => import::run(c, out),
        Command::ImportContext(c) => context::run(c, out),
        Command::ImportLocal(c) => {
            local::import_into(&c.local, &c.out, c.fit, c.force, c.output, out)
        }
        Command::Telemetry(c) => telemetry::run(c, out),
        Command::History(c) => history::run(c, out),
        Command::Suggest(c) => match &c.split {
            Some(split) => {
                let done = suggest::in_pool(c.jobs, || suggest_shard::run(c, split))?;
                suggest_shard::print(c, &done, out)
            }
            None => suggest::run(c, out),
        },
    }
}
