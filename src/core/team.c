// The one place the library opens OpenMP parallel regions.
//
// A step opens one region (cs_team_session): its thread 0 runs the step, and the other threads
// wait at a barrier for the passes' cs_team_run calls and run their share, instead of a region
// being opened and closed for every pass. The session is found through a thread-local pointer,
// set on the stepping thread for the duration of the session only: two worlds stepped at the same
// time on two threads never see each other's session.
#include "core/team.h"

#include <omp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cs_team {
    int nt;
    cs_team_fn* fn; // the posted work (NULL: the session ends), read after a barrier
    void* ctx;
} cs_team;

static _Thread_local cs_team* session;

static void barrier(void);

// The waiting threads meet the stepping thread at a barrier to take the posted work and at
// another once it is done; the runtime's barrier spins briefly, then sleeps.
static void worker(cs_team* team, int t) {
    for (;;) {
        barrier();
        if (!team->fn) return;
        team->fn(team->ctx, t, team->nt);
        barrier();
    }
}

// The OpenMP constructs live in functions of their own: clang fetches the thread's runtime id at
// the entry of any function holding one, which registers a thread the runtime has not seen.
static __attribute__((noinline)) void run_parallel(int threads, cs_team_fn* fn, void* ctx) {
#pragma omp parallel num_threads(threads)
    fn(ctx, omp_get_thread_num(), omp_get_num_threads());
}

static __attribute__((noinline)) void run_session(int threads, cs_team* team, void (*body)(void*),
                                                  void* ctx) {
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0) {
            cs_team* outer = session;
            team->nt = nt;
            session = nt > 1 ? team : NULL;
            body(ctx);
            session = outer;
            team->fn = NULL;
            barrier();
        } else {
            worker(team, t);
        }
    }
}

static __attribute__((noinline)) void barrier(void) {
#pragma omp barrier
}

void cs_team_session(int threads, void (*body)(void*), void* ctx) {
    if (threads <= 1) {
        body(ctx);
        return;
    }
    cs_team team = {0};
    run_session(threads, &team, body, ctx);
}

void cs_team_run(int threads, cs_team_fn* fn, void* ctx) {
    cs_team* team = session;
    if (threads <= 1) {
        fn(ctx, 0, 1);
    } else if (team && threads >= team->nt) {
        team->fn = fn;
        team->ctx = ctx;
        barrier();
        fn(ctx, 0, team->nt);
        barrier();
    } else if (team) {
        // Fewer threads than the session's (work whose scratch serves fewer): alone on this
        // thread rather than in a nested region; results do not depend on the thread count.
        fn(ctx, 0, 1);
    } else {
        run_parallel(threads, fn, ctx);
    }
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
