// The OpenMP calls the library makes, for a build without OpenMP (the WebAssembly build of
// tools/web.sh): one thread. Compiled with -fopenmp-simd, the `omp simd` loops keep their
// meaning and the other directives are ignored; the library never opens a team on one thread
// (src/core/team.h), so it runs the same code as a native one-thread world.
#ifndef CROWD_WEB_OMP_H
#define CROWD_WEB_OMP_H

#include <time.h>

static inline int omp_get_thread_num(void) {
    return 0;
}
static inline int omp_get_num_threads(void) {
    return 1;
}
static inline int omp_get_num_procs(void) {
    return 1;
}
static inline int omp_get_max_threads(void) {
    return 1;
}

static inline double omp_get_wtime(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

#endif
