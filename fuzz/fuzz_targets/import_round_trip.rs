//! What the importer targets share: `data` written as one log file named
//! `simulate-fuzz-<name>-<pid>.<ext>`, imported with `format`, and every scenario the
//! import would write loaded back; a scenario that does not load is a crash.

use simulate::import::{Format, files::SourceFile, write};
use std::io::Write;
use std::path::Path;

pub fn import_round_trip(data: &[u8], format: Format, name: &str, ext: &str) {
    let path =
        std::env::temp_dir().join(format!("simulate-fuzz-{name}-{}.{ext}", std::process::id()));
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
    let reader = format.reader();
    let Ok(loaded) = simulate::import::load(reader, std::slice::from_ref(&source)) else {
        return;
    };
    for trace in &loaded.assembled.traces {
        let text = write::render(trace, reader);
        if let Err(e) = simulate::scenario::load_str(&text, Path::new("imported.toml")) {
            panic!("the importer wrote a scenario that does not load: {e}\n{text}");
        }
    }
}
