// RiMEA test 14 (route choice): a room with two ways to the same destination, a short narrow one
// and a long wide one. crowdstep routes each agent along the shortest way from where it stands
// (the walking-distance field of its goal), blind to the people on it: the choice is the
// geometry's, and congestion changes it only by pushing agents to where the other way is shorter.
// The case measures both: the share each way would take by the field from the starting points
// (everyone walking alone), and the share that takes each way in the crowd.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1

// The floor (metres): the room x in [0, 10], y in [0, R14_TOP]; between x = 10 and x = 20 two
// corridors, the short one 1 m wide (y in [4.5, 5.5]) and the long one 2 m wide along the top
// (y in [R14_LONG, R14_TOP]), with a solid block between them and one below the short one; then
// the destination's room x in [20, 26], the same height, the goal at (R14_GOAL_X, R14_GOAL_Y).
#define R14_LONG 12.0f
#define R14_TOP 14.0f
#define R14_X0 10.0f
#define R14_X1 20.0f
#define R14_GOAL_X 24.0f
#define R14_GOAL_Y 6.0f

static bool r14_floor(crowd_world* w, vwalls* k) {
    const float a = R14_X0, b = R14_X1, t = R14_TOP, l = R14_LONG;
    return v_wall(w, k, 0, 0, 26, 0) && v_wall(w, k, 0, t, 26, t) && v_wall(w, k, 0, 0, 0, t) &&
           v_wall(w, k, 26, 0, 26, t) &&
           // the block below the short corridor and the block between the corridors
           v_wall(w, k, a, 0, a, 4.5f) && v_wall(w, k, a, 4.5f, b, 4.5f) &&
           v_wall(w, k, b, 4.5f, b, 0) && v_wall(w, k, a, 5.5f, a, l) && v_wall(w, k, a, l, b, l) &&
           v_wall(w, k, b, l, b, 5.5f) && v_wall(w, k, a, 5.5f, b, 5.5f);
}

// The way the field sends an agent from p: 1 the long one (its corners reach the long corridor),
// 0 the short one, -1 no way. Corners followed through the public API.
static int r14_way(const crowd_world* w, const crowd_goal* g, crowd_vec2 p) {
    for (int hop = 0; hop < 32; ++hop) {
        crowd_route_info ri;
        if (crowd_nav_route_from(w, g, p, &ri) != CROWD_OK || ri.state != CROWD_ROUTE_STATE_ROUTED)
            return -1;
        if (ri.aim.x > R14_X0 - 0.5f) return ri.aim.y > 0.5f * (5.5f + R14_LONG) ? 1 : 0;
        if (ri.aim.x == p.x && ri.aim.y == p.y) return -1;
        p = ri.aim;
    }
    return -1;
}

void vcase_rimea14(const vopts* o, vresult* r) {
    const int n = o->small ? 80 : 250;
    snprintf(r->setup, VTEXT,
             "A room 10 m x 14 m with two ways east to a second room: a short corridor 1 m "
             "wide and 10 m long at mid-height (y 4.5-5.5 m) and a long one 2 m wide along the top "
             "(y 12-14 m), reached from the room's top, solid between them. The goal is a point in "
             "the second room, %.0f m past the corridors' ends and %.0f m north of the short one's "
             "line. %d agents on a jittered grid over the room (x 0.4-8 m, y 0.4-13.6 m), with a "
             "routed SEEK goal; removed once in the second room. Measured: the share each way "
             "would take by the goal's field from the starting points (corners of "
             "crowd_nav_route_from followed to a corridor: each agent alone), the share that "
             "takes each way in the crowd (which corridor it walked), how many changed, and the "
             "time the last one arrives.",
             R14_GOAL_X - R14_X1, R14_GOAL_Y - 5.0f, n);
    snprintf(r->reference, VTEXT,
             "the model describes the choice (both ways in use, each agent's way documented, a "
             "lone agent from the room's centre takes the short way); the shift to the long way "
             "in the crowd is documented, not bounded; everyone arrives");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 14 (route choice): persons in a start area can reach their "
             "destination by a short way and a long one; the guideline asks that the model can "
             "describe the choice and that how it chooses be documented, and sets no figures. "
             "(Its figure leads the short way over stairs; the engine steps agents on a plane, so "
             "here both ways are level and the short one is narrow.) crowdstep's choice: each "
             "agent follows the shortest way from where it stands, by walking distance with the "
             "clearance of its radius (crowd/nav.h); the field knows the walls, not the crowd. "
             "Congestion moves the choice only by moving agents, as in RiMEA test 11.");
    crowd_world* w = v_world(n + 16);
    vwalls walls = {0};
    bool ok = w && r14_floor(w, &walls);
    crowd_agent_id* ids = calloc((size_t)n, sizeof *ids);
    signed char* alone = calloc((size_t)n, 1); // the way from the start, by the field
    signed char* took = calloc((size_t)n, 1);  // the corridor walked: 0 short, 1 long, -1 not yet
    bool* in = calloc((size_t)n, sizeof *in);
    crowd_agent_def d = v_pedestrian();
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    d.goal.target = (crowd_vec2){R14_GOAL_X, R14_GOAL_Y};
    ok = ok && ids && alone && took && in && v_place(w, d, n, 0.4f, 8.0f, 0.4f, 13.6f, 1414, ids);
    ok = ok && crowd_world_nav_update(w) == CROWD_OK;
    int static_long = 0, lone = -1;
    for (int i = 0; ok && i < n; ++i) {
        crowd_vec2 q;
        crowd_agent_get_position(w, ids[i], &q);
        alone[i] = (signed char)r14_way(w, &d.goal, q);
        static_long += alone[i] == 1;
        ok = alone[i] >= 0;
        took[i] = -1, in[i] = true;
    }
    if (ok) lone = r14_way(w, &d.goal, (crowd_vec2){5.0f, 7.0f});
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "time (s)";
    p->ylabel = "agents arrived";
    p->xmin = 0, p->ymin = 0, p->ymax = n;
    vseries* s_short = vplot_add(p, VSERIES_LINE, "by the short way", "#e76f51");
    vseries* s_long = vplot_add(p, VSERIES_LINE, "by the long way", "#2a9d8f");
    int by[2] = {0, 0}, left = 0, tick = 0;
    double last[2] = {0, 0}; // the last arrival by each way
    float min_clear = INFINITY;
    const int limit = (int)(400.0 / DT);
    for (; ok && tick < limit && left < n; ++tick) {
        ok = crowd_world_step(w) == CROWD_OK;
        for (int i = 0; ok && i < n; ++i) {
            if (!in[i]) continue;
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            min_clear = fminf(min_clear, v_wall_distance(&walls, q) - 0.3f);
            if (took[i] < 0 && q.x > R14_X0 + 0.5f)
                took[i] = q.y > 0.5f * (5.5f + R14_LONG) ? 1 : 0;
            if (q.x <= R14_X1 + 0.3f) continue;
            by[took[i] == 1]++;
            last[took[i] == 1] = (tick + 1) * DT;
            in[i] = false;
            left++;
            crowd_agent_remove(w, ids[i]);
        }
        if (tick % 20 == 0 && s_short->n < VPLOT_MAX_POINTS - 1) {
            vseries_push(s_short, (tick + 1) * DT, by[0], 0);
            vseries_push(s_long, (tick + 1) * DT, by[1], 0);
        }
    }
    vseries_push(s_short, tick * DT, by[0], 0);
    vseries_push(s_long, tick * DT, by[1], 0);
    p->xmax = tick * DT;
    crowd_world_destroy(w);
    int to_long = 0, to_short = 0;
    for (int i = 0; ok && i < n; ++i) {
        to_long += alone[i] == 0 && took[i] == 1;
        to_short += alone[i] == 1 && took[i] == 0;
    }
    free(ids), free(alone), free(took), free(in);
    if (!ok) {
        snprintf(r->measured, VTEXT, "the engine refused the set-up or a step");
        return;
    }
    snprintf(r->measured, VTEXT,
             "alone: %.0f%% short, %.0f%% long; in the crowd: %.0f%% short, %.0f%% long (%d "
             "changed to the long way, %d to the short); %d of %d arrived, the last after %.1f "
             "s (by the long way: %.1f s); a lone agent from the centre takes the %s way; least "
             "clearance between a body "
             "and a wall %.3f m",
             100.0 * (n - static_long) / n, 100.0 * static_long / n, 100.0 * by[0] / n,
             100.0 * by[1] / n, to_long, to_short, left, n, tick * DT, last[1],
             lone == 0   ? "short"
             : lone == 1 ? "long"
                         : "(no)",
             min_clear);
    r->pass = left == n && by[0] > 0 && by[1] > 0 && lone == 0 && min_clear >= -0.05f;
}
