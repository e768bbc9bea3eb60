//! `printf` calls (OpenCL C 3.0 §6.15.14): the format, a string literal, is parsed here and
//! recorded in [`super::model::Program::printf`] with the layout of the call's records; the
//! call keeps the values its record stores, each converted as the conversion reads it
//! (integer promotions, `float` → `double` where the device has it, pointers → `uintptr_t`).
//! `%s` prints a string literal, whose bytes the format keeps: nothing of it reaches the device.

use super::derived::{node, seq};
use super::expr::STRING_LITERAL;
use super::model::{Builtin, Expr, ExprKind, PlaceKind, Scalar, Type};
use super::Sema;
use crate::compiler::printf::{element_words, parse, Class, Format, Length, Operand, Parsed, Piece, Spec};
use crate::compiler::source::Loc;

impl Sema<'_> {
    /// `printf(format, ...)`: the `int` result of call number n of the program, after the
    /// arguments the format does not use (evaluated, otherwise ignored).
    pub(super) fn printf_call(&mut self, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let mut args = args.into_iter();
        let Some(format) = args.next() else {
            return self.err(loc, "'printf' needs a format string");
        };
        let Some(text) = self.format_text(&format) else {
            return self.err(format.loc, "the format of 'printf' must be a string literal (or a __constant char array): OpenCL C resolves it at compile time");
        };
        let parsed = match parse(&text) {
            Ok(p) => p,
            Err(m) => return self.err(format.loc, format!("invalid printf format: {m}")),
        };
        let (mut pieces, mut stored, mut words) = (Vec::new(), Vec::new(), 1u32);
        for p in parsed {
            let spec = match p {
                Parsed::Text(t) => {
                    pieces.push(Piece::Text(t));
                    continue;
                }
                Parsed::Conversion(s) => s,
            };
            let Some(arg) = args.next() else {
                return self.err(format.loc, format!("the printf format has more conversions than arguments: '{}' has none", spec.text()));
            };
            if spec.class() == Class::Str {
                let s = self.string_argument(&spec, &arg)?;
                pieces.push(Piece::Literal(spec, s));
                continue;
            }
            let value = self.printf_value(&spec, arg)?;
            let (count, elem) = match &value.ty {
                Type::Vector(s, n) => (*n, *s),
                t => (1, t.scalar()?),
            };
            let ew = element_words(elem.size());
            let signed = elem.is_integer() && elem.is_signed();
            pieces.push(Piece::Value(spec, Operand { at: words, count, words: ew as u8, float: elem.is_float(), signed }));
            words += ew * u32::from(count);
            stored.push(value);
        }
        let id = self.printf.len() as u32;
        self.printf.push(Format { pieces, words });
        let mut call = node(ExprKind::Builtin(Builtin::Printf(id), stored), Type::Scalar(Scalar::Int), loc);
        for extra in args.rev() {
            call = seq(extra, call);
        }
        Some(call)
    }

    /// The bytes (up to the NUL) of a string literal or whole `__constant` char array.
    fn format_text(&self, e: &Expr) -> Option<Vec<u8>> {
        let ExprKind::Decay(place) = &e.kind else { return None };
        let PlaceKind::Constant(id) = place.kind else { return None };
        if self.pending_constants.contains(&id.0) {
            return None;
        }
        let c = self.constants.get(id.0 as usize)?;
        if !matches!(&c.ty, Type::Array { elem, .. } if matches!(**elem, Type::Scalar(Scalar::Char | Scalar::UChar))) {
            return None;
        }
        Some(c.bytes.iter().copied().take_while(|&b| b != 0).collect())
    }

    /// The text `%s` prints: its argument must be a string literal.
    fn string_argument(&mut self, spec: &Spec, arg: &Expr) -> Option<Vec<u8>> {
        let literal = match &arg.kind {
            ExprKind::Decay(p) => match p.kind {
                PlaceKind::Constant(id) => self.constants.get(id.0 as usize).filter(|c| c.name == STRING_LITERAL),
                _ => None,
            },
            _ => None,
        };
        match literal {
            Some(c) => Some(c.bytes.iter().copied().take_while(|&b| b != 0).collect()),
            None => self.err(arg.loc, format!("the argument of '{}' must be a string literal in OpenCL C", spec.text())),
        }
    }

    /// The value a conversion's record stores. Scalars mismatching the conversion's kind are
    /// undefined behaviour in C, which compilers warn about: here they are converted as the
    /// conversion reads them.
    fn printf_value(&mut self, spec: &Spec, arg: Expr) -> Option<Expr> {
        if spec.vector > 1 {
            return self.printf_vector(spec, arg);
        }
        let class = spec.class();
        let float = Type::Scalar(if self.target.fp64 { Scalar::Double } else { Scalar::Float });
        let wanted = match class {
            Class::Int | Class::Char => "an integer",
            Class::Float => "a floating-point value",
            _ => "a pointer",
        };
        let mismatch = |sema: &mut Self, arg: &Expr| {
            let message = format!("'{}' expects {wanted}, but the argument has type '{}'", spec.text(), sema.type_str(&arg.ty));
            sema.diags.warning(arg.loc, message);
        };
        let loc = arg.loc;
        match (class, arg.ty.clone()) {
            (Class::Int | Class::Char, Type::Scalar(s)) if !s.is_float() => Some(self.promoted(arg, s)),
            (Class::Float, Type::Scalar(s)) if s.is_float() => Some(self.convert(arg, &float)),
            (Class::Pointer, Type::Pointer { .. }) => self.cast(arg, &self.size_type(), loc),
            (Class::Int | Class::Char, Type::Scalar(_)) => {
                mismatch(self, &arg);
                let int = if spec.length == Length::L { Scalar::Long } else { Scalar::Int };
                Some(self.convert(arg, &Type::Scalar(int)))
            }
            (Class::Int | Class::Char, Type::Pointer { .. }) => {
                mismatch(self, &arg);
                self.cast(arg, &self.size_type(), loc)
            }
            (Class::Float, Type::Scalar(_)) => {
                mismatch(self, &arg);
                Some(self.convert(arg, &float))
            }
            (Class::Pointer, Type::Scalar(s)) if !s.is_float() => {
                mismatch(self, &arg);
                Some(self.convert(arg, &self.size_type()))
            }
            (_, Type::Vector(s, n)) => self.err(
                loc,
                format!("'{}' prints a scalar, not a '{}'; a vector needs a vector specifier such as '%v{n}{}'", spec.text(), self.type_str(&arg.ty), vector_form(s)),
            ),
            (_, t) => self.err(loc, format!("'{}' cannot print a value of type '{}'", spec.text(), self.type_str(&t))),
        }
    }

    /// The integer promotions: types narrower than `int` (and `bool`) become `int`.
    fn promoted(&self, arg: Expr, s: Scalar) -> Expr {
        if s.size() < 4 {
            self.convert(arg, &Type::Scalar(Scalar::Int))
        } else {
            arg
        }
    }

    /// A vector argument: it must be of the type the vector specifier and length modifier
    /// name (OpenCL C converts no vector implicitly); `half` elements are stored as `float`.
    fn printf_vector(&mut self, spec: &Spec, arg: Expr) -> Option<Expr> {
        let float = spec.class() == Class::Float;
        let (elems, names): (&[Scalar], &str) = match (float, spec.length) {
            (false, Length::Hh) => (&[Scalar::Char, Scalar::UChar], "char or uchar"),
            (false, Length::H) => (&[Scalar::Short, Scalar::UShort], "short or ushort"),
            (false, Length::Hl) => (&[Scalar::Int, Scalar::UInt], "int or uint"),
            (false, _) => (&[Scalar::Long, Scalar::ULong], "long or ulong"),
            (true, Length::H) => (&[Scalar::Half], "half"),
            (true, Length::Hl) => (&[Scalar::Float], "float"),
            (true, _) => (&[Scalar::Double], "double"),
        };
        match arg.ty {
            Type::Vector(s, n) if n == spec.vector && elems.contains(&s) => {
                Some(if s == Scalar::Half { self.convert(arg, &Type::Vector(Scalar::Float, n)) } else { arg })
            }
            _ => {
                let n = spec.vector;
                let message = format!("the argument of '{}' must be a {names} vector of {n} ({}{n}), not '{}'", spec.text(), elems[0].name(), self.type_str(&arg.ty));
                self.err(arg.loc, message)
            }
        }
    }
}

/// The length modifier and a conversion for vectors of `s` (for messages).
fn vector_form(s: Scalar) -> &'static str {
    match s {
        Scalar::Char | Scalar::UChar => "hhd",
        Scalar::Short | Scalar::UShort => "hd",
        Scalar::Int | Scalar::UInt => "hld",
        Scalar::Long | Scalar::ULong => "ld",
        Scalar::Half => "hf",
        Scalar::Float => "hlf",
        _ => "lf",
    }
}
