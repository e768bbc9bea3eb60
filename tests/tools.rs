//! Real OpenCL applications against the driver: `clinfo` must list ferrocl and print no error,
//! and the benchmark must run (small sizes) with every result correct, so neither can rot.
mod common;

use common::output_within;
use std::process::{Command, Output};
use std::time::Duration;

/// Runs a program with the test's `OCL_ICD_VENDORS` (ferrocl alone) and validation on; `None`
/// if it cannot start. Either takes seconds: one still running after 5 minutes has hung.
fn run(program: &str, args: &[&str]) -> Option<Output> {
    common::init();
    output_within(Command::new(program).args(args), Duration::from_secs(300))
}

#[test]
fn clinfo_lists_ferrocl_without_errors() {
    let Some(out) = run("clinfo", &[]) else {
        panic!("clinfo is not installed (tests/run.sh installs it)");
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "clinfo failed:\n{text}");
    assert!(text.contains("Platform Name                                   ferrocl"), "{text}");
    assert!(text.contains("Number of devices                                 1"), "{text}");
    let errors: Vec<&str> = text.lines().filter(|l| l.contains('<') && l.contains("error")).collect();
    assert!(errors.is_empty(), "clinfo reports errors:\n{}", errors.join("\n"));
}

#[test]
fn benchmark_runs_and_checks_its_results() {
    let out = run(env!("CARGO_BIN_EXE_ferrocl-bench"), &["--quick", "--platform", "ferrocl"]).expect("cargo builds ferrocl-bench for the tests");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "a ferrocl result was wrong:\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("| sgemm (local tiles) |"), "{text}");
}
