//! The results of all rows on all platforms, printed as one markdown table (with ferrocl's
//! ratio to every other platform) and as JSON.

use super::suite::{Bench, Failure, Outcome};
use std::fmt::Write;

/// One platform's device and the outcome of every row on it.
pub struct Column {
    pub platform: String,
    pub device: String,
    pub version: String,
    pub driver: String,
    pub results: Vec<Outcome>,
}

impl Column {
    fn is_ferrocl(&self) -> bool {
        self.platform == FERROCL
    }
}

pub const FERROCL: &str = "ferrocl";
/// Lines of a failure message (a build log, say) shown under the table.
const LOG_LINES: usize = 12;

pub struct Report<'a> {
    pub date: String,
    pub quick: bool,
    pub rows: Vec<&'a Bench>,
    pub columns: Vec<Column>,
}

impl Report<'_> {
    /// ferrocl's column and those of the other platforms.
    fn ferrocl_and_others(&self) -> Option<(&Column, Vec<&Column>)> {
        let ours = self.columns.iter().find(|c| c.is_ferrocl())?;
        Some((ours, self.columns.iter().filter(|c| !c.is_ferrocl()).collect()))
    }

    /// ferrocl / `other` on row `r`, where both have a figure.
    fn ratio(ours: &Column, other: &Column, r: usize) -> Option<f64> {
        match (&ours.results[r], &other.results[r]) {
            (Ok(a), Ok(b)) if *b != 0.0 => Some(a / b),
            _ => None,
        }
    }

    /// Whether any of ferrocl's rows failed.
    pub fn ferrocl_failed(&self) -> bool {
        self.columns.iter().filter(|c| c.is_ferrocl()).any(|c| c.results.iter().any(|o| matches!(o, Err(Failure::Failed(_)))))
    }

    pub fn markdown(&self) -> String {
        let mut out = format!("# ferrocl-bench, {} ({} sizes)\n\n", self.date, if self.quick { "quick" } else { "full" });
        for c in &self.columns {
            let _ = writeln!(out, "- **{}**: {} ({}; driver {})", c.platform, c.device, c.version, c.driver);
        }
        let pairs = self.ferrocl_and_others();
        let others = pairs.as_ref().map_or(Vec::new(), |(_, o)| o.clone());
        let mut header: Vec<String> = vec!["Benchmark".into(), "Unit".into()];
        header.extend(self.columns.iter().map(|c| c.platform.clone()));
        header.extend(others.iter().map(|o| format!("{FERROCL} / {}", o.platform)));
        let _ = writeln!(out, "\n| {} |\n|{}", header.join(" | "), "---|".repeat(header.len()));
        for (r, row) in self.rows.iter().enumerate() {
            let mut cells = vec![row.name.to_string(), format!("{} {}", row.unit.label(), if row.unit.higher_is_better() { "↑" } else { "↓" })];
            cells.extend(self.columns.iter().map(|c| cell(&c.results[r])));
            if let Some((ours, _)) = &pairs {
                cells.extend(others.iter().map(|o| Self::ratio(ours, o, r).map_or("–".into(), |x| format!("{x:.2}"))));
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out + &self.failures()
    }

    /// Every failed row with the first lines of its message.
    fn failures(&self) -> String {
        let mut out = String::new();
        for c in &self.columns {
            for (row, result) in self.rows.iter().zip(&c.results) {
                if let Err(Failure::Failed(message)) = result {
                    let lines: Vec<&str> = message.lines().take(LOG_LINES).collect();
                    let _ = write!(out, "\n### FAIL: {} on {}\n\n```\n{}\n```\n", row.name, c.platform, lines.join("\n"));
                }
            }
        }
        out
    }

    pub fn json(&self) -> String {
        let platforms: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                format!(
                    "{{\"platform\": {}, \"device\": {}, \"version\": {}, \"driver_version\": {}}}",
                    quote(&c.platform),
                    quote(&c.device),
                    quote(&c.version),
                    quote(&c.driver)
                )
            })
            .collect();
        let rows: Vec<String> = self.rows.iter().enumerate().map(|(r, row)| self.json_row(r, row)).collect();
        format!(
            "{{\n  \"date\": {},\n  \"quick\": {},\n  \"platforms\": [\n    {}\n  ],\n  \"benchmarks\": [\n    {}\n  ]\n}}\n",
            quote(&self.date),
            self.quick,
            platforms.join(",\n    "),
            rows.join(",\n    ")
        )
    }

    fn json_row(&self, r: usize, row: &Bench) -> String {
        let results: Vec<String> = self.columns.iter().map(|c| format!("{}: {}", quote(&c.platform), json_outcome(&c.results[r]))).collect();
        let ratios: Vec<String> = self.ferrocl_and_others().map_or(Vec::new(), |(ours, others)| {
            others.iter().map(|o| format!("{}: {}", quote(&o.platform), Self::ratio(ours, o, r).filter(|x| x.is_finite()).map_or("null".into(), |x| x.to_string()))).collect()
        });
        format!(
            "{{\"name\": {}, \"unit\": {}, \"higher_is_better\": {}, \"results\": {{{}}}, \"ferrocl_over\": {{{}}}}}",
            quote(row.name),
            quote(row.unit.label()),
            row.unit.higher_is_better(),
            results.join(", "),
            ratios.join(", ")
        )
    }
}

/// A figure with about four significant digits, or why there is none.
fn cell(outcome: &Outcome) -> String {
    match outcome {
        Ok(x) if *x >= 100.0 => format!("{x:.0}"),
        Ok(x) if *x >= 10.0 => format!("{x:.1}"),
        Ok(x) => format!("{x:.3}"),
        Err(Failure::NotApplicable) => "n/a".into(),
        Err(Failure::Failed(_)) => "FAIL".into(),
    }
}

fn json_outcome(outcome: &Outcome) -> String {
    match outcome {
        Ok(x) if x.is_finite() => format!("{{\"value\": {x}}}"),
        // JSON has no infinity: a zero time is reported, not printed as a number.
        Ok(x) => format!("{{\"status\": \"FAIL\", \"message\": \"not a finite figure: {x}\"}}"),
        Err(Failure::NotApplicable) => "{\"status\": \"n/a\"}".into(),
        Err(Failure::Failed(m)) => format!("{{\"status\": \"FAIL\", \"message\": {}}}", quote(m)),
    }
}

/// `s` as a JSON string.
fn quote(s: &str) -> String {
    let mut out = String::from('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_date(days);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// Gregorian year, month and day of the `days`-th day after 1970-01-01.
fn civil_date(days: u64) -> (u64, u64, u64) {
    let mut year = 1970;
    let mut left = days;
    let year_len = |y: u64| if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) { 366 } else { 365 };
    while left >= year_len(year) {
        left -= year_len(year);
        year += 1;
    }
    let feb = if year_len(year) == 366 { 29 } else { 28 };
    let months = [31, feb, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 0;
    while left >= months[month] {
        left -= months[month];
        month += 1;
    }
    (year, month as u64 + 1, left + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::BENCHES;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(59), (1970, 3, 1));
        // 2000-02-29 is day 11016; 2026-11-22 is day 20779.
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        assert_eq!(civil_date(20_779), (2026, 11, 22));
    }

    fn column(platform: &str, results: Vec<Outcome>) -> Column {
        Column { platform: platform.into(), device: "d".into(), version: "v".into(), driver: "1".into(), results }
    }

    #[test]
    fn table_has_ratios_to_the_other_platforms() {
        let rows = vec![&BENCHES[0], &BENCHES[1]];
        let columns = vec![
            column("other", vec![Ok(10.0), Ok(4.0)]),
            column(FERROCL, vec![Ok(5.0), Err(Failure::Failed("build failed:\nlog line".into()))]),
        ];
        let report = Report { date: "today".into(), quick: true, rows, columns };
        let md = report.markdown();
        assert!(md.contains("| Benchmark | Unit | other | ferrocl | ferrocl / other |"));
        assert!(md.contains("| copy float | GB/s ↑ | 10.0 | 5.000 | 0.50 |"));
        assert!(md.contains("| copy float4 | GB/s ↑ | 4.000 | FAIL | – |"));
        assert!(md.contains("### FAIL: copy float4 on ferrocl\n\n```\nbuild failed:\nlog line\n```"));
        assert!(report.ferrocl_failed());
        assert!(report.json().contains("\"ferrocl_over\": {\"other\": 0.5}"));
    }

    #[test]
    fn json_strings() {
        assert_eq!(quote("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    #[test]
    fn json_has_no_infinity() {
        assert_eq!(json_outcome(&Ok(2.5)), "{\"value\": 2.5}");
        assert_eq!(json_outcome(&Ok(f64::INFINITY)), "{\"status\": \"FAIL\", \"message\": \"not a finite figure: inf\"}");
    }
}
