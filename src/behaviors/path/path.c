// Path pass: waypoint and tube forces for every agent with CS_FLAG_PATH.
//
// Each follower reads its immutable path and writes only its own cursor (by agent index) and its
// own force slot, so the result does not depend on the thread count or schedule. The forces are
// the pure functions' (path_internal.h); what the pass adds is the choice of the tube segment:
// the hint window, and the grid search for followers that are new or lost.

#include "behaviors/path/path_internal.h"
#include "behaviors/separation.h"

// The segment a tube follower projects on this step, and the predicted position's projection on
// it (*proj, at *dist).
static int choose_segment(const cs_path_entry* e, const crowd_path_follow_def* d, cs_path_agent* a,
                          crowd_vec2 predicted, crowd_vec2* proj, float* dist) {
    const int segs = crowd_path_segment_count(e->count, d->mode);
    const float lost = CS_PATH_LOST_TUBES * d->tube_radius;
    const int hint = a->cursor.segment;
    int k;
    if (hint < 0 || hint >= segs) {
        k = cs_path_nearest(e->path, segs, predicted, dist);
        a->lost_dist = *dist > lost ? *dist : 0.0f;
    } else {
        k = cs_path_track(e->seg, e->count, segs, d->mode == CROWD_PATH_LOOP, a->cursor.direction,
                          hint, predicted, proj, dist);
        if (!(*dist > lost)) {
            a->lost_dist = 0.0f;
            return k;
        }
        // Lost: search the whole path, but only again once it has drifted another `lost`
        // further away than at its last search, so a follower far off the path does not search
        // every step.
        if (!(*dist > a->lost_dist + lost)) return k;
        k = cs_path_nearest(e->path, segs, predicted, dist);
        a->lost_dist = *dist > lost ? *dist : 0.0f;
    }
    const cs_path_seg s = cs_path_seg_at(e->seg, e->count, k);
    *proj = cs_path_project_seg(&s, predicted, dist);
    return k;
}

// Addresses are formed as integers: a stale cursor may point past the geometry, and a prefetch
// of any address is harmless where forming an out-of-range pointer is not.
CS_FETCH_HELPER void prefetch_geometry(const crowd_world* w, const cs_columns* c, int s) {
    if (!(c->flags[s] & CS_FLAG_PATH)) return;
    const crowd_path_follow_def* d = cs_path_profile_at(w, s);
    const cs_path_table* t = cs_paths(w);
    const uint32_t slot = d->path.index1 - 1;
    if (slot >= (uint32_t)t->used) return;
    const cs_path_entry* e = &t->entries[slot];
    const int index = (int)cs_hot_u32(w, CS_HOT_PATH_INDEX)[s];
    if (d->kind == CROWD_PATH_WAYPOINTS) {
        __builtin_prefetch(
            (const void*)((uintptr_t)e->points + (uintptr_t)index * sizeof(crowd_vec2)));
        // A routed leg's field entry, when the follower's memo will not serve (its waypoint is
        // read here, ahead of its own step, only then).
        const crowd_vec2 pos = {c->px[s], c->py[s]};
        if (cs_path_routes(d) && w->nav.blocked && cs_path_memo_live(w) && index >= 0 &&
            index < e->count) {
            const cs_nav_memo m = {cs_hot_u32(w, CS_HOT_PATH_MEMO_CELL)[s],
                                   cs_hot_u32(w, CS_HOT_PATH_MEMO_ENTRY)[s],
                                   cs_hot_u32(w, CS_HOT_PATH_MEMO_EPOCH)[s]};
            if (!cs_nav_memo_serves(&w->nav, &m, pos))
                cs_nav_prefetch(&w->nav, e->points[index], (crowd_exits_id){0}, pos);
        }
    } else {
        const int segment = (int)cs_hot_u32(w, CS_HOT_PATH_SEGMENT)[s];
        if (segment < 0) return;
        const int dir = cs_path_state_direction(cs_hot_u32(w, CS_HOT_PATH_STATE)[s]);
        int k0 = dir > 0 ? segment - 1 : segment - (CROWD_PATH_WINDOW - 2);
        k0 = k0 < 0 ? 0 : k0;
        // The window's first entry in each of the five rows (the window is 32 bytes a row).
        const uintptr_t row = (uintptr_t)CS_PATH_SEG_STRIDE(e->count) * sizeof(float);
        const uintptr_t seg = (uintptr_t)e->seg + (uintptr_t)k0 * sizeof(float);
        for (int i = 0; i < CS_SEG_ROWS; ++i) __builtin_prefetch((const void*)(seg + i * row));
    }
}

static inline void follow_one(crowd_world* w, const cs_columns* c, int s) {
    const uint32_t flags = c->flags[s];
    const crowd_path_follow_def* d = cs_path_profile_at(w, s);
    cs_path_agent a = cs_path_agent_at(w, s);
    const cs_path_entry* e = cs_path_sync(cs_paths(w), d, &a);
    if (!e) {
        cs_path_agent_set(w, s, &a);
        c->flags[s] = flags & ~(uint32_t)CS_FLAG_PATH;
        cs_sep_push_refresh(w, c->id[s]);
        return;
    }
    const crowd_vec2 pos = {c->px[s], c->py[s]}, vel = {c->vx[s], c->vy[s]};
    const float max_speed = c->max_speed[s], max_force = c->max_force[s];
    crowd_path_cursor cur = a.cursor;
    crowd_vec2 f;
    if (d->kind == CROWD_PATH_WAYPOINTS) {
        f = cs_path_waypoint_inline(e->points, e->count, d, &cur, pos, vel, max_speed, max_force,
                                    cs_path_routes(d) ? &w->nav : NULL, &a);
    } else {
        int k = cur.segment < 0 ? 0 : cur.segment; // a FINISHED one-shot keeps its own
        crowd_vec2 proj = {0.0f, 0.0f};
        float dist = 0.0f;
        if (!(d->mode == CROWD_PATH_ONE_SHOT && cur.state == CROWD_PATH_STATE_FINISHED)) {
            const crowd_vec2 predicted = {pos.x + vel.x * d->predict_ahead,
                                          pos.y + vel.y * d->predict_ahead};
            k = choose_segment(e, d, &a, predicted, &proj, &dist);
        }
        f = cs_path_tube_inline(e->points, e->count, proj, dist, d, &cur, k, pos, vel, max_speed,
                                max_force);
    }
    a.cursor = cur;
    cs_path_agent_set(w, s, &a);
    w->force_x[s] += f.x * d->weight;
    w->force_y[s] += f.y * d->weight;
}

// Contiguous chunks of slots: a follower reads its own slot of the columns and writes it back
// (other threads write theirs). The profiles are few and stay in cache; the paths' geometry is
// fetched CS_PREFETCH / 2 slots ahead, inside the chunk.
static uint64_t path_chunk(void* arg, int lo, int hi) {
    crowd_world* w = arg;
    const cs_columns* c = &w->cur;
    for (int s = lo; s < hi; ++s) {
        if (s + CS_PREFETCH / 2 < hi) prefetch_geometry(w, c, s + CS_PREFETCH / 2);
        if (c->flags[s] & CS_FLAG_PATH) follow_one(w, c, s);
    }
    return 0;
}

// Only followers cost anything, and a tube follower several times a waypoint follower, so a thread
// done with its share helps with the others' (cs_team_run_chunks).
void cs_pass_path(crowd_world* w) {
    if (!cs_paths(w)) return;
    cs_team_run_chunks(w->threads, w->count, 1, path_chunk, w);
}
