//! The lexer: OpenCL C source text → preprocessing tokens (C99 §6.4).
//!
//! Lexing never fails: a character or literal that is not valid OpenCL C becomes a token whose
//! kind is an error message, reported only if the token survives preprocessing (it may sit in a
//! skipped `#if 0` group or be stringized). Only an unterminated comment is reported at once.

use super::diag::Diagnostics;
use super::source::{FileId, Loc};
use super::token::{FloatSuffix, Token, TokenKind};

/// A preprocessing token: what the preprocessor needs beyond a [`Token`].
#[derive(Clone, Debug, PartialEq)]
pub struct PpToken {
    /// The decoded token, or why its text is not a valid token.
    pub kind: Result<TokenKind, String>,
    pub loc: Loc,
    pub space_before: bool,
    /// The text as written (line splices removed), for `#` stringizing and `##` pasting.
    pub spelling: String,
}

impl PpToken {
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            Ok(TokenKind::Ident(name)) => Some(name),
            _ => None,
        }
    }

    pub fn is_punct(&self, p: &str) -> bool {
        matches!(&self.kind, Ok(TokenKind::Punct(q)) if *q == p)
    }

    pub fn is_newline(&self) -> bool {
        matches!(self.kind, Ok(TokenKind::Newline))
    }

    pub fn is_eof(&self) -> bool {
        matches!(self.kind, Ok(TokenKind::Eof))
    }
}

/// Lexes a whole file for the parser (no preprocessing): invalid tokens are reported and dropped.
/// The result has a `Newline` at each line end and ends with `Eof`.
pub fn tokenize(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Token> {
    lex(file, text, diags)
        .into_iter()
        .filter_map(|t| match t.kind {
            Ok(kind) => Some(Token {
                kind,
                loc: t.loc,
                space_before: t.space_before,
            }),
            Err(message) => {
                diags.error(t.loc, message);
                None
            }
        })
        .collect()
}

/// Lexes a whole file into preprocessing tokens, with `Newline`s and a final `Eof`.
pub fn lex(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<PpToken> {
    Lexer {
        file,
        chars: splice(text),
        pos: 0,
        out: Vec::new(),
        space: false,
    }
    .run(diags)
}

/// Re-lexes the text made by `##` pasting: `Some` only if it is exactly one valid token.
pub fn lex_one(text: &str, loc: Loc) -> Option<PpToken> {
    let mut diags = Diagnostics::default();
    let mut tokens = lex(loc.file, text, &mut diags);
    tokens.pop(); // Eof
    match tokens.as_slice() {
        [t] if t.kind.is_ok() && !t.is_newline() && !diags.has_errors() => {
            let mut t = t.clone();
            t.loc = loc;
            Some(t)
        }
        _ => None,
    }
}

/// One byte of source text with its position in the original text.
#[derive(Clone, Copy)]
struct Ch {
    byte: u8,
    line: u32,
    col: u32,
}

/// Removes line splices (backslash-newline) while keeping each byte's original position.
fn splice(text: &str) -> Vec<Ch> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let (mut line, mut col) = (1u32, 1u32);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let splice_len = match (b, bytes.get(i + 1), bytes.get(i + 2)) {
            (b'\\', Some(b'\n'), _) => 2,
            (b'\\', Some(b'\r'), Some(b'\n')) => 3,
            _ => 0,
        };
        if splice_len > 0 {
            i += splice_len;
            line += 1;
            col = 1;
            continue;
        }
        out.push(Ch { byte: b, line, col });
        i += 1;
        if b == b'\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    out
}

/// Punctuators, longest first so the first match is the longest (C99 §6.4.6).
const PUNCTUATORS: &[&str] = &[
    "%:%:", "...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "*=", "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##", "<:", ":>", "<%", "%>", "%:", "[", "]",
    "(", ")", "{", "}", ".", "&", "*", "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":",
    ";", "=", ",", "#",
];

/// Digraphs and the punctuator each stands for.
fn canonical_punct(p: &'static str) -> &'static str {
    match p {
        "<:" => "[",
        ":>" => "]",
        "<%" => "{",
        "%>" => "}",
        "%:" => "#",
        "%:%:" => "##",
        _ => p,
    }
}

struct Lexer {
    file: FileId,
    chars: Vec<Ch>,
    pos: usize,
    out: Vec<PpToken>,
    /// Whitespace or a comment was seen since the last token.
    space: bool,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> u8 {
        self.chars.get(self.pos + ahead).map_or(0, |c| c.byte)
    }

    fn loc_at(&self, pos: usize) -> Loc {
        match self.chars.get(pos).or(self.chars.last()) {
            Some(c) => Loc {
                file: self.file,
                line: c.line,
                col: c.col,
            },
            None => Loc {
                file: self.file,
                line: 1,
                col: 1,
            },
        }
    }

    fn text(&self, start: usize, end: usize) -> String {
        let bytes: Vec<u8> = self.chars[start..end].iter().map(|c| c.byte).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn push(&mut self, start: usize, kind: Result<TokenKind, String>) {
        let spelling = self.text(start, self.pos);
        let loc = self.loc_at(start);
        self.out.push(PpToken {
            kind,
            loc,
            space_before: self.space,
            spelling,
        });
        self.space = false;
    }

    fn run(mut self, diags: &mut Diagnostics) -> Vec<PpToken> {
        while self.pos < self.chars.len() {
            let start = self.pos;
            match self.peek(0) {
                b'\n' => {
                    self.pos += 1;
                    self.push(start, Ok(TokenKind::Newline));
                    self.space = true;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                    self.pos += 1;
                    self.space = true;
                }
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(diags),
                b'0'..=b'9' => self.number(),
                b'.' if self.peek(1).is_ascii_digit() => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.identifier(),
                b'\'' | b'"' => self.quoted(),
                _ => self.punct_or_stray(),
            }
        }
        let end = self.chars.len();
        let mut loc = self.loc_at(end);
        if let Some(last) = self.chars.last() {
            loc = if last.byte == b'\n' {
                Loc {
                    file: self.file,
                    line: last.line + 1,
                    col: 1,
                }
            } else {
                Loc {
                    file: self.file,
                    line: last.line,
                    col: last.col + 1,
                }
            };
        }
        self.out.push(PpToken {
            kind: Ok(TokenKind::Eof),
            loc,
            space_before: self.space,
            spelling: String::new(),
        });
        self.out
    }

    fn line_comment(&mut self) {
        while self.pos < self.chars.len() && self.peek(0) != b'\n' {
            self.pos += 1;
        }
        self.space = true;
    }

    fn block_comment(&mut self, diags: &mut Diagnostics) {
        let start = self.pos;
        self.pos += 2;
        while self.pos < self.chars.len() && !(self.peek(0) == b'*' && self.peek(1) == b'/') {
            self.pos += 1;
        }
        if self.pos >= self.chars.len() {
            diags.error(self.loc_at(start), "unterminated /* comment");
        } else {
            self.pos += 2;
        }
        self.space = true;
    }

    fn identifier(&mut self) {
        let start = self.pos;
        while matches!(self.peek(0), b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
        let name = self.text(start, self.pos);
        self.push(start, Ok(TokenKind::Ident(name)));
    }

    /// A pp-number (C99 §6.4.8), then decoded as an integer or floating constant.
    fn number(&mut self) {
        let start = self.pos;
        loop {
            match self.peek(0) {
                b'e' | b'E' | b'p' | b'P' if matches!(self.peek(1), b'+' | b'-') => self.pos += 2,
                b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.' => self.pos += 1,
                _ => break,
            }
        }
        let kind = parse_number(&self.text(start, self.pos));
        self.push(start, kind);
    }

    /// A character or string literal; an unterminated one ends at the end of its line.
    fn quoted(&mut self) {
        let start = self.pos;
        let quote = self.peek(0);
        self.pos += 1;
        let mut terminated = false;
        while self.pos < self.chars.len() {
            match self.peek(0) {
                b'\n' => break,
                b'\\' if self.pos + 1 < self.chars.len() && self.peek(1) != b'\n' => self.pos += 2,
                b if b == quote => {
                    self.pos += 1;
                    terminated = true;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        let spelling = self.text(start, self.pos);
        let kind = if !terminated {
            Err(format!("missing terminating {} character", quote as char))
        } else if quote == b'"' {
            decode_escapes(&spelling[1..spelling.len() - 1]).map(TokenKind::Str)
        } else {
            char_value(&spelling[1..spelling.len() - 1]).map(TokenKind::Char)
        };
        self.push(start, kind);
    }

    fn punct_or_stray(&mut self) {
        let start = self.pos;
        let found = PUNCTUATORS
            .iter()
            .copied()
            .find(|p| p.bytes().enumerate().all(|(i, b)| self.peek(i) == b));
        if let Some(p) = found {
            self.pos += p.len();
            self.push(start, Ok(TokenKind::Punct(canonical_punct(p))));
            return;
        }
        // A stray character: take the whole UTF-8 sequence so the message shows it.
        self.pos += 1;
        while self.pos < self.chars.len() && self.peek(0) & 0xc0 == 0x80 {
            self.pos += 1;
        }
        let text = self.text(start, self.pos);
        self.push(start, Err(format!("stray '{text}' in program")));
    }
}

/// Decodes a pp-number into an integer or floating constant.
fn parse_number(text: &str) -> Result<TokenKind, String> {
    let lower = text.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    let is_float = if is_hex {
        lower.contains('.') || lower.contains('p')
    } else {
        lower.contains('.') || lower.contains('e')
    };
    match (is_float, is_hex) {
        (true, true) => parse_hex_float(&lower[2..]),
        (true, false) => parse_decimal_float(&lower),
        (false, _) => parse_integer(&lower),
    }
    .map_err(|why| format!("invalid numeric constant '{text}': {why}"))
}

fn parse_integer(text: &str) -> Result<TokenKind, String> {
    let (radix, body) = if let Some(hex) = text.strip_prefix("0x") {
        (16, hex)
    } else if text.starts_with('0') {
        (8, text)
    } else {
        (10, text)
    };
    let digits_end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    let (digits, suffix) = body.split_at(digits_end);
    if digits.is_empty() {
        return Err("no digits".into());
    }
    if radix == 8 && suffix.starts_with(|c: char| c.is_ascii_digit()) {
        return Err("invalid digit in octal constant".into());
    }
    let (unsigned, long) = match suffix {
        "" => (false, false),
        "u" => (true, false),
        "l" | "ll" => (false, true),
        "ul" | "lu" | "ull" | "llu" => (true, true),
        _ => return Err(format!("invalid suffix '{suffix}' on integer constant")),
    };
    let value = u64::from_str_radix(digits, radix).map_err(|_| "integer constant is too large")?;
    Ok(TokenKind::Int {
        value,
        unsigned,
        long,
        decimal: radix == 10,
    })
}

fn float_suffix(suffix: &str) -> Result<FloatSuffix, String> {
    match suffix {
        "" => Ok(FloatSuffix::None),
        "f" => Ok(FloatSuffix::F),
        "h" => Ok(FloatSuffix::H),
        _ => Err(format!("invalid suffix '{suffix}' on floating constant")),
    }
}

/// Splits `digits[.digits]` off the front of `text` (in `radix`), returning it and the rest.
fn split_mantissa(text: &str, radix: u32) -> (&str, &str) {
    let mut seen_dot = false;
    let end = text
        .find(|c: char| {
            if c == '.' && !seen_dot {
                seen_dot = true;
                false
            } else {
                !c.is_digit(radix)
            }
        })
        .unwrap_or(text.len());
    text.split_at(end)
}

/// Splits `[+-]digits` (an exponent) off the front of `text`.
fn split_exponent(text: &str) -> (&str, &str) {
    let sign = usize::from(text.starts_with(['+', '-']));
    let end = text[sign..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |e| e + sign);
    text.split_at(end)
}

fn parse_decimal_float(text: &str) -> Result<TokenKind, String> {
    let (mantissa, rest) = split_mantissa(text, 10);
    let (exponent, suffix) = match rest.strip_prefix('e') {
        Some(exp) => {
            let (digits, suffix) = split_exponent(exp);
            if !digits.ends_with(|c: char| c.is_ascii_digit()) {
                return Err("exponent has no digits".into());
            }
            (&rest[..digits.len() + 1], suffix)
        }
        None => ("", rest),
    };
    let suffix = float_suffix(suffix)?;
    let value: f64 = format!("{mantissa}{exponent}")
        .parse()
        .map_err(|_| "malformed")?;
    Ok(TokenKind::Float { value, suffix })
}

/// A hexadecimal floating constant after its `0x`: `h[.h]p[+-]d` (C99 §6.4.4.2).
fn parse_hex_float(text: &str) -> Result<TokenKind, String> {
    let (mantissa, rest) = split_mantissa(text, 16);
    let exp_text = rest
        .strip_prefix('p')
        .ok_or("hexadecimal floating constant requires an exponent")?;
    let (exp_digits, suffix) = split_exponent(exp_text);
    let suffix = float_suffix(suffix)?;
    let exp: i64 = exp_digits.parse().map_err(|_| "exponent has no digits")?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return Err("no digits".into());
    }
    // Gather the significant bits into a u64; bits that do not fit only matter as "sticky".
    let mut bits = 0u64;
    let mut scale = -4 * frac_part.len() as i64;
    let mut sticky = false;
    for digit in int_part
        .chars()
        .chain(frac_part.chars())
        .filter_map(|c| c.to_digit(16))
    {
        if bits >> 60 == 0 {
            bits = bits << 4 | u64::from(digit);
        } else {
            sticky |= digit != 0;
            scale += 4;
        }
    }
    let value = compose_f64(bits, sticky, exp.saturating_add(scale));
    Ok(TokenKind::Float { value, suffix })
}

/// `bits × 2^exp`, correctly rounded to nearest-even (`sticky`: nonzero bits below `bits`).
fn compose_f64(bits: u64, sticky: bool, exp: i64) -> f64 {
    if bits == 0 {
        return 0.0;
    }
    let shift = bits.leading_zeros();
    let bits = bits << shift;
    // Now value = bits / 2^63 × 2^e, with the top bit of `bits` set.
    let e = exp.saturating_add(63 - i64::from(shift));
    if e > 1023 {
        return f64::INFINITY;
    }
    // Bits dropped below the 53-bit significand: 11 for a normal number, more if subnormal.
    let drop = if e >= -1022 { 11 } else { 11 + (-1022 - e) };
    if drop > 64 {
        return 0.0;
    }
    let kept = if drop == 64 { 0 } else { bits >> drop };
    let rest_mask = if drop == 64 {
        u64::MAX
    } else {
        (1u64 << drop) - 1
    };
    let rest = bits & rest_mask;
    let half = 1u64 << (drop - 1);
    let round_up = rest > half || (rest == half && (sticky || kept & 1 == 1));
    let mantissa = kept + u64::from(round_up);
    // `mantissa` counts units of 2^(e-52) (normal) or 2^-1074 (subnormal); carries are fine.
    let unit_exp = if e >= -1022 { e - 52 } else { -1074 };
    scale2(mantissa as f64, unit_exp)
}

/// `x × 2^exp` for an exact `x`, in steps so no intermediate power overflows.
fn scale2(mut x: f64, mut exp: i64) -> f64 {
    while exp > 0 {
        let step = exp.min(1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        exp -= step;
    }
    while exp < 0 {
        let step = (-exp).min(1000);
        x *= f64::from_bits(((1023 - step) as u64) << 52);
        exp += step;
    }
    x
}

/// The value of a character constant's body (between the quotes).
fn char_value(body: &str) -> Result<u32, String> {
    let decoded = decode_escapes(body)?;
    let mut chars = decoded.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Err("empty character constant".into()),
        (Some(c), None) => Ok(c as u32),
        (Some(_), Some(_)) => Err("multi-character character constant".into()),
    }
}

/// Decodes the escape sequences of a string or character literal's body. Byte values from
/// `\x` and octal escapes above 0x7f become the Unicode code point of that value.
fn decode_escapes(body: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            return Err("incomplete escape sequence".into());
        };
        let decoded = match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\x07',
            'b' => '\x08',
            'f' => '\x0c',
            'v' => '\x0b',
            'x' => {
                let mut value = 0u32;
                let mut any = false;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(16)) {
                    value = value.saturating_mul(16).saturating_add(d);
                    any = true;
                    chars.next();
                }
                if !any {
                    return Err("\\x used with no following hex digits".into());
                }
                if value > 0xff {
                    return Err("hex escape sequence out of range".into());
                }
                char::from(value as u8)
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                if value > 0xff {
                    return Err("octal escape sequence out of range".into());
                }
                char::from(value as u8)
            }
            // \' \" \? \\ and unknown escapes stand for the character itself.
            other => other,
        };
        out.push(decoded);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::source::SourceMap;

    fn kinds(text: &str) -> Vec<TokenKind> {
        let mut diags = Diagnostics::default();
        let toks = tokenize(0, text, &mut diags);
        assert!(diags.list.is_empty(), "{:?}", diags.list);
        toks.into_iter()
            .map(|t| t.kind)
            .filter(|k| *k != TokenKind::Eof)
            .collect()
    }

    fn one(text: &str) -> TokenKind {
        let k = kinds(text);
        assert_eq!(k.len(), 1, "{text}: {k:?}");
        k[0].clone()
    }

    fn float(value: f64, suffix: FloatSuffix) -> TokenKind {
        TokenKind::Float { value, suffix }
    }

    fn int(value: u64, unsigned: bool, long: bool, decimal: bool) -> TokenKind {
        TokenKind::Int {
            value,
            unsigned,
            long,
            decimal,
        }
    }

    fn error_of(text: &str) -> String {
        let mut diags = Diagnostics::default();
        tokenize(0, text, &mut diags);
        assert_eq!(diags.list.len(), 1, "{text}: {:?}", diags.list);
        diags.list[0].message.clone()
    }

    #[test]
    fn integers() {
        assert_eq!(one("0"), int(0, false, false, false));
        assert_eq!(one("42"), int(42, false, false, true));
        assert_eq!(one("017"), int(15, false, false, false));
        assert_eq!(one("0x1F"), int(31, false, false, false));
        assert_eq!(one("0XffU"), int(255, true, false, false));
        assert_eq!(one("10l"), int(10, false, true, true));
        assert_eq!(one("10UL"), int(10, true, true, true));
        assert_eq!(one("10lu"), int(10, true, true, true));
        assert_eq!(one("7ll"), int(7, false, true, true));
        assert_eq!(one("7ull"), int(7, true, true, true));
        assert_eq!(one("18446744073709551615"), int(u64::MAX, false, false, true));
        assert_eq!(one("0x1e"), int(30, false, false, false));
    }

    #[test]
    fn floats() {
        assert_eq!(one("1.f"), float(1.0, FloatSuffix::F));
        assert_eq!(one(".5"), float(0.5, FloatSuffix::None));
        assert_eq!(one("1e-3f"), float(0.001, FloatSuffix::F));
        assert_eq!(one("2.5E+2"), float(250.0, FloatSuffix::None));
        assert_eq!(one("1.5h"), float(1.5, FloatSuffix::H));
        assert_eq!(one("3.0F"), float(3.0, FloatSuffix::F));
        assert_eq!(one("0x1.8p3"), float(12.0, FloatSuffix::None));
        assert_eq!(one("0x1p-2f"), float(0.25, FloatSuffix::F));
        assert_eq!(one("0x.8P1"), float(1.0, FloatSuffix::None));
        assert_eq!(
            one("0x1p-1074"),
            float(f64::from_bits(1), FloatSuffix::None)
        );
        assert_eq!(
            one("0x1.fffffffffffffp1023"),
            float(f64::MAX, FloatSuffix::None)
        );
        // Halfway between 1 and the next double: ties to even (1.0); just above: rounds up.
        assert_eq!(one("0x1.00000000000008p0"), float(1.0, FloatSuffix::None));
        assert_eq!(
            one("0x1.000000000000081p0"),
            float(1.0 + f64::EPSILON, FloatSuffix::None)
        );
        assert_eq!(
            one("0x1.00000000000018p0"),
            float(1.0 + 2.0 * f64::EPSILON, FloatSuffix::None)
        );
    }

    #[test]
    fn bad_numbers_are_diagnosed() {
        assert!(error_of("1.0q").contains("invalid suffix 'q'"));
        assert!(error_of("12abc").contains("invalid suffix 'abc'"));
        assert!(error_of("09").contains("octal"));
        assert!(error_of("0x1.8").contains("requires an exponent"));
        assert!(error_of("1e+").contains("exponent"));
        assert!(error_of("99999999999999999999").contains("too large"));
        assert!(error_of("1f").contains("invalid suffix 'f' on integer"));
    }

    #[test]
    fn punctuators_longest_match() {
        let p = |s: &'static str| TokenKind::Punct(s);
        assert_eq!(
            kinds("a<<=b>>=c->d...##x#"),
            vec![
                TokenKind::Ident("a".into()),
                p("<<="),
                TokenKind::Ident("b".into()),
                p(">>="),
                TokenKind::Ident("c".into()),
                p("->"),
                TokenKind::Ident("d".into()),
                p("..."),
                p("##"),
                TokenKind::Ident("x".into()),
                p("#"),
            ]
        );
        assert_eq!(
            kinds("x+++y"),
            vec![
                TokenKind::Ident("x".into()),
                p("++"),
                p("+"),
                TokenKind::Ident("y".into())
            ]
        );
        assert_eq!(kinds("<: %>"), vec![p("["), p("}")]);
        assert_eq!(kinds(".."), vec![p("."), p(".")]);
    }

    #[test]
    fn comments_and_splices() {
        let toks = tokenize(
            0,
            "a /* x\n y */ b // c \\\n d\ne\\\nf",
            &mut Diagnostics::default(),
        );
        let got: Vec<(TokenKind, u32, u32)> = toks
            .iter()
            .map(|t| (t.kind.clone(), t.loc.line, t.loc.col))
            .collect();
        assert_eq!(
            got,
            vec![
                (TokenKind::Ident("a".into()), 1, 1),
                (TokenKind::Ident("b".into()), 2, 7),
                // The line comment continues across the splice onto line 3.
                (TokenKind::Newline, 3, 3),
                (TokenKind::Ident("ef".into()), 4, 1),
                (TokenKind::Eof, 5, 2),
            ]
        );
        assert!(toks[1].space_before);
        assert!(!toks[0].space_before);
    }

    #[test]
    fn char_and_string_literals() {
        assert_eq!(one("'a'"), TokenKind::Char(97));
        assert_eq!(one("'\\n'"), TokenKind::Char(10));
        assert_eq!(one("'\\''"), TokenKind::Char(39));
        assert_eq!(one("'\\x41'"), TokenKind::Char(65));
        assert_eq!(one("'\\101'"), TokenKind::Char(65));
        assert_eq!(one("'\\0'"), TokenKind::Char(0));
        assert_eq!(one(r#""a\"b\\c\td""#), TokenKind::Str("a\"b\\c\td".into()));
        assert_eq!(one(r#""%d\n""#), TokenKind::Str("%d\n".into()));
        assert_eq!(one(r#""""#), TokenKind::Str(String::new()));
    }

    #[test]
    fn bad_input_is_diagnosed_not_panicking() {
        assert_eq!(error_of("a @ b"), "stray '@' in program");
        assert_eq!(error_of("x é"), "stray 'é' in program");
        assert!(error_of("\"abc\n").contains("missing terminating \""));
        assert!(error_of("'ab'").contains("multi-character"));
        assert!(error_of("''").contains("empty character"));
        assert!(error_of("'\\x100'").contains("out of range"));
        assert_eq!(error_of("a /* never closed"), "unterminated /* comment");
        for text in [
            "\\", "'", "\"\\", "0x", "0xp", ".", "/*", "'\\", "1e", "0x.p1", "\\\r",
        ] {
            tokenize(0, text, &mut Diagnostics::default());
        }
    }

    #[test]
    fn stray_character_location_and_render() {
        let mut sources = SourceMap::default();
        let text = "kernel void f() {\n  int x = 1 @ 2;\n}\n";
        let file = sources.add("prog.cl", text);
        let mut diags = Diagnostics::default();
        tokenize(file, text, &mut diags);
        assert_eq!(
            diags.render(&sources),
            "prog.cl:2:13: error: stray '@' in program\n  int x = 1 @ 2;\n            ^\n"
        );
    }

    #[test]
    fn relex_for_pasting() {
        let loc = Loc {
            file: 0,
            line: 3,
            col: 4,
        };
        let t = lex_one("<<=", loc).map(|t| (t.kind, t.loc));
        assert_eq!(t, Some((Ok(TokenKind::Punct("<<=")), loc)));
        assert_eq!(
            lex_one("xy12", loc).and_then(|t| t.ident().map(String::from)),
            Some("xy12".into())
        );
        assert!(lex_one("+-", loc).is_none());
        assert!(lex_one("//", loc).is_none());
        assert!(lex_one("", loc).is_none());
        assert!(lex_one("@", loc).is_none());
    }
}
