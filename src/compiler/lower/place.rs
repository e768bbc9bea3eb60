//! Places (lvalues) and pointers. A *path pointer* is a base known at compile time (a private
//! variable, a workgroup/private global, or a buffer argument seen as an array of its element
//! type) plus a path of member/element steps; pointer arithmetic moves the last element index.
//! A pointer variable keeps the shape of its path (root, members) fixed by its first
//! assignment and holds each element index of the path in a u32 local, so pointers never need
//! naga pointer values across blocks. Where a path cannot say what a program does, pointers
//! are *byte pointers* (`region.rs`, `arena.rs`): this file's operations take both forms.

use super::memory::Words;
use super::points_to::Object;
use super::region::{Region, NULL_SLOT};
use super::{Ctx, LowerError, Slot, R};
use crate::compiler::sema::model::{self, Place, PlaceKind, Scalar as S, Space, Type as T};
use crate::compiler::source::Loc;
use naga::{ArraySize, BinaryOperator as B, Expression, GlobalVariable, Handle, Literal, LocalVariable, ScalarKind, Type, TypeInner};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Root {
    Local(Handle<LocalVariable>),
    /// Argument `k` of the function being built: a pointer to a whole private variable of its
    /// caller (`outline.rs`).
    Arg(u32),
    Global(Handle<GlobalVariable>),
    /// Buffer argument `n`.
    Buffer(usize),
    /// A pointer variable (the pointer is a pointer to a pointer): it is only dereferenced, to
    /// read or assign that variable.
    PtrVar(VarRef),
    /// The null pointer: it is only compared.
    Null,
    /// A byte pointer (`docs/compiler.md`, "Pointers as run-time values"): its one step is
    /// `Step::Index` of the byte offset in the region, its view the pointee type.
    Bytes(Region),
}

/// A pointer variable: the frame of the inlined function instance that holds it, and its local.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VarRef {
    frame: usize,
    id: model::LocalId,
}

#[derive(Clone, Copy, Debug)]
pub enum Step {
    Member(u32),
    /// A u32 index.
    Index(Handle<Expression>),
}

/// A pointer value (or the address of a place).
#[derive(Clone, Debug)]
pub struct Ptr {
    pub root: Root,
    /// For a buffer root: the element type of the view (the first step indexes it).
    pub view: Option<T>,
    pub steps: Vec<Step>,
    pub space: Space,
    /// For other roots, after a cast between same-size scalar pointee types: the scalar stored
    /// and the scalar the element is read and written as (its bits reinterpreted).
    pub seen_as: Option<(S, S)>,
}

/// A step of a pointer variable's path before its last index.
#[derive(Clone, Copy, Debug)]
enum VarStep {
    Member(u32),
    /// An element index, kept in this u32 local.
    Held(Handle<LocalVariable>),
}

/// A pointer-typed local: the fixed part of its pointers, the last index lives in a local.
#[derive(Clone, Debug)]
pub struct PtrVar {
    root: Root,
    view: Option<T>,
    prefix: Vec<VarStep>,
    space: Space,
    seen_as: Option<(S, S)>,
    /// The last step is an element index kept in the slot's local.
    indexed: bool,
    /// For a byte pointer into buffers chosen at run time: the local holding the argument's
    /// number.
    chosen: Option<Handle<LocalVariable>>,
}

/// Where a pointer-typed place keeps its pointer.
pub enum PtrHome {
    Var(VarRef),
    /// As an integer in memory (`region.rs`, `encode_ptr`), with what holds it there.
    Memory(Access, super::points_to::Holder),
}

/// A place lowered to memory: a naga pointer, or components of a vector behind one.
pub enum Access {
    Ptr(Handle<Expression>),
    /// Components `comps` of the vector of type `vty` at `base`.
    Swizzle { base: Box<Access>, comps: Vec<u8>, vty: T },
    /// A 16-bit scalar or vector of type `ty` in a native 16-bit buffer view.
    Ptr16 { ptr: Handle<Expression>, ty: T },
    /// A value of type `ty` at a byte offset of words: a word-viewed buffer or a union
    /// variable (see `memory.rs`).
    Bytes { base: Words, byte: Handle<Expression>, ty: T },
    /// A private or `__local` scalar of type `stored` read and written as `seen` (same size).
    Seen { ptr: Handle<Expression>, stored: S, seen: S },
    /// A value of type `ty` in the buffer argument numbered `slot`: the access of each case.
    Dispatch { slot: Handle<Expression>, cases: Vec<(u32, Access)>, ty: T },
}

impl Ctx<'_> {
    /// The address of `place` as a pointer (swizzles have none).
    pub(super) fn place_ptr(&mut self, place: &Place) -> R<Ptr> {
        match &place.kind {
            PlaceKind::Local(id) => {
                let root = match self.slot(*id, place.loc)? {
                    Slot::Var(v) => Root::Local(v),
                    Slot::Ptr(..) => Root::PtrVar(self.here(*id)),
                    Slot::Arena(byte) => return Ok(self.arena_ptr(Region::PrivateArena, byte, &place.ty, Space::Private)),
                    Slot::Image(_) => return Err(LowerError::new(place.loc, "internal: an image as a place")),
                };
                Ok(Ptr { root, view: None, steps: Vec::new(), space: Space::Private, seen_as: None })
            }
            PlaceKind::Constant(id) => self.constant_ptr(*id, place.loc),
            PlaceKind::Global(id) => {
                let offset = self.program.global_vars.get(id.0 as usize).map(|v| v.offset);
                let offset = offset.ok_or_else(|| LowerError::new(place.loc, "internal: unknown __global variable"))?;
                let block = *self.globals_block.get_or_insert_with(|| self.abi.add_globals_block());
                let byte = self.b.u32(offset);
                Ok(Ptr { root: Root::Bytes(Region::Buffer(block)), view: Some(place.ty.clone()), steps: vec![Step::Index(byte)], space: Space::Global, seen_as: None })
            }
            PlaceKind::Workgroup(id) if self.points_to.is_addressed(Object::Workgroup(id.0)) => {
                let byte = match self.arenas.workgroup.get(&id.0) {
                    Some(&b) => b,
                    None => {
                        let b = self.arena_alloc(Region::LocalArena, &place.ty, place.loc)?;
                        self.arenas.workgroup.insert(id.0, b);
                        b
                    }
                };
                Ok(self.arena_ptr(Region::LocalArena, byte, &place.ty, Space::Local))
            }
            PlaceKind::Workgroup(id) => {
                let g = self.workgroup_var(*id, place.loc)?;
                Ok(Ptr { root: Root::Global(g), view: None, steps: Vec::new(), space: Space::Local, seen_as: None })
            }
            PlaceKind::Deref(e) => self.eval_ptr(e),
            // Into a union: bytes of its words (the analysis put a private or `__local` union
            // whose members are addressed in an arena).
            PlaceKind::Member(base, i) if inside_union(&self.program.types, place) => {
                let p = self.place_ptr(base)?;
                let p = match p.root {
                    Root::Bytes(_) => p,
                    Root::Buffer(_) => self.to_bytes(p, place.loc)?,
                    _ => return Err(LowerError::new(place.loc, "internal: a pointer into a union that is not addressable")),
                };
                self.push_step(p, Step::Member(*i), place.loc)
            }
            PlaceKind::Member(base, i) => {
                let p = self.place_ptr(base)?;
                self.push_step(p, Step::Member(*i), place.loc)
            }
            PlaceKind::Index(base, index) => {
                let p = self.place_ptr(base)?;
                let i = self.eval_value(index)?;
                let i = self.index_u32(i, &index.ty);
                if super::wide::is_wide(&base.ty) {
                    // A component of an 8/16-vector: part i / 4, component i % 4.
                    let (four, three) = (self.b.u32(4), self.b.u32(3));
                    let part = self.b.binary(B::Divide, i, four);
                    let p = self.push_step(p, Step::Index(part), place.loc)?;
                    let k = self.b.binary(B::And, i, three);
                    self.push_step(p, Step::Index(k), place.loc)
                } else {
                    self.push_step(p, Step::Index(i), place.loc)
                }
            }
            PlaceKind::Swizzle(..) => Err(LowerError::new(place.loc, "cannot take the address of a vector swizzle")),
        }
    }

    /// `place` as something to load from or store to.
    pub(super) fn place_access(&mut self, place: &Place) -> R<Access> {
        match &place.kind {
            PlaceKind::Swizzle(base, comps) => {
                let vector = self.place_access(base)?;
                Ok(Access::Swizzle { base: Box::new(vector), comps: comps.clone(), vty: base.ty.clone() })
            }
            // Inside a union everything is bytes of its words.
            PlaceKind::Member(base, m) if inside_union(&self.program.types, place) => {
                let inner = self.place_access(base)?;
                let step = Step::Member(*m);
                self.bytes_step(inner, &base.ty, step, place.loc)
            }
            PlaceKind::Index(base, i) if inside_union(&self.program.types, place) => {
                let inner = self.place_access(base)?;
                let i = self.eval_value(i)?;
                let i = self.index_u32(i, &T::Scalar(model::Scalar::Int));
                self.bytes_step(inner, &base.ty, Step::Index(i), place.loc)
            }
            _ => {
                let p = self.place_ptr(place)?;
                match self.ptr_access(&p, place.loc)? {
                    // A whole union in workgroup memory is atomic words: copied word by word.
                    Access::Ptr(ptr) if is_union(&self.program.types, &place.ty) && self.is_workgroup_pointer(ptr) => {
                        let byte = self.b.u32(0);
                        Ok(Access::Bytes { base: Words::Var { ptr, shared: true }, byte, ty: place.ty.clone() })
                    }
                    access => Ok(access),
                }
            }
        }
    }

    /// One more member/element step from `inner` (an access to a value of type `ty`) where the
    /// bytes are words: the union itself (a naga pointer to its words) or bytes already.
    fn bytes_step(&mut self, inner: Access, ty: &T, step: Step, loc: Loc) -> R<Access> {
        let (base, byte) = match inner {
            Access::Bytes { base, byte, .. } => (base, byte),
            Access::Ptr(ptr) => {
                let shared = self.is_workgroup_pointer(ptr);
                (Words::Var { ptr, shared }, self.b.u32(0))
            }
            Access::Swizzle { .. } | Access::Ptr16 { .. } | Access::Seen { .. } | Access::Dispatch { .. } => {
                return Err(LowerError::new(loc, "internal: not a union"))
            }
        };
        let (offset, next) = self.step_offset(ty, step, loc)?;
        let byte = self.b.binary(B::Add, byte, offset);
        Ok(Access::Bytes { base, byte, ty: next })
    }

    /// `ptr` one member or element further in: a path pointer gets the step, a byte pointer
    /// adds its offset.
    pub(super) fn push_step(&mut self, mut ptr: Ptr, step: Step, loc: Loc) -> R<Ptr> {
        let (Root::Bytes(_), Some(ty), [Step::Index(byte)]) = (ptr.root, ptr.view.clone(), ptr.steps.as_mut_slice()) else {
            ptr.steps.push(step);
            return Ok(ptr);
        };
        let (offset, next) = self.step_offset(&ty, step, loc)?;
        *byte = self.b.binary(B::Add, *byte, offset);
        ptr.view = Some(next);
        Ok(ptr)
    }

    /// What `ptr` points to, as something to load from or store to.
    pub(super) fn ptr_access(&mut self, ptr: &Ptr, loc: Loc) -> R<Access> {
        if let Root::Bytes(region) = ptr.root {
            return self.bytes_access(region, ptr, loc);
        }
        let Some((arg, view)) = self.narrow_buffer(ptr) else {
            let p = self.materialize(ptr, loc)?;
            // A native 16-bit view: values convert to and from their 32-bit registers.
            return Ok(match (ptr.root, &ptr.view) {
                (Root::Buffer(_), Some(view)) if self.native16(view) => {
                    let leaf = match (view, ptr.steps.len()) {
                        (T::Vector(s, _), 2) => T::Scalar(*s),
                        _ => view.clone(),
                    };
                    Access::Ptr16 { ptr: p, ty: leaf }
                }
                // A `__local` float that atomics reach is stored as its bits.
                _ if ptr.space == Space::Local && self.points_to_float_bits(p) => {
                    let seen = ptr.seen_as.map_or(S::Float, |(_, seen)| seen);
                    Access::Seen { ptr: p, stored: S::UInt, seen }
                }
                _ => match ptr.seen_as {
                    Some((stored, seen)) if stored != seen => Access::Seen { ptr: p, stored, seen },
                    _ => Access::Ptr(p),
                },
            });
        };
        // Word-viewed buffer: follow the steps as byte offsets.
        let (byte, ty) = self.buffer_byte(ptr, view, loc)?;
        Ok(Access::Bytes { base: Words::Buffer(arg), byte, ty })
    }

    /// The byte offset in its buffer of buffer pointer `ptr` (whose view is `view`), and the
    /// type it points to.
    pub(super) fn buffer_byte(&mut self, ptr: &Ptr, view: T, loc: Loc) -> R<(Handle<Expression>, T)> {
        let mut steps = ptr.steps.iter();
        let Some(Step::Index(first)) = steps.next() else {
            return Err(LowerError::new(loc, "internal: buffer pointer without an element index"));
        };
        let size = self.b.u32(self.program.types.size_of(&view) as u32);
        let mut byte = self.b.binary(B::Multiply, *first, size);
        let mut ty = view;
        for step in steps {
            let (offset, next) = self.step_offset(&ty, *step, loc)?;
            byte = self.b.binary(B::Add, byte, offset);
            ty = next;
        }
        Ok((byte, ty))
    }

    /// Byte offset and type reached by one step into a value of type `ty`.
    fn step_offset(&mut self, ty: &T, step: Step, loc: Loc) -> R<(Handle<Expression>, T)> {
        let scaled = |cx: &mut Self, i: Handle<Expression>, size: u32| {
            let s = cx.b.u32(size);
            cx.b.binary(B::Multiply, i, s)
        };
        Ok(match (ty, step) {
            (T::Record(id), Step::Member(m)) => {
                // (Union members all start at offset 0.)
                let member = self.program.types.record(*id).and_then(|r| r.members.get(m as usize));
                let member = member.ok_or_else(|| LowerError::new(loc, "internal: unknown member"))?;
                (self.b.u32(member.offset), member.ty.clone())
            }
            (T::Array { elem, .. }, Step::Index(i)) => (scaled(self, i, self.program.types.size_of(elem) as u32), (**elem).clone()),
            // A part of an 8/16-vector (see `wide.rs`), then a component.
            (T::Vector(s, n), Step::Index(i)) if *n > 4 => (scaled(self, i, 4 * s.size()), T::Vector(*s, 4)),
            (T::Vector(s, _), Step::Index(i)) => (scaled(self, i, s.size()), T::Scalar(*s)),
            (T::Vector(s, _), Step::Member(k)) => (self.b.u32(k * s.size()), T::Scalar(*s)),
            _ => return Err(LowerError::new(loc, "internal: bad access path")),
        })
    }

    /// True when the naga pointer `p` leads into a workgroup variable.
    fn is_workgroup_pointer(&self, mut p: Handle<Expression>) -> bool {
        loop {
            match self.b.func.expressions[p] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => p = base,
                Expression::GlobalVariable(g) => return self.module.global_variables[g].space == naga::AddressSpace::WorkGroup,
                _ => return false,
            }
        }
    }

    /// The buffer argument and view type of a pointer into 8/16-bit buffer data, or into a
    /// buffer whose shift is no multiple of the view's size: both are read as words.
    fn narrow_buffer(&self, ptr: &Ptr) -> Option<(usize, T)> {
        match (ptr.root, &ptr.view) {
            (Root::Buffer(arg), Some(view)) if super::types::has_narrow(&self.program.types, view) && !self.native16(view) => {
                Some((arg, view.clone()))
            }
            (Root::Buffer(arg), Some(view)) if !self.shift_fits(arg, view) => Some((arg, view.clone())),
            _ => None,
        }
    }

    /// The bytes between buffer param `arg`'s binding and its byte 0 (`Variant::shifts`).
    pub(super) fn shift_of(&self, arg: usize) -> u32 {
        self.shifts.iter().find(|(n, _)| *n == arg).map_or(0, |&(_, shift)| shift)
    }

    /// Whether buffer param `arg` can be viewed as an array of `view`: its shift is a whole
    /// number of them.
    pub(super) fn shift_fits(&self, arg: usize, view: &T) -> bool {
        let size = self.program.types.size_of(view).max(1);
        u64::from(self.shift_of(arg)).is_multiple_of(size)
    }

    /// True for 16-bit scalars and 2-4 vectors the target can keep in 16-bit storage views.
    pub(super) fn native16(&self, ty: &T) -> bool {
        let t = self.target;
        let ok = |s: model::Scalar| match s {
            model::Scalar::Short | model::Scalar::UShort => t.int16 && t.storage_16bit,
            // A half's bits, in a u16 view.
            model::Scalar::Half => t.fp16 && t.int16 && t.storage_16bit,
            _ => false,
        };
        matches!(ty, T::Scalar(s) if ok(*s)) || matches!(ty, T::Vector(s, n) if *n <= 4 && ok(*s))
    }

    /// The naga pointer expression of `ptr`.
    pub(super) fn materialize(&mut self, ptr: &Ptr, loc: Loc) -> R<Handle<Expression>> {
        let e = match ptr.root {
            Root::Local(v) => self.b.expr(Expression::LocalVariable(v)),
            Root::Arg(k) => self.b.expr(Expression::FunctionArgument(k)),
            Root::Global(g) => self.b.expr(Expression::GlobalVariable(g)),
            Root::Buffer(arg) => {
                let elem = ptr.view.clone().ok_or_else(|| LowerError::new(loc, "internal: buffer pointer without a view"))?;
                let g = self.view(arg, &elem, loc)?;
                let view = self.b.expr(Expression::GlobalVariable(g));
                let shift = self.shift_of(arg);
                if shift == 0 {
                    view
                } else {
                    // Byte 0 lies `shift` bytes, a whole number of elements, into the binding.
                    let Some((Step::Index(first), rest)) = ptr.steps.split_first() else {
                        return Err(LowerError::new(loc, "internal: buffer pointer without an element index"));
                    };
                    let k = self.b.u32(shift / self.program.types.size_of(&elem).max(1) as u32);
                    let first = self.b.binary(B::Add, *first, k);
                    let shifted = Ptr { steps: [Step::Index(first)].into_iter().chain(rest.iter().copied()).collect(), ..ptr.clone() };
                    return self.materialize_from(view, &shifted);
                }
            }
            Root::PtrVar(_) => {
                return Err(LowerError::new(loc, "a pointer to a pointer may only be dereferenced to read or assign the pointer it points to"))
            }
            Root::Null => return Err(LowerError::new(loc, "dereference of a null pointer")),
            Root::Bytes(_) => return Err(LowerError::new(loc, "internal: a byte pointer has no naga pointer")),
        };
        self.materialize_from(e, ptr)
    }

    /// `ptr`'s steps from naga pointer `e` to its root.
    fn materialize_from(&mut self, mut e: Handle<Expression>, ptr: &Ptr) -> R<Handle<Expression>> {
        for step in &ptr.steps {
            e = match *step {
                Step::Member(i) => self.b.member(e, i),
                Step::Index(i) => self.element(e, i),
            };
        }
        Ok(e)
    }

    /// `base[i]` for a naga pointer `base`. A constant index that may lie outside the
    /// fixed-size array or vector `base` points to is made opaque: naga rejects a constant
    /// index out of bounds when it validates the module (again at specialisation, where the
    /// lengths of `__local` argument arrays become known), though the access is undefined only
    /// when it runs, and it may lie in code that never does (or in an unrolled copy of a loop
    /// body that a test in it skips).
    pub(super) fn element(&mut self, base: Handle<Expression>, i: Handle<Expression>) -> Handle<Expression> {
        let i = match self.pointee_len(base) {
            Some(len) => self.in_bounds(i, len),
            None => i,
        };
        self.b.index(base, i)
    }

    /// Index `i` of something of `len` elements, made opaque when it is a constant not known
    /// to be below `len` (see [`Self::element`]).
    pub(super) fn in_bounds(&mut self, i: Handle<Expression>, len: u32) -> Handle<Expression> {
        let below = match self.b.func.expressions[i] {
            Expression::Literal(Literal::U32(k)) => k < len,
            Expression::Literal(Literal::I32(k)) => u32::try_from(k).is_ok_and(|k| k < len),
            _ => false,
        };
        if self.b.is_constant(i) && !below {
            self.b.opaque(i)
        } else {
            i
        }
    }

    /// The number of elements of the fixed-size array or the vector pointer `p` points to: 0
    /// for an array sized by an override (any constant index may lie outside it), `None` for a
    /// run-time sized array.
    fn pointee_len(&self, p: Handle<Expression>) -> Option<u32> {
        match self.module.types[self.pointee_type(p)?].inner {
            TypeInner::Array { size: ArraySize::Constant(n), .. } => Some(n.get()),
            TypeInner::Array { size: ArraySize::Pending(_), .. } => Some(0),
            TypeInner::Vector { size, .. } => Some(size as u32),
            _ => None,
        }
    }

    fn points_to_float_bits(&self, p: Handle<Expression>) -> bool {
        let bits = self.module.types.get(&super::types::float_bits_type());
        bits.is_some() && self.pointee_type(p) == bits
    }

    /// The type pointer `p` points to, when `p` is a variable or a path into one.
    fn pointee_type(&self, p: Handle<Expression>) -> Option<Handle<Type>> {
        let inner = |ty: Handle<Type>| &self.module.types[ty].inner;
        match self.b.func.expressions[p] {
            Expression::LocalVariable(v) => Some(self.b.func.local_variables[v].ty),
            Expression::GlobalVariable(g) => Some(self.module.global_variables[g].ty),
            Expression::FunctionArgument(k) => match *inner(self.b.func.arguments.get(k as usize)?.ty) {
                TypeInner::Pointer { base, .. } => Some(base),
                _ => None,
            },
            Expression::Access { base, .. } => match *inner(self.pointee_type(base)?) {
                TypeInner::Array { base, .. } => Some(base),
                _ => None,
            },
            Expression::AccessIndex { base, index } => match inner(self.pointee_type(base)?) {
                TypeInner::Array { base, .. } => Some(*base),
                TypeInner::Struct { members, .. } => members.get(index as usize).map(|m| m.ty),
                _ => None,
            },
            _ => None,
        }
    }

    /// The storage view of buffer argument `arg` as an array of `elem`.
    fn view(&mut self, arg: usize, elem: &T, loc: Loc) -> R<Handle<GlobalVariable>> {
        let ty = if self.native16(elem) {
            super::types::storage16(&mut self.module, elem)
        } else if super::types::has_narrow(&self.program.types, elem) {
            return Err(LowerError::new(loc, "internal: 8/16-bit buffer data through a typed view"));
        } else {
            self.types.naga(&mut self.module, &self.program.types, elem, loc)?
        };
        let stride = self.program.types.size_of(elem) as u32;
        self.abi
            .buffer_view(&mut self.module, arg, ty, stride)
            .ok_or_else(|| LowerError::new(loc, "internal: not a buffer argument"))
    }

    /// `ptr + count` elements (`count` a u32 value, two's complement for negative counts).
    pub(super) fn ptr_add(&mut self, mut ptr: Ptr, count: Handle<Expression>, loc: Loc) -> R<Ptr> {
        if let (Root::Bytes(_), Some(ty)) = (ptr.root, &ptr.view) {
            let size = self.b.u32(self.program.types.size_of(ty) as u32);
            let bytes = self.b.binary(B::Multiply, count, size);
            if let Some(Step::Index(byte)) = ptr.steps.last_mut() {
                *byte = self.b.binary(B::Add, *byte, bytes);
            }
            return Ok(ptr);
        }
        match ptr.steps.last_mut() {
            Some(Step::Index(i)) => {
                *i = self.b.binary(B::Add, *i, count);
                Ok(ptr)
            }
            // `p[0]` on a pointer to a single object (a variable or a struct member).
            _ if self.literal_value(count) == Some(0) => Ok(ptr),
            // Off a member of a buffer's struct: as bytes of the buffer.
            _ if matches!(ptr.root, Root::Buffer(_)) => {
                let bytes = self.to_bytes(ptr, loc)?;
                self.ptr_add(bytes, count, loc)
            }
            _ => Err(LowerError::new(
                loc,
                "pointer arithmetic is only supported on pointers into arrays or buffers, not on a pointer to a single variable or struct member",
            )),
        }
    }

    /// The last element index of `ptr` (0 for a pointer to a single object; a byte pointer
    /// counts in its pointee's size).
    pub(super) fn ptr_index(&mut self, ptr: &Ptr) -> Handle<Expression> {
        if let (Root::Bytes(_), Some(ty), Some(Step::Index(byte))) = (ptr.root, &ptr.view, ptr.steps.last()) {
            let size = self.b.u32(self.program.types.size_of(ty).max(1) as u32);
            return self.b.binary(B::Divide, *byte, size);
        }
        match ptr.steps.last() {
            Some(Step::Index(i)) => *i,
            _ => self.b.u32(0),
        }
    }

    /// `(T*)ptr`. A byte pointer changes its pointee type. A buffer pointer to an element of
    /// its view becomes an index into another view, rescaled by the element sizes, where the
    /// new size divides the old one; otherwise (a remainder of bytes, a pointer into a struct
    /// or to `void`) it becomes a byte pointer. A pointer into private or `__local` memory may
    /// change between scalar pointee types of one size (`(private half *)shorts`: the bits
    /// are reinterpreted at each access). `from_pointee`: the operand's pointee type.
    pub(super) fn ptr_cast(&mut self, mut ptr: Ptr, from_pointee: &T, to: &T, loc: Loc) -> R<Ptr> {
        let T::Pointer { pointee, .. } = to else {
            return Err(LowerError::new(loc, "internal: pointer cast to a non-pointer"));
        };
        let new = self.program.types.size_of(pointee) as u32;
        match (ptr.root, ptr.view.clone(), ptr.steps.as_slice()) {
            (Root::Bytes(_), ..) => {
                ptr.view = Some((**pointee).clone());
                Ok(ptr)
            }
            (Root::Buffer(_), Some(from), [Step::Index(i)]) => {
                let old = self.program.types.size_of(&from) as u32;
                if old == new || old == 0 {
                    ptr.view = Some((**pointee).clone());
                    return Ok(ptr);
                }
                if new == 0 || !old.is_multiple_of(new) {
                    let mut bytes = self.to_bytes(ptr, loc)?;
                    bytes.view = Some((**pointee).clone());
                    return Ok(bytes);
                }
                let bytes = if old == 1 { *i } else { let o = self.b.u32(old); self.b.binary(B::Multiply, *i, o) };
                let index = if new == 1 { bytes } else { let n = self.b.u32(new); self.b.binary(B::Divide, bytes, n) };
                ptr.view = Some((**pointee).clone());
                ptr.steps = vec![Step::Index(index)];
                Ok(ptr)
            }
            (Root::Buffer(_), Some(_), _) if self.pointee_of(&ptr).as_ref() != Some(&**pointee) => {
                let mut bytes = self.to_bytes(ptr, loc)?;
                bytes.view = Some((**pointee).clone());
                Ok(bytes)
            }
            _ => self.path_cast(ptr, from_pointee, pointee, loc),
        }
    }

    /// A cast of a path pointer into private or `__local` memory (see [`Self::ptr_cast`]).
    fn path_cast(&mut self, mut ptr: Ptr, from_pointee: &T, pointee: &T, loc: Loc) -> R<Ptr> {
        if self.pointee_of(&ptr).as_ref() == Some(pointee) || pointee == from_pointee {
            return Ok(ptr);
        }
        // `(atomic_int *)&i` and back: the same data, atomic where atomics reach it.
        if let (T::Scalar(a) | T::Atomic(a), T::Scalar(b) | T::Atomic(b)) = (from_pointee, pointee) {
            if a == b {
                return Ok(ptr);
            }
        }
        if let (Root::Local(_) | Root::Arg(_) | Root::Global(_), T::Scalar(a), T::Scalar(b)) = (ptr.root, from_pointee, pointee) {
            if a.size() == b.size() && !matches!(a, S::Bool) && !matches!(b, S::Bool) && a.size() <= 4 {
                let stored = ptr.seen_as.map_or(*a, |(stored, _)| stored);
                ptr.seen_as = Some((stored, *b));
                return Ok(ptr);
            }
        }
        Err(LowerError::new(
            loc,
            "this pointer cast is not supported (only casts of __global/__constant buffer pointers, and between scalars of one size elsewhere)",
        ))
    }

    /// The pointee type of a buffer pointer at its view level.
    fn pointee_of(&self, ptr: &Ptr) -> Option<T> {
        if ptr.steps.len() == 1 { ptr.view.clone() } else { None }
    }

    /// `c ? a : b` for pointers into one object (one root and path of members): each element
    /// index is chosen.
    pub(super) fn ptr_select(&mut self, c: Handle<Expression>, a: Ptr, b: Ptr, loc: Loc) -> R<Ptr> {
        let (a, b) = self.comparable(a, b, loc)?;
        if let (Root::Bytes(x), Root::Bytes(y), [Step::Index(i)], [Step::Index(j)]) = (a.root, b.root, a.steps.as_slice(), b.steps.as_slice()) {
            if x != y {
                // Different regions: the region is chosen with the offset.
                let among = x.members().union(y.members());
                let (sx, sy) = (self.region_slot(x), self.region_slot(y));
                let slot = self.b.select(c, sx, sy);
                let byte = self.b.select(c, *i, *j);
                return Ok(Ptr { root: Root::Bytes(Region::Chosen { slot, among }), steps: vec![Step::Index(byte)], space: among.space(), ..a });
            }
        }
        let same_shape = a.root == b.root
            && a.view == b.view
            && a.steps.len() == b.steps.len()
            && a.steps.iter().zip(&b.steps).all(|(x, y)| match (x, y) {
                (Step::Member(m), Step::Member(n)) => m == n,
                (Step::Index(_), Step::Index(_)) => true,
                _ => false,
            });
        if !same_shape {
            return Err(LowerError::new(loc, "a conditional choice between pointers into different objects is not supported"));
        }
        let steps = a
            .steps
            .iter()
            .zip(&b.steps)
            .map(|(x, y)| match (*x, *y) {
                (Step::Index(i), Step::Index(j)) if i != j => Step::Index(self.b.select(c, i, j)),
                (x, _) => x,
            })
            .collect();
        Ok(Ptr { steps, ..a })
    }

    /// Compares two pointers into one object by their paths: the first step where they differ
    /// decides (members by their order, element indices by value), as their addresses would.
    pub(super) fn ptr_compare(&mut self, a: Ptr, b: Ptr, op: B, loc: Loc) -> R<Handle<Expression>> {
        if a.root == Root::Null || b.root == Root::Null {
            let (x, y) = (self.non_null(&a), self.non_null(&b));
            return Ok(self.b.binary(op, x, y));
        }
        let (a, b) = self.comparable(a, b, loc)?;
        Ok(self.path_compare(&a, &b, op))
    }

    /// Two pointers in one form: both byte pointers when either is one or when they point
    /// into different buffers.
    fn comparable(&mut self, a: Ptr, b: Ptr, loc: Loc) -> R<(Ptr, Ptr)> {
        let bytes = |p: &Ptr| matches!(p.root, Root::Bytes(_));
        let buffers = |p: &Ptr| matches!(p.root, Root::Buffer(_));
        let same_form = bytes(&a) == bytes(&b) && !(buffers(&a) && buffers(&b) && a.root != b.root);
        if same_form || a.root == Root::Null || b.root == Root::Null {
            return Ok((a, b));
        }
        Ok((self.to_bytes(a, loc)?, self.to_bytes(b, loc)?))
    }

    fn path_compare(&mut self, a: &Ptr, b: &Ptr, op: B) -> Handle<Expression> {
        if let (Root::Bytes(x), Root::Bytes(y), [Step::Index(i)], [Step::Index(j)]) = (a.root, b.root, a.steps.as_slice(), b.steps.as_slice()) {
            if x == y {
                return self.b.binary(op, *i, *j);
            }
            // Regions chosen at run time: by region, then by offset.
            let (sx, sy) = (self.region_slot(x), self.region_slot(y));
            let (same, by_slot, by_byte) = (self.b.binary(B::Equal, sx, sy), self.b.binary(op, sx, sy), self.b.binary(op, *i, *j));
            return self.b.select(same, by_byte, by_slot);
        }
        if a.root != b.root {
            // Distinct objects: only (in)equality is meaningful.
            return self.b.expr(Expression::Literal(Literal::Bool(op == B::NotEqual)));
        }
        let (mut pairs, mut tail) = (Vec::new(), (0, 0));
        for (x, y) in a.steps.iter().zip(&b.steps) {
            match (*x, *y) {
                (Step::Index(i), Step::Index(j)) => pairs.push((i, j)),
                (Step::Member(m), Step::Member(n)) if m == n => {}
                (Step::Member(m), Step::Member(n)) => {
                    tail = (m, n);
                    break;
                }
                _ => break,
            }
        }
        let (m, n) = (self.b.u32(tail.0), self.b.u32(tail.1));
        let mut acc = self.b.binary(op, m, n);
        // From the last differing place back: equal indices defer to what follows.
        for (i, j) in pairs.into_iter().rev().filter(|(i, j)| i != j) {
            let (i, j) = (self.b.cast(i, ScalarKind::Sint, None), self.b.cast(j, ScalarKind::Sint, None));
            let (same, by_index) = (self.b.binary(B::Equal, i, j), self.b.binary(op, i, j));
            acc = self.b.select(same, acc, by_index);
        }
        acc
    }

    /// 0 for a null pointer, else 1 (u32): null compares below any object. A buffer argument
    /// is NULL when the runtime bound none (its `null_arg` override, set at specialisation);
    /// other objects never are.
    fn non_null(&mut self, p: &Ptr) -> Handle<Expression> {
        let (zero, one) = (self.b.u32(0), self.b.u32(1));
        let null = match p.root {
            Root::Null => return zero,
            Root::Bytes(Region::Chosen { slot, .. }) => {
                let none = self.b.u32(NULL_SLOT);
                let is_null = self.b.binary(B::Equal, slot, none);
                return self.b.select(is_null, zero, one);
            }
            Root::Buffer(arg) | Root::Bytes(Region::Buffer(arg)) => self.abi.arg_is_null(&mut self.module, arg),
            _ => None,
        };
        match null {
            Some(o) => {
                let is_null = self.b.expr(Expression::Override(o));
                self.b.binary(naga::BinaryOperator::ExclusiveOr, is_null, one)
            }
            None => one,
        }
    }

    /// Pointer variable `id` of the function instance being lowered.
    pub(super) fn here(&self, id: model::LocalId) -> VarRef {
        VarRef { frame: self.frames.len().saturating_sub(1), id }
    }

    /// Where pointer-typed `place` keeps its pointer: a pointer variable (a local, or `*pp` for
    /// a pointer to a pointer variable), or memory holding it as an integer.
    pub(super) fn ptr_home(&mut self, place: &Place) -> R<PtrHome> {
        if let PlaceKind::Local(id) = place.kind {
            return Ok(PtrHome::Var(self.here(id)));
        }
        if inside_union(&self.program.types, place) {
            // A pointer member of a union: its integer among the union's words.
            let func = self.frames.last().map_or(0, |f| f.func.0);
            let holder = super::points_to::holder(&self.program.types, func, place).ok_or_else(|| LowerError::new(place.loc, "internal: a union member without a holder"))?;
            return Ok(PtrHome::Memory(self.place_access(place)?, holder));
        }
        match self.place_ptr(place)? {
            Ptr { root: Root::PtrVar(v), steps, .. } if steps.is_empty() => Ok(PtrHome::Var(v)),
            ptr => {
                let func = self.frames.last().map_or(0, |f| f.func.0);
                let holder = super::points_to::holder(&self.program.types, func, place);
                let holder = holder.ok_or_else(|| LowerError::new(place.loc, "a pointer held in memory reached through another pointer is only supported through a pointer variable"))?;
                if self.points_to.through_unknown(holder) {
                    return Err(LowerError::new(place.loc, "a pointer held in memory reached through a pointer variable that may point anywhere (its address is taken) is not supported"));
                }
                Ok(PtrHome::Memory(self.ptr_access(&ptr, place.loc)?, holder))
            }
        }
    }

    /// The pointer held at `home`; `pointee`: what it points to.
    pub(super) fn load_home(&mut self, home: &PtrHome, pointee: &T, loc: Loc) -> R<Ptr> {
        match home {
            PtrHome::Var(v) => self.load_ptr_var(*v, loc),
            PtrHome::Memory(access, holder) => {
                let v = self.load_access(access, loc)?;
                self.decode_ptr(v, *holder, pointee, loc)
            }
        }
    }

    /// Stores `ptr` at `home`.
    pub(super) fn store_home(&mut self, home: &PtrHome, ptr: Ptr, loc: Loc) -> R<()> {
        match home {
            PtrHome::Var(v) => self.assign_ptr_var(*v, ptr, loc),
            PtrHome::Memory(access, _) => {
                let v = self.encode_ptr(ptr, loc)?;
                let ty = self.held_ty();
                self.store_access(access, v, &ty, loc)
            }
        }
    }

    /// The integer type a pointer held in memory is: as wide as the device's pointers.
    pub(super) fn held_ty(&self) -> T {
        T::Scalar(if self.program.types.pointer_size == 8 { S::ULong } else { S::UInt })
    }

    fn var_slot(&self, v: VarRef, loc: Loc) -> R<Slot> {
        let slot = self.frames.get(v.frame).and_then(|f| f.locals.get(v.id.0 as usize));
        slot.cloned().ok_or_else(|| LowerError::new(loc, "internal: unknown pointer variable"))
    }

    /// Stores pointer `ptr` into pointer variable `v`, fixing its base on the first store.
    pub(super) fn assign_ptr_var(&mut self, v: VarRef, ptr: Ptr, loc: Loc) -> R<()> {
        let slot = self.var_slot(v, loc)?;
        let func = self.frames.get(v.frame).map_or(0, |f| f.func.0);
        let ptr = self.as_held_by(ptr, super::points_to::Holder::Var(func, v.id.0), loc)?;
        let slot = self.store_ptr_slot(slot, ptr, loc)?;
        if let Some(s) = self.frames.get_mut(v.frame).and_then(|f| f.locals.get_mut(v.id.0 as usize)) {
            *s = slot;
        }
        Ok(())
    }

    /// `ptr` as `holder` keeps it: a byte pointer among all the regions it may point into,
    /// where it holds byte pointers.
    pub(super) fn as_held_by(&mut self, ptr: Ptr, holder: super::points_to::Holder, loc: Loc) -> R<Ptr> {
        if !self.points_to.is_byte_var(holder) || ptr.root == Root::Null {
            return Ok(ptr);
        }
        let bytes = self.to_bytes(ptr, loc)?;
        self.among_regions(bytes, holder, loc)
    }

    /// Stores `ptr` into a pointer slot; returns the slot with its base fixed.
    pub(super) fn store_ptr_slot(&mut self, slot: Slot, ptr: Ptr, loc: Loc) -> R<Slot> {
        let (var, index) = match slot {
            Slot::Ptr(v, index) => (v, index),
            Slot::Var(_) | Slot::Arena(_) | Slot::Image(_) => return Err(LowerError::new(loc, "internal: not a pointer variable")),
        };
        let (prefix, last) = match ptr.steps.split_last() {
            Some((Step::Index(i), rest)) => (rest, Some(*i)),
            _ => (ptr.steps.as_slice(), None),
        };
        let fixed = match var {
            None => {
                let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
                let steps = prefix
                    .iter()
                    .map(|s| match s {
                        Step::Member(m) => VarStep::Member(*m),
                        Step::Index(_) => VarStep::Held(self.b.local("ptr_path_index", u32_ty)),
                    })
                    .collect();
                let chosen = matches!(ptr.root, Root::Bytes(Region::Chosen { .. })).then(|| self.b.local("ptr_region", u32_ty));
                PtrVar { root: ptr.root, view: ptr.view.clone(), prefix: steps, space: ptr.space, seen_as: ptr.seen_as, indexed: last.is_some(), chosen }
            }
            Some(old) if self.same_shape(&old, &ptr, prefix, last.is_some()) => old,
            Some(_) => {
                return Err(LowerError::new(
                    loc,
                    "a pointer variable may only point into one object (a buffer argument, an array or a variable, and one member path in it); this one is assigned pointers to different objects",
                ))
            }
        };
        for (step, s) in fixed.prefix.iter().zip(prefix) {
            if let (VarStep::Held(v), Step::Index(i)) = (step, s) {
                let p = self.b.expr(Expression::LocalVariable(*v));
                self.b.store(p, *i);
            }
        }
        if let Some(i) = last {
            let p = self.b.expr(Expression::LocalVariable(index));
            self.b.store(p, i);
        }
        if let (Some(chosen), Root::Bytes(region)) = (fixed.chosen, ptr.root) {
            let slot = self.region_slot(region);
            let p = self.b.expr(Expression::LocalVariable(chosen));
            self.b.store(p, slot);
        }
        Ok(Slot::Ptr(Some(fixed), index))
    }

    /// The pointer held by pointer variable `v`.
    pub(super) fn load_ptr_var(&mut self, v: VarRef, loc: Loc) -> R<Ptr> {
        let slot = self.var_slot(v, loc)?;
        let func = self.frames.get(v.frame).map(|f| f.func);
        if let (Slot::Ptr(None, _), Some(func)) = (&slot, func) {
            // A pointer variable that nothing ever assigns holds no object: a null pointer
            // of its space (reading it is undefined; its space still answers `get_fence`).
            if self.points_to.never_assigned(super::points_to::Holder::Var(func.0, v.id.0)) {
                let ty = self.function(func)?.locals.get(v.id.0 as usize).map(|l| l.ty.clone());
                if let Some(T::Pointer { space, .. }) = ty {
                    return Ok(Ptr { root: Root::Null, view: None, steps: Vec::new(), space, seen_as: None });
                }
            }
        }
        self.load_ptr_slot(&slot, loc)
    }

    /// The pointer held by a pointer slot.
    pub(super) fn load_ptr_slot(&mut self, slot: &Slot, loc: Loc) -> R<Ptr> {
        match slot.clone() {
            Slot::Ptr(Some(v), index) => {
                let mut steps: Vec<Step> = v
                    .prefix
                    .iter()
                    .map(|s| match *s {
                        VarStep::Member(m) => Step::Member(m),
                        VarStep::Held(l) => {
                            let p = self.b.expr(Expression::LocalVariable(l));
                            Step::Index(self.b.load(p))
                        }
                    })
                    .collect();
                if v.indexed {
                    let p = self.b.expr(Expression::LocalVariable(index));
                    steps.push(Step::Index(self.b.load(p)));
                }
                let root = match (v.root, v.chosen) {
                    (Root::Bytes(Region::Chosen { among, .. }), Some(chosen)) => {
                        let p = self.b.expr(Expression::LocalVariable(chosen));
                        Root::Bytes(Region::Chosen { slot: self.b.load(p), among })
                    }
                    (root, _) => root,
                };
                Ok(Ptr { root, view: v.view, steps, space: v.space, seen_as: v.seen_as })
            }
            Slot::Ptr(None, _) => Err(LowerError::new(loc, "pointer variable used before it is given a value")),
            Slot::Var(_) | Slot::Arena(_) | Slot::Image(_) => Err(LowerError::new(loc, "internal: not a pointer variable")),
        }
    }

    /// True when pointer variable `v` can hold `ptr` (whose steps are `prefix` and a last
    /// index when `indexed`): one root and view, and one path of members.
    fn same_shape(&self, v: &PtrVar, ptr: &Ptr, prefix: &[Step], indexed: bool) -> bool {
        let same_root = match (v.root, ptr.root) {
            (Root::Bytes(a), Root::Bytes(b)) => a.same_as(b),
            (a, b) => a == b,
        };
        same_root
            && v.view == ptr.view
            && v.indexed == indexed
            && v.prefix.len() == prefix.len()
            && v.prefix.iter().zip(prefix).all(|(x, y)| match (x, y) {
                (VarStep::Member(m), Step::Member(n)) => m == n,
                (VarStep::Held(_), Step::Index(_)) => true,
                _ => false,
            })
    }

    fn literal_value(&self, e: Handle<Expression>) -> Option<u32> {
        match self.b.func.expressions[e] {
            Expression::Literal(Literal::U32(v)) => Some(v),
            _ => None,
        }
    }
}

/// True when `place` is (part of) a member of a union, reached without a dereference.
pub(super) fn inside_union(types: &model::Types, place: &Place) -> bool {
    match &place.kind {
        PlaceKind::Member(base, _) => is_union(types, &base.ty) || inside_union(types, base),
        PlaceKind::Index(base, _) | PlaceKind::Swizzle(base, _) => inside_union(types, base),
        _ => false,
    }
}

fn is_union(types: &model::Types, ty: &T) -> bool {
    matches!(ty, T::Record(id) if types.record(*id).is_some_and(|r| r.is_union))
}
