//! Semantic analysis: the parsed program is checked against the OpenCL C rules (types,
//! conversions, address spaces A1–A17, built-in overloads) and turned into the typed
//! [`model::Program`] that lowering consumes.

mod async_copy;
mod atomics;
mod builtins;
mod collective;
mod consteval;
mod conv;
mod decl;
mod derived;
mod expr;
mod generic;
mod goto;
mod image;
pub mod model;
mod overload;
mod printf;
mod scope;
mod stmt;
mod types;
pub(crate) mod visit;

pub use atomics::predeclared_types;

use super::diag::Diagnostics;
use super::source::Loc;
use super::token::Token;
use super::Target;
use model::{ConstantVar, Function, GlobalVar, Local, Space, Type, Types, WorkgroupVar};
use scope::Scopes;

/// Build options that change the language.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-cl-std`: 100, 110, 120, 200 or 300 (OpenCL C 1.2 when the option is absent).
    pub cl_std: u32,
    /// `-cl-single-precision-constant`: unsuffixed floating literals are `float`.
    pub single_precision_constant: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { cl_std: 120, single_precision_constant: false }
    }
}

impl Options {
    pub fn from_build(opts: &super::options::BuildOptions) -> Self {
        Options { cl_std: opts.c_version(), single_precision_constant: opts.single_precision_constant }
    }
}

/// Parses and checks a preprocessed program (`Newline` tokens are ignored). Returns `None` if
/// there were errors, which are in `diags`.
pub fn analyze(
    files: &[Vec<Token>],
    target: &Target,
    opts: &Options,
    diags: &mut Diagnostics,
) -> Option<model::Program> {
    let types = atomics::predeclared_types(opts.cl_std, target);
    let units: Vec<_> = files.iter().map(|tokens| super::parse::parse(tokens, &types, diags)).collect();
    if diags.has_errors() {
        return None;
    }
    let mut sema = Sema::new(target, opts, diags);
    for (i, tu) in units.iter().enumerate() {
        if i > 0 {
            sema.next_translation_unit();
        }
        sema.translation_unit(tu);
    }
    let program = sema.finish();
    program.filter(|_| !diags.has_errors())
}

/// A function as declared (and, once its body is analysed, defined).
struct FuncEntry {
    name: String,
    ret: Type,
    params: Vec<Type>,
    is_kernel: bool,
    body: Option<Function>,
}

/// Where `break` / `continue` may go.
#[derive(Clone, Copy, PartialEq)]
enum Breakable {
    Loop,
    Switch,
}

/// The function being analysed.
struct FnCtx {
    entry: usize,
    is_kernel: bool,
    ret: Type,
    locals: Vec<Local>,
    own_constants: Vec<model::ConstId>,
    workgroup_vars: Vec<model::WorkgroupId>,
    breakables: Vec<Breakable>,
    /// Scope depth of the function's outermost block (where `__local` may be declared).
    body_depth: usize,
    /// The labels named by `label:` or `goto` (`Stmt::Label` / `Stmt::Goto` index them).
    labels: Vec<goto::LabelInfo>,
    /// The switches being analysed, innermost last: the selector type and the `case` labels
    /// found nested inside statements of the body.
    switches: Vec<(Type, Vec<goto::NestedCase>)>,
}

struct Sema<'a> {
    target: &'a Target,
    opts: &'a Options,
    diags: &'a mut Diagnostics,
    types: Types,
    constants: Vec<ConstantVar>,
    workgroup_vars: Vec<WorkgroupVar>,
    global_vars: Vec<GlobalVar>,
    /// `extern constant` variables not defined yet (by id).
    pending_constants: std::collections::BTreeSet<u32>,
    funcs: Vec<FuncEntry>,
    scopes: Scopes,
    cur: Option<FnCtx>,
    /// The record that is `event_t`, once used.
    event: Option<model::RecordId>,
    /// Records below this id were defined by earlier translation units of a link.
    unit_first_record: u32,
    /// The `printf` calls analysed so far.
    printf: Vec<super::printf::Format>,
}

impl<'a> Sema<'a> {
    fn new(target: &'a Target, opts: &'a Options, diags: &'a mut Diagnostics) -> Self {
        Sema {
            target,
            opts,
            diags,
            types: Types { records: vec![], pointer_size: target.address_bits / 8 },
            constants: vec![],
            workgroup_vars: vec![],
            global_vars: vec![],
            pending_constants: Default::default(),
            funcs: vec![],
            scopes: Scopes::default(),
            cur: None,
            event: None,
            unit_first_record: 0,
            printf: vec![],
        }
    }

    /// Reports an error; returns `None` so callers can write `return self.err(..)`.
    fn err<T>(&mut self, loc: Loc, message: impl Into<String>) -> Option<T> {
        self.diags.error(loc, message);
        None
    }

    fn is_cl2(&self) -> bool {
        self.opts.cl_std >= 200
    }

    fn size_of(&self, ty: &Type) -> u64 {
        self.types.size_of(ty)
    }

    /// The `size_t` type of the target.
    fn size_type(&self) -> Type {
        Type::Scalar(if self.target.address_bits == 64 { model::Scalar::ULong } else { model::Scalar::UInt })
    }

    fn ptrdiff_type(&self) -> Type {
        Type::Scalar(if self.target.address_bits == 64 { model::Scalar::Long } else { model::Scalar::Int })
    }
}

/// The pointee's space of a pointer type.
fn pointee_space(ty: &Type) -> Option<Space> {
    match ty {
        Type::Pointer { space, .. } => Some(*space),
        _ => None,
    }
}

/// The spelling of an address space in messages.
fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "__global",
        Space::Local => "__local",
        Space::Constant => "__constant",
        Space::Private => "__private",
        Space::Generic => "__generic",
    }
}

#[cfg(test)]
mod tests;
