//! The otel importer: any bytes as a collector's output (gzip too) are read without
//! panicking, and every scenario it would write loads back as a valid scenario.
#![no_main]

use libfuzzer_sys::fuzz_target;
use simulate::import::{Format, files::SourceFile, write};
use std::io::Write;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("simulate-fuzz-otel-{}.json", std::process::id()));
    let Ok(mut file) = std::fs::File::create(&path) else {
        return;
    };
    if file.write_all(data).is_err() {
        return;
    }
    drop(file);
    let source = SourceFile {
        canonical: path.clone(),
        path,
    };
    let reader = Format::Otel.reader();
    let Ok(loaded) = simulate::import::load(reader, std::slice::from_ref(&source)) else {
        return;
    };
    for trace in &loaded.assembled.traces {
        let text = write::render(trace, reader);
        if let Err(e) = simulate::scenario::load_str(&text, Path::new("imported.toml")) {
            panic!("the importer wrote a scenario that does not load: {e}\n{text}");
        }
    }
});
