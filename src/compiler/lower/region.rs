//! Byte pointers (`docs/compiler.md`, "Pointers as run-time values"): a region (a buffer, an
//! arena of addressed objects, or one of several chosen at run time) and a byte offset in it;
//! how they are accessed, converted to and from integers, and chosen among regions.

use super::memory::Words;
use super::place::{Access, Ptr, Root, Step};
use super::points_to::{self, Object};
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{self, Space, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle};

/// What a byte pointer's offset counts in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Region {
    /// Buffer argument (or `__constant` block) `n`.
    Buffer(usize),
    /// One of the regions in `among`, chosen at run time by the u32 `slot`: a buffer
    /// argument's number, [`LOCAL_SLOT`], [`PRIVATE_SLOT`] or [`NULL_SLOT`].
    Chosen { slot: Handle<Expression>, among: Regions },
    /// The words of the addressed `__local` objects.
    LocalArena,
    /// The words of the addressed private objects.
    PrivateArena,
}

/// The run-time number of the `__local` arena among regions.
pub const LOCAL_SLOT: u32 = 0xe0;

/// The run-time number of the private arena among regions.
pub const PRIVATE_SLOT: u32 = 0xe1;

pub use crate::compiler::GLOBALS_SLOT;
/// A chosen region that is none: the pointer is NULL (`to_local` of a global pointer).
pub const NULL_SLOT: u32 = 0xff;

/// A set of regions: buffer arguments (bit n: argument n) and the arenas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regions {
    pub buffers: u64,
    pub local: bool,
    pub private: bool,
}

impl Regions {
    pub fn union(self, o: Regions) -> Regions {
        Regions { buffers: self.buffers | o.buffers, local: self.local || o.local, private: self.private || o.private }
    }

    /// The regions of the set in `space`.
    pub fn within(self, space: Space) -> Regions {
        match space {
            Space::Global | Space::Constant => Regions { buffers: self.buffers, ..Regions::default() },
            Space::Local => Regions { local: self.local, ..Regions::default() },
            Space::Private => Regions { private: self.private, ..Regions::default() },
            Space::Generic => self,
        }
    }

    pub fn count(self) -> u32 {
        self.buffers.count_ones() + u32::from(self.local) + u32::from(self.private)
    }

    /// The space every region of the set is in, if one.
    pub fn space(self) -> Space {
        match (self.buffers != 0, self.local, self.private) {
            (true, false, false) => Space::Global,
            (false, true, false) => Space::Local,
            (false, false, true) => Space::Private,
            _ => Space::Generic,
        }
    }
}

impl Region {
    /// The regions this one may be.
    pub fn members(self) -> Regions {
        match self {
            Region::Buffer(n) => Regions { buffers: 1u64.checked_shl(n as u32).unwrap_or(0), ..Regions::default() },
            Region::Chosen { among, .. } => among,
            Region::LocalArena => Regions { local: true, ..Regions::default() },
            Region::PrivateArena => Regions { private: true, ..Regions::default() },
        }
    }

    /// The same region as far as its identity at compile time goes (a run-time slot aside).
    pub fn same_as(self, other: Region) -> bool {
        match (self, other) {
            (Region::Chosen { among: a, .. }, Region::Chosen { among: b, .. }) => a == b,
            (a, b) => a == b,
        }
    }
}

impl Ctx<'_> {
    /// The byte pointer to what `ptr` points to.
    pub(super) fn to_bytes(&mut self, ptr: Ptr, loc: Loc) -> R<Ptr> {
        match (ptr.root, ptr.view.clone()) {
            (Root::Bytes(_), _) => Ok(ptr),
            // A whole `__constant` array: its first byte.
            (Root::Buffer(n), Some(view)) if ptr.steps.is_empty() => {
                let byte = self.b.u32(0);
                Ok(Ptr { root: Root::Bytes(Region::Buffer(n)), view: Some(view), steps: vec![Step::Index(byte)], ..ptr })
            }
            (Root::Buffer(n), Some(view)) => {
                let (byte, pointee) = self.buffer_byte(&ptr, view, loc)?;
                Ok(Ptr { root: Root::Bytes(Region::Buffer(n)), view: Some(pointee), steps: vec![Step::Index(byte)], ..ptr })
            }
            _ => Err(LowerError::new(loc, "this pointer cannot be reinterpreted or compared as bytes (its object is not addressable)")),
        }
    }

    /// Pointer `ptr` as the u32 a pointer held in memory is: the integer it converts to (0
    /// for NULL).
    pub(super) fn encode_ptr(&mut self, ptr: Ptr, loc: Loc) -> R<Handle<Expression>> {
        Ok(self.encoded(ptr, loc)?.0)
    }

    /// [`Self::encode_ptr`], with the byte pointer it encodes (none for NULL).
    fn encoded(&mut self, ptr: Ptr, loc: Loc) -> R<(Handle<Expression>, Option<Ptr>)> {
        if ptr.root == Root::Null {
            return Ok((self.b.u32(0), None));
        }
        let bytes = self.to_bytes(ptr, loc)?;
        let (Root::Bytes(region), byte) = (bytes.root, Self::byte_offset(&bytes, loc)?) else {
            return Err(LowerError::new(loc, "internal: not a byte pointer"));
        };
        let base = self.region_base(region);
        Ok((self.b.binary(B::Add, base, byte), Some(bytes)))
    }

    /// The pointer (to `pointee`) that u32 `v`, read from memory holder `holder`, encodes: a
    /// region chosen by its top byte among those the holder may point into (the offset then
    /// has 24 bits), or the holder's one region with a 32-bit offset; 0 is NULL.
    pub(super) fn decode_ptr(&mut self, v: Handle<Expression>, holder: points_to::Holder, pointee: &T, loc: Loc) -> R<Ptr> {
        let mut objects: Vec<Object> = self.points_to.objects_of(holder).collect();
        if let points_to::Holder::In(Object::Global(id)) = holder {
            // Another kernel of the program may have stored it, in an earlier launch: it
            // points into the program's variables (nothing else outlives a launch).
            objects.push(Object::Global(id));
        }
        let mut among = Regions::default();
        let mut one = None;
        for o in objects {
            let region = self.region_of(o, loc)?;
            among = among.union(region.members());
            one = Some(region);
        }
        let space = among.space();
        let (zero, null) = (self.b.u32(0), self.b.u32(NULL_SLOT));
        let is_null = self.b.binary(B::Equal, v, zero);
        let (slot, byte) = match (one, among.count()) {
            (None, _) => return Ok(Ptr { root: Root::Null, view: None, steps: Vec::new(), space, seen_as: None }),
            (Some(region), 1) => {
                let base = self.region_base(region);
                (self.region_slot(region), self.b.binary(B::Subtract, v, base))
            }
            _ => {
                let (k24, one, low) = (self.b.u32(24), self.b.u32(1), self.b.u32(0xff_ffff));
                let id = self.b.binary(B::ShiftRight, v, k24);
                (self.b.binary(B::Subtract, id, one), self.b.binary(B::And, v, low))
            }
        };
        let slot = self.b.select(is_null, null, slot);
        let root = Root::Bytes(Region::Chosen { slot, among });
        Ok(Ptr { root, view: Some(pointee.clone()), steps: vec![Step::Index(byte)], space, seen_as: None })
    }

    /// The integer a pointer to byte 0 of `region` converts to: (its slot + 1) · 2^24, so
    /// that regions are apart and the low bits of a converted pointer give its alignment.
    pub(super) fn region_base(&mut self, region: Region) -> Handle<Expression> {
        let slot = self.region_slot(region);
        let (one, k24) = (self.b.u32(1), self.b.u32(24));
        let id = self.b.binary(B::Add, slot, one);
        self.b.binary(B::ShiftLeft, id, k24)
    }

    /// The u32 run-time number of `region` (see [`Region::Chosen`]).
    pub(super) fn region_slot(&mut self, region: Region) -> Handle<Expression> {
        match region {
            // The program's variables keep one number in every kernel: pointers to them may
            // be held in them from launch to launch.
            Region::Buffer(n) if self.globals_block == Some(n) => self.b.u32(GLOBALS_SLOT),
            Region::Buffer(n) => self.b.u32(n as u32),
            Region::Chosen { slot, .. } => slot,
            Region::LocalArena => self.b.u32(LOCAL_SLOT),
            Region::PrivateArena => self.b.u32(PRIVATE_SLOT),
        }
    }

    /// `(uintptr_t)ptr` as u32: the region's base plus the offset (0 for a null pointer). The
    /// byte pointer is kept for a conversion back in the same expression (see
    /// [`Self::int_to_ptr`]).
    pub(super) fn ptr_to_int(&mut self, ptr: Ptr, loc: Loc) -> R<Handle<Expression>> {
        let (value, bytes) = self.encoded(ptr, loc)?;
        if bytes.is_some() {
            self.converted = bytes;
        }
        Ok(value)
    }

    /// `(T *)i` for an integer `i` computed from exactly one pointer converted to an integer
    /// (`(float *)(((uintptr_t)p + 15) & ~15)`): a byte pointer into that pointer's region.
    pub(super) fn int_to_ptr(&mut self, i: &model::Expr, ty: &T, loc: Loc) -> R<Ptr> {
        let T::Pointer { pointee, .. } = ty else {
            return Err(LowerError::new(loc, "internal: a conversion to a non-pointer"));
        };
        if super::points_to::converted_pointer(i).is_none() {
            return Err(LowerError::new(
                loc,
                "an integer can only become a pointer where it is computed from one pointer converted to an integer in the same expression",
            ));
        }
        let outer = self.converted.take();
        let v = self.eval_value(i)?;
        let v = self.index_u32(v, &i.ty);
        let origin = std::mem::replace(&mut self.converted, outer);
        let origin = origin.ok_or_else(|| LowerError::new(loc, "internal: no converted pointer"))?;
        let Root::Bytes(region) = origin.root else {
            return Err(LowerError::new(loc, "internal: not a byte pointer"));
        };
        let base = self.region_base(region);
        let byte = self.b.binary(B::Subtract, v, base);
        Ok(Ptr { root: origin.root, view: Some((**pointee).clone()), steps: vec![Step::Index(byte)], space: origin.space, seen_as: None })
    }

    /// The byte offset of byte pointer `ptr`.
    pub(super) fn byte_offset(ptr: &Ptr, loc: Loc) -> R<Handle<Expression>> {
        match (ptr.root, ptr.steps.as_slice()) {
            (Root::Bytes(_), [Step::Index(b)]) => Ok(*b),
            _ => Err(LowerError::new(loc, "internal: not a byte pointer")),
        }
    }

    /// What byte pointer `ptr` into `region` points to: a typed view of a buffer where the
    /// pointee's size is its alignment (its offset is then a multiple of it), else words.
    pub(super) fn bytes_access(&mut self, region: Region, ptr: &Ptr, loc: Loc) -> R<Access> {
        let byte = Self::byte_offset(ptr, loc)?;
        let ty = ptr.view.clone().ok_or_else(|| LowerError::new(loc, "internal: byte pointer without a pointee"))?;
        let n = match region {
            Region::Buffer(n) => n,
            Region::Chosen { slot, among } => {
                let cases = self
                    .chosen_cases(among)
                    .into_iter()
                    .map(|(n, region)| {
                        let one = Ptr { root: Root::Bytes(region), ..ptr.clone() };
                        Ok((n, self.bytes_access(region, &one, loc)?))
                    })
                    .collect::<R<Vec<_>>>()?;
                return Ok(Access::Dispatch { slot, cases, ty });
            }
            Region::LocalArena | Region::PrivateArena => {
                let words = self.arena_words(region, loc)?;
                return Ok(Access::Bytes { base: words, byte, ty });
            }
        };
        let types = &self.program.types;
        let (size, align) = (types.size_of(&ty), u64::from(types.align_of(&ty)));
        let narrow = super::types::has_narrow(types, &ty) && !self.native16(&ty);
        if narrow || size != align || size == 0 {
            return Ok(Access::Bytes { base: Words::Buffer(n), byte, ty });
        }
        let k = self.b.u32(size as u32);
        let index = self.b.binary(B::Divide, byte, k);
        let typed = Ptr { root: Root::Buffer(n), view: Some(ty), steps: vec![Step::Index(index)], space: ptr.space, seen_as: None };
        self.ptr_access(&typed, loc)
    }

    /// The regions of `among` with the slot numbering each at run time.
    pub(super) fn chosen_cases(&self, among: Regions) -> Vec<(u32, Region)> {
        let globals = self.globals_block;
        let number = |n: u32| if globals == Some(n as usize) { GLOBALS_SLOT } else { n };
        let buffers = (0..64u32).filter(|n| among.buffers >> n & 1 == 1).map(|n| (number(n), Region::Buffer(n as usize)));
        let local = among.local.then_some((LOCAL_SLOT, Region::LocalArena));
        let private = among.private.then_some((PRIVATE_SLOT, Region::PrivateArena));
        buffers.chain(local).chain(private).collect()
    }

    /// Byte pointer `ptr` as one into any of the regions that pointer variable `var` may
    /// point into, when it may point into more than one.
    pub(super) fn among_regions(&mut self, mut ptr: Ptr, var: points_to::Holder, loc: Loc) -> R<Ptr> {
        let Root::Bytes(region) = ptr.root else { return Ok(ptr) };
        let objects: Vec<Object> = self.points_to.objects_of(var).collect();
        let mut among = Regions::default();
        for o in objects {
            among = among.union(self.region_of(o, loc)?.members());
        }
        if among.count() > 1 {
            let slot = self.region_slot(region);
            ptr.root = Root::Bytes(Region::Chosen { slot, among });
            ptr.space = among.space();
        }
        Ok(ptr)
    }

    /// The region addressed object `o` lives in.
    pub(super) fn region_of(&mut self, o: Object, loc: Loc) -> R<Region> {
        Ok(match o {
            Object::KernelArg(local) => {
                let kernel = self.frames.first().map(|f| f.func).ok_or_else(|| LowerError::new(loc, "internal: no kernel"))?;
                let n = self.function(kernel)?.params.iter().position(|p| p.local.0 == local);
                match n.and_then(|n| self.abi.params.get(n).map(|p| (n, p))) {
                    Some((n, super::abi::Param::Buffer { .. })) => Region::Buffer(n),
                    Some(_) => Region::LocalArena,
                    None => return Err(LowerError::new(loc, "internal: unknown parameter")),
                }
            }
            Object::Workgroup(_) => Region::LocalArena,
            Object::Private(..) => Region::PrivateArena,
            Object::Global(_) => Region::Buffer(*self.globals_block.get_or_insert_with(|| self.abi.add_globals_block())),
            Object::Constant(id) => match self.constant_ptr(model::ConstId(id), loc)?.root {
                Root::Buffer(n) | Root::Bytes(Region::Buffer(n)) => Region::Buffer(n),
                _ => return Err(LowerError::new(loc, "internal: a __constant variable outside a buffer")),
            },
            Object::Param(..) | Object::Any => {
                return Err(LowerError::new(loc, "a pointer variable that may point to what a pointer read from memory points to is not supported"))
            }
        })
    }
}
