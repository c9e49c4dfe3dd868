//! The file that tells simulate's staging folders from anyone else's (see `staging`).

/// The marker file in every staging folder simulate makes.
pub const MARKER: &str = ".simulate-staging";

/// The marker's whole text; a file with other bytes is not simulate's marker.
pub const MARKER_TEXT: &str = "simulate staging folder: removed when its run ends, or by a later run once no process holds its lock\n";
