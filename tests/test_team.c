// Work sharing between a pass's threads (cs_team_work): every item is taken exactly once, in
// aligned chunks, each thread starting on its own share and helping with the others' from their
// back, also when fewer threads take than the work was made for; and through real OpenMP teams.
#include <stdatomic.h>
#include <stdlib.h>

#include "core/team.h"
#include "world_helpers.h"

// Takes every chunk with `takers` threads (of the `threads` the work was made for) in a random
// order of turns; checks coverage, sizes and alignment. Returns the chunks taken off another
// thread's share.
static int take_all(int n, int threads, int align, int takers, uint64_t seed) {
    cs_team_work q;
    cs_team_work_init(&q, n, threads, align);
    unsigned char* seen = calloc((size_t)n + 1, 1);
    uint64_t rng = seed;
    bool done[CS_MAX_THREADS] = {0};
    bool started[CS_MAX_THREADS] = {0};
    int left = takers, stolen = 0;
    while (left > 0) {
        const int t = (int)(rng_next(&rng) % (uint64_t)takers);
        if (done[t]) continue;
        int lo, hi;
        if (!cs_team_work_take(&q, t, &lo, &hi)) {
            done[t] = true;
            left--;
            continue;
        }
        cr_assert(lo >= 0 && lo < hi && hi <= n, "n %d: chunk [%d, %d)", n, lo, hi);
        cr_assert_eq(lo % align, 0, "n %d align %d: chunk at %d", n, align, lo);
        cr_assert(hi - lo == q.chunk || hi == n, "n %d: chunk [%d, %d) of %d", n, lo, hi, q.chunk);
        // A thread's own share is its contiguous part of the chunks, in thread order.
        const int64_t chunks = (n + q.chunk - 1) / q.chunk, c = lo / q.chunk;
        const int64_t own_first = t < q.shares ? chunks * t / q.shares : -1,
                      own_end = t < q.shares ? chunks * (t + 1) / q.shares : -1;
        const bool own = c >= own_first && c < own_end;
        // The first chunk a thread takes is the front of its share, when its share has any left.
        if (!started[t] && t < q.shares && own) cr_assert_eq(c, own_first);
        started[t] = true;
        stolen += !own;
        for (int i = lo; i < hi; ++i) {
            cr_assert_eq(seen[i], 0, "item %d taken twice (n %d, threads %d)", i, n, threads);
            seen[i] = 1;
        }
    }
    for (int i = 0; i < n; ++i)
        cr_assert_eq(seen[i], 1, "item %d never taken (n %d, threads %d, takers %d)", i, n, threads,
                     takers);
    free(seen);
    return stolen;
}

Test(team, every_item_is_taken_once_in_aligned_chunks) {
    const int sizes[] = {0, 1, 7, 255, 256, 1000, 10007, 100000};
    const int counts[] = {1, 2, 3, 8};
    const int aligns[] = {1, 8, 64};
    for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 3; ++c) {
                const int threads = counts[b];
                take_all(sizes[a], threads, aligns[c], threads, 11u + (uint64_t)a * 97 + b);
                // A team smaller than asked for (the runtime may give fewer threads).
                if (threads > 1) take_all(sizes[a], threads, aligns[c], 1, 5u + (uint64_t)a);
            }
}

Test(team, one_thread_takes_everything_as_one_chunk) {
    cs_team_work q;
    cs_team_work_init(&q, 100000, 1, 64);
    int lo, hi;
    cr_assert(cs_team_work_take(&q, 0, &lo, &hi));
    cr_assert_eq(lo, 0);
    cr_assert_eq(hi, 100000);
    cr_assert_not(cs_team_work_take(&q, 0, &lo, &hi));
}

// A thread done with its share takes the other's chunks from the back, while the owner goes on
// from the front: the two meet without a chunk taken twice.
Test(team, a_thread_done_early_helps_from_the_back) {
    cs_team_work q;
    cs_team_work_init(&q, 100000, 2, 64);
    const int chunks = (100000 + q.chunk - 1) / q.chunk, half = chunks / 2;
    cr_assert_geq(chunks, 16);
    int lo, hi;
    for (int k = half; k < chunks; ++k) { // thread 1 works through its share
        cr_assert(cs_team_work_take(&q, 1, &lo, &hi));
        cr_assert_eq(lo, k * q.chunk);
    }
    cr_assert(cs_team_work_take(&q, 0, &lo, &hi)); // thread 0 has started on its own
    cr_assert_eq(lo, 0);
    cr_assert(cs_team_work_take(&q, 1, &lo, &hi)); // thread 1 now helps from the back
    cr_assert_eq(lo, (half - 1) * q.chunk);
    cr_assert_gt(take_all(100000, 2, 64, 2, 3) + take_all(10000, 8, 64, 8, 4), 0);
}

// Marks its chunk's items and returns how many it marked.
static uint64_t mark_chunk(void* arg, int lo, int hi) {
    atomic_int* hits = arg;
    for (int i = lo; i < hi; ++i) atomic_fetch_add(&hits[i], 1);
    return (uint64_t)(hi - lo);
}

// Real OpenMP teams through cs_team_run_chunks, also of more threads than the machine has cores:
// every item once, and the returned sum counts each item once.
Test(team, teams_take_every_item_once) {
    enum { N = 200003 };
    atomic_int* hits = malloc(sizeof(atomic_int) * N);
    const int teams[] = {1, 2, 3, 8};
    for (int k = 0; k < 4; ++k)
        for (int rep = 0; rep < 20; ++rep) {
            for (int i = 0; i < N; ++i) atomic_init(&hits[i], 0);
            cr_assert_eq(cs_team_run_chunks(teams[k], N, 8, mark_chunk, hits), (uint64_t)N);
            for (int i = 0; i < N; ++i)
                cr_assert_eq(atomic_load(&hits[i]), 1, "team %d: item %d", teams[k], i);
        }
    cr_assert_eq(cs_team_run_chunks(2, 0, 8, mark_chunk, hits), 0u);
    free(hits);
}
