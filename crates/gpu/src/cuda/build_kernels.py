#!/usr/bin/env python3
"""Remakes the kernels the CUDA back end embeds (`crates/gpu/generated/`, out of `src/`) from `kernel.cu`, with NVRTC:
nvcc's own front end and NVVM optimiser as a library, from NVIDIA's Python wheel, so no CUDA
toolkit and no GPU are needed.

    python3 -m pip install nvidia-cuda-nvrtc-cu12==12.8.93
    python3 crates/gpu/src/cuda/build_kernels.py

What it makes, and why (README, "The CUDA back end"):
- machine code (SASS, a cubin) for each architecture from Turing to Hopper (sm_75, sm_80,
  sm_86, sm_89, sm_90): a cubin made by CUDA 12.x loads on every CUDA 12 or later driver
  (R525 and later: CUDA's minor version compatibility), with no compilation at load time;
- PTX for compute_90, which the driver compiles for later GPUs (Blackwell and after, whose
  drivers are R570 or later and read PTX ISA 8.7, what NVRTC 12.8 writes).

`MANIFEST` names the compiler, the SHA-256 of `kernel.cu`, `shared.h` and `device_rays.cuh` they were made from (a
test compares them with the sources') and of each file. `--verbose` prints ptxas's registers and
spills per kernel and architecture. Set `NVRTC` to a libnvrtc's path to use another.
"""

import ctypes
import glob
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "generated")
CUBINS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
PTX = "compute_90"
WHEEL = "nvidia-cuda-nvrtc-cu12==12.8.93"


def nvrtc():
    path = os.environ.get("NVRTC")
    if not path:
        try:
            import nvidia.cuda_nvrtc as wheel  # noqa: PLC0415 (found where pip put it)
        except ImportError:
            sys.exit(f"no NVRTC: pip install {WHEEL}, or set NVRTC to a libnvrtc.so")
        found = sorted(glob.glob(os.path.join(list(wheel.__path__)[0], "lib", "libnvrtc.so*")))
        found = [f for f in found if ".alt." not in f]
        if not found:
            sys.exit(f"no libnvrtc.so in {wheel.__path__}")
        path = found[0]
    return ctypes.CDLL(path)


def compile_for(lib, source, arch, verbose):
    """The PTX (`compute_*`) or cubin (`sm_*`) of `source` for `arch`."""
    program = ctypes.c_void_p()
    check(lib, lib.nvrtcCreateProgram(ctypes.byref(program), source, b"kernel.cu", 0, None, None))
    options = [f"--gpu-architecture={arch}".encode(), b"--std=c++17", f"--include-path={HERE}".encode()]
    if verbose and arch.startswith("sm_"):
        options.append(b"--ptxas-options=-v")
    array = (ctypes.c_char_p * len(options))(*options)
    status = lib.nvrtcCompileProgram(program, len(options), array)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    if status != 0:
        sys.exit(f"kernel.cu for {arch}:\n{log.value.decode()}")
    if verbose and log.value.strip():
        print(f"{arch}:\n{log.value.decode().strip()}")
    kind = "CUBIN" if arch.startswith("sm_") else "PTX"
    getattr(lib, f"nvrtcGet{kind}Size")(program, ctypes.byref(size))
    image = ctypes.create_string_buffer(size.value)
    check(lib, getattr(lib, f"nvrtcGet{kind}")(program, image))
    lib.nvrtcDestroyProgram(ctypes.byref(program))
    # PTX is text ending in NUL; the driver reads it up to there, and so does the crate.
    return image.raw if kind == "CUBIN" else image.raw.rstrip(b"\0")


def check(lib, status):
    if status != 0:
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        sys.exit(f"NVRTC: {lib.nvrtcGetErrorString(status).decode()}")


def main():
    verbose = "--verbose" in sys.argv
    lib = nvrtc()
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
    sources = {}
    for name in ("kernel.cu", "shared.h", "device_rays.cuh"):
        with open(os.path.join(HERE, name), "rb") as f:
            sources[name] = f.read()
    source = sources["kernel.cu"]
    os.makedirs(OUT, exist_ok=True)
    lines = [f"# Made from kernel.cu, shared.h and device_rays.cuh by build_kernels.py with NVRTC {major.value}.{minor.value}."]
    lines += [f"source {name} {hashlib.sha256(text).hexdigest()}" for name, text in sources.items()]
    for arch in CUBINS + [PTX]:
        name = f"{arch}.cubin" if arch.startswith("sm_") else f"{arch}.ptx"
        image = compile_for(lib, source, arch, verbose)
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(image)
        lines.append(f"{arch} {name} {hashlib.sha256(image).hexdigest()}")
    with open(os.path.join(OUT, "MANIFEST"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
