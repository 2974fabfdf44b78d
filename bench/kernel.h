// Plain-C baselines of the benchmark family: the minimal kernel (the practical speed limit of this
// machine for the work) and the O(N^2) brute force. Both step the same crowd as the engine with
// uniform parameters and nothing else: no handles, no per-agent parameters, no profiling beyond
// two timers and a candidate count.
#ifndef BENCH_KERNEL_H
#define BENCH_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void* bench_alloc_fn(size_t size, size_t align, void* user);
typedef void bench_free_fn(void* ptr, size_t size, void* user);

// A starting crowd and its uniform parameters. The arrays are copied by the create functions.
typedef struct bench_crowd_def {
    int n;
    const float *px, *py, *vx, *vy;
    const float *gx, *gy; // seek targets, NULL = no seek
    float dt, cell, max_speed, max_force, sep_radius, cone_length, cone_width;
    bool cone; // brake the seek speed for the closest agent in the forward cone
    int threads;
    bench_alloc_fn* alloc;
    bench_free_fn* free;
    void* alloc_user;
} bench_crowd_def;

typedef struct bench_profile {
    double sort_ms;  // kernel: bounding box, counting sort and scatter into cell order
    double fused_ms; // neighbor pass with seek, braking and integration fused in
    uint64_t candidates;
} bench_profile;

typedef struct bench_kernel bench_kernel;
bench_kernel* bench_kernel_create(const bench_crowd_def* def); // NULL when out of memory
void bench_kernel_step(bench_kernel* k);
bench_profile bench_kernel_profile(const bench_kernel* k);
void bench_kernel_positions(const bench_kernel* k, float* x, float* y); // in the kernel's order
void bench_kernel_destroy(bench_kernel* k);

typedef struct bench_brute bench_brute;
bench_brute* bench_brute_create(const bench_crowd_def* def);
void bench_brute_step(bench_brute* b);
bench_profile bench_brute_profile(const bench_brute* b);
void bench_brute_positions(const bench_brute* b, float* x, float* y); // in input order
void bench_brute_destroy(bench_brute* b);

#ifdef __cplusplus
}
#endif

#endif
