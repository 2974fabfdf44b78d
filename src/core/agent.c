// Agents: generational handles, add / remove, and per-agent parameters between steps.
#include <math.h>
#include <string.h>

#include "core/dist_hooks.h"
#include "core/internal.h"
#include "core/range.h"

// The behaviors' fields of a def (the goal, the wall force) as their table entries default them.
static void behavior_defaults(crowd_agent_def* def) {
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].def_default) cs_behaviors[b].def_default(def);
}

crowd_agent_def crowd_agent_def_default(void) {
    crowd_agent_def def = {
        .heading = {1.0f, 0.0f},
        .radius = 0.3f,
        .max_speed = 1.5f,
        .max_force = 3.0f,
        .separation_radius = 1.2f,
        .separation_weight = 1.0f,
    };
    behavior_defaults(&def);
    return def;
}

static bool finite2(crowd_vec2 v) {
    return isfinite(v.x) && isfinite(v.y);
}

static crowd_status check_limits(float max_speed, float max_force) {
    if (!isfinite(max_speed) || !isfinite(max_force)) return CROWD_ERR_NOT_FINITE;
    if (max_speed <= 0.0f || max_force <= 0.0f) return CROWD_ERR_BAD_SPEED;
    if (max_speed < CROWD_MIN_SPEED || max_speed > CROWD_MAX_SPEED || max_force > CROWD_MAX_FORCE)
        return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

static crowd_status check_separation(float radius, float weight) {
    if (!isfinite(radius) || !isfinite(weight)) return CROWD_ERR_NOT_FINITE;
    if (radius <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    if (weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    if (radius > CROWD_MAX_DISTANCE || weight > CROWD_MAX_WEIGHT) return CROWD_ERR_OUT_OF_RANGE;
    return CROWD_OK;
}

static crowd_status check_radius(float radius) {
    if (!isfinite(radius)) return CROWD_ERR_NOT_FINITE;
    if (radius <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    return radius <= CROWD_MAX_DISTANCE ? CROWD_OK : CROWD_ERR_OUT_OF_RANGE;
}

static crowd_status check_def(const crowd_agent_def* d) {
    if (!finite2(d->position) || !finite2(d->velocity) || !finite2(d->heading))
        return CROWD_ERR_NOT_FINITE;
    crowd_status st = check_radius(d->radius);
    if (st == CROWD_OK) st = check_limits(d->max_speed, d->max_force);
    if (st == CROWD_OK) st = check_separation(d->separation_radius, d->separation_weight);
    for (int b = 0; b < CS_BEH_COUNT && st == CROWD_OK; ++b)
        if (cs_behaviors[b].check_def) st = cs_behaviors[b].check_def(d);
    if (st != CROWD_OK) return st;
    float h2 = d->heading.x * d->heading.x + d->heading.y * d->heading.y;
    if (!(h2 > 0.0f) || !isfinite(h2)) return CROWD_ERR_BAD_HEADING;
    st = cs_range_point(d->position);
    return st != CROWD_OK ? st : cs_range_velocity(d->velocity);
}

crowd_status cs_agent_slot(const crowd_world* w, crowd_agent_id id, int* slot) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (id.index1 == 0) return CROWD_ERR_NULL_HANDLE;
    if (id.world != w->tag) return CROWD_ERR_FOREIGN_HANDLE;
    uint32_t idx = id.index1 - 1;
    if (idx >= (uint32_t)w->index_count) return CROWD_ERR_FOREIGN_HANDLE;
    int32_t s = w->slot_of[idx];
    if (s < 0 || w->generation[idx] != id.generation) return CROWD_ERR_STALE_HANDLE;
    *slot = s;
    return CROWD_OK;
}

crowd_status crowd_agent_validate(const crowd_world* w, crowd_agent_id id) {
    int s;
    return cs_agent_slot(w, id, &s);
}

void cs_records_reset(crowd_world* w, uint32_t idx) {
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if (w->rec_of[k]) w->rec_of[k][idx] = -1;
}

// The behaviors' room for the new agent's settings, with any grown storage in place.
static crowd_status add_reserves(crowd_world* w, void* ctx) {
    const crowd_agent_def* def = ctx;
    crowd_status st = CROWD_OK;
    for (int b = 0; b < CS_BEH_COUNT && st == CROWD_OK; ++b)
        if (cs_behaviors[b].add_reserve) st = cs_behaviors[b].add_reserve(w, def);
    return st;
}

// The add's checks with `extra` agents counted as added before this one.
static crowd_status check_add(const crowd_world* w, const crowd_agent_def* def, int64_t extra) {
    const crowd_status st = check_def(def);
    if (st != CROWD_OK) return st;
    // A new index is needed when none is free; retired indices count against max_agents.
    const int64_t fresh = extra >= w->free_count ? extra - w->free_count : -1;
    if (w->count + extra >= w->max_agents ||
        (fresh >= 0 && w->index_count + fresh >= w->max_agents))
        return CROWD_ERR_CAPACITY;
    if (cs_walls_blocked(w, def->position.x, def->position.y, def->radius))
        return CROWD_ERR_INSIDE_OBSTACLE;
    return CROWD_OK;
}

crowd_status crowd_agent_check(const crowd_world* w, const crowd_agent_def* def, int extra) {
    if (!w || !def) return CROWD_ERR_NULL_ARGUMENT;
    if (extra < 0) return CROWD_ERR_BAD_COUNT;
    return check_add(w, def, extra);
}

crowd_status crowd_agent_add(crowd_world* w, const crowd_agent_def* def, crowd_agent_id* out) {
    if (!w || !def || !out) return CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = check_add(w, def, 0);
    if (st != CROWD_OK) return st;
    const bool new_index = w->free_count == 0;
    // user_data first: a growth that fails after it leaves a zero-filled array, which reads as the
    // world did without it.
    if (def->user_data) st = cs_world_user_data(w);
    if (st == CROWD_OK)
        st = cs_world_grow_for(w, (int64_t)w->count + 1, (int64_t)w->index_count + new_index,
                               add_reserves, (void*)def);
    if (st != CROWD_OK) return st;

    const uint32_t idx = w->free_count > 0 ? cs_free_pop(w) : (uint32_t)w->index_count++;
    const int s = w->count++;
    w->columns_epoch++;
    w->slot_of[idx] = s;
    cs_records_reset(w, idx);

    float hlen = sqrtf(def->heading.x * def->heading.x + def->heading.y * def->heading.y);
    cs_columns* c = &w->cur;
    c->px[s] = def->position.x;
    c->py[s] = def->position.y;
    c->vx[s] = def->velocity.x;
    c->vy[s] = def->velocity.y;
    c->hx[s] = def->heading.x / hlen;
    c->hy[s] = def->heading.y / hlen;
    c->id[s] = idx;
    c->max_speed[s] = def->max_speed;
    c->max_force[s] = def->max_force;
    c->sep_radius[s] = def->separation_radius;
    c->sep_weight[s] = def->separation_weight;
    c->group[s] = 0;
    c->flags[s] = 0;
    // The behaviors' hot columns start at 0 (none, default) and their add hooks set theirs.
    for (int k = 0; k < CS_HOT_COUNT; ++k)
        if (c->hot[k]) ((uint32_t*)c->hot[k])[s] = 0;
    w->radius[idx] = def->radius;
    if (def->radius > w->radius_max) w->radius_max = def->radius;
    cs_set_user_data(w, idx, def->user_data);
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].add) cs_behaviors[b].add(w, idx, s, def);

    *out = cs_agent_handle(w, idx);
    return CROWD_OK;
}

void cs_agent_remove_now(crowd_world* w, uint32_t idx) {
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].on_remove) cs_behaviors[b].on_remove(w, idx);
    cs_dist_drop(w, idx);
    // An index whose handles have used every generation is retired rather than reused: the next
    // generation would be 0 again and a stale handle would name a new agent.
    cs_dist_free_handle(w, idx, w->generation[idx]);
}

crowd_status crowd_agent_remove(crowd_world* w, crowd_agent_id id) {
    int s;
    const crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    cs_agent_remove_now(w, id.index1 - 1);
    return CROWD_OK;
}

void cs_agent_def_of(const crowd_world* w, uint32_t idx, int s, crowd_agent_def* out) {
    const cs_columns* c = &w->cur;
    // Field by field over zeros: the padding reads back the same every time (callers compare defs
    // byte for byte), which a struct assignment does not promise.
    memset(out, 0, sizeof *out);
    out->position = (crowd_vec2){c->px[s], c->py[s]};
    out->velocity = (crowd_vec2){c->vx[s], c->vy[s]};
    out->heading = (crowd_vec2){c->hx[s], c->hy[s]};
    out->radius = w->radius[idx];
    out->max_speed = c->max_speed[s];
    out->max_force = c->max_force[s];
    out->separation_radius = c->sep_radius[s];
    out->separation_weight = c->sep_weight[s];
    out->user_data = cs_user_data(w, idx);
    behavior_defaults(out);
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].get_def) cs_behaviors[b].get_def(w, idx, out);
}

crowd_status crowd_agent_get_def(const crowd_world* w, crowd_agent_id id, crowd_agent_def* out) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    cs_agent_def_of(w, id.index1 - 1, s, out);
    return CROWD_OK;
}

static crowd_status get_pair(const crowd_world* w, crowd_agent_id id, int col_x, int col_y,
                             crowd_vec2* out) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    const float* xs = w->cur.col[col_x];
    const float* ys = w->cur.col[col_y];
    *out = (crowd_vec2){xs[s], ys[s]};
    return CROWD_OK;
}

crowd_status crowd_agent_get_position(const crowd_world* w, crowd_agent_id id, crowd_vec2* out) {
    return get_pair(w, id, CS_COL_PX, CS_COL_PY, out);
}

crowd_status crowd_agent_get_velocity(const crowd_world* w, crowd_agent_id id, crowd_vec2* out) {
    return get_pair(w, id, CS_COL_VX, CS_COL_VY, out);
}

crowd_status crowd_agent_get_heading(const crowd_world* w, crowd_agent_id id, crowd_vec2* out) {
    return get_pair(w, id, CS_COL_HX, CS_COL_HY, out);
}

crowd_status crowd_agent_set_position(crowd_world* w, crowd_agent_id id, crowd_vec2 p) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    st = cs_range_point(p);
    if (st != CROWD_OK) return st;
    if (cs_walls_blocked(w, p.x, p.y, w->radius[id.index1 - 1])) return CROWD_ERR_INSIDE_OBSTACLE;
    w->cur.px[s] = p.x;
    w->cur.py[s] = p.y;
    cs_grid_since_break(w);
    return CROWD_OK;
}

crowd_status crowd_agent_set_velocity(crowd_world* w, crowd_agent_id id, crowd_vec2 v) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    st = cs_range_velocity(v);
    if (st != CROWD_OK) return st;
    w->cur.vx[s] = v.x;
    w->cur.vy[s] = v.y;
    return CROWD_OK;
}

crowd_status crowd_agent_set_limits(crowd_world* w, crowd_agent_id id, float max_speed,
                                    float max_force) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st == CROWD_OK) st = check_limits(max_speed, max_force);
    if (st != CROWD_OK) return st;
    w->cur.max_speed[s] = max_speed;
    w->cur.max_force[s] = max_force;
    return CROWD_OK;
}

crowd_status crowd_agent_set_radius(crowd_world* w, crowd_agent_id id, float radius) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    st = check_radius(radius);
    if (st != CROWD_OK) return st;
    if (cs_walls_blocked(w, w->cur.px[s], w->cur.py[s], radius)) return CROWD_ERR_INSIDE_OBSTACLE;
    w->radius[id.index1 - 1] = radius;
    if (radius > w->radius_max) w->radius_max = radius;
    return CROWD_OK;
}

crowd_status crowd_agent_set_separation(crowd_world* w, crowd_agent_id id, float radius,
                                        float weight) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st == CROWD_OK) st = check_separation(radius, weight);
    if (st != CROWD_OK) return st;
    w->cur.sep_radius[s] = radius;
    w->cur.sep_weight[s] = weight;
    return CROWD_OK;
}
