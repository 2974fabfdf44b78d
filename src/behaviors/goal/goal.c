// Goal pass: seek / arrive (stopping or literal) / flee toward each agent's goal point, braked by
// the queue cone, or for a pedestrian goal (CROWD_GOAL_PEDESTRIAN) held to the headway speed of the
// one ahead (the neighbor pass's CS_NB_HEADWAY output) and turned by its fluctuation; a pedestrian
// goal's aim, the way it steered along, is recorded for the next step's headway.
//
// The pass works in blocks of GOAL_BLOCK slots. A scalar loop reads the goal agents' hot columns
// and profiles (and, for queuers, what the neighbor pass found: cs_nb_out) into short lane arrays;
// one vector loop over the block's slots then computes every force. What
// differs from agent to agent (the goal's mode, a brake or a file's tail point, whether anybody
// is ahead) is computed for every lane and selected, never branched on: those branches are taken
// at random from agent to agent, and their mispredictions cost more than all the arithmetic of
// the pass. Each lane performs exactly the operations of the scalar steering functions
// (steer/steer_math.h) on its own agent's values, so the forces are those of a per-agent loop,
// bit for bit.
#include <math.h>

#include "behaviors/goal/goal_internal.h"
#include "steer/steer_math.h"

#define GOAL_BLOCK 64

// How an agent queues, for the vector loop.
enum { NO_QUEUE, QUEUE_CONE, QUEUE_FILE };

// One block's record values, lane i for slot (block start + i).
typedef struct goal_lanes {
    int32_t mode[GOAL_BLOCK]; // CROWD_GOAL_NONE for agents without a goal
    int32_t queue[GOAL_BLOCK];
    float tx[GOAL_BLOCK], ty[GOAL_BLOCK], slow[GOAL_BLOCK], weight[GOAL_BLOCK];
    // CONE: the closest along the cone and the cone's length. FILE: the offset to the one ahead.
    float qa[GOAL_BLOCK], qb[GOAL_BLOCK];
    // CROWD_GOAL_PEDESTRIAN (CS_FLAG_HEADWAY, `ped`): the distance to the one ahead along its last
    // aim (+inf: none, and for the other agents), the seek's response time (1 for the others: the
    // spec's seek) and the fluctuation's draw (cs_steer_fluct_draw; 0 for the others).
    int32_t ped[GOAL_BLOCK];
    float hw[GOAL_BLOCK], resp[GOAL_BLOCK], draw[GOAL_BLOCK];
} goal_lanes;

// Which forces a block needs: the stopping arrive, the others, or both.
enum { NEED_STOP = 1, NEED_TOWARD = 2 };

// The point the agent in slot s steers for: its goal's target, or with routing (crowd/nav.h) the
// next corner of its way or the nearest exit. A corner is pushed out along the same direction
// beyond where an arrive starts to slow down (the slow radius plus the braking distance at full
// speed), so the agent keeps its speed past it.
// *in_sight: the point is the goal (or an exit, or the stand-in of an unreachable goal), not a
// corner on the way.
// The field entry is read through the routed goal's memo (cs_goal_memo_at), while it has one.
// A goal whose destination is spread (crowd/nav.h: no field of its own) is planned per agent
// (cs_nav_spread_aim_memo) with the scratch of thread t; its aim goes through the same memo.
static inline crowd_vec2 route(const crowd_world* w, const cs_columns* c, int s,
                               const crowd_goal* g, int t, bool* in_sight) {
    *in_sight = true;
    const bool routed = g->route == CROWD_ROUTE_FIELD && g->mode != CROWD_GOAL_FLEE;
    if (!(routed && w->nav.blocked) && !g->exits.index1) return g->target;
    const crowd_vec2 pos = {c->px[s], c->py[s]};
    // A routed goal has its memo while the world counts routes (goal_internal.h).
    cs_nav_aim a;
    if (routed && cs_goal_memo_live(w)) {
        cs_nav_memo m = cs_goal_memo_at(w, s);
        const bool spread = w->nav.spreading && !g->exits.index1 &&
                            !cs_nav_memo_serves(&w->nav, &m, pos) &&
                            cs_nav_is_spread(&w->nav, g->target);
        a = spread ? cs_nav_spread_aim_memo(w, g->target, pos, c->id[s], t, &m)
                   : cs_nav_aim_memo(&w->nav, g->target, g->exits, pos, &m);
        cs_goal_memo_set(w, s, m);
    } else {
        a = cs_nav_aim_of(&w->nav, g->target, g->exits, pos, routed);
    }
    const float v = c->max_speed[s];
    *in_sight = a.final;
    return cs_nav_steer_point(a, pos, g->slow_radius + v * v / c->max_force[s]);
}

// Reads slots [lo, lo + k) into lanes 0 .. k - 1: the goal from its hot columns and profile, a
// queue's brake or file from the neighbor pass's outputs; returns what the block needs.
static int gather_block(const crowd_world* w, int lo, int k, int t, goal_lanes* l) {
    int need = 0;
    const cs_columns* c = &w->cur;
    const float* gx = cs_hot_f32(w, CS_HOT_GOAL_X);
    const float* gy = cs_hot_f32(w, CS_HOT_GOAL_Y);
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_GOAL_PROFILE);
    const cs_profiles* profiles = &w->profiles[CS_PROF_GOAL];
    // The neighbor pass's outputs a queueing agent reads: the cone's, the file's one ahead.
    const float* cone_out = cs_nb_out(w, CS_NB_CONE, 0);
    const uint32_t* file_out = (const uint32_t*)(const void*)cs_nb_out(w, CS_NB_FILE, 0);
    const float* hw_out = cs_nb_out(w, CS_NB_HEADWAY, 0);
    // Routed agents read a field entry each, at random in fields of megabytes (agents of several
    // destinations mix in every cell): the block's entries are fetched together first, so their
    // misses overlap.
    if (w->nav.blocked)
        for (int i = 0; i < k; ++i) {
            const int s = lo + i;
            if (!(c->flags[s] & CS_FLAG_GOAL)) continue;
            const cs_goal_profile* p = cs_profiles_at(profiles, prof[s] - 1);
            if (p->route != CROWD_ROUTE_FIELD || p->mode == CROWD_GOAL_FLEE) continue;
            const crowd_vec2 pos = {c->px[s], c->py[s]};
            // Only an agent whose memo will not serve (cs_nav_aim_memo) reads its field.
            const cs_nav_memo m = cs_goal_memo_live(w) ? cs_goal_memo_at(w, s) : (cs_nav_memo){0};
            if (!cs_nav_memo_serves(&w->nav, &m, pos)) {
                const crowd_exits_id exits = {
                    .index1 = p->exits_index1, .generation = p->exits_generation, .world = w->tag};
                cs_nav_prefetch(&w->nav, (crowd_vec2){gx[s], gy[s]}, exits, pos);
            }
        }
    for (int i = 0; i < k; ++i) {
        const int s = lo + i;
        const uint32_t flags = c->flags[s];
        if (!(flags & CS_FLAG_GOAL)) {
            l->mode[i] = CROWD_GOAL_NONE;
            continue;
        }
        // A goal flag means a goal other than the default, with a profile.
        const crowd_goal g = cs_goal_at(w, s);
        l->mode[i] = (int32_t)g.mode;
        need |= g.mode == CROWD_GOAL_ARRIVE ? NEED_STOP : NEED_TOWARD;
        bool in_sight;
        const crowd_vec2 to = route(w, c, s, &g, t, &in_sight);
        l->tx[i] = to.x;
        l->ty[i] = to.y;
        l->slow[i] = g.slow_radius;
        l->weight[i] = g.weight;
        l->queue[i] = NO_QUEUE;
        l->qa[i] = INFINITY;
        l->qb[i] = 1.0f;
        const bool ped = flags & CS_FLAG_HEADWAY;
        l->hw[i] = ped ? hw_out[s] : INFINITY;
        l->ped[i] = ped;
        l->draw[i] = ped ? cs_steer_fluct_draw((crowd_vec2){c->px[s], c->py[s]}) : 0.0f;
        l->resp[i] = ped ? CROWD_GOAL_RESPONSE_TIME : 1.0f;
        if (flags & CS_FLAG_QUEUE) {
            // What the neighbor pass found: the closest along the cone, or the offset to the one
            // ahead in the file (its per-slot outputs).
            const bool cone = flags & CS_FLAG_QUEUE_CONE;
            l->queue[i] = cone ? QUEUE_CONE : QUEUE_FILE;
            // The cone's output is already over the cone's length: the brake divides it by 1. The
            // file's is the slot of the one ahead, whose offset the positions give.
            const uint32_t j = file_out[s];
            const bool ahead = !cone && j != CS_NB_NONE;
            l->qa[i] = cone ? cone_out[s] : (ahead ? c->px[j] - c->px[s] : INFINITY);
            l->qb[i] = cone ? 1.0f : (ahead ? c->py[j] - c->py[s] : 0.0f);
            // A file forms where the goal is in sight: on the way round a corner the one ahead
            // may be across a wall, and the point behind it is not on the way.
            if (!cone && !in_sight) l->qa[i] = INFINITY;
        }
    }
    return need;
}

// The forces of slots [lo, lo + k), added to fx, fy (indexed by slot). `need` is a constant at
// each call, so the force a block has no agent for is not computed.
static inline __attribute__((always_inline)) void
block_forces(int need, const goal_lanes* restrict l, const float* restrict px,
             const float* restrict py, const float* restrict vx, const float* restrict vy,
             const float* restrict max_speed, const float* restrict max_force, float* restrict fx,
             float* restrict fy, float* restrict aim_x, float* restrict aim_y, int lo, int k) {
#pragma omp simd
    for (int i = 0; i < k; ++i) {
        const int s = lo + i;
        const int32_t mode = l->mode[i], queue = l->queue[i];
        const crowd_vec2 pos = {px[s], py[s]}, vel = {vx[s], vy[s]};
        const crowd_vec2 point = {l->tx[i], l->ty[i]};
        const float qa = l->qa[i], qb = l->qb[i];
        // CONE: the spec's brake scales the speed (by exactly 1 in the other lanes).
        const float brake = cs_steer_brake(queue == QUEUE_CONE ? qa : INFINITY, qb);
        // PEDESTRIAN: at most the headway speed of the one ahead along the last aim (+inf, and
        // so max_speed, in the other lanes).
        const float hw_speed = cs_steer_headway_speed(
            l->hw[i], max_speed[s], CROWD_GOAL_HEADWAY_GAP, CROWD_GOAL_HEADWAY_TIME);
        const float braked = max_speed[s] * brake;
        const float speed = hw_speed < braked ? hw_speed : braked;
        // PEDESTRIAN: the way to the point turned by the fluctuation, as far as the agent walks
        // slower than it wants. An ARRIVE wants its speed up to its braking distance and nothing
        // within its slow radius, where a crowd arriving at one point settles.
        const bool ped = l->ped[i] != 0;
        const crowd_vec2 to = {point.x - pos.x, point.y - pos.y};
        const float dist = sqrtf(to.x * to.x + to.y * to.y);
        const float brakes = sqrtf(dist * max_force[s]);
        const float settle = dist < l->slow[i] ? 0.0f : (speed < brakes ? speed : brakes);
        const float want = mode == CROWD_GOAL_ARRIVE ? settle : speed;
        const crowd_vec2 turned = cs_steer_turn(
            to, cs_steer_fluct_tangent(vel, want, l->draw[i], CROWD_GOAL_FLUCTUATION));
        const crowd_vec2 goal = {ped ? pos.x + turned.x : point.x,
                                 ped ? pos.y + turned.y : point.y};
        // FILE: the point CROWD_QUEUE_GAP short of the one ahead, on the way to the goal, when
        // there is one. Softer than a goal's arrive: two agents making for the same tail give
        // way to each other's separation instead of pressing into one spot.
        const bool tail = queue == QUEUE_FILE && qa < INFINITY;
        const crowd_vec2 u = cs_steer_normalize((crowd_vec2){goal.x - pos.x, goal.y - pos.y});
        const crowd_vec2 behind = {pos.x + qa - u.x * CROWD_QUEUE_GAP,
                                   pos.y + qb - u.y * CROWD_QUEUE_GAP};
        const crowd_vec2 target = {tail ? behind.x : goal.x, tail ? behind.y : goal.y};
        const float response = tail ? CROWD_QUEUE_RESPONSE_TIME : CROWD_STEER_RESPONSE_TIME;

        // The stopping arrive.
        crowd_vec2 stop = {0.0f, 0.0f};
        if (need & NEED_STOP)
            stop = cs_steer_arrive_to(pos, vel, speed, max_force[s], target,
                                      (crowd_vec2){0.0f, 0.0f}, l->slow[i], response);
        // Seek (toward the file's point too), the spec's arrive and flee (toward the goal itself):
        // each is cs_steer_toward along the way to, or fleeing, from the target, the arrive at
        // speed times its ramp; pos - threat is exactly -(threat - pos), and speed * 1 is speed.
        const bool seek = mode == CROWD_GOAL_SEEK, flee = mode == CROWD_GOAL_FLEE;
        const bool literal = mode == CROWD_GOAL_ARRIVE_LITERAL;
        const crowd_vec2 aim = {seek ? target.x : goal.x, seek ? target.y : goal.y};
        const float tox = aim.x - pos.x, toy = aim.y - pos.y;
        const crowd_vec2 dir = {flee ? pos.x - aim.x : tox, flee ? pos.y - aim.y : toy};
        const float ramp = sqrtf(tox * tox + toy * toy) / (literal ? l->slow[i] : 1.0f);
        const float k_ramp = literal ? (ramp < 1.0f ? ramp : 1.0f) : 1.0f;
        crowd_vec2 toward = {0.0f, 0.0f};
        if (need & NEED_TOWARD) {
            // PEDESTRIAN: a seek that closes the gap in CROWD_GOAL_RESPONSE_TIME (/ 1 elsewhere).
            const crowd_vec2 t = cs_steer_toward(dir, speed * k_ramp, vel);
            toward = (crowd_vec2){t.x / l->resp[i], t.y / l->resp[i]};
        }

        const bool arrive = mode == CROWD_GOAL_ARRIVE;
        const float w = l->weight[i];
        const float gx = (arrive ? stop.x : toward.x) * w, gy = (arrive ? stop.y : toward.y) * w;
        const bool has = mode != CROWD_GOAL_NONE;
        fx[s] = has ? fx[s] + gx : fx[s];
        fy[s] = has ? fy[s] + gy : fy[s];
        // The aim the next step's headway looks along: the way to the point steered for; 0 for a
        // goal that is not pedestrian (a stale aim of one that has just stopped being so too).
        aim_x[s] = has ? (ped ? u.x : 0.0f) : aim_x[s];
        aim_y[s] = has ? (ped ? u.y : 0.0f) : aim_y[s];
    }
}

static void goal_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const cs_columns* c = &w->cur;
    goal_lanes lanes = {0}; // a lane without a goal keeps the last values: defined, unused
    float* aim_x = cs_hot_f32(w, CS_HOT_GOAL_AIM_X);
    float* aim_y = cs_hot_f32(w, CS_HOT_GOAL_AIM_Y);
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    for (int b = lo; b < hi; b += GOAL_BLOCK) {
        const int k = hi - b < GOAL_BLOCK ? hi - b : GOAL_BLOCK;
        const int need = gather_block(w, b, k, t, &lanes);
#define FORCES(n)                                                                                  \
    block_forces(n, &lanes, c->px, c->py, c->vx, c->vy, c->max_speed, c->max_force, w->force_x,    \
                 w->force_y, aim_x, aim_y, b, k)
        if (need == NEED_STOP)
            FORCES(NEED_STOP);
        else if (need == NEED_TOWARD)
            FORCES(NEED_TOWARD);
        else if (need)
            FORCES(NEED_STOP | NEED_TOWARD);
#undef FORCES
    }
}

void cs_pass_goal(crowd_world* w) {
    if (!cs_hot_live(w, CS_HOT_GOAL_PROFILE))
        return; // nobody has had a goal other than the default
    cs_team_run(w->threads, goal_team, w);
}
