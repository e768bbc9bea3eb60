//! Diagnostics: errors and warnings collected during a build and rendered into the build log in
//! the style of clang/rustc (`file:line:col: error: message`, the source line, a caret).

use super::source::{Loc, SourceMap};
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    pub loc: Loc,
    pub message: String,
}

/// The diagnostics of one compilation. `-w` drops warnings, `-Werror` turns them into errors.
#[derive(Debug, Default)]
pub struct Diagnostics {
    pub list: Vec<Diagnostic>,
    pub suppress_warnings: bool,
    pub warnings_are_errors: bool,
}

impl Diagnostics {
    pub fn error(&mut self, loc: Loc, message: impl Into<String>) {
        self.push(Severity::Error, loc, message.into());
    }

    pub fn warning(&mut self, loc: Loc, message: impl Into<String>) {
        if self.suppress_warnings {
            return;
        }
        let severity = if self.warnings_are_errors { Severity::Error } else { Severity::Warning };
        self.push(severity, loc, message.into());
    }

    pub fn note(&mut self, loc: Loc, message: impl Into<String>) {
        self.push(Severity::Note, loc, message.into());
    }

    fn push(&mut self, severity: Severity, loc: Loc, message: String) {
        self.list.push(Diagnostic { severity, loc, message });
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    /// Renders every diagnostic for the build log.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut out = String::new();
        for d in &self.list {
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            let name = &sources.file(d.loc.file).name;
            let _ = writeln!(out, "{name}:{}:{}: {kind}: {}", d.loc.line, d.loc.col, d.message);
            if let Some(line) = sources.line_text(d.loc) {
                let pad: String = line
                    .chars()
                    .take(d.loc.col.saturating_sub(1) as usize)
                    .map(|c| if c == '\t' { '\t' } else { ' ' })
                    .collect();
                let _ = writeln!(out, "{line}\n{pad}^");
            }
        }
        out
    }
}
