//! The `simulate` binary: parse, run, report an error, exit.

use std::io::Write;
use std::process::ExitCode;

/// mimalloc in place of the system's malloc: the history and suggest passes make and drop
/// many small vectors per session (a third of `suggest`'s time went to glibc's malloc and
/// free in a profile of 2,000 sessions: docs/performance.md). Without transparent huge
/// pages (`no_thp`): with them a run's peak grew by 20 to 40 MiB (`ledger` over a million
/// calls 11 → 35 MiB) for no speed.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let result = simulate::cli::parse()
        .map_err(simulate::Error::from)
        .and_then(|command| {
            let mut stdout = std::io::stdout().lock();
            let result = simulate::command::run(&command, &mut stdout);
            result.and_then(|()| stdout.flush().map_err(simulate::Error::Print))
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let code = e.exit_code();
            if code != 0 {
                eprintln!("error: {e}");
            }
            ExitCode::from(code)
        }
    }
}
