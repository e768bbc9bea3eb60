//! Macro definitions and their expansion (C99 §6.10.3).
//!
//! Rescanning follows Prosser's algorithm: every token carries the set of macro names that
//! produced it (its hide set); a macro name whose own name is in its hide set is "painted blue"
//! and never expanded again, even when it is rescanned in another context. A function-like
//! macro's result gets the names hiding both its name and its closing parenthesis, plus itself.

use super::super::diag::Diagnostics;
use super::super::lex::{lex, lex_one, PpToken};
use super::cond::{self, Cond};
use super::expr;
use super::super::source::Loc;
use super::super::token::TokenKind;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// How deeply macro arguments may nest (each level pre-expands an argument recursively).
const MAX_NESTING: usize = 200;

pub(super) const VA_ARGS: &str = "__VA_ARGS__";

/// Names that are always defined and expand to something computed.
pub(super) const BUILTINS: &[&str] = &["__FILE__", "__LINE__"];

#[derive(Clone, Debug)]
pub(super) struct Macro {
    pub name: Rc<str>,
    /// Parameter names, with `__VA_ARGS__` last for a variadic macro; `None` if object-like.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: Vec<PpToken>,
}

impl Macro {
    /// C99 §6.10.3p2: a redefinition must have the same parameters and the same replacement
    /// list, whitespace separation included.
    pub fn same_definition(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| {
                    a.spelling == b.spelling && (i == 0 || a.space_before == b.space_before)
                })
    }

    fn param_index(&self, tok: &PpToken) -> Option<usize> {
        let name = tok.ident()?;
        self.params.as_ref()?.iter().position(|p| p == name)
    }
}

/// `#define` (the rest of its line): adds the macro, warning of an incompatible redefinition.
pub(super) fn define(macros: &mut HashMap<String, Rc<Macro>>, diags: &mut Diagnostics, at: Loc, args: &[PpToken]) {
    let Some(m) = parse_define(args, at, diags) else { return };
    let name = m.name.to_string();
    if macros.get(&name).is_some_and(|old| !old.same_definition(&m)) {
        diags.warning(args.first().map_or(at, |t| t.loc), format!("'{name}' macro redefined"));
    }
    macros.insert(name, Rc::new(m));
}

/// `#undef` of a well-formed operand.
pub(super) fn undef(macros: &mut HashMap<String, Rc<Macro>>, args: &[PpToken]) {
    if let Some(name) = args.first().and_then(PpToken::ident) {
        macros.remove(name);
    }
}

/// Parses the rest of a `#define` line (after `define`). `None` if it is malformed (reported).
pub(super) fn parse_define(line: &[PpToken], at: Loc, diags: &mut Diagnostics) -> Option<Macro> {
    let Some(name_tok) = line.first() else {
        diags.error(at, "macro name missing");
        return None;
    };
    let Some(name) = name_tok.ident() else {
        diags.error(name_tok.loc, "macro name must be an identifier");
        return None;
    };
    if name == "defined" || BUILTINS.contains(&name) {
        diags.error(
            name_tok.loc,
            format!("'{name}' cannot be used as a macro name"),
        );
        return None;
    }
    let mut rest = &line[1..];
    let (mut params, mut variadic) = (None, false);
    if let Some(open) = rest.first().filter(|t| t.is_punct("(") && !t.space_before) {
        let (names, is_variadic, used) = parse_params(rest, open.loc, diags)?;
        params = Some(names);
        variadic = is_variadic;
        rest = &rest[used..];
    }
    let mut body = rest.to_vec();
    if let Some(first) = body.first_mut() {
        first.space_before = false;
    }
    let m = Macro {
        name: name.into(),
        params,
        variadic,
        body,
    };
    check_body(&m, diags)?;
    Some(m)
}

/// Parses `(a, b, ...)`; returns the names, whether variadic, and how many tokens it used.
fn parse_params(
    tokens: &[PpToken],
    at: Loc,
    diags: &mut Diagnostics,
) -> Option<(Vec<String>, bool, usize)> {
    let mut names: Vec<String> = Vec::new();
    let mut i = 1;
    if tokens.get(i).is_some_and(|t| t.is_punct(")")) {
        return Some((names, false, 2));
    }
    loop {
        let tok = tokens.get(i);
        if tok.is_some_and(|t| t.is_punct("...")) {
            if !tokens.get(i + 1).is_some_and(|t| t.is_punct(")")) {
                diags.error(tok.map_or(at, |t| t.loc), "missing ')' after '...'");
                return None;
            }
            names.push(VA_ARGS.to_string());
            return Some((names, true, i + 2));
        }
        match tok.and_then(|t| t.ident().map(|n| (t, n))) {
            Some((t, name)) if name == VA_ARGS || names.iter().any(|n| n == name) => {
                diags.error(t.loc, format!("invalid macro parameter name '{name}'"));
                return None;
            }
            Some((_, name)) => names.push(name.to_string()),
            None => {
                diags.error(tok.map_or(at, |t| t.loc), "expected a macro parameter name");
                return None;
            }
        }
        match tokens.get(i + 1) {
            Some(t) if t.is_punct(",") => i += 2,
            Some(t) if t.is_punct(")") => return Some((names, false, i + 2)),
            other => {
                diags.error(
                    other.map_or(at, |t| t.loc),
                    "expected ',' or ')' in macro parameter list",
                );
                return None;
            }
        }
    }
}

/// The constraints on a replacement list (C99 §6.10.3.2, §6.10.3.3).
fn check_body(m: &Macro, diags: &mut Diagnostics) -> Option<()> {
    let body = &m.body;
    for (i, tok) in body.iter().enumerate() {
        let at_edge = i == 0 || i + 1 == body.len();
        if tok.is_punct("##") && at_edge {
            diags.error(
                tok.loc,
                "'##' cannot appear at either end of a macro expansion",
            );
            return None;
        }
        let stringizes_param = body.get(i + 1).and_then(|t| m.param_index(t)).is_some();
        if m.params.is_some() && tok.is_punct("#") && !stringizes_param {
            diags.error(tok.loc, "'#' is not followed by a macro parameter");
            return None;
        }
        if tok.ident() == Some(VA_ARGS) && !m.variadic {
            diags.error(
                tok.loc,
                "__VA_ARGS__ can only appear in the expansion of a variadic macro",
            );
            return None;
        }
    }
    Some(())
}

/// The names of the macros a token came out of, sorted.
#[derive(Clone, Debug, Default)]
pub(super) struct HideSet(Option<Rc<[Rc<str>]>>);

impl HideSet {
    fn names(&self) -> &[Rc<str>] {
        self.0.as_deref().unwrap_or_default()
    }

    fn contains(&self, name: &str) -> bool {
        self.names().binary_search_by(|n| (**n).cmp(name)).is_ok()
    }

    fn from_sorted(names: Vec<Rc<str>>) -> HideSet {
        HideSet((!names.is_empty()).then(|| names.into()))
    }

    fn with(&self, name: &Rc<str>) -> HideSet {
        self.union(&HideSet(Some(Rc::new([name.clone()]))))
    }

    fn union(&self, other: &HideSet) -> HideSet {
        let (a, b) = (self.names(), other.names());
        if b.iter().all(|n| self.contains(n)) {
            return self.clone();
        }
        if a.iter().all(|n| other.contains(n)) {
            return other.clone();
        }
        let mut names: Vec<Rc<str>> = a.iter().chain(b).cloned().collect();
        names.sort();
        names.dedup();
        HideSet::from_sorted(names)
    }

    fn intersect(&self, other: &HideSet) -> HideSet {
        HideSet::from_sorted(
            self.names()
                .iter()
                .filter(|n| other.contains(n))
                .cloned()
                .collect(),
        )
    }
}

/// A token during expansion.
#[derive(Clone, Debug)]
pub(super) struct Tok {
    pub pp: PpToken,
    pub hide: HideSet,
}

impl Tok {
    pub fn new(pp: PpToken) -> Tok {
        Tok {
            pp,
            hide: HideSet::default(),
        }
    }
}

/// Where the expander reads from: tokens waiting to be rescanned, then, for source text, the
/// rest of the current file (a function-like macro's arguments may span lines there).
pub(super) struct Input<'f> {
    pub pending: VecDeque<Tok>,
    pub file: Option<FileInput<'f>>,
}

/// The current file as the expander reads it: its tokens, the position, and its `#if` groups
/// (directives inside a macro's arguments are processed as they are reached).
pub(super) struct FileInput<'f> {
    pub tokens: &'f [PpToken],
    pub pos: &'f mut usize,
    pub conds: &'f mut Vec<Cond>,
}

impl FileInput<'_> {
    /// Index of the next token after line ends and lines that conditional inclusion skips,
    /// and whether it starts a directive; `None` at the end of the file.
    fn scan(&self) -> Option<(usize, bool)> {
        let mut i = *self.pos;
        loop {
            let tok = self.tokens.get(i)?;
            if tok.is_eof() {
                return None;
            }
            if tok.is_newline() {
                i += 1;
                continue;
            }
            let line_start = i > 0 && self.tokens.get(i - 1).is_some_and(PpToken::is_newline);
            if line_start && tok.is_punct("#") {
                return Some((i, true));
            }
            if cond::active(self.conds) {
                return Some((i, false));
            }
            while self.tokens.get(i).is_some_and(|t| !t.is_newline() && !t.is_eof()) {
                i += 1;
            }
        }
    }
}

impl Input<'_> {
    /// Index in the file of the next token that is read as text (not a directive).
    fn file_next(&self) -> Option<usize> {
        match self.file.as_ref()?.scan()? {
            (i, false) => Some(i),
            (_, true) => None,
        }
    }

    /// If the file's next line to read is a directive, that line after its `#` (consumed).
    fn take_directive(&mut self) -> Option<Vec<PpToken>> {
        let file = self.file.as_mut()?;
        let (hash, true) = file.scan()? else { return None };
        let line = file.tokens.get(hash + 1..)?;
        let len = line.iter().position(|t| t.is_newline() || t.is_eof()).unwrap_or(line.len());
        *file.pos = hash + 1 + len;
        line.get(..len).map(<[PpToken]>::to_vec)
    }

    fn peek_is(&self, punct: &str) -> bool {
        match self.pending.front() {
            Some(t) => t.pp.is_punct(punct),
            None => self.file_next().is_some_and(|i| {
                self.file
                    .as_ref()
                    .is_some_and(|f| f.tokens.get(i).is_some_and(|t| t.is_punct(punct)))
            }),
        }
    }

    fn next(&mut self) -> Option<Tok> {
        if let Some(t) = self.pending.pop_front() {
            return Some(t);
        }
        let i = self.file_next()?;
        let file = self.file.as_mut()?;
        let crossed_line = i > *file.pos;
        *file.pos = i + 1;
        let mut pp = file.tokens.get(i)?.clone();
        pp.space_before |= crossed_line;
        Some(Tok::new(pp))
    }
}

/// Expands macros; borrows what it needs from the preprocessor.
pub(super) struct Expander<'a> {
    pub macros: &'a mut HashMap<String, Rc<Macro>>,
    pub diags: &'a mut Diagnostics,
    /// Expansions left before the build is stopped (guards against exponential macros).
    pub budget: &'a mut usize,
    /// `__FILE__` and the `#line` adjustment for `__LINE__`.
    pub file_name: &'a str,
    pub line_delta: i64,
    /// In a `#if` line, `defined X` is an operator.
    pub if_mode: bool,
    /// The `_Pragma` operators met in source text: how many tokens were output before each,
    /// where it is, and the pragma's tokens.
    pub pragmas: Vec<(usize, Loc, Vec<PpToken>)>,
}

impl Expander<'_> {
    /// Expands everything `input` yields, appending the result to `out`.
    pub fn run(&mut self, input: &mut Input, out: &mut Vec<Tok>, depth: usize) {
        while let Some(t) = input.pending.pop_front() {
            self.step(t, input, out, depth);
        }
    }

    /// Fully expands a token list on its own (a macro argument, a directive's operands).
    pub fn expand_list(&mut self, tokens: Vec<Tok>, depth: usize) -> Vec<Tok> {
        let mut input = Input {
            pending: tokens.into(),
            file: None,
        };
        let mut out = Vec::new();
        self.run(&mut input, &mut out, depth);
        out
    }

    fn step(&mut self, t: Tok, input: &mut Input, out: &mut Vec<Tok>, depth: usize) {
        let Some(name) = t.pp.ident() else {
            return out.push(t);
        };
        if self.if_mode && name == "defined" {
            let value = self.defined_operand(&t, input);
            return out.push(number_token(value, &t));
        }
        if let Some(lit) = self.builtin(name, &t) {
            return out.push(lit);
        }
        // In source text (not in a directive, nor while an argument is expanded on its own:
        // its result is rescanned here).
        if name == "_Pragma" && depth == 0 && input.file.is_some() {
            if let Some(pragma) = self.pragma_operator(&t, input) {
                self.pragmas.push((out.len(), t.pp.loc, pragma));
            }
            return;
        }
        let Some(m) = self.macros.get(name).cloned() else {
            return out.push(t);
        };
        if t.hide.contains(name) || *self.budget == 0 {
            return out.push(t);
        }
        let (args, hide) = match &m.params {
            None => (Vec::new(), t.hide.with(&m.name)),
            Some(_) if !input.peek_is("(") => return out.push(t),
            Some(_) => match self.collect_args(name, &m, &t, input) {
                Some((args, rparen)) => (args, t.hide.intersect(&rparen).with(&m.name)),
                None => return,
            },
        };
        *self.budget -= 1;
        if *self.budget == 0 {
            self.diags
                .error(t.pp.loc, "too many macro expansions; stopped expanding");
        }
        let mut expansion = self.substitute(&m, &args, &t, depth);
        if let Some(first) = expansion.first_mut() {
            first.pp.space_before = t.pp.space_before;
        }
        for mut tok in expansion.into_iter().rev() {
            tok.hide = tok.hide.union(&hide);
            input.pending.push_front(tok);
        }
    }

    /// `__FILE__` / `__LINE__` at `t`.
    fn builtin(&self, name: &str, t: &Tok) -> Option<Tok> {
        match name {
            "__LINE__" => {
                let line = (i64::from(t.pp.loc.line) + self.line_delta).max(0) as u64;
                Some(number_token(line, t))
            }
            "__FILE__" => Some(string_token(self.file_name, t)),
            _ => None,
        }
    }

    /// The tokens of `_Pragma(...)` (C99 §6.10.9), whose `_Pragma` is `t`: the operand, once
    /// macro-expanded (as gcc and clang do: `_Pragma(STR(unroll N))`), must be one string
    /// literal; it is destringized and lexed, each token located at `t`.
    fn pragma_operator(&mut self, t: &Tok, input: &mut Input) -> Option<Vec<PpToken>> {
        let mut operand = Vec::new();
        if input.peek_is("(") {
            input.next();
            let mut nesting = 0usize;
            while let Some(tok) = input.next() {
                match &tok.pp {
                    p if p.is_punct(")") && nesting == 0 => break,
                    p if p.is_punct(")") => nesting -= 1,
                    p if p.is_punct("(") => nesting += 1,
                    _ => {}
                }
                operand.push(tok);
            }
        }
        let expanded = self.expand_list(operand, 1);
        let literal = match expanded.as_slice() {
            [s] => destringize(&s.pp.spelling),
            _ => None,
        };
        let Some(literal) = literal else {
            self.diags.error(t.pp.loc, "_Pragma takes a parenthesized string literal");
            return None;
        };
        let mut tokens = lex(t.pp.loc.file, &literal, self.diags);
        tokens.retain(|p| !p.is_eof() && !p.is_newline());
        for p in &mut tokens {
            p.loc = t.pp.loc;
        }
        Some(tokens)
    }

    /// The operand of `defined`: `X` or `(X)`; true if `X` is a macro.
    fn defined_operand(&mut self, t: &Tok, input: &mut Input) -> u64 {
        let mut next = input.next();
        let paren = next.as_ref().is_some_and(|n| n.pp.is_punct("("));
        if paren {
            next = input.next();
        }
        let Some(name) = next.as_ref().and_then(|n| n.pp.ident()) else {
            self.diags
                .error(t.pp.loc, "macro name missing after 'defined'");
            return 0;
        };
        let defined = self.macros.contains_key(name) || BUILTINS.contains(&name);
        if paren && !input.next().is_some_and(|r| r.pp.is_punct(")")) {
            self.diags.error(t.pp.loc, "missing ')' after 'defined'");
        }
        u64::from(defined)
    }

    /// Reads the arguments of an invocation of `m` (its `(` is next). Returns the arguments,
    /// one per parameter, and the hide set of the closing parenthesis.
    fn collect_args(
        &mut self,
        name: &str,
        m: &Macro,
        t: &Tok,
        input: &mut Input,
    ) -> Option<(Vec<Vec<Tok>>, HideSet)> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        // The variadic argument takes every comma after the named ones.
        let max_splits = if m.variadic { nparams - 1 } else { usize::MAX };
        input.next(); // (
        let mut args: Vec<Vec<Tok>> = vec![Vec::new()];
        let mut nesting = 0usize;
        let rparen = loop {
            let Some(tok) = input.next() else {
                if let Some(line) = input.take_directive() {
                    self.arg_directive(name, line, input);
                    continue;
                }
                self.diags.error(
                    t.pp.loc,
                    format!("unterminated invocation of macro '{name}'"),
                );
                return None;
            };
            if tok.pp.is_punct(")") && nesting == 0 {
                break tok;
            }
            if tok.pp.is_punct("(") {
                nesting += 1;
            } else if tok.pp.is_punct(")") {
                nesting -= 1;
            } else if tok.pp.is_punct(",") && nesting == 0 && args.len() <= max_splits {
                args.push(Vec::new());
                continue;
            }
            args.last_mut()?.push(tok);
        };
        if nparams == 0 && args.len() == 1 && args[0].is_empty() {
            args.clear();
        } else if m.variadic && args.len() + 1 == nparams {
            args.push(Vec::new()); // nothing for `...`
        }
        if args.len() != nparams {
            let named = if m.variadic { nparams - 1 } else { nparams };
            let at_least = if m.variadic { "at least " } else { "" };
            self.diags.error(
                t.pp.loc,
                format!(
                    "macro '{name}' takes {at_least}{named} argument(s), but {} given",
                    args.len()
                ),
            );
            return None;
        }
        Some((args, rparen.hide))
    }

    /// A directive met while reading the arguments of macro `name`: conditional inclusion,
    /// `#define`, `#undef`, `#error` and `#warning` act as on their own lines (as in clang);
    /// other directives are refused.
    fn arg_directive(&mut self, name: &str, line: Vec<PpToken>, input: &mut Input) {
        let Some(first) = line.first() else { return }; // the null directive
        let (at, args) = (first.loc, line.get(1..).unwrap_or_default());
        let directive = first.ident().unwrap_or_default();
        let Some(file) = input.file.as_mut() else { return };
        let mut host = ArgDirectives { expander: self, conds: file.conds };
        if cond::directive(&mut host, directive, at, args) || !cond::active(host.conds) {
            return;
        }
        let (macros, diags) = (&mut *host.expander.macros, &mut *host.expander.diags);
        match directive {
            "define" => define(macros, diags, at, args),
            "undef" => {
                if cond::macro_operand(&mut host, "undef", at, args).is_some() {
                    undef(host.expander.macros, args);
                }
            }
            "error" => diags.error(at, super::message_text(args, "#error")),
            "warning" => diags.warning(at, super::message_text(args, "#warning")),
            _ => diags.error(at, format!("'#{}' is not allowed inside the arguments of macro '{name}'", first.spelling)),
        }
    }

    /// The replacement list of `m` with its parameters replaced (C99 §6.10.3.1–3). Body tokens
    /// take the location of the invocation `site`; argument tokens keep their own.
    fn substitute(&mut self, m: &Macro, args: &[Vec<Tok>], site: &Tok, depth: usize) -> Vec<Tok> {
        let body = &m.body;
        // `None` is a placemarker: an empty argument next to `##`.
        let mut out: Vec<Option<Tok>> = Vec::new();
        let mut expanded: Vec<Option<Vec<Tok>>> = vec![None; args.len()];
        let mut i = 0;
        while let Some(b) = body.get(i) {
            let next = body.get(i + 1);
            if b.is_punct("##") && next.is_some() {
                let (rhs, used) = self.paste_operand(m, i + 1, args, site);
                let va_comma = m.variadic
                    && next.and_then(|n| m.param_index(n)) == Some(args.len().saturating_sub(1))
                    && out
                        .last()
                        .is_some_and(|l| l.as_ref().is_some_and(|l| l.pp.is_punct(",")));
                if va_comma {
                    // GNU `, ## __VA_ARGS__`: the comma goes away when there are no arguments.
                    if args.last().is_some_and(Vec::is_empty) {
                        out.pop();
                    }
                    out.extend(rhs.into_iter().filter(Option::is_some));
                } else {
                    self.paste(&mut out, rhs, site);
                }
                i += 1 + used;
                continue;
            }
            let (replacement, used) = match m.param_index(b) {
                Some(j) if next.is_some_and(|n| n.is_punct("##")) => (raw_operand(&args[j]), 1),
                Some(j) => {
                    let arg = match expanded[j].take() {
                        Some(e) => e,
                        None => self.expand_arg(&args[j], site, depth),
                    };
                    expanded[j] = Some(arg.clone());
                    (arg.into_iter().map(Some).collect(), 1)
                }
                None => self.paste_operand(m, i, args, site),
            };
            let start = out.len();
            out.extend(replacement);
            if let Some(Some(first)) = out.get_mut(start) {
                first.pp.space_before = b.space_before;
            }
            i += used;
        }
        out.into_iter().flatten().collect()
    }

    /// The operand at `body[k]`: an argument (unexpanded, a placemarker if empty), a
    /// stringized argument (`#x`) or a body token; and how many body tokens it spans.
    fn paste_operand(
        &mut self,
        m: &Macro,
        k: usize,
        args: &[Vec<Tok>],
        site: &Tok,
    ) -> (Vec<Option<Tok>>, usize) {
        let Some(b) = m.body.get(k) else {
            return (Vec::new(), 1);
        };
        if let Some(j) = m.param_index(b) {
            return (raw_operand(&args[j]), 1);
        }
        let stringized = m.body.get(k + 1).and_then(|n| m.param_index(n));
        if let (true, Some(j)) = (m.params.is_some() && b.is_punct("#"), stringized) {
            let mut s = stringize(&args[j], site);
            s.pp.space_before = b.space_before;
            return (vec![Some(s)], 2);
        }
        let mut pp = b.clone();
        pp.loc = site.pp.loc;
        (vec![Some(Tok::new(pp))], 1)
    }

    fn expand_arg(&mut self, arg: &[Tok], site: &Tok, depth: usize) -> Vec<Tok> {
        if depth >= MAX_NESTING {
            self.diags
                .error(site.pp.loc, "macro invocations nested too deeply");
            return arg.to_vec();
        }
        self.expand_list(arg.to_vec(), depth + 1)
    }

    /// Applies `##` between the last token of `out` and the first of `rhs`.
    fn paste(&mut self, out: &mut Vec<Option<Tok>>, rhs: Vec<Option<Tok>>, site: &Tok) {
        let lhs = out.pop().flatten();
        let mut rhs = rhs.into_iter();
        match (lhs, rhs.next().flatten()) {
            (None, r) => out.push(r),
            (Some(l), None) => out.push(Some(l)),
            (Some(l), Some(r)) => {
                let text = format!("{}{}", l.pp.spelling, r.pp.spelling);
                match lex_one(&text, l.pp.loc) {
                    Some(mut pp) => {
                        pp.space_before = l.pp.space_before;
                        out.push(Some(Tok {
                            pp,
                            hide: l.hide.intersect(&r.hide),
                        }));
                    }
                    None => {
                        self.diags.error(
                            site.pp.loc,
                            format!(
                                "pasting '{}' and '{}' does not give a valid preprocessing token",
                                l.pp.spelling, r.pp.spelling
                            ),
                        );
                        out.extend([Some(l), Some(r)]);
                    }
                }
            }
        }
        out.extend(rhs);
    }
}

/// An argument as an operand of `##`: its tokens, or a placemarker if it is empty.
fn raw_operand(arg: &[Tok]) -> Vec<Option<Tok>> {
    if arg.is_empty() {
        vec![None]
    } else {
        arg.iter().cloned().map(Some).collect()
    }
}

/// `#arg`: the argument's spelling as a string literal (C99 §6.10.3.2).
fn stringize(arg: &[Tok], site: &Tok) -> Tok {
    let mut text = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.pp.space_before {
            text.push(' ');
        }
        let s = &t.pp.spelling;
        if s.starts_with(['"', '\'']) {
            for c in s.chars() {
                if c == '"' || c == '\\' {
                    text.push('\\');
                }
                text.push(c);
            }
        } else {
            text.push_str(s);
        }
    }
    text.push('"');
    let pp = lex_one(&text, site.pp.loc).unwrap_or_else(|| PpToken {
        kind: Err(format!("'#' does not give a valid string literal: {text}")),
        loc: site.pp.loc,
        space_before: false,
        spelling: text,
    });
    Tok::new(pp)
}

/// The text of a string literal's spelling for `_Pragma`: without its quotes, `\"` and `\\`
/// unescaped; `None` if it is not a string literal.
pub(super) fn destringize(spelling: &str) -> Option<String> {
    let inner = spelling.strip_prefix('"')?.strip_suffix('"')?;
    let mut text = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(next @ ('"' | '\\'))) => {
                text.push(next);
                chars.next();
            }
            _ => text.push(c),
        }
    }
    Some(text)
}

/// The expander and the file's groups, for directives inside a macro's arguments.
struct ArgDirectives<'e, 'a, 'c> {
    expander: &'e mut Expander<'a>,
    conds: &'c mut Vec<Cond>,
}

impl cond::Host for ArgDirectives<'_, '_, '_> {
    fn conds(&mut self) -> Option<&mut Vec<Cond>> {
        Some(self.conds)
    }

    fn diags(&mut self) -> &mut Diagnostics {
        self.expander.diags
    }

    fn is_defined(&self, name: &str) -> bool {
        self.expander.macros.contains_key(name) || BUILTINS.contains(&name)
    }

    fn eval(&mut self, at: Loc, args: &[PpToken]) -> bool {
        let if_mode = std::mem::replace(&mut self.expander.if_mode, true);
        let tokens = self.expander.expand_list(args.iter().cloned().map(Tok::new).collect(), 0);
        self.expander.if_mode = if_mode;
        let tokens: Vec<PpToken> = tokens.into_iter().map(|t| t.pp).collect();
        expr::evaluate(&tokens, at, self.expander.diags)
    }
}

/// An integer token made by the preprocessor (`__LINE__`, `defined`).
pub(super) fn number_token(value: u64, like: &Tok) -> Tok {
    Tok::new(PpToken {
        kind: Ok(TokenKind::Int {
            value,
            unsigned: false,
            long: false,
            decimal: true,
        }),
        loc: like.pp.loc,
        space_before: like.pp.space_before,
        spelling: value.to_string(),
    })
}

/// A string literal token with value `value` (`__FILE__`).
fn string_token(value: &str, like: &Tok) -> Tok {
    let escaped: String = value
        .chars()
        .flat_map(|c| {
            if c == '"' || c == '\\' {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect();
    Tok::new(PpToken {
        kind: Ok(TokenKind::Str(value.to_string())),
        loc: like.pp.loc,
        space_before: like.pp.space_before,
        spelling: format!("\"{escaped}\""),
    })
}
