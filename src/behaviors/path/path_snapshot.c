// The path snapshot section: the world's path table and every path follower's def and progress.
//
//  'PATH': u32 used (slots ever issued), u32 free_count, u32 free_list[free_count] (bottom of the
//         LIFO stack first), then per slot in slot order: u16 generation, u16 live (0 / 1),
//         u32 revision, u32 point count (0 when free), f32 x, y per point. Then u32 followers and
//         one 76-byte record per agent holding a path record (72 bytes before version 5), in
//         ascending agent index: u32 agent index, u32 path index1, u16 path generation, u16 path
//         world tag, u32 kind, u32 mode, f32 arrive radius, slow radius, tube radius, predict
//         ahead, weight, i32 start index, u32 reverse | form << 1, u32 cursor state, i32 cursor
//         index, direction, segment, u32 revision, f32 lost distance, then (since version 5) u32
//         route. An older record loads with CROWD_ROUTE_FIELD (its world has navigation off).
//  A routed follower of a live path counts as one of the path's routed followers again as it
//  loads (what crowd_agent_set_path counts), so the path's points are destinations in use once
//  the world has obstacles; the fields themselves are built by the first step.
//  A free slot keeps its revision (a replace count that a later create on the slot inherits).
//  The segments and the segment grid are not stored: load rebuilds them with the code that
//  creates a path, which is a function of the points alone.
#include <math.h>
#include <string.h>

#include "behaviors/path/path_internal.h"
#include "snapshot/snapshot_internal.h"

enum { FOLLOWER_RECORD_SIZE = 76, FOLLOWER_RECORD_SIZE_V3 = 72 };

// The agents that hold a path def (a follower, or one whose path was destroyed).
static uint32_t followers(const crowd_world* w) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_PATH_PROFILE);
    uint32_t n = 0;
    for (int s = 0; prof && s < w->count; ++s) n += prof[s] != 0;
    return n;
}

uint64_t cs_snap_path_size(const crowd_world* w) {
    uint64_t n = 8 + 4 + (uint64_t)FOLLOWER_RECORD_SIZE * followers(w);
    const cs_path_table* t = cs_paths(w);
    if (!t) return n;
    n += 4 * (uint64_t)t->free_count + 12 * (uint64_t)t->used;
    for (int i = 0; i < t->used; ++i) n += 8 * (uint64_t)t->entries[i].count;
    return n;
}

void cs_snap_save_path(const crowd_world* w, cs_snap_writer* out) {
    const cs_path_table* t = cs_paths(w);
    cs_snap_put_u32(out, t ? (uint32_t)t->used : 0);
    cs_snap_put_u32(out, t ? (uint32_t)t->free_count : 0);
    for (int i = 0; t && i < t->free_count; ++i) cs_snap_put_u32(out, (uint32_t)t->free_list[i]);
    for (int i = 0; t && i < t->used; ++i) {
        const cs_path_entry* e = &t->entries[i];
        cs_snap_put_u16(out, e->generation);
        cs_snap_put_u16(out, e->path != NULL);
        cs_snap_put_u32(out, e->revision);
        cs_snap_put_u32(out, (uint32_t)e->count);
        for (int k = 0; k < e->count; ++k) {
            cs_snap_put_f32(out, e->points[k].x);
            cs_snap_put_f32(out, e->points[k].y);
        }
    }
    cs_snap_put_u32(out, followers(w));
    for (int i = 0; i < w->index_count; ++i) {
        const int s = w->slot_of[i];
        const cs_path_profile* d = s >= 0 ? cs_path_profile_at(w, s) : NULL;
        if (!d) continue;
        const cs_path_agent agent = cs_path_agent_at(w, s), *a = &agent;
        cs_snap_put_u32(out, (uint32_t)i);
        cs_snap_put_u32(out, d->path.index1);
        cs_snap_put_u16(out, d->path.generation);
        cs_snap_put_u16(out, w->tag);
        cs_snap_put_u32(out, (uint32_t)d->kind);
        cs_snap_put_u32(out, (uint32_t)d->mode);
        cs_snap_put_f32(out, d->arrive_radius);
        cs_snap_put_f32(out, d->slow_radius);
        cs_snap_put_f32(out, d->tube_radius);
        cs_snap_put_f32(out, d->predict_ahead);
        cs_snap_put_f32(out, d->weight);
        cs_snap_put_u32(out, (uint32_t)a->start);
        cs_snap_put_u32(out, (d->reverse ? 1u : 0u) | (uint32_t)d->form << 1);
        cs_snap_put_u32(out, (uint32_t)a->cursor.state);
        cs_snap_put_u32(out, (uint32_t)a->cursor.index);
        cs_snap_put_u32(out, (uint32_t)a->cursor.direction);
        cs_snap_put_u32(out, (uint32_t)a->cursor.segment);
        cs_snap_put_u32(out, a->revision);
        cs_snap_put_f32(out, a->lost_dist);
        cs_snap_put_u32(out, (uint32_t)d->route);
    }
}

// Marks a slot named by the free list while the slots are read.
#define LISTED_FREE (-1)

static crowd_status load_table(crowd_world* w, cs_snap_reader* in) {
    const uint32_t used = cs_snap_get_u32(in), free_count = cs_snap_get_u32(in);
    // Every slot takes at least 12 bytes, every free-list entry 4.
    if (in->bad || free_count > used || used > in->left / 12 ||
        free_count > (in->left - 12 * (size_t)used) / 4)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (used == 0) return CROWD_OK;
    crowd_status st = cs_path_table_restore(w, (int)used);
    if (st != CROWD_OK) return st;
    cs_path_table* t = cs_paths(w);
    for (uint32_t k = 0; k < free_count; ++k) {
        const uint32_t slot = cs_snap_get_u32(in);
        if (in->bad || slot >= used || t->entries[slot].count == LISTED_FREE)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        t->entries[slot].count = LISTED_FREE;
        t->free_list[k] = (int32_t)slot;
    }
    t->free_count = (int)free_count;
    crowd_vec2* pts = NULL;
    size_t pts_bytes = 0;
    for (uint32_t i = 0; i < used && st == CROWD_OK; ++i) {
        cs_path_entry* e = &t->entries[i];
        const bool listed = e->count == LISTED_FREE;
        e->count = 0;
        e->generation = cs_snap_get_u16(in);
        const uint16_t live = cs_snap_get_u16(in);
        e->revision = cs_snap_get_u32(in);
        const uint32_t count = cs_snap_get_u32(in);
        // A slot is live exactly when the free list does not name it; a free one has no points.
        if (in->bad || live > 1 || live == listed || (!live && count != 0) ||
            count > CROWD_PATH_MAX_POINTS || count > in->left / 8) {
            st = CROWD_ERR_SNAPSHOT_CORRUPT;
            break;
        }
        if (!live) continue;
        const size_t need = sizeof(crowd_vec2) * (size_t)count;
        if (need > pts_bytes) {
            cs_free(w, pts, pts_bytes);
            pts_bytes = need;
            pts = cs_alloc(w, pts_bytes);
            if (!pts) {
                pts_bytes = 0;
                st = CROWD_ERR_OUT_OF_MEMORY;
                break;
            }
        }
        for (uint32_t k = 0; k < count; ++k) {
            pts[k].x = cs_snap_get_f32(in);
            pts[k].y = cs_snap_get_f32(in);
        }
        st = cs_path_slot_restore(w, (int)i, pts, (int)count);
    }
    cs_free(w, pts, pts_bytes);
    return st;
}

// The cursor values a step can read without leaving its path's arrays; see cs_path_sync.
static bool valid_follower(const crowd_world* w, uint32_t idx, const crowd_path_follow_def* d,
                           const cs_path_agent* a) {
    const crowd_path_cursor* c = &a->cursor;
    const cs_path_table* t = cs_paths(w);
    const int used = t ? t->used : 0;
    if (cs_path_check_follow(d) != CROWD_OK || d->path.world != w->tag || d->path.index1 == 0 ||
        d->path.index1 > (uint32_t)used || d->start_index < 0 ||
        d->start_index >= CROWD_PATH_MAX_POINTS || (c->direction != 1 && c->direction != -1) ||
        c->index < 0 || c->index >= CROWD_PATH_MAX_POINTS || c->segment < -1 ||
        c->segment >= CROWD_PATH_MAX_POINTS || !(a->lost_dist >= 0.0f) || !isfinite(a->lost_dist))
        return false;
    const bool flagged = (w->cur.flags[w->slot_of[idx]] & CS_FLAG_PATH) != 0;
    // The record outlives the flag only when the pass found the path destroyed.
    if (!flagged) return c->state == CROWD_PATH_STATE_DETACHED;
    if (c->state != CROWD_PATH_STATE_FOLLOWING && c->state != CROWD_PATH_STATE_FINISHED)
        return false;
    const cs_path_entry* e = &t->entries[d->path.index1 - 1];
    // A cursor synced to its path's current revision indexes it directly; an older one is
    // clamped by the next sync, and a destroyed path detaches it.
    if (e->path && e->generation == d->path.generation && e->revision == a->revision)
        return c->index < e->count && c->segment < e->count;
    return true;
}

crowd_status cs_snap_load_path(crowd_world* w, cs_snap_reader* in) {
    crowd_status st = load_table(w, in);
    if (st != CROWD_OK) return st;
    const uint32_t count = cs_snap_get_u32(in);
    const size_t record = in->version < 5 ? FOLLOWER_RECORD_SIZE_V3 : FOLLOWER_RECORD_SIZE;
    if (in->bad || in->left != (size_t)count * record || count > (uint32_t)w->index_count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (count > 0 && cs_path_reserve_columns(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    st = cs_profiles_reserve(w, &w->profiles[CS_PROF_PATH], count);
    if (st != CROWD_OK) return st;
    int64_t last = -1;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t idx = cs_snap_get_u32(in);
        crowd_path_follow_def def, *d = &def;
        cs_path_agent agent = {0}, *a = &agent;
        memset(d, 0, sizeof *d);
        d->path.index1 = cs_snap_get_u32(in);
        d->path.generation = cs_snap_get_u16(in);
        d->path.world = cs_snap_get_u16(in);
        const uint32_t kind = cs_snap_get_u32(in), mode = cs_snap_get_u32(in);
        d->kind = kind < CROWD_PATH_KIND_COUNT ? (crowd_path_kind)kind : CROWD_PATH_KIND_COUNT;
        d->mode = mode < CROWD_PATH_MODE_COUNT ? (crowd_path_mode)mode : CROWD_PATH_MODE_COUNT;
        d->arrive_radius = cs_snap_get_f32(in);
        d->slow_radius = cs_snap_get_f32(in);
        d->tube_radius = cs_snap_get_f32(in);
        d->predict_ahead = cs_snap_get_f32(in);
        d->weight = cs_snap_get_f32(in);
        d->start_index = (int32_t)cs_snap_get_u32(in);
        const uint32_t reverse = cs_snap_get_u32(in);
        d->reverse = (reverse & 1u) != 0;
        d->form = (reverse >> 1) < CROWD_PATH_FORM_COUNT ? (crowd_path_form)(reverse >> 1)
                                                         : CROWD_PATH_FORM_COUNT;
        const uint32_t state = cs_snap_get_u32(in);
        a->cursor.state =
            state <= CROWD_PATH_STATE_DETACHED ? (crowd_path_state)state : CROWD_PATH_STATE_NONE;
        a->cursor.index = (int32_t)cs_snap_get_u32(in);
        a->cursor.direction = (int32_t)cs_snap_get_u32(in);
        a->cursor.segment = (int32_t)cs_snap_get_u32(in);
        a->revision = cs_snap_get_u32(in);
        a->lost_dist = cs_snap_get_f32(in);
        const uint32_t route = in->version < 5 ? CROWD_ROUTE_FIELD : cs_snap_get_u32(in);
        d->route = route < CROWD_ROUTE_COUNT ? (crowd_route)route : CROWD_ROUTE_COUNT;
        // Ascending indices of live agents (one record each), and 0 / 1 for the flag.
        if (in->bad || (int64_t)idx <= last || idx >= (uint32_t)w->index_count ||
            w->slot_of[idx] < 0 || (reverse >> 1) >= CROWD_PATH_FORM_COUNT ||
            !valid_follower(w, idx, d, a))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        last = idx;
        // A routed follower of its live path is one of the path's routed followers, as
        // crowd_agent_set_path counted it.
        const cs_path_entry* e;
        if (cs_path_routes(d) && cs_path_lookup(w, d->path, &e) == CROWD_OK) {
            st = cs_path_route_join(w, &cs_paths(w)->entries[d->path.index1 - 1]);
            if (st == CROWD_ERR_OUT_OF_MEMORY) return st;
            if (st != CROWD_OK) return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
        if (cs_path_routes(d) && cs_nav_counting(w)) {
            st = cs_path_memo_use(w);
            if (st != CROWD_OK) return st;
        }
        a->start = d->start_index;
        cs_path_store(w, w->slot_of[idx], d, a);
    }
    // Every agent the pass will visit has its def.
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_PATH_PROFILE);
    for (int s = 0; s < w->count; ++s)
        if ((w->cur.flags[s] & CS_FLAG_PATH) && (!prof || !prof[s]))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
    return CROWD_OK;
}
