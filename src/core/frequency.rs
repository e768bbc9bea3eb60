//! `CL_DEVICE_MAX_CLOCK_FREQUENCY`, which Vulkan does not report: for an NVIDIA GPU, NVML's
//! maximum SM clock of the GPU on the device's PCI bus; for a CPU device (lavapipe), the host
//! CPU's maximum clock (cpufreq in sysfs, else the current one from `/proc/cpuinfo`); 0 where
//! neither is known, as the specification allows no better answer.

use std::ffi::{c_char, c_int, c_uint, c_void, CString};

/// NVML's `nvmlClockType_t` value of the streaming multiprocessors' clock.
const NVML_CLOCK_SM: c_uint = 1;

/// The maximum clock in MHz of the GPU at PCI address `domain:bus:device.function`, from NVML
/// (NVIDIA's management library, present wherever its driver is).
pub fn nvidia_gpu_mhz([domain, bus, device, function]: [u32; 4]) -> Option<u32> {
    type Init = unsafe extern "C" fn() -> c_int;
    type ByPci = unsafe extern "C" fn(*const c_char, *mut *mut c_void) -> c_int;
    type MaxClock = unsafe extern "C" fn(*mut c_void, c_uint, *mut c_uint) -> c_int;
    let address = CString::new(format!("{domain:08x}:{bus:02x}:{device:02x}.{function:x}")).ok()?;
    // SAFETY: NVML's documented C entry points with their documented signatures; the library
    // stays loaded while they run, and NVML is shut down after its one query.
    unsafe {
        let lib = ["libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1"].into_iter().find_map(|n| libloading::Library::new(n).ok())?;
        let init = lib.get::<Init>(b"nvmlInit_v2\0").ok()?;
        let shutdown = lib.get::<Init>(b"nvmlShutdown\0").ok()?;
        let by_pci = lib.get::<ByPci>(b"nvmlDeviceGetHandleByPciBusId_v2\0").ok()?;
        let max_clock = lib.get::<MaxClock>(b"nvmlDeviceGetMaxClockInfo\0").ok()?;
        if init() != 0 {
            return None;
        }
        let mut handle = std::ptr::null_mut();
        let mut mhz: c_uint = 0;
        let found = by_pci(address.as_ptr(), &mut handle) == 0 && max_clock(handle, NVML_CLOCK_SM, &mut mhz) == 0;
        shutdown();
        found.then_some(mhz).filter(|&m| m > 0)
    }
}

/// The host CPU's maximum clock in MHz.
pub fn cpu_mhz() -> Option<u32> {
    let max_khz = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq").ok().and_then(|s| s.trim().parse::<u64>().ok());
    if let Some(khz) = max_khz {
        return u32::try_from(khz / 1000).ok().filter(|&m| m > 0);
    }
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("cpu MHz"))?;
    let mhz: f64 = line.split(':').nth(1)?.trim().parse().ok()?;
    Some(mhz.round() as u32).filter(|&m| m > 0)
}
