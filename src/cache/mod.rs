//! The prompt cache and prices: provider presets, and per-model prices and cache terms
//! (docs/model.md §4), both kept as data with their sources.

pub mod model_id;
pub mod models;
pub mod presets;
