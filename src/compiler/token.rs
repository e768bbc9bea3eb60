//! Tokens shared by the lexer, the preprocessor and the parser.

use super::source::Loc;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    Ident(String),
    /// An integer literal, its value and suffix already decoded (`u`, `l`, `ul`...);
    /// `decimal` (not hex or octal) matters to its type: an unsuffixed decimal literal is
    /// never unsigned.
    Int { value: u64, unsigned: bool, long: bool, decimal: bool },
    /// A floating literal; `f`/`h` suffix and hex floats decoded.
    Float { value: f64, suffix: FloatSuffix },
    Char(u32),
    Str(String),
    /// An operator or punctuator, e.g. `+=`, `->`, `...`, `#`, `##`.
    Punct(&'static str),
    /// End of a line; only the preprocessor sees these, the parser never does.
    Newline,
    Eof,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatSuffix {
    None,
    F,
    H,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub loc: Loc,
    /// Whitespace came before this token (needed by `#` stringizing and function-like macro
    /// detection).
    pub space_before: bool,
}
