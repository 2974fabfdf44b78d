// Queues: the public queue API, the spec's cone search and brake as pure functions, and the
// arrival phase.
//
// The cone itself is searched in the neighbor pass (from the queue's profile; the closest along
// goes to the pass's per-slot output) and applied in the goal pass; this file keeps the queue's
// profile and record and handles what happens when a queueing agent reaches its goal.
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "behaviors/queue/queue_internal.h"
#include "behaviors/separation.h"
#include "core/dist_hooks.h"
#include "core/heapsort.h"
#include "core/keyed.h"
#include "core/range.h"
#include "steer/steer_math.h"

crowd_queue_def crowd_queue_def_default(void) {
    return (crowd_queue_def){
        .cone_length = 2.5f,
        .cone_width = 0.6f,
        .slow_radius = 1.0f,
        .weight = 1.0f,
        .arrival_radius = 0.5f,
        .on_arrival = CROWD_QUEUE_STOP,
        .form = CROWD_QUEUE_FILE,
    };
}

// ---- pure functions ---------------------------------------------------------------------------

// The cone's heading, test and brake are the neighbor and goal passes' (steer/steer_math.h), so
// the engine and these agree bit for bit.
float crowd_queue_closest_along(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others, int count,
                                int self, float cone_length, float cone_width) {
    const cs_steer_look look = cs_steer_cone_look(vel.x, vel.y, CROWD_QUEUE_MIN_SPEED);
    if (!look.on || !others) return INFINITY;
    const float width2 = cs_steer_width2(cone_width);
    float closest = INFINITY;
    for (int i = 0; i < count; ++i) {
        if (i == self) continue;
        const cs_steer_cone_at a =
            cs_steer_cone_offset(others[i].x - pos.x, others[i].y - pos.y, look.hx, look.hy);
        if (cs_steer_in_cone(a, cone_length, width2) && a.along < closest) closest = a.along;
    }
    return closest;
}

float crowd_queue_brake(crowd_vec2 pos, crowd_vec2 vel, const crowd_vec2* others, int count,
                        int self, float cone_length, float cone_width) {
    return cs_steer_brake(
        crowd_queue_closest_along(pos, vel, others, count, self, cone_length, cone_width),
        cone_length);
}

float cs_queue_width2(float width) {
    return cs_steer_width2(width);
}

// ---- per-agent API ------------------------------------------------------------------------------

static bool finite2(crowd_vec2 v) {
    return isfinite(v.x) && isfinite(v.y);
}

crowd_status cs_queue_check_def(const crowd_queue_def* d) {
    if ((unsigned)d->on_arrival >= CROWD_QUEUE_POLICY_COUNT ||
        (unsigned)d->form >= CROWD_QUEUE_FORM_COUNT)
        return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(d->cone_length) || !isfinite(d->cone_width) || !finite2(d->goal) ||
        !isfinite(d->slow_radius) || !isfinite(d->weight) || !isfinite(d->arrival_radius) ||
        !finite2(d->start_min) || !finite2(d->start_max))
        return CROWD_ERR_NOT_FINITE;
    if (d->cone_length <= 0.0f || d->cone_width < 0.0f) return CROWD_ERR_BAD_CONE;
    if (d->slow_radius <= 0.0f || d->arrival_radius <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    if (d->weight < 0.0f) return CROWD_ERR_BAD_WEIGHT;
    if (d->start_min.x > d->start_max.x || d->start_min.y > d->start_max.y)
        return CROWD_ERR_BAD_AREA;
    const float dist[] = {d->cone_length, d->cone_width, d->slow_radius, d->arrival_radius};
    crowd_status st = cs_range_upper(dist, 4, CROWD_MAX_DISTANCE);
    if (st == CROWD_OK) st = cs_range_upper(&d->weight, 1, CROWD_MAX_WEIGHT);
    if (st == CROWD_OK) st = cs_range_point(d->goal);
    if (st == CROWD_OK) st = cs_range_point(d->start_min);
    if (st == CROWD_OK) st = cs_range_point(d->start_max);
    return st;
}

crowd_status crowd_agent_set_queue(crowd_world* w, crowd_agent_id id, const crowd_queue_def* def) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = cs_queue_check_def(def);
    if (st != CROWD_OK) return st;

    const uint32_t idx = id.index1 - 1;
    const crowd_goal goal = {
        .mode = def->form == CROWD_QUEUE_LITERAL ? CROWD_GOAL_ARRIVE_LITERAL : CROWD_GOAL_ARRIVE,
        .target = def->goal,
        .slow_radius = def->slow_radius,
        .weight = def->weight,
    };
    // The queue's storage first (its record, as the arrivals list grows with the queue pool; its
    // profile and column; its query's outputs: reservations change nothing the world shows), then
    // the goal through the goal behavior's own call, which changes nothing when it fails, then the
    // queue itself, which cannot fail.
    if (cs_rec_num(w, CS_REC_QUEUE, idx) < 0) st = cs_pool_reserve(w, &w->pools[CS_REC_QUEUE], 1);
    if (st == CROWD_OK) st = cs_queue_reserve_hot(w, 1);
    if (st == CROWD_OK) st = crowd_agent_set_goal(w, id, &goal);
    if (st != CROWD_OK) return st;

    if (w->rec_of[CS_REC_QUEUE][idx] < 0)
        w->rec_of[CS_REC_QUEUE][idx] = cs_pool_acquire(&w->pools[CS_REC_QUEUE]);
    cs_queue_store(w, idx, s, def, false);
    w->cur.flags[s] |= CS_FLAG_GOAL;
    cs_sep_push_refresh(w, idx);
    return CROWD_OK;
}

static const int queue_cols[] = {CS_HOT_QUEUE_PROFILE, CS_HOT_QUEUE_X, CS_HOT_QUEUE_Y};

crowd_status cs_queue_reserve_hot(crowd_world* w, uint32_t n) {
    for (int k = 0; k < 3; ++k)
        if (cs_world_hot_column(w, queue_cols[k]) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    return cs_profiles_reserve(w, &w->profiles[CS_PROF_QUEUE], n);
}

// Drops agent slot s's queue profile (the agent stops queueing).
static void release_profile(crowd_world* w, int s) {
    uint32_t* col = cs_hot_u32(w, CS_HOT_QUEUE_PROFILE);
    if (!col || !col[s]) return;
    cs_profiles_release(&w->profiles[CS_PROF_QUEUE], col[s] - 1);
    col[s] = 0;
}

void cs_queue_store(crowd_world* w, uint32_t idx, int s, const crowd_queue_def* def, bool done) {
    *cs_queue_of(w, idx) = (cs_queue_rec){.done = done};
    release_profile(w, s);
    cs_queue_profile p;
    memset(&p, 0, sizeof p); // the padding too: profiles are compared byte for byte
    p.def = *def;
    p.def.goal = (crowd_vec2){0.0f, 0.0f}; // each agent's own: its hot columns
    p.width2 = cs_queue_width2(def->cone_width);
    for (int k = 0; k < 3; ++k) cs_hot_use(w, queue_cols[k]);
    cs_hot_u32(w, CS_HOT_QUEUE_PROFILE)[s] =
        cs_profiles_intern(&w->profiles[CS_PROF_QUEUE], &p) + 1;
    cs_hot_f32(w, CS_HOT_QUEUE_X)[s] = def->goal.x;
    cs_hot_f32(w, CS_HOT_QUEUE_Y)[s] = def->goal.y;
    w->cur.flags[s] &= ~(uint32_t)(CS_FLAG_QUEUE_CONE | CS_FLAG_QUEUE_FILE);
    w->cur.flags[s] |=
        CS_FLAG_QUEUE | (def->form == CROWD_QUEUE_FILE ? CS_FLAG_QUEUE_FILE : CS_FLAG_QUEUE_CONE);
}

void cs_queue_on_remove(crowd_world* w, uint32_t idx) {
    if (cs_rec_num(w, CS_REC_QUEUE, idx) < 0) return;
    int32_t* rec = &w->rec_of[CS_REC_QUEUE][idx];
    cs_pool_release(&w->pools[CS_REC_QUEUE], *rec);
    *rec = -1;
}

// Table hook: a queue in a file separates without drag (behaviors/separation.h).
cs_sep_form cs_queue_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags) {
    return flags & CS_FLAG_QUEUE_FILE && cs_queue_of(w, idx) ? CS_SEP_PUSH : CS_SEP_ANY;
}

// Table hook (a split world): an agent whose arrival removes it is removed inside a step.
bool cs_queue_removes_in_step(const crowd_world* w, uint32_t idx) {
    return cs_queue_of(w, idx) &&
           cs_queue_profile_at(w, w->slot_of[idx])->def.on_arrival == CROWD_QUEUE_REMOVE;
}

crowd_status crowd_agent_clear_queue(crowd_world* w, crowd_agent_id id) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    w->cur.flags[s] &= ~(uint32_t)(CS_FLAG_QUEUE | CS_FLAG_QUEUE_CONE | CS_FLAG_QUEUE_FILE);
    release_profile(w, s);
    cs_queue_on_remove(w, id.index1 - 1);
    cs_sep_push_refresh(w, id.index1 - 1);
    return CROWD_OK;
}

crowd_status crowd_agent_get_queue(const crowd_world* w, crowd_agent_id id, crowd_queue_def* out) {
    int s;
    crowd_status st = cs_agent_slot(w, id, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    if (!cs_queue_of(w, id.index1 - 1)) return CROWD_ERR_NOT_QUEUEING;
    *out = cs_queue_def_at(w, s);
    return CROWD_OK;
}

int crowd_world_arrival_count(const crowd_world* w) {
    return w ? cs_queue_world_of(w)->arrival_count : 0;
}

uint64_t cs_queue_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const cs_queue_rec* q = cs_queue_of(w, idx);
    if (!q) return h;
    const crowd_queue_def def = cs_queue_def_at(w, w->slot_of[idx]);
    const crowd_queue_def* d = &def;
    h = cs_hash_float(h, d->cone_length);
    h = cs_hash_float(h, d->cone_width);
    h = cs_hash_float(h, d->goal.x);
    h = cs_hash_float(h, d->goal.y);
    h = cs_hash_float(h, d->slow_radius);
    h = cs_hash_float(h, d->weight);
    h = cs_hash_float(h, d->arrival_radius);
    h = cs_hash_word(h, (uint32_t)d->on_arrival);
    h = cs_hash_float(h, d->start_min.x);
    h = cs_hash_float(h, d->start_min.y);
    h = cs_hash_float(h, d->start_max.x);
    h = cs_hash_float(h, d->start_max.y);
    return cs_hash_word(h, q->done);
}

crowd_status crowd_world_get_arrivals(const crowd_world* w, crowd_arrival* out, int capacity,
                                      int* count) {
    if (!w || !count) return CROWD_ERR_NULL_ARGUMENT;
    const int n = cs_queue_world_of(w)->arrival_count;
    if (capacity < n) {
        *count = n;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    if (n > 0 && !out) return CROWD_ERR_NULL_ARGUMENT;
    for (int i = 0; i < n; ++i) {
        const cs_arrival* a = cs_pool_aux_at(&w->pools[CS_REC_QUEUE], i);
        out[i] = (crowd_arrival){
            .id = {.index1 = a->index1, .generation = a->generation, .world = w->tag},
            .user_data = a->user_data,
            .position = {a->x, a->y},
            .action = (crowd_queue_policy)a->action,
        };
    }
    *count = n;
    return CROWD_OK;
}

// ---- arrival phase ------------------------------------------------------------------------------

// The random bits of draw `k` of agent (index, generation) at tick `tick`: a function of the
// world's seed and those keys alone, not a position in a shared stream, so a draw does not depend
// on which other agents drew before it (nor, in a world split across processes, on where they
// live). Integer only.
static uint64_t draw_bits(uint64_t seed, crowd_agent_id id, uint64_t tick, uint32_t k) {
    return cs_keyed_bits(seed, (uint64_t)id.index1 << 32 | (uint64_t)id.generation << 8 | k, tick);
}

// A point of [lo, hi] from 24 random bits.
static float draw_range(uint64_t bits, float lo, float hi) {
    const float u = (float)(bits >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

// Moves an arrived agent to a random point of its start area where its disc is clear of every
// wall and outside every solid, as crowd_agent_add requires. A point that is not is drawn again,
// with the next draw numbers, at most CROWD_QUEUE_RESPAWN_DRAWS points in all; when every one is
// blocked the agent stays as it is and tries again on its next arrival (see CROWD_QUEUE_RESPAWN).
// A start area clear of walls only ever uses the first draw.
static void respawn(crowd_world* w, uint32_t idx) {
    // Earlier removals in the arrivals loop may have moved the agent: its slot is looked up now.
    const int32_t s = w->slot_of[idx];
    const crowd_agent_id id = cs_agent_handle(w, idx);
    const crowd_queue_def* d = &cs_queue_profile_at(w, s)->def;
    for (uint32_t k = 0; k < CROWD_QUEUE_RESPAWN_DRAWS; ++k) {
        const float x =
            draw_range(draw_bits(w->seed, id, w->tick, 2 * k), d->start_min.x, d->start_max.x);
        const float y =
            draw_range(draw_bits(w->seed, id, w->tick, 2 * k + 1), d->start_min.y, d->start_max.y);
        if (cs_walls_blocked(w, x, y, w->radius[idx])) continue;
        w->cur.px[s] = x;
        w->cur.py[s] = y;
        cs_grid_since_break(w);
        w->cur.vx[s] = 0.0f;
        w->cur.vy[s] = 0.0f;
        return;
    }
}

// Handle indices are unique: a total order, as cs_heapsort needs.
static int cmp_arrival(const void* a, const void* b) {
    const uint32_t x = ((const cs_arrival*)a)->index1, y = ((const cs_arrival*)b)->index1;
    return (x > y) - (x < y);
}

typedef struct arrival_ctx {
    crowd_world* w;
    const cs_pool* arrivals; // its aux elements: room for every queueing agent
    atomic_int count;
} arrival_ctx;

static void* arrival_at(const void* pool, size_t i) {
    return cs_pool_aux_at(pool, (int32_t)i);
}

static void arrival_team(void* arg, int t, int nt) {
    arrival_ctx* a = arg;
    const crowd_world* w = a->w;
    const int n = w->count;
    const cs_columns* c = &w->cur;
    int lo, hi;
    cs_team_range(n, 1, t, nt, &lo, &hi);
    for (int s = lo; s < hi; ++s) {
        // A ghost's arrival is its owner's to apply (core/dist_hooks.h).
        if ((c->flags[s] & (CS_FLAG_QUEUE | CS_FLAG_GHOST)) != CS_FLAG_QUEUE) continue;
        const crowd_queue_def* d = &cs_queue_profile_at(w, s)->def;
        const crowd_vec2 goal = cs_queue_goal_at(w, s);
        const float dx = c->px[s] - goal.x, dy = c->py[s] - goal.y;
        if (!(sqrtf(dx * dx + dy * dy) <= d->arrival_radius)) continue;
        // Within reach: the record says whether the arrival was reported already.
        const uint32_t idx = c->id[s];
        if (cs_queue_of(w, idx)->done) continue;
        const int at = atomic_fetch_add_explicit(&a->count, 1, memory_order_relaxed);
        *(cs_arrival*)cs_pool_aux_at(a->arrivals, at) = (cs_arrival){
            .index1 = idx + 1,
            .generation = w->generation[idx],
            .action = (uint8_t)d->on_arrival,
            .x = c->px[s],
            .y = c->py[s],
            .user_data = cs_user_data(w, idx),
        };
    }
}

// Tests every queueing agent in parallel on the positions just integrated. Arrivals are appended
// in whatever order the threads get there and then put in handle order: the order the policies are
// applied in (removals move other agents' slots) depends neither on the cell order nor on the
// threads. A respawn point depends on none of it: it is keyed by handle and tick.
void cs_pass_arrival(crowd_world* w) {
    cs_queue_world* qw = cs_queue_world_of(w);
    qw->arrival_count = 0;
    if (w->pools[CS_REC_QUEUE].live == 0) return;
    const cs_pool* arrivals = &w->pools[CS_REC_QUEUE];
    arrival_ctx ctx = {.w = w, .arrivals = arrivals};
    atomic_init(&ctx.count, 0);
    cs_team_run(w->threads, arrival_team, &ctx);
    const int k = atomic_load_explicit(&ctx.count, memory_order_relaxed);
    cs_heapsort_at(arrivals, arrival_at, (size_t)k, sizeof(cs_arrival), cmp_arrival);
    qw->arrival_count = k;

    for (int i = 0; i < k; ++i) {
        const cs_arrival* a = cs_pool_aux_at(arrivals, i);
        const uint32_t idx = a->index1 - 1;
        switch ((crowd_queue_policy)a->action) {
        case CROWD_QUEUE_STOP:
            cs_queue_of(w, idx)->done = 1;
            break;
        case CROWD_QUEUE_REMOVE:
            // The removal that cannot fail: what it could need (a fallback leader's group
            // scratch) was reserved when the behaviors were set.
            cs_agent_remove_now(w, idx);
            break;
        case CROWD_QUEUE_RESPAWN:
            respawn(w, idx);
            break;
        case CROWD_QUEUE_POLICY_COUNT:
            break;
        }
    }
}
