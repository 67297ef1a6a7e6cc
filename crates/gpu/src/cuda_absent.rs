//! The CUDA back end's place when the crate is built without the `cuda` feature: no value of
//! these types exists, so every query goes through wgpu.

use std::time::Duration;

use meshcast_primitives::Ray;

use crate::error::{Error, Result};
use crate::kernel::{Backend, BACKEND_VARIABLE};
use crate::layout::Layout;
use crate::rays::RaySource;

/// The queries the CUDA kernel answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Closest,
    Any,
}

/// No CUDA back end.
pub(crate) enum Cuda {}

impl Cuda {
    /// `None` for wgpu and [`Backend::Auto`], an error for the CUDA back ends.
    pub(crate) fn open(backend: Backend) -> Result<Option<Self>> {
        match backend {
            Backend::Auto | Backend::Wgpu => Ok(None),
            Backend::Cuda | Backend::CudaHost => Err(Error::NoGpu {
                reason: format!("{BACKEND_VARIABLE}: meshcast-gpu was built without `cuda`"),
            }),
        }
    }

    pub(crate) fn name(&self) -> String {
        match *self {}
    }

    pub(crate) fn upload(&self, _: &Layout) -> Result<CudaMesh> {
        match *self {}
    }
}

/// No mesh on a CUDA device.
pub(crate) enum CudaMesh {}

/// No rays on a CUDA device.
pub(crate) enum CudaRays {}

impl CudaMesh {
    pub(crate) fn bytes(&self) -> u64 {
        match *self {}
    }

    pub(crate) fn resident(&self, _: &[Ray]) -> Result<CudaRays> {
        match *self {}
    }

    pub(crate) fn time(&self, _: &CudaRays, _: Mode, _: usize) -> Result<Duration> {
        match *self {}
    }

    pub(crate) fn stream(
        &self,
        _: Mode,
        _: &dyn RaySource,
        _: usize,
        _: impl FnMut(usize, &[[u32; 4]], &[u32]),
    ) -> Result<()> {
        match *self {}
    }
}
