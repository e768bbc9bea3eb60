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

pub use crate::compiler::{GLOBALS_SLOT, HEAP_SLOT};
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

    /// Pointer `ptr` as the integer a pointer held in memory is (see [`Self::held_ty`]): the
    /// integer it converts to (0 for NULL).
    pub(super) fn encode_ptr(&mut self, ptr: Ptr, loc: Loc) -> R<Handle<Expression>> {
        Ok(self.encoded(ptr, loc)?.0)
    }

    /// [`Self::encode_ptr`], with the byte pointer it encodes (none for NULL).
    fn encoded(&mut self, ptr: Ptr, loc: Loc) -> R<(Handle<Expression>, Option<Ptr>)> {
        if ptr.root == Root::Null {
            return Ok((self.held_zero(), None));
        }
        let bytes = self.to_bytes(ptr, loc)?;
        let (Root::Bytes(region), byte) = (bytes.root, Self::byte_offset(&bytes, loc)?) else {
            return Err(LowerError::new(loc, "internal: not a byte pointer"));
        };
        let base = self.region_base(region);
        let byte = self.held(byte);
        Ok((self.b.binary(B::Add, base, byte), Some(bytes)))
    }

    /// Whether pointers held in memory are 8 bytes: a tag in the top byte and a 32-bit
    /// offset, or a host address in shared virtual memory (see [`Self::region_base`]).
    fn wide(&self) -> bool {
        self.program.types.pointer_size == 8
    }

    /// u32 `v` as an integer of a held pointer's width.
    fn held(&mut self, v: Handle<Expression>) -> Handle<Expression> {
        if self.wide() {
            self.b.cast(v, naga::ScalarKind::Uint, Some(8))
        } else {
            v
        }
    }

    fn held_zero(&mut self) -> Handle<Expression> {
        let zero = self.b.u32(0);
        self.held(zero)
    }

    /// The low 32 bits of held integer `v`.
    fn low(&mut self, v: Handle<Expression>) -> Handle<Expression> {
        if self.wide() {
            self.b.cast(v, naga::ScalarKind::Uint, Some(4))
        } else {
            v
        }
    }

    /// The pointer (to `pointee`) that held integer `v`, read from memory holder `holder`,
    /// encodes (0 is NULL): with the holder's one region, an offset from its base; else a
    /// region chosen among those the holder may point into, by the tag in the top byte (the
    /// offset then has 24 bits where pointers are 4 bytes, 32 where they are 8), or by the
    /// address where there is none: a host address in shared virtual memory.
    pub(super) fn decode_ptr(&mut self, v: Handle<Expression>, holder: points_to::Holder, pointee: &T, loc: Loc) -> R<Ptr> {
        let mut objects: Vec<Object> = self.points_to.objects_of(holder).collect();
        if let points_to::Holder::In(Object::Global(id)) = holder {
            // Another kernel of the program may have stored it, in an earlier launch: it
            // points into the program's variables (nothing else outlives a launch but shared
            // virtual memory, which the points-to sets add).
            objects.push(Object::Global(id));
        }
        let mut among = Regions::default();
        let mut one = None;
        for o in objects {
            let (region, regions) = self.regions_of(o, loc)?;
            among = among.union(regions);
            one = Some(region);
        }
        let space = among.space();
        let zero = self.held_zero();
        let null = self.b.u32(NULL_SLOT);
        let is_null = self.b.binary(B::Equal, v, zero);
        let (slot, byte) = match (one, among.count()) {
            (None, _) => return Ok(Ptr { root: Root::Null, view: None, steps: Vec::new(), space, seen_as: None }),
            (Some(region), 1) => {
                let base = self.region_base(region);
                let byte = self.b.binary(B::Subtract, v, base);
                (self.region_slot(region), self.low(byte))
            }
            _ if self.wide() => self.decode_wide(v, among),
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

    /// The region number and byte offset that an 8-byte held pointer `v` into one of `among`
    /// encodes: its tag and low word, or for a host address (no tag) the heap holding it, or
    /// where `among` has no heap, the nearest shared virtual memory argument below it.
    fn decode_wide(&mut self, v: Handle<Expression>, among: Regions) -> (Handle<Expression>, Handle<Expression>) {
        let (k56, one) = (self.b.u32(56), self.b.u32(1));
        let k56 = self.held(k56);
        let tag = self.b.binary(B::ShiftRight, v, k56);
        let tag = self.low(tag);
        let tagged_slot = self.b.binary(B::Subtract, tag, one);
        let low = self.low(v);
        let svm = self.svm_buffers(among);
        if svm.is_empty() {
            return (tagged_slot, low);
        }
        let heaps = svm.iter().any(|&(_, n)| self.abi.heap_of(n).is_some());
        let (mut slot, mut base) = (self.b.u32(NULL_SLOT), self.held_zero());
        for (number, n) in svm {
            let (start, end) = self.abi.svm_range(&mut self.module, &mut self.b, n);
            let above = self.b.binary(B::GreaterEqual, v, start);
            let found = match end {
                Some(end) => {
                    let below = self.b.binary(B::Less, v, end);
                    self.b.binary(B::LogicalAnd, above, below)
                }
                // A heap holds every SVM address; without them, the argument nearest below.
                None if heaps => continue,
                None => {
                    let zero = self.held_zero();
                    let set = self.b.binary(B::NotEqual, start, zero);
                    let nearer = self.b.binary(B::GreaterEqual, start, base);
                    let near = self.b.binary(B::LogicalAnd, set, nearer);
                    self.b.binary(B::LogicalAnd, above, near)
                }
            };
            let number = self.b.u32(number);
            slot = self.b.select(found, number, slot);
            base = self.b.select(found, start, base);
        }
        let zero = self.b.u32(0);
        let is_tagged = self.b.binary(B::NotEqual, tag, zero);
        let offset = self.b.binary(B::Subtract, v, base);
        let offset = self.low(offset);
        (self.b.select(is_tagged, tagged_slot, slot), self.b.select(is_tagged, low, offset))
    }

    /// The integer a pointer to byte 0 of `region` converts to, as wide as a held pointer:
    /// its tag (`compiler::region_tag`), so that regions are apart and the low bits of a
    /// converted pointer give its alignment; or, where pointers are 8 bytes and the region is
    /// shared virtual memory (a heap, or an argument the runtime sets to SVM), its host
    /// address, so that the host and other launches may follow the pointer.
    pub(super) fn region_base(&mut self, region: Region) -> Handle<Expression> {
        let slot = self.region_slot(region);
        let one = self.b.u32(1);
        let id = self.b.binary(B::Add, slot, one);
        if !self.wide() {
            let k24 = self.b.u32(24);
            return self.b.binary(B::ShiftLeft, id, k24);
        }
        let (id, k56) = (self.held(id), self.b.u32(56));
        let k56 = self.held(k56);
        let mut base = self.b.binary(B::ShiftLeft, id, k56);
        for (number, n) in self.svm_buffers(region.members()) {
            let (address, _) = self.abi.svm_range(&mut self.module, &mut self.b, n);
            let zero = self.held_zero();
            let mut svm = self.b.binary(B::NotEqual, address, zero);
            if let Region::Chosen { slot, .. } = region {
                let number = self.b.u32(number);
                let this = self.b.binary(B::Equal, slot, number);
                svm = self.b.binary(B::LogicalAnd, this, svm);
            }
            base = self.b.select(svm, address, base);
        }
        base
    }

    /// The u32 run-time number of `region` (see [`Region::Chosen`]).
    pub(super) fn region_slot(&mut self, region: Region) -> Handle<Expression> {
        match region {
            Region::Buffer(n) => {
                let number = self.buffer_number(n);
                self.b.u32(number)
            }
            Region::Chosen { slot, .. } => slot,
            Region::LocalArena => self.b.u32(LOCAL_SLOT),
            Region::PrivateArena => self.b.u32(PRIVATE_SLOT),
        }
    }

    /// `(uintptr_t)ptr`, as wide as a held pointer: the region's base plus the offset (0 for
    /// a null pointer). The byte pointer is kept for a conversion back in the same expression
    /// (see [`Self::int_to_ptr`]).
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
        // The low 32 bits: the offset has no more, and a region's base is a multiple of 2^32
        // or a host address with the same low bits in `v`.
        let base = self.region_base(region);
        let base = self.low(base);
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
        if narrow || size != align || size == 0 || !self.shift_fits(n, &ty) {
            return Ok(Access::Bytes { base: Words::Buffer(n), byte, ty });
        }
        let k = self.b.u32(size as u32);
        let index = self.b.binary(B::Divide, byte, k);
        let typed = Ptr { root: Root::Buffer(n), view: Some(ty), steps: vec![Step::Index(index)], space: ptr.space, seen_as: None };
        self.ptr_access(&typed, loc)
    }

    /// The run-time number of buffer param `n` among regions: the program's variables and
    /// the heaps keep one number in every kernel, as pointers to them may be held in memory
    /// from launch to launch.
    fn buffer_number(&self, n: usize) -> u32 {
        match self.abi.heap_of(n) {
            _ if self.globals_block == Some(n) => GLOBALS_SLOT,
            Some(h) => HEAP_SLOT + h,
            None => n as u32,
        }
    }

    /// The buffer params of `among`, with the number of each at run time.
    fn chosen_buffers(&self, among: Regions) -> Vec<(u32, usize)> {
        (0..64usize).filter(|n| among.buffers >> n & 1 == 1).map(|n| (self.buffer_number(n), n)).collect()
    }

    /// The buffer params of `among` that may be shared virtual memory, with their numbers.
    fn svm_buffers(&self, among: Regions) -> Vec<(u32, usize)> {
        self.chosen_buffers(among).into_iter().filter(|&(_, n)| self.abi.may_be_svm(n)).collect()
    }

    /// The regions of `among` with the slot numbering each at run time.
    pub(super) fn chosen_cases(&self, among: Regions) -> Vec<(u32, Region)> {
        let buffers = self.chosen_buffers(among).into_iter().map(|(number, n)| (number, Region::Buffer(n)));
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
            among = among.union(self.regions_of(o, loc)?.1);
        }
        if among.count() > 1 {
            let slot = self.region_slot(region);
            ptr.root = Root::Bytes(Region::Chosen { slot, among });
            ptr.space = among.space();
        }
        Ok(ptr)
    }

    /// The region object `o` lives in ([`Self::region_of`]) and the regions it may lie in:
    /// shared virtual memory in any heap, another object in its one region.
    fn regions_of(&mut self, o: Object, loc: Loc) -> R<(Region, Regions)> {
        let region = self.region_of(o, loc)?;
        let buffers = match (o, region) {
            (Object::Svm, _) => self.abi.heaps(&mut self.module).to_vec(),
            (_, Region::Buffer(n)) => vec![n],
            (_, region) => return Ok((region, region.members())),
        };
        // A set of regions names buffers by bits of a u64.
        if buffers.iter().any(|&n| n >= 64) {
            return Err(LowerError::new(loc, "a pointer that may point into several buffers reaches only a kernel's first 64 buffers (arguments, then its own)"));
        }
        Ok((region, Regions { buffers: buffers.iter().fold(0, |bits, &n| bits | 1 << n), ..Regions::default() }))
    }

    /// The region addressed object `o` lives in (the first heap for shared virtual memory).
    pub(super) fn region_of(&mut self, o: Object, loc: Loc) -> R<Region> {
        Ok(match o {
            Object::Svm => Region::Buffer(self.abi.heaps(&mut self.module)[0]),
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
