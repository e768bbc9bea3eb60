//! Process exit. Applications release OpenCL objects from their own exit handlers (CLBlast's
//! program cache does), and by then the Vulkan driver's exit handlers may have run: NVIDIA's
//! driver is unmapped and any Vulkan call crashes. Exit handlers run last registered first, so a
//! handler registered once the Vulkan driver is loaded runs before its teardown: it runs the
//! driver's last work (saving pipeline caches) and marks the process as exiting, after which
//! destructors leave their Vulkan objects to the end of the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{OnceLock, RwLock, RwLockReadGuard};

static EXITING: AtomicBool = AtomicBool::new(false);
/// Read-held across a Vulkan call of a thread that runs on while the process exits (the
/// completion thread polling the timeline); the exit handler write-locks it to mark the
/// process as exiting, so no such call is under way when the drivers' teardown begins.
static IN_CALL: RwLock<()> = RwLock::new(());
static LAST_WORK: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

extern "C" {
    fn atexit(handler: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn on_exit() {
    if let Some(work) = LAST_WORK.get() {
        work();
    }
    let _no_call = IN_CALL.write().unwrap_or_else(|e| e.into_inner());
    EXITING.store(true, Ordering::Release);
}

/// True once the process is exiting: Vulkan may be gone, so make no Vulkan call.
pub fn exiting() -> bool {
    EXITING.load(Ordering::Acquire)
}

/// Holds off the exit for the length of a Vulkan call (see `IN_CALL`); `None` once the process
/// is exiting: then make no call.
pub fn hold_exit() -> Option<RwLockReadGuard<'static, ()>> {
    let held = IN_CALL.read().unwrap_or_else(|e| e.into_inner());
    (!exiting()).then_some(held)
}

/// Registers the exit handler (once, after the Vulkan driver is loaded) with the work to do
/// while Vulkan is still there.
pub fn watch_exit(last_work: Box<dyn Fn() + Send + Sync>) {
    if LAST_WORK.set(last_work).is_ok() {
        // SAFETY: registers a plain function; atexit only fails when its table is full, and then
        // the process simply keeps the old behaviour.
        unsafe { atexit(on_exit) };
    }
}
