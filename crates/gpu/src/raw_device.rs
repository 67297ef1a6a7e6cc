//! The crate's other `unsafe` code, Vulkan through wgpu's hal interop: a Vulkan instance that
//! enables no window system's surfaces ([`quiet_vulkan_instance`], so that the GPU stack
//! prints nothing), a Vulkan device opened without the driver's bounds checks on buffer
//! accesses (`robustBufferAccess` and `robustBufferAccess2`, which wgpu-hal enables on every
//! Vulkan device that offers them), to measure what they cost
//! ([`GpuOptions::robust_access`](crate::GpuOptions::robust_access)), and what a device opened
//! the usual way enables, for `MESHCAST_GPU_PROFILE`.
//!
//! wgpu-hal's Vulkan backend exists on Windows, Linux, Android and FreeBSD (as wgpu's `vulkan`
//! cfg has it without `vulkan-portability`); elsewhere every function answers `None`.
#![allow(unsafe_code)]

/// The robustness features a Vulkan device is opened with.
#[cfg_attr(
    not(any(
        windows,
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd"
    )),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Robustness {
    /// `robustBufferAccess`.
    pub(crate) buffer_access: bool,
    /// `robustBufferAccess2`, `None` where the device does not offer `VK_EXT_robustness2`.
    pub(crate) buffer_access2: Option<bool>,
}

impl std::fmt::Display for Robustness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = |on: bool| if on { "on" } else { "off" };
        write!(
            f,
            "robustBufferAccess {}, robustBufferAccess2 {}",
            on(self.buffer_access),
            self.buffer_access2.map_or("not offered", on)
        )
    }
}

pub(crate) use backend::{default_robustness, open_without_robust_access, quiet_vulkan_instance};

/// Where wgpu-hal has a Vulkan backend.
#[cfg(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
))]
mod backend {
    use super::Robustness;

    /// A wgpu instance of Vulkan alone, as wgpu-hal makes one (its extensions, API version
    /// and `flags`) but without the window systems' surface extensions (Wayland, XCB, Xlib):
    /// meshcast draws to no window, and Mesa's device-select layer, an implicit layer of every
    /// Mesa install, connects to the display server of each such extension an instance
    /// enables (its `CreateInstance` sets `has_wayland` and `has_xcb` from them), where
    /// libwayland prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." to
    /// stderr when that variable is unset or empty, as in containers and on servers. `None`
    /// where there is no Vulkan loader or it makes no instance.
    pub(crate) fn quiet_vulkan_instance(flags: wgpu::InstanceFlags) -> Option<wgpu::Instance> {
        use ash::{khr, vk};
        use wgpu::hal::vulkan::Instance;

        // SAFETY: loads the system's Vulkan loader (libvulkan) and resolves its entry points,
        // as wgpu-hal's own instance creation does; nothing of it is called yet.
        let entry = unsafe { ash::Entry::load() }.ok()?;
        // SAFETY: `vkEnumerateInstanceVersion` of a loaded entry, no other argument.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .ok()?
            .unwrap_or(vk::API_VERSION_1_0);
        let window_systems = [
            khr::wayland_surface::NAME,
            khr::xcb_surface::NAME,
            khr::xlib_surface::NAME,
        ];
        let mut extensions = Instance::desired_extensions(&entry, version, flags).ok()?;
        extensions.retain(|name| !window_systems.contains(name));
        // SAFETY: `vkEnumerateInstanceLayerProperties` of a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.ok()?;
        let has_nv_optimus = layers
            .iter()
            .any(|layer| layer.layer_name_as_c_str() == Ok(c"VK_LAYER_NV_optimus"));
        // As wgpu-hal asks: 1.0 of a 1.0 loader, else the highest version it supports, 1.3.
        let api_version = if version < vk::API_VERSION_1_1 {
            vk::API_VERSION_1_0
        } else {
            vk::API_VERSION_1_3
        };
        let application = vk::ApplicationInfo::default()
            .application_name(c"meshcast")
            .engine_name(c"wgpu-hal")
            .api_version(api_version);
        let names: Vec<_> = extensions.iter().map(|name| name.as_ptr()).collect();
        let info = vk::InstanceCreateInfo::default()
            .application_info(&application)
            .enabled_extension_names(&names);
        // SAFETY: `info` is a valid `VkInstanceCreateInfo`: the extensions are ones the loader
        // lists (`desired_extensions` keeps only those), no layer, no `p_next`, every pointer
        // borrowing a value alive until the call returns.
        let raw = unsafe { entry.create_instance(&info, None) }.ok()?;
        // SAFETY: `raw` was made from `entry` with `version`'s API version as wgpu-hal chooses it,
        // `flags` and exactly `extensions`, which wgpu-hal then knows to be the enabled ones;
        // they are `desired_extensions()` less the three surface extensions, whose every use in
        // wgpu-hal 30 (the `create_surface_from_*` functions) first checks that list and returns
        // an error without them, and meshcast makes no surface. wgpu-hal takes ownership of
        // `raw` (no drop callback).
        let hal = unsafe {
            Instance::from_raw(
                entry,
                raw,
                version,
                0,
                None,
                extensions,
                flags,
                wgpu::MemoryBudgetThresholds::default(),
                has_nv_optimus,
                None,
            )
        }
        .ok()?;
        // SAFETY: `hal` is a live wgpu-hal Vulkan instance, owned by the wgpu instance from here.
        Some(unsafe { wgpu::Instance::from_hal::<wgpu::hal::api::Vulkan>(hal) })
    }

    /// The device and queue of `adapter`, opened as `descriptor` asks but without
    /// `robustBufferAccess` and `robustBufferAccess2`, with what it enabled; `None` where the
    /// adapter is not a Vulkan one.
    pub(crate) fn open_without_robust_access(
        adapter: &wgpu::Adapter,
        descriptor: &wgpu::DeviceDescriptor<'_>,
    ) -> Option<Result<(wgpu::Device, wgpu::Queue, Robustness), String>> {
        use ash::vk;

        // SAFETY: the guard is only read (the adapter's extensions, features and instance) and
        // the adapter it refers to is never destroyed here; the device made from it below obeys
        // wgpu-hal's rules as argued at each call.
        let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
        let mut failed = Vec::new();
        descriptor.required_limits.check_limits_with_fail_fn(
            &adapter.limits(),
            false,
            |name, _, _| failed.push(name),
        );
        if !failed.is_empty() {
            // `request_device` refuses such limits; the hal path does not check them.
            return Some(Err(format!(
                "limits beyond the adapter's: {}",
                failed.join(", ")
            )));
        }
        let features = descriptor.required_features;
        // As wgpu-hal's `open_with_callback` opens a device: its extensions and features, one
        // queue of family 0.
        let extensions = hal.required_device_extensions(features);
        let mut enabled = hal.physical_device_features(&extensions, features);
        let core = vk::PhysicalDeviceFeatures {
            robust_buffer_access: vk::FALSE,
            ..enabled.get_core()
        };
        let names: Vec<_> = extensions.iter().map(|name| name.as_ptr()).collect();
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&names);
        let info = enabled.add_to_device_create(info).enabled_features(&core);
        // SAFETY: `info`'s chain is the one `add_to_device_create` made of `enabled`'s structs,
        // which `info` borrows mutably, so nothing else reads or writes them meanwhile.
        let robustness2 = unsafe { robustness2(&info) };
        // SAFETY: the pointer is into `enabled`, alive and borrowed by `info` alone (above), and
        // a `VkPhysicalDeviceRobustness2FeaturesEXT` is plain data; turning a feature off keeps
        // the chain valid (`robustBufferAccess2` requires `robustBufferAccess`, off too).
        let buffer_access2 = robustness2.map(|features| unsafe {
            (*features).robust_buffer_access2 = vk::FALSE;
            false
        });
        // SAFETY: `info` is a valid `VkDeviceCreateInfo` for this physical device: the extensions
        // and feature chain are wgpu-hal's own for it (which it passes to the same call), less
        // two features, and every pointer in it borrows a value alive until the call returns.
        let raw = unsafe {
            hal.shared_instance().raw_instance().create_device(
                hal.raw_physical_device(),
                &info,
                None,
            )
        };
        let raw = match raw {
            Ok(raw) => raw,
            Err(error) => return Some(Err(format!("vkCreateDevice failed: {error}"))),
        };
        // SAFETY: `raw` was made from this adapter's physical device, with queue family 0 and
        // `extensions`, the extensions wgpu-hal requires for `features`, and its features less
        // the two robustness ones; wgpu-hal takes ownership of it (no drop callback). What
        // wgpu-hal assumes of those two from the adapter's capabilities is (a) that the driver
        // bounds buffer accesses where it offers `robustBufferAccess2`, so that naga leaves them
        // unchecked, which holds for the traversal kernel, whose every index stays in bounds
        // (`unchecked.rs`), and for wgpu's internal shaders, which we never use (no indirect
        // dispatch, no queries), and (b) the alignment uniform bindings are padded to for the
        // driver's checks, which only pads more than needed once they are off.
        let open = unsafe {
            hal.device_from_raw(
                raw,
                None,
                &extensions,
                features,
                &descriptor.required_limits,
                &descriptor.memory_hints,
                0,
                0,
            )
        };
        drop(hal);
        let open = match open {
            Ok(open) => open,
            Err(error) => return Some(Err(format!("wgpu-hal refused the device: {error}"))),
        };
        // SAFETY: `open` was made from this adapter's hal adapter, with `descriptor`'s features.
        let pair = unsafe { adapter.create_device_from_hal(open, descriptor) };
        let robustness = Robustness {
            buffer_access: false,
            buffer_access2,
        };
        Some(
            pair.map(|(device, queue)| (device, queue, robustness))
                .map_err(|error| error.to_string()),
        )
    }

    /// What a device of `adapter` opened with `features` through `request_device` enables, as
    /// wgpu-hal chooses it; `None` where the adapter is not a Vulkan one.
    pub(crate) fn default_robustness(
        adapter: &wgpu::Adapter,
        features: wgpu::Features,
    ) -> Option<Robustness> {
        // SAFETY: the guard is only read, and the adapter it refers to is never destroyed here.
        let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
        // The same choice wgpu-hal's `open` makes, read from the create info it would pass.
        let extensions = hal.required_device_extensions(features);
        let mut enabled = hal.physical_device_features(&extensions, features);
        let buffer_access = enabled.get_core().robust_buffer_access != 0;
        let info = enabled.add_to_device_create(ash::vk::DeviceCreateInfo::default());
        // SAFETY: `info`'s chain is the one `add_to_device_create` made of `enabled`'s structs,
        // which `info` borrows mutably, so nothing else reads or writes them meanwhile.
        let robustness2 = unsafe { robustness2(&info) };
        // SAFETY: the pointer is into `enabled`, alive and borrowed by `info` alone; only read.
        let buffer_access2 =
            robustness2.map(|features| unsafe { (*features).robust_buffer_access2 != 0 });
        Some(Robustness {
            buffer_access,
            buffer_access2,
        })
    }

    /// The `VkPhysicalDeviceRobustness2FeaturesEXT` in `info`'s `p_next` chain, if any.
    ///
    /// # Safety
    /// Every `p_next` in the chain is null or points to a live Vulkan structure (which starts
    /// with its `sType` and `p_next`), none of which anything else accesses while the pointer is
    /// used.
    unsafe fn robustness2<'a>(
        info: &ash::vk::DeviceCreateInfo<'a>,
    ) -> Option<*mut ash::vk::PhysicalDeviceRobustness2FeaturesEXT<'a>> {
        use ash::vk;
        let mut next = info.p_next.cast::<vk::BaseOutStructure<'_>>().cast_mut();
        while !next.is_null() {
            // SAFETY: as the caller promises, `next` points to a live structure, whose first
            // fields are `sType` and `p_next`, as `VkBaseOutStructure`'s.
            let (kind, after) = unsafe { ((*next).s_type, (*next).p_next) };
            if kind == vk::StructureType::PHYSICAL_DEVICE_ROBUSTNESS_2_FEATURES_EXT {
                return Some(next.cast());
            }
            next = after;
        }
        None
    }
}

/// Elsewhere there is no Vulkan backend: the option is ignored.
#[cfg(not(any(
    windows,
    target_os = "linux",
    target_os = "android",
    target_os = "freebsd"
)))]
mod backend {
    use super::Robustness;

    /// No Vulkan backend.
    pub(crate) fn quiet_vulkan_instance(_: wgpu::InstanceFlags) -> Option<wgpu::Instance> {
        None
    }

    /// No Vulkan device: the option is ignored.
    pub(crate) fn open_without_robust_access(
        _: &wgpu::Adapter,
        _: &wgpu::DeviceDescriptor<'_>,
    ) -> Option<Result<(wgpu::Device, wgpu::Queue, Robustness), String>> {
        None
    }

    /// No Vulkan device to read.
    pub(crate) fn default_robustness(_: &wgpu::Adapter, _: wgpu::Features) -> Option<Robustness> {
        None
    }
}
