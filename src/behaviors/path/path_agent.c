// Agents on paths: starting, stopping and reading a follower's cursor between steps.
#include <math.h>

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
    const bool fresh = cs_rec_num(w, CS_REC_PATH, idx) < 0;
    if (fresh) {
        st = cs_pool_reserve(w, &w->pools[CS_REC_PATH], 1);
        if (st != CROWD_OK) return st;
    }
    cs_path_entry* entry = &cs_paths(w)->entries[def->path.index1 - 1];
    if (cs_path_routes(def)) {
        st = cs_path_route_join(w, entry); // before leaving the old path: it may be the same
        if (st != CROWD_OK) return st;
    }
    if (fresh)
        w->rec_of[CS_REC_PATH][idx] = cs_pool_acquire(&w->pools[CS_REC_PATH]);
    else
        cs_path_route_drop(w, idx);
    *cs_path_of(w, idx) = (cs_path_rec){
        .def = *def,
        .agent = {.cursor = crowd_path_cursor_start(e->path->count, def), .revision = e->revision},
    };
    w->cur.flags[s] |= CS_FLAG_PATH;
    cs_sep_push_refresh(w, idx);
    return CROWD_OK;
}

void cs_path_on_remove(crowd_world* w, uint32_t idx) {
    if (cs_rec_num(w, CS_REC_PATH, idx) < 0) return;
    cs_path_route_drop(w, idx);
    int32_t* rec = &w->rec_of[CS_REC_PATH][idx];
    cs_pool_release(&w->pools[CS_REC_PATH], *rec);
    *rec = -1;
}

crowd_status crowd_agent_clear_path(crowd_world* w, crowd_agent_id id) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    cs_path_on_remove(w, id.index1 - 1);
    w->cur.flags[s] &= ~(uint32_t)CS_FLAG_PATH;
    cs_sep_push_refresh(w, id.index1 - 1);
    return CROWD_OK;
}

crowd_status crowd_agent_get_path(const crowd_world* w, crowd_agent_id id,
                                  crowd_path_follow_def* def, crowd_path_cursor* cursor) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    const cs_path_rec* r = cs_path_of(w, id.index1 - 1);
    if (!r) {
        if (def) *def = crowd_path_follow_def_default();
        if (cursor) *cursor = (crowd_path_cursor){.state = CROWD_PATH_STATE_NONE, .segment = -1};
        return CROWD_OK;
    }
    cs_path_agent a = r->agent;
    if (w->cur.flags[s] & CS_FLAG_PATH) cs_path_sync(cs_paths(w), &r->def, &a);
    if (def) *def = r->def;
    if (cursor) *cursor = a.cursor;
    return CROWD_OK;
}

uint64_t cs_path_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const cs_path_rec* r = cs_path_of(w, idx);
    if (!r) return h;
    const crowd_path_follow_def* d = &r->def;
    h = cs_hash_word(h, d->path.index1);
    h = cs_hash_word(h, d->path.generation);
    h = cs_hash_word(h, (uint32_t)d->kind);
    h = cs_hash_word(h, (uint32_t)d->mode);
    h = cs_hash_float(h, d->arrive_radius);
    h = cs_hash_float(h, d->slow_radius);
    h = cs_hash_float(h, d->tube_radius);
    h = cs_hash_float(h, d->predict_ahead);
    h = cs_hash_float(h, d->weight);
    h = cs_hash_word(h, (uint32_t)d->start_index);
    h = cs_hash_word(h, d->reverse);
    if (d->route != CROWD_ROUTE_FIELD) h = cs_hash_word(h, (uint32_t)d->route); // as before routing
    const cs_path_agent* a = &r->agent;
    h = cs_hash_word(h, (uint32_t)a->cursor.state);
    h = cs_hash_word(h, (uint32_t)a->cursor.index);
    h = cs_hash_word(h, (uint32_t)a->cursor.direction);
    h = cs_hash_word(h, (uint32_t)a->cursor.segment);
    h = cs_hash_word(h, a->revision);
    return cs_hash_float(h, a->lost_dist);
}
