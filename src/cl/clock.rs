//! The host clock of profiling info and events: nanoseconds since the driver was loaded.

use std::sync::OnceLock;
use std::time::Instant;

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

pub fn now_ns() -> u64 {
    base().elapsed().as_nanos() as u64
}
