//! A minimal FFI to Embree 3 (the system's `libembree3`, Debian's `libembree-dev` 3.13.5):
//! only the calls this benchmark makes, with the struct layouts of `embree3/rtcore*.h`
//! (`RTC_MAX_INSTANCE_LEVEL_COUNT` = 1, `RTC_MIN_WIDTH` = 0). All of the crate's unsafe code
//! is here, behind the safe [`Device`] and [`Scene`].

#![allow(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};

/// `RTC_INVALID_GEOMETRY_ID`: no hit (`geomID`) or no instance (`instID`).
const INVALID_GEOMETRY_ID: c_uint = c_uint::MAX;
/// `RTC_GEOMETRY_TYPE_TRIANGLE`.
const GEOMETRY_TYPE_TRIANGLE: c_int = 0;
/// `RTC_BUFFER_TYPE_INDEX`.
const BUFFER_TYPE_INDEX: c_int = 0;
/// `RTC_BUFFER_TYPE_VERTEX`.
const BUFFER_TYPE_VERTEX: c_int = 1;
/// `RTC_FORMAT_UINT3` (`RTC_FORMAT_UINT` = 0x5001, then UINT2, UINT3).
const FORMAT_UINT3: c_int = 0x5003;
/// `RTC_FORMAT_FLOAT3` (`RTC_FORMAT_FLOAT` = 0x9001, then FLOAT2, FLOAT3).
const FORMAT_FLOAT3: c_int = 0x9003;
/// `RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT`.
const CONTEXT_FLAG_INCOHERENT: c_int = 0;
/// `RTC_INTERSECT_CONTEXT_FLAG_COHERENT`.
const CONTEXT_FLAG_COHERENT: c_int = 1;
/// `RTC_SCENE_FLAG_NONE`.
const SCENE_FLAG_NONE: c_int = 0;
/// `RTC_SCENE_FLAG_ROBUST` (`1 << 2`).
const SCENE_FLAG_ROBUST: c_int = 1 << 2;
/// `RTC_DEVICE_PROPERTY_VERSION`: the version as an integer, e.g. 31305.
const DEVICE_PROPERTY_VERSION: c_int = 0;
/// Vertex stride: Embree reads vertices with 16-byte loads, so each gets a padding float.
const VERTEX_STRIDE: usize = 16;

/// One ray of a packet or stream: origin, direction and end of the range.
pub type PacketRay = ([f32; 3], [f32; 3], f32);

/// `struct RTCRay`.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
struct RtcRay {
    org_x: f32,
    org_y: f32,
    org_z: f32,
    tnear: f32,
    dir_x: f32,
    dir_y: f32,
    dir_z: f32,
    time: f32,
    tfar: f32,
    mask: c_uint,
    id: c_uint,
    flags: c_uint,
}

/// `struct RTCHit`.
#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
struct RtcHit {
    ng_x: f32,
    ng_y: f32,
    ng_z: f32,
    u: f32,
    v: f32,
    prim_id: c_uint,
    geom_id: c_uint,
    inst_id: [c_uint; 1],
}

/// `struct RTCRayHit`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RtcRayHit {
    ray: RtcRay,
    hit: RtcHit,
}

/// `struct RTCRay16`.
#[repr(C, align(64))]
struct RtcRay16 {
    org_x: [f32; 16],
    org_y: [f32; 16],
    org_z: [f32; 16],
    tnear: [f32; 16],
    dir_x: [f32; 16],
    dir_y: [f32; 16],
    dir_z: [f32; 16],
    time: [f32; 16],
    tfar: [f32; 16],
    mask: [c_uint; 16],
    id: [c_uint; 16],
    flags: [c_uint; 16],
}

/// `struct RTCHit16`.
#[repr(C, align(64))]
struct RtcHit16 {
    ng_x: [f32; 16],
    ng_y: [f32; 16],
    ng_z: [f32; 16],
    u: [f32; 16],
    v: [f32; 16],
    prim_id: [c_uint; 16],
    geom_id: [c_uint; 16],
    inst_id: [[c_uint; 16]; 1],
}

/// `struct RTCRayHit16`.
#[repr(C)]
struct RtcRayHit16 {
    ray: RtcRay16,
    hit: RtcHit16,
}

/// `int valid[16]` of `rtcIntersect16`; the header asks for the packet's alignment.
#[repr(C, align(64))]
struct Valid16([c_int; 16]);

/// `struct RTCIntersectContext` (no `instStackSize` with one instance level, no
/// `minWidthDistanceFactor` without `RTC_MIN_WIDTH`).
#[repr(C)]
struct RtcIntersectContext {
    flags: c_int,
    filter: Option<unsafe extern "C" fn(*const c_void)>,
    inst_id: [c_uint; 1],
}

// The layouts the header gives (sizes and alignments), checked when compiling.
const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<RtcRay>() == 48 && align_of::<RtcRay>() == 16);
    assert!(size_of::<RtcHit>() == 32 && align_of::<RtcHit>() == 16);
    assert!(size_of::<RtcRayHit>() == 80 && align_of::<RtcRayHit>() == 16);
    assert!(size_of::<RtcRay16>() == 12 * 64 && align_of::<RtcRay16>() == 64);
    assert!(size_of::<RtcHit16>() == 8 * 64 && align_of::<RtcHit16>() == 64);
    assert!(size_of::<RtcRayHit16>() == 20 * 64);
    assert!(size_of::<RtcIntersectContext>() == 24);
};

impl RtcIntersectContext {
    /// `rtcInitIntersectContext`, an inline function of the header.
    fn new(coherent: bool) -> Self {
        Self {
            flags: if coherent {
                CONTEXT_FLAG_COHERENT
            } else {
                CONTEXT_FLAG_INCOHERENT
            },
            filter: None,
            inst_id: [INVALID_GEOMETRY_ID],
        }
    }
}

type RtcDevice = *mut c_void;
type RtcScene = *mut c_void;
type RtcGeometry = *mut c_void;

#[link(name = "embree3")]
extern "C" {
    fn rtcNewDevice(config: *const c_char) -> RtcDevice;
    fn rtcReleaseDevice(device: RtcDevice);
    fn rtcGetDeviceError(device: RtcDevice) -> c_int;
    fn rtcGetDeviceProperty(device: RtcDevice, prop: c_int) -> isize;
    fn rtcSetDeviceMemoryMonitorFunction(
        device: RtcDevice,
        monitor: extern "C" fn(*mut c_void, isize, bool) -> bool,
        user: *mut c_void,
    );
    fn rtcNewScene(device: RtcDevice) -> RtcScene;
    fn rtcReleaseScene(scene: RtcScene);
    fn rtcSetSceneFlags(scene: RtcScene, flags: c_int);
    fn rtcNewGeometry(device: RtcDevice, kind: c_int) -> RtcGeometry;
    fn rtcSetNewGeometryBuffer(
        geometry: RtcGeometry,
        kind: c_int,
        slot: c_uint,
        format: c_int,
        byte_stride: usize,
        item_count: usize,
    ) -> *mut c_void;
    fn rtcCommitGeometry(geometry: RtcGeometry);
    fn rtcAttachGeometry(scene: RtcScene, geometry: RtcGeometry) -> c_uint;
    fn rtcReleaseGeometry(geometry: RtcGeometry);
    fn rtcCommitScene(scene: RtcScene);
    fn rtcIntersect1(scene: RtcScene, context: *mut RtcIntersectContext, rayhit: *mut RtcRayHit);
    fn rtcOccluded1(scene: RtcScene, context: *mut RtcIntersectContext, ray: *mut RtcRay);
    fn rtcIntersect16(
        valid: *const c_int,
        scene: RtcScene,
        context: *mut RtcIntersectContext,
        rayhit: *mut RtcRayHit16,
    );
    fn rtcIntersect1M(
        scene: RtcScene,
        context: *mut RtcIntersectContext,
        rayhit: *mut RtcRayHit,
        m: c_uint,
        byte_stride: usize,
    );
    fn rtcOccluded1M(
        scene: RtcScene,
        context: *mut RtcIntersectContext,
        ray: *mut RtcRay,
        m: c_uint,
        byte_stride: usize,
    );
}

/// The scene flags a benchmark row builds with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SceneFlags {
    /// `RTC_SCENE_FLAG_NONE`: Embree's default, fastest scene.
    Default,
    /// `RTC_SCENE_FLAG_ROBUST`: Embree avoids optimisations that reduce arithmetic accuracy.
    Robust,
}

impl SceneFlags {
    /// The `RTCSceneFlags` value.
    fn raw(self) -> c_int {
        match self {
            SceneFlags::Default => SCENE_FLAG_NONE,
            SceneFlags::Robust => SCENE_FLAG_ROBUST,
        }
    }
}

/// Bytes Embree's allocations hold, as its memory monitor reports them.
static ALLOCATED: AtomicI64 = AtomicI64::new(0);

/// Embree's memory monitor: adds each allocation and subtracts each release; never refuses.
extern "C" fn monitor(_user: *mut c_void, bytes: isize, _post: bool) -> bool {
    ALLOCATED.fetch_add(bytes as i64, Ordering::Relaxed);
    true
}

/// An Embree device: its thread count is fixed by its configuration string.
pub struct Device {
    raw: NonNull<c_void>,
}

// SAFETY: Embree devices are reference-counted objects whose API is thread-safe; the handle is
// only passed to Embree calls.
unsafe impl Send for Device {}
// SAFETY: as above: every call taking the device may be made from any thread.
unsafe impl Sync for Device {}

impl Device {
    /// A device with this configuration ("" for Embree's defaults, "threads=1" for one
    /// build thread, "verbose=2" to print its choices to standard output).
    pub fn new(config: &str) -> Result<Arc<Self>> {
        let config = CString::new(config).context("Embree configuration with a NUL byte")?;
        // SAFETY: `config` is a valid NUL-terminated string that outlives the call.
        let raw = unsafe { rtcNewDevice(config.as_ptr()) };
        let raw = NonNull::new(raw).context("Embree could not create a device")?;
        // SAFETY: the device is live; the monitor is a plain function that touches only an
        // atomic, as Embree calls it from any of its threads, and needs no user pointer.
        unsafe { rtcSetDeviceMemoryMonitorFunction(raw.as_ptr(), monitor, std::ptr::null_mut()) };
        Ok(Arc::new(Self { raw }))
    }

    /// Bytes Embree holds now, across the process's devices (its memory monitor's count:
    /// its buffers and its hierarchies).
    pub fn allocated_bytes() -> i64 {
        ALLOCATED.load(Ordering::Relaxed)
    }

    /// The library's version, e.g. "3.13.5".
    pub fn version(&self) -> String {
        // SAFETY: the device is live; the property is a plain integer query.
        let v = unsafe { rtcGetDeviceProperty(self.raw.as_ptr(), DEVICE_PROPERTY_VERSION) };
        format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
    }

    /// The pending error, as a result.
    fn check(&self, what: &str) -> Result<()> {
        // SAFETY: the device is live.
        let code = unsafe { rtcGetDeviceError(self.raw.as_ptr()) };
        if code != 0 {
            bail!("Embree error {code} while {what}");
        }
        Ok(())
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: this handle owns one reference, released once; scenes hold the device alive
        // through their `Arc`, so none outlives it.
        unsafe { rtcReleaseDevice(self.raw.as_ptr()) }
    }
}

/// A committed scene of one triangle mesh, ready to trace from any thread.
pub struct Scene {
    raw: NonNull<c_void>,
    _device: Arc<Device>,
}

// SAFETY: a committed scene is only read by Embree's ray queries, which are thread-safe; it
// is never modified after `Scene::triangles` returns.
unsafe impl Send for Scene {}
// SAFETY: as above.
unsafe impl Sync for Scene {}

impl Scene {
    /// Copies positions and index triples into Embree's buffers and commits (builds) the
    /// scene with default quality and the given flags.
    pub fn triangles(
        device: &Arc<Device>,
        positions: &[[f32; 3]],
        indices: &[[u32; 3]],
        flags: SceneFlags,
    ) -> Result<Self> {
        let dev = device.raw.as_ptr();
        // SAFETY: the device is live.
        let scene = unsafe { rtcNewScene(dev) };
        let scene = Self {
            raw: NonNull::new(scene).context("Embree could not create a scene")?,
            _device: device.clone(),
        };
        // SAFETY: the scene is live and not committed yet; the value is a valid
        // `RTCSceneFlags` combination.
        unsafe { rtcSetSceneFlags(scene.raw.as_ptr(), flags.raw()) };
        // SAFETY: the device is live; the type is a valid `RTCGeometryType`.
        let geometry = unsafe { rtcNewGeometry(dev, GEOMETRY_TYPE_TRIANGLE) };
        if geometry.is_null() {
            device.check("creating a geometry")?;
            bail!("Embree could not create a geometry");
        }
        // SAFETY: the geometry is live; Embree allocates `positions.len()` items of
        // `VERTEX_STRIDE` bytes (and pads the buffer for its 16-byte loads).
        let vertices = unsafe {
            rtcSetNewGeometryBuffer(
                geometry,
                BUFFER_TYPE_VERTEX,
                0,
                FORMAT_FLOAT3,
                VERTEX_STRIDE,
                positions.len(),
            )
        } as *mut [f32; 4];
        // SAFETY: the geometry is live; `indices.len()` items of 12 bytes.
        let triangles = unsafe {
            rtcSetNewGeometryBuffer(
                geometry,
                BUFFER_TYPE_INDEX,
                0,
                FORMAT_UINT3,
                size_of::<[u32; 3]>(),
                indices.len(),
            )
        } as *mut [u32; 3];
        if vertices.is_null() || triangles.is_null() {
            // SAFETY: the geometry is live and not attached; this releases our reference.
            unsafe { rtcReleaseGeometry(geometry) };
            device.check("allocating buffers")?;
            bail!("Embree could not allocate the mesh buffers");
        }
        // SAFETY: Embree returned buffers of exactly these item counts and strides, aligned
        // for f32/u32 (16 bytes), that nothing else references yet.
        let (vertex_buffer, index_buffer) = unsafe {
            (
                std::slice::from_raw_parts_mut(vertices, positions.len()),
                std::slice::from_raw_parts_mut(triangles, indices.len()),
            )
        };
        for (dst, &[x, y, z]) in vertex_buffer.iter_mut().zip(positions) {
            *dst = [x, y, z, 0.0];
        }
        index_buffer.copy_from_slice(indices);
        // SAFETY: the geometry and scene are live; attaching takes a reference, so releasing
        // ours afterwards leaves the scene owning it. Committing the scene builds it.
        unsafe {
            rtcCommitGeometry(geometry);
            rtcAttachGeometry(scene.raw.as_ptr(), geometry);
            rtcReleaseGeometry(geometry);
            rtcCommitScene(scene.raw.as_ptr());
        }
        device.check("building the scene")?;
        Ok(scene)
    }

    /// The closest hit's distance (`rtcIntersect1`).
    #[inline]
    pub fn intersect(&self, origin: [f32; 3], dir: [f32; 3], t_max: f32) -> Option<f32> {
        let mut rayhit = ray_hit(origin, dir, t_max);
        let mut context = RtcIntersectContext::new(false);
        // SAFETY: the scene is committed; context and ray-hit are valid, aligned structs of
        // the header's layout that live across the call.
        unsafe { rtcIntersect1(self.raw.as_ptr(), &mut context, &mut rayhit) };
        (rayhit.hit.geom_id != INVALID_GEOMETRY_ID).then_some(rayhit.ray.tfar)
    }

    /// Whether anything is hit (`rtcOccluded1`, which sets `tfar` to -inf on a hit).
    #[inline]
    pub fn occluded(&self, origin: [f32; 3], dir: [f32; 3], t_max: f32) -> bool {
        let mut ray = ray(origin, dir, t_max);
        let mut context = RtcIntersectContext::new(false);
        // SAFETY: as in `intersect`.
        unsafe { rtcOccluded1(self.raw.as_ptr(), &mut context, &mut ray) };
        ray.tfar == f32::NEG_INFINITY
    }

    /// Closest hits of a stream of rays in one `rtcIntersect1M` call (incoherent context), in
    /// the order of `rays`. The rays are first written to an array of `RTCRayHit`s, as Embree
    /// takes them.
    ///
    /// # Panics
    /// If there are more than `u32::MAX` rays.
    pub fn intersect1m(
        &self,
        rays: impl IntoIterator<Item = PacketRay>,
    ) -> impl Iterator<Item = Option<f32>> {
        let mut stream: Vec<RtcRayHit> = rays
            .into_iter()
            .map(|(origin, dir, t_max)| ray_hit(origin, dir, t_max))
            .collect();
        let m = c_uint::try_from(stream.len()).expect("at most u32::MAX rays per stream");
        let mut context = RtcIntersectContext::new(false);
        // SAFETY: the scene is committed; `stream` holds `m` ray-hits of the header's layout,
        // 16-byte aligned (`Vec` keeps its element's alignment) and `size_of::<RtcRayHit>()`
        // apart, and with the context it lives across the call.
        unsafe {
            rtcIntersect1M(
                self.raw.as_ptr(),
                &mut context,
                stream.as_mut_ptr(),
                m,
                size_of::<RtcRayHit>(),
            )
        };
        stream
            .into_iter()
            .map(|rayhit| (rayhit.hit.geom_id != INVALID_GEOMETRY_ID).then_some(rayhit.ray.tfar))
    }

    /// Whether each of a stream of rays hits anything, in one `rtcOccluded1M` call
    /// (incoherent context), in the order of `rays`. The rays are first written to an array of
    /// `RTCRay`s, as Embree takes them.
    ///
    /// # Panics
    /// If there are more than `u32::MAX` rays.
    pub fn occluded1m(
        &self,
        rays: impl IntoIterator<Item = PacketRay>,
    ) -> impl Iterator<Item = bool> {
        let mut stream: Vec<RtcRay> = rays
            .into_iter()
            .map(|(origin, dir, t_max)| ray(origin, dir, t_max))
            .collect();
        let m = c_uint::try_from(stream.len()).expect("at most u32::MAX rays per stream");
        let mut context = RtcIntersectContext::new(false);
        // SAFETY: as in `intersect1m`, with `m` rays `size_of::<RtcRay>()` apart.
        unsafe {
            rtcOccluded1M(
                self.raw.as_ptr(),
                &mut context,
                stream.as_mut_ptr(),
                m,
                size_of::<RtcRay>(),
            )
        };
        stream.into_iter().map(|ray| ray.tfar == f32::NEG_INFINITY)
    }

    /// Closest hits of up to 16 coherent rays at once (`rtcIntersect16`), written to `out`.
    ///
    /// # Panics
    /// If there are more than 16 rays or `out` is shorter than `rays`.
    pub fn intersect16(&self, rays: &[PacketRay], out: &mut [Option<f32>]) {
        assert!(rays.len() <= 16 && out.len() >= rays.len());
        let mut packet = RtcRayHit16 {
            ray: RtcRay16 {
                org_x: [0.0; 16],
                org_y: [0.0; 16],
                org_z: [0.0; 16],
                tnear: [0.0; 16],
                dir_x: [0.0; 16],
                dir_y: [0.0; 16],
                dir_z: [1.0; 16],
                time: [0.0; 16],
                tfar: [0.0; 16],
                mask: [u32::MAX; 16],
                id: [0; 16],
                flags: [0; 16],
            },
            hit: RtcHit16 {
                ng_x: [0.0; 16],
                ng_y: [0.0; 16],
                ng_z: [0.0; 16],
                u: [0.0; 16],
                v: [0.0; 16],
                prim_id: [INVALID_GEOMETRY_ID; 16],
                geom_id: [INVALID_GEOMETRY_ID; 16],
                inst_id: [[INVALID_GEOMETRY_ID; 16]],
            },
        };
        let mut valid = Valid16([0; 16]);
        for (i, &(origin, dir, t_max)) in rays.iter().enumerate() {
            let r = &mut packet.ray;
            (r.org_x[i], r.org_y[i], r.org_z[i]) = (origin[0], origin[1], origin[2]);
            (r.dir_x[i], r.dir_y[i], r.dir_z[i]) = (dir[0], dir[1], dir[2]);
            r.tfar[i] = t_max;
            r.id[i] = i as c_uint;
            valid.0[i] = -1;
        }
        let mut context = RtcIntersectContext::new(true);
        // SAFETY: the scene is committed; `valid` and `packet` are 64-byte aligned structs of
        // the header's layout, and with the context they live across the call.
        unsafe {
            rtcIntersect16(
                valid.0.as_ptr(),
                self.raw.as_ptr(),
                &mut context,
                &mut packet,
            )
        };
        for (i, slot) in out.iter_mut().enumerate().take(rays.len()) {
            *slot = (packet.hit.geom_id[i] != INVALID_GEOMETRY_ID).then_some(packet.ray.tfar[i]);
        }
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        // SAFETY: this handle owns the scene's one reference; no query runs on it any more.
        unsafe { rtcReleaseScene(self.raw.as_ptr()) }
    }
}

/// An `RTCRayHit` of [`ray`] and no hit yet (`geomID` and `instID` invalid).
#[inline]
fn ray_hit(origin: [f32; 3], dir: [f32; 3], t_max: f32) -> RtcRayHit {
    RtcRayHit {
        ray: ray(origin, dir, t_max),
        hit: RtcHit {
            geom_id: INVALID_GEOMETRY_ID,
            inst_id: [INVALID_GEOMETRY_ID],
            ..RtcHit::default()
        },
    }
}

/// An `RTCRay` from `tnear` = 0 to `t_max`, seen by every geometry (mask all ones).
#[inline]
fn ray(origin: [f32; 3], dir: [f32; 3], t_max: f32) -> RtcRay {
    RtcRay {
        org_x: origin[0],
        org_y: origin[1],
        org_z: origin[2],
        tnear: 0.0,
        dir_x: dir[0],
        dir_y: dir[1],
        dir_z: dir[2],
        time: 0.0,
        tfar: t_max,
        mask: u32::MAX,
        id: 0,
        flags: 0,
    }
}
