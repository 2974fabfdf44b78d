// Agents on paths: starting, stopping and reading a follower's cursor between steps.
#include <math.h>
#include <string.h>

#include "behaviors/path/path_internal.h"
#include "behaviors/separation.h"
#include "core/range.h"

crowd_path_follow_def crowd_path_follow_def_default(void) {
    return (crowd_path_follow_def){
        .kind = CROWD_PATH_WAYPOINTS,
        .mode = CROWD_PATH_LOOP,
        .arrive_radius = 0.8f,
        .slow_radius = 1.5f,
        .tube_radius = 1.0f,
        .predict_ahead = 0.5f,
        .weight = 1.0f,
        .start_index = 0,
        .reverse = false,
        .form = CROWD_PATH_FLOW,
        .route = CROWD_ROUTE_FIELD,
    };
}

crowd_status cs_path_check_follow(const crowd_path_follow_def* d) {
    if ((unsigned)d->kind >= CROWD_PATH_KIND_COUNT || (unsigned)d->mode >= CROWD_PATH_MODE_COUNT ||
        (unsigned)d->form >= CROWD_PATH_FORM_COUNT || (unsigned)d->route >= CROWD_ROUTE_COUNT)
        return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(d->arrive_radius) || !isfinite(d->slow_radius) || !isfinite(d->tube_radius) ||
        !isfinite(d->predict_ahead) || !isfinite(d->weight))
        return CROWD_ERR_NOT_FINITE;
    if (d->arrive_radius <= 0.0f || d->slow_radius <= 0.0f || d->tube_radius <= 0.0f ||
        d->predict_ahead < 0.0f)
        return CROWD_ERR_BAD_RADIUS;
    if (d->weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    const float dist[] = {d->arrive_radius, d->slow_radius, d->tube_radius};
    crowd_status st = cs_range_upper(dist, 3, CROWD_MAX_DISTANCE);
    if (st == CROWD_OK) st = cs_range_upper(&d->predict_ahead, 1, CROWD_MAX_TIME);
    return st != CROWD_OK ? st : cs_range_upper(&d->weight, 1, CROWD_MAX_WEIGHT);
}

static const int path_cols[] = {CS_HOT_PATH_PROFILE, CS_HOT_PATH_INDEX,    CS_HOT_PATH_SEGMENT,
                                CS_HOT_PATH_STATE,   CS_HOT_PATH_REVISION, CS_HOT_PATH_LOST};
static const int memo_cols[] = {CS_HOT_PATH_MEMO_CELL, CS_HOT_PATH_MEMO_ENTRY,
                                CS_HOT_PATH_MEMO_EPOCH};

// The memo columns (zero: no memo), which then ride the sort: a world with routed followers that
// counts routes. A memo is a cache, which nothing shows: making the columns changes nothing the
// world shows, and a failure after it may leave them.
crowd_status cs_path_memo_use(crowd_world* w) {
    for (int k = 0; k < 3; ++k)
        if (cs_world_hot_column(w, memo_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < 3; ++k) cs_hot_use(w, memo_cols[k]);
    return CROWD_OK;
}

crowd_status cs_path_reserve_columns(crowd_world* w) {
    for (int k = 0; k < 6; ++k)
        if (cs_world_hot_column(w, path_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    return CROWD_OK;
}

// Room to store a follower: its columns (which changes nothing the world shows), a profile, and
// the memo columns for a routed one while the world counts routes.
static crowd_status reserve_storage(crowd_world* w, const crowd_path_follow_def* def) {
    if (cs_path_reserve_columns(w) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    crowd_status st = cs_profiles_reserve(w, &w->profiles[CS_PROF_PATH], 1);
    if (st == CROWD_OK && cs_path_routes(def) && cs_nav_counting(w)) st = cs_path_memo_use(w);
    return st;
}

// The profile of a def: every byte set (profiles are compared as bytes), the world tag and the
// start index left out.
static cs_path_profile profile_of(const crowd_path_follow_def* d) {
    cs_path_profile p;
    memset(&p, 0, sizeof p);
    p.path.index1 = d->path.index1;
    p.path.generation = d->path.generation;
    p.kind = d->kind;
    p.mode = d->mode;
    p.arrive_radius = d->arrive_radius;
    p.slow_radius = d->slow_radius;
    p.tube_radius = d->tube_radius;
    p.predict_ahead = d->predict_ahead;
    p.weight = d->weight;
    p.reverse = d->reverse;
    p.form = d->form;
    p.route = d->route;
    return p;
}

void cs_path_store(crowd_world* w, int s, const crowd_path_follow_def* def,
                   const cs_path_agent* a) {
    uint32_t* prof = cs_hot_u32(w, CS_HOT_PATH_PROFILE);
    const cs_path_profile p = profile_of(def);
    if (prof[s]) cs_profiles_release(&w->profiles[CS_PROF_PATH], prof[s] - 1);
    for (int k = 0; k < 6; ++k) cs_hot_use(w, path_cols[k]);
    prof[s] = cs_profiles_intern(&w->profiles[CS_PROF_PATH], &p) + 1;
    cs_path_agent_set(w, s, a);
}

crowd_status crowd_agent_set_path(crowd_world* w, crowd_agent_id id,
                                  const crowd_path_follow_def* def) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = cs_path_check_follow(def);
    const cs_path_entry* e = NULL;
    if (st == CROWD_OK) st = cs_path_lookup(w, def->path, &e);
    if (st != CROWD_OK) return st;
    if (def->start_index < 0 || def->start_index >= e->path->count) return CROWD_ERR_BAD_PATH_INDEX;
    const uint32_t idx = id.index1 - 1;
    st = reserve_storage(w, def);
    if (st != CROWD_OK) return st;
    cs_path_entry* entry = &cs_paths(w)->entries[def->path.index1 - 1];
    if (cs_path_routes(def)) {
        st = cs_path_route_join(w, entry); // before leaving the old path: it may be the same
        if (st != CROWD_OK) return st;
    }
    cs_path_route_drop(w, idx);
    const cs_path_agent a = {.cursor = crowd_path_cursor_start(e->path->count, def),
                             .revision = e->revision,
                             .start = def->start_index};
    cs_path_store(w, s, def, &a);
    w->cur.flags[s] |= CS_FLAG_PATH;
    cs_sep_push_refresh(w, idx);
    return CROWD_OK;
}

// The follower's routed legs end; its profile loses its user when the core takes the agent's hot
// columns out.
void cs_path_on_remove(crowd_world* w, uint32_t idx) {
    cs_path_route_drop(w, idx);
}

crowd_status crowd_agent_clear_path(crowd_world* w, crowd_agent_id id) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    const uint32_t idx = id.index1 - 1;
    uint32_t* prof = cs_hot_u32(w, CS_HOT_PATH_PROFILE);
    if (prof && prof[s]) {
        cs_path_route_drop(w, idx);
        cs_profiles_release(&w->profiles[CS_PROF_PATH], prof[s] - 1);
        prof[s] = 0;
        const cs_path_agent none = {.cursor = {.state = CROWD_PATH_STATE_NONE}};
        cs_path_agent_set(w, s, &none);
    }
    w->cur.flags[s] &= ~(uint32_t)CS_FLAG_PATH;
    cs_sep_push_refresh(w, idx);
    return CROWD_OK;
}

crowd_status crowd_agent_get_path(const crowd_world* w, crowd_agent_id id,
                                  crowd_path_follow_def* def, crowd_path_cursor* cursor) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    const cs_path_profile* p = cs_path_profile_at(w, s);
    if (!p) {
        if (def) *def = crowd_path_follow_def_default();
        if (cursor) *cursor = (crowd_path_cursor){.state = CROWD_PATH_STATE_NONE, .segment = -1};
        return CROWD_OK;
    }
    cs_path_agent a = cs_path_agent_at(w, s);
    const crowd_path_follow_def d = cs_path_def_of(w, p, a.start);
    if (w->cur.flags[s] & CS_FLAG_PATH) cs_path_sync(cs_paths(w), &d, &a);
    if (def) memcpy(def, &d, sizeof d);
    if (cursor) *cursor = a.cursor;
    return CROWD_OK;
}

uint64_t cs_path_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const int s = w->slot_of[idx];
    const cs_path_profile* d = cs_path_profile_at(w, s);
    if (!d) return h;
    const cs_path_agent a = cs_path_agent_at(w, s);
    h = cs_hash_word(h, d->path.index1);
    h = cs_hash_word(h, d->path.generation);
    h = cs_hash_word(h, (uint32_t)d->kind);
    h = cs_hash_word(h, (uint32_t)d->mode);
    h = cs_hash_float(h, d->arrive_radius);
    h = cs_hash_float(h, d->slow_radius);
    h = cs_hash_float(h, d->tube_radius);
    h = cs_hash_float(h, d->predict_ahead);
    h = cs_hash_float(h, d->weight);
    h = cs_hash_word(h, (uint32_t)a.start);
    h = cs_hash_word(h, d->reverse);
    if (d->route != CROWD_ROUTE_FIELD) h = cs_hash_word(h, (uint32_t)d->route); // as before routing
    h = cs_hash_word(h, (uint32_t)a.cursor.state);
    h = cs_hash_word(h, (uint32_t)a.cursor.index);
    h = cs_hash_word(h, (uint32_t)a.cursor.direction);
    h = cs_hash_word(h, (uint32_t)a.cursor.segment);
    h = cs_hash_word(h, a.revision);
    return cs_hash_float(h, a.lost_dist);
}
