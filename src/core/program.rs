//! Programs: source or binaries, built per device by the compiler, with logs and binaries.

use super::context::Context;
use super::device::Device;
use crate::cl::CLResult;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use crate::compiler::options::{BuildOptions, Stage};
use crate::compiler::{self, BuildError, Object};
use crate::vk::memory::Buffer;
use crate::vk::pipeline::Pipeline;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

#[repr(C)]
pub struct Program {
    header: Header,
    pub context: Arc<Context>,
    pub devices: Vec<Arc<Device>>,
    /// The source given to `clCreateProgramWithSource` (`None` for binaries and links).
    pub source: Option<String>,
    builds: Mutex<Vec<Build>>,
    /// Kernel objects alive for this program: while any is, it may not be rebuilt.
    pub kernels: AtomicUsize,
}
object!(Program, Program, CL_INVALID_PROGRAM);

/// The state of one device's build.
pub struct Build {
    pub status: cl_build_status,
    pub options: String,
    pub log: String,
    pub binary_type: cl_program_binary_type,
    /// Compiled (or loaded) object: what binaries hold and what linking consumes.
    pub object: Option<Object>,
    pub program: Option<Arc<Executable>>,
    /// This program object's own buffer of program-scope `__global` variables (executables
    /// are shared between program objects; their variables are not).
    pub globals: Option<Arc<Buffer>>,
}

/// Pipelines are specialised per (kernel index, local size, `__local` argument sizes, NULL
/// buffer arguments the kernel compares with NULL, image arguments that are 2D images made
/// from buffers).
pub type PipelineKey = (usize, [u32; 3], Vec<u32>, Vec<usize>, compiler::Variant);

/// A program built for one device. It is shared by every program object built from the same text
/// and options on that device, and so are the pipelines specialised from its kernels.
pub struct Executable {
    pub program: Arc<compiler::Program>,
    /// What the program's binaries hold: its preprocessed text and compile options.
    pub object: Arc<Object>,
    pub pipelines: Mutex<HashMap<PipelineKey, Arc<Pipeline>>>,
    /// Program-scope `__constant` data per kernel index.
    pub constants: Mutex<HashMap<usize, Arc<ConstantBuffers>>>,
}

/// Program-scope `__constant` data uploaded for a kernel: (binding, uniform, buffer).
pub type ConstantBuffers = Vec<(u32, bool, Arc<Buffer>)>;

/// A new buffer of `exe`'s program-scope `__global` variables, holding their initial values.
fn globals_of(device: &Device, exe: &Executable) -> CLResult<Option<Arc<Buffer>>> {
    let image = &exe.program.globals;
    if image.is_empty() {
        return Ok(None);
    }
    super::kernel::upload(device, image).map(Some)
}

/// Recently built programs, keyed by a hash of (device, text, options): the build, and the
/// executable made of it while program objects use it. The cache does not keep the
/// executable's pipelines alive: on a CPU device each holds its machine code (CTS
/// vector_creation grew lavapipe past 23 GB when 64 executables kept theirs).
type ExecutableCache = Mutex<VecDeque<CachedBuild>>;

struct CachedBuild {
    key: u64,
    program: Arc<compiler::Program>,
    object: Arc<Object>,
    live: Weak<Executable>,
}

/// Recently built executables by (device, text, options), so rebuilding a program is a lookup.
const CACHED_EXECUTABLES: usize = 64;

fn executable_cache() -> &'static ExecutableCache {
    static CACHE: OnceLock<ExecutableCache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Builds `source` for `device` in one pass, or returns the executable built from the same
/// source and options before.
pub fn build_executable(device: &Device, source: &str, options: &str) -> Result<Arc<Executable>, BuildError> {
    cached((device as *const Device as usize, "source", source, options), || compiler::build(source, options, &device.target))
}

/// Links `objects` for `device`, or returns the executable linked from the same input before.
fn link_cached(device: &Device, objects: &[Object], options: &str) -> Result<Arc<Executable>, BuildError> {
    let texts: Vec<(&str, &str)> = objects.iter().map(|o| (o.preprocessed.as_str(), o.options.as_str())).collect();
    cached((device as *const Device as usize, "objects", texts, options), || {
        compiler::link(objects, options, &device.target).map(|program| (merge(objects), program))
    })
}

/// The executable cached under `key`, or the one `make` builds, then cached.
fn cached(key: impl Hash, make: impl FnOnce() -> Result<(Object, compiler::Program), BuildError>) -> Result<Arc<Executable>, BuildError> {
    let mut h = DefaultHasher::new();
    key.hash(&mut h);
    let key = h.finish();
    let cache = executable_cache();
    let mut cached = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(entry) = cached.iter_mut().find(|c| c.key == key) {
        if let Some(exe) = entry.live.upgrade() {
            return Ok(exe);
        }
        let exe = Arc::new(Executable { program: entry.program.clone(), object: entry.object.clone(), pipelines: Mutex::default(), constants: Mutex::default() });
        entry.live = Arc::downgrade(&exe);
        return Ok(exe);
    }
    drop(cached);
    let (object, program) = make()?;
    let exe = Arc::new(Executable { program: Arc::new(program), object: Arc::new(object), pipelines: Mutex::default(), constants: Mutex::default() });
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() == CACHED_EXECUTABLES {
        cache.pop_front();
    }
    cache.push_back(CachedBuild { key, program: exe.program.clone(), object: exe.object.clone(), live: Arc::downgrade(&exe) });
    Ok(exe)
}

impl Default for Build {
    fn default() -> Self {
        Build { status: CL_BUILD_NONE, options: String::new(), log: String::new(), binary_type: BINARY_NONE, object: None, program: None, globals: None }
    }
}

// cl-sys declares these bitfield-wide; `cl_program_binary_type` is a `cl_uint`.
const BINARY_NONE: cl_program_binary_type = CL_PROGRAM_BINARY_TYPE_NONE as _;
const BINARY_COMPILED_OBJECT: cl_program_binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT as _;
const BINARY_LIBRARY: cl_program_binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY as _;
const BINARY_EXECUTABLE: cl_program_binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE as _;

const BINARY_MAGIC: &[u8; 8] = b"FERROCL\0";
const BINARY_VERSION: u32 = 1;

/// A program binary: magic, version, binary type, then the options and the preprocessed text.
pub fn encode_binary(b: &Build) -> Vec<u8> {
    let Some(obj) = &b.object else { return Vec::new() };
    let mut out = BINARY_MAGIC.to_vec();
    out.extend(BINARY_VERSION.to_le_bytes());
    out.extend(b.binary_type.to_le_bytes());
    for s in [&obj.options, &obj.preprocessed] {
        out.extend((s.len() as u64).to_le_bytes());
        out.extend(s.as_bytes());
    }
    out
}

fn decode_binary(bytes: &[u8]) -> Option<Build> {
    let rest = bytes.strip_prefix(BINARY_MAGIC)?;
    let word = |b: &[u8], at: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?)) };
    if word(rest, 0)? != BINARY_VERSION {
        return None;
    }
    let binary_type = word(rest, 4)? as cl_program_binary_type;
    let mut at = 8;
    let mut text = || -> Option<String> {
        let len = u64::from_le_bytes(rest.get(at..at + 8)?.try_into().ok()?) as usize;
        let bytes = rest.get(at + 8..at.checked_add(8)?.checked_add(len)?)?;
        // Within the length the application gave, which may be more than it has: a length no
        // memory can hold makes the binary invalid rather than abort the process.
        let mut owned = Vec::new();
        owned.try_reserve_exact(bytes.len()).ok()?;
        owned.extend_from_slice(bytes);
        let s = String::from_utf8(owned).ok()?;
        at += 8 + len;
        Some(s)
    };
    let options = text()?;
    let preprocessed = text()?;
    let known = [BINARY_COMPILED_OBJECT, BINARY_LIBRARY, BINARY_EXECUTABLE];
    known.contains(&binary_type).then(|| Build {
        binary_type,
        object: Some(Object { preprocessed, options: options.clone(), log: String::new() }),
        options,
        ..Build::default()
    })
}

impl Program {
    fn new(context: Arc<Context>, devices: Vec<Arc<Device>>, source: Option<String>, builds: Vec<Build>) -> Arc<Program> {
        Arc::new(Program { header: Header::new(Kind::Program), context, devices, source, builds: Mutex::new(builds), kernels: AtomicUsize::new(0) })
    }

    pub fn with_source(context: Arc<Context>, source: String) -> Arc<Program> {
        let devices = context.devices.clone();
        let builds = devices.iter().map(|_| Build::default()).collect();
        Self::new(context, devices, Some(source), builds)
    }

    /// Loads binaries, one per device; on error returns the per-device status
    /// (`CL_SUCCESS` or `CL_INVALID_BINARY`).
    pub fn with_binaries(context: Arc<Context>, devices: Vec<Arc<Device>>, binaries: &[&[u8]]) -> Result<Arc<Program>, Vec<cl_int>> {
        let builds: Vec<Option<Build>> = binaries.iter().map(|b| decode_binary(b)).collect();
        if builds.iter().any(Option::is_none) {
            return Err(builds.iter().map(|b| if b.is_some() { CL_SUCCESS } else { CL_INVALID_BINARY }).collect());
        }
        let program = Self::new(context, devices, None, builds.into_iter().flatten().collect());
        // An executable binary is usable at once, as applications that cache binaries expect;
        // clBuildProgram on it then only finds the executable in the cache.
        let executables: Vec<usize> = program.builds().iter().enumerate().filter(|(_, b)| b.binary_type == BINARY_EXECUTABLE).map(|(i, _)| i).collect();
        if program.build(&executables, "").is_err() {
            return Err(vec![CL_INVALID_BINARY; program.devices.len()]);
        }
        Ok(program)
    }

    fn builds(&self) -> MutexGuard<'_, Vec<Build>> {
        self.builds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the build (or link) failed on some device.
    pub fn failed(&self) -> bool {
        self.builds().iter().any(|b| b.status == CL_BUILD_ERROR)
    }

    /// `f` of the build for `device`, or `None` when the program is not for it. Builds are
    /// read in place: they hold the program's text, and applications query programs as they
    /// launch (clFFT asks for a program's context before each transform).
    pub fn with_build_of<R>(&self, device: &Arc<Device>, f: impl FnOnce(&Build) -> R) -> Option<R> {
        let i = self.devices.iter().position(|d| Arc::ptr_eq(d, device))?;
        self.builds().get(i).map(f)
    }

    /// `f` of every device's build, in the order of `self.devices`.
    pub fn with_builds<R>(&self, f: impl FnOnce(&[Build]) -> R) -> R {
        f(&self.builds())
    }

    /// The devices' indices among `self.devices` for a device list given to a build call.
    pub fn device_indices(&self, devices: &[Arc<Device>]) -> CLResult<Vec<usize>> {
        if devices.is_empty() {
            return Ok((0..self.devices.len()).collect());
        }
        devices.iter().map(|d| self.devices.iter().position(|p| Arc::ptr_eq(p, d)).ok_or(CL_INVALID_DEVICE)).collect()
    }

    /// `clBuildProgram` for the devices at `which`: from source, or linking loaded binaries.
    pub fn build(&self, which: &[usize], options: &str) -> CLResult<()> {
        self.run(which, options, |b, device| match (&self.source, &b.object) {
            (Some(source), _) => build_executable(device, source, options),
            (None, Some(obj)) => {
                // A binary is compiled already: its build options are only checked, and the
                // link takes its language options from the object.
                BuildOptions::parse(options, Stage::Compile).map_err(BuildError::InvalidOptions)?;
                link_cached(device, std::slice::from_ref(obj), "")
            }
            (None, None) => Err(BuildError::Failed("no binary was loaded for this device".into())),
        })
    }

    /// `clCompileProgram` for the devices at `which`.
    pub fn compile(&self, which: &[usize], options: &str, headers: &[(String, String)]) -> CLResult<()> {
        let Some(source) = &self.source else { return Err(CL_INVALID_OPERATION) };
        let mut builds = self.builds();
        let mut failed = false;
        for &i in which {
            let target = &self.devices[i].target;
            let b = &mut builds[i];
            b.options = options.to_string();
            match compiler::compile(source, headers, options, target) {
                Ok(obj) => {
                    *b = Build { status: CL_BUILD_SUCCESS, options: options.into(), log: obj.log.clone(), binary_type: BINARY_COMPILED_OBJECT, object: Some(obj), program: None, globals: None };
                }
                Err(e) => failed |= fail(b, e).map_err(|_| CL_INVALID_COMPILER_OPTIONS)?,
            }
        }
        if failed { Err(CL_COMPILE_PROGRAM_FAILURE) } else { Ok(()) }
    }

    /// Builds each selected device with `step`, recording status, log and result.
    fn run(&self, which: &[usize], options: &str, step: impl Fn(&Build, &Device) -> Result<Arc<Executable>, BuildError>) -> CLResult<()> {
        let mut builds = self.builds();
        let mut failed = false;
        for &i in which {
            let b = &mut builds[i];
            b.options = options.to_string();
            match step(b, &self.devices[i]) {
                Ok(exe) => {
                    b.status = CL_BUILD_SUCCESS;
                    b.log = exe.program.log.clone();
                    b.binary_type = BINARY_EXECUTABLE;
                    b.object = Some((*exe.object).clone());
                    b.globals = globals_of(&self.devices[i], &exe)?;
                    b.program = Some(exe);
                }
                Err(e) => failed |= fail(b, e)?,
            }
        }
        if failed { Err(CL_BUILD_PROGRAM_FAILURE) } else { Ok(()) }
    }

    /// `clLinkProgram`: a new program from compiled objects and libraries; where the link
    /// failed, its build for that device has status `CL_BUILD_ERROR` and the log.
    pub fn link(context: Arc<Context>, devices: Vec<Arc<Device>>, inputs: &[Arc<Program>], options: &str) -> CLResult<Arc<Program>> {
        let library = options.split_whitespace().any(|o| o == "-create-library");
        let mut builds = Vec::new();
        for d in &devices {
            // Only compiled objects and libraries link.
            let linkable = |b: &Build| [BINARY_COMPILED_OBJECT, BINARY_LIBRARY].contains(&b.binary_type).then(|| b.object.clone()).flatten();
            let objects: Vec<Object> = inputs.iter().filter_map(|p| p.with_build_of(d, linkable).flatten()).collect();
            if objects.len() != inputs.len() {
                return Err(CL_INVALID_OPERATION);
            }
            let mut b = Build { options: options.into(), ..Build::default() };
            // A library is its objects, merged; it is linked when used.
            let result = if library { Ok(None) } else { link_cached(d, &objects, options).map(Some) };
            match result {
                Ok(program) => {
                    b.status = CL_BUILD_SUCCESS;
                    b.binary_type = if library { BINARY_LIBRARY } else { BINARY_EXECUTABLE };
                    b.log = program.as_ref().map(|p| p.program.log.clone()).unwrap_or_default();
                    b.object = Some(program.as_ref().map_or_else(|| merge(&objects), |p| (*p.object).clone()));
                    b.globals = match &program {
                        Some(exe) => globals_of(d, exe)?,
                        None => None,
                    };
                    b.program = program;
                }
                // A failed link is a program whose build failed (see `clLinkProgram`).
                Err(e) => {
                    fail(&mut b, e).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
                }
            }
            builds.push(b);
        }
        Ok(Self::new(context, devices, None, builds))
    }

    /// Kernel argument names and types are reported only for programs compiled from source with
    /// `-cl-kernel-arg-info`, as the spec says.
    pub fn has_arg_info(&self) -> bool {
        self.source.is_some() && self.builds().iter().any(|b| b.options.split_whitespace().any(|o| o == "-cl-kernel-arg-info"))
    }

    pub fn kernel_attached(&self) -> bool {
        self.kernels.load(Ordering::Acquire) > 0
    }

    /// The built program of the first device that has one (kernel names are the same on all).
    pub fn executable(&self) -> CLResult<Arc<Executable>> {
        self.builds().iter().find_map(|b| b.program.clone()).ok_or(CL_INVALID_PROGRAM_EXECUTABLE)
    }
}

/// Objects merged into one, as a library or a linked program's binary holds them.
/// The language options are the first object's: linking the merge again must read the text
/// as it was compiled.
fn merge(objects: &[Object]) -> Object {
    let preprocessed = objects.iter().map(|o| o.preprocessed.as_str()).collect::<Vec<_>>().join("\n");
    let options = objects.first().map(|o| o.options.clone()).unwrap_or_default();
    Object { preprocessed, options, log: String::new() }
}

/// Records a failed build; bad options are returned as an error of their own.
fn fail(b: &mut Build, e: BuildError) -> CLResult<bool> {
    b.status = CL_BUILD_ERROR;
    b.program = None;
    b.globals = None;
    match e {
        BuildError::InvalidOptions(msg) => {
            b.log = msg;
            Err(CL_INVALID_BUILD_OPTIONS)
        }
        BuildError::Failed(log) => {
            b.log = log;
            Ok(true)
        }
    }
}
