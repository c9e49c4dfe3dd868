//! The edits-file parser (`--edits FILE`): refused with a located error, or checked edits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    // load_edits reads a path: one file per process, rewritten each run.
    let path = std::env::temp_dir().join(format!("simulate-fuzz-edits-{}.toml", std::process::id()));
    let Ok(mut file) = std::fs::File::create(&path) else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    drop(file);
    let _ = simulate::scenario::load_edits(&path);
});
