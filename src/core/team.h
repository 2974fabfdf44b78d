// How a pass spreads over threads without depending on the OpenMP runtime when it has only one.
//
// cs_team_run runs fn(ctx, t, nt) once on each thread of an OpenMP team of up to `threads`
// threads, or, with one thread, as a plain call fn(ctx, 0, 1) on the calling thread. A bare
// `#pragma omp parallel if (threads > 1)` is not that: libgomp still builds (mallocs) and frees a
// one-thread team for every region and libomp a serialized team, and both register the calling
// thread with the runtime. Inside fn, work is split with cs_team_range, never with worksharing
// constructs (libomp's `omp for` allocates per region), and threads meet at cs_team_barrier.
// With these rules a step on one thread makes no OpenMP call at all and a step on a team
// allocates nothing once the team exists. One caveat is the runtime's: a thread that alternately
// steps worlds with different thread counts makes it rebuild its team (libomp allocates then), so
// such worlds are best stepped from threads of their own or given the same count.
#ifndef CS_TEAM_H
#define CS_TEAM_H

#include "crowd/base.h"

// Most threads a world uses (a larger crowd_world_def.threads is refused, and 0 = all cores is
// capped at it). Passes size their per-thread arrays by it.
#define CS_MAX_THREADS CROWD_MAX_THREADS

typedef void cs_team_fn(void* ctx, int t, int nt);

void cs_team_run(int threads, cs_team_fn* fn, void* ctx);

// Thread t's share [lo, hi) of n items out of nt: contiguous ranges in thread order, aligned to
// `align` items (so vector loops start on whole chunks).
void cs_team_range(int n, int align, int t, int nt, int* lo, int* hi);

// A barrier of the team running fn; nothing when nt == 1.
void cs_team_barrier(int nt);

#endif
