//! The typed semantic model of an OpenCL C program: what semantic analysis produces and what
//! lowering to naga IR consumes. It is the contract between the two, so every piece of C
//! semantics is explicit here and lowering never re-derives it:
//!
//! - **Types** carry the OpenCL C layout: [`Types::size_of`] / [`Types::align_of`] give sizes
//!   and alignments (a 3-vector takes the size of a 4-vector), structs and unions list member
//!   offsets, pointers carry the address space of their pointee, and `size_t`, `ptrdiff_t`,
//!   `intptr_t`, `uintptr_t` are already resolved to `uint`/`int` or `ulong`/`long` by
//!   `Target::address_bits`. Enums are their underlying type (`int`, or the first of `uint`,
//!   `long`, `ulong` that holds their values). `bool` takes one byte.
//! - **Expressions** ([`Expr`]) all carry their type. Every implicit conversion is a node:
//!   [`ExprKind::Convert`] (usual arithmetic conversions, integer promotions, conversion on
//!   assignment/argument/return, to `bool` meaning `!= 0`), [`ExprKind::Splat`] (scalar →
//!   vector, the scalar already converted to the element type), [`ExprKind::Decay`] (array →
//!   pointer to its first element), [`ExprKind::Load`] (lvalue → rvalue). Operands of a binary
//!   arithmetic operator therefore always have the result's type; shift counts have the left
//!   operand's type and are already masked to `bits - 1` as OpenCL C requires.
//! - **Lvalues** are [`Place`]s: a variable, a dereferenced pointer, a struct/union member, an
//!   array (or vector) element, or a vector swizzle with its component list. A place knows the
//!   address space it lives in.
//! - **Pointers**: `p + i`, `p - i`, `p[i]`, `p++` are [`ExprKind::PtrAdd`] with an element
//!   count (`p[i]` is `Deref(PtrAdd(p, i))`); `p - q` is [`ExprKind::PtrDiff`] in elements.
//! - **Comparisons and logical operators** on scalars give `int` 0/1; on vectors they give the
//!   signed integer vector of the operands' element width with -1 (true) / 0 (false), as the
//!   spec says. `&&`/`||` on scalars short-circuit; on vectors both sides are evaluated.
//! - `sizeof`, `vec_step`, `__alignof` and enumerators are folded into constants.
//! - **Assignments** ([`ExprKind::Assign`]): the new value is an expression of the place's type;
//!   in compound assignments and `++`/`--` it reads the old value through [`ExprKind::Current`],
//!   so the place is evaluated once and every conversion stays explicit.
//! - **Calls**: [`ExprKind::Call`] to a user function (arguments converted to the parameter
//!   types) or [`ExprKind::Builtin`] with a resolved overload ([`Builtin`]): its arguments are
//!   already converted to the overload's parameter types and the expression's type is the
//!   overload's result.
//! - **Functions** are listed callees first (there is no recursion in OpenCL C), so lowering can
//!   emit them in order. Parameters are ordinary private locals (C lets a function assign them).
//! - **Variables**: function locals ([`Local`], private), program-scope and kernel-scope
//!   `__constant` variables ([`ConstantVar`], their initial value evaluated to bytes), and
//!   kernel-scope `__local` variables ([`WorkgroupVar`], one list per program, each owned by its
//!   kernel).

use crate::compiler::source::Loc;
pub use crate::compiler::AddressQualifier as Space;
pub use crate::compiler::{ImageAccess, ImageDim};

/// A scalar type of OpenCL C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
}

impl Scalar {
    /// Size in bytes (also the alignment).
    pub fn size(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort | Scalar::Half => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Long | Scalar::ULong | Scalar::Double => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Half | Scalar::Float | Scalar::Double)
    }

    /// An integer type, `bool` excluded.
    pub fn is_integer(self) -> bool {
        !self.is_float() && self != Scalar::Bool
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::Char | Scalar::Short | Scalar::Int | Scalar::Long) || self.is_float()
    }

    /// The signed integer type of the same width (the element type of a vector comparison).
    pub fn signed_int_of_width(self) -> Scalar {
        match self.size() {
            1 => Scalar::Char,
            2 => Scalar::Short,
            4 => Scalar::Int,
            _ => Scalar::Long,
        }
    }

    /// The OpenCL C spelling, e.g. `uint`.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Long => "long",
            Scalar::ULong => "ulong",
            Scalar::Half => "half",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// Index of a struct or union in [`Types::records`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordId(pub u32);

/// Qualifiers of a pointee (they matter for checks and for `clGetKernelArgInfo`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Quals {
    pub is_const: bool,
    pub is_volatile: bool,
}

/// A type of the model. Cheap enough to clone; compare with `==` (structural, records by id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Void,
    Scalar(Scalar),
    /// A vector of 2, 3, 4, 8 or 16 elements (never of `bool`, which OpenCL C does not have).
    Vector(Scalar, u8),
    /// A pointer to `pointee` living in `space` (the pointer value itself is private).
    Pointer { pointee: Box<Type>, space: Space, quals: Quals },
    Array { elem: Box<Type>, len: u32 },
    Record(RecordId),
    /// An atomic type of OpenCL C 2.0/3.0 (`atomic_int`, `atomic_float`, ...; `atomic_flag`
    /// is `atomic_int`): the scalar's layout, reached only by the atomic built-ins. Never
    /// `bool`, `char`, `short` or `half`.
    Atomic(Scalar),
    /// An image (`image2d_t` ...) with its access qualifier: only a parameter, passed on to
    /// functions and the image built-ins (an image expression is always the load of one).
    Image(ImageDim, ImageAccess),
    /// `sampler_t`: its `compiler::sampler_bits` as a `uint` value that nothing else converts
    /// to or from.
    Sampler,
}

impl Type {
    pub fn ptr(pointee: Type, space: Space) -> Type {
        Type::Pointer { pointee: Box::new(pointee), space, quals: Quals::default() }
    }

    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The element type of a scalar or vector.
    pub fn element(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) | Type::Vector(s, _) => Some(*s),
            _ => None,
        }
    }

    /// Number of components: 1 for a scalar, n for a vector, 0 otherwise.
    pub fn width(&self) -> u8 {
        match self {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => *n,
            _ => 0,
        }
    }

    pub fn is_arithmetic(&self) -> bool {
        matches!(self, Type::Scalar(_) | Type::Vector(..))
    }

    pub fn is_pointer(&self) -> bool {
        matches!(self, Type::Pointer { .. })
    }
}

/// One member of a struct or union.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// Empty for an anonymous struct or union member (C11), whose members are reached as
    /// members of this record ([`Types::member_path`]).
    pub name: String,
    pub ty: Type,
    /// Byte offset from the start of the record (0 for every member of a union).
    pub offset: u32,
}

/// A struct or union with its OpenCL C layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The tag (`struct S`), or a typedef name, or empty for an anonymous record.
    pub name: String,
    pub is_union: bool,
    pub members: Vec<Member>,
    pub size: u32,
    pub align: u32,
    /// Declared with `__attribute__((packed))`, or with a packed member: such members are at
    /// byte offsets, alignment 1.
    pub packed: bool,
}

/// All records of a program and the pointer size, so layouts can be computed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Types {
    pub records: Vec<Record>,
    /// `Target::address_bits / 8`: the size of every pointer, `size_t` and `ptrdiff_t` (A16).
    pub pointer_size: u32,
}

impl Types {
    pub fn record(&self, id: RecordId) -> Option<&Record> {
        self.records.get(id.0 as usize)
    }

    /// The member indices that lead to member `name` of record `id`, outermost first: one
    /// index, or more through anonymous struct and union members.
    pub fn member_path(&self, id: RecordId, name: &str) -> Option<Vec<u32>> {
        for (i, m) in self.record(id)?.members.iter().enumerate() {
            if m.name == name {
                return Some(vec![i as u32]);
            }
            if let (true, Type::Record(inner)) = (m.name.is_empty(), &m.ty) {
                if let Some(mut path) = self.member_path(*inner, name) {
                    path.insert(0, i as u32);
                    return Some(path);
                }
            }
        }
        None
    }

    /// The names member `m` makes available: its own, or those of an anonymous member's
    /// members.
    pub fn member_names(&self, m: &Member) -> Vec<String> {
        match (&m.ty, m.name.is_empty()) {
            (Type::Record(id), true) => {
                self.record(*id).map_or(vec![], |r| r.members.iter().flat_map(|m| self.member_names(m)).collect())
            }
            _ => vec![m.name.clone()],
        }
    }

    /// Size in bytes (`sizeof`); 0 for `void`. Saturates instead of overflowing (sema rejects
    /// types larger than 4 GiB).
    pub fn size_of(&self, ty: &Type) -> u64 {
        match ty {
            Type::Void => 0,
            Type::Scalar(s) => u64::from(s.size()),
            Type::Vector(s, n) => u64::from(s.size()) * u64::from(vector_slots(*n)),
            Type::Pointer { .. } => u64::from(self.pointer_size),
            Type::Array { elem, len } => self.size_of(elem).saturating_mul(u64::from(*len)),
            Type::Record(id) => self.record(*id).map_or(0, |r| u64::from(r.size)),
            Type::Atomic(s) => u64::from(s.size()),
            Type::Image(..) => 0,
            Type::Sampler => 4,
        }
    }

    /// Alignment in bytes; a vector is aligned to its size.
    pub fn align_of(&self, ty: &Type) -> u32 {
        match ty {
            Type::Void => 1,
            Type::Scalar(s) => s.size(),
            Type::Vector(s, n) => s.size() * vector_slots(*n),
            Type::Pointer { .. } => self.pointer_size.max(1),
            Type::Array { elem, .. } => self.align_of(elem),
            Type::Record(id) => self.record(*id).map_or(1, |r| r.align),
            Type::Atomic(s) => s.size(),
            Type::Image(..) => 1,
            Type::Sampler => 4,
        }
    }
}

/// Slots a vector of `n` elements occupies: 3-vectors are laid out as 4-vectors.
pub fn vector_slots(n: u8) -> u32 {
    if n == 3 {
        4
    } else {
        u32::from(n)
    }
}

/// Index of a function in [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FuncId(pub u32);
/// Index of a local in [`Function::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LocalId(pub u32);
/// Index in [`Program::constants`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConstId(pub u32);
/// Index in [`Program::workgroup_vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WorkgroupId(pub u32);
/// Index in [`Program::global_vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalId(pub u32);

/// A program-scope `__global` variable (OpenCL C 2.0/3.0 with
/// `__opencl_c_program_scope_global_variables`): it lives at `offset` in the program's one
/// buffer of such variables, which keeps its values from launch to launch.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalVar {
    pub name: String,
    pub ty: Type,
    pub offset: u32,
    /// Its initial value (zeros without an initializer); `None` while only declared `extern`.
    pub bytes: Option<Vec<u8>>,
    pub loc: Loc,
}

/// A `__constant` variable, at program scope or at the outermost scope of a kernel (hoisted
/// here; such a variable is visible only to its kernel's code but is laid out like the others).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstantVar {
    pub name: String,
    pub ty: Type,
    /// The evaluated initializer in the OpenCL C layout, little-endian, `size_of(ty)` bytes
    /// (padding zeroed). Pointers inside constants are not supported (rejected by sema).
    pub bytes: Vec<u8>,
    pub loc: Loc,
}

/// A `__local` variable declared at the outermost scope of a kernel: one per work-group (A8).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkgroupVar {
    pub name: String,
    pub ty: Type,
    pub kernel: FuncId,
    pub loc: Loc,
}

/// A private variable of a function (parameters included).
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub loc: Loc,
}

/// A parameter: its local, plus the reflection data of a kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub local: LocalId,
    /// The type as `clGetKernelArgInfo(CL_KERNEL_ARG_TYPE_NAME)` reports it, e.g. `float4*`
    /// (qualifiers and address spaces left out, typedef names kept).
    pub type_name: String,
    /// `restrict` on the pointer itself (`const`/`volatile` of the pointee are in its type).
    pub is_restrict: bool,
    /// The pointer parameter is `const` itself (`int * const p`).
    pub is_const: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionKind {
    Kernel(crate::compiler::KernelAttributes),
    Helper,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub params: Vec<Param>,
    pub ret: Type,
    pub locals: Vec<Local>,
    pub body: Vec<Stmt>,
    /// Kernel-scope `__constant` variables this kernel declared (also in `Program::constants`).
    pub own_constants: Vec<ConstId>,
    /// `__local` variables this kernel declared (also in `Program::workgroup_vars`).
    pub workgroup_vars: Vec<WorkgroupId>,
    /// A kernel whose `__constant` variables, each in a buffer of its own, would pass
    /// `CL_DEVICE_MAX_CONSTANT_ARGS`: they share one buffer (A10).
    pub packs_constants: bool,
    /// Statements and expressions of the body once every call in it is inlined: the lowering
    /// makes a large helper a function of its own rather than copying it into each caller.
    pub inlined_size: u64,
    pub loc: Loc,
}

impl Function {
    pub fn is_kernel(&self) -> bool {
        matches!(self.kind, FunctionKind::Kernel(_))
    }
}

/// A whole analysed program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub types: Types,
    pub constants: Vec<ConstantVar>,
    pub workgroup_vars: Vec<WorkgroupVar>,
    pub global_vars: Vec<GlobalVar>,
    /// Callees before callers; only functions with a body (declarations are resolved).
    pub functions: Vec<Function>,
    /// The `printf` calls, indexed by [`Builtin::Printf`].
    pub printf: Vec<crate::compiler::printf::Format>,
}

impl Program {
    /// The initial bytes of the buffer of program-scope `__global` variables.
    pub fn globals_image(&self) -> Vec<u8> {
        let end = self.global_vars.iter().map(|v| v.offset as usize + self.types.size_of(&v.ty) as usize).max().unwrap_or(0);
        let mut image = vec![0; end];
        for v in &self.global_vars {
            let bytes = v.bytes.as_deref().unwrap_or(&[]);
            if let Some(slot) = image.get_mut(v.offset as usize..v.offset as usize + bytes.len()) {
                slot.copy_from_slice(bytes);
            }
        }
        image
    }

    pub fn function(&self, id: FuncId) -> Option<&Function> {
        self.functions.get(id.0 as usize)
    }

    pub fn kernels(&self) -> impl Iterator<Item = (FuncId, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_kernel())
            .map(|(i, f)| (FuncId(i as u32), f))
    }
}

// ---------------------------------------------------------------------------------------------
// Statements

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Block(Vec<Stmt>),
    /// A private local's declaration; `init` (if any) has the local's type (arrays and
    /// records: an [`ExprKind::Aggregate`], complete, missing elements as [`ExprKind::Zero`];
    /// braces on a vector: an [`ExprKind::Vector`]). A local without initializer holds an
    /// indeterminate value (lowering may zero it). Kernel-scope `__local` and `__constant`
    /// declarations leave no statement (see [`Function::workgroup_vars`] and
    /// [`Function::own_constants`]); an empty statement `;` is an empty `Block`.
    Decl { local: LocalId, init: Option<Expr> },
    Expr(Expr),
    /// `cond` has type `bool`.
    If { cond: Expr, then: Box<Stmt>, otherwise: Option<Box<Stmt>> },
    While { cond: Expr, body: Box<Stmt> },
    DoWhile { body: Box<Stmt>, cond: Expr },
    /// `init` runs once (declarations of the for-scope live there); `step` runs after the body
    /// and after every `continue`.
    For { init: Vec<Stmt>, cond: Option<Expr>, step: Option<Expr>, body: Box<Stmt>, unroll: Unroll },
    /// `selector` is a promoted integer (`int`, `uint`, `long` or `ulong`); case values are in
    /// its type (as bits). Cases are in source order; a case's body runs into the next case when
    /// `falls_through` (the C behaviour without `break`). A trailing `break` of a case body is
    /// removed and sets `falls_through: false`; other `break`s inside the switch leave it.
    Switch { selector: Expr, cases: Vec<SwitchCase> },
    /// Leaves the innermost loop or switch.
    Break,
    /// Goes to the next iteration of the innermost loop (even from inside a switch).
    Continue,
    /// The value has the function's return type.
    Return(Option<Expr>),
    /// `label:` and `goto label` (the label's index among the function's labels). They exist
    /// only between statement analysis and goto elimination (`sema/goto.rs`), which turns
    /// them into loops, switches and flags: a [`Program`] never holds them.
    Label(u32),
    Goto(u32, Loc),
}

/// What the program asks of a `for` loop's unrolling (`opencl_unroll_hint`, `#pragma unroll`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unroll {
    /// No hint: the lowering decides.
    #[default]
    Auto,
    /// `opencl_unroll_hint` without a count: completely.
    Full,
    /// `opencl_unroll_hint(N)`: N copies of the body per iteration; 1 (`#pragma nounroll`)
    /// keeps the loop as written.
    Count(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// Values of the `case` labels; empty with `is_default` for a lone `default:`.
    pub values: Vec<u64>,
    pub is_default: bool,
    pub body: Vec<Stmt>,
    pub falls_through: bool,
}

// ---------------------------------------------------------------------------------------------
// Lvalues

/// An lvalue: a location in memory of some address space.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub kind: PlaceKind,
    pub ty: Type,
    /// The address space the location lives in.
    pub space: Space,
    /// `const` location: never written (sema rejects writes).
    pub is_const: bool,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlaceKind {
    Local(LocalId),
    Constant(ConstId),
    Workgroup(WorkgroupId),
    Global(GlobalId),
    /// `*p`; `p[i]` is `Deref(PtrAdd(p, i))`.
    Deref(Box<Expr>),
    /// Member `index` of a struct/union place.
    Member(Box<Place>, u32),
    /// Element of an array place, or a component of a vector place; the index is an integer
    /// expression (any integer type).
    Index(Box<Place>, Box<Expr>),
    /// Components of a vector place (0-based, e.g. `.zx` = `[2, 0]`, `.hi` of a float4 =
    /// `[2, 3]`). The place's type is a scalar for one component, else a vector. Index 3 of a
    /// 3-vector (`.hi`/`.odd` of a float3 = `[2, 3]`) is its undefined fourth slot: reads give
    /// any value, writes are dropped.
    Swizzle(Box<Place>, Vec<u8>),
}

// ---------------------------------------------------------------------------------------------
// Expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub loc: Loc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// Arithmetic negation (`-x`).
    Neg,
    /// `~x` (integers only).
    BitNot,
    /// `!x`: a scalar operand is `bool` and the result `int` 0/1; a vector operand gives the
    /// signed-int vector -1 (component was 0) / 0.
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Integer division truncates toward zero (C semantics).
    Div,
    /// C `%`: the sign follows the dividend (integers only; `fmod` is a builtin).
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    /// Arithmetic for signed, logical for unsigned left operands.
    Shr,
}

/// Comparisons. On floats, as in C: `Ne` is unordered (true when an operand is NaN), the
/// others are ordered (false when an operand is NaN). `isequal` & co. are these operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOp {
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer constant (including `bool`, 0/1): the value's bits, truncated to the width of
    /// `ty`, sign-extended for signed types (so `-1` as `int` is `u64::MAX`).
    Int(u64),
    /// A floating constant of type `half`, `float` or `double` (already rounded to `ty`).
    Float(f64),
    /// The zero value of `ty` (any type: scalar, vector, pointer = null, array, record).
    Zero,
    /// A vector built from parts, each a scalar or vector of the element type, whose widths sum
    /// to the vector's width (`(float4)(a, b.xy, c)`). A single scalar part is a [`Splat`].
    ///
    /// [`Splat`]: ExprKind::Splat
    Vector(Vec<Expr>),
    /// An array or record value: one expression per element / member in order (for a union:
    /// one per member too, all [`Zero`](ExprKind::Zero) but the one initialized).
    Aggregate(Vec<Expr>),
    /// lvalue → rvalue.
    Load(Box<Place>),
    /// `&place`: a pointer to the place's type in the place's space.
    AddrOf(Box<Place>),
    /// Array → pointer to its first element (same space as the array).
    Decay(Box<Place>),
    /// Numeric conversion of a scalar or vector to `ty` (same width). C semantics: float →
    /// integer truncates (out of range: undefined, unless `sat`), integer → float rounds to
    /// nearest; → `bool` is `!= 0`. `sat`/`rounding` only come from `convert_T_sat_rte`-style
    /// builtins; implicit conversions use `sat: false, rounding: Default`.
    Convert { value: Box<Expr>, sat: bool, rounding: Rounding },
    /// A scalar of `ty`'s element type repeated into the vector `ty`.
    Splat(Box<Expr>),
    /// Reinterpretation of the bits (`as_T`), same size (a 3-vector counts as its 4-slot size).
    Bitcast(Box<Expr>),
    /// A pointer converted to another pointee type in the same space (`(global int*)fp`).
    PtrCast(Box<Expr>),
    /// A pointer converted to an integer type (`(uintptr_t)p`).
    PtrToInt(Box<Expr>),
    /// An integer converted to a pointer type (`(global float *)addr`).
    IntToPtr(Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    /// Both operands have type `ty` (scalar or vector), except for shifts where the right
    /// operand has `ty` too but is already masked (`b & (bits - 1)`).
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// Both operands have the same arithmetic type, or are pointers to the same space. Result:
    /// `int` 0/1 for scalars and pointers, signed-int vector -1/0 for vectors.
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// Scalars: both operands are `bool`, short-circuit, result `int` 0/1. Vectors: both are
    /// the same integer vector type, no short circuit, result signed-int vector -1/0.
    Logic(LogicOp, Box<Expr>, Box<Expr>),
    /// `pointer + count` elements (count: any integer type, may be negative if signed).
    PtrAdd(Box<Expr>, Box<Expr>),
    /// `(p - q)` in elements, type `ptrdiff_t`; both pointers have the same type.
    PtrDiff(Box<Expr>, Box<Expr>),
    /// `cond ? a : b` with a scalar `bool` condition: only the chosen side is evaluated.
    /// (A vector condition becomes the builtin `select`.)
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Evaluate the first, then yield the second.
    Comma(Box<Expr>, Box<Expr>),
    /// Store `value` (of the place's type) into `place`. The expression yields the stored value,
    /// or with `yields_old` the value the place held before (postfix `++`/`--`); its type is the
    /// place's type. `value` may contain [`ExprKind::Current`].
    Assign { place: Box<Place>, value: Box<Expr>, yields_old: bool },
    /// The value the enclosing `Assign`'s place held before the assignment (loaded once).
    Current,
    /// A component selection of a vector rvalue (`(a + b).xy`; indices as in
    /// [`PlaceKind::Swizzle`]).
    Swizzle(Box<Expr>, Vec<u8>),
    /// A member of a record rvalue (`f().x`).
    Member(Box<Expr>, u32),
    /// An element of a vector rvalue with a run-time index.
    Extract(Box<Expr>, Box<Expr>),
    /// A call of a user function; arguments have the parameter types.
    Call(FuncId, Vec<Expr>),
    /// A call of a built-in function with its resolved overload.
    Builtin(Builtin, Vec<Expr>),
}

/// Rounding mode of an explicit conversion (`convert_T_rte` ...).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rounding {
    /// The C default: toward zero for float → integer, to nearest even otherwise.
    #[default]
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

/// `CLK_LOCAL_MEM_FENCE` / `CLK_GLOBAL_MEM_FENCE` bits of a barrier or fence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FenceFlags {
    pub local: bool,
    pub global: bool,
}

/// Values of the fence flag macros (as clang's opencl-c-base.h defines them).
pub const CLK_LOCAL_MEM_FENCE: u64 = 1;
pub const CLK_GLOBAL_MEM_FENCE: u64 = 2;

/// The image queries: `int` results, `int2`/`int4` for `Dim`, `size_t` for `ArraySize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageQuery {
    Width,
    Height,
    Depth,
    ArraySize,
    Dim,
    ChannelDataType,
    ChannelOrder,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItemFn {
    GlobalId,
    LocalId,
    GroupId,
    GlobalSize,
    LocalSize,
    NumGroups,
    /// No argument; returns `uint`.
    WorkDim,
    GlobalOffset,
    EnqueuedLocalSize,
    /// No argument: the work-item's linear position in the NDRange, without the offset.
    GlobalLinearId,
    /// No argument: the work-item's linear position in its group.
    LocalLinearId,
    /// The sub-group functions of `cl_khr_subgroups` (no argument; `uint` results): the size
    /// of this work-item's sub-group, the largest sub-group of the dispatch, the sub-groups
    /// of this work-group (and of a whole one), the work-item's sub-group and its place in it.
    SubGroupSize,
    MaxSubGroupSize,
    NumSubGroups,
    EnqueuedNumSubGroups,
    SubGroupId,
    SubGroupLocalId,
}

impl WorkItemFn {
    pub fn is_sub_group(self) -> bool {
        use WorkItemFn::*;
        matches!(self, SubGroupSize | MaxSubGroupSize | NumSubGroups | EnqueuedNumSubGroups | SubGroupId | SubGroupLocalId)
    }
}

/// The work-items a collective function spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    WorkGroup,
    SubGroup,
}

/// The combining operation of a reduction or scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupOp {
    Add,
    Min,
    Max,
    /// `cl_khr_subgroup_non_uniform_arithmetic` only: `mul`, the bitwise `and`/`or`/`xor` of
    /// integers, and `logical_and`/`_or`/`_xor` of `int` predicates (`int` 1 or 0).
    Mul,
    And,
    Or,
    Xor,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
}

impl GroupOp {
    pub fn is_logical(self) -> bool {
        matches!(self, GroupOp::LogicalAnd | GroupOp::LogicalOr | GroupOp::LogicalXor)
    }

    pub fn is_bitwise(self) -> bool {
        matches!(self, GroupOp::And | GroupOp::Or | GroupOp::Xor)
    }
}

/// A collective function: every work-item of the group calls it and gets a value made of
/// the arguments of all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// `int` predicate → `int` 1 if it is non-zero for every (any) work-item, else 0.
    All,
    Any,
    /// `(value, id…)`: the value of the work-item at the local id (the sub-group local id;
    /// one to three `size_t` ids of a work-group).
    Broadcast,
    Reduce(GroupOp),
    ScanInclusive(GroupOp),
    /// The first work-item gets the operation's identity (0, the type's largest value for
    /// `min`, its smallest for `max`; ±INFINITY for floats).
    ScanExclusive(GroupOp),
    /// `cl_khr_subgroup_non_uniform_arithmetic`'s scans of the operations Vulkan scans but
    /// naga does not (min, max, bitwise and logical): over the active work-items only.
    ActiveScan { op: GroupOp, exclusive: bool },
    /// `cl_khr_subgroup_clustered_reduce`: the reduction over the active work-items of the
    /// value's cluster of `size` (a power of two) consecutive ids.
    ClusteredReduce { op: GroupOp, size: u32 },
    /// `cl_khr_subgroup_shuffle(_relative)`: `(value, uint)`, the value of the sub-group's
    /// work-item at that local id, at the id xor it, that many below, that many above.
    Shuffle(ShuffleKind),
    /// `cl_khr_subgroup_non_uniform_vote`: `int` 1 for one active work-item (no arguments);
    /// whether every active work-item has the same value.
    Elect,
    AllEqual,
    /// `cl_khr_subgroup_ballot`: see [`BallotFn`].
    Ballot(BallotFn),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleKind {
    Index,
    Xor,
    Up,
    Down,
    /// `sub_group_non_uniform_broadcast` (of `cl_khr_subgroup_ballot`): `Index` of any scalar
    /// or vector type, from an id the active work-items agree on.
    Broadcast,
    /// `sub_group_broadcast_first(value)`: the value of the active work-item of least id.
    First,
    /// `cl_khr_subgroup_rotate`: `(value, int delta)`, the value of the work-item `delta` ids
    /// further, modulo the sub-group size; clustered, modulo this cluster size (a power of
    /// two), within the cluster.
    Rotate,
    ClusteredRotate(u32),
}

/// The functions of `cl_khr_subgroup_ballot`. A ballot is a `uint4` of one bit per sub-group
/// local id (bit i of component i / 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BallotFn {
    /// `int` predicate → the ballot of the active work-items where it is non-zero.
    Ballot,
    /// ballot → `int`: the work-item's own bit.
    Inverse,
    /// `(ballot, uint index)` → `int`: bit `index`.
    BitExtract,
    /// ballot → `uint`: the set bits of the sub-group's work-items, all of them, those up to
    /// and including this one, those before it.
    BitCount,
    InclusiveScan,
    ExclusiveScan,
    /// ballot → `uint`: the lowest and highest set bit of the sub-group's work-items.
    FindLsb,
    FindMsb,
    /// No argument → the ballot of the work-items whose local id is equal to, greater or
    /// equal, greater, less or equal, less than this one's.
    Mask(MaskKind),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskKind {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FenceKind {
    Full,
    Read,
    Write,
}

/// Float math functions (component-wise on vectors unless said otherwise). Arguments are
/// converted to the overload's types: a scalar given where the overload takes a vector (the
/// `fmin(float4, float)` forms) is already splatted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Sqrt,
    Rsqrt,
    Fabs,
    Floor,
    Ceil,
    Trunc,
    /// Rounds half away from zero.
    Round,
    /// Rounds to nearest even.
    Rint,
    Fmin,
    Fmax,
    Fma,
    Mad,
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Pow,
    Powr,
    Sin,
    Cos,
    Tan,
    /// `sincos`: its cosine, lowered first, leaves the sine of the same reduction to the
    /// `SincosSin` that follows it (`sema::derived`, `lower::builtins`).
    SincosCos,
    SincosSin,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Fmod,
    Hypot,
    Copysign,
    Fract,
    Step,
    Smoothstep,
    Sign,
    Radians,
    Degrees,
    Cbrt,
    /// `native_divide`/`half_divide(x, y)`: `x / y`.
    Divide,
    /// `native_recip`/`half_recip(x)`: `1 / x`.
    Recip,
    /// `min`/`max`/`clamp`/`mix` on floats.
    Min,
    Max,
    Clamp,
    Mix,
    /// Geometric: `dot` and `length`/`distance` return the element type; `normalize` and
    /// `cross` (3 and 4 components) return the vector.
    Dot,
    Length,
    Distance,
    Normalize,
    Cross,
    /// Inverse hyperbolic functions.
    Asinh,
    Acosh,
    Atanh,
    /// `asinpi(x) = asin(x) / π` and the like; `sinpi(x) = sin(π x)` and the like.
    Asinpi,
    Acospi,
    Atanpi,
    /// `atan2pi(y, x) = atan2(y, x) / π`.
    Atan2pi,
    Sinpi,
    Cospi,
    Tanpi,
    Erf,
    Erfc,
    /// `exp(x) - 1` and `log(1 + x)`, accurate near 0.
    Expm1,
    Log1p,
    /// The exponent of `x` as a float (`floor(log2|x|)` for finite non-zero `x`).
    Logb,
    /// `ilogb(x)`: the exponent as an integer. Result: `int` / `intn` of `x`'s shape.
    Ilogb,
    /// `ldexp(x, k)`: `x * 2^k`; `k` is `int` / `intn` of `x`'s shape (a scalar `k` given
    /// with a vector `x` is already splatted).
    Ldexp,
    /// `pown(x, n)` (integer power) and `rootn(x, n)` (`x^(1/n)`); `n` is `int` / `intn`.
    Pown,
    Rootn,
    /// `x - y` if `x > y`, else +0 (NaN if either is NaN).
    Fdim,
    /// The argument of larger (`Maxmag`) or smaller (`Minmag`) magnitude; `fmax`/`fmin` on ties.
    Maxmag,
    Minmag,
    /// The next representable value after `x` toward `y`.
    Nextafter,
    /// `nan(code)`: a quiet NaN with `code` in its mantissa; the argument is `uint` / `uintn`
    /// (`ulong` for double), the result float of the same shape.
    Nan,
    Tgamma,
    /// `lgamma(x) = log|Γ(x)|`; `LgammaSign` is the sign of Γ(x) that `lgamma_r` stores (`int`
    /// / `intn` of `x`'s shape: 1, -1, or 0 when undefined).
    Lgamma,
    LgammaSign,
    /// `remainder(x, y)`: `x - n * y` with `n` the integer nearest `x / y` (ties to even).
    Remainder,
    /// The quotient bits `remquo` stores: the sign of `x / y` and (at least) the 7 low bits of
    /// `|n|` (`n` as for `Remainder`). Result: `int` / `intn` of the operands' shape.
    RemquoQuotient,
    /// `frexp`'s mantissa: `x = m * 2^e` with `|m|` in [0.5, 1) (`x` itself for 0, inf, NaN).
    Frexp,
    /// `frexp`'s exponent `e` (0 for 0, inf, NaN). Result: `int` / `intn` of `x`'s shape.
    FrexpExponent,
    /// `isnan`/`isinf`/`isfinite`/`signbit`: `int` for scalars, signed vector -1/0 for vectors.
    IsNan,
    IsInf,
    IsFinite,
    Signbit,
}

/// Precision variant of a math function: `native_*` and `half_*` may be less accurate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    Full,
    Native,
    Half,
}

/// Integer functions (component-wise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntFn {
    /// Returns the unsigned type of the same width.
    Abs,
    /// `abs_diff`: unsigned result.
    AbsDiff,
    Min,
    Max,
    Clamp,
    Mul24,
    Mad24,
    MulHi,
    MadHi,
    MadSat,
    AddSat,
    SubSat,
    Hadd,
    Rhadd,
    Rotate,
    Clz,
    Ctz,
    Popcount,
    /// `upsample(hi, lo)`: result twice as wide.
    Upsample,
}

/// An atomic read-modify-write. The first argument is a pointer to `int`/`uint` (or
/// `long`/`ulong` for the `atom_` 64-bit forms, `float` for `atomic_xchg`) in `__global` or
/// `__local`; the result is the old value, of the pointee type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    Min,
    Max,
    /// No value argument: adds 1.
    Inc,
    /// No value argument: subtracts 1.
    Dec,
    /// Arguments `(p, cmp, val)`.
    CmpXchg,
    And,
    Or,
    Xor,
}

/// A C11 atomic function of OpenCL C 2.0/3.0 (`atomic_load_explicit`, `atomic_fetch_add`,
/// ...). The first argument points to an atomic type ([`Type::Atomic`]); the others are
/// converted to its value type; orders and scopes are gone (see [`Builtin::C11Atomic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum C11Op {
    /// `atomic_init(obj, value)`: a store, ordered with nothing.
    Init,
    /// `(obj)` → the value.
    Load,
    /// `(obj, value)`, void.
    Store,
    /// `atomic_exchange` (`Xchg`) and `atomic_fetch_key` (`Add`, `Sub`, `Or`, `Xor`, `And`,
    /// `Min`, `Max`): `(obj, value)` → the old value.
    Rmw(AtomicOp),
    /// `atomic_compare_exchange_strong/weak(obj, expected, desired)` → `bool`: `*expected`
    /// (a pointer into any space) is compared with `*obj` (floats by their bits), and gets the
    /// value found when they differ. Never fails spuriously.
    CompareExchange,
    /// `atomic_flag_test_and_set(obj)` → `bool`: was the flag (an `atomic_int`) set.
    TestAndSet,
    /// `atomic_flag_clear(obj)`, void.
    Clear,
}

/// The memory order of an atomic operation or fence (a non-constant order is `SeqCst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MemOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemOrder {
    /// Later memory operations may not move before it (it needs a fence after the atomic).
    pub fn acquires(self) -> bool {
        matches!(self, MemOrder::Acquire | MemOrder::AcqRel | MemOrder::SeqCst)
    }

    /// Earlier memory operations may not move after it (a fence before the atomic).
    pub fn releases(self) -> bool {
        matches!(self, MemOrder::Release | MemOrder::AcqRel | MemOrder::SeqCst)
    }
}

/// A built-in function with its overload resolved (types are in the call's arguments and
/// result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Argument: `uint` dimension index (none for `WorkDim`). Result: `size_t` (`uint` for
    /// `WorkDim`). Out-of-range dimensions give 0 (1 for sizes), per the spec.
    WorkItem(WorkItemFn),
    /// `barrier(flags)` / `work_group_barrier(flags)`; no arguments left.
    Barrier(FenceFlags),
    /// `sub_group_barrier(flags)`; no arguments left.
    SubGroupBarrier(FenceFlags),
    /// A work-group or sub-group collective function; the arguments as [`Collective`] says,
    /// ids as `uint`.
    Collective(Group, Collective),
    /// `mem_fence` / `read_mem_fence` / `write_mem_fence`; no arguments left.
    Fence(FenceKind, FenceFlags),
    Math(MathFn, Precision),
    Int(IntFn),
    /// `select(a, b, c)`: for each component, `c`'s most significant bit set (vector) or
    /// `c != 0` (scalar) picks `b`, else `a`. Also the lowering of a vector `?:`.
    Select,
    /// `bitselect(a, b, c)`: bitwise `(a & ~c) | (b & c)`.
    Bitselect,
    /// `any(x)` / `all(x)` on a signed integer scalar or vector: `int` 1 if the most
    /// significant bit of any / every component is set, else 0.
    Any,
    All,
    /// `vloadn(offset, p)`: reads `n` elements at `p + offset * n`; args `(size_t, pointer)`.
    Vload(u8),
    /// `vstoren(data, offset, p)`: writes `n` elements at `p + offset * n`; returns void.
    Vstore(u8),
    /// `vload_half(n)(offset, const half* p)` → `float(n)`; width 1 means the scalar form.
    VloadHalf(u8),
    /// `vstore_half(n)[_rte..](float(n) data, offset, half* p)`.
    VstoreHalf(u8, Rounding),
    /// Argument: pointer to the atomic's type; see [`AtomicOp`].
    Atomic(AtomicOp),
    /// A C11 atomic function with its memory order, and the memory that order applies to:
    /// that of the object's address space (both for a generic pointer).
    C11Atomic(C11Op, MemOrder, FenceFlags),
    /// `to_global`/`to_local`/`to_private(generic pointer)`: the pointer, or NULL if it
    /// points into another space.
    ToSpace(Space),
    /// `get_fence(generic pointer)`: `CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE` or 0 for
    /// private memory, as `uint`.
    GetFence,
    /// `while (args[0]) args[1];`, void: a loop that sema writes for a built-in (the async
    /// copies); the condition is `bool`.
    Loop,
    /// `prefetch`: a hint that does nothing here; no arguments left.
    Prefetch,
    /// `read_image{f,i,ui,h}(image, [sampler,] coord)`, the result a 4-vector of `elem`
    /// (`float`, `int`, `uint` or `half`); `coord` is `int`/`float` or 2/4-vectors of them, as
    /// the image's dimensions (and layer) need.
    ReadImage { elem: Scalar, sampled: bool },
    /// `write_image{f,i,ui,h}(image, coord, color)`: `coord` of `int`s, `color` a 4-vector.
    WriteImage(Scalar),
    /// `get_image_*(image)`.
    ImageQuery(ImageQuery),
    /// `printf` call number `n` of the program ([`Program::printf`]): the arguments are the
    /// values its record stores, in order (see `compiler/printf.rs`); the result is `int`.
    Printf(u32),
}
