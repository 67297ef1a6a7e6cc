// The harness of the GPU diagnosis (BENCHMARKS.md, "Where the GPU's time goes"): the CUDA
// back end's kernel (crates/gpu/src/cuda/kernel.cu, trace.wgsl's traversal line for line)
// compiled by nvcc and timed with CUDA events on the same nodes, triangles and rays as the
// wgpu kernel reads (`kernel_inputs` example, `--write`); every answer checked against the
// CPU's (a ray not flagged must name the CPU's triangle, t within the kernel's bound). Only
// the closest and any-hit kernels, in the default distance order. The kernel's variants
// (`-DLITERAL`, `-DSHARED_STACK`, `-DSTACK_SIZE=N`, `-DWORKGROUP=N`) are described there.
//
// Not part of the build: `run.sh` compiles it on the GPU machine (nvcc), and it compiles as
// plain C++ too (`g++ -O2 -x c++ trace.cu`), which runs the same code on the CPU.
//
//     trace_cuda DIR NAME REPEAT    (DIR holds nodes.bin, triangles.bin, ids.bin, SET.*)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <string>
#include <vector>
#include <chrono>

// The kernel itself: the CUDA back end's, one source for both.
#include "../../crates/gpu/src/cuda/kernel.cu"

#ifdef __CUDACC__
template <u32 MODE>
__global__ void __launch_bounds__(WORKGROUP) trace_kernel(Buffers b) {
    u32 index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= b.ray_count) return;
    trace_ray<MODE>(b, index);
}

#define CHECK(call)                                                                   \
    do {                                                                              \
        cudaError_t e = (call);                                                       \
        if (e != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)
#endif

static std::vector<char> read_file(const std::string& path) {
    FILE* f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path.c_str());
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    std::vector<char> data(size > 0 ? size : 1);
    if (size > 0 && fread(data.data(), 1, size, f) != (size_t)size) exit(1);
    fclose(f);
    data.resize(size);
    return data;
}

struct Times {
    // CUDA events around the kernel alone.
    double kernel;
    // Launch to synchronisation on the host's clock, as the wgpu side is timed (submission
    // to completion).
    double wall;
};

// Runs `MODE` over the rays `repeat` times; the best of each time, in seconds.
template <u32 MODE>
static Times run(const Buffers& b, int repeat) {
    Times best = {1e30, 1e30};
#ifdef __CUDACC__
    u32 blocks = (b.ray_count + WORKGROUP - 1) / WORKGROUP;
    trace_kernel<MODE><<<blocks, WORKGROUP>>>(b);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < repeat; i++) {
        auto wall_start = std::chrono::steady_clock::now();
        CHECK(cudaEventRecord(start));
        trace_kernel<MODE><<<blocks, WORKGROUP>>>(b);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (ms * 1e-3 < best.kernel) best.kernel = ms * 1e-3;
        if (wall < best.wall) best.wall = wall;
    }
#else
    for (int i = 0; i < repeat; i++) {
        auto start = std::chrono::steady_clock::now();
        for (u32 index = 0; index < b.ray_count; index++) trace_ray<MODE>(b, index);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s < best.kernel) best.kernel = best.wall = s;
    }
#endif
    return best;
}

template <typename T>
static T* to_device(const std::vector<char>& bytes) {
#ifdef __CUDACC__
    void* p = nullptr;
    CHECK(cudaMalloc(&p, bytes.size() > 0 ? bytes.size() : 16));
    CHECK(cudaMemcpy(p, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
    return (T*)p;
#else
    char* p = (char*)malloc(bytes.size() > 0 ? bytes.size() : 16);
    memcpy(p, bytes.data(), bytes.size());
    return (T*)p;
#endif
}

template <typename T>
static T* output(size_t count) {
#ifdef __CUDACC__
    void* p = nullptr;
    CHECK(cudaMalloc(&p, count * sizeof(T)));
    return (T*)p;
#else
    return (T*)malloc(count * sizeof(T));
#endif
}

template <typename T>
static std::vector<T> to_host(const T* p, size_t count) {
    std::vector<T> out(count);
#ifdef __CUDACC__
    CHECK(cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost));
#else
    memcpy(out.data(), p, count * sizeof(T));
#endif
    return out;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: trace_cuda DIR NAME REPEAT\n");
        return 2;
    }
    std::string dir = argv[1];
    std::string name = argv[2];
    int repeat = atoi(argv[3]);
    std::vector<char> ids_bytes = read_file(dir + "/ids.bin");
    std::vector<u32> ids(ids_bytes.size() / 4);
    memcpy(ids.data(), ids_bytes.data(), ids_bytes.size());
    Buffers b;
    b.nodes = to_device<Node>(read_file(dir + "/nodes.bin"));
    b.tris = to_device<float>(read_file(dir + "/triangles.bin"));
    const char* sets[2] = {"random", "camera"};
    int failures = 0;
    for (const char* set : sets) {
        std::string base = dir + "/" + set;
        std::vector<char> rays = read_file(base + ".rays");
        u32 count = (u32)(rays.size() / sizeof(RayIn));
        b.ray_count = count;
        b.rays = to_device<RayIn>(rays);
        b.hits = output<Hit4>(count);
        b.counts = output<u32>(count);
        std::vector<char> closest = read_file(base + ".closest");
        std::vector<char> any = read_file(base + ".any");

        Times times = run<MODE_CLOSEST>(b, repeat);
        std::vector<Hit4> hits = to_host(b.hits, count);
        u32 flagged = 0, wrong = 0, found = 0;
        for (u32 i = 0; i < count; i++) {
            u32 cpu_triangle;
            float cpu_t;
            memcpy(&cpu_triangle, &closest[8 * (size_t)i], 4);
            memcpy(&cpu_t, &closest[8 * (size_t)i + 4], 4);
            const Hit4& h = hits[i];
            if (h.w == FLAGGED) {
                flagged++;
            } else if (h.w == NO_TRIANGLE) {
                wrong += cpu_triangle != NO_TRIANGLE;
            } else {
                float t;
                memcpy(&t, &h.x, 4);
                bool same = h.w < ids.size() && ids[h.w] == cpu_triangle
                    && fabsf(t - cpu_t) <= T_REPORT_BOUND * fabsf(cpu_t);
                wrong += !same;
                found++;
            }
        }
        printf("cuda %s %s closest %.1f wall %.1f hits %u flagged %u wrong %u of %u\n", name.c_str(), set,
               count / times.kernel / 1e6, count / times.wall / 1e6, found, flagged, wrong, count);
        failures += wrong != 0;

        times = run<MODE_ANY>(b, repeat);
        std::vector<u32> counts = to_host(b.counts, count);
        flagged = 0;
        wrong = 0;
        found = 0;
        for (u32 i = 0; i < count; i++) {
            if (counts[i] == 2u) {
                flagged++;
            } else {
                wrong += counts[i] != (u32)any[i];
                found += counts[i];
            }
        }
        printf("cuda %s %s any %.1f wall %.1f hits %u flagged %u wrong %u of %u\n", name.c_str(), set,
               count / times.kernel / 1e6, count / times.wall / 1e6, found, flagged, wrong, count);
        failures += wrong != 0;
        fflush(stdout);
#ifdef __CUDACC__
        CHECK(cudaFree((void*)b.rays));
        CHECK(cudaFree(b.hits));
        CHECK(cudaFree(b.counts));
#endif
    }
    return failures == 0 ? 0 : 1;
}
