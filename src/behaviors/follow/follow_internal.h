// Follow leader internals: per-agent records, the follow formula and the slot assignment.
#ifndef CS_FOLLOW_H
#define CS_FOLLOW_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "crowd/leader.h"
#include "crowd/steer.h"

// A follower's record (ACTIVE or STOPPED, exactly while CS_FLAG_FOLLOW), read by the leader pass
// for every follower: one cache line.
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
    uint8_t predict;
    uint8_t pad;
    crowd_vec2 gsep;     // neighbor pass: separation among the group's followers (unweighted)
    uint32_t next, prev; // siblings in the leader's list, agent index + 1 (0 = none)
} cs_follower;

_Static_assert(sizeof(cs_follower) == 64, "a follower record is one cache line");

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

// ---- the formula ------------------------------------------------------------------------------
// The primitives below repeat cs_steer_* (src/steer.c) expression by expression so the leader
// pass can inline them; tests check they stay bit-identical to the public functions.

static inline crowd_vec2 fl_v2(float x, float y) {
    return (crowd_vec2){x, y};
}

static inline crowd_vec2 fl_toward(crowd_vec2 dir, float speed, crowd_vec2 vel) {
    const float len = sqrtf(dir.x * dir.x + dir.y * dir.y);
    const crowd_vec2 n = len > 0.0f ? fl_v2(dir.x / len, dir.y / len) : fl_v2(0.0f, 0.0f);
    return fl_v2(n.x * speed - vel.x, n.y * speed - vel.y);
}

static inline crowd_vec2 fl_arrive(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                   crowd_vec2 target, float slow_radius) {
    const crowd_vec2 to = fl_v2(target.x - pos.x, target.y - pos.y);
    const float dist = sqrtf(to.x * to.x + to.y * to.y);
    const float ramp = dist / slow_radius;
    const float speed = max_speed * (ramp < 1.0f ? ramp : 1.0f);
    return fl_toward(to, speed, vel);
}

static inline float fl_predict_time(crowd_vec2 pos, float max_speed, crowd_vec2 other) {
    const float dx = other.x - pos.x, dy = other.y - pos.y;
    return sqrtf(dx * dx + dy * dy) / max_speed;
}

static inline crowd_vec2 fl_evade(crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                  crowd_vec2 threat_pos, crowd_vec2 threat_vel) {
    const float t = fl_predict_time(pos, max_speed, threat_pos);
    const crowd_vec2 at = fl_v2(threat_pos.x + threat_vel.x * t, threat_pos.y + threat_vel.y * t);
    return fl_toward(fl_v2(pos.x - at.x, pos.y - at.y), max_speed, vel);
}

static inline crowd_vec2 fl_limit(crowd_vec2 v, float max_len) {
    const float len2 = v.x * v.x + v.y * v.y;
    if (len2 > max_len * max_len) {
        const float s = max_len / sqrtf(len2);
        return fl_v2(v.x * s, v.y * s);
    }
    return v;
}

// The spec's leader heading: normalize(velocity) while |velocity|^2 > 0.01, else the last valid
// heading. The same expressions as the integration's heading update.
static inline crowd_vec2 fl_heading(crowd_vec2 vel, crowd_vec2 last) {
    const float sp2 = vel.x * vel.x + vel.y * vel.y;
    if (!(sp2 > 0.01f)) return last;
    const float len = sqrtf(sp2);
    return fl_v2(vel.x / len, vel.y / len);
}

// A point given in the leader frame (x forward, y left) in world space.
static inline crowd_vec2 fl_to_world(crowd_vec2 lp, crowd_vec2 h, crowd_vec2 off) {
    return fl_v2(lp.x + h.x * off.x + -h.y * off.y, lp.y + h.y * off.x + h.x * off.y);
}

static inline crowd_vec2 fl_target(crowd_vec2 lp, crowd_vec2 h, bool has_slot, crowd_vec2 slot,
                                   float behind_dist) {
    if (has_slot) return fl_to_world(lp, h, slot);
    return fl_v2(lp.x - h.x * behind_dist, lp.y - h.y * behind_dist);
}

// crowd_steer_follow_leader with the parameters taken from a follower record.
static inline crowd_vec2 cs_follow_force(const cs_follower* p, crowd_vec2 pos, crowd_vec2 vel,
                                         float max_speed, float max_force, crowd_vec2 lp,
                                         crowd_vec2 lv, crowd_vec2 last_heading, crowd_vec2 sep,
                                         bool has_slot, crowd_vec2 slot) {
    const crowd_vec2 h = fl_heading(lv, last_heading);
    crowd_vec2 target = fl_target(lp, h, has_slot, slot, p->behind_dist);
    const crowd_vec2 ahead = fl_v2(lp.x + h.x * p->ahead_dist, lp.y + h.y * p->ahead_dist);

    crowd_vec2 f = fl_v2(0.0f, 0.0f);
    const float ax = pos.x - ahead.x, ay = pos.y - ahead.y;
    if (sqrtf(ax * ax + ay * ay) < p->ahead_radius) {
        const crowd_vec2 e = fl_evade(pos, vel, max_speed, ahead, lv);
        f.x += e.x * p->evade_weight;
        f.y += e.y * p->evade_weight;
    }
    if (p->predict) {
        const float t = fl_predict_time(pos, max_speed, target);
        target = fl_v2(target.x + lv.x * t, target.y + lv.y * t);
    }
    const crowd_vec2 a = fl_arrive(pos, vel, max_speed, target, p->slow_radius);
    f.x += a.x;
    f.y += a.y;
    f.x += sep.x * p->separation_weight;
    f.y += sep.y * p->separation_weight;
    return fl_limit(f, max_force);
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
