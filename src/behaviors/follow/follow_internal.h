// Follow leader internals: per-agent records, the follow formula and the slot assignment.
#ifndef CS_FOLLOW_H
#define CS_FOLLOW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "crowd/leader.h"
#include "crowd/steer.h"
#include "steer/steer_math.h"

// A follower's record (ACTIVE or STOPPED, exactly while CS_FLAG_FOLLOW), read by the leader pass
// for every follower: at most a cache line.
typedef struct cs_follower {
    uint32_t leader; // leader agent index + 1; 0 when not ACTIVE
    float behind_dist, ahead_dist, ahead_radius, slow_radius;
    float evade_weight, separation_weight, weight;
    union {
        crowd_vec2 slot;   // ACTIVE: slot offset in the leader frame, valid when slot_index >= 0
        crowd_vec2 target; // STOPPED: the point it holds
    };
    int32_t slot_index; // -1: no slot (behind point)
    uint8_t state;      // crowd_follow_state
    uint8_t use_slot;   // def.target == CROWD_FOLLOW_SLOT
    uint8_t predict : 1;
    uint8_t literal : 1; // def.form == CROWD_FOLLOW_LITERAL
    uint8_t pad;
    uint32_t next, prev; // siblings in the leader's list, agent index + 1 (0 = none)
} cs_follower;

_Static_assert(sizeof(cs_follower) <= 64, "a follower record fits a cache line");

// A leader's state as its followers read it, written once per step by the leader pass.
typedef struct cs_lead_state {
    float px, py, vx, vy;
    float hx, hy; // the spec heading: normalize(v), or the last valid heading
} cs_lead_state;

// A leader's record: from the first call that names the agent as a leader (a follower joining
// it, a formation, a fallback) until its removal. An agent without one leads nobody and has the
// default formation and no fallback.
typedef struct cs_leader {
    cs_lead_state lead;      // valid during the leader pass while it has followers
    uint32_t head, tail;     // followers in join order, agent index + 1 (0 = none)
    int32_t followers;       // list length
    int32_t slotted;         // followers with use_slot
    crowd_agent_id fallback; // null when none
    uint32_t dirty;          // position in the dirty list + 1; 0 when not waiting
    uint8_t has_formation;   // 0: crowd_formation_def_default()
    uint8_t shape;
    uint16_t pad;
    int32_t columns;
    float spacing, distance;
    int32_t custom_count;
    crowd_vec2* custom; // CUSTOM offsets, owned by the world's allocator
} cs_leader;

// The follow behavior's world state.
typedef struct cs_follow_world {
    int dirty_count;      // leaders waiting for a slot reassignment (the leader pool's aux list)
    void* scratch;        // scratch_threads pieces of scratch_bytes for the slot assignment
    size_t scratch_bytes; // per thread
    int scratch_threads;
    // The bound of what a removal inside a step may need, reserved beforehand (follow_api.c,
    // "removal in two halves"): the followers (the follower pool's live count) and these.
    int fallbacks;  // leader records with a non-null fallback
    int custom_max; // largest CUSTOM formation set since creation or load (slots a group offers)
} cs_follow_world;

static inline cs_follow_world* cs_follow_world_of(const crowd_world* w) {
    return w->state[CS_BEH_FOLLOW];
}

static inline cs_follower* cs_follower_of(const crowd_world* w, uint32_t idx) {
    return cs_record_of(w, CS_REC_FOLLOWER, idx);
}
static inline cs_leader* cs_leader_of(const crowd_world* w, uint32_t idx) {
    return cs_record_of(w, CS_REC_LEADER, idx);
}

// Entry k of the list of leaders waiting for a slot reassignment (the leader pool's aux elements:
// room for every leader).
static inline uint32_t* cs_follow_dirty_at(const crowd_world* w, int k) {
    return cs_pool_aux_at(&w->pools[CS_REC_LEADER], k);
}

// Links follower x (record f) at the tail of leader l's list and counts it; the caller sets f->next
// and the slot count.
static inline void cs_follow_append(const crowd_world* w, cs_leader* l, cs_follower* f,
                                    uint32_t x) {
    f->prev = l->tail;
    if (l->tail)
        cs_follower_of(w, l->tail - 1)->next = x + 1;
    else
        l->head = x + 1;
    l->tail = x + 1;
    l->followers++;
}

// ---- the formula ------------------------------------------------------------------------------
// Built from the inline math of steer/steer_math.h, branch-free like it: the pure function
// (crowd_steer_follow_leader) calls these once, the leader pass once per lane of a vectorized
// loop, so the two agree bit for bit.

// A point given in the leader frame (x forward, y left) in world space.
static inline crowd_vec2 cs_follow_to_world(crowd_vec2 lp, crowd_vec2 h, crowd_vec2 off) {
    return cs_steer_v2(lp.x + h.x * off.x + -h.y * off.y, lp.y + h.y * off.x + h.x * off.y);
}

// The slot in world space when has_slot, else the behind point.
static inline crowd_vec2 cs_follow_target(crowd_vec2 lp, crowd_vec2 h, bool has_slot,
                                          crowd_vec2 slot, float behind_dist) {
    const crowd_vec2 s = cs_follow_to_world(lp, h, slot);
    const crowd_vec2 b = cs_steer_v2(lp.x - h.x * behind_dist, lp.y - h.y * behind_dist);
    return cs_steer_v2(has_slot ? s.x : b.x, has_slot ? s.y : b.y);
}

// The follow force toward `target` (already in world space), h the leader's spec heading, in the
// KEEP_UP or the LITERAL form (crowd/leader.h). A stopped follower (no leader, lv zero) only
// arrives at its target.
static inline crowd_vec2 cs_follow_eval(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                        float max_force, crowd_vec2 lp, crowd_vec2 lv, crowd_vec2 h,
                                        crowd_vec2 target, crowd_vec2 sep, float ahead_dist,
                                        float ahead_radius, float slow_radius, float evade_weight,
                                        float separation_weight, bool predict, bool literal,
                                        bool stopped) {
    const crowd_vec2 ahead = cs_steer_v2(lp.x + h.x * ahead_dist, lp.y + h.y * ahead_dist);
    const float zx = pos.x - ahead.x, zy = pos.y - ahead.y;
    const bool in_zone = !stopped & (sqrtf(zx * zx + zy * zy) < ahead_radius);
    const crowd_vec2 e = cs_steer_evade(pos, vel, max_speed, ahead, lv);
    crowd_vec2 f = cs_steer_v2(in_zone ? 0.0f + e.x * evade_weight : 0.0f,
                               in_zone ? 0.0f + e.y * evade_weight : 0.0f);

    // KEEP_UP feeds the leader's velocity forward already: prediction is the literal form's.
    const bool pred = !stopped & predict & literal;
    const float t = cs_steer_predict_time(pos, max_speed, target);
    const crowd_vec2 pt = cs_steer_v2(target.x + lv.x * t, target.y + lv.y * t);
    const crowd_vec2 to = cs_steer_v2(pred ? pt.x : target.x, pred ? pt.y : target.y);
    const crowd_vec2 al = cs_steer_arrive(pos, vel, max_speed, to, slow_radius);
    const crowd_vec2 ak = cs_steer_arrive_to(pos, vel, max_speed, max_force, to, lv, slow_radius,
                                             CROWD_FOLLOW_RESPONSE_TIME);
    const crowd_vec2 a = cs_steer_v2(literal ? al.x : ak.x, literal ? al.y : ak.y);
    f = cs_steer_v2(f.x + a.x, f.y + a.y);
    f = cs_steer_v2(f.x + sep.x * separation_weight, f.y + sep.y * separation_weight);
    return cs_steer_limit(cs_steer_v2(stopped ? a.x : f.x, stopped ? a.y : f.y), max_force);
}

// cs_follow_eval for an ACTIVE follower with the parameters taken from a follower record;
// last_heading is the leader's last valid heading.
static inline crowd_vec2 cs_follow_force(const cs_follower* p, crowd_vec2 pos, crowd_vec2 vel,
                                         float max_speed, float max_force, crowd_vec2 lp,
                                         crowd_vec2 lv, crowd_vec2 last_heading, crowd_vec2 sep,
                                         bool has_slot, crowd_vec2 slot) {
    const crowd_vec2 h = cs_steer_heading(lv, last_heading);
    const crowd_vec2 target = cs_follow_target(lp, h, has_slot, slot, p->behind_dist);
    return cs_follow_eval(pos, vel, max_speed, max_force, lp, lv, h, target, sep, p->ahead_dist,
                          p->ahead_radius, p->slow_radius, p->evade_weight, p->separation_weight,
                          p->predict != 0, p->literal != 0, false);
}

// The parameter part of a follower record from a def.
void cs_follow_params(cs_follower* rec, const crowd_follow_def* def);
crowd_follow_def cs_follow_def_of(const cs_follower* rec);

// ---- formations (formation.c) -----------------------------------------------------------------

// Number of slots the leader's formation offers to n slot followers.
int cs_formation_slot_count(const cs_leader* l, int n);
// Writes cs_formation_slot_count(l, n) slot offsets.
void cs_formation_slots(const cs_leader* l, int n, crowd_vec2* out);

// ---- slot assignment (assign.c) ---------------------------------------------------------------
// Followers and slots are points in the leader frame; the cost of follower i in slot j is their
// Euclidean distance (double). Follower i ranks before i + 1 in every tie-break. out[i] receives
// follower i's slot, or -1 when it gets none (only when m < n).

// Scratch bytes cs_assign_slots needs for n followers and m slots.
size_t cs_assign_scratch_bytes(int n, int m);
// An upper bound of cs_assign_scratch_bytes(n', m') over n' <= n, m' <= m.
size_t cs_assign_scratch_bound(int n, int m);

// Picks the method by size (see crowd/leader.h) and assigns.
void cs_assign_slots(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                     void* scratch);

// The least total distance (Hungarian method).
void cs_assign_exact(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                     void* scratch);
// Greedy by distance with tie-break (i, j), then pairwise and free-slot improvement.
void cs_assign_greedy(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                      void* scratch);
// Front-to-back, then left-to-right order matching (huge groups).
void cs_assign_sorted(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                      void* scratch);

// ---- engine hooks (leader.c, follow_api.c) ----------------------------------------------------

// Scratch bytes one group of n slot followers with m slots needs; non-decreasing in n and m, so a
// group that shrinks never needs more than it had.
size_t cs_follow_group_bytes(int n, int m);

// The leader pass: reassigns the slots of waiting leaders, then adds every follower's weighted
// follow force into force_x / force_y.
void cs_pass_leader(crowd_world* w);

// The removal hook: the agent stops following, its followers take its fallback or stop. Cannot
// fail: the scratch a fallback's group needs was reserved beforehand (follow_api.c).
void cs_follow_on_remove(crowd_world* w, uint32_t idx);
// Table hook (a split world, core/behavior.h): whether slot s is read across the world.
bool cs_follow_dist_linked(const crowd_world* w, int s);
// Table hook: the separation form of a follower or leader (behaviors/separation.h).
cs_sep_form cs_follow_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags);

// After a snapshot load: counts the fallbacks and formations and reserves what removals need.
crowd_status cs_follow_reserve_loaded(crowd_world* w);

// Follower and leader records of agent idx into the state hash.
uint64_t cs_follow_hash(const crowd_world* w, uint32_t idx, uint64_t h);

// The rules crowd_agent_follow and crowd_leader_set_formation apply to their defs.
crowd_status cs_follow_check_def(const crowd_follow_def* d);
crowd_status cs_formation_check_def(const crowd_formation_def* d);

// Makes the slot assignment scratch large enough for leader li's group as it stands (a leader
// with a record); a loaded world's groups get their scratch through it.
crowd_status cs_follow_reserve_group(crowd_world* w, uint32_t li);

// Frees what the follow behavior owns besides its pools and state block (formation offsets,
// scratch).
void cs_follow_destroy(crowd_world* w);

#endif
