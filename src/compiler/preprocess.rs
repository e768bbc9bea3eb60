//! The preprocessor (C99 §6.10, OpenCL C 3.0 §6.10): directives, conditional inclusion,
//! `#include`, pragmas and macro expansion over the lexer's tokens. Its output is the parser's
//! input: tokens without line ends, each located where it was written (a macro's replacement
//! tokens at the invocation), adjacent string literals joined.

mod cond;
mod expand;
mod expr;
mod include;
mod standard;

use super::diag::Diagnostics;
use super::lex::{lex, PpToken};
use super::options::{BuildOptions, ClStd};
use super::source::{FileId, Loc, SourceMap};
use super::token::{Token, TokenKind};
use super::Target;
use cond::Cond;
use expand::{Expander, FileInput, Input, Macro, Tok, BUILTINS};
use include::{Dir, Finder};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write;
use std::rc::Rc;

/// How deeply `#include`s may nest.
const MAX_INCLUDE_DEPTH: usize = 200;

/// Macro expansions one compilation may do (stops exponentially growing macros).
const MAX_EXPANSIONS: usize = 1_000_000;

/// Name of the pseudo-file holding the predefined and `-D` macros.
const BUILTIN_FILE: &str = "<built-in>";

/// The preprocessed program.
#[derive(Debug)]
pub struct Preprocessed {
    /// Tokens for the parser: no `Newline`s, adjacent string literals joined, ending in `Eof`.
    pub tokens: Vec<Token>,
    /// Extensions enabled by `#pragma OPENCL EXTENSION` at the end of the program, in order.
    pub extensions: Vec<String>,
    /// `#pragma OPENCL FP_CONTRACT` at the end of the program (ON unless turned OFF).
    pub fp_contract: bool,
    /// The program as self-contained preprocessed text, pragmas first (for compiled objects
    /// and program binaries, compiled again at link time).
    pub text: String,
}

/// The OpenCL C 3.0 features of the C11 atomics every device has (`CL_DEVICE_OPENCL_C_FEATURES`
/// lists them too): acquire/release and seq_cst orders, the device scope (`sema/atomics.rs`,
/// `docs/compiler.md`).
pub const ATOMIC_FEATURES: [&str; 3] = ["__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device"];

/// The OpenCL C 3.0 features of a device with sub-groups (`Target::subgroups`). Not the
/// `cl_khr_subgroups` extension: it requires independent forward progress between
/// sub-groups, which Vulkan does not promise.
pub const SUBGROUP_FEATURES: [&str; 2] = ["__opencl_c_subgroups", "__opencl_c_work_group_collective_functions"];

/// The OpenCL C 3.0 features of a device with images (`Target::images`).
pub const IMAGE_FEATURES: [&str; 2] = ["__opencl_c_images", "__opencl_c_3d_image_writes"];

/// The sub-group extensions of a device with sub-groups.
pub const SUBGROUP_EXTENSIONS: [&str; 8] = [
    "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative",
    "cl_khr_subgroup_ballot",
    "cl_khr_subgroup_non_uniform_vote",
    "cl_khr_subgroup_extended_types",
    "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_clustered_reduce",
    "cl_khr_subgroup_rotate",
];

/// The macros every program starts with, as `(name, replacement)`; a function-like macro's
/// name carries its parameter list.
pub fn predefined_macros(target: &Target, opts: &BuildOptions) -> Vec<(String, String)> {
    let mut defs: Vec<(String, String)> = vec![
        ("__OPENCL_VERSION__".into(), "300".into()),
        ("__OPENCL_C_VERSION__".into(), opts.c_version().to_string()),
        ("CL_VERSION_1_0".into(), "100".into()),
        ("CL_VERSION_1_1".into(), "110".into()),
        ("CL_VERSION_1_2".into(), "120".into()),
        ("CL_VERSION_2_0".into(), "200".into()),
        ("CL_VERSION_3_0".into(), "300".into()),
        ("__ENDIAN_LITTLE__".into(), "1".into()),
        (
            "__kernel_exec(X, typen)".into(),
            "__kernel __attribute__((work_group_size_hint(X, 1, 1))) \
             __attribute__((vec_type_hint(typen)))"
                .into(),
        ),
        (
            "kernel_exec(X, typen)".into(),
            "__kernel_exec(X, typen)".into(),
        ),
    ];
    let mut flag = |name: &str, on: bool| {
        if on {
            defs.push((name.to_string(), "1".to_string()));
        }
    };
    flag("__FAST_RELAXED_MATH__", opts.fast_relaxed_math);
    for ext in supported_extensions(target) {
        flag(ext, true);
    }
    let cl3 = opts.cl_std == Some(ClStd::Cl30);
    flag("__opencl_c_int64", cl3 && target.int64);
    flag("__opencl_c_fp64", cl3 && target.fp64);
    flag("__opencl_c_program_scope_global_variables", cl3);
    flag("__opencl_c_generic_address_space", cl3);
    for feature in IMAGE_FEATURES {
        flag(feature, cl3 && target.images);
    }
    flag("__IMAGE_SUPPORT__", target.images);
    for feature in ATOMIC_FEATURES {
        flag(feature, cl3);
    }
    for space in ["global", "local"] {
        for op in ["atomic_add", "atomic_min_max"] {
            flag(&format!("__opencl_c_ext_fp32_{space}_{op}"), cl3);
            flag(&format!("__opencl_c_ext_fp64_{space}_{op}"), cl3 && target.fp64 && target.int64_atomics);
        }
    }
    for feature in SUBGROUP_FEATURES {
        flag(feature, cl3 && target.subgroups);
    }
    if cl3 {
        // C11 atomics: deprecated in OpenCL C 3.0, still defined (as clang does).
        defs.push(("ATOMIC_VAR_INIT(x)".into(), "(x)".into()));
        defs.push(("ATOMIC_FLAG_INIT".into(), "0".into()));
    }
    defs.extend(standard::standard_macros(target));
    defs
}

/// The OpenCL C extensions the target supports (each also a predefined macro).
fn supported_extensions(target: &Target) -> Vec<&'static str> {
    let mut exts = vec![
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_byte_addressable_store",
    ];
    if target.int64_atomics {
        exts.extend(["cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"]);
    }
    if target.fp64 {
        exts.push("cl_khr_fp64");
    }
    if target.fp16 {
        exts.push("cl_khr_fp16");
    }
    exts.push("cl_ext_float_atomics");
    if target.subgroups {
        exts.extend(SUBGROUP_EXTENSIONS);
    }
    if target.images {
        exts.push("cl_khr_3d_image_writes");
    }
    exts
}

/// Preprocesses file `main` of `sources`. `predefined` (see [`predefined_macros`]) is defined
/// first, then the `-D` options; `headers` are the `(name, text)` headers given to
/// `clCompileProgram`, searched by name before the `-I` directories. Included files are added
/// to `sources`. Extensions named in `#pragma OPENCL EXTENSION` are known if `predefined`
/// defines a `cl_` macro of that name. `-w` and `-Werror` are applied to `diags`.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    opts: &BuildOptions,
    predefined: &[(String, String)],
    headers: &[(String, String)],
    diags: &mut Diagnostics,
) -> Preprocessed {
    diags.suppress_warnings |= opts.suppress_warnings;
    diags.warnings_are_errors |= opts.warnings_are_errors;
    let known_extensions = predefined
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|n| n.starts_with("cl_"))
        .collect();
    let mut pp = Preprocessor {
        sources,
        diags,
        finder: Finder::new(headers, &opts.include_dirs),
        known_extensions,
        macros: HashMap::new(),
        files: Vec::new(),
        out: Vec::new(),
        budget: MAX_EXPANSIONS,
        once: HashSet::new(),
        extensions: Vec::new(),
        fp_contract: true,
        eof: Loc {
            file: main,
            line: 1,
            col: 1,
        },
    };
    let main_name = pp.sources.file(main).name.clone();
    pp.push_file(main, main_name, Dir::None);
    let builtin = pp.sources.add(BUILTIN_FILE, builtin_text(predefined, opts));
    pp.push_file(builtin, BUILTIN_FILE.to_string(), Dir::None);
    pp.run();
    pp.finish()
}

/// `#define` lines for the predefined macros, then the `-D` options.
fn builtin_text(predefined: &[(String, String)], opts: &BuildOptions) -> String {
    let defines = opts
        .defines
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_deref().unwrap_or("1")));
    predefined
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .chain(defines)
        .map(|(name, value)| format!("#define {name} {}\n", value.replace(['\n', '\r'], " ")))
        .collect()
}

/// A file being read (the main file or an include).
struct FileState {
    id: FileId,
    tokens: Vec<PpToken>,
    pos: usize,
    conds: Vec<Cond>,
    /// `__FILE__`; `#line` may change it.
    name: String,
    /// What `#line` adds to physical line numbers for `__LINE__`.
    line_delta: i64,
    /// Where quoted includes are looked for last.
    dir: Dir,
}

struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    diags: &'a mut Diagnostics,
    finder: Finder<'a>,
    known_extensions: Vec<String>,
    macros: HashMap<String, Rc<Macro>>,
    /// The include stack; the last file is the one being read.
    files: Vec<FileState>,
    out: Vec<PpToken>,
    budget: usize,
    /// Files that said `#pragma once`.
    once: HashSet<String>,
    extensions: Vec<String>,
    fp_contract: bool,
    /// Where the main file ends.
    eof: Loc,
}

impl Preprocessor<'_> {
    fn push_file(&mut self, id: FileId, name: String, dir: Dir) {
        let tokens = lex(id, &self.sources.file(id).text, self.diags);
        self.files.push(FileState {
            id,
            tokens,
            pos: 0,
            conds: Vec::new(),
            name,
            line_delta: 0,
            dir,
        });
    }

    fn run(&mut self) {
        while let Some(file) = self.files.last_mut() {
            let Some(tok) = file.tokens.get(file.pos) else {
                self.end_file();
                continue;
            };
            let line_start = file.pos == 0
                || file
                    .tokens
                    .get(file.pos - 1)
                    .is_some_and(PpToken::is_newline);
            if tok.is_eof() {
                self.end_file();
            } else if tok.is_newline() {
                file.pos += 1;
            } else if line_start && tok.is_punct("#") {
                file.pos += 1;
                let line = self.take_line();
                self.directive(line);
            } else if self.active() {
                self.expand_text();
            } else {
                self.take_line();
            }
        }
    }

    fn end_file(&mut self) {
        let Some(file) = self.files.pop() else { return };
        for cond in &file.conds {
            self.diags
                .error(cond.loc, "unterminated conditional directive");
        }
        if self.files.is_empty() {
            self.eof = file.tokens.last().map_or(self.eof, |t| t.loc);
        }
    }

    /// The rest of the current line, its line end consumed.
    fn take_line(&mut self) -> Vec<PpToken> {
        let Some(file) = self.files.last_mut() else {
            return Vec::new();
        };
        let mut line = Vec::new();
        while let Some(tok) = file.tokens.get(file.pos) {
            if tok.is_eof() {
                break;
            }
            file.pos += 1;
            if tok.is_newline() {
                break;
            }
            line.push(tok.clone());
        }
        line
    }

    fn active(&self) -> bool {
        self.files.last().is_none_or(|f| cond::active(&f.conds))
    }

    /// Expands the source text starting at the current token (reading on across lines for a
    /// function-like macro's arguments).
    fn expand_text(&mut self) {
        let Some(file) = self.files.last_mut() else {
            return;
        };
        let Some(tok) = file.tokens.get(file.pos).cloned() else {
            return;
        };
        file.pos += 1;
        let mut input = Input {
            pending: VecDeque::from([Tok::new(tok)]),
            file: Some(FileInput {
                tokens: &file.tokens,
                pos: &mut file.pos,
                conds: &mut file.conds,
            }),
        };
        let mut expander = Expander {
            macros: &mut self.macros,
            diags: &mut *self.diags,
            budget: &mut self.budget,
            file_name: &file.name,
            line_delta: file.line_delta,
            if_mode: false,
            pragmas: Vec::new(),
        };
        let mut out = Vec::new();
        expander.run(&mut input, &mut out, 0);
        // `_Pragma` operators act where they stood among the expanded tokens.
        let mut pragmas = expander.pragmas.into_iter().peekable();
        for (i, t) in out.into_iter().enumerate() {
            while let Some((_, at, args)) = pragmas.next_if(|p| p.0 == i) {
                self.pragma(at, &args);
            }
            self.out.push(t.pp);
        }
        for (_, at, args) in pragmas {
            self.pragma(at, &args);
        }
    }

    /// Macro-expands a directive's operands (`#if`, `#include`, `#line`).
    fn expand_line(&mut self, line: &[PpToken], if_mode: bool) -> Vec<PpToken> {
        let (file_name, line_delta) = self
            .files
            .last()
            .map_or(("", 0), |f| (f.name.as_str(), f.line_delta));
        let mut expander = Expander {
            macros: &mut self.macros,
            diags: &mut *self.diags,
            budget: &mut self.budget,
            file_name,
            line_delta,
            if_mode,
            pragmas: Vec::new(),
        };
        let tokens = line.iter().cloned().map(Tok::new).collect();
        expander
            .expand_list(tokens, 0)
            .into_iter()
            .map(|t| t.pp)
            .collect()
    }

    fn directive(&mut self, line: Vec<PpToken>) {
        let Some(first) = line.first() else { return }; // the null directive
        let at = first.loc;
        let args = line.get(1..).unwrap_or_default();
        let Some(name) = first.ident() else {
            if self.active() {
                self.diags.error(
                    at,
                    format!("invalid preprocessing directive '#{}'", first.spelling),
                );
            }
            return;
        };
        if cond::directive(self, name, at, args) {
            return;
        }
        match name {
            _ if !self.active() => {}
            "define" => expand::define(&mut self.macros, self.diags, at, args),
            "undef" => {
                if cond::macro_operand(self, "undef", at, args).is_some() {
                    expand::undef(&mut self.macros, args);
                }
            }
            "include" => self.include(at, args),
            "line" => self.line(at, args),
            "error" => self.diags.error(at, message_text(args, "#error")),
            "warning" => self.diags.warning(at, message_text(args, "#warning")),
            "pragma" => self.pragma(at, args),
            _ => self
                .diags
                .error(at, format!("invalid preprocessing directive '#{name}'")),
        }
    }

    fn include(&mut self, at: Loc, args: &[PpToken]) {
        let direct = args
            .first()
            .is_some_and(|t| t.spelling.starts_with('"') || t.is_punct("<"));
        let tokens = if direct {
            args.to_vec()
        } else {
            self.expand_line(args, false)
        };
        let Some((name, quoted, rest)) = header_name(&tokens) else {
            return self
                .diags
                .error(at, "expected \"FILENAME\" or <FILENAME> after #include");
        };
        cond::extra_tokens(self.diags, "include", rest);
        if self.files.len() > MAX_INCLUDE_DEPTH {
            return self.diags.error(at, "#include nested too deeply");
        }
        let from = match self.files.last() {
            Some(f) if quoted => f.dir.clone(),
            _ => Dir::None,
        };
        let found = match self.finder.find(&name, &from) {
            Ok(found) => found,
            Err(message) => return self.diags.error(at, message),
        };
        if self.once.contains(&found.path) {
            return;
        }
        let id = self.sources.add(found.path.clone(), found.text);
        self.push_file(id, found.path, found.dir);
    }

    fn line(&mut self, at: Loc, args: &[PpToken]) {
        let tokens = self.expand_line(args, false);
        let number = tokens
            .first()
            .filter(|t| t.spelling.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|t| t.spelling.parse::<i64>().ok());
        let Some(number) = number.filter(|n| (1..=i64::from(i32::MAX)).contains(n)) else {
            return self
                .diags
                .error(at, "#line requires a line number from 1 to 2147483647");
        };
        let name = match tokens.get(1) {
            Some(t) => match &t.kind {
                Ok(TokenKind::Str(s)) => Some(s.clone()),
                _ => {
                    return self
                        .diags
                        .error(t.loc, "invalid file name in #line directive")
                }
            },
            None => None,
        };
        cond::extra_tokens(self.diags, "line", tokens.get(2..).unwrap_or_default());
        let Some(file) = self.files.last_mut() else {
            return;
        };
        // The line after the directive (which ends just before `pos`) is `number`.
        let next_line = file
            .tokens
            .get(file.pos)
            .map_or(at.line + 1, |t| t.loc.line);
        let directive_end = file
            .tokens
            .get(file.pos.wrapping_sub(1))
            .filter(|t| t.is_newline());
        let next_line = directive_end.map_or(next_line, |t| t.loc.line + 1);
        file.line_delta = number - i64::from(next_line);
        if let Some(name) = name {
            file.name = name;
        }
    }

    fn pragma(&mut self, at: Loc, args: &[PpToken]) {
        let words: Vec<&str> = args.iter().map(|t| t.spelling.as_str()).collect();
        match words.as_slice() {
            ["OPENCL", "EXTENSION", name, ":", behavior] => {
                self.extension_pragma(at, name, behavior)
            }
            ["OPENCL", "EXTENSION", ..] => {
                self.diags.warning(at, "malformed #pragma OPENCL EXTENSION")
            }
            ["OPENCL", "FP_CONTRACT", state] => match *state {
                "ON" | "DEFAULT" => self.fp_contract = true,
                "OFF" => self.fp_contract = false,
                _ => self.diags.warning(
                    at,
                    "expected 'ON', 'OFF' or 'DEFAULT' in #pragma OPENCL FP_CONTRACT",
                ),
            },
            ["OPENCL", ..] => self
                .diags
                .warning(at, "unknown or malformed #pragma OPENCL"),
            ["unroll"] => self.unroll_hint(at, ""),
            ["nounroll"] => self.unroll_hint(at, "(1)"),
            ["unroll", n] | ["unroll", "(", n, ")"] => match n.parse::<u32>() {
                Ok(n) if n > 0 => self.unroll_hint(at, &format!("({n})")),
                _ => self
                    .diags
                    .warning(at, "invalid #pragma unroll count; ignoring"),
            },
            ["once"] => {
                if let Some(file) = self.files.last() {
                    self.once.insert(self.sources.file(file.id).name.clone());
                }
            }
            _ => {}
        }
    }

    /// `#pragma unroll` becomes the attribute that means the same,
    /// `__attribute__((opencl_unroll_hint COUNT))`, at the pragma: the parser then sees one
    /// form only, and a compiled object's text keeps the hint in place.
    fn unroll_hint(&mut self, at: Loc, count: &str) {
        let text = format!("__attribute__((opencl_unroll_hint{count}))");
        let mut tokens = lex(at.file, &text, self.diags);
        tokens.retain(|t| !t.is_eof());
        for (i, t) in tokens.iter_mut().enumerate() {
            t.loc = at;
            t.space_before = i == 0;
        }
        self.out.extend(tokens);
    }

    fn extension_pragma(&mut self, at: Loc, name: &str, behavior: &str) {
        let enable = match behavior {
            "enable" => true,
            "disable" => false,
            _ => {
                return self.diags.warning(
                    at,
                    "expected 'enable' or 'disable' in #pragma OPENCL EXTENSION",
                )
            }
        };
        let names: Vec<String> = if name == "all" {
            self.known_extensions.clone()
        } else if self.known_extensions.iter().any(|e| e == name) {
            vec![name.to_string()]
        } else {
            return self
                .diags
                .warning(at, format!("unknown OpenCL extension '{name}' - ignoring"));
        };
        for name in names {
            let present = self.extensions.contains(&name);
            if enable && !present {
                self.extensions.push(name);
            } else if !enable {
                self.extensions.retain(|e| *e != name);
            }
        }
    }

    fn finish(self) -> Preprocessed {
        let text = render_text(&self.out, self.eof.file, &self.extensions, self.fp_contract);
        let mut tokens: Vec<Token> = Vec::with_capacity(self.out.len() + 1);
        for pp in self.out {
            let kind = match pp.kind {
                Ok(kind) => kind,
                Err(message) => {
                    self.diags.error(pp.loc, message);
                    continue;
                }
            };
            // Translation phase 6: adjacent string literals are concatenated.
            if let (
                TokenKind::Str(s),
                Some(Token {
                    kind: TokenKind::Str(prev),
                    ..
                }),
            ) = (&kind, tokens.last_mut())
            {
                prev.push_str(s);
                continue;
            }
            tokens.push(Token {
                kind,
                loc: pp.loc,
                space_before: pp.space_before,
            });
        }
        tokens.push(Token {
            kind: TokenKind::Eof,
            loc: self.eof,
            space_before: true,
        });
        Preprocessed {
            tokens,
            extensions: self.extensions,
            fp_contract: self.fp_contract,
            text,
        }
    }
}

impl cond::Host for Preprocessor<'_> {
    fn conds(&mut self) -> Option<&mut Vec<Cond>> {
        self.files.last_mut().map(|f| &mut f.conds)
    }

    fn diags(&mut self) -> &mut Diagnostics {
        self.diags
    }

    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name) || BUILTINS.contains(&name)
    }

    fn eval(&mut self, at: Loc, args: &[PpToken]) -> bool {
        let tokens = self.expand_line(args, true);
        expr::evaluate(&tokens, at, self.diags)
    }
}

/// The file name of `#include` and the tokens after it: `"name"` (quoted: true) or `<name>`.
fn header_name(tokens: &[PpToken]) -> Option<(String, bool, &[PpToken])> {
    let first = tokens.first()?;
    if first.is_punct("<") {
        let close = tokens.iter().position(|t| t.is_punct(">"))?;
        let inner = tokens.get(1..close)?;
        let name = inner
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i > 0 && t.space_before {
                    format!(" {}", t.spelling)
                } else {
                    t.spelling.clone()
                }
            })
            .collect();
        return Some((name, false, tokens.get(close + 1..)?));
    }
    let name = first.spelling.strip_prefix('"')?.strip_suffix('"')?;
    Some((name.to_string(), true, tokens.get(1..)?))
}

/// The text of `#error`/`#warning`: the rest of the line, or the directive if there is none.
pub(super) fn message_text(args: &[PpToken], directive: &str) -> String {
    if args.is_empty() {
        return directive.to_string();
    }
    let mut text = String::new();
    for (i, t) in args.iter().enumerate() {
        if i > 0 && t.space_before {
            text.push(' ');
        }
        text.push_str(&t.spelling);
    }
    text
}

/// The program as text that preprocesses to the same tokens, laid out so that every token of
/// the main file keeps its line and column (where a macro expansion on the line has not pushed
/// it further right): a build that compiles this text again reports errors at the positions of
/// the source. Tokens of included files go on the line of their `#include`; the pragmas that
/// must survive come last, so they shift no line.
fn render_text(tokens: &[PpToken], main: FileId, extensions: &[String], fp_contract: bool) -> String {
    let mut text = String::new();
    let (mut line, mut col) = (1u32, 1u32);
    for t in tokens {
        let main_file = t.loc.file == main;
        if main_file && t.loc.line > line {
            text.extend(std::iter::repeat_n('\n', (t.loc.line - line) as usize));
            (line, col) = (t.loc.line, 1);
        }
        let target_col = if main_file && t.loc.line == line { t.loc.col } else { 0 };
        let pad = match target_col.checked_sub(col) {
            // Tokens that touch must not paste: a macro's expansion can be longer than its name.
            Some(0) if pastes(text.chars().last(), &t.spelling) => 1,
            Some(n) => n as usize,
            None => usize::from(col > 1),
        };
        text.extend(std::iter::repeat_n(' ', pad));
        text.push_str(&t.spelling);
        col += (pad + t.spelling.len()) as u32;
    }
    if col > 1 {
        text.push('\n');
    }
    for ext in extensions {
        let _ = writeln!(text, "#pragma OPENCL EXTENSION {ext} : enable");
    }
    if !fp_contract {
        text.push_str("#pragma OPENCL FP_CONTRACT OFF\n");
    }
    text
}

/// Whether `next`, written right after the character `last`, could lex differently than apart:
/// two word characters join into one name or number, two operator characters into one operator.
fn pastes(last: Option<char>, next: &str) -> bool {
    let (Some(a), Some(b)) = (last, next.chars().next()) else { return false };
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let joins = |c: char| "+-*/%<>=!&|^#.:".contains(c);
    (word(a) && word(b)) || (joins(a) && joins(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::diag::Severity;
    use crate::compiler::options::Stage;

    fn at(line: u32, col: u32) -> Loc {
        Loc { file: 0, line, col }
    }

    use crate::compiler::test_target as target;

    struct Run {
        pp: Preprocessed,
        diags: Diagnostics,
        sources: SourceMap,
    }

    impl Run {
        /// The output, token spellings separated by single spaces.
        fn out(&self) -> String {
            normalize(&self.pp.text)
        }

        fn messages(&self) -> Vec<String> {
            self.diags.list.iter().map(|d| d.message.clone()).collect()
        }
    }

    fn run_with(text: &str, options: &str, headers: &[(&str, &str)]) -> Run {
        let opts = BuildOptions::parse(options, Stage::Compile).expect("options");
        let mut sources = SourceMap::default();
        let main = sources.add("main.cl", text);
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        let mut diags = Diagnostics::default();
        let predefined = predefined_macros(&target(), &opts);
        let pp = preprocess(&mut sources, main, &opts, &predefined, &headers, &mut diags);
        Run { pp, diags, sources }
    }

    fn run(text: &str) -> Run {
        run_with(text, "", &[])
    }

    /// `text` re-lexed, token spellings separated by single spaces.
    fn normalize(text: &str) -> String {
        let tokens = lex(0, text, &mut Diagnostics::default());
        let spellings: Vec<&str> = tokens
            .iter()
            .filter(|t| !t.is_newline() && !t.is_eof())
            .map(|t| t.spelling.as_str())
            .collect();
        spellings.join(" ")
    }

    /// Preprocesses `text`, expecting no diagnostics and the output `expected`.
    fn check(text: &str, expected: &str) {
        let r = run(text);
        assert!(r.diags.list.is_empty(), "{}", r.diags.render(&r.sources));
        assert_eq!(r.out(), normalize(expected));
    }

    #[test]
    fn standard_example_rescanning() {
        // C99 §6.10.3.4 EXAMPLE: a function-like macro finds its arguments after a rescan.
        check("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)\n", "2*9*g");
    }

    #[test]
    fn standard_example_hash_hash() {
        // C99 §6.10.3.3 EXAMPLE: the ## made by pasting is not an operator.
        check(
            "#define hash_hash # ## #\n#define mkstr(a) # a\n#define in_between(a) mkstr(a)\n\
             #define join(c, d) in_between(c hash_hash d)\nchar p[] = join(x, y);\n",
            "char p[] = \"x ## y\";",
        );
    }

    #[test]
    fn standard_example_3() {
        let text = r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
"#;
        let expected = r#"f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { "hello", "" };"#;
        check(text, expected);
    }

    #[test]
    fn standard_example_4() {
        let text = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
#include xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
        let expected = r#"printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
fputs("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0" ": @\n", s);
int vers2;
"hello";
"hello" ", world""#;
        let r = run_with(text, "", &[("vers2.h", "int vers2;\n")]);
        assert!(r.diags.list.is_empty(), "{}", r.diags.render(&r.sources));
        assert_eq!(r.out(), normalize(expected));
        // The parser sees adjacent string literals joined.
        let strings: Vec<&TokenKind> =
            r.pp.tokens
                .iter()
                .map(|t| &t.kind)
                .filter(|k| matches!(k, TokenKind::Str(_)))
                .collect();
        assert_eq!(strings[0], &TokenKind::Str("x1= %d, x2= %s".into()));
        assert_eq!(
            strings[1],
            &TokenKind::Str("strncmp(\"abc\\0d\", \"abc\", '\\4') == 0: @\n".into())
        );
        assert_eq!(strings[3], &TokenKind::Str("hello, world".into()));
    }

    #[test]
    fn standard_example_placemarkers() {
        check(
            "#define t(x,y,z) x ## y ## z\nint j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n\
             t(10,,), t(,11,), t(,,12), t(,,) };\n",
            "int j[] = { 123, 45, 67, 89, 10, 11, 12, };",
        );
    }

    #[test]
    fn standard_example_variadic() {
        let text = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test):\
 printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
        let expected = r#"fprintf(stderr, "Flag" );
fprintf(stderr, "X = %d\n", x );
puts( "The first, second, and third items." );
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
        check(text, expected);
    }

    #[test]
    fn gnu_comma_elision() {
        check(
            "#define P(fmt, ...) printf(fmt, ## __VA_ARGS__)\nP(\"a\"); P(\"b\", 1, 2);\n",
            "printf(\"a\"); printf(\"b\", 1, 2);",
        );
    }

    #[test]
    fn standard_example_redefinitions() {
        let valid = "#define OBJ_LIKE (1-1)\n#define OBJ_LIKE /* white space */ (1-1) /* other */\n\
                     #define FUNC_LIKE(a) ( a )\n#define FUNC_LIKE( a )( /* note the white space */ \\\n\
                     a /* other stuff on this line\n */ )\n";
        assert!(run(valid).diags.list.is_empty());
        for invalid in [
            "#define OBJ_LIKE (0)",
            "#define OBJ_LIKE (1 - 1)",
            "#define FUNC_LIKE(b) ( a )",
            "#define FUNC_LIKE(b) ( b )",
        ] {
            let r = run(&format!("{valid}{invalid}\n"));
            let warnings: Vec<_> = r
                .diags
                .list
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .collect();
            assert_eq!(warnings.len(), 1, "{invalid}");
            assert!(warnings[0].message.contains("macro redefined"));
        }
    }

    #[test]
    fn clinfo_program() {
        let text = "#define GWO(type) global type* restrict\n\
                    #define GRO(type) global const type* restrict\n\
                    #define BODY int i = get_global_id(0); out[i] = in1[i] + in2[i]\n\
                    #define _KRN(T, N) kernel void sum##N(GWO(T##N) out, GRO(T##N) in1, GRO(T##N) in2) { BODY; }\n\
                    #define KRN(N) _KRN(int, N)\n\
                    KRN()\n\
                    /* KRN(2)\nKRN(4)\nKRN(8)\nKRN(16) */\n";
        check(
            text,
            "kernel void sum(global int* restrict out, global const int* restrict in1, \
             global const int* restrict in2) { int i = get_global_id(0); out[i] = in1[i] + in2[i]; }",
        );
    }

    #[test]
    fn self_reference_is_painted_blue() {
        check("#define foo foo + 1\nfoo\n", "foo + 1");
        check("#define a b\n#define b a\na b\n", "a b");
        check("#define f(x) g(x)\n#define g(x) f(x)\nf(1)\n", "f(1)");
        // A name painted blue stays unexpandable when rescanned elsewhere.
        check("#define id(x) x\n#define foo id(foo)\nid(foo)\n", "foo");
        check(
            "#define lparen (\n#define f(x) [x]\nf lparen 1)\n",
            "f ( 1)",
        );
    }

    #[test]
    fn function_like_name_without_arguments() {
        check("#define f(x) x\nf + f\n(2)\n", "f + 2");
        check("#define f(x) x\nint f;\n", "int f;");
        check("#define f(x, y) <x y>\nf(\n1,\n)\n", "<1>");
    }

    #[test]
    fn argument_errors() {
        let r = run("#define f(x) x\nf(1,\n2)\n");
        assert_eq!(
            r.messages(),
            vec!["macro 'f' takes 1 argument(s), but 2 given"]
        );
        let r = run("#define f(x, y) x\nf(1)\n");
        assert_eq!(
            r.messages(),
            vec!["macro 'f' takes 2 argument(s), but 1 given"]
        );
        let r = run("#define f(x) x\nf(1\n");
        assert_eq!(r.messages(), vec!["unterminated invocation of macro 'f'"]);
        assert_eq!(r.diags.list[0].loc, at(2, 1));
        let r = run(
            "#define f(x) #y\n#define g(x) ## x\n#define h(x, x) x\n#define 3 x\n#define i(x\n",
        );
        assert_eq!(r.diags.list.len(), 5, "{:?}", r.messages());
        let r = run("#define f(x) x ## +\nf(-)\n");
        assert_eq!(
            r.messages(),
            vec!["pasting '-' and '+' does not give a valid preprocessing token"]
        );
    }

    /// Directives inside a macro's arguments act as on their own lines (clang and gcc do this).
    #[test]
    fn directives_in_macro_arguments() {
        let extrapolate = "#define EXTRAPOLATE(x, y) [x y]\nEXTRAPOLATE(p,\n#ifdef BORDER_REFLECT\n  a\n#else\n  b\n#endif\n)\n";
        check(extrapolate, "[p b]");
        check(&format!("#define BORDER_REFLECT\n{extrapolate}"), "[p a]");
        // Nested and inactive groups, #elif with a macro, a comma chosen by a condition.
        check(
            "#define F(a, b) a + b\n#define N 2\nF(1\n#if N == 1\n , 10\n#elif N == 2\n#if 0\n , 20\n#else\n , 30\n#endif\n#endif\n)\n",
            "1 + 30",
        );
        // A group closed inside the arguments that was opened before the invocation.
        check("#define F(a, b) a b\n#if 1\nF(x,\n#else\nF(y,\n#endif\nz)\n", "x z");
        // #define and #undef take effect before the arguments are expanded.
        check("#define F(a) a\nF(\n#define V 7\nV\n#undef V\n)\nV\n", "V V");
        check("#define F(a) a\n#define G(a) F(a)\nG(\n#define V 7\n V)\n", "7");
        let r = run("#define F(a) a\nF(1\n#include \"h.h\"\n)\nF(\n#error stop\n2)\n");
        assert_eq!(r.messages(), vec!["'#include' is not allowed inside the arguments of macro 'F'", "stop"]);
        assert_eq!(r.diags.list[0].loc, at(3, 2));
        assert_eq!(r.out(), "1 2");
        // A group left open by the arguments is still unterminated at the end of the file.
        let r = run("#define F(a) a\nF(1\n#if 1\n)\n");
        assert_eq!(r.messages(), vec!["unterminated conditional directive"]);
    }

    #[test]
    fn conditionals() {
        let text = "#define A 2\n\
                    #if A == 2\n  one\n#  if defined(B) || !defined A\n    bad1\n#  elif A > 1 && defined(A)\n    two\n\
                    #  else\n    bad2\n#  endif\n#elif 1\n  bad3\n#else\n  bad4\n#endif\n\
                    #ifdef B\n bad5\n#if 1/0\n#garbage\n#endif\n#else\n three\n#endif\n\
                    #ifndef B\n four\n#endif\n\
                    #if 0\n#elif 0\n#elif 1\n five\n#elif 1/0\n#endif\n\
                    #if ~0u == 0xffffffffffffffff && (-1 < 0u) == 0 && (3 ? 4 : 5) == 4\n six\n#endif\n";
        check(text, "one two three four five six");
    }

    #[test]
    fn defined_from_macro_expansion() {
        check("#define HAS(x) defined(x)\n#define HAS_Y defined(Y)\n#define Y\n#if HAS_Y && !HAS(Z)\nyes\n#endif\n", "yes");
    }

    #[test]
    fn conditional_errors() {
        let r = run("#if 1\n#else\n#else\n#endif\n#elif 1\n#endif\n#if 1 / 0\n#endif\n#if\n#endif\n#ifdef\n#endif\n#if 1\n");
        assert_eq!(
            r.messages(),
            vec![
                "#else after #else",
                "#elif without #if",
                "#endif without #if",
                "division by zero in preprocessor expression ('/')",
                "expected an expression after the directive",
                "macro name missing in #ifdef",
                "unterminated conditional directive",
            ]
        );
        // Errors and stray characters in skipped groups are not reported.
        assert!(run("#if 0\n#error no\n@ 'x\n#bogus\n#endif\n")
            .diags
            .list
            .is_empty());
    }

    #[test]
    fn error_and_warning_directives() {
        let text = "int a;\n  #  error  Something  went wrong\n#warning careful\n";
        let r = run(text);
        assert_eq!(r.diags.list.len(), 2);
        assert_eq!(r.diags.list[0].severity, Severity::Error);
        assert_eq!(r.diags.list[0].loc, at(2, 6));
        assert_eq!(r.diags.list[1].severity, Severity::Warning);
        assert_eq!(
            r.diags.render(&r.sources),
            "main.cl:2:6: error: Something went wrong\n  #  error  Something  went wrong\n     ^\n\
             main.cl:3:2: warning: careful\n#warning careful\n ^\n"
        );
        let r = run_with(text, "-w", &[]);
        assert_eq!(r.messages(), vec!["Something went wrong"]);
        let r = run_with(text, "-Werror", &[]);
        assert!(r.diags.list.iter().all(|d| d.severity == Severity::Error));
        assert_eq!(r.diags.list.len(), 2);
    }

    #[test]
    fn includes() {
        let headers = [
            (
                "util.h",
                "#pragma once\n#define TWICE(x) ((x) * 2)\nint util;\n",
            ),
            ("sub/a.h", "#include \"b.h\"\nint a;\n"),
            ("sub/b.h", "int b;\n"),
        ];
        let r = run_with(
            "#include \"util.h\"\n#include <util.h>\n#include \"sub/a.h\"\nint x = TWICE(3);\n",
            "",
            &headers,
        );
        assert!(r.diags.list.is_empty(), "{}", r.diags.render(&r.sources));
        assert_eq!(
            r.out(),
            normalize("int util; int b; int a; int x = ((3) * 2);")
        );
        // Tokens point into the header they came from.
        let util = &r.pp.tokens[0];
        assert_eq!(r.sources.file(util.loc.file).name, "util.h");
        assert_eq!((util.loc.line, util.loc.col), (3, 1));

        let r = run("#include \"missing.h\"\n#include\n");
        assert_eq!(
            r.messages(),
            vec![
                "cannot open include file 'missing.h'",
                "expected \"FILENAME\" or <FILENAME> after #include"
            ]
        );
        let r = run_with(
            "#include \"self.h\"\n",
            "",
            &[("self.h", "#include \"self.h\"\n")],
        );
        assert_eq!(r.messages(), vec!["#include nested too deeply"]);
    }

    #[test]
    fn include_directories_on_disk() {
        let dir = std::env::temp_dir().join(format!("ferrocl-pp-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("inner")).expect("temp dir");
        std::fs::write(
            dir.join("top.h"),
            "#include \"inner/deep.h\"\nint top = DEEP;\n",
        )
        .expect("write");
        std::fs::write(dir.join("inner/deep.h"), "#include \"leaf.h\"\n").expect("write");
        std::fs::write(dir.join("inner/leaf.h"), "#define DEEP 7\n").expect("write");
        let r = run_with(
            "#include <top.h>\n",
            &format!("-I \"{}\"", dir.display()),
            &[],
        );
        let _ = std::fs::remove_dir_all(&dir);
        assert!(r.diags.list.is_empty(), "{}", r.diags.render(&r.sources));
        assert_eq!(r.out(), "int top = 7 ;");
    }

    #[test]
    fn includes_read_only_regular_files_by_absolute_names_or_in_the_include_directories() {
        let root = std::env::temp_dir().join(format!("ferrocl-pp-jail-{}", std::process::id()));
        let inc = root.join("inc");
        std::fs::create_dir_all(inc.join("sub")).expect("temp dir");
        std::fs::write(inc.join("ok.h"), "#define OK 1\n").expect("write");
        std::fs::write(root.join("secret.h"), "int SECRET_TEXT;\n").expect("write");
        std::fs::write(root.join("outer.h"), "#include \"secret.h\"\nint OUTER;\n").expect("write");
        std::fs::write(inc.join("big.h"), vec![b' '; (include::MAX_INCLUDE_BYTES + 1) as usize]).expect("write");
        std::fs::write(inc.join("bin.h"), [0xff, 0xfe, 0]).expect("write");
        std::os::unix::fs::symlink(root.join("secret.h"), inc.join("link.h")).expect("symlink");
        std::os::unix::fs::symlink("/dev/zero", inc.join("zero.h")).expect("symlink");
        let fifo = std::process::Command::new("mkfifo").arg(inc.join("fifo.h")).status().is_ok_and(|s| s.success());
        let ok_abs = inc.join("ok.h");
        let lines = [
            "#include \"ok.h\"".to_string(),
            "#include \"sub/../ok.h\"".into(),
            format!("#include \"{}\"", ok_abs.display()),
            "#include \"/dev/zero\"".into(),
            format!("#include \"{}\"", root.join("outer.h").display()),
            "#include \"../secret.h\"".into(),
            format!("#include \"{}\"", root.join("secret.h").display()),
            "#include <link.h>".into(),
            "#include \"zero.h\"".into(),
            "#include \"sub\"".into(),
            "#include \"fifo.h\"".into(),
            "#include \"big.h\"".into(),
            "#include \"bin.h\"".into(),
            "int x = OK;".into(),
        ];
        let r = run_with(&lines.join("\n"), &format!("-I \"{}\"", inc.display()), &[]);
        let _ = std::fs::remove_dir_all(&root);
        let cannot = |name: &str| format!("cannot open include file '{name}'");
        // A relative name, a link and an include beside the program source never leave the
        // -I directories; an absolute name is read where it is (as clang does), and a quoted
        // include beside that file is found.
        let mut want = vec![
            (4, cannot("/dev/zero")),
            (6, cannot("../secret.h")),
            (8, cannot("link.h")),
            (9, cannot("zero.h")),
            (10, cannot("sub")),
            (11, cannot("fifo.h")),
            (12, "include file 'big.h' is larger than 16 MiB".to_string()),
            (13, "include file 'bin.h' is not UTF-8 text".to_string()),
        ];
        if !fifo {
            want.retain(|(line, _)| *line != 11);
        }
        let got: Vec<(u32, String)> = r.diags.list.iter().map(|d| (d.loc.line, d.message.clone())).collect();
        assert_eq!(got, want);
        assert!(r.diags.list.iter().all(|d| d.loc.col == 2), "{}", r.diags.render(&r.sources));
        // Nothing of a file that may not be included reaches the log.
        let log = r.diags.render(&r.sources);
        assert!(!log.contains("SECRET_TEXT"), "{log}");
        assert_eq!(r.out(), "int SECRET_TEXT ; int OUTER ; int SECRET_TEXT ; int x = 1 ;");
    }

    #[test]
    fn token_locations() {
        let r = run("#define TWO 2\nint x =\n   TWO + y;\n");
        let locs: Vec<(u32, u32)> =
            r.pp.tokens
                .iter()
                .map(|t| (t.loc.line, t.loc.col))
                .collect();
        assert_eq!(
            locs,
            vec![
                (2, 1),
                (2, 5),
                (2, 7),
                (3, 4),
                (3, 8),
                (3, 10),
                (3, 11),
                (4, 1)
            ]
        );
        assert_eq!(
            r.pp.tokens[3].kind,
            TokenKind::Int {
                value: 2,
                unsigned: false,
                long: false,
                decimal: true
            }
        );
        assert_eq!(r.pp.tokens.last().map(|t| &t.kind), Some(&TokenKind::Eof));
        // Macro arguments keep their own locations.
        let r = run("#define ID(x) x\nID(\n  a)\n");
        assert_eq!((r.pp.tokens[0].loc.line, r.pp.tokens[0].loc.col), (3, 3));
    }

    #[test]
    fn invalid_tokens_reported_when_used() {
        let r = run("#define AT @\nint x = AT;\n");
        assert_eq!(r.messages(), vec!["stray '@' in program"]);
        assert_eq!(r.diags.list[0].loc, at(2, 9));
        // Stringized, a stray character is fine.
        check("#define S(x) #x\nS(@)\n", "\"@\"");
    }

    #[test]
    fn line_and_file() {
        let r = run("a __LINE__ __FILE__\n#line 100 \"other.cl\"\nb __LINE__\n\nc __LINE__ __FILE__\n#line 7\n__LINE__\n");
        assert!(r.diags.list.is_empty(), "{:?}", r.messages());
        assert_eq!(
            r.out(),
            normalize("a 1 \"main.cl\" b 100 c 102 \"other.cl\" 7")
        );
        assert_eq!(run("#line 0\n#line x\n").diags.list.len(), 2);
    }

    #[test]
    fn predefined_and_command_line_macros() {
        let r = run_with(
            "__OPENCL_VERSION__ __OPENCL_C_VERSION__ CL_VERSION_1_2 CL_VERSION_3_0 __ENDIAN_LITTLE__ A B F(3)\n\
             #if defined(cl_khr_int64_base_atomics) && !defined(cl_khr_fp64) && defined(__IMAGE_SUPPORT__)\nok\n#endif\n\
             #ifdef __opencl_c_int64\nbad\n#endif\n#ifdef __FAST_RELAXED_MATH__\nfast\n#endif\n",
            "-D A -DB=5 -D 'F(x)=x+x'",
            &[],
        );
        assert!(r.diags.list.is_empty(), "{:?}", r.messages());
        assert_eq!(r.out(), normalize("300 120 120 300 1 1 5 3+3 ok"));
        let r = run_with(
            "__OPENCL_C_VERSION__\n#ifdef __opencl_c_int64\nint64\n#endif\n#ifdef __FAST_RELAXED_MATH__\nfast\n#endif\n\
             #ifdef __opencl_c_fp64\nfp64\n#endif\n",
            "-cl-std=CL3.0 -cl-fast-relaxed-math",
            &[],
        );
        assert_eq!(r.out(), normalize("300 int64 fast"));
        assert_eq!(
            run_with("__OPENCL_C_VERSION__", "-cl-std=CL1.1", &[]).out(),
            "110"
        );
        check(
            "__kernel_exec(64, float4) void k(void) {}\n",
            "__kernel __attribute__((work_group_size_hint(64, 1, 1))) __attribute__((vec_type_hint(float4))) \
             void k(void) {}",
        );
    }

    #[test]
    fn bad_command_line_macro_is_diagnosed() {
        let r = run_with("x\n", "-D'F(=1'", &[]);
        assert_eq!(r.diags.list.len(), 1);
        assert_eq!(r.sources.file(r.diags.list[0].loc.file).name, BUILTIN_FILE);
    }

    #[test]
    fn pragmas() {
        let r = run(
            "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n\
             #pragma OPENCL EXTENSION cl_khr_byte_addressable_store : enable\n\
             #pragma OPENCL EXTENSION cl_khr_byte_addressable_store : disable\n\
             #pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
             #pragma OPENCL FP_CONTRACT OFF\n\
             #pragma unroll\n#pragma unroll 4\n#pragma unroll(8)\n#pragma nounroll\n#pragma GCC something\nint x;\n",
        );
        assert_eq!(
            r.messages(),
            vec!["unknown OpenCL extension 'cl_khr_fp64' - ignoring"]
        );
        assert_eq!(r.diags.list[0].severity, Severity::Warning);
        assert_eq!(
            r.pp.extensions,
            vec!["cl_khr_int64_base_atomics".to_string()]
        );
        assert!(!r.pp.fp_contract);
        // `#pragma unroll` is the attribute, on the pragma's line.
        assert_eq!(
            r.pp.text,
            "\n\n\n\n\n __attribute__ ( ( opencl_unroll_hint ) )\n \
             __attribute__ ( ( opencl_unroll_hint ( 4 ) ) )\n \
             __attribute__ ( ( opencl_unroll_hint ( 8 ) ) )\n \
             __attribute__ ( ( opencl_unroll_hint ( 1 ) ) )\n\
             \nint x;\n#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n#pragma OPENCL FP_CONTRACT OFF\n"
        );
    }

    /// `_Pragma("...")` (C99 §6.10.9) acts as the `#pragma` where it stands, also from a macro.
    #[test]
    fn pragma_operator() {
        let r = run(
            "#define STR(x) #x\n#define UNROLL(n) _Pragma(STR(unroll n))\n\
             a UNROLL(4) b\n_Pragma(\"OPENCL FP_CONTRACT OFF\") c\n_Pragma\n(\"nounroll\")\nd _Pragma(1) e\n",
        );
        assert_eq!(r.messages(), vec!["_Pragma takes a parenthesized string literal"]);
        assert_eq!(r.diags.list[0].loc, at(7, 3));
        assert!(!r.pp.fp_contract);
        assert_eq!(
            r.out(),
            "a __attribute__ ( ( opencl_unroll_hint ( 4 ) ) ) b c __attribute__ ( ( opencl_unroll_hint ( 1 ) ) ) d e \
             # pragma OPENCL FP_CONTRACT OFF"
        );
        assert_eq!(destringize_for_test(r#""a \"b\" \\ \n""#), r#"a "b" \ \n"#);
    }

    fn destringize_for_test(s: &str) -> String {
        expand::destringize(s).unwrap_or_default()
    }

    #[test]
    fn runaway_macros_are_bounded() {
        let deep = format!(
            "#define f(x) x\n{}1{}\n",
            "f(".repeat(1000),
            ")".repeat(1000)
        );
        let r = run(&deep);
        assert!(
            r.messages().iter().any(|m| m.contains("nested too deeply")),
            "{:?}",
            r.messages()
        );
        let mut text = String::from("#define a0 x x\n");
        for i in 1..24 {
            text.push_str(&format!("#define a{i} a{0} a{0}\n", i - 1));
        }
        text.push_str("a23\n");
        let r = run(&text);
        assert_eq!(
            r.messages(),
            vec!["too many macro expansions; stopped expanding"]
        );
    }

    #[test]
    fn text_output_separates_a_longer_expansion_from_the_next_token() {
        let r = run_with("typedef TYPE type_t;\n", "-D TYPE=float", &[]);
        assert!(r.pp.text.contains("float type_t"), "{}", r.pp.text);
    }

    #[test]
    fn text_output_preprocesses_to_the_same_tokens() {
        let text = "#define S(x) #x\n#define P(a, b) a ## b\nkernel void f(global int *p) {\n  p[0] = P(1, 2) + P(+, =) 3;\n  printf(S(a\"b\"));\n}\n";
        let first = run(text);
        let again = run(&first.pp.text);
        assert!(again.diags.list.is_empty());
        let kinds = |r: &Run| {
            r.pp.tokens
                .iter()
                .map(|t| t.kind.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&first), kinds(&again));
    }

    #[test]
    fn text_output_keeps_lines_and_columns() {
        let text = "#define N 4\n#define TWICE(x) ((x) + (x))\nkernel void k(global int *p) {\n  p[0] = N;  p[1]=2;\n\n\tp[2] = TWICE(1); p[3] = 3;\n}\n";
        let r = run_with(text, "", &[("h.h", "#define H 1\nint h;\n")]);
        assert_eq!(
            r.pp.text,
            "\n\nkernel void k(global int *p) {\n  p[0] = 4;  p[1]=2;\n\n p[2] = ( (   1 ) + ( 1 ) ) ; p [ 3 ] = 3 ;\n}\n"
        );
        let r = run_with("#include \"h.h\"\nint x = H;\n", "", &[("h.h", "#define H 1\nint h;\n")]);
        assert_eq!(r.pp.text, "int h ;\nint x = 1;\n");
    }

    #[test]
    fn hostile_input_never_panics() {
        const PIECES: &[&str] = &[
            "#define ",
            "#undef ",
            "#if ",
            "#ifdef ",
            "#elif ",
            "#else",
            "#endif",
            "#include ",
            "#line ",
            "#pragma ",
            "#error",
            "OPENCL EXTENSION ",
            "unroll ",
            "f",
            "g",
            "x",
            "(",
            ")",
            ",",
            "...",
            "#",
            "##",
            "__VA_ARGS__",
            "defined",
            "__LINE__",
            "__FILE__",
            "\"s",
            "<",
            ">",
            "0x1p3",
            "1",
            "0",
            "/",
            "?",
            ":",
            "'",
            "\"",
            "/*",
            "*/",
            "//",
            "\\",
            "\n",
            "\n",
            " ",
            "@",
            "-",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            let mut text =
                String::from("#define f(a, ...) a ## __VA_ARGS__ # a f\n#define g(x) f(x)(x) g\n");
            for _ in 0..40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(PIECES[(seed % PIECES.len() as u64) as usize]);
            }
            run(&text);
        }
    }
}
