//! `#if` / `#elif` expressions (C99 §6.10.1): integer constant expressions over `intmax_t` /
//! `uintmax_t` (64 bits), evaluated after macro expansion and `defined`.

use super::super::diag::Diagnostics;
use super::super::lex::PpToken;
use super::super::source::Loc;
use super::super::token::TokenKind;

/// Parentheses and unary operators nest at most this deep.
const MAX_DEPTH: usize = 64;

/// Evaluates a `#if` expression; an invalid one is reported and counts as false.
pub(super) fn evaluate(tokens: &[PpToken], at: Loc, diags: &mut Diagnostics) -> bool {
    if tokens.is_empty() {
        diags.error(at, "expected an expression after the directive");
        return false;
    }
    let mut eval = Eval {
        tokens,
        pos: 0,
        at,
        error: None,
        depth: 0,
    };
    let value = eval.comma(true);
    if eval.error.is_none() {
        if let Some(extra) = tokens.get(eval.pos) {
            eval.fail(
                extra.loc,
                format!("unexpected '{}' in preprocessor expression", extra.spelling),
            );
        }
    }
    match eval.error {
        Some((loc, message)) => {
            diags.error(loc, message);
            false
        }
        None => value.bits != 0,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Value {
    bits: u64,
    unsigned: bool,
}

impl Value {
    fn signed(bits: u64) -> Value {
        Value {
            bits,
            unsigned: false,
        }
    }

    fn bool(b: bool) -> Value {
        Value::signed(u64::from(b))
    }
}

struct Eval<'t> {
    tokens: &'t [PpToken],
    pos: usize,
    at: Loc,
    /// The first error; evaluation carries on quietly after it.
    error: Option<(Loc, String)>,
    depth: usize,
}

/// Binary operators by precedence, loosest first (`?:` and `,` are handled apart).
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Eval<'_> {
    fn fail(&mut self, loc: Loc, message: impl Into<String>) {
        if self.error.is_none() {
            self.error = Some((loc, message.into()));
        }
    }

    fn peek_punct(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos)?.kind {
            Ok(TokenKind::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn loc(&self) -> Loc {
        self.tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(self.at, |t| t.loc)
    }

    fn expect(&mut self, punct: &str) {
        if self.peek_punct() == Some(punct) {
            self.pos += 1;
        } else {
            let loc = self.loc();
            self.fail(
                loc,
                format!("expected '{punct}' in preprocessor expression"),
            );
        }
    }

    /// `live` is false in an operand that short-circuiting skips: no errors from it then.
    fn comma(&mut self, live: bool) -> Value {
        let mut value = self.conditional(live);
        while self.peek_punct() == Some(",") {
            self.pos += 1;
            value = self.conditional(live);
        }
        value
    }

    fn conditional(&mut self, live: bool) -> Value {
        let cond = self.binary(0, live);
        if self.peek_punct() != Some("?") {
            return cond;
        }
        self.pos += 1;
        let taken = cond.bits != 0;
        let a = self.nested(|e| e.comma(live && taken));
        self.expect(":");
        let b = self.nested(|e| e.conditional(live && !taken));
        let unsigned = a.unsigned || b.unsigned;
        Value {
            bits: if taken { a.bits } else { b.bits },
            unsigned,
        }
    }

    fn binary(&mut self, level: usize, live: bool) -> Value {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary(live);
        };
        let mut lhs = self.binary(level + 1, live);
        while let Some(op) = self.peek_punct().filter(|p| ops.contains(p)) {
            let loc = self.loc();
            self.pos += 1;
            let rhs_live = match op {
                "&&" => live && lhs.bits != 0,
                "||" => live && lhs.bits == 0,
                _ => live,
            };
            let rhs = self.binary(level + 1, rhs_live);
            lhs = match apply(op, lhs, rhs) {
                Ok(v) => v,
                Err(message) => {
                    if rhs_live {
                        self.fail(loc, message);
                    }
                    Value::signed(0)
                }
            };
        }
        lhs
    }

    /// Runs `f` one level deeper, failing instead of recursing without bound.
    fn nested(&mut self, f: impl FnOnce(&mut Self) -> Value) -> Value {
        if self.depth >= MAX_DEPTH {
            let loc = self.loc();
            self.fail(loc, "preprocessor expression nested too deeply");
            self.pos = self.tokens.len();
            return Value::signed(0);
        }
        self.depth += 1;
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn unary(&mut self, live: bool) -> Value {
        let loc = self.loc();
        let Some(tok) = self.tokens.get(self.pos) else {
            self.fail(loc, "expected a value in preprocessor expression");
            return Value::signed(0);
        };
        self.pos += 1;
        match &tok.kind {
            Ok(TokenKind::Punct("(")) => {
                let v = self.nested(|e| e.comma(live));
                self.expect(")");
                v
            }
            Ok(TokenKind::Punct(op @ ("+" | "-" | "~" | "!"))) => {
                let v = self.nested(|e| e.unary(live));
                match *op {
                    "-" => Value {
                        bits: v.bits.wrapping_neg(),
                        ..v
                    },
                    "~" => Value { bits: !v.bits, ..v },
                    "!" => Value::bool(v.bits == 0),
                    _ => v,
                }
            }
            Ok(TokenKind::Int {
                value, unsigned, ..
            }) => Value {
                bits: *value,
                unsigned: *unsigned || *value > i64::MAX as u64,
            },
            // Characters are signed in OpenCL C.
            Ok(TokenKind::Char(c)) if *c < 256 => Value::signed(*c as u8 as i8 as i64 as u64),
            Ok(TokenKind::Char(c)) => Value::signed(u64::from(*c)),
            // Identifiers left after macro expansion are 0.
            Ok(TokenKind::Ident(_)) => Value::signed(0),
            Ok(TokenKind::Float { .. }) => {
                self.fail(loc, "floating constant in preprocessor expression");
                Value::signed(0)
            }
            Err(message) => {
                self.fail(loc, message.clone());
                Value::signed(0)
            }
            Ok(_) => {
                self.fail(
                    loc,
                    format!(
                        "invalid token '{}' in preprocessor expression",
                        tok.spelling
                    ),
                );
                Value::signed(0)
            }
        }
    }
}

/// A binary operator with the usual arithmetic conversions: unsigned if either side is.
fn apply(op: &str, a: Value, b: Value) -> Result<Value, String> {
    let unsigned = a.unsigned || b.unsigned;
    let (x, y) = (a.bits, b.bits);
    let (sx, sy) = (x as i64, y as i64);
    let arith = |bits: u64| Value { bits, unsigned };
    let less = if unsigned { x < y } else { sx < sy };
    let greater = if unsigned { x > y } else { sx > sy };
    Ok(match op {
        "||" => Value::bool(x != 0 || y != 0),
        "&&" => Value::bool(x != 0 && y != 0),
        "|" => arith(x | y),
        "^" => arith(x ^ y),
        "&" => arith(x & y),
        "==" => Value::bool(x == y),
        "!=" => Value::bool(x != y),
        "<" => Value::bool(less),
        ">" => Value::bool(greater),
        "<=" => Value::bool(!greater),
        ">=" => Value::bool(!less),
        // A shift has the type of its left operand; counts past the width give 0 (or -1).
        "<<" => Value {
            bits: x.checked_shl(shift_count(b)).unwrap_or(0),
            ..a
        },
        ">>" if a.unsigned => Value {
            bits: x.checked_shr(shift_count(b)).unwrap_or(0),
            ..a
        },
        ">>" => Value {
            bits: (sx >> shift_count(b).min(63)) as u64,
            ..a
        },
        "+" => arith(x.wrapping_add(y)),
        "-" => arith(x.wrapping_sub(y)),
        "*" => arith(x.wrapping_mul(y)),
        "/" | "%" if y == 0 => {
            return Err(format!(
                "division by zero in preprocessor expression ('{op}')"
            ))
        }
        "/" if unsigned => arith(x / y),
        "/" => arith(sx.wrapping_div(sy) as u64),
        "%" if unsigned => arith(x % y),
        "%" => arith(sx.wrapping_rem(sy) as u64),
        _ => {
            return Err(format!(
                "invalid operator '{op}' in preprocessor expression"
            ))
        }
    })
}

fn shift_count(b: Value) -> u32 {
    if !b.unsigned && (b.bits as i64) < 0 {
        u32::MAX
    } else {
        u32::try_from(b.bits).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::lex::lex;

    fn eval(text: &str) -> Result<bool, String> {
        let mut diags = Diagnostics::default();
        let mut tokens = lex(0, text, &mut diags);
        tokens.retain(|t| !t.is_eof() && !t.is_newline());
        let v = evaluate(&tokens, Loc::default(), &mut diags);
        match diags.list.first() {
            Some(d) => Err(d.message.clone()),
            None => Ok(v),
        }
    }

    #[test]
    fn arithmetic_and_precedence() {
        assert_eq!(eval("1 + 2 * 3 == 7"), Ok(true));
        assert_eq!(eval("(1 + 2) * 3 == 9"), Ok(true));
        assert_eq!(eval("10 / 3 == 3 && 10 % 3 == 1"), Ok(true));
        assert_eq!(eval("-7 / 2 == -3 && -7 % 2 == -1"), Ok(true));
        assert_eq!(eval("1 << 4 == 16 && 256 >> 4 == 16"), Ok(true));
        assert_eq!(
            eval("(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5"),
            Ok(true)
        );
        assert_eq!(eval("~0 == -1 && !0 == 1 && !5 == 0 && +3 == 3"), Ok(true));
        assert_eq!(eval("1 ? 2 : 3"), Ok(true));
        assert_eq!(eval("0 ? 2 : 0"), Ok(false));
        assert_eq!(eval("1 ? 0 ? 5 : 0 : 7"), Ok(false));
        assert_eq!(
            eval("2 > 1 && 1 >= 1 && 1 <= 1 && 0 < 1 && 1 != 2"),
            Ok(true)
        );
        assert_eq!(eval("(1, 0)"), Ok(false));
        assert_eq!(eval("'a' == 97 && '\\xff' < 0"), Ok(true));
        assert_eq!(eval("0x7fffffffffffffff + 1 < 0"), Ok(true));
    }

    #[test]
    fn signedness() {
        // -1 converted to unsigned is the largest value.
        assert_eq!(eval("-1 < 0"), Ok(true));
        assert_eq!(eval("-1 < 0u"), Ok(false));
        assert_eq!(eval("-1 > 0U"), Ok(true));
        assert_eq!(eval("0xffffffffffffffff > 0"), Ok(true));
        assert_eq!(eval("-1 >> 63 == -1"), Ok(true));
        assert_eq!(eval("-1u >> 63 == 1"), Ok(true));
        assert_eq!(eval("(0 ? 1u : -1) > 0"), Ok(true));
        assert_eq!(eval("-9223372036854775807 - 1 < 0"), Ok(true));
    }

    #[test]
    fn short_circuit_hides_errors() {
        assert_eq!(eval("0 && 1 / 0"), Ok(false));
        assert_eq!(eval("1 || 1 / 0"), Ok(true));
        assert_eq!(eval("1 ? 1 : 1 / 0"), Ok(true));
        assert_eq!(eval("0 ? 1 % 0 : 0"), Ok(false));
    }

    #[test]
    fn errors() {
        assert!(eval("1 / 0").unwrap_err().contains("division by zero"));
        assert!(eval("5 % (2 - 2)")
            .unwrap_err()
            .contains("division by zero"));
        assert!(eval("1.0").unwrap_err().contains("floating"));
        assert!(eval("(1").unwrap_err().contains("expected ')'"));
        assert!(eval("1 2").unwrap_err().contains("unexpected '2'"));
        assert!(eval("1 +").unwrap_err().contains("expected a value"));
        assert!(eval("x = 1").unwrap_err().contains("unexpected '='"));
        assert!(eval("\"s\"").unwrap_err().contains("invalid token"));
        assert!(eval("1 ? 2").unwrap_err().contains("expected ':'"));
        assert!(eval("").unwrap_err().contains("expected an expression"));
        assert!(eval(&"(".repeat(5000)).unwrap_err().contains("too deeply"));
        assert!(eval(&"- ".repeat(5000)).unwrap_err().contains("too deeply"));
    }
}
