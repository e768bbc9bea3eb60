//! Statements and blocks.

use super::ast::*;
use super::{PResult, Parser, Reported};

impl Parser<'_> {
    /// The statements of a block after its `{`, through the closing `}`. A statement with an
    /// error is reported and skipped; the block goes on.
    pub(super) fn compound_body(&mut self) -> PResult<Vec<Stmt>> {
        self.expect_punct("{")?;
        self.push_scope();
        let mut stmts = Vec::new();
        let result = loop {
            if self.eat_punct("}") {
                break Ok(stmts);
            }
            if self.at_end() {
                break self.error(self.loc(), "expected '}' before the end of input");
            }
            let start = self.pos;
            match self.statement() {
                Ok(s) => stmts.push(s),
                Err(Reported) => {
                    self.recover();
                    if self.pos == start {
                        self.pos += 1;
                    }
                }
            }
        };
        self.pop_scope();
        result
    }

    fn statement(&mut self) -> PResult<Stmt> {
        self.nested(|p| p.statement_inner())
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let loc = self.loc();
        if self.is_punct("{") {
            let body = self.compound_body()?;
            return Ok(Stmt { kind: StmtKind::Compound(body), loc });
        }
        if self.eat_punct(";") {
            return Ok(Stmt { kind: StmtKind::Expr(None), loc });
        }
        if let Some(kind) = self.attributed_loop()? {
            return Ok(Stmt { kind, loc });
        }
        let keyword = self.ident_at(0).map(str::to_owned);
        let kind = match keyword.as_deref() {
            Some("if") => self.if_stmt()?,
            Some("while") => {
                self.pos += 1;
                let cond = self.paren_expr()?;
                StmtKind::While(cond, Box::new(self.statement()?))
            }
            Some("do") => self.do_stmt()?,
            Some("for") => self.for_stmt()?,
            Some("switch") => {
                self.pos += 1;
                let value = self.paren_expr()?;
                StmtKind::Switch(value, Box::new(self.statement()?))
            }
            Some("case") => {
                self.pos += 1;
                let value = self.conditional_expr()?;
                self.expect_punct(":")?;
                StmtKind::Case(value, Box::new(self.statement()?))
            }
            Some("default") => {
                self.pos += 1;
                self.expect_punct(":")?;
                StmtKind::Default(Box::new(self.statement()?))
            }
            Some(word @ ("break" | "continue")) => {
                self.pos += 1;
                self.expect_punct(";")?;
                if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                }
            }
            Some("return") => {
                self.pos += 1;
                let value = if self.is_punct(";") { None } else { Some(self.expression()?) };
                self.expect_punct(";")?;
                StmtKind::Return(value)
            }
            Some("goto") => {
                self.pos += 1;
                let Some(label) = self.ident_at(0).map(str::to_owned) else {
                    let found = self.describe_current();
                    return self.error(self.loc(), format!("expected a label after 'goto', found {found}"));
                };
                self.pos += 1;
                self.expect_punct(";")?;
                StmtKind::Goto(label)
            }
            Some(label) if self.is_punct_at(1, ":") && !self.starts_decl() => {
                let label = label.to_string();
                self.pos += 2;
                // A label at the end of a block labels an empty statement (as C23 allows).
                let stmt = if self.is_punct("}") { Stmt { kind: StmtKind::Expr(None), loc: self.loc() } } else { self.statement()? };
                StmtKind::Labeled(label, Box::new(stmt))
            }
            _ if self.starts_decl() => StmtKind::Decl(self.declaration()?),
            _ => {
                let e = self.expression()?;
                self.expect_punct(";")?;
                StmtKind::Expr(Some(e))
            }
        };
        Ok(Stmt { kind, loc })
    }

    /// Attributes before a loop (`__attribute__((opencl_unroll_hint(4))) for (...)`); `None`,
    /// and nothing read, when there are none or they begin a declaration.
    fn attributed_loop(&mut self) -> PResult<Option<StmtKind>> {
        if !self.is_ident("__attribute__") {
            return Ok(None);
        }
        let start = self.pos;
        let attrs = self.attributes()?;
        if matches!(self.ident_at(0), Some("for" | "while" | "do")) {
            return Ok(Some(StmtKind::Attributed(attrs, Box::new(self.statement()?))));
        }
        if self.starts_decl() {
            self.pos = start;
            return Ok(None);
        }
        let name = attrs.first().map_or("", |a| a.name.as_str());
        self.error(self.loc(), format!("attribute '{name}' must be followed by a 'for', 'while' or 'do' loop"))
    }

    fn paren_expr(&mut self) -> PResult<Expr> {
        self.expect_punct("(")?;
        let e = self.expression()?;
        self.expect_punct(")")?;
        Ok(e)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.pos += 1;
        let cond = self.paren_expr()?;
        let then = Box::new(self.statement()?);
        let otherwise = if self.is_ident("else") {
            self.pos += 1;
            Some(Box::new(self.statement()?))
        } else {
            None
        };
        Ok(StmtKind::If(cond, then, otherwise))
    }

    fn do_stmt(&mut self) -> PResult<StmtKind> {
        self.pos += 1;
        let body = Box::new(self.statement()?);
        if !self.is_ident("while") {
            let found = self.describe_current();
            return self.error(self.loc(), format!("expected 'while' after a do body, found {found}"));
        }
        self.pos += 1;
        let cond = self.paren_expr()?;
        self.expect_punct(";")?;
        Ok(StmtKind::DoWhile(body, cond))
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.pos += 1;
        self.expect_punct("(")?;
        self.push_scope();
        let result = self.for_rest();
        self.pop_scope();
        result
    }

    fn for_rest(&mut self) -> PResult<StmtKind> {
        let loc = self.loc();
        let init = if self.eat_punct(";") {
            None
        } else if self.starts_decl() {
            Some(Box::new(Stmt { kind: StmtKind::Decl(self.declaration()?), loc }))
        } else {
            let e = self.expression()?;
            self.expect_punct(";")?;
            Some(Box::new(Stmt { kind: StmtKind::Expr(Some(e)), loc }))
        };
        let cond = if self.is_punct(";") { None } else { Some(self.expression()?) };
        self.expect_punct(";")?;
        let step = if self.is_punct(")") { None } else { Some(self.expression()?) };
        self.expect_punct(")")?;
        let body = Box::new(self.statement()?);
        Ok(StmtKind::For { init, cond, step, body })
    }
}
