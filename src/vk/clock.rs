//! Device timestamps on the host clock (`clock::now_ns`), for profiling info.
//!
//! The device's timer and the host's drift apart by tens of ppm: milliseconds within minutes,
//! longer than many commands take. So where the device has `VK_EXT_calibrated_timestamps` the
//! mapping is measured again whenever it is older than `RECALIBRATE_NS`; elsewhere it is
//! measured once, by a timestamp written on the queue.

use super::batch::Batch;
use super::device::Gpu;
use crate::cl::clock::{from_monotonic, now_ns};
use ash::vk;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// Drift of 50 ppm over this long is 2.5 µs.
const RECALIBRATE_NS: u64 = 50_000_000;

pub struct Clock {
    period_ns: f64,
    valid_mask: u64,
    /// Reads the device timer on demand, where the extension is enabled.
    calibrated: Option<ash::ext::calibrated_timestamps::Device>,
    mapping: Mutex<Mapping>,
}

/// Host time of device tick zero, and when it was measured.
#[derive(Clone, Copy)]
struct Mapping {
    offset_ns: f64,
    measured_at: u64,
}

/// Converts the device ticks of one batch, all with the same mapping.
pub struct ToHost {
    period_ns: f64,
    valid_mask: u64,
    offset_ns: f64,
}

impl ToHost {
    pub fn ns(&self, ticks: u64) -> u64 {
        ((ticks & self.valid_mask) as f64 * self.period_ns + self.offset_ns).max(0.0) as u64
    }
}

impl Clock {
    /// Measures the mapping for `gpu`; `calibrated` reads its timer where the extension is on.
    pub fn new(gpu: &Arc<Gpu>, calibrated: Option<ash::ext::calibrated_timestamps::Device>) -> Result<Clock, vk::Result> {
        let valid_bits = gpu.props.timestamp_valid_bits;
        let mut clock = Clock {
            period_ns: f64::from(gpu.props.limits().timestamp_period),
            valid_mask: if valid_bits >= 64 { u64::MAX } else { (1u64 << valid_bits) - 1 },
            calibrated,
            mapping: Mutex::new(Mapping { offset_ns: 0.0, measured_at: now_ns() }),
        };
        let offset_ns = match clock.read_timer() {
            Some(offset) => offset,
            None => clock.offset_from_queue(gpu)?,
        };
        *clock.mapping.get_mut().unwrap_or_else(|e| e.into_inner()) = Mapping { offset_ns, measured_at: now_ns() };
        Ok(clock)
    }

    /// The conversion for ticks written just now, measured again first if it is stale.
    pub fn to_host(&self) -> ToHost {
        let mut mapping = self.mapping.lock().unwrap_or_else(|e| e.into_inner());
        let now = now_ns();
        if now.saturating_sub(mapping.measured_at) > RECALIBRATE_NS {
            if let Some(offset_ns) = self.read_timer() {
                *mapping = Mapping { offset_ns, measured_at: now };
            }
        }
        ToHost { period_ns: self.period_ns, valid_mask: self.valid_mask, offset_ns: mapping.offset_ns }
    }

    /// Host time of tick zero from the device timer and the host's monotonic clock, which the
    /// driver reads together. (Bracketing a read of the device timer alone by two host
    /// readings errs by up to half the call, which may be long.)
    fn read_timer(&self) -> Option<f64> {
        let ext = self.calibrated.as_ref()?;
        let info = [vk::TimeDomainEXT::DEVICE, vk::TimeDomainEXT::CLOCK_MONOTONIC].map(|d| vk::CalibratedTimestampInfoEXT::default().time_domain(d));
        // SAFETY: the extension is enabled and both domains are calibrateable.
        let (ticks, _) = unsafe { ext.get_calibrated_timestamps(&info) }.ok()?;
        let (&device, &host) = (ticks.first()?, ticks.get(1)?);
        Some(from_monotonic(host) - (device & self.valid_mask) as f64 * self.period_ns)
    }

    /// Host time of tick zero from a timestamp written on the queue and the host time at which
    /// it was seen complete: an upper bound, late by the submission latency.
    fn offset_from_queue(&self, gpu: &Arc<Gpu>) -> Result<f64, vk::Result> {
        let batch = Batch::new(gpu, true)?;
        batch.timestamp(vk::PipelineStageFlags2::ALL_COMMANDS, 0);
        let value = batch.end_and_submit(&gpu.queue.lock().unwrap_or_else(|e| e.into_inner()), true)?;
        super::completion::wait_signalled(gpu, value, None)?;
        let host = now_ns() as f64;
        let mut tick = [0u64; 1];
        // SAFETY: the query was written and the batch executed.
        unsafe { gpu.device.get_query_pool_results(batch.query_pool().unwrap_or_default(), 0, &mut tick, vk::QueryResultFlags::TYPE_64) }?;
        gpu.completed.store(value, Ordering::Release);
        Ok(host - (tick[0] & self.valid_mask) as f64 * self.period_ns)
    }
}

/// Whether `physical` can read its timer on demand together with the host's monotonic clock.
pub fn calibrateable(instance: &super::instance::Instance, physical: vk::PhysicalDevice) -> bool {
    let ext = ash::ext::calibrated_timestamps::Instance::new(&instance.entry, &instance.raw);
    // SAFETY: plain query; the caller checked that the device has the extension.
    let domains = unsafe { ext.get_physical_device_calibrateable_time_domains(physical) }.unwrap_or_default();
    [vk::TimeDomainEXT::DEVICE, vk::TimeDomainEXT::CLOCK_MONOTONIC].iter().all(|d| domains.contains(d))
}
