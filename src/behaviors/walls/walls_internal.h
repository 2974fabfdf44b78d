// Walls behavior internals: the per-agent wall def record, the behavior's world state, its passes
// and table hooks. The obstacles themselves are world geometry (src/walls/).
#ifndef CS_WALLS_INTERNAL_H
#define CS_WALLS_INTERNAL_H

#include "core/internal.h"

// The behavior's world state (w->state[CS_BEH_WALLS]).
typedef struct cs_walls_world {
    float look_ahead_max; // the largest look-ahead any agent has had: bounds the force's query
} cs_walls_world;

static inline cs_walls_world* cs_walls_world_of(const crowd_world* w) {
    return w->state[CS_BEH_WALLS];
}

// The wall def of the agent in slot s: a parameter profile (CS_PROF_WALL, its number + 1 in the
// hot column CS_HOT_WALL_PROFILE) for a def other than crowd_wall_def_default(), else NULL.
static inline const crowd_wall_def* cs_wall_def_at(const crowd_world* w, int s) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_WALL_PROFILE);
    return prof && prof[s] ? cs_profiles_at(&w->profiles[CS_PROF_WALL], prof[s] - 1) : NULL;
}

// Reserve first: store then cannot fail. A default def is stored as profile 0.
crowd_status cs_wall_def_check(const crowd_wall_def* d);
crowd_status cs_wall_def_reserve(crowd_world* w, uint32_t idx, const crowd_wall_def* d);
void cs_wall_def_store(crowd_world* w, uint32_t idx, const crowd_wall_def* d);

// How far the clearance pass bounds every agent's probe (read by the force, walls_force.c): the
// longest look-ahead any agent has had, at least the default's. Set with every stored def, and by
// a snapshot load, whose agents with the default def store none.
void cs_walls_probe_time_update(crowd_world* w);

// The slots base + k of the n flags that are set (flags of 0 or 1), in order, into `slot`; returns
// how many. For the few agents a pass works on (beside a wall): 8 flags are read as one word and
// skipped together when none is set.
static inline int cs_walls_flagged(const uint8_t* flag, int n, int base, int* slot) {
    int m = 0, k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t word;
        memcpy(&word, flag + k, sizeof word);
        if (!word) continue;
        for (int j = 0; j < 8; ++j) {
            slot[m] = base + k + j;
            m += flag[k + j];
        }
    }
    for (; k < n; ++k) {
        slot[m] = base + k;
        m += flag[k];
    }
    return m;
}

// The force and the clamp work on few agents far apart, chunk by chunk, and each reads lines
// nothing else fetched: its columns by sorted slot, its radius by agent index, its cell's entry in
// the direct index and, through that entry, its cell's list. The entry and the list are chained
// (the list's place is in the entry), so they are fetched a chunk apart: with chunk t + 2's
// candidates found and their columns fetched (the pass's own `find`), chunk t + 1's cells are
// worked out from the positions fetched a chunk ago and their entries and radii fetched
// (cs_walls_fetch_entries), and chunk t's lists are fetched from the entries
// (cs_walls_fetch_lists) before chunk t is worked on (cs_walls_pipe). Fetched one step before use,
// the entry's miss stalled half of the force pass's own time.

// The direct index entries of the cells of (px, py) for the m slots (-1 outside the index, or
// without one), into `entry`; fetches them and the agents' radii.
static inline void cs_walls_fetch_entries(const crowd_world* w, const float* px, const float* py,
                                          const int* slot, int m, int32_t* entry) {
    const cs_walls* g = &w->walls;
    for (int i = 0; i < m; ++i) {
        const int s = slot[i];
        __builtin_prefetch(&w->radius[w->cur.id[s]]);
        const cs_wall_ref* r = g->dir ? cs_walls_dir_at(g, cs_cell_coord(px[s], g->inv_cell),
                                                        cs_cell_coord(py[s], g->inv_cell))
                                      : NULL;
        entry[i] = r ? (int32_t)(r - g->dir) : -1;
        if (r) __builtin_prefetch(r);
    }
}

// Fetches the first line of the lists of the entries found by cs_walls_fetch_entries (without a
// direct index, looked up in the table from (px, py)).
static inline void cs_walls_fetch_lists(const crowd_world* w, const float* px, const float* py,
                                        const int* slot, int m, const int32_t* entry) {
    const cs_walls* g = &w->walls;
    for (int i = 0; i < m; ++i) {
        if (entry[i] >= 0)
            __builtin_prefetch(g->segs + g->dir[entry[i]].start);
        else if (!g->dir) // (a cell outside the index has no list)
            __builtin_prefetch(g->segs + cs_walls_list_at(g, px[slot[i]], py[slot[i]]).start);
    }
}

// The slots of the chunk of `chunk` agents from b (none past hi) that a pass works on, into
// `slot`, with their columns fetched; returns how many.
typedef int cs_walls_find_fn(const crowd_world* w, const void* arg, int b, int hi, int* slot);

// Most agents in a chunk of the pipeline.
#define CS_WALLS_PIPE_CHUNK 512

// The three stages above over the chunks lo, lo + chunk, ... of [lo, hi), the agents' cells
// taken from (px, py): cs_walls_pipe_start, then cs_walls_pipe_next for each chunk in order.
typedef struct cs_walls_pipe {
    const crowd_world* w;
    const float *px, *py;
    cs_walls_find_fn* find;
    const void* arg; // find's
    int hi, chunk, t;
    int slot[3][CS_WALLS_PIPE_CHUNK], count[3];
    int32_t entry[3][CS_WALLS_PIPE_CHUNK];
} cs_walls_pipe;

static inline __attribute__((always_inline)) void
cs_walls_pipe_start(cs_walls_pipe* p, const crowd_world* w, const float* px, const float* py,
                    cs_walls_find_fn* find, const void* arg, int lo, int hi, int chunk) {
    p->w = w, p->px = px, p->py = py, p->find = find, p->arg = arg;
    p->hi = hi, p->chunk = chunk, p->t = 0;
    p->count[0] = find(w, arg, lo, hi, p->slot[0]);
    p->count[1] = find(w, arg, lo + chunk, hi, p->slot[1]);
    cs_walls_fetch_entries(w, px, py, p->slot[0], p->count[0], p->entry[0]);
}

// The slots of the chunk from b into *slot, their lists fetched, as the next two chunks' slots
// are found and the next one's entries fetched; returns how many.
static inline __attribute__((always_inline)) int cs_walls_pipe_next(cs_walls_pipe* p, int b,
                                                                    const int** slot) {
    const int t = p->t, t1 = t == 2 ? 0 : t + 1, t2 = t1 == 2 ? 0 : t1 + 1;
    p->count[t2] = p->find(p->w, p->arg, b + 2 * p->chunk, p->hi, p->slot[t2]);
    cs_walls_fetch_entries(p->w, p->px, p->py, p->slot[t1], p->count[t1], p->entry[t1]);
    cs_walls_fetch_lists(p->w, p->px, p->py, p->slot[t], p->count[t], p->entry[t]);
    p->t = t1;
    *slot = p->slot[t];
    return p->count[t];
}

// Passes: the force in CROWD_PHASE_WALLS (walls_force.c), the clamp in CROWD_PHASE_CLAMP
// (walls_clamp.c).
void cs_pass_walls(crowd_world* w);
void cs_pass_clamp(crowd_world* w);

// Table hooks (walls_agent.c).
void cs_walls_def_default(crowd_agent_def* def);
crowd_status cs_walls_check_def(const crowd_agent_def* def);
crowd_status cs_walls_add_reserve(crowd_world* w, const crowd_agent_def* def);
void cs_walls_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def);
crowd_status cs_walls_world_reserve(crowd_world* w, int agents);
void cs_walls_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out);
uint64_t cs_walls_hash(const crowd_world* w, uint32_t idx, uint64_t h);

#endif
