//! The stack the compiler runs on. Every pass, naga's validator and SPIR-V writer among them,
//! recurses over the program's nesting, and legal nesting (the parser allows 128 levels of
//! statements or expressions, plus chains of up to 4096 operators) needs more stack than an application's thread may have: 80
//! nested loops overflowed a 2 MiB thread. So builds and specialisations run on compiler
//! threads with a stack that holds the deepest program the parser accepts (only the pages
//! touched are committed). The threads are kept for the next build: starting one per build
//! cost more than a small build itself.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{channel, sync_channel, Sender};
use std::sync::Mutex;

const STACK_SIZE: usize = 256 << 20;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Compiler threads waiting for a job, each reached through its channel.
static IDLE: Mutex<Vec<Sender<Job>>> = Mutex::new(Vec::new());

/// Runs `f` on a compiler thread and returns its result; a panic in `f` resumes in the caller.
/// The error says why no thread could be started (address space or thread limits).
pub(crate) fn run<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, String> {
    let (done, result) = sync_channel(1);
    let job: Box<dyn FnOnce() + Send + '_> = Box::new(move || {
        let _ = done.send(catch_unwind(AssertUnwindSafe(f)));
    });
    // SAFETY: only the lifetime is erased. `run` does not return while the job can still touch
    // what `f` borrows: it waits below until the job has sent its result (its last use of `f`)
    // or has been dropped unrun, which drops `done` and ends the wait.
    let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, Job>(job) };
    let worker = match IDLE.lock().unwrap_or_else(|e| e.into_inner()).pop() {
        Some(worker) => worker,
        None => spawn_worker()?,
    };
    // A worker that is gone hands the job back in the error, and it is dropped here, unrun.
    let sent = worker.send(job).is_ok();
    match result.recv() {
        Ok(Ok(value)) => {
            IDLE.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
            Ok(value)
        }
        Ok(Err(panic)) => resume_unwind(panic),
        Err(_) if sent => Err("the compiler's thread ended during the build".into()),
        Err(_) => Err("the compiler's thread is gone".into()),
    }
}

/// A new compiler thread, waiting for jobs on the returned channel.
fn spawn_worker() -> Result<Sender<Job>, String> {
    let (jobs, inbox) = channel::<Job>();
    std::thread::Builder::new()
        .name("ferrocl-compiler".into())
        .stack_size(STACK_SIZE)
        .spawn(move || inbox.iter().for_each(|job| job()))
        .map_err(|e| format!("cannot start the compiler's thread: {e}"))?;
    Ok(jobs)
}
