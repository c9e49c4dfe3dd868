//! `simulate`: which change to an LLM agent's context saves the most, and does that answer
//! hold if the assumptions are off?
//!
//! The engine is this library; the `simulate` binary only parses arguments (`cli`), calls
//! [`command::run`] and maps errors to exit codes (see [`error::Error::exit_code`]).

pub mod behaviour;
pub mod cache;
pub mod chart;
pub mod clear;
pub mod cli;
pub mod command;
pub mod compact;
pub mod context_editing;
pub mod edit;
pub mod error;
pub mod evaluate;
pub mod finite;
pub mod fit;
pub mod history;
pub mod import;
pub mod input;
pub mod ledger;
pub mod local;
pub mod number;
pub mod output;
pub mod point;
pub mod pricing;
pub mod printable;
pub mod rank;
pub mod refetch;
pub mod refuse;
pub mod report;
pub mod run;
pub mod scenario;
pub mod suggest;
pub mod sweep;
pub mod telemetry;
pub mod timeline;
pub mod whatif;

pub use error::Error;
