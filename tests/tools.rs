//! Real OpenCL applications against the driver: `clinfo` must list ferrocl and print no error,
//! and the benchmark must run (small sizes) with every result correct, so neither can rot.
mod common;

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a program may run: far longer than either takes (seconds), so that a hang fails the
/// test with what the program printed, rather than stall CI until its own limit.
const LIMIT: Duration = Duration::from_secs(300);

/// Runs a program with the test's `OCL_ICD_VENDORS` (ferrocl alone) and validation on; `None`
/// if it cannot start.
fn run(program: &str, args: &[&str]) -> Option<Output> {
    common::init();
    let mut child = Command::new(program).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().ok()?;
    // Read as it runs: a full pipe would stop the program.
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait().expect("the program's status") {
            Some(status) => break status,
            None if start.elapsed() > LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                let (out, err) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
                panic!("{program} {args:?} still ran after {LIMIT:?}; it printed:\n{}\n{}", String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Some(Output { status, stdout: stdout.join().unwrap_or_default(), stderr: stderr.join().unwrap_or_default() })
}

/// Reads a pipe to its end on a thread of its own.
fn collect(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
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
