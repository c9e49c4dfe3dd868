//! The TSV trace reader: refused with a located error, or calls whose sizes are finite.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(calls) = simulate::scenario::parse_tsv(text, "fuzz.tsv") {
        for c in &calls {
            assert!(c.bytes.is_finite() && c.bytes >= 0.0);
        }
    }
});
