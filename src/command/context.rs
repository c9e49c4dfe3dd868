//! `simulate import context FILE --out DIR`: Claude Code's `/context` text → a file of
//! `[[base.part]]` tables (`crate::import::context`), for `simulate suggest --context` or an
//! edits file.

use crate::error::{Error, Located};
use crate::import::context;
use std::io::Write;
use std::path::PathBuf;

/// `simulate import context`, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextConfig {
    /// The pasted `/context` output.
    pub file: PathBuf,
    /// The parts go to `out/<file stem>-parts.toml`.
    pub out: PathBuf,
    /// Replace a parts file of that name that differs.
    pub force: bool,
    pub output: crate::output::Format,
}

/// Reads the text, writes the parts file (whole or not at all; an existing file with other
/// bytes only with `force`), prints the parts.
pub fn run(c: &ContextConfig, out: &mut dyn Write) -> Result<(), Error> {
    let text = crate::input::read_to_string(&c.file, crate::input::Kind::Scenario)?;
    let shown = c.file.display().to_string();
    let parsed = context::parse(&text, &shown)?;
    let name = c
        .file
        .file_stem()
        .map_or_else(|| "context".into(), |s| s.to_string_lossy().into_owned());
    let read = c
        .file
        .file_name()
        .map_or_else(|| shown.clone(), |s| s.to_string_lossy().into_owned());
    let parts = context::parts(&parsed, &format!("/context ({read})"));
    let body = context::parts_file(&parts, &shown);
    let file_name = format!("{name}-parts.toml");
    let target = c.out.join(&file_name);
    if let Ok(old) = std::fs::read(&target)
        && old != body.as_bytes()
        && !c.force
    {
        return Err(Located::new(
            target.display().to_string(),
            "exists with other contents (an earlier import, or edited by hand): nothing was written; give --force to replace it, or another --out",
        )
        .into());
    }
    let set = crate::output::FileSet::prepare(&c.out)?;
    set.write(&file_name, |w| w.write_all(body.as_bytes()))?;
    let written = set.commit()?;
    print(c, out, &parts, &written).map_err(Error::Print)
}

fn print(
    c: &ContextConfig,
    out: &mut dyn Write,
    parts: &[crate::scenario::BasePart],
    written: &[PathBuf],
) -> std::io::Result<()> {
    if c.output == crate::output::Format::Json {
        let rows: Vec<serde_json::Value> = parts
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name,
                    "tokens": p.tokens,
                    "source": p.source,
                    "tools": p.tools.iter().map(|g| g.text.clone()).collect::<Vec<_>>(),
                    "deferred": p.deferred,
                })
            })
            .collect();
        let files: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        writeln!(
            out,
            "{}",
            serde_json::json!({ "parts": rows, "files": files })
        )?;
        return Ok(());
    }
    let total: f64 = parts.iter().map(|p| p.tokens).sum();
    writeln!(
        out,
        "{} base parts from {} ({} tokens in every request, Claude Code's estimates):",
        parts.len(),
        c.file.display(),
        crate::number::grouped(total, 0)
    )?;
    for p in parts {
        let tools: Vec<&str> = p.tools.iter().map(|g| g.text.as_str()).collect();
        writeln!(
            out,
            "  {:<28} {:>9} tokens  tools: {}{}",
            p.name,
            crate::number::grouped(p.tokens, 0),
            if tools.is_empty() {
                "none named".to_string()
            } else {
                tools.join(", ")
            },
            if p.deferred {
                "  (already deferred)"
            } else {
                ""
            }
        )?;
    }
    for f in written {
        writeln!(out, "wrote {}", f.display())?;
    }
    writeln!(
        out,
        "next: simulate suggest DIR --context {}",
        written
            .first()
            .map_or_else(String::new, |f| f.display().to_string())
    )
}
