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

// Chunks per thread: enough that the chunks taken from the back even out the threads' ends, few
// enough that a chunk keeps the passes' fetch-ahead pipelines long.
enum { CHUNKS_PER_THREAD = 16, MIN_CHUNK = 256 };

void cs_team_work_init(cs_team_work* q, int n, int threads, int align) {
    int64_t chunk = n > 0 ? n : 1;
    if (threads > 1) {
        chunk = (int64_t)n / ((int64_t)threads * CHUNKS_PER_THREAD);
        chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk;
        chunk = (chunk + align - 1) / align * align;
    }
    const int64_t chunks = (n + chunk - 1) / chunk;
    q->n = n;
    q->chunk = (int)chunk;
    q->shares = threads > 1 ? threads : 1;
    for (int t = 0; t < q->shares; ++t) {
        const uint64_t first = (uint64_t)(chunks * t / q->shares),
                       end = (uint64_t)(chunks * (t + 1) / q->shares);
        atomic_init(&q->share[t], first << 32 | end);
    }
}

// Chunk index from the front (the owner) or the back (another thread) of share s; -1 when empty.
static int64_t pop(cs_team_work* q, int s, bool front) {
    uint64_t v = atomic_load_explicit(&q->share[s], memory_order_relaxed), next;
    uint32_t first, end;
    do {
        first = (uint32_t)(v >> 32), end = (uint32_t)v;
        if (first >= end) return -1;
        next = front ? (uint64_t)(first + 1) << 32 | end : (uint64_t)first << 32 | (end - 1);
    } while (!atomic_compare_exchange_weak_explicit(&q->share[s], &v, next, memory_order_relaxed,
                                                    memory_order_relaxed));
    return front ? first : end - 1;
}

bool cs_team_work_take(cs_team_work* q, int t, int* lo, int* hi) {
    for (int k = 0; k < q->shares; ++k) {
        const int s = (t + k) % q->shares;
        const int64_t c = pop(q, s, k == 0);
        if (c < 0) continue;
        const int64_t a = c * q->chunk, b = a + q->chunk;
        *lo = (int)a;
        *hi = (int)(b < q->n ? b : q->n);
        return true;
    }
    return false;
}

typedef struct chunks_ctx {
    cs_team_work work;
    cs_chunk_fn* fn;
    void* ctx;
    uint64_t sum[CS_MAX_THREADS];
} chunks_ctx;

static void chunks_team(void* arg, int t, int nt) {
    (void)nt;
    chunks_ctx* x = arg;
    uint64_t sum = 0;
    int lo, hi;
    while (cs_team_work_take(&x->work, t, &lo, &hi)) sum += x->fn(x->ctx, lo, hi);
    x->sum[t] = sum;
}

uint64_t cs_team_run_chunks(int threads, int n, int align, cs_chunk_fn* fn, void* ctx) {
    if (threads <= 1) return n > 0 ? fn(ctx, 0, n) : 0;
    // Not zero-initialized as a whole: the work's shares and the sums are 4 KiB, set here only
    // for the threads the team can have (the runtime may start fewer; their sums stay 0).
    chunks_ctx x;
    x.fn = fn;
    x.ctx = ctx;
    for (int t = 0; t < threads && t < CS_MAX_THREADS; ++t) x.sum[t] = 0;
    cs_team_work_init(&x.work, n, threads, align);
    cs_team_run(threads, chunks_team, &x);
    uint64_t total = 0;
    for (int t = 0; t < threads && t < CS_MAX_THREADS; ++t) total += x.sum[t];
    return total;
}

void cs_team_barrier(int nt) {
    if (nt > 1) barrier();
}
