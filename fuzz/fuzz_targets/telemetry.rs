//! The telemetry reader (`simulate telemetry`): any bytes are either a summary whose means
//! lie between the smallest and largest count, or a located error; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    if let Ok(summary) = simulate::telemetry::summarize(data, Path::new("fuzz.jsonl"), "tokens") {
        let json = serde_json::to_string(&summary).unwrap_or_default();
        assert!(!json.contains("NaN"), "{json}");
    }
});
