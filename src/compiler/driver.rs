//! The compile driver: options → preprocessor → semantic analysis → lowering, for
//! `clBuildProgram` ([`build`]), `clCompileProgram` ([`compile`]) and `clLinkProgram`
//! ([`link`]). A compiled [`Object`] keeps its preprocessed text; linking analyses the objects'
//! texts together as one program, so a kernel defined twice or a function called but defined
//! nowhere is reported there like in a single source.

use super::diag::Diagnostics;
use super::options::{BuildOptions, Stage};
use super::preprocess::{predefined_macros, preprocess, Preprocessed};
use super::source::SourceMap;
use super::token::{Token, TokenKind};
use super::{lower, sema, BuildError, Kernel, Object, Program, Target};
use std::sync::Arc;

/// `clBuildProgram`: compiles and links one source.
pub fn build(source: &str, options: &str, target: &Target) -> Result<Program, BuildError> {
    let opts = BuildOptions::parse(options, Stage::Compile).map_err(BuildError::InvalidOptions)?;
    let mut unit = Unit::new(&opts);
    let main = unit.sources.add("<source>", source);
    let tokens = unit.preprocess(main, &opts, target, &[]).tokens;
    unit.finish(tokens, &opts, target)
}

/// `clCompileProgram`: preprocesses `source` (with the given headers) and checks its syntax.
/// Semantic checks run at link time, when every function the object calls is known.
pub fn compile(
    source: &str,
    headers: &[(String, String)],
    options: &str,
    target: &Target,
) -> Result<Object, BuildError> {
    let opts = BuildOptions::parse(options, Stage::Compile).map_err(BuildError::InvalidOptions)?;
    let mut unit = Unit::new(&opts);
    let main = unit.sources.add("<source>", source);
    let pre = unit.preprocess(main, &opts, target, headers);
    if !unit.diags.has_errors() {
        super::parse::parse(&pre.tokens, &mut unit.diags);
    }
    let log = unit.diags.render(&unit.sources);
    if unit.diags.has_errors() {
        return Err(BuildError::Failed(log));
    }
    Ok(Object { preprocessed: pre.text, options: options.to_string(), log })
}

/// `clLinkProgram`: analyses and lowers the objects together.
pub fn link(objects: &[Object], options: &str, target: &Target) -> Result<Program, BuildError> {
    let link_opts = BuildOptions::parse(options, Stage::Link).map_err(BuildError::InvalidOptions)?;
    // The language options (-cl-std, ...) are those the objects were compiled with.
    let compile_opts = match objects.first() {
        Some(o) => BuildOptions::parse(&o.options, Stage::Compile).map_err(BuildError::InvalidOptions)?,
        None => BuildOptions::default(),
    };
    let opts = BuildOptions { cl_std: compile_opts.cl_std, single_precision_constant: compile_opts.single_precision_constant, ..link_opts };
    let mut unit = Unit::new(&opts);
    let mut tokens = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        let file = unit.sources.add(format!("<object {i}>"), object.preprocessed.as_str());
        let mut part = unit.preprocess(file, &opts, target, &[]).tokens;
        part.retain(|t| t.kind != TokenKind::Eof);
        tokens.extend(part);
    }
    let eof_loc = tokens.last().map(|t| t.loc).unwrap_or_default();
    tokens.push(Token { kind: TokenKind::Eof, loc: eof_loc, space_before: false });
    unit.finish(tokens, &opts, target)
}

/// One compilation: its files and diagnostics.
struct Unit {
    sources: SourceMap,
    diags: Diagnostics,
}

impl Unit {
    fn new(opts: &BuildOptions) -> Self {
        let diags = Diagnostics {
            suppress_warnings: opts.suppress_warnings,
            warnings_are_errors: opts.warnings_are_errors,
            ..Diagnostics::default()
        };
        Unit { sources: SourceMap::default(), diags }
    }

    fn preprocess(&mut self, file: u32, opts: &BuildOptions, target: &Target, headers: &[(String, String)]) -> Preprocessed {
        let predefined = predefined_macros(target, opts);
        preprocess(&mut self.sources, file, opts, &predefined, headers, &mut self.diags)
    }

    /// Analyses and lowers the tokens of a whole program.
    fn finish(mut self, tokens: Vec<Token>, opts: &BuildOptions, target: &Target) -> Result<Program, BuildError> {
        if self.diags.has_errors() {
            return Err(BuildError::Failed(self.diags.render(&self.sources)));
        }
        let sema_opts = sema::Options { cl_std: opts.c_version(), single_precision_constant: opts.single_precision_constant };
        let program = sema::analyze(&tokens, target, &sema_opts, &mut self.diags);
        let kernels = match program {
            Some(p) if !self.diags.has_errors() => lower::lower_program(&p, target),
            _ => return Err(BuildError::Failed(self.diags.render(&self.sources))),
        };
        match kernels {
            Ok(kernels) => Ok(Program {
                kernels: kernels.into_iter().map(|k| Arc::new(k) as Arc<dyn Kernel>).collect(),
                log: self.diags.render(&self.sources),
            }),
            Err(e) => {
                self.diags.error(e.loc, e.message);
                Err(BuildError::Failed(self.diags.render(&self.sources)))
            }
        }
    }
}
