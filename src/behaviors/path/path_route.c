// Routed waypoint legs (crowd/nav.h): a path whose followers route counts each of its points as a
// destination in use, once for all its routed followers, so that the field to every waypoint is
// built before a follower turns toward it.
#include "behaviors/path/path_internal.h"

static void release_points(crowd_world* w, const crowd_vec2* pts, int n) {
    for (int k = 0; k < n; ++k) {
        cs_nav_pin(w, cs_nav_point_key(&w->nav, pts[k]), -1);
        cs_nav_ref(w, cs_nav_point_key(&w->nav, pts[k]), -1);
    }
}

// Counts pts[0, n) as destinations in use; on failure counts none of them.
static crowd_status count_points(crowd_world* w, const crowd_vec2* pts, int n) {
    for (int k = 0; k < n; ++k) {
        const cs_nav_key key = cs_nav_point_key(&w->nav, pts[k]);
        const crowd_status st = cs_nav_reserve_pinned(w, key); // a waypoint is never spread
        if (st != CROWD_OK) {
            release_points(w, pts, k);
            return st;
        }
        cs_nav_ref(w, key, +1);
        cs_nav_pin(w, key, +1);
    }
    return CROWD_OK;
}

crowd_status cs_path_route_join(crowd_world* w, cs_path_entry* e) {
    if (e->nav_users == 0 && cs_nav_counting(w)) {
        const crowd_status st = count_points(w, e->points, e->count);
        if (st != CROWD_OK) return st;
    }
    e->nav_users++;
    return CROWD_OK;
}

void cs_path_route_leave(crowd_world* w, cs_path_entry* e) {
    if (--e->nav_users == 0 && cs_nav_counting(w)) release_points(w, e->points, e->count);
}

// The follower's def with its world's tag, when it has a path.
static bool def_of(const crowd_world* w, int s, crowd_path_follow_def* out) {
    const cs_path_profile* p = cs_path_profile_at(w, s);
    if (p) *out = cs_path_def_of(w, p, cs_path_agent_at(w, s).start);
    return p != NULL;
}

void cs_path_route_drop(crowd_world* w, uint32_t idx) {
    crowd_path_follow_def d;
    const cs_path_entry* e;
    if (def_of(w, w->slot_of[idx], &d) && cs_path_routes(&d) &&
        cs_path_lookup(w, d.path, &e) == CROWD_OK)
        cs_path_route_leave(w, &cs_paths(w)->entries[d.path.index1 - 1]);
}

crowd_status cs_path_route_count(crowd_world* w, const cs_path_entry* e, const crowd_vec2* pts,
                                 int n) {
    return e->nav_users > 0 && cs_nav_counting(w) ? count_points(w, pts, n) : CROWD_OK;
}

void cs_path_route_release(crowd_world* w, const cs_path_entry* e) {
    if (e->nav_users > 0 && cs_nav_counting(w)) release_points(w, e->points, e->count);
}

// Counting starts: the points of every path with routed followers count, and their memos come.
crowd_status cs_path_count_routes(crowd_world* w) {
    const cs_path_table* t = cs_paths(w);
    bool any = false;
    for (int i = 0; t && i < t->used; ++i) {
        const cs_path_entry* e = &t->entries[i];
        if (!e->path || e->nav_users == 0) continue;
        any = true;
        const crowd_status st = count_points(w, e->points, e->count);
        if (st != CROWD_OK) return st;
    }
    return any ? cs_path_memo_use(w) : CROWD_OK;
}

bool cs_path_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out) {
    (void)idx;
    crowd_path_follow_def d;
    const cs_path_entry* e;
    if (!def_of(w, slot, &d) || d.kind != CROWD_PATH_WAYPOINTS ||
        !(w->cur.flags[slot] & CS_FLAG_PATH) || cs_path_lookup(w, d.path, &e) != CROWD_OK)
        return false;
    cs_path_agent a = cs_path_agent_at(w, slot);
    cs_path_sync(cs_paths(w), &d, &a);
    const crowd_vec2 target = e->points[a.cursor.index];
    *out = cs_nav_route_info(&w->nav, target, (crowd_exits_id){0},
                             (crowd_vec2){w->cur.px[slot], w->cur.py[slot]},
                             d.route == CROWD_ROUTE_FIELD);
    return true;
}

// ---- a world split across processes ------------------------------------------------------------

// What a follower counts: the path it counts its routed legs on (null: none).
void cs_path_route_uses(const crowd_world* w, uint32_t idx, void* out) {
    crowd_path_id id = {0};
    crowd_path_follow_def d;
    const cs_path_entry* e;
    if (def_of(w, w->slot_of[idx], &d) && cs_path_routes(&d) &&
        cs_path_lookup(w, d.path, &e) == CROWD_OK)
        id = d.path;
    memcpy(out, &id, sizeof id);
}

// What the follower's removal ends (cs_path_route_drop), while its path lives.
void cs_path_route_uses_end(crowd_world* w, const void* in) {
    crowd_path_id id;
    memcpy(&id, in, sizeof id);
    const cs_path_entry* e;
    if (id.index1 && cs_path_lookup(w, id, &e) == CROWD_OK)
        cs_path_route_leave(w, &cs_paths(w)->entries[id.index1 - 1]);
}

// A path's routed followers (nav_users) are counted on every process whether the world counts
// routes or not, and a follower's removal ends its count.
bool cs_path_route_uses_held(const crowd_world* w) {
    const cs_path_table* t = cs_paths(w);
    for (int i = 0; t && i < t->used; ++i)
        if (t->entries[i].path && t->entries[i].nav_users > 0) return true;
    return false;
}

// Table hook: a follower in CROWD_PATH_FLOW separates without drag (behaviors/separation.h).
cs_sep_form cs_path_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags) {
    const cs_path_profile* p = flags & CS_FLAG_PATH ? cs_path_profile_at(w, w->slot_of[idx]) : NULL;
    return p && p->form == CROWD_PATH_FLOW ? CS_SEP_PUSH : CS_SEP_ANY;
}
