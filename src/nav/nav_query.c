// Reading the fields: an agent's aim, its route as the API reports it, and the world-level calls.
#include <omp.h>

#include "core/internal.h"
#include "nav/nav.h"

cs_nav_targets cs_nav_targets_of(const cs_nav* nav, cs_nav_key key) {
    if (key & CS_NAV_KEY_EXITS) {
        const cs_nav_exits* e = &nav->exits[(uint32_t)key - 1];
        return (cs_nav_targets){.points = e->points, .count = e->count};
    }
    const int64_t qx = (int64_t)(key >> 31) - ((int64_t)1 << 30);
    const int64_t qy = (int64_t)(key & 0x7fffffffu) - ((int64_t)1 << 30);
    return (cs_nav_targets){
        .count = 1,
        .one = {((float)qx + 0.5f) * nav->def.cell_size, ((float)qy + 0.5f) * nav->def.cell_size}};
}

static cs_nav_key key_of(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits) {
    return exits.index1 ? cs_nav_exits_key(exits) : cs_nav_point_key(nav, own);
}

static cs_nav_targets targets_for(const cs_nav* nav, crowd_exits_id exits) {
    if (!exits.index1) return (cs_nav_targets){.count = 1};
    const cs_nav_exits* e = &nav->exits[exits.index1 - 1];
    return (cs_nav_targets){.points = e->points, .count = e->count};
}

cs_nav_aim cs_nav_aim_of(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos,
                         bool routed) {
    const cs_nav_targets t = targets_for(nav, exits);
    if (!routed)
        return (cs_nav_aim){cs_nav_nearest(&t, own, pos), CROWD_ROUTE_STATE_STRAIGHT, true};
    const cs_nav_field* f = nav->blocked ? cs_nav_find(nav, key_of(nav, own, exits)) : NULL;
    return cs_nav_aim_at(nav, f, &t, own, pos);
}

cs_nav_aim cs_nav_aim_memo(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos,
                           cs_nav_memo* memo) {
    const cs_nav_targets t = targets_for(nav, exits);
    const uint32_t c = nav->blocked && !nav->grid_changed ? cs_nav_cell(nav, pos) : CS_NAV_NONE;
    if (c != CS_NAV_NONE && memo->epoch == nav->epoch && memo->cell == c)
        return cs_nav_aim_from(nav, true, &t, own, pos, memo->entry);
    const cs_nav_field* f = nav->blocked ? cs_nav_find(nav, key_of(nav, own, exits)) : NULL;
    const bool ready = nav->blocked && !nav->grid_changed && f && f->built;
    const uint32_t a = cs_nav_entry(nav, f, pos);
    // Only an entry read from a built field is kept.
    if (c != CS_NAV_NONE && ready) *memo = (cs_nav_memo){c, a, nav->epoch};
    return cs_nav_aim_from(nav, ready, &t, own, pos, a);
}

void cs_nav_prefetch(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos) {
    const cs_nav_field* f = cs_nav_find(nav, key_of(nav, own, exits));
    const uint32_t c = f && f->built ? cs_nav_cell(nav, pos) : CS_NAV_NONE;
    if (c != CS_NAV_NONE) __builtin_prefetch(&f->anchor[c]);
}

static float dist(crowd_vec2 p, crowd_vec2 q) {
    const float dx = p.x - q.x, dy = p.y - q.y;
    return sqrtf(dx * dx + dy * dy);
}

crowd_route_info cs_nav_route_info(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits,
                                   crowd_vec2 pos, bool routed) {
    const cs_nav_targets t = targets_for(nav, exits);
    const cs_nav_field* f =
        routed && nav->blocked ? cs_nav_find(nav, key_of(nav, own, exits)) : NULL;
    const cs_nav_aim a =
        routed ? cs_nav_aim_at(nav, f, &t, own, pos)
               : (cs_nav_aim){cs_nav_nearest(&t, own, pos), CROWD_ROUTE_STATE_STRAIGHT, true};
    crowd_route_info r = {.state = a.state, .aim = a.aim, .destination = a.aim};
    if (a.state == CROWD_ROUTE_STATE_PENDING) return r;
    r.distance = dist(pos, a.aim);
    if (a.final) return r;
    // Along the corners: each corner's own cell names the next anchor. A chain is at most as long
    // as the grid has cells (each step is a settled cell nearer the destination).
    uint32_t c = cs_nav_cell(nav, a.aim);
    crowd_vec2 at = a.aim;
    for (size_t steps = 0; c != CS_NAV_NONE && steps < nav->cells; ++steps) {
        const uint32_t next = f->anchor[c];
        crowd_vec2 p;
        if (next == CS_NAV_NONE) break;
        if (next >= CS_NAV_TARGET) {
            p = t.points ? t.points[next - CS_NAV_TARGET] : own;
            r.distance += dist(at, p);
            r.destination = p;
            break;
        }
        p = cs_nav_center(nav, next & ~CS_NAV_STAND_IN);
        r.distance += dist(at, p);
        at = p;
        r.destination = p;
        if (next & CS_NAV_STAND_IN) { // a stand-in: the goal cannot be reached from here
            r.state = CROWD_ROUTE_STATE_UNREACHABLE;
            break;
        }
        c = next;
    }
    return r;
}

crowd_status crowd_agent_get_route(const crowd_world* w, crowd_agent_id id, crowd_route_info* out) {
    int s;
    const crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].route && cs_behaviors[b].route(w, id.index1 - 1, s, out))
            return CROWD_OK;
    *out = (crowd_route_info){.state = CROWD_ROUTE_STATE_NONE};
    return CROWD_OK;
}

bool cs_nav_counting(const crowd_world* w) {
    return w->nav.def.enable && w->walls.live > 0;
}

crowd_status crowd_world_nav_update(crowd_world* w) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    return cs_nav_update(w);
}

crowd_nav_stats crowd_world_nav_stats(const crowd_world* w) {
    crowd_nav_stats s = {0};
    if (!w) return s;
    const cs_nav* nav = &w->nav;
    s.cell_size = nav->def.cell_size;
    if (nav->blocked) {
        s.grid_w = nav->gw;
        s.grid_h = nav->gh;
        s.grid_origin = (crowd_vec2){(float)nav->gx0 * nav->def.cell_size,
                                     (float)nav->gy0 * nav->def.cell_size};
        for (size_t c = 0; c < nav->cells; ++c) s.blocked_cells += nav->blocked[c] != CS_NAV_FREE;
    }
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        s.fields += nav->fields[i].users > 0 || nav->fields[i].anchor;
        s.fields_in_use += nav->fields[i].users > 0;
    }
    s.field_bytes = nav->field_bytes;
    s.builds = nav->builds;
    s.last_build_ms = nav->last_build_ms;
    s.last_grid_ms = nav->last_grid_ms;
    s.suspended = nav->suspended;
    s.repairs = nav->repairs;
    s.last_repair_cells = nav->last_repair_cells;
    s.spread = nav->spreading;
    s.spread_bytes = cs_nav_spread_used_bytes(nav);
    return s;
}
