//! Expressions: precedence climbing for binary operators, then unary, cast and postfix forms.

use super::ast::*;
use super::{is_reserved_space_name, PResult, Parser};
use crate::compiler::token::TokenKind;

/// Binary operators by spelling, with their precedence (higher binds tighter).
fn binary_op(p: &str) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match p {
        "*" => (Mul, 10),
        "/" => (Div, 10),
        "%" => (Rem, 10),
        "+" => (Add, 9),
        "-" => (Sub, 9),
        "<<" => (Shl, 8),
        ">>" => (Shr, 8),
        "<" => (Lt, 7),
        ">" => (Gt, 7),
        "<=" => (Le, 7),
        ">=" => (Ge, 7),
        "==" => (Eq, 6),
        "!=" => (Ne, 6),
        "&" => (BitAnd, 5),
        "^" => (BitXor, 4),
        "|" => (BitOr, 3),
        "&&" => (LogAnd, 2),
        "||" => (LogOr, 1),
        _ => return None,
    })
}

fn assign_op(p: &str) -> Option<Option<BinaryOp>> {
    use BinaryOp::*;
    Some(match p {
        "=" => None,
        "+=" => Some(Add),
        "-=" => Some(Sub),
        "*=" => Some(Mul),
        "/=" => Some(Div),
        "%=" => Some(Rem),
        "<<=" => Some(Shl),
        ">>=" => Some(Shr),
        "&=" => Some(BitAnd),
        "^=" => Some(BitXor),
        "|=" => Some(BitOr),
        _ => return None,
    })
}

impl Parser<'_> {
    fn current_punct(&self) -> Option<&'static str> {
        match self.peek() {
            Some(TokenKind::Punct(p)) => Some(p),
            _ => None,
        }
    }

    /// `a, b, c`
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        self.chain_scope(Self::comma_chain)
    }

    fn comma_chain(&mut self) -> PResult<Expr> {
        let mut e = self.assignment_expr()?;
        while self.is_punct(",") {
            self.extend_chain()?;
            let loc = self.loc();
            self.pos += 1;
            let rhs = self.assignment_expr()?;
            e = Expr { kind: ExprKind::Comma(Box::new(e), Box::new(rhs)), loc };
        }
        Ok(e)
    }

    pub(super) fn assignment_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| {
            let lhs = p.conditional_expr()?;
            let Some(op) = p.current_punct().and_then(assign_op) else { return Ok(lhs) };
            let loc = p.loc();
            p.pos += 1;
            let rhs = p.assignment_expr()?;
            Ok(Expr { kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)), loc })
        })
    }

    pub(super) fn conditional_expr(&mut self) -> PResult<Expr> {
        let cond = self.binary_expr(1)?;
        if !self.is_punct("?") {
            return Ok(cond);
        }
        let loc = self.loc();
        self.pos += 1;
        let then = self.nested(|p| p.expression())?;
        self.expect_punct(":")?;
        let otherwise = self.nested(|p| p.conditional_expr())?;
        Ok(Expr { kind: ExprKind::Cond(Box::new(cond), Box::new(then), Box::new(otherwise)), loc })
    }

    /// Operators of precedence `min` and tighter, read in a loop: a chain of operators of one
    /// precedence (`a + b + c ...`, 200 terms in hashcat's kernels) is no nesting.
    fn binary_expr(&mut self, min: u8) -> PResult<Expr> {
        self.chain_scope(|p| p.binary_chain(min))
    }

    fn binary_chain(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary_expr()?;
        while let Some((op, prec)) = self.current_punct().and_then(binary_op) {
            if prec < min {
                break;
            }
            self.extend_chain()?;
            let loc = self.loc();
            self.pos += 1;
            let rhs = self.binary_expr(prec + 1)?;
            lhs = Expr { kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), loc };
        }
        Ok(lhs)
    }

    fn unary_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.unary_inner())
    }

    fn unary_inner(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let prefix = match self.current_punct() {
            Some("++") => Some(UnaryOp::PreInc),
            Some("--") => Some(UnaryOp::PreDec),
            Some("+") => Some(UnaryOp::Plus),
            Some("-") => Some(UnaryOp::Neg),
            Some("!") => Some(UnaryOp::Not),
            Some("~") => Some(UnaryOp::BitNot),
            Some("*") => Some(UnaryOp::Deref),
            Some("&") => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = prefix {
            self.pos += 1;
            let operand = self.unary_expr()?;
            return Ok(Expr { kind: ExprKind::Unary(op, Box::new(operand)), loc });
        }
        if let Some(word) = self.ident_at(0) {
            if let Some(e) = self.type_operator(word.to_owned())? {
                return Ok(e);
            }
        }
        if self.is_punct("(") && self.starts_decl_at(1) {
            return self.cast_or_literal();
        }
        self.postfix_expr()
    }

    /// `sizeof`, `vec_step`, `__alignof`: each takes a type in parentheses or an expression.
    fn type_operator(&mut self, word: String) -> PResult<Option<Expr>> {
        let loc = self.loc();
        type OnType = fn(Box<TypeName>) -> ExprKind;
        type OnExpr = fn(Box<Expr>) -> ExprKind;
        let (on_type, on_expr): (OnType, OnExpr) =
            match word.as_str() {
                "sizeof" => (ExprKind::SizeofType, ExprKind::SizeofExpr),
                "vec_step" => (ExprKind::VecStepType, ExprKind::VecStepExpr),
                "__alignof" | "__alignof__" | "_Alignof" => {
                    (ExprKind::AlignofType, ExprKind::AlignofExpr)
                }
                _ => return Ok(None),
            };
        self.pos += 1;
        if self.is_punct("(") && self.starts_decl_at(1) {
            self.pos += 1;
            let ty = self.type_name()?;
            self.expect_punct(")")?;
            return Ok(Some(Expr { kind: on_type(Box::new(ty)), loc }));
        }
        let operand = self.unary_expr()?;
        Ok(Some(Expr { kind: on_expr(Box::new(operand)), loc }))
    }

    /// After `(` that starts a type: a cast, a vector literal `(float4)(a, b)` or a compound
    /// literal `(struct S){...}`.
    fn cast_or_literal(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        self.pos += 1;
        let ty = Box::new(self.type_name()?);
        self.expect_punct(")")?;
        if self.is_punct("{") {
            let init = self.initializer()?;
            let lit = Expr { kind: ExprKind::CompoundLit(ty, Box::new(init)), loc };
            return self.postfix_rest(lit);
        }
        // `(T)(U)x` is a cast of a cast, not a literal.
        if self.is_punct("(") && !self.starts_decl_at(1) {
            let open = self.loc();
            self.pos += 1;
            let mut parts = vec![self.assignment_expr()?];
            while self.eat_punct(",") {
                parts.push(self.assignment_expr()?);
            }
            self.expect_punct(")")?;
            if parts.len() > 1 {
                let lit = Expr { kind: ExprKind::VectorLit(ty, parts), loc };
                return self.postfix_rest(lit);
            }
            let Some(inner) = parts.pop() else { return self.error(open, "expected an expression") };
            let operand = self.postfix_rest(inner)?;
            return Ok(Expr { kind: ExprKind::Cast(ty, Box::new(operand)), loc });
        }
        let operand = self.unary_expr()?;
        Ok(Expr { kind: ExprKind::Cast(ty, Box::new(operand)), loc })
    }

    fn postfix_expr(&mut self) -> PResult<Expr> {
        let primary = self.primary_expr()?;
        self.postfix_rest(primary)
    }

    fn postfix_rest(&mut self, e: Expr) -> PResult<Expr> {
        self.chain_scope(|p| p.postfix_chain(e))
    }

    fn postfix_chain(&mut self, mut e: Expr) -> PResult<Expr> {
        loop {
            if self.current_punct().is_some_and(|p| matches!(p, "[" | "(" | "." | "->" | "++" | "--")) {
                self.extend_chain()?;
            }
            let loc = self.loc();
            match self.current_punct() {
                Some("[") => {
                    self.pos += 1;
                    let index = self.expression()?;
                    self.expect_punct("]")?;
                    let at = e.loc;
                    e = Expr { kind: ExprKind::Index(Box::new(e), Box::new(index)), loc: at };
                }
                Some("(") => {
                    self.pos += 1;
                    let mut args = Vec::new();
                    while !self.eat_punct(")") {
                        args.push(self.assignment_expr()?);
                        if !self.is_punct(")") {
                            self.expect_punct(",")?;
                        }
                    }
                    let at = e.loc;
                    e = Expr { kind: ExprKind::Call(Box::new(e), args), loc: at };
                }
                Some(op @ ("." | "->")) => {
                    self.pos += 1;
                    let at = self.loc();
                    let name = match self.peek() {
                        Some(TokenKind::Ident(n)) => n.clone(),
                        // `v.s0`-style names lex as identifiers; `.0` would not be valid anyway.
                        _ => return self.error(at, format!("expected a member name after '{op}'")),
                    };
                    self.pos += 1;
                    let start = e.loc;
                    let kind = if op == "." {
                        ExprKind::Member(Box::new(e), name, at)
                    } else {
                        ExprKind::Arrow(Box::new(e), name, at)
                    };
                    e = Expr { kind, loc: start };
                }
                Some("++") => {
                    self.pos += 1;
                    e = Expr { kind: ExprKind::Unary(UnaryOp::PostInc, Box::new(e)), loc };
                }
                Some("--") => {
                    self.pos += 1;
                    e = Expr { kind: ExprKind::Unary(UnaryOp::PostDec, Box::new(e)), loc };
                }
                _ => return Ok(e),
            }
        }
    }

    fn primary_expr(&mut self) -> PResult<Expr> {
        let loc = self.loc();
        let kind = match self.peek().cloned() {
            Some(TokenKind::Ident(name)) => {
                if is_reserved_space_name(&name) {
                    self.pos += 1;
                    return self.error(
                        loc,
                        format!("'{name}' is a reserved address-space qualifier and cannot be used as an identifier"),
                    );
                }
                ExprKind::Ident(name)
            }
            Some(TokenKind::Int { value, unsigned, long, decimal }) => ExprKind::Int { value, unsigned, long, decimal },
            Some(TokenKind::Float { value, suffix }) => ExprKind::Float { value, suffix },
            Some(TokenKind::Char(c)) => ExprKind::Char(c),
            Some(TokenKind::Str(s)) => {
                self.pos += 1;
                let mut text = s;
                // Adjacent string literals concatenate.
                while let Some(TokenKind::Str(more)) = self.peek() {
                    text.push_str(more);
                    self.pos += 1;
                }
                return Ok(Expr { kind: ExprKind::Str(text), loc });
            }
            Some(TokenKind::Punct("(")) => {
                self.pos += 1;
                let inner = self.expression()?;
                self.expect_punct(")")?;
                return Ok(inner);
            }
            _ => {
                let found = self.describe_current();
                return self.error(loc, format!("expected an expression, found {found}"));
            }
        };
        self.pos += 1;
        Ok(Expr { kind, loc })
    }
}
