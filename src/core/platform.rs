//! The one ferrocl platform: the Vulkan instance and every device it could open.

use super::device::Device;
use crate::cl::object::{object, Header, Kind};
use crate::vk::instance::Instance;
use std::sync::{Arc, OnceLock};

#[repr(C)]
pub struct Platform {
    header: Header,
    pub devices: Vec<Arc<Device>>,
    /// Why devices were skipped or Vulkan is missing, for `FERROCL_DEBUG`.
    pub notes: Vec<String>,
    _instance: Option<Instance>,
}
object!(Platform, Platform, CL_INVALID_PLATFORM);

pub const NAME: &str = "ferrocl";
pub const VENDOR: &str = "ferrocl";
pub const ICD_SUFFIX: &str = "FCL";
pub const VERSION: &str = concat!("OpenCL 3.0 ferrocl ", env!("CARGO_PKG_VERSION"));

impl Platform {
    /// The platform, initialised on first use; it lives as long as the process.
    pub fn get() -> &'static Arc<Platform> {
        static PLATFORM: OnceLock<Arc<Platform>> = OnceLock::new();
        PLATFORM.get_or_init(|| {
            let platform = Arc::new(Platform::open());
            crate::cl::object::publish(platform.clone());
            for d in &platform.devices {
                crate::cl::object::publish(d.clone());
            }
            platform
        })
    }

    fn open() -> Platform {
        let mut notes = Vec::new();
        let instance = Instance::new().map_err(|e| notes.push(e)).ok();
        let mut devices: Vec<Arc<Device>> = Vec::new();
        if let Some(inst) = &instance {
            // SAFETY: plain enumeration on a live instance.
            for physical in unsafe { inst.raw.enumerate_physical_devices() }.unwrap_or_default() {
                match Device::open(inst, physical) {
                    Ok(d) => devices.push(Arc::new(d)),
                    Err(e) => notes.push(e),
                }
            }
        }
        // The best device first: it is CL_DEVICE_TYPE_DEFAULT.
        devices.sort_by_key(|d| d.rank());
        // Now that the Vulkan drivers are loaded: at exit, let an armed batch go (a GPU waiting
        // for an event would hold the driver's teardown) and save the pipelines while they are
        // still there (applications may release their last context only in an exit handler).
        let gpus: Vec<_> = devices.iter().map(|d| d.gpu.clone()).collect();
        let last_work = move || {
            for g in &gpus {
                g.disarm();
                crate::vk::pipeline::save_cache(g);
            }
        };
        crate::vk::teardown::watch_exit(Box::new(last_work));
        if std::env::var_os("FERROCL_DEBUG").is_some() {
            notes.iter().for_each(|n| eprintln!("ferrocl: {n}"));
        }
        Platform { header: Header::new(Kind::Platform), devices, notes, _instance: instance }
    }
}
