// RiMEA test 12 (the effect of a bottleneck): a room emptying through a corridor into a second
// room and out of its exit. The corridor limits the flow, so the jam forms before it, in room 1,
// and room 2 stays free of one. Measured by the density in an area before the corridor's entrance
// and in one before the exit, each agent's time across room 2, and the least distance between two
// agents' centres (the engine has no contact force between bodies: how far they overlap in the
// jam).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1

// The floor (metres): room 1 x in [0, 10], y in [0, 10]; the corridor x in [10, 15], y in
// [4.5, 5.5]; room 2 x in [15, 25], y in [0, 10]; the exit a 1 m opening in room 2's east wall,
// centred on y = 5.
#define R12_CORR_X0 10.0f
#define R12_CORR_X1 15.0f
#define R12_EXIT_X 25.0f
#define R12_HALF 0.5f // half the corridor's and the exit's width
// The measurement areas, 2 m x 2 m: before the corridor's entrance (room 1) and before the exit
// (room 2).
#define R12_AREA 2.0f
// Room 2's free walking time: from the corridor's end to the exit at the free speed.
#define R12_FREE_T ((R12_EXIT_X - R12_CORR_X1) / V_FREE_SPEED)
// The bounds of the case (see the reference text).
#define R12_JAM 2.0  // persons/m^2: a jam at and above (Weidmann's speed below 0.5 m/s)
#define R12_SLOW 1.5 // the longest time across room 2 over its free walking time

static bool r12_floor(crowd_world* w, vwalls* k) {
    const float h = R12_HALF, c0 = R12_CORR_X0, c1 = R12_CORR_X1, e = R12_EXIT_X;
    return v_wall(w, k, 0, 0, c0, 0) && v_wall(w, k, 0, 10, c0, 10) && v_wall(w, k, 0, 0, 0, 10) &&
           v_wall(w, k, c0, 0, c0, 5 - h) && v_wall(w, k, c0, 5 + h, c0, 10) &&
           v_wall(w, k, c0, 5 - h, c1, 5 - h) && v_wall(w, k, c0, 5 + h, c1, 5 + h) &&
           v_wall(w, k, c1, 0, c1, 5 - h) && v_wall(w, k, c1, 5 + h, c1, 10) &&
           v_wall(w, k, c1, 0, e, 0) && v_wall(w, k, c1, 10, e, 10) &&
           v_wall(w, k, e, 0, e, 5 - h) && v_wall(w, k, e, 5 + h, e, 10);
}

void vcase_rimea12(const vopts* o, vresult* r) {
    const int n = o->small ? 60 : 150;
    const float fill = o->small ? 4.0f : 8.0f; // the crowd's east edge in room 1
    snprintf(r->setup, VTEXT,
             "Room 1 (10 m x 10 m) opens through a corridor 1 m wide and 5 m long into room 2 "
             "(10 m x 10 m), whose exit is a 1 m opening in the far wall, in line with the "
             "corridor. %d agents on a jittered grid over room 1's west part (x from 0.4 to %.1f "
             "m, %.1f persons/m^2), reaction time 0, with a routed SEEK goal 1.5 m past the exit; "
             "removed once out. Measured, over the middle half of the passages through the "
             "corridor (the 25th to the 75th percentile): the mean density in a 2 m x 2 m area "
             "before the corridor's entrance (room 1) and in one before the exit (room 2), "
             "sampled every second; each agent's time across room 2 (corridor's end to exit) "
             "against the free walking time of %.1f s; the flows through the corridor and the "
             "exit (10th to 90th percentile); and the least distance between two agents' centres "
             "anywhere (bodies 0.6 m wide: below 0.6 m they overlap).",
             n, fill, n / ((fill - 0.4) * 9.2), R12_FREE_T);
    snprintf(r->reference, VTEXT,
             "a jam before the corridor (mean density before its entrance >= %.1f persons/m^2) "
             "and none before the exit (density there below %.1f persons/m^2 at every sample, "
             "nobody takes more than %.1f x the free walking time across room 2); everyone "
             "leaves",
             R12_JAM, R12_JAM, R12_SLOW);
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 12 (effect of bottlenecks): a room joined by a corridor to "
             "a second room, 150 adults, reaction time 0; since the corridor limits the flow, "
             "congestion may form in room 1 only, not in room 2. The guideline gives the shape in "
             "its figure, not a scale its text fixes (the sizes here are this suite's), and asks "
             "that the test document the model's behaviour rather than exclude a model, as long "
             "as no experiment settles whether a jam can form at room 2's exit. The bounds are "
             "this suite's: 2 persons/m^2 is where Weidmann's speed falls below 0.5 m/s.");
    crowd_world* w = v_world(n + 16);
    vwalls walls = {0};
    bool ok = w && r12_floor(w, &walls);
    crowd_agent_id* ids = calloc((size_t)n, sizeof *ids);
    float* t_in2 = calloc((size_t)n, sizeof *t_in2); // when the agent left the corridor
    double* t_corr = calloc((size_t)n, sizeof *t_corr);
    double* t_exit = calloc((size_t)n, sizeof *t_exit);
    unsigned char* state = calloc((size_t)n, 1); // 0 room 1 or corridor, 1 room 2, 2 out
    crowd_vec2* pos = calloc((size_t)n, sizeof *pos);
    crowd_agent_def d = v_pedestrian();
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    d.goal.target = (crowd_vec2){R12_EXIT_X + 1.5f, 5.0f};
    ok = ok && ids && t_in2 && t_corr && t_exit && state && pos &&
         v_place(w, d, n, 0.4f, fill, 0.4f, 9.6f, 1212, ids);
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "time (s)";
    p->ylabel = "density (persons/m^2)";
    p->xmin = 0, p->ymin = 0, p->ymax = 5;
    vseries* s1 = vplot_add(p, VSERIES_LINE, "before the corridor (room 1)", "#e76f51");
    vseries* s2 = vplot_add(p, VSERIES_LINE, "before the exit (room 2)", "#2a9d8f");
    enum { MAX_SAMPLES = 600 };
    double rho1[MAX_SAMPLES], rho2[MAX_SAMPLES], at[MAX_SAMPLES];
    int samples = 0, ncorr = 0, nexit = 0, tick = 0;
    double min_pair = INFINITY, worst_t2 = 0, mean_t2 = 0;
    long seen = 0, touching = 0, deep = 0; // agents sampled; nearest closer than 0.6 m, 0.3 m
    float min_clear = INFINITY;
    const int limit = (int)(300.0 / DT);
    for (; ok && tick < limit && nexit < n; ++tick) {
        ok = crowd_world_step(w) == CROWD_OK;
        const double t = (tick + 1) * DT;
        int m = 0;
        for (int i = 0; ok && i < n; ++i) {
            if (state[i] == 2) continue;
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            min_clear = fminf(min_clear, v_wall_distance(&walls, q) - 0.3f);
            if (state[i] == 0 && q.x > R12_CORR_X1) {
                state[i] = 1, t_in2[i] = (float)t, t_corr[ncorr++] = t;
            }
            if (q.x > R12_EXIT_X + 0.3f) {
                state[i] = 2, t_exit[nexit++] = t;
                const double across = t - t_in2[i];
                worst_t2 = fmax(worst_t2, across), mean_t2 += across / n;
                crowd_agent_remove(w, ids[i]);
                continue;
            }
            pos[m++] = q;
        }
        // The closest two bodies: all pairs, the crowd is small. Once a second, each agent's
        // nearest neighbour: how many overlap (centres closer than a body's width), how many by
        // more than half of it.
        const bool sample = (tick + 1) % 10 == 0;
        for (int a = 0; a < m; ++a) {
            double nearest = INFINITY; // squared
            for (int b = 0; b < m; ++b) {
                const double dx = (double)pos[a].x - pos[b].x, dy = (double)pos[a].y - pos[b].y;
                if (b != a) nearest = fmin(nearest, dx * dx + dy * dy);
            }
            min_pair = fmin(min_pair, sqrt(nearest));
            if (sample && nearest < INFINITY) {
                seen++, touching += nearest < 0.6 * 0.6, deep += nearest < 0.3 * 0.3;
            }
        }
        if (sample && samples < MAX_SAMPLES) {
            int c1 = 0, c2 = 0;
            for (int k = 0; k < m; ++k) {
                const bool mid = fabsf(pos[k].y - 5.0f) <= 0.5f * R12_AREA;
                c1 += mid && pos[k].x < R12_CORR_X0 && pos[k].x >= R12_CORR_X0 - R12_AREA;
                c2 += mid && pos[k].x < R12_EXIT_X && pos[k].x >= R12_EXIT_X - R12_AREA;
            }
            at[samples] = t;
            rho1[samples] = c1 / (R12_AREA * R12_AREA);
            rho2[samples] = c2 / (R12_AREA * R12_AREA);
            if (samples % 2 == 0 && s1->n < VPLOT_MAX_POINTS) {
                vseries_push(s1, t, rho1[samples], 0);
                vseries_push(s2, t, rho2[samples], 0);
            }
            samples++;
        }
    }
    p->xmax = tick * DT;
    crowd_world_destroy(w);
    double m1 = 0, m2 = 0, peak2 = 0, f_corr = 0, f_exit = 0;
    int in_window = 0;
    if (ok && nexit == n) {
        const double w0 = t_corr[n / 4], w1 = t_corr[(3 * n) / 4];
        for (int k = 0; k < samples; ++k) {
            if (at[k] < w0 || at[k] > w1) continue;
            m1 += rho1[k], m2 += rho2[k], peak2 = fmax(peak2, rho2[k]), in_window++;
        }
        if (in_window) m1 /= in_window, m2 /= in_window;
        const int lo = n / 10, hi = n - n / 10 - 1;
        f_corr = (hi - lo) / (t_corr[hi] - t_corr[lo]);
        f_exit = (hi - lo) / (t_exit[hi] - t_exit[lo]);
    }
    free(ids), free(t_corr), free(t_exit), free(pos);
    free(t_in2), free(state);
    if (!ok) {
        snprintf(r->measured, VTEXT, "the engine refused the set-up or a step");
        return;
    }
    snprintf(r->measured, VTEXT,
             "%d of %d left, the last after %.1f s; density before the corridor %.2f, before the "
             "exit %.2f persons/m^2 (peak %.2f); across room 2 %.1f s on average, at most %.1f s "
             "(%.2f x free); flow %.2f persons/s through the corridor, %.2f through the exit; "
             "least distance between two agents %.3f m (of the agents sampled each second, %.0f%% "
             "overlap a neighbour, %.1f%% by more than half a body), between a body and a wall "
             "%.3f m",
             nexit, n, tick * DT, m1, m2, peak2, mean_t2, worst_t2, worst_t2 / R12_FREE_T, f_corr,
             f_exit, min_pair, seen ? 100.0 * touching / seen : 0.0,
             seen ? 100.0 * deep / seen : 0.0, min_clear);
    r->pass = nexit == n && m1 >= R12_JAM && peak2 < R12_JAM && worst_t2 <= R12_SLOW * R12_FREE_T;
}
