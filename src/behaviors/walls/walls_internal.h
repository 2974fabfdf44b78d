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

// The agent's wall def record (kept only for a def other than crowd_wall_def_default()).
static inline crowd_wall_def* cs_wall_def_of(const crowd_world* w, uint32_t idx) {
    return cs_record_of(w, CS_REC_WALL, idx);
}

// Reserve first: store then cannot fail. A default def is stored as no record.
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
// candidates found and their columns fetched (the pass's own step), chunk t + 1's cells are worked
// out from the positions fetched a chunk ago and their entries and radii fetched
// (cs_walls_fetch_entries), and chunk t's lists are fetched from the entries
// (cs_walls_fetch_lists) before chunk t is worked on. Fetched one step before use, the entry's
// miss stalled half of the force pass's own time.

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

// Passes: the force in CROWD_PHASE_WALLS (walls_force.c), the clamp in CROWD_PHASE_CLAMP
// (walls_clamp.c).
void cs_pass_walls(crowd_world* w);
void cs_pass_clamp(crowd_world* w);

// Table hooks (walls_agent.c).
crowd_status cs_walls_check_def(const crowd_agent_def* def);
crowd_status cs_walls_add_reserve(crowd_world* w, const crowd_agent_def* def);
void cs_walls_add(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def);
crowd_status cs_walls_world_reserve(crowd_world* w, int agents);
void cs_walls_get_def(const crowd_world* w, uint32_t idx, crowd_agent_def* out);
void cs_walls_on_remove(crowd_world* w, uint32_t idx);
uint64_t cs_walls_hash(const crowd_world* w, uint32_t idx, uint64_t h);

#endif
