//! The benchmarks of `ferrocl-bench`: the table of rows (`suite`), the work each row runs, and
//! the report.

pub mod suite;
pub mod report;
mod compute;
mod fft;
mod image;
mod memory;
mod overhead;
mod reduce;
mod sgemm;
