//! Process exit. Applications release OpenCL objects from their own exit handlers (CLBlast's
//! program cache does), and by then the Vulkan driver's exit handlers may have run: NVIDIA's
//! driver is unmapped and any Vulkan call crashes. Exit handlers run last registered first, so a
//! handler registered once the Vulkan driver is loaded runs before its teardown: it runs the
//! driver's last work (saving pipeline caches) and marks the process as exiting, after which
//! destructors leave their Vulkan objects to the end of the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static EXITING: AtomicBool = AtomicBool::new(false);
static LAST_WORK: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

extern "C" {
    fn atexit(handler: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn on_exit() {
    if let Some(work) = LAST_WORK.get() {
        work();
    }
    EXITING.store(true, Ordering::Release);
}

/// True once the process is exiting: Vulkan may be gone, so make no Vulkan call.
pub fn exiting() -> bool {
    EXITING.load(Ordering::Acquire)
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
