//! The arenas of addressed objects: one array of u32 words in private memory and one of
//! atomic words in workgroup memory, holding the private and `__local` objects whose
//! pointers are byte pointers (and `__local` arguments so used, after the variables, at
//! offsets set at specialisation).

use super::place::{Ptr, Root, Step};
use super::region::Region;
use super::memory::Words;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Space, Type as T};
use crate::compiler::source::Loc;
use naga::{ArraySize, Expression, GlobalVariable, Handle, Literal, Type, TypeInner};

/// Largest arena of addressed objects, in bytes (private memory per work-item, or `__local`
/// memory, beyond which the device would refuse the kernel anyway).
const MAX_ARENA: u32 = 1 << 20;

/// The arenas of addressed objects of the kernel being lowered.
#[derive(Default)]
pub struct Arenas {
    private: Option<(Handle<GlobalVariable>, u32)>,
    local: Option<(Handle<GlobalVariable>, u32)>,
    /// The byte offset of each addressed `__local` variable in its arena.
    pub workgroup: std::collections::HashMap<u32, u32>,
    /// The `__local` arguments (by ordinal among them) placed after the variables of the
    /// `__local` arena, each with the override of its byte offset (set at specialisation).
    pub args: Vec<(usize, Handle<naga::Override>)>,
    /// The override of the `__local` arena's length in words, when arguments are in it.
    words: Option<Handle<naga::Override>>,
}

/// Alignment of `__local` arguments in the arena: the largest of any OpenCL C type
/// (`long16`), which a kernel may cast the argument to.
pub const ARENA_ARG_ALIGN: u32 = 128;

/// What the runtime's specialisation computes for `__local` arguments in the arena.
#[derive(Clone, Debug, Default)]
pub struct LocalArena {
    /// Bytes of the arena's `__local` variables; the arguments follow.
    pub static_bytes: u32,
    /// The ordinals (among the `__local` arguments) of the arguments in the arena.
    pub args: Vec<usize>,
}

/// The override of the `__local` arena's length in words.
pub fn arena_words_name() -> String {
    "local_arena_words".into()
}

/// The override of the byte offset of `__local` argument `ordinal` in the arena.
pub fn arena_arg_name(ordinal: usize) -> String {
    format!("local_arena_arg_{ordinal}")
}

impl Ctx<'_> {
    /// A byte pointer to an object of type `ty` at byte `byte` of an arena.
    pub(super) fn arena_ptr(&mut self, region: Region, byte: u32, ty: &T, space: Space) -> Ptr {
        let b = self.b.u32(byte);
        Ptr { root: Root::Bytes(region), view: Some(ty.clone()), steps: vec![Step::Index(b)], space, seen_as: None }
    }

    /// Room for an object of type `ty` in the arena `region`: its byte offset.
    pub(super) fn arena_alloc(&mut self, region: Region, ty: &T, loc: Loc) -> R<u32> {
        let (space, slot) = match region {
            Region::PrivateArena => (naga::AddressSpace::Private, &mut self.arenas.private),
            Region::LocalArena => (naga::AddressSpace::WorkGroup, &mut self.arenas.local),
            Region::Buffer(_) | Region::Chosen { .. } => return Err(LowerError::new(loc, "internal: not an arena")),
        };
        let (var, used) = match *slot {
            Some(arena) => arena,
            None => {
                let ty = self.arena_type(space, 1);
                let name = if space == naga::AddressSpace::WorkGroup { "local_arena" } else { "private_arena" };
                let g = GlobalVariable { name: Some(name.into()), space, binding: None, ty, init: None, memory_decorations: naga::MemoryDecorations::empty() };
                (self.module.global_variables.append(g, naga::Span::UNDEFINED), 0)
            }
        };
        let align = self.program.types.align_of(ty).max(4);
        let start = used.next_multiple_of(align);
        let end = start.saturating_add(self.program.types.size_of(ty) as u32);
        if end > MAX_ARENA {
            return Err(LowerError::new(loc, "too much memory is addressed through pointers in this kernel (more than 1 MiB)"));
        }
        let slot = if region == Region::LocalArena { &mut self.arenas.local } else { &mut self.arenas.private };
        *slot = Some((var, end));
        Ok(start)
    }

    /// The type of an arena of `words` words: atomic in workgroup memory, where other
    /// work-items write the neighbouring bytes.
    pub(super) fn arena_type(&mut self, space: naga::AddressSpace, words: u32) -> Handle<Type> {
        let word = if space == naga::AddressSpace::WorkGroup { TypeInner::Atomic(naga::Scalar::U32) } else { TypeInner::Scalar(naga::Scalar::U32) };
        let base = super::builder::intern(&mut self.module, word);
        let size = ArraySize::Constant(std::num::NonZeroU32::MIN.saturating_add(words.saturating_sub(1)));
        super::builder::intern(&mut self.module, TypeInner::Array { base, size, stride: 4 })
    }

    /// A byte pointer to the memory of `__local` argument `ordinal`, which lives in the arena
    /// after its variables (at an offset known at specialisation).
    pub(super) fn arena_arg(&mut self, ordinal: usize, pointee: &T, loc: Loc) -> R<Ptr> {
        self.arena_alloc(Region::LocalArena, &T::Void, loc)?;
        let o = self.u32_override(arena_arg_name(ordinal));
        self.arenas.args.push((ordinal, o));
        if self.arenas.words.is_none() {
            self.arenas.words = Some(self.u32_override(arena_words_name()));
        }
        let byte = self.b.expr(Expression::Override(o));
        Ok(Ptr { root: Root::Bytes(Region::LocalArena), view: Some(pointee.clone()), steps: vec![Step::Index(byte)], space: Space::Local, seen_as: None })
    }

    fn u32_override(&mut self, name: String) -> Handle<naga::Override> {
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let one = self.module.global_expressions.append(Expression::Literal(Literal::U32(1)), naga::Span::UNDEFINED);
        let o = naga::Override { name: Some(name), id: None, ty: u32_ty, init: Some(one) };
        self.module.overrides.append(o, naga::Span::UNDEFINED)
    }

    /// Gives the arenas their final sizes, once the kernel is lowered; what specialisation
    /// must compute for `__local` arguments in the arena.
    pub(super) fn size_arenas(&mut self) -> Option<LocalArena> {
        for (space, arena) in [(naga::AddressSpace::Private, self.arenas.private), (naga::AddressSpace::WorkGroup, self.arenas.local)] {
            if let Some((var, used)) = arena {
                let ty = self.arena_type(space, used.div_ceil(4));
                self.module.global_variables[var].ty = ty;
            }
        }
        let (Some(words), Some((var, used))) = (self.arenas.words, self.arenas.local) else { return None };
        let word = super::builder::intern(&mut self.module, TypeInner::Atomic(naga::Scalar::U32));
        let ty = super::builder::intern(&mut self.module, TypeInner::Array { base: word, size: ArraySize::Pending(words), stride: 4 });
        self.module.global_variables[var].ty = ty;
        Some(LocalArena { static_bytes: used.next_multiple_of(ARENA_ARG_ALIGN), args: self.arenas.args.iter().map(|(n, _)| *n).collect() })
    }

    /// The words of arena `region`.
    pub(super) fn arena_words(&mut self, region: Region, loc: Loc) -> R<Words> {
        let arena = match region {
            Region::PrivateArena => self.arenas.private,
            Region::LocalArena => self.arenas.local,
            Region::Buffer(n) => return Ok(Words::Buffer(n)),
            Region::Chosen { .. } => return Err(LowerError::new(loc, "internal: words of a chosen region")),
        };
        let (var, _) = arena.ok_or_else(|| LowerError::new(loc, "internal: an arena that holds nothing"))?;
        let ptr = self.b.expr(Expression::GlobalVariable(var));
        Ok(Words::Var { ptr, shared: region == Region::LocalArena })
    }
}
