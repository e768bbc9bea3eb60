//! Recursive-descent parser of OpenCL C: tokens (after preprocessing) → [`ast::TranslationUnit`].
//! Errors become diagnostics; the parser then skips to the next `;` or `}` and goes on, so one
//! build reports several errors. Nesting depth is bounded so hostile input cannot overflow the
//! stack.

pub mod ast;
mod decl;
pub use decl::{is_builtin_type_name, vector_name_parts};
mod expr;
mod stmt;

use super::diag::Diagnostics;
use super::source::Loc;
use super::token::{Token, TokenKind};
use std::collections::HashSet;

/// Deepest nesting of expressions, statements and declarators the parser accepts.
const MAX_DEPTH: u32 = 128;

/// Longest left-associative chain of operators (`a + b + ...`, `a[i].x`, `a, b, ...`) the parser
/// accepts, summed over the chains an operand lies in. Chains are read in a loop, not by
/// recursion, but each operator deepens the tree that later passes recurse over: with
/// [`MAX_DEPTH`] this bounds the tree's depth so it fits the compiler threads' stack (`stack.rs`).
const MAX_CHAIN: u32 = 4096;

/// The error has already been reported as a diagnostic.
#[derive(Debug)]
pub struct Reported;

pub type PResult<T> = Result<T, Reported>;

/// Parses a whole translation unit. `Newline` tokens are ignored; a missing `Eof` is tolerated.
/// `predeclared`: the type names the language version declares before the program (the C11
/// atomic types of OpenCL C 2.0/3.0), which a program may still declare again.
pub fn parse(tokens: &[Token], predeclared: &[&str], diags: &mut Diagnostics) -> ast::TranslationUnit {
    let tokens: Vec<&Token> =
        tokens.iter().filter(|t| !matches!(t.kind, TokenKind::Newline)).collect();
    let file_scope = predeclared.iter().map(|n| n.to_string()).collect();
    let mut p = Parser { tokens, pos: 0, diags, typedefs: vec![file_scope], depth: 0, chain: 0 };
    p.translation_unit()
}

struct Parser<'a> {
    tokens: Vec<&'a Token>,
    pos: usize,
    diags: &'a mut Diagnostics,
    /// Typedef names per scope (they decide whether `(x)` starts a cast).
    typedefs: Vec<HashSet<String>>,
    depth: u32,
    /// Operators of the left-associative chains being read (see [`MAX_CHAIN`]).
    chain: u32,
}

impl Parser<'_> {
    fn kind_at(&self, ahead: usize) -> Option<&TokenKind> {
        self.tokens.get(self.pos + ahead).map(|t| &t.kind)
    }

    fn peek(&self) -> Option<&TokenKind> {
        self.kind_at(0).filter(|k| !matches!(k, TokenKind::Eof))
    }

    fn loc(&self) -> Loc {
        self.tokens
            .get(self.pos)
            .or_else(|| self.tokens.last())
            .map(|t| t.loc)
            .unwrap_or_default()
    }

    fn at_end(&self) -> bool {
        self.peek().is_none()
    }

    fn is_punct(&self, p: &str) -> bool {
        self.is_punct_at(0, p)
    }

    fn is_punct_at(&self, ahead: usize, p: &str) -> bool {
        matches!(self.kind_at(ahead), Some(TokenKind::Punct(q)) if *q == p)
    }

    fn ident_at(&self, ahead: usize) -> Option<&str> {
        match self.kind_at(ahead) {
            Some(TokenKind::Ident(s)) => Some(s),
            _ => None,
        }
    }

    fn is_ident(&self, name: &str) -> bool {
        self.ident_at(0) == Some(name)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let found = self.is_punct(p);
        if found {
            self.pos += 1;
        }
        found
    }

    fn error<T>(&mut self, loc: Loc, message: impl Into<String>) -> PResult<T> {
        self.diags.error(loc, message);
        Err(Reported)
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            return Ok(());
        }
        let found = self.describe_current();
        self.error(self.loc(), format!("expected '{p}', found {found}"))
    }

    fn describe_current(&self) -> String {
        match self.peek() {
            None => "end of input".into(),
            Some(TokenKind::Ident(s)) => format!("'{s}'"),
            Some(TokenKind::Punct(p)) => format!("'{p}'"),
            Some(TokenKind::Int { .. } | TokenKind::Float { .. } | TokenKind::Char(_)) => {
                "a number".into()
            }
            Some(TokenKind::Str(_)) => "a string literal".into(),
            Some(TokenKind::Newline | TokenKind::Eof) => "end of line".into(),
        }
    }

    /// Enters one nesting level; errors out past [`MAX_DEPTH`].
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return self.error(self.loc(), format!("nesting too deep (the limit is {MAX_DEPTH})"));
        }
        self.depth += 1;
        Ok(())
    }

    /// Counts one more operator of a left-associative chain; errors out past [`MAX_CHAIN`].
    fn extend_chain(&mut self) -> PResult<()> {
        if self.chain >= MAX_CHAIN {
            return self.error(self.loc(), format!("expression too long (more than {MAX_CHAIN} chained operators)"));
        }
        self.chain += 1;
        Ok(())
    }

    /// Runs `f`, which may extend chains, and forgets its operators: they belong to the tree
    /// below this point only.
    fn chain_scope<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let saved = self.chain;
        let r = f(self);
        self.chain = saved;
        r
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Runs `f` one nesting level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let r = f(self);
        self.leave();
        r
    }

    /// Error recovery: skips to just past the next `;` at this brace level, or to (not past) a
    /// `}` closing it, so parsing resumes at the next declaration or statement.
    fn recover(&mut self) {
        let mut braces = 0u32;
        while let Some(k) = self.peek() {
            match k {
                TokenKind::Punct(";") if braces == 0 => {
                    self.pos += 1;
                    return;
                }
                TokenKind::Punct("{") => braces += 1,
                TokenKind::Punct("}") => {
                    if braces == 0 {
                        return;
                    }
                    braces -= 1;
                    if braces == 0 {
                        self.pos += 1;
                        // A `}` that closes a definition also ends it; a following `;` belongs
                        // to it (`struct S {...};`).
                        self.eat_punct(";");
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn push_scope(&mut self) {
        self.typedefs.push(HashSet::new());
    }

    fn pop_scope(&mut self) {
        self.typedefs.pop();
    }

    fn is_typedef(&self, name: &str) -> bool {
        self.typedefs.iter().any(|s| s.contains(name))
    }

    fn translation_unit(&mut self) -> ast::TranslationUnit {
        let mut items = Vec::new();
        while !self.at_end() {
            let start = self.pos;
            self.depth = 0;
            self.chain = 0;
            match self.external_decl() {
                Ok(Some(item)) => items.push(item),
                Ok(None) => {}
                Err(Reported) => {
                    self.recover();
                    // A stray `}` at file scope would stop recovery forever.
                    if self.pos == start || self.is_punct("}") {
                        self.pos += 1;
                    }
                }
            }
        }
        ast::TranslationUnit { items }
    }
}

/// Spellings of the address-space qualifiers (A1), with and without `__`.
pub fn address_space(name: &str) -> Option<crate::compiler::AddressQualifier> {
    use crate::compiler::AddressQualifier::*;
    match name.strip_prefix("__").unwrap_or(name) {
        "global" => Some(Global),
        "local" => Some(Local),
        "constant" => Some(Constant),
        "private" => Some(Private),
        _ => None,
    }
}

/// Names that are reserved as address-space qualifiers (A2).
pub fn is_reserved_space_name(name: &str) -> bool {
    address_space(name).is_some() || matches!(name, "generic" | "__generic")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::compiler::token::{FloatSuffix, Token};

    /// A tiny tokenizer for parser tests (the real lexer lives on another branch): identifiers,
    /// decimal/hex integers with u/l suffixes, floats with f suffix, punctuators.
    pub fn toks(src: &str) -> Vec<Token> {
        const PUNCTS: [&str; 48] = [
            "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
            "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "(", ")", "[", "]", "{", "}", ".",
            ",", ";", ":", "?", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "=",
            "#", "\\",
        ];
        let mut out = Vec::new();
        let bytes: Vec<char> = src.chars().collect();
        let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
        while i < bytes.len() {
            let c = bytes[i];
            let loc = Loc { file: 0, line, col };
            if c == '\n' {
                i += 1;
                line += 1;
                col = 1;
                continue;
            }
            if c.is_whitespace() {
                i += 1;
                col += 1;
                continue;
            }
            let start = i;
            let kind = if c.is_ascii_alphabetic() || c == '_' {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == '_') {
                    i += 1;
                }
                TokenKind::Ident(bytes[start..i].iter().collect())
            } else if c.is_ascii_digit() || (c == '.' && bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == '.') {
                    i += 1;
                }
                let text: String = bytes[start..i].iter().collect::<String>().to_lowercase();
                number(&text)
            } else {
                let rest: String = bytes[i..bytes.len().min(i + 3)].iter().collect();
                let p = PUNCTS.iter().find(|p| rest.starts_with(**p)).copied().unwrap_or("#");
                i += p.len().max(1);
                TokenKind::Punct(p)
            };
            col += (i - start) as u32;
            out.push(Token { kind, loc, space_before: true });
        }
        out.push(Token { kind: TokenKind::Eof, loc: Loc { file: 0, line, col }, space_before: false });
        out
    }

    fn number(text: &str) -> TokenKind {
        if let Some(hex) = text.strip_prefix("0x") {
            let digits = hex.trim_end_matches(['u', 'l']);
            let value = u64::from_str_radix(digits, 16).unwrap_or(0);
            return TokenKind::Int { value, unsigned: hex.contains('u'), long: hex.contains('l'), decimal: false };
        }
        if text.contains('.') || text.contains('e') || text.ends_with('f') {
            let f = text.ends_with('f');
            let value = text.trim_end_matches('f').parse().unwrap_or(0.0);
            return TokenKind::Float { value, suffix: if f { FloatSuffix::F } else { FloatSuffix::None } };
        }
        let digits = text.trim_end_matches(['u', 'l']);
        TokenKind::Int {
            value: digits.parse().unwrap_or(0),
            unsigned: text.contains('u'),
            long: text.contains('l'),
            decimal: true,
        }
    }

    pub fn parse_ok(src: &str) -> ast::TranslationUnit {
        let mut d = Diagnostics::default();
        let tu = parse(&toks(src), &[], &mut d);
        assert!(!d.has_errors(), "{:?}", d.list);
        tu
    }

    pub fn parse_errors(src: &str) -> Vec<(u32, u32, String)> {
        let mut d = Diagnostics::default();
        parse(&toks(src), &[], &mut d);
        d.list.into_iter().map(|d| (d.loc.line, d.loc.col, d.message)).collect()
    }

    fn only_function(tu: &ast::TranslationUnit) -> &ast::FunctionDef {
        match tu.items.as_slice() {
            [ast::ExternalDecl::Function(f)] => f,
            other => panic!("expected one function, got {other:?}"),
        }
    }

    #[test]
    fn parses_clinfo_kernel() {
        let tu = parse_ok(
            "kernel void sum(global int* restrict out, global const int* restrict in1, \
             global const int* restrict in2) { int i = get_global_id(0); out[i] = in1[i] + in2[i]; }",
        );
        let f = only_function(&tu);
        assert!(f.spec.storage.kernel.is_some());
        let Some(ast::Derived::Function(params, _)) = f.declarator.derived.first() else {
            panic!("not a function")
        };
        assert_eq!(params.len(), 3);
        let p1 = &params[1];
        assert_eq!(p1.spec.quals.space.map(|s| s.0), Some(crate::compiler::AddressQualifier::Global));
        assert!(p1.spec.quals.is_const);
        assert!(matches!(&p1.declarator.derived[..], [ast::Derived::Pointer(q, _)] if q.is_restrict));
        assert_eq!(f.body.len(), 2);
    }

    #[test]
    fn declarators_build_inside_out() {
        let tu = parse_ok("void f() { local float *a[3]; unsigned long n; }");
        let f = only_function(&tu);
        let ast::StmtKind::Decl(d) = &f.body[0].kind else { panic!() };
        assert!(matches!(
            &d.declarators[0].declarator.derived[..],
            [ast::Derived::Array(Some(_), _), ast::Derived::Pointer(..)]
        ));
        let ast::StmtKind::Decl(d) = &f.body[1].kind else { panic!() };
        assert_eq!(d.spec.ty, ast::TypeSpec::Builtin("ulong".into()));
    }

    #[test]
    fn precedence_and_vector_literals() {
        let tu = parse_ok("void f() { x = a + b * c << 1; y = (float4)(a, b).x; z = (int)(q)[2]; }");
        let f = only_function(&tu);
        let ast::StmtKind::Expr(Some(e)) = &f.body[0].kind else { panic!() };
        let ast::ExprKind::Assign(None, _, rhs) = &e.kind else { panic!() };
        // (a + (b * c)) << 1
        let ast::ExprKind::Binary(ast::BinaryOp::Shl, l, _) = &rhs.kind else { panic!("{rhs:?}") };
        let ast::ExprKind::Binary(ast::BinaryOp::Add, _, m) = &l.kind else { panic!() };
        assert!(matches!(m.kind, ast::ExprKind::Binary(ast::BinaryOp::Mul, ..)));
        let ast::StmtKind::Expr(Some(e)) = &f.body[1].kind else { panic!() };
        let ast::ExprKind::Assign(None, _, rhs) = &e.kind else { panic!() };
        let ast::ExprKind::Member(lit, name, _) = &rhs.kind else { panic!("{rhs:?}") };
        assert_eq!(name, "x");
        assert!(matches!(&lit.kind, ast::ExprKind::VectorLit(_, parts) if parts.len() == 2));
        let ast::StmtKind::Expr(Some(e)) = &f.body[2].kind else { panic!() };
        let ast::ExprKind::Assign(None, _, rhs) = &e.kind else { panic!() };
        let ast::ExprKind::Cast(_, inner) = &rhs.kind else { panic!("{rhs:?}") };
        assert!(matches!(inner.kind, ast::ExprKind::Index(..)));
    }

    #[test]
    fn statements_and_typedefs() {
        let tu = parse_ok(
            "typedef struct { float x; int y; } P; \
             kernel __attribute__((reqd_work_group_size(64, 1, 1))) void k(global P* p) { \
               switch (p->y) { case 1: p->x = 1; case 2: break; default: ; } \
               do { p++; } while (0); \
               for (int i = 0; i < 4; i++) continue; }",
        );
        assert_eq!(tu.items.len(), 2);
        let ast::ExternalDecl::Function(f) = &tu.items[1] else { panic!() };
        assert_eq!(f.spec.attrs[0].name, "reqd_work_group_size");
        assert_eq!(f.spec.attrs[0].args.len(), 3);
        assert!(matches!(f.body[0].kind, ast::StmtKind::Switch(..)));
        assert!(matches!(f.body[1].kind, ast::StmtKind::DoWhile(..)));
        assert!(matches!(f.body[2].kind, ast::StmtKind::For { .. }));
    }

    #[test]
    fn rejects_function_pointers() {
        let errs = parse_errors("void f() { int (*fp)(int); }");
        assert_eq!(errs, vec![(1, 16, "function pointers are not supported in OpenCL C".into())]);
    }

    #[test]
    fn cast_of_a_cast() {
        let tu = parse_ok("void f() { x = (uint)(char)-1; }");
        let ast::StmtKind::Expr(Some(e)) = &only_function(&tu).body[0].kind else { panic!() };
        let ast::ExprKind::Assign(None, _, e) = &e.kind else { panic!() };
        let ast::ExprKind::Cast(_, inner) = &e.kind else { panic!("{e:?}") };
        let ast::ExprKind::Cast(_, operand) = &inner.kind else { panic!("{inner:?}") };
        assert!(matches!(operand.kind, ast::ExprKind::Unary(ast::UnaryOp::Neg, _)));
    }

    #[test]
    fn labels_and_goto() {
        let errs = parse_errors("void f() {\n again: ;\n goto again;\n int x = 1 ? 2 : 3;\n end:\n}\nvoid g() {\n goto 3;\n}");
        assert_eq!(errs, [(8, 7, "expected a label after 'goto', found a number".to_string())]);
    }

    #[test]
    fn a2_reserved_names_are_not_identifiers() {
        let errs = parse_errors("void f() {\n int global = 1;\n}\nint constant;");
        assert_eq!(errs[0], (2, 6, "'global' is a reserved address-space qualifier and cannot be used as an identifier".into()));
        assert_eq!(errs[1], (4, 5, "'constant' is a reserved address-space qualifier and cannot be used as an identifier".into()));
        let errs = parse_errors("void f() { x = __local + 1; int generic; }");
        assert_eq!(errs[0].2, "'__local' is a reserved address-space qualifier and cannot be used as an identifier");
        assert_eq!(errs[1].2, "'generic' is a reserved address-space qualifier and cannot be used as an identifier");
    }

    #[test]
    fn recovers_and_reports_several_errors() {
        let errs = parse_errors("void f() {\n x = ;\n y = 1 +;\n}\nint g(\n");
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert_eq!((errs[0].0, errs[0].1), (2, 6));
        assert_eq!((errs[1].0, errs[1].1), (3, 9));
    }

    #[test]
    fn nesting_depth_is_bounded() {
        let src = format!("void f() {{ x = {}1{}; }}", "(".repeat(5000), ")".repeat(5000));
        let errs = parse_errors(&src);
        assert!(errs.iter().any(|e| e.2.contains("nesting too deep")), "{errs:?}");
        let src = format!("void f() {}{}", "{".repeat(5000), "}".repeat(5000));
        assert!(parse_errors(&src).iter().any(|e| e.2.contains("nesting too deep")));
        // Long left-associative chains are no nesting, but they deepen the tree too.
        parse_ok(&format!("void f() {{ x = 1{}; y = a{}; }}", "+1".repeat(4000), "[0]".repeat(4000)));
        let src = format!("void f() {{ x = 1{}; y = a{}; }}", "+1".repeat(5000), "[0]".repeat(5000));
        let errs = parse_errors(&src);
        assert_eq!(errs.iter().filter(|e| e.2.contains("more than 4096 chained operators")).count(), 2, "{errs:?}");
        // A chain in an operand of a chain adds to its depth; one beside it does not.
        let chain = format!("({}1)", "1+".repeat(2100));
        parse_ok(&format!("void f() {{ x = {chain} * {chain}; }}"));
        let errs = parse_errors(&format!("void f() {{ x = {}{chain}; }}", "1+".repeat(2100)));
        assert!(errs.iter().any(|e| e.2.contains("chained operators")), "{errs:?}");
        // Within the limit is fine.
        parse_ok(&format!("void f() {{ x = {}1{}; }}", "(".repeat(50), ")".repeat(50)));
    }
}
