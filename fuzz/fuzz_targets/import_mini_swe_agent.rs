//! The mini-swe-agent importer: any bytes as a trajectory file are read without panicking, and
//! every scenario it would write loads back as a valid scenario.
#![no_main]

#[path = "import_round_trip.rs"]
mod round_trip;

use libfuzzer_sys::fuzz_target;
use simulate::import::Format;

fuzz_target!(|data: &[u8]| {
    round_trip::import_round_trip(data, Format::MiniSweAgent, "mini-swe-agent", "traj.json");
});
