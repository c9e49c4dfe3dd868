//! The prompt cache and prices: provider presets, and per-model prices and cache terms
//! (docs/model.md §4) from a pinned snapshot of LiteLLM's price data with an overlay, all
//! kept as data with their sources.

pub mod model_id;
pub mod models;
pub mod overlay;
pub mod presets;
pub mod snapshot;
pub mod user_prices;
pub mod warnings;
