//! Many sessions (docs/model.md §7): the same edits evaluated on every scenario of a set, and
//! whether their ranking holds across the sessions and across the assumptions.
//!
//! One set of agent sessions answers the question better than one run: a rule that saves a
//! lot on one long session may do nothing on the rest. So every session is evaluated at its
//! own nominal B and ρ (fitted or assumed, as its file says), the savings are summed, and
//! the spread of the per-session percentages is reported beside the sum.
//!
//! The parts: `files` finds and reads the scenarios (in parallel, one session per task),
//! `session` evaluates one scenario to plain figures (a record), `stream` writes each
//! record to a spill as it comes and gives them back in session order, `shard` reads the
//! records of shard outputs in session order, `pass` takes records in that order into
//! the per-session files and `accumulate` (the sums, `aggregate` the pure arithmetic,
//! `agreement` who keeps a reference order, `groups` the sums per user, project or
//! model), and `report` turns it into the data every output renders (`table`, `csv`,
//! `json`, `html`, charts).

pub mod accumulate;
pub mod aggregate;
mod agreement;
pub mod charts;
pub mod csv;
pub mod factors;
pub mod files;
pub mod groups;
pub mod html;
pub mod json;
pub mod pass;
pub mod percentile;
pub(crate) mod progress;
pub mod refetch;
pub mod report;
pub mod session;
pub mod shard;
pub mod spill;
pub mod stream;
pub mod table;

pub use aggregate::{
    Aggregate, BaseClamped, Distribution, EditAggregate, SweepAggregate, SweepSums,
};
pub use agreement::{Agreement, PairFlip};
pub use factors::Factors;
pub use files::default_name;
pub use groups::GroupBy;
pub use report::HistoryReport;
pub use session::{SessionEdit, SessionFigures, evaluate_session};
