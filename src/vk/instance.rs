//! The Vulkan instance, with the Khronos validation layer (synchronization validation
//! included) when `FERROCL_VALIDATION` is set.

use ash::vk;
use std::ffi::{c_void, CStr};

pub struct Instance {
    pub entry: ash::Entry,
    pub raw: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Validation errors are driver bugs: under `FERROCL_VALIDATION` they abort the process so that
/// no test can pass over one. Warnings are printed.
unsafe extern "system" fn on_validation_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let message = (*data).message_as_c_str().map(CStr::to_string_lossy).unwrap_or_default();
    eprintln!("ferrocl: Vulkan validation: {message}");
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        std::process::abort();
    }
    vk::FALSE
}

impl Instance {
    pub fn new() -> Result<Self, String> {
        // SAFETY: loading the system Vulkan loader; it stays loaded for the process.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("no Vulkan loader: {e}"))?;
        let validate = std::env::var_os("FERROCL_VALIDATION").is_some_and(|v| v != "0") && has_layer(&entry);
        let app = vk::ApplicationInfo::default()
            .application_name(c"ferrocl")
            .engine_name(c"ferrocl")
            .api_version(vk::API_VERSION_1_3);
        let layers = [VALIDATION_LAYER.as_ptr()];
        let mut extensions = vec![ash::ext::debug_utils::NAME.as_ptr()];
        // A hazard between commands (a missing or too narrow barrier) is a driver bug too:
        // synchronization validation checks every dependency, where the layer offers it.
        let sync = validate && layer_has_extension(&entry, ash::ext::validation_features::NAME);
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut info = vk::InstanceCreateInfo::default().application_info(&app);
        if sync {
            extensions.push(ash::ext::validation_features::NAME.as_ptr());
            info = info.push_next(&mut features);
        }
        if validate {
            info = info.enabled_layer_names(&layers).enabled_extension_names(&extensions);
        }
        // SAFETY: valid create info.
        let raw = unsafe { entry.create_instance(&info, None) }.map_err(|e| format!("vkCreateInstance: {e}"))?;
        let debug = validate.then(|| messenger(&entry, &raw)).flatten();
        Ok(Instance { entry, raw, debug })
    }
}

fn has_layer(entry: &ash::Entry) -> bool {
    // SAFETY: plain enumeration.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
    layers.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
}

fn layer_has_extension(entry: &ash::Entry, name: &CStr) -> bool {
    // SAFETY: plain enumeration of the layer's own extensions.
    let extensions = unsafe { entry.enumerate_instance_extension_properties(Some(VALIDATION_LAYER)) }.unwrap_or_default();
    extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

fn messenger(entry: &ash::Entry, raw: &ash::Instance) -> Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)> {
    let utils = ash::ext::debug_utils::Instance::new(entry, raw);
    let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING)
        .message_type(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL)
        .pfn_user_callback(Some(on_validation_message));
    // SAFETY: valid create info; the callback is a static function.
    let messenger = unsafe { utils.create_debug_utils_messenger(&info, None) }.ok()?;
    Some((utils, messenger))
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: all devices are gone when the instance drops.
        unsafe {
            if let Some((utils, m)) = self.debug.take() {
                utils.destroy_debug_utils_messenger(m, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}
