// Storage moves for a world split across processes (see core/dist_hooks.h).
//
// Packed agent: u32 index, u32 mask of its record kinds, the CS_COL_COUNT sorted columns (4 bytes
// each), radius, user data (8 bytes), then one record of each kind in the mask, in kind order, of
// the size the pool of that kind has (the behavior table's record size). The replicated kinds
// (cs_dist_replicated) are never in the mask: they stay where they are.
//
// What is a behavior's own (which agents are linked across the world, what a removal elsewhere
// undoes, the handles records hold, the uses counted in navigation) comes through the behavior
// table's hooks: nothing here names a behavior.
#include <math.h>

#include "core/dist_hooks.h"

enum { HEAD_BYTES = 4 * (2 + CS_COL_COUNT + 1) + 8 };

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
    return HEAD_BYTES + records_bytes(w, record_mask(w, idx));
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
    return HEAD_BYTES + records_bytes(w, packed_mask(in));
}

crowd_status cs_dist_reserve(crowd_world* w, const unsigned char* in, int n) {
    int need[CS_REC_COUNT] = {0};
    bool user = false;
    for (int i = 0; i < n; ++i) {
        const uint32_t mask = packed_mask(in);
        for (int k = 0; k < CS_REC_COUNT; ++k) need[k] += (mask >> k) & 1u;
        uint64_t u;
        memcpy(&u, in + HEAD_BYTES - 8, 8);
        user = user || u != 0;
        in += cs_dist_packed_bytes(w, in);
    }
    // Sorted slots need no growth: every index is stored at most once and the world has room for
    // every issued index.
    if (user && cs_world_user_data(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
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
    cs_grid_since_break(w);
    if (s != last) {
        for (int k = 0; k < CS_COL_COUNT; ++k) {
            uint32_t* col = w->cur.col[k];
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

// The query box of agent_neighbors in neighbor.c: the separation disc, grown to the cone (length,
// width) or to the file's sector (CROWD_QUEUE_FILE_REACH times the cone length, at most half of
// that wide), plus that function's margin.
float cs_dist_reach(const crowd_world* w) {
    const cs_nb_use cone = cs_nb_resolve(w, CS_NB_CONE), file = cs_nb_resolve(w, CS_NB_FILE);
    const cs_columns* c = &w->cur;
    float reach = 0.0f;
    for (int s = 0; s < w->count; ++s) {
        float r = c->sep_radius[s];
        const uint32_t idx = c->id[s];
        const unsigned char* rec;
        if (file.flag && (c->flags[s] & file.flag) &&
            (rec = cs_pool_find(file.pool, file.rec_of, idx))) {
            float len, width;
            memcpy(&len, rec + file.in[2], 4);
            memcpy(&width, rec + file.in[3], 4);
            len *= CROWD_QUEUE_FILE_REACH;
            r = fmaxf(r, len + fmaxf(width, 0.5f * len));
        } else if (cone.flag && (c->flags[s] & cone.flag) &&
                   (rec = cs_pool_find(cone.pool, cone.rec_of, idx))) {
            float len, width;
            memcpy(&len, rec + cone.in[0], 4);
            memcpy(&width, rec + cone.in[1], 4);
            r = fmaxf(r, len + width);
        }
        r += (fabsf(c->px[s]) + fabsf(c->py[s]) + r) * 1e-6f + 1e-6f;
        reach = fmaxf(reach, r);
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
    for (int i = 0; i < w->index_count; ++i)
        for (int b = 0; b < CS_BEH_COUNT; ++b)
            if (cs_behaviors[b].retag) cs_behaviors[b].retag(w, (uint32_t)i, tag);
}

uint16_t cs_dist_tag(const crowd_world* w) {
    return w->tag;
}

// ---- navigation ---------------------------------------------------------------------------------

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

void cs_dist_exits_take_back(crowd_world* w, crowd_exits_id id) {
    cs_nav* nav = &w->nav;
    cs_nav_exits* e = &nav->exits[id.index1 - 1];
    cs_free(w, e->points, (size_t)e->count * sizeof *e->points);
    // A slot never used before has generation 0 and is the last one issued.
    if (e->generation == 0) nav->exits_used--;
    *e = (cs_nav_exits){.generation = e->generation};
}
