// Storage moves for a world split across processes (see core/dist_hooks.h).
//
// Packed agent: u32 index, u32 mask of its record kinds, the CS_COL_COUNT core columns (4 bytes
// each), radius, user data (8 bytes), the behaviors' hot columns in table order (a plain one as its
// 4 bytes, 0 where the world has no such column; a profile column as u32 1 and the profile's value,
// or u32 0 and zeros: profile numbers are the world's own), then one record of each kind in the
// mask, in kind order, of the size the pool of that kind has (the behavior table's record size).
// The replicated kinds (cs_dist_replicated) are never in the mask: they stay where they are.
//
// What is a behavior's own (which agents are linked across the world, what a removal elsewhere
// undoes, the handles records hold, the uses counted in navigation) comes through the behavior
// table's hooks: nothing here names a behavior.
#include <math.h>

#include "core/dist_hooks.h"
#include "steer/steer_math.h"

enum { CORE_BYTES = 4 * (2 + CS_COL_COUNT + 1) + 8, USER_AT = CORE_BYTES - 8 };

// Bytes of a hot column in a packed agent.
static size_t hot_bytes(const cs_behavior* b, const cs_hot_def* h) {
    return h->profile ? 4 + b->profile_size : 4;
}

static size_t head_bytes(void) {
    size_t n = CORE_BYTES;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < cs_behaviors[b].hot_count; ++k)
            n += hot_bytes(&cs_behaviors[b], &cs_behaviors[b].hot[k]);
    return n;
}

// The hot columns of the table in table order, with the offset of their bytes in a packed agent.
typedef struct hot_entry {
    const cs_behavior* b;
    const cs_hot_def* h;
    size_t at;
} hot_entry;

enum { HOT_MAX = CS_BEH_COUNT * CS_BEHAVIOR_MAX_HOT };

static int hot_entries(hot_entry* out) {
    int n = 0;
    size_t at = CORE_BYTES;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < cs_behaviors[b].hot_count; ++k) {
            out[n++] = (hot_entry){&cs_behaviors[b], &cs_behaviors[b].hot[k], at};
            at += hot_bytes(&cs_behaviors[b], &cs_behaviors[b].hot[k]);
        }
    return n;
}

uint32_t cs_dist_replicated(void) {
    uint32_t mask = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int r = 0; r < CS_BEHAVIOR_MAX_RECORDS && cs_behaviors[b].records[r].size; ++r)
            if (cs_behaviors[b].records[r].replicated)
                mask |= 1u << cs_behaviors[b].records[r].kind;
    return mask;
}

static uint32_t record_mask(const crowd_world* w, uint32_t idx) {
    uint32_t mask = 0;
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if (cs_rec_num(w, k, idx) >= 0) mask |= 1u << k;
    return mask & ~cs_dist_replicated();
}

static size_t records_bytes(const crowd_world* w, uint32_t mask) {
    size_t b = 0;
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if (mask & (1u << k)) b += w->pools[k].size;
    return b;
}

size_t cs_dist_packed_size(const crowd_world* w, uint32_t idx) {
    return head_bytes() + records_bytes(w, record_mask(w, idx));
}

void cs_dist_pack(const crowd_world* w, uint32_t idx, unsigned char* out) {
    const int32_t s = w->slot_of[idx];
    const uint32_t mask = record_mask(w, idx);
    memcpy(out, &idx, 4);
    memcpy(out + 4, &mask, 4);
    out += 8;
    for (int k = 0; k < CS_COL_COUNT; ++k, out += 4)
        memcpy(out, (const uint32_t*)w->cur.col[k] + s, 4);
    memcpy(out, &w->radius[idx], 4);
    const uint64_t user = cs_user_data(w, idx);
    memcpy(out + 4, &user, 8);
    out += 12;
    hot_entry e[HOT_MAX];
    for (int i = 0, n = hot_entries(e); i < n; ++i) {
        const cs_behavior* b = e[i].b;
        const cs_hot_def* h = e[i].h;
        const uint32_t* col = w->cur.hot[h->col];
        const uint32_t v = col ? col[s] : 0;
        if (!h->profile) {
            memcpy(out, &v, 4);
            out += 4;
            continue;
        }
        const uint32_t present = v != 0;
        memcpy(out, &present, 4);
        if (present)
            memcpy(out + 4, cs_profiles_at(&w->profiles[h->profile - 1], v - 1), b->profile_size);
        else
            memset(out + 4, 0, b->profile_size);
        out += 4 + b->profile_size;
    }
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        if (!(mask & (1u << k))) continue;
        const cs_pool* p = &w->pools[k];
        memcpy(out, cs_pool_at(p, w->rec_of[k][idx]), p->size);
        out += p->size;
    }
}

uint32_t cs_dist_packed_index(const unsigned char* in) {
    uint32_t idx;
    memcpy(&idx, in, 4);
    return idx;
}

static uint32_t packed_mask(const unsigned char* in) {
    uint32_t mask;
    memcpy(&mask, in + 4, 4);
    return mask;
}

size_t cs_dist_packed_bytes(const crowd_world* w, const unsigned char* in) {
    return head_bytes() + records_bytes(w, packed_mask(in));
}

crowd_status cs_dist_reserve(crowd_world* w, const unsigned char* in, int n) {
    int need[CS_REC_COUNT] = {0};
    uint32_t profiles[CS_PROF_COUNT] = {0};
    bool user = false, hot[CS_HOT_COUNT] = {false};
    hot_entry e[HOT_MAX];
    const int ne = hot_entries(e);
    for (int i = 0; i < n; ++i) {
        const uint32_t mask = packed_mask(in);
        for (int k = 0; k < CS_REC_COUNT; ++k) need[k] += (mask >> k) & 1u;
        uint64_t u;
        memcpy(&u, in + USER_AT, 8);
        user = user || u != 0;
        for (int j = 0; j < ne; ++j) {
            const cs_hot_def* h = e[j].h;
            uint32_t v;
            memcpy(&v, in + e[j].at, 4);
            hot[h->col] = hot[h->col] || v != 0;
            // Room only for values not interned here already (a ghost's usually are).
            if (h->profile && v && !cs_profiles_has(&w->profiles[h->profile - 1], in + e[j].at + 4))
                profiles[h->profile - 1]++;
        }
        in += cs_dist_packed_bytes(w, in);
    }
    // The sorted slots grow with the agents stored here (the per-index arrays hold every issued
    // index already). A hot column a packed agent has a value in must exist here.
    // By a quarter, not doubled: a rank's copies change a little from step to step, and doubling
    // a large rank's slots for a few more ghosts would double its memory.
    const int64_t stored = (int64_t)w->count + n;
    if (stored > w->slot_capacity) {
        int64_t slots = (int64_t)w->slot_capacity + w->slot_capacity / 4;
        if (slots > w->max_agents) slots = w->max_agents;
        if (slots < stored) slots = stored;
        if (cs_world_grow(w, (int)slots, w->index_capacity, NULL, NULL) != CROWD_OK)
            return CROWD_ERR_OUT_OF_MEMORY;
    }
    if (user && cs_world_user_data(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < CS_HOT_COUNT; ++k)
        if (hot[k] && cs_world_hot_column(w, k) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;

    for (int k = 0; k < CS_PROF_COUNT; ++k) {
        const crowd_status st = cs_profiles_reserve(w, &w->profiles[k], profiles[k]);
        if (st != CROWD_OK) return st;
    }
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        const crowd_status st = cs_pool_reserve(w, &w->pools[k], need[k]);
        if (st != CROWD_OK) return st;
    }
    return CROWD_OK;
}

void cs_dist_put(crowd_world* w, const unsigned char* in, uint32_t flags_or) {
    const uint32_t idx = cs_dist_packed_index(in), mask = packed_mask(in);
    const uint32_t replicated = cs_dist_replicated();
    const int s = w->count++;
    w->columns_epoch++;
    w->slot_of[idx] = s;
    in += 8;
    for (int k = 0; k < CS_COL_COUNT; ++k, in += 4) memcpy((uint32_t*)w->cur.col[k] + s, in, 4);
    w->cur.flags[s] |= flags_or;
    memcpy(&w->radius[idx], in, 4);
    uint64_t user;
    memcpy(&user, in + 4, 8);
    cs_set_user_data(w, idx, user);
    if (w->radius[idx] > w->radius_max) w->radius_max = w->radius[idx];
    in += 12;
    hot_entry e[HOT_MAX];
    for (int i = 0, n = hot_entries(e); i < n; ++i) {
        const cs_behavior* b = e[i].b;
        const cs_hot_def* h = e[i].h;
        uint32_t v;
        memcpy(&v, in, 4);
        uint32_t* col = w->cur.hot[h->col];
        if (h->profile && v) v = cs_profiles_intern(&w->profiles[h->profile - 1], in + 4) + 1;
        if (v) cs_hot_use(w, h->col);
        if (col) col[s] = v; // else 0, as cs_dist_reserve made sure
        in += hot_bytes(b, h);
    }
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        if (replicated & (1u << k)) continue;
        if (w->rec_of[k]) w->rec_of[k][idx] = -1;
        if (!(mask & (1u << k))) continue;
        cs_pool* p = &w->pools[k];
        const int32_t r = cs_pool_acquire(p);
        memcpy(cs_pool_at(p, r), in, p->size);
        w->rec_of[k][idx] = r;
        in += p->size;
    }
}

void cs_dist_drop(crowd_world* w, uint32_t idx) {
    const uint32_t replicated = cs_dist_replicated();
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        if (replicated & (1u << k)) continue;
        if (cs_rec_num(w, k, idx) < 0) continue;
        cs_pool_release(&w->pools[k], w->rec_of[k][idx]);
        w->rec_of[k][idx] = -1;
    }
    const int s = w->slot_of[idx], last = w->count - 1;
    // Its profiles lose a user.
    hot_entry e[HOT_MAX];
    for (int i = 0, n = hot_entries(e); i < n; ++i) {
        const cs_hot_def* h = e[i].h;
        const uint32_t* col = w->cur.hot[h->col];
        if (h->profile && col && col[s])
            cs_profiles_release(&w->profiles[h->profile - 1], col[s] - 1);
    }
    cs_grid_since_break(w);
    w->columns_epoch++;
    if (s != last) {
        for (int k = 0; k < CS_COL_ALL; ++k) {
            uint32_t* col = w->cur.col[k];
            if (!col) continue;
            col[s] = col[last];
        }
        w->slot_of[w->cur.id[s]] = s;
    }
    w->count--;
    w->slot_of[idx] = -1;
}

void cs_dist_free_handle(crowd_world* w, uint32_t idx, uint16_t generation) {
    w->generation[idx] = generation;
    if (generation == CS_GENERATION_LAST) return;
    w->generation[idx]++;
    cs_free_push(w, idx);
}

int cs_dist_free_count(const crowd_world* w) {
    return w->free_count;
}

void cs_dist_free_truncate(crowd_world* w, int count) {
    while (w->free_count > count) cs_free_pop(w);
}

// The reach of the query box of agent_neighbors in neighbor.c (cs_steer_query_box): the
// separation disc, grown to the cone (length, width) or to the file's sector (its shape from the
// subscription's reach factor), plus the box's margin.
float cs_dist_reach(const crowd_world* w) {
    const cs_nb_use cone = cs_nb_resolve(w, CS_NB_CONE), file = cs_nb_resolve(w, CS_NB_FILE);
    const cs_nb_use headway = cs_nb_resolve(w, CS_NB_HEADWAY);
    const cs_columns* c = &w->cur;
    float reach = 0.0f;
    for (int s = 0; s < w->count; ++s) {
        float r = c->sep_radius[s];
        if (file.flag && (c->flags[s] & file.flag)) {
            const cs_steer_shape sh = cs_steer_sector_shape(
                cs_nb_in(&file, s, 2) * file.reach_scale, cs_nb_in(&file, s, 3));
            r = cs_steer_maxf(r, sh.len + sh.width);
        } else if (cone.flag && (c->flags[s] & cone.flag)) {
            r = cs_steer_maxf(r, cs_nb_in(&cone, s, 0) + cs_nb_in(&cone, s, 1));
        } else if (headway.flag && (c->flags[s] & headway.flag)) {
            const cs_steer_shape sh =
                cs_steer_headway_shape(cs_nb_in(&headway, s, 2), cs_nb_in(&headway, s, 3));
            r = cs_steer_maxf(r, sh.len + sh.width);
        }
        reach = cs_steer_maxf(reach, r + cs_steer_margin(c->px[s], c->py[s], r));
    }
    return reach;
}

bool cs_dist_has_links(const crowd_world* w, uint32_t idx) {
    const uint32_t replicated = cs_dist_replicated();
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if ((replicated & (1u << k)) && cs_rec_num(w, k, idx) >= 0) return true;
    return false;
}

bool cs_dist_linked(const crowd_world* w, int s) {
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].dist_linked && cs_behaviors[b].dist_linked(w, s)) return true;
    return false;
}

void cs_dist_unlink(crowd_world* w, uint32_t idx) {
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].dist_unlink) cs_behaviors[b].dist_unlink(w, idx);
}

bool cs_dist_links_removed_in_step(const crowd_world* w) {
    for (int i = 0; i < w->index_count; ++i) {
        if (!cs_dist_has_links(w, (uint32_t)i)) continue;
        for (int b = 0; b < CS_BEH_COUNT; ++b)
            if (cs_behaviors[b].removes_in_step && cs_behaviors[b].removes_in_step(w, (uint32_t)i))
                return true;
    }
    return false;
}

void cs_dist_set_live(crowd_world* w, const uint8_t* live) {
    w->split_live = live;
}

void cs_dist_set_tag(crowd_world* w, uint16_t tag) {
    w->tag = tag;
}

uint16_t cs_dist_tag(const crowd_world* w) {
    return w->tag;
}

// ---- navigation ---------------------------------------------------------------------------------

bool cs_dist_routes_needed(const crowd_world* w) {
    if (cs_nav_counting(w) || w->nav.exits_used > 0) return true;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].route_uses_held && cs_behaviors[b].route_uses_held(w)) return true;
    return false;
}

bool cs_dist_routes_counting(const crowd_world* w) {
    return cs_nav_counting(w);
}

bool cs_dist_routes_may_start(const crowd_world* w) {
    return w->nav.def.enable; // the def cannot change after creation
}

cs_dist_routes cs_dist_routes_of(const crowd_world* w, uint32_t idx) {
    cs_dist_routes r = {{0}};
    uint32_t at = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        const cs_behavior* e = &cs_behaviors[b];
        if (!e->route_uses) continue;
        e->route_uses(w, idx, r.use + at);
        at += e->route_use_bytes;
    }
    return r;
}

// A process that does not store the agent ends what the behaviors' removal hooks end on its owner.
void cs_dist_routes_end(crowd_world* w, const cs_dist_routes* r) {
    uint32_t at = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        const cs_behavior* e = &cs_behaviors[b];
        if (!e->route_uses) continue;
        e->route_uses_end(w, r->use + at);
        at += e->route_use_bytes;
    }
}

crowd_status cs_dist_routes_begin(crowd_world* w, const cs_dist_routes* r) {
    uint32_t at = 0;
    crowd_status st = CROWD_OK;
    for (int b = 0; b < CS_BEH_COUNT && st == CROWD_OK; ++b) {
        const cs_behavior* e = &cs_behaviors[b];
        if (!e->route_uses) continue;
        if (e->route_uses_begin) st = e->route_uses_begin(w, r->use + at);
        at += e->route_use_bytes;
    }
    return st;
}

void cs_dist_exits_take_back(crowd_world* w, crowd_exits_id id) {
    cs_nav* nav = &w->nav;
    cs_nav_exits* e = &nav->exits[id.index1 - 1];
    cs_free(w, e->points, (size_t)e->count * sizeof *e->points);
    // A slot never used before has generation 0 and is the last one issued.
    if (e->generation == 0) nav->exits_used--;
    *e = (cs_nav_exits){.generation = e->generation};
}
