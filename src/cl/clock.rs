//! The host clock of profiling info and events: nanoseconds since the driver was loaded, on
//! Linux's `CLOCK_MONOTONIC` (which `Instant` reads), so the device's timer can be calibrated
//! against it directly.

use std::sync::OnceLock;
use std::time::Instant;

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

pub fn now_ns() -> u64 {
    base().elapsed().as_nanos() as u64
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

const CLOCK_MONOTONIC: i32 = 1;

fn monotonic_ns() -> i128 {
    let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the struct it is given; CLOCK_MONOTONIC always exists on Linux.
    unsafe { clock_gettime(CLOCK_MONOTONIC, &mut t) };
    i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec)
}

/// A `CLOCK_MONOTONIC` reading (as Vulkan's calibrated timestamps give it) on this clock.
pub fn from_monotonic(ns: u64) -> f64 {
    static AT_ZERO: OnceLock<i128> = OnceLock::new();
    // The monotonic time of now_ns() == 0: the closest of a few back-to-back pairs.
    let at_zero = *AT_ZERO.get_or_init(|| {
        (0..8)
            .map(|_| {
                let (before, ours, after) = (monotonic_ns(), now_ns(), monotonic_ns());
                (after - before, before + (after - before) / 2 - i128::from(ours))
            })
            .min()
            .map_or(0, |(_, zero)| zero)
    });
    (i128::from(ns) - at_zero) as f64
}
