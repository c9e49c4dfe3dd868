//! `simulate`: which change to an LLM agent's context saves the most, and does that answer
//! hold if the assumptions are off?
//!
//! The engine is this library; the `simulate` binary only parses arguments (`cli`), calls
//! [`app::run`] and maps errors to exit codes (see [`error::Error::exit_code`]).

pub mod app;
pub mod cache;
pub mod chart;
pub mod clear;
pub mod cli;
pub mod compact;
pub mod edit;
pub mod error;
pub mod evaluate;
pub mod finite;
pub mod fit;
pub mod fit_command;
pub mod history;
pub mod history_command;
pub mod import;
pub mod input;
pub mod ledger;
pub mod ledger_command;
pub mod output;
pub mod point;
pub mod printable;
pub mod rank;
pub mod report;
pub mod run;
pub mod scenario;
pub mod suggest;
pub mod suggest_command;
pub mod sweep;
pub mod telemetry;
pub mod timeline;
pub mod whatif;

pub use error::Error;
