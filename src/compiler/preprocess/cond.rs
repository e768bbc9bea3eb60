//! Conditional inclusion (C99 §6.10.1): the `#if` groups of a file, kept by the directives on
//! their own lines and by those inside a macro invocation's arguments (which clang and gcc
//! process too: `f(x,\n#ifdef A\n a\n#else\n b\n#endif\n)`).

use super::super::diag::Diagnostics;
use super::super::lex::PpToken;
use super::super::source::Loc;

/// One `#if` group being read.
pub(super) struct Cond {
    /// Lines are kept (this branch is the one taken and every enclosing one is kept).
    pub active: bool,
    /// No later `#elif`/`#else` branch may be taken.
    taken: bool,
    seen_else: bool,
    pub loc: Loc,
}

/// Whether lines under these groups are kept.
pub(super) fn active(conds: &[Cond]) -> bool {
    conds.last().is_none_or(|c| c.active)
}

/// What the conditional directives need from the one reading them.
pub(super) trait Host {
    /// The groups of the file being read.
    fn conds(&mut self) -> Option<&mut Vec<Cond>>;
    fn diags(&mut self) -> &mut Diagnostics;
    fn is_defined(&self, name: &str) -> bool;
    /// The value of a `#if`/`#elif` operand (macro-expanded, `defined` an operator).
    fn eval(&mut self, at: Loc, args: &[PpToken]) -> bool;
}

/// Handles directive `name` if it is a conditional one (`#if` ... `#endif`); false otherwise.
pub(super) fn directive(host: &mut impl Host, name: &str, at: Loc, args: &[PpToken]) -> bool {
    match name {
        "if" | "ifdef" | "ifndef" => open(host, name, at, args),
        "elif" => elif(host, at, args),
        "else" | "endif" => else_endif(host, name, at, args),
        _ => return false,
    }
    true
}

fn open(host: &mut impl Host, kind: &str, at: Loc, args: &[PpToken]) {
    let parent_active = host.conds().is_none_or(|c| active(c));
    let value = parent_active
        && match kind {
            "if" => host.eval(at, args),
            _ => macro_operand(host, kind, at, args).is_some_and(|defined| defined == (kind == "ifdef")),
        };
    if let Some(conds) = host.conds() {
        conds.push(Cond { active: value, taken: value || !parent_active, seen_else: false, loc: at });
    }
}

fn elif(host: &mut impl Host, at: Loc, args: &[PpToken]) {
    let Some((taken, seen_else)) = host.conds().and_then(|c| c.last()).map(|c| (c.taken, c.seen_else)) else {
        return host.diags().error(at, "#elif without #if");
    };
    if seen_else {
        host.diags().error(at, "#elif after #else");
    }
    let value = !taken && host.eval(at, args);
    if let Some(cond) = host.conds().and_then(|c| c.last_mut()) {
        cond.active = value;
        cond.taken |= value;
    }
}

fn else_endif(host: &mut impl Host, name: &str, at: Loc, args: &[PpToken]) {
    extra_tokens(host.diags(), name, args);
    let Some(conds) = host.conds() else { return };
    if name == "endif" {
        if conds.pop().is_none() {
            host.diags().error(at, "#endif without #if");
        }
        return;
    }
    let Some(cond) = conds.last_mut() else {
        return host.diags().error(at, "#else without #if");
    };
    let repeated = cond.seen_else;
    cond.active = !cond.taken;
    cond.taken = true;
    cond.seen_else = true;
    if repeated {
        host.diags().error(at, "#else after #else");
    }
}

/// The macro name operand of `#ifdef`/`#ifndef`/`#undef`; `Some(whether it is defined)`.
pub(super) fn macro_operand(host: &mut impl Host, directive: &str, at: Loc, args: &[PpToken]) -> Option<bool> {
    let Some(name) = args.first().and_then(PpToken::ident) else {
        host.diags().error(at, format!("macro name missing in #{directive}"));
        return None;
    };
    extra_tokens(host.diags(), directive, args.get(1..).unwrap_or_default());
    Some(host.is_defined(name))
}

pub(super) fn extra_tokens(diags: &mut Diagnostics, directive: &str, rest: &[PpToken]) {
    if let Some(extra) = rest.first() {
        diags.warning(extra.loc, format!("extra tokens at end of #{directive} directive"));
    }
}
