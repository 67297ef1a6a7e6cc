// The CUDA back end's kernel (`kernel.cu`) built as plain C++ for the host (feature
// `host-kernel`, `build.rs`): the tests run this very source over the same layout and rays as
// the GPU and hold its answers to the CPU's, on machines with no GPU.
#include "kernel.cu"
