//! Source files and locations: every token and diagnostic points back to a file, line and column.

/// Index of a file in a [`SourceMap`].
pub type FileId = u32;

/// A position in the original source text (1-based line and column, in bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Loc {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// One file of a program: the main source, an `#include`d header, or a header given to
/// `clCompileProgram`.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// All files one compilation has read, so diagnostics can print the offending line.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.files.push(SourceFile { name: name.into(), text: text.into() });
        (self.files.len() - 1) as FileId
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// The text of line `line` (1-based) of `file`, without its newline.
    pub fn line_text(&self, loc: Loc) -> Option<&str> {
        let file = self.files.get(loc.file as usize)?;
        file.text.lines().nth(loc.line.checked_sub(1)? as usize)
    }
}
