//! Headless Chromium for the tests of `report.html`'s sliders: find the browser (or say
//! why the test is skipped), open a page with a fragment, and read its edits table.
//!
//! Nothing is installed here. The browser is `/usr/bin/chromium`, or `chromium`,
//! `chromium-browser` or `google-chrome` on the PATH; without one the tests say so on
//! stderr and check nothing, unless `SIMULATE_REQUIRE_BROWSER` is set (CI, `.ci/run`,
//! installs Debian's `chromium` and sets it), where a missing browser fails.
#![allow(clippy::expect_used)]

use super::simulate;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The longest one page may take to load and dump.
pub const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

pub fn browser() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND.get_or_init(find_browser).as_deref()
}

fn find_browser() -> Option<PathBuf> {
    let on_path = |name: &str| {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
    };
    let found = Some(PathBuf::from("/usr/bin/chromium"))
        .filter(|p| p.is_file())
        .or_else(|| on_path("chromium"))
        .or_else(|| on_path("chromium-browser"))
        .or_else(|| on_path("google-chrome"));
    if found.is_none() {
        assert!(
            std::env::var_os("SIMULATE_REQUIRE_BROWSER").is_none(),
            "no Chromium (/usr/bin/chromium, or chromium, chromium-browser, google-chrome on the PATH): install it with `apt-get install -y chromium`"
        );
        // Written to the stderr handle, not with eprintln!, which the test harness
        // captures: the reason for a skip must be seen.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: no Chromium found, report.html's sliders not checked in a browser (apt-get install -y chromium)"
        );
    }
    found
}

/// The DOM of `page` opened with `fragment`, after its script ran.
pub fn dump(browser: &Path, page: &Path, fragment: &str) -> String {
    let page = page.canonicalize().unwrap();
    let url = format!("file://{}#{fragment}", page.display());
    assert!(
        !url.contains(' '),
        "a temporary path with a space needs escaping: {url}"
    );
    let profile = tempfile::tempdir().unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the browser");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not dump {url} within {BROWSER_TIMEOUT:?}",
                browser.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let dom = reader.join().unwrap().unwrap();
    assert!(status.success(), "{} failed on {url}", browser.display());
    assert!(dom.contains("</html>"), "no DOM dumped for {url}: {dom}");
    dom
}

/// One row of the edits table as the page shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub rank: String,
    pub name: String,
    pub saved: String,
    pub pct: String,
}

/// The text of the first `<td class="…{class}…">` in `row`.
pub fn cell(row: &str, class: &str) -> String {
    let start = row
        .find(&format!("{class}\">"))
        .unwrap_or_else(|| panic!("no {class} cell in {row}"));
    let text = &row[start + class.len() + 2..];
    text[..text.find("</td>").unwrap()].to_string()
}

/// The edits table's rows, in the page's order.
pub fn rows(dom: &str) -> Vec<Row> {
    let table = &dom[dom.find("<table id=\"edits\"").expect("the edits table")..];
    let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            // An edit that changes the cost alone (a cache or model edit) says so in place
            // of its reread-token saving, which does not move.
            let cost_only = !row.contains("moves saved\">") && row.contains(">cost only<");
            let or_cost_only = |class: &str| {
                if cost_only {
                    "cost only".to_string()
                } else {
                    cell(row, class)
                }
            };
            Row {
                rank: cell(row, "moves rank"),
                name: cell(row, "\"name"),
                saved: or_cost_only("moves saved"),
                pct: or_cost_only("moves pct"),
            }
        })
        .collect()
}

pub fn names(rows: &[Row]) -> Vec<&str> {
    rows.iter().map(|r| r.name.as_str()).collect()
}

pub fn position(rows: &[Row], name: &str) -> usize {
    rows.iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("{name} not in {rows:?}"))
}

/// The rows of a `sweep.csv`, each as its fields.
///
/// The page shows the nominal re-fetch rate (MODEL §11): where sweep.csv has a `refetch`
/// column, only the rows at rate 0 (the scenarios' nominal) are kept, and the column is left
/// out, so the indices are those of the columns before it and after it.
pub fn sweep_csv(path: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let refetch = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "refetch");
    reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect::<Vec<_>>())
        .filter(|f| refetch.is_none_or(|i| f[i].parse::<f64>() == Ok(0.0)))
        .map(|mut f| {
            if let Some(i) = refetch {
                f.remove(i);
            }
            f
        })
        .collect()
}

/// Runs `args` writing into `out`, returns stdout (the JSON report with `--format json`).
pub fn run(args: &[&str], out: &Path) -> String {
    let output = simulate()
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// The raw `<tr …>…` markup of each row of the edits table, in the page's order.
pub fn row_markup(dom: &str) -> Vec<String> {
    let table = &dom[dom.find("<table id=\"edits\"").expect("the edits table")..];
    let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    body.split("<tr").skip(1).map(str::to_string).collect()
}

/// The text of the element with `id` (markup-free, as the panel's sentences are), with
/// the entities the DOM dump writes turned back into characters.
pub fn text_of(dom: &str, id: &str) -> String {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let text = &dom[start..];
    let text = &text[text.find('>').unwrap() + 1..];
    text[..text.find('<').unwrap()]
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}
