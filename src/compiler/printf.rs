//! `printf` (OpenCL C 3.0 §6.15.14): the format strings a build records, parsed at compile time,
//! and the layout of the records kernels write into the printf buffer. The runtime
//! (`core/printf.rs`) turns the records back into text once the command has completed.
//!
//! The buffer holds a word counter, then records of u32 words: the format's index in
//! [`crate::compiler::Program::printf`], then each argument's value (see [`Operand`]).

/// `CL_DEVICE_PRINTF_BUFFER_SIZE`: the bytes of the buffer a launch of a kernel that calls
/// printf gets, counter included.
pub const BUFFER_SIZE: u32 = 1 << 20;

/// Words of records the buffer holds after its counter.
pub const CAPACITY_WORDS: u32 = BUFFER_SIZE / 4 - 1;

/// Written where the first record that did not fit would have begun: the output ends there.
pub const END_MARK: u32 = u32::MAX;

/// Field widths and precisions beyond this are refused (the host builds each field in memory).
pub const MAX_FIELD: u32 = 65535;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `-`
    pub left: bool,
    /// `+`
    pub plus: bool,
    /// space
    pub space: bool,
    /// `#`
    pub alt: bool,
    /// `0`
    pub zero: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    None,
    Hh,
    H,
    /// Only with a vector specifier: `int`/`uint`/`float` elements.
    Hl,
    L,
}

/// What a conversion specifier prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// `d i o u x X`
    Int,
    /// `f F e E g G a A`
    Float,
    /// `c`
    Char,
    /// `s`
    Str,
    /// `p`
    Pointer,
}

/// One conversion specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub flags: Flags,
    /// 0 when absent.
    pub width: u32,
    pub precision: Option<u32>,
    /// The vector specifier's element count; 1 for a scalar.
    pub vector: u8,
    pub length: Length,
    /// The conversion specifier character (`b'd'`, `b'f'`, ...).
    pub conversion: u8,
}

impl Spec {
    pub fn class(&self) -> Class {
        match self.conversion {
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Class::Float,
            b'c' => Class::Char,
            b's' => Class::Str,
            b'p' => Class::Pointer,
            _ => Class::Int,
        }
    }

    /// The specification as written (for messages).
    pub fn text(&self) -> String {
        let f = self.flags;
        let mut s = String::from("%");
        for (on, c) in [(f.left, '-'), (f.plus, '+'), (f.space, ' '), (f.alt, '#'), (f.zero, '0')] {
            if on {
                s.push(c);
            }
        }
        if self.width > 0 {
            s += &self.width.to_string();
        }
        if let Some(p) = self.precision {
            s += &format!(".{p}");
        }
        if self.vector > 1 {
            s += &format!("v{}", self.vector);
        }
        s += match self.length {
            Length::None => "",
            Length::Hh => "hh",
            Length::H => "h",
            Length::Hl => "hl",
            Length::L => "l",
        };
        s.push(self.conversion as char);
        s
    }
}

/// Where a conversion's argument lies in a record, and how it was stored. Integers narrower
/// than 32 bits, `float` and 32-bit pointers take one word each (vectors: one per element,
/// which the length modifier says how to read); 64-bit values two, low word first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// Index of its first word in the record (the format index is word 0).
    pub at: u32,
    /// Elements (the vector specifier's count, or 1).
    pub count: u8,
    /// Words per element: 1 or 2.
    pub words: u8,
    pub float: bool,
    /// A scalar integer of a signed type (it sign-extends to `long` for `%ld`).
    pub signed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Characters copied to the output (`%%` is one `%` here).
    Text(Vec<u8>),
    /// A conversion of an argument stored in the record.
    Value(Spec, Operand),
    /// `%s` of a string literal, known at compile time (its bytes up to the NUL).
    Literal(Spec, Vec<u8>),
}

/// One `printf` call of a program: its format and the layout of its records.
#[derive(Clone, Debug, PartialEq)]
pub struct Format {
    pub pieces: Vec<Piece>,
    /// The record's length in words, the format index included.
    pub words: u32,
}

/// The format string parsed: text and conversion specifications, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Text(Vec<u8>),
    Conversion(Spec),
}

/// Parses a format string (its bytes before the NUL), checking it against OpenCL C's rules:
/// no `*` width or precision, no `n` conversion, no `ll`/`j`/`z`/`t`/`L` lengths (reserved),
/// `hl` only with a vector specifier, a length modifier with every vector specifier, and
/// only the combinations the specification defines. The error is a message.
pub fn parse(format: &[u8]) -> Result<Vec<Parsed>, String> {
    let mut out: Vec<Parsed> = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            text.push(format[i]);
            i += 1;
            continue;
        }
        if format.get(i + 1) == Some(&b'%') {
            text.push(b'%');
            i += 2;
            continue;
        }
        let (spec, next) = specification(format, i + 1)?;
        if !text.is_empty() {
            out.push(Parsed::Text(std::mem::take(&mut text)));
        }
        out.push(Parsed::Conversion(spec));
        i = next;
    }
    if !text.is_empty() {
        out.push(Parsed::Text(text));
    }
    Ok(out)
}

/// A decimal number at `i` (none: `None`); the index after it.
fn number(s: &[u8], mut i: usize, what: &str) -> Result<(Option<u32>, usize), String> {
    let start = i;
    let mut v: u64 = 0;
    while let Some(d) = s.get(i).filter(|c| c.is_ascii_digit()) {
        v = (v * 10 + u64::from(d - b'0')).min(u64::from(u32::MAX));
        i += 1;
    }
    if i == start {
        return Ok((None, i));
    }
    if v > u64::from(MAX_FIELD) {
        return Err(format!("a {what} above {MAX_FIELD} is not supported"));
    }
    Ok((Some(v as u32), i))
}

/// The specification after the `%` at `i - 1`; the index after it.
fn specification(s: &[u8], mut i: usize) -> Result<(Spec, usize), String> {
    let start = i - 1;
    let written = |end: usize| String::from_utf8_lossy(&s[start..end.min(s.len())]).into_owned();
    let mut flags = Flags::default();
    loop {
        match s.get(i) {
            Some(b'-') => flags.left = true,
            Some(b'+') => flags.plus = true,
            Some(b' ') => flags.space = true,
            Some(b'#') => flags.alt = true,
            Some(b'0') => flags.zero = true,
            _ => break,
        }
        i += 1;
    }
    if s.get(i) == Some(&b'*') {
        return Err(format!("'{}': the '*' field width is not supported by OpenCL C", written(i + 1)));
    }
    let (width, next) = number(s, i, "field width")?;
    i = next;
    let mut precision = None;
    if s.get(i) == Some(&b'.') {
        i += 1;
        if s.get(i) == Some(&b'*') {
            return Err(format!("'{}': the '*' precision is not supported by OpenCL C", written(i + 1)));
        }
        let (p, next) = number(s, i, "precision")?;
        precision = Some(p.unwrap_or(0));
        i = next;
    }
    let mut vector = 1;
    if s.get(i) == Some(&b'v') {
        let (n, next) = number(s, i + 1, "vector size")?;
        match n {
            Some(n @ (2 | 3 | 4 | 8 | 16)) => vector = n as u8,
            _ => return Err(format!("'{}': the vector specifier must be v2, v3, v4, v8 or v16", written(next + 1))),
        }
        i = next;
    }
    let (length, next) = match (s.get(i), s.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => (Length::Hh, i + 2),
        (Some(b'h'), Some(b'l')) => (Length::Hl, i + 2),
        (Some(b'h'), _) => (Length::H, i + 1),
        (Some(b'l'), Some(b'l')) => return Err(format!("'{}': the length modifier 'll' is reserved in OpenCL C", written(i + 3))),
        (Some(b'l'), _) => (Length::L, i + 1),
        (Some(&m @ (b'j' | b'z' | b't' | b'L')), _) => {
            return Err(format!("'{}': the length modifier '{}' is reserved in OpenCL C", written(i + 2), m as char));
        }
        _ => (Length::None, i),
    };
    i = next;
    let Some(&conversion) = s.get(i) else {
        return Err(format!("'{}': the format ends inside a conversion specification", written(i)));
    };
    let spec = Spec { flags, width: width.unwrap_or(0), precision, vector, length, conversion };
    check(&spec).map_err(|m| format!("'{}': {m}", written(i + 1)))?;
    Ok((spec, i + 1))
}

/// The combinations of vector specifier, length modifier and conversion OpenCL C defines.
fn check(spec: &Spec) -> Result<(), String> {
    let c = spec.conversion as char;
    match spec.conversion {
        b'%' => return Err("'%%' takes no flags, width, precision or modifiers".into()),
        b'n' => return Err("the conversion specifier 'n' is reserved in OpenCL C".into()),
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' | b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' | b'c' | b's' | b'p' => {}
        _ if c.is_ascii_graphic() => return Err(format!("invalid conversion specifier '{c}'")),
        _ => return Err("invalid conversion specifier".into()),
    }
    let class = spec.class();
    let vector = spec.vector > 1;
    match (class, vector, spec.length) {
        (Class::Char | Class::Str | Class::Pointer, true, _) => Err(format!("a vector specifier cannot be used with '%{c}'")),
        (Class::Char | Class::Str | Class::Pointer, false, Length::None) => Ok(()),
        (Class::Char | Class::Str | Class::Pointer, false, _) => Err(format!("'%{c}' takes no length modifier")),
        (_, true, Length::None) => Err("a vector specifier needs a length modifier (hh, h, hl or l)".into()),
        (_, false, Length::Hl) => Err("the length modifier 'hl' needs a vector specifier".into()),
        (Class::Float, true, Length::Hh) => Err(format!("the length modifier 'hh' cannot be used with '%{c}'")),
        (Class::Float, false, Length::Hh | Length::H) => {
            Err(format!("the length modifier 'h' applies to '%{c}' only with a vector specifier (half vectors)"))
        }
        _ => Ok(()),
    }
}

/// Words an element of `bytes` bytes takes in a record.
pub fn element_words(bytes: u32) -> u32 {
    if bytes > 4 { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Spec {
        match parse(text.as_bytes()).expect("valid").as_slice() {
            [Parsed::Conversion(s)] => s.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_and_percent() {
        assert_eq!(parse(b"a%%b").unwrap(), vec![Parsed::Text(b"a%b".to_vec())]);
        assert_eq!(parse(b"").unwrap(), vec![]);
    }

    #[test]
    fn full_specification() {
        let s = spec("%-+ #012.5v4hlx");
        assert_eq!(s.flags, Flags { left: true, plus: true, space: true, alt: true, zero: true });
        assert_eq!((s.width, s.precision, s.vector, s.length, s.conversion), (12, Some(5), 4, Length::Hl, b'x'));
        assert_eq!(spec("%.f").precision, Some(0));
        assert_eq!(spec("%lf").length, Length::L);
        assert_eq!(spec("%v16hhu").vector, 16);
        assert_eq!(spec("%2.2v4hlf").text(), "%2.2v4hlf");
    }

    #[test]
    fn forbidden_forms() {
        for (f, msg) in [
            ("%*d", "'*' field width"),
            ("%.*d", "'*' precision"),
            ("%lld", "'ll' is reserved"),
            ("%zd", "'z' is reserved"),
            ("%jd", "'j' is reserved"),
            ("%Lf", "'L' is reserved"),
            ("%n", "'n' is reserved"),
            ("%hld", "'hl' needs a vector"),
            ("%v4d", "needs a length modifier"),
            ("%v5hd", "v2, v3, v4, v8 or v16"),
            ("%v4hhs", "cannot be used with '%s'"),
            ("%lc", "takes no length"),
            ("%ls", "takes no length"),
            ("%v2hhf", "'hh' cannot be used"),
            ("%hf", "only with a vector"),
            ("%y", "invalid conversion specifier 'y'"),
            ("%5%", "takes no flags"),
            ("abc%", "ends inside"),
            ("%1000000d", "above 65535"),
        ] {
            let e = parse(f.as_bytes()).expect_err(f);
            assert!(e.contains(msg), "{f}: {e}");
        }
    }
}
