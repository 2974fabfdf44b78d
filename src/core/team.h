// How a pass spreads over threads without depending on the OpenMP runtime when it has only one.
//
// cs_team_run runs fn(ctx, t, nt) once on each thread of an OpenMP team of up to `threads`
// threads, or, with one thread, as a plain call fn(ctx, 0, 1) on the calling thread. A bare
// `#pragma omp parallel if (threads > 1)` is not that: libgomp still builds (mallocs) and frees a
// one-thread team for every region and libomp a serialized team, and both register the calling
// thread with the runtime. Inside fn, work is split with cs_team_range or cs_team_work (or the
// whole pass run through cs_team_run_chunks), never with worksharing constructs (libomp's
// `omp for` allocates per region), and threads meet at cs_team_barrier.
// With these rules a step on one thread makes no OpenMP call at all and a step on a team
// allocates nothing once the team exists. One caveat is the runtime's: a thread that alternately
// steps worlds with different thread counts makes it rebuild its team (libomp allocates then), so
// such worlds are best stepped from threads of their own or given the same count.
#ifndef CS_TEAM_H
#define CS_TEAM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "crowd/base.h"

// Most threads a world uses (a larger crowd_world_def.threads is refused, and 0 = all cores is
// capped at it). Passes size their per-thread arrays by it.
#define CS_MAX_THREADS CROWD_MAX_THREADS

typedef void cs_team_fn(void* ctx, int t, int nt);

void cs_team_run(int threads, cs_team_fn* fn, void* ctx);

// Thread t's share [lo, hi) of n items out of nt: contiguous ranges in thread order, aligned to
// `align` items (so vector loops start on whole chunks).
void cs_team_range(int n, int align, int t, int nt, int* lo, int* hi);

// Items shared out in chunks for a pass whose cost per item varies across the items (agents in a
// crowded corner or with costly behaviors cost several times those of an empty street) or whose
// threads run at different speeds (a core shared with another process): each thread works
// through its own contiguous share from the front, and a thread done with its share takes chunks
// from the back of the others', so neither thread idles while the other finishes. Threads keep
// their own shares when the work is even, and with them the cache contents the next pass reads.
// Only for a pass whose result for an item depends neither on the thread that computes it nor on
// where its chunk starts or ends.
typedef struct cs_team_work {
    _Atomic uint64_t share[CS_MAX_THREADS]; // thread t's chunks not yet taken: first << 32 | end
    int n, chunk, shares;
} cs_team_work;

// n items for a team of `threads`, in chunks aligned to `align` items.
void cs_team_work_init(cs_team_work* q, int n, int threads, int align);

// Thread t's next chunk [lo, hi); false once every item is taken. A team smaller than the
// `threads` it was made for still takes every chunk.
bool cs_team_work_take(cs_team_work* q, int t, int* lo, int* hi);

// Runs fn(ctx, lo, hi) over [0, n) on a team of up to `threads`, in chunks shared out as above
// (aligned to `align` items), and returns the sum of what fn returned: integers, so the sum is the
// same in any order.
typedef uint64_t cs_chunk_fn(void* ctx, int lo, int hi);
uint64_t cs_team_run_chunks(int threads, int n, int align, cs_chunk_fn* fn, void* ctx);

// A barrier of the team running fn; nothing when nt == 1.
void cs_team_barrier(int nt);

#endif
