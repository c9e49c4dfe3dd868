//! The prompt cache: provider presets and the cost model of MODEL.md §4.

pub mod presets;
