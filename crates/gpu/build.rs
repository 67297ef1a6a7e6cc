//! With the `host-kernel` feature, builds the CUDA back end's kernel (`src/cuda/kernel.cu`) as
//! host C++, so that the tests run this very source on the CPU.

fn main() {
    println!("cargo:rerun-if-changed=src/cuda/kernel.cu");
    println!("cargo:rerun-if-changed=src/cuda/host_kernel.cpp");
    println!("cargo:rerun-if-changed=src/cuda/shared.h");
    println!("cargo:rerun-if-changed=src/cuda/device_rays.cuh");
    #[cfg(feature = "host-kernel")]
    cc::Build::new()
        .cpp(true)
        .file("src/cuda/host_kernel.cpp")
        .opt_level(2)
        // Rounded as the CPU engine rounds: no product fused into a sum (the CUDA kernel's
        // bounds allow fusion; the host build is held to the CPU bit for bit). The kernel's
        // `#pragma unroll` is nvcc's and clang's.
        .flag_if_supported("-ffp-contract=off")
        .flag_if_supported("-Wno-unknown-pragmas")
        .compile("meshcast_host_kernel");
}
