//! The scenario parser and validator, then the engine at the nominal point: any text either
//! is refused with a located error or evaluates to finite figures; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::Assumptions;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A scenario naming a TSV trace reads a file: keep the fuzzer off the disk.
    if text.contains("calls_tsv") {
        return;
    }
    let Ok(s) = simulate::scenario::load_str(text, Path::new("fuzz.toml")) else {
        return;
    };
    if s.calls.len() > 2_000 {
        return;
    }
    let Ok(study) = Study::new(&s) else {
        return;
    };
    let at = Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    };
    if study.check_bases(&[at]).is_err() {
        return;
    }
    let e = evaluate(&study, study.nominal(at));
    assert!(e.baseline.total_tokens.is_finite());
    for r in &e.edits {
        assert!(r.outcome.total_tokens.is_finite(), "{}", r.outcome.total_tokens);
        assert!(r.outcome.cost.is_finite());
    }
});
