//! The syntax tree of an OpenCL C translation unit, as written (no types resolved yet).

use crate::compiler::source::Loc;
use crate::compiler::token::FloatSuffix;
use crate::compiler::AddressQualifier;

#[derive(Clone, Debug, PartialEq)]
pub struct TranslationUnit {
    pub items: Vec<ExternalDecl>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExternalDecl {
    Function(FunctionDef),
    Decl(Declaration),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub spec: DeclSpec,
    /// Its first derived part is the function's parameter list.
    pub declarator: Declarator,
    pub body: Vec<Stmt>,
    pub loc: Loc,
}

/// `spec declarator [= init], ...;`
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub spec: DeclSpec,
    pub declarators: Vec<InitDeclarator>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InitDeclarator {
    pub declarator: Declarator,
    pub init: Option<Initializer>,
}

/// Image access qualifiers (`__read_only` ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    ReadOnly,
    WriteOnly,
    ReadWrite,
}

/// Qualifiers that may appear among the specifiers or after a `*`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypeQuals {
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_restrict: bool,
    /// An address-space qualifier and where it was written.
    pub space: Option<(AddressQualifier, Loc)>,
    /// `__generic` / `generic` (A17: not supported).
    pub generic: Option<Loc>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StorageClass {
    pub is_typedef: bool,
    pub is_static: bool,
    pub is_extern: bool,
    pub is_inline: bool,
    pub kernel: Option<Loc>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclSpec {
    pub ty: TypeSpec,
    pub quals: TypeQuals,
    pub storage: StorageClass,
    pub access: Option<Access>,
    pub attrs: Vec<Attribute>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TypeSpec {
    /// A built-in type by its OpenCL C name after combining keywords: `uint` for `unsigned int`,
    /// `float4`, `size_t`, `image2d_t`, `void`...
    Builtin(String),
    Typedef(String),
    Record(RecordSpec),
    Enum(EnumSpec),
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordSpec {
    pub is_union: bool,
    pub tag: Option<String>,
    /// `None` for a reference to a tag (`struct S x;`), `Some` for a definition.
    pub members: Option<Vec<Declaration>>,
    pub attrs: Vec<Attribute>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumSpec {
    pub tag: Option<String>,
    pub variants: Option<Vec<Enumerator>>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Enumerator {
    pub name: String,
    pub value: Option<Expr>,
    pub loc: Loc,
}

/// `__attribute__((name(args)))`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub args: Vec<AttrArg>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AttrArg {
    Expr(Expr),
    Type(Box<TypeName>),
}

/// A declarator: the name and what is built around the base type, innermost (closest to the
/// name) first: `int *a[3]` is `a: [Array(3), Pointer]` (an array of pointers).
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Option<(String, Loc)>,
    pub derived: Vec<Derived>,
    pub attrs: Vec<Attribute>,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    Pointer(TypeQuals, Loc),
    Array(Option<Box<Expr>>, Loc),
    Function(Vec<ParamDecl>, Loc),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub spec: DeclSpec,
    pub declarator: Declarator,
    pub loc: Loc,
}

/// A type written alone (casts, `sizeof`, compound literals, attribute arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub spec: DeclSpec,
    pub declarator: Declarator,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    /// Items, each with its designators (`.a.b[1] = x`; none for a positional item).
    List(Vec<(Vec<Designator>, Initializer)>, Loc),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    Member(String, Loc),
    Index(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Compound(Vec<Stmt>),
    Decl(Declaration),
    Expr(Option<Expr>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    DoWhile(Box<Stmt>, Expr),
    For { init: Option<Box<Stmt>>, cond: Option<Expr>, step: Option<Expr>, body: Box<Stmt> },
    /// A statement after `__attribute__((...))` (`opencl_unroll_hint` on a loop; `#pragma
    /// unroll` arrives as that attribute).
    Attributed(Vec<Attribute>, Box<Stmt>),
    Switch(Expr, Box<Stmt>),
    Case(Expr, Box<Stmt>),
    Default(Box<Stmt>),
    Break,
    Continue,
    Return(Option<Expr>),
    Goto(String),
    /// `label: stmt`.
    Labeled(String, Box<Stmt>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub loc: Loc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Neg,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Ident(String),
    Int { value: u64, unsigned: bool, long: bool, decimal: bool },
    Float { value: f64, suffix: FloatSuffix },
    Char(u32),
    Str(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b` (`None`) or `a op= b`.
    Assign(Option<BinaryOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Cast(Box<TypeName>, Box<Expr>),
    /// `(T)(a, b, ...)` with two or more parts: a vector literal when `T` is a vector.
    VectorLit(Box<TypeName>, Vec<Expr>),
    /// `(T){ ... }`.
    CompoundLit(Box<TypeName>, Box<Initializer>),
    Call(Box<Expr>, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `a.name`
    Member(Box<Expr>, String, Loc),
    /// `a->name`
    Arrow(Box<Expr>, String, Loc),
    SizeofExpr(Box<Expr>),
    SizeofType(Box<TypeName>),
    AlignofType(Box<TypeName>),
    AlignofExpr(Box<Expr>),
    VecStepExpr(Box<Expr>),
    VecStepType(Box<TypeName>),
}
