//! The user's own agent logs, found where the agents keep them (`paths`), chosen by
//! period and project (`select`), and the cache folder their scenarios are imported into
//! (`cache`): what `simulate suggest`, `history` and `import` read when given no path.
//!
//! Nothing here writes into the logs' folders; the import itself is the command layer's
//! (`simulate import`'s own code), run into the cache folder this module names.

pub mod cache;
pub mod paths;
pub mod select;

pub use paths::{Env, Root};
pub use select::{Filter, Selected};
