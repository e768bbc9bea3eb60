//! Contexts: a set of devices of the platform, with the application's properties and callbacks.

use super::device::Device;
use super::svm::Svm;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use std::sync::{Arc, Mutex};

/// An application callback and its user data, called from any driver thread.
pub struct Callback<F> {
    pub func: F,
    pub user_data: *mut c_void,
}

// SAFETY: OpenCL requires callbacks and their data to be usable from any thread.
unsafe impl<F> Send for Callback<F> {}
unsafe impl<F> Sync for Callback<F> {}

#[repr(C)]
pub struct Context {
    header: Header,
    pub devices: Vec<Arc<Device>>,
    /// The properties as the application gave them, zero-terminated (empty if none).
    pub properties: Vec<cl_context_properties>,
    pub notify: Option<Callback<ContextCallback>>,
    destructors: Mutex<Vec<Callback<ObjectCallback<cl_context>>>>,
    /// Shared virtual memory allocated in the context.
    pub svm: Mutex<Svm>,
}
object!(Context, Context, CL_INVALID_CONTEXT);

impl Context {
    pub fn new(devices: Vec<Arc<Device>>, properties: Vec<cl_context_properties>, notify: Option<Callback<ContextCallback>>) -> Arc<Context> {
        Arc::new(Context { header: Header::new(Kind::Context), devices, properties, notify, destructors: Mutex::default(), svm: Mutex::default() })
    }

    pub fn has_device(&self, device: &Arc<Device>) -> bool {
        self.devices.iter().any(|d| Arc::ptr_eq(d, device))
    }

    pub fn add_destructor(&self, cb: Callback<ObjectCallback<cl_context>>) {
        self.destructors.lock().unwrap_or_else(|e| e.into_inner()).push(cb);
    }

    /// Largest buffer any device of the context can hold.
    pub fn max_alloc_size(&self) -> u64 {
        self.devices.iter().map(|d| d.max_alloc_size).min().unwrap_or(0)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Applications release their contexts when done: keep the pipelines for the next run.
        self.devices.iter().for_each(|d| crate::vk::pipeline::save_cache(&d.gpu));
        let handle = self as *mut Context as cl_context;
        let callbacks = std::mem::take(self.destructors.get_mut().unwrap_or_else(|e| e.into_inner()));
        // The spec calls destructor callbacks in reverse order of registration.
        for cb in callbacks.into_iter().rev() {
            if let Some(f) = cb.func {
                // SAFETY: calling the application's callback as the spec prescribes.
                unsafe { f(handle, cb.user_data) };
            }
        }
    }
}
