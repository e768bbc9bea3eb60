//! Runs the same benchmarks on every OpenCL platform the loader finds (or those named) and
//! prints one table: absolute figures per platform and the ratio ferrocl / other. Every result
//! is checked against a CPU computation; a wrong one is FAIL. Exits non-zero when a ferrocl
//! row fails. See docs/benchmark.md.

#[path = "host/cl.rs"]
mod cl;

#[path = "bench/mod.rs"]
mod bench;

use bench::report::{utc_now, Column, Report};
use bench::suite::{Bench, Ctx, Failure, Outcome, Sizes, BENCHES};
use cl_sys::*;

const USAGE: &str = "usage: ferrocl-bench [--quick] [--json FILE] [--platform NAME]... [--only ROW]...
  --quick          small sizes (a software device in CI)
  --json FILE      also write the results as JSON to FILE
  --platform NAME  run on platforms whose name or vendor contains NAME (repeatable; default: all)
  --only ROW       run the rows whose name contains ROW (repeatable; default: all)";

#[derive(Default)]
struct Options {
    quick: bool,
    json: Option<String>,
    platforms: Vec<String>,
    only: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options::default();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--quick" => o.quick = true,
            "--json" => o.json = Some(value()?),
            "--platform" => o.platforms.push(value()?.to_lowercase()),
            "--only" => o.only.push(value()?.to_lowercase()),
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    Ok(o)
}

/// Whether `name` contains one of `wanted` (lower case), or `wanted` is empty.
fn selected(wanted: &[String], names: &[&str]) -> bool {
    wanted.is_empty() || names.iter().any(|n| wanted.iter().any(|w| n.to_lowercase().contains(w)))
}

/// Runs every row on `p`'s default device; a platform without a usable device fails every row.
/// Runs one row on one platform, printing the outcome as it comes.
fn run_row(platform: &str, row: &Bench, ctx: &Ctx) -> Outcome {
    eprint!("{platform} / {}: ", row.name);
    let outcome = (row.run)(ctx);
    match &outcome {
        Ok(x) => eprintln!("{x:.4} {}", row.unit.label()),
        Err(Failure::NotApplicable) => eprintln!("n/a"),
        Err(Failure::Failed(m)) => eprintln!("FAIL: {}", m.lines().next().unwrap_or("")),
    }
    outcome
}

/// Runs every row on every platform, row by row, so that the platforms of one comparison run
/// back to back, under the same GPU clocks and temperature.
fn run_all(platforms: &[cl::Platform], rows: &[&Bench], sizes: &Sizes) -> Vec<Column> {
    let envs: Vec<Result<cl::Env, String>> = platforms.iter().map(|p| cl::Env::new(p, true)).collect();
    let mut columns: Vec<Column> = platforms
        .iter()
        .zip(&envs)
        .map(|(p, env)| Column {
            platform: p.name.clone(),
            device: env.as_ref().map_or("(none)".into(), |e| e.device_name.clone()),
            version: p.info(CL_PLATFORM_VERSION),
            driver: env.as_ref().map_or(String::new(), |e| e.device_string(CL_DRIVER_VERSION)),
            results: Vec::new(),
        })
        .collect();
    for row in rows {
        for (column, env) in columns.iter_mut().zip(&envs) {
            let outcome = match env {
                Ok(env) => run_row(&column.platform, row, &Ctx { env, sizes }),
                Err(e) => Err(Failure::Failed(e.clone())),
            };
            column.results.push(outcome);
        }
    }
    columns
}

fn main() {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let sizes = if options.quick { &Sizes::QUICK } else { &Sizes::FULL };
    let rows: Vec<&Bench> = BENCHES.iter().filter(|b| selected(&options.only, &[b.name])).collect();
    let platforms: Vec<cl::Platform> =
        cl::platforms().into_iter().filter(|p| selected(&options.platforms, &[&p.name, &p.info(CL_PLATFORM_VENDOR)])).collect();
    if platforms.is_empty() {
        eprintln!("no OpenCL platform found (or none matches --platform)");
        std::process::exit(2);
    }
    let date = utc_now();
    let columns = run_all(&platforms, &rows, sizes);
    let report = Report { date, quick: options.quick, rows, columns };
    print!("{}", report.markdown());
    if let Some(path) = &options.json {
        if let Err(e) = std::fs::write(path, report.json()) {
            eprintln!("cannot write {path}: {e}");
            std::process::exit(2);
        }
    }
    std::process::exit(i32::from(report.ferrocl_failed()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn arguments() {
        let o = parse(&["--quick", "--platform", "NVIDIA", "--platform", "ferrocl", "--json", "x.json", "--only", "sgemm"]).unwrap();
        assert!(o.quick);
        assert_eq!(o.platforms, ["nvidia", "ferrocl"]);
        assert_eq!(o.json.as_deref(), Some("x.json"));
        assert_eq!(o.only, ["sgemm"]);
        assert_eq!(parse(&["--json"]).err().unwrap(), "--json needs a value");
        assert!(parse(&["--fast"]).is_err());
    }

    #[test]
    fn selection_by_substring() {
        let wanted = vec!["pocl".to_string()];
        assert!(selected(&wanted, &["Portable Computing Language", "The pocl project"]));
        assert!(!selected(&wanted, &["ferrocl", "ferrocl"]));
        assert!(selected(&[], &["anything"]));
    }
}
