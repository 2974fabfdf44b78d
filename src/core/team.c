// The one place the library opens OpenMP parallel regions.
#include "core/team.h"

#include <omp.h>
#include <stdint.h>

// The OpenMP constructs live in functions of their own: clang fetches the thread's runtime id at
// the entry of any function holding one, which registers a thread the runtime has not seen.
static __attribute__((noinline)) void run_parallel(int threads, cs_team_fn* fn, void* ctx) {
#pragma omp parallel num_threads(threads)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
}

static __attribute__((noinline)) void barrier(void) {
#pragma omp barrier
}

void cs_team_run(int threads, cs_team_fn* fn, void* ctx) {
    if (threads <= 1)
        fn(ctx, 0, 1);
    else
        run_parallel(threads, fn, ctx);
}

void cs_team_range(int n, int align, int t, int nt, int* lo, int* hi) {
    const int64_t chunks = ((int64_t)n + align - 1) / align;
    const int64_t a = chunks * t / nt * align, b = chunks * (t + 1) / nt * align;
    *lo = (int)(a < n ? a : n);
    *hi = (int)(b < n ? b : n);
}

void cs_team_barrier(int nt) {
    if (nt > 1) barrier();
}
