//! Names in scope: variables, functions, typedefs, enumerators, and struct/union/enum tags.

use super::model::{ConstId, GlobalId, LocalId, RecordId, Scalar, Space, Type, WorkgroupId};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VarRef {
    Local(LocalId),
    Constant(ConstId),
    Workgroup(WorkgroupId),
    Global(GlobalId),
}

/// What a variable name denotes, with what its places need.
#[derive(Clone, Debug, PartialEq)]
pub struct VarInfo {
    pub var: VarRef,
    pub ty: Type,
    pub space: Space,
    pub is_const: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Symbol {
    Var(VarInfo),
    /// Index into the analyser's function table.
    Function(usize),
    /// An enumerator: its bits (as `ExprKind::Int` holds them) and its type.
    EnumConst(u64, Scalar),
    /// A `sampler_t` variable: its constant value (`compiler::sampler_bits`).
    Sampler(u32),
    /// A typedef: its type, and the alignment an `aligned` attribute gave the typedef (0 for
    /// the type's own).
    Typedef(Type, u32),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tag {
    Record(RecordId, bool),
    /// An enum and its underlying type.
    Enum(Scalar),
}

#[derive(Default)]
struct Scope {
    names: HashMap<String, Symbol>,
    tags: HashMap<String, Tag>,
}

/// A stack of scopes; the first is file scope.
pub struct Scopes {
    stack: Vec<Scope>,
}

impl Default for Scopes {
    fn default() -> Self {
        Scopes { stack: vec![Scope::default()] }
    }
}

impl Scopes {
    pub fn push(&mut self) {
        self.stack.push(Scope::default());
    }

    pub fn pop(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// Leaves file scope for the next translation unit of a link, which sees the functions and
    /// variables declared so far but none of the typedefs, enumerators and tags.
    pub fn next_file(&mut self) {
        self.stack.truncate(1);
        if let Some(file) = self.stack.first_mut() {
            file.tags.clear();
            file.names.retain(|_, s| matches!(s, Symbol::Var(_) | Symbol::Function(_)));
        }
    }

    /// Number of open scopes (1 at file scope).
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.stack.iter().rev().find_map(|s| s.names.get(name))
    }

    /// The symbol if it was declared in the innermost scope.
    pub fn lookup_here(&self, name: &str) -> Option<&Symbol> {
        self.stack.last().and_then(|s| s.names.get(name))
    }

    pub fn declare(&mut self, name: &str, symbol: Symbol) {
        if let Some(s) = self.stack.last_mut() {
            s.names.insert(name.to_string(), symbol);
        }
    }

    /// Declares at file scope (functions are always file-scope names).
    pub fn declare_global(&mut self, name: &str, symbol: Symbol) {
        if let Some(s) = self.stack.first_mut() {
            s.names.insert(name.to_string(), symbol);
        }
    }

    pub fn tag(&self, name: &str) -> Option<Tag> {
        self.stack.iter().rev().find_map(|s| s.tags.get(name).copied())
    }

    pub fn tag_here(&self, name: &str) -> Option<Tag> {
        self.stack.last().and_then(|s| s.tags.get(name).copied())
    }

    pub fn declare_tag(&mut self, name: &str, tag: Tag) {
        if let Some(s) = self.stack.last_mut() {
            s.tags.insert(name.to_string(), tag);
        }
    }
}
