//! The stack the compiler runs on. Every pass, naga's validator and SPIR-V writer among them,
//! recurses over the program's nesting, and legal nesting (the parser allows 128 levels of
//! statements or expressions) needs more stack than an application's thread may have: 80
//! nested loops overflowed a 2 MiB thread. So builds and specialisations run on a thread of
//! their own with a stack that holds the deepest program the parser accepts; only the pages
//! touched are committed.

use std::panic::resume_unwind;

const STACK_SIZE: usize = 256 << 20;

/// Runs `f` on a compiler thread and returns its result; a panic in `f` resumes in the caller.
/// The error says why no thread could be started (address space or thread limits).
pub(crate) fn run<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, String> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().name("ferrocl-compiler".into()).stack_size(STACK_SIZE).spawn_scoped(scope, f);
        match thread {
            Ok(handle) => Ok(handle.join().unwrap_or_else(|panic| resume_unwind(panic))),
            Err(e) => Err(format!("cannot start the compiler's thread: {e}")),
        }
    })
}
