// Exit sets: a handle for a few target points that goals share (crowd/nav.h).
#include "core/internal.h"
#include "core/range.h"
#include "nav/nav.h"

crowd_status cs_nav_exits_lookup(const cs_nav* nav, uint16_t tag, crowd_exits_id id,
                                 const cs_nav_exits** out) {
    if (id.index1 == 0) return CROWD_ERR_NULL_EXITS;
    if (id.world != tag || id.index1 > (uint32_t)nav->exits_used) return CROWD_ERR_FOREIGN_EXITS;
    const cs_nav_exits* e = &nav->exits[id.index1 - 1];
    if (!e->points || e->generation != id.generation) return CROWD_ERR_STALE_EXITS;
    *out = e;
    return CROWD_OK;
}

crowd_status crowd_exits_create(crowd_world* w, const crowd_vec2* points, int count,
                                crowd_exits_id* out) {
    if (!w || !points || !out) return CROWD_ERR_NULL_ARGUMENT;
    if (count < 1 || count > CROWD_EXITS_MAX_POINTS) return CROWD_ERR_BAD_COUNT;
    for (int i = 0; i < count; ++i) {
        if (!isfinite(points[i].x) || !isfinite(points[i].y)) return CROWD_ERR_NOT_FINITE;
        const crowd_status st = cs_range_point(points[i]);
        if (st != CROWD_OK) return st;
    }
    cs_nav* nav = &w->nav;
    int32_t slot = -1;
    for (int32_t i = 0; i < nav->exits_used && slot < 0; ++i)
        if (!nav->exits[i].points && nav->exits[i].generation != UINT16_MAX) slot = i;
    if (slot < 0 && nav->exits_used == INT32_MAX) return CROWD_ERR_CAPACITY;
    if (slot < 0 && nav->exits_used == nav->exits_cap) {
        const int32_t cap = nav->exits_cap ? nav->exits_cap * 2 : 8;
        cs_nav_exits* e = cs_alloc(w, (size_t)cap * sizeof *e);
        if (!e) return CROWD_ERR_OUT_OF_MEMORY;
        memset(e, 0, (size_t)cap * sizeof *e);
        if (nav->exits_used) memcpy(e, nav->exits, (size_t)nav->exits_used * sizeof *e);
        cs_free(w, nav->exits, (size_t)nav->exits_cap * sizeof *nav->exits);
        nav->exits = e;
        nav->exits_cap = cap;
    }
    crowd_vec2* copy = cs_alloc(w, (size_t)count * sizeof *copy);
    if (!copy) return CROWD_ERR_OUT_OF_MEMORY;
    memcpy(copy, points, (size_t)count * sizeof *copy);
    if (slot < 0) slot = nav->exits_used++;
    cs_nav_exits* e = &nav->exits[slot];
    e->points = copy;
    e->count = count;
    e->users = 0;
    *out = (crowd_exits_id){
        .index1 = (uint32_t)slot + 1, .generation = e->generation, .world = w->tag};
    // The grid covers exit points too (relay_grid in nav_cache.c): one outside it is laid again.
    bool outside = false;
    for (int i = 0; i < count; ++i) {
        nav->pending_x0 = fminf(nav->pending_x0, points[i].x);
        nav->pending_y0 = fminf(nav->pending_y0, points[i].y);
        nav->pending_x1 = fmaxf(nav->pending_x1, points[i].x);
        nav->pending_y1 = fmaxf(nav->pending_y1, points[i].y);
        outside |= nav->blocked && cs_nav_cell(nav, points[i]) == CS_NAV_NONE;
    }
    if (outside) { // a new box: the grid is laid whole
        nav->grid_changed = true;
        nav->changes_lost = true;
    }
    return CROWD_OK;
}

crowd_status crowd_exits_destroy(crowd_world* w, crowd_exits_id id) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    const cs_nav_exits* found;
    const crowd_status st = cs_nav_exits_lookup(&w->nav, w->tag, id, &found);
    if (st != CROWD_OK) return st;
    cs_nav_exits* e = &w->nav.exits[id.index1 - 1];
    if (e->users > 0) return CROWD_ERR_IN_USE;
    cs_free(w, e->points, (size_t)e->count * sizeof *e->points);
    // The grid it widened stays as it is until obstacles change (relay_grid in nav_cache.c).
    // The last generation retires the slot: a handle never names another set.
    *e = (cs_nav_exits){.generation = (uint16_t)(e->generation + (e->generation < UINT16_MAX))};
    return CROWD_OK;
}

crowd_status crowd_exits_validate(const crowd_world* w, crowd_exits_id id) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    const cs_nav_exits* e;
    return cs_nav_exits_lookup(&w->nav, w->tag, id, &e);
}

crowd_status crowd_exits_get_points(const crowd_world* w, crowd_exits_id id, crowd_vec2* points,
                                    int capacity, int* count) {
    if (!w || !count) return CROWD_ERR_NULL_ARGUMENT;
    const cs_nav_exits* e;
    const crowd_status st = cs_nav_exits_lookup(&w->nav, w->tag, id, &e);
    if (st != CROWD_OK) return st;
    *count = e->count;
    if (capacity < e->count) return CROWD_ERR_BUFFER_TOO_SMALL;
    if (!points) return CROWD_ERR_NULL_ARGUMENT;
    memcpy(points, e->points, (size_t)e->count * sizeof *points);
    return CROWD_OK;
}
