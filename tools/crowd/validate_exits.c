// Rooms emptying through doors: flow through a door against its width (bottleneck experiments,
// the effect of RiMEA test 12) and RiMEA test 9 (a room of 1000 leaving by four exits or two,
// through an exit set). Agents are removed once they are through, as an exit would.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1

// ---- bottleneck ------------------------------------------------------------------------------

// The published range of specific flow through a bottleneck, persons/(m s), and the tolerance
// on it (the experiments' own scatter between runs and set-ups is about that much).
#define JS_LO 1.6
#define JS_HI 2.0
#define JS_TOL 0.10

typedef struct door_run {
    double flow;     // persons/s between the 10th and the 90th percentile of passages
    int stuck;       // agents still in the room at the time limit
    double t_end;    // when the last agent passed (or the limit)
    double min_pair; // the least distance between two agents' centres, sampled every second
    long seen, deep; // agents sampled, and those whose nearest neighbour was closer than 0.3 m
} door_run;

// The closest pair of q[0..m) and how many points have a neighbour closer than 0.3 m (bodies of
// 0.6 m overlapping by more than half): all pairs, the room holds at most a few hundred.
static void door_pairs(const crowd_vec2* q, int m, door_run* out) {
    for (int a = 0; a < m; ++a) {
        double nearest = INFINITY; // squared
        for (int b = 0; b < m; ++b) {
            const double dx = (double)q[a].x - q[b].x, dy = (double)q[a].y - q[b].y;
            if (b != a) nearest = fmin(nearest, dx * dx + dy * dy);
        }
        out->min_pair = fmin(out->min_pair, sqrt(nearest));
        out->seen++, out->deep += nearest < 0.3 * 0.3;
    }
}

static door_run run_door(float width, int n, uint64_t seed) {
    door_run out = {0, n, 0, INFINITY, 0, 0};
    crowd_world* w = v_world(n + 16);
    const float h = width * 0.5f;
    // Room x in [-8, 0], y in [-5, 5]; the door in the wall x = 0, centred on y = 0.
    bool ok = w && v_wall(w, NULL, -8, -5, 0, -5) && v_wall(w, NULL, -8, 5, 0, 5) &&
              v_wall(w, NULL, -8, -5, -8, 5) && v_wall(w, NULL, 0, -5, 0, -h) &&
              v_wall(w, NULL, 0, h, 0, 5);
    crowd_agent_id* ids = calloc((size_t)n, sizeof *ids);
    double* passed = calloc((size_t)n, sizeof *passed);
    bool* in = calloc((size_t)n, sizeof *in);
    crowd_vec2* room = calloc((size_t)n, sizeof *room);
    crowd_agent_def d = v_pedestrian();
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    // Straight: the door is in sight of every agent, so routing would add nothing (the routes
    // through narrow doors are the door_route case's).
    d.goal.route = CROWD_ROUTE_STRAIGHT;
    d.goal.target = (crowd_vec2){3.0f, 0.0f};
    ok =
        ok && ids && passed && in && room && v_place(w, d, n, -7.6f, -0.8f, -4.6f, 4.6f, seed, ids);
    if (!ok) goto done;
    for (int i = 0; i < n; ++i) in[i] = true;
    const int limit = (int)((30.0 + 3.0 * n / (JS_LO * width)) / DT);
    int np = 0, tick = 0;
    for (; tick < limit && np < n; ++tick) {
        crowd_world_step(w);
        int m = 0;
        for (int i = 0; i < n; ++i) {
            if (!in[i]) continue;
            crowd_vec2 p;
            crowd_agent_get_position(w, ids[i], &p);
            if (p.x > 0.0f) {
                passed[np++] = (tick + 1) * DT;
                in[i] = false;
                crowd_agent_remove(w, ids[i]);
            } else {
                room[m++] = p;
            }
        }
        if ((tick + 1) % 10 == 0) door_pairs(room, m, &out);
    }
    out.stuck = n - np;
    out.t_end = tick * DT;
    const int lo = n / 10, hi = n - n / 10 - 1;
    if (np > hi && passed[hi] > passed[lo]) out.flow = (hi - lo) / (passed[hi] - passed[lo]);
done:
    crowd_world_destroy(w);
    free(ids), free(passed), free(in), free(room);
    return out;
}

void vcase_bottleneck(const vopts* o, vresult* r) {
    static const float WIDTH[] = {0.7f, 0.8f, 0.9f, 1.0f, 1.2f, 1.6f, 2.0f, 2.5f};
    enum { NW = sizeof WIDTH / sizeof WIDTH[0], N = 150 };
    const int seeds = o->seeds > 0 ? o->seeds : o->small ? 2 : 20;
    const int nw = o->small ? 3 : NW;
    snprintf(r->setup, VTEXT,
             "A room 8 m deep and 10 m wide emptying through a door in a thin wall, doors of "
             "%s m; %d agents on a jittered grid (2.5 persons/m^2) with a straight SEEK goal 3 m "
             "past the door (in sight of every agent, so routing adds nothing; routes through "
             "narrow doors are the door_route case), removed once through. %d seeds per width (the "
             "jitter). "
             "Measured: "
             "the flow between the 10th and the 90th percentile of passages, its mean over the "
             "seeds divided by the width (specific flow), and agents still in the room at the "
             "time limit (30 s + 3 x the time the slowest published flow would take). "
             "Documented, not bounded: the closest two agents' centres and the share of the "
             "agents in the room whose nearest neighbour is closer than 0.3 m (bodies 0.6 m "
             "wide overlapping by more than half; the engine has no contact force), sampled "
             "every second.",
             o->small ? "0.7, 0.8, 0.9" : "0.7, 0.8, 0.9, 1.0, 1.2, 1.6, 2.0 and 2.5", N, seeds);
    snprintf(r->reference, VTEXT,
             "specific flow %.1f-%.1f persons/(m s), +-%.0f%%; roughly linear in width (R^2 >= "
             "0.95); no agent stuck at any width and seed",
             JS_LO, JS_HI, JS_TOL * 100);
    snprintf(r->source, VTEXT,
             "Kretz et al. 2006 (J. Stat. Mech. P10014), Seyfried et al. 2009 (Transportation "
             "Science 43), Liddle et al. 2009 (Pedestrian and Evacuation Dynamics 2008): flow "
             "through a bottleneck grows about linearly with its width, with specific flows of "
             "about 1.6 to 2.0 persons/(m s). The experiments measured doors up to about "
             "1.2-1.6 m; beyond that the band assumes the linear law holds. RiMEA 3.0.0 test 12 "
             "(a jam before a bottleneck, here the room) has its room-corridor-room geometry in "
             "the rimea12 case.");
    const int total = nw * seeds;
    door_run* runs = calloc((size_t)total, sizeof *runs);
    if (!runs) return;
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < total; ++k)
        runs[k] = run_door(WIDTH[k / seeds], N, 36000 + (uint64_t)(k % seeds));
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "door width (m)";
    p->ylabel = "flow (persons/s)";
    p->xmin = 0, p->xmax = 2.8, p->ymin = 0, p->ymax = 6.5;
    vseries* band = vplot_add(p, VSERIES_BAND, "1.6-2.0 persons/(m s) +-10%", "#2a9d8f");
    vseries_push(band, 0.6, 0.6 * JS_LO * (1 - JS_TOL), 0.6 * JS_HI * (1 + JS_TOL));
    vseries_push(band, 2.6, 2.6 * JS_LO * (1 - JS_TOL), 2.6 * JS_HI * (1 + JS_TOL));
    vseries* all = vplot_add(p, VSERIES_POINTS, "one seed", "#f4a261");
    vseries* mean = vplot_add(p, VSERIES_LINE, "mean over the seeds", "#e76f51");
    bool pass = true;
    double sw = 0, sj = 0, sww = 0, swj = 0, sjj = 0;
    int stuck_total = 0;
    char table[VTEXT] = "";
    vcat(table, "\n\n| width (m) | flow (persons/s) | specific flow | min-max over seeds "
                "| stuck (agents, runs) | within | closest pair (m) | overlapping by > half a "
                "body |\n|---|---|---|---|---|---|---|---|\n");
    double pair_all = INFINITY;
    long seen_all = 0, deep_all = 0;
    double worst_js_dev = 0;
    for (int k = 0; k < nw; ++k) {
        double m = 0, lo = 1e9, hi = 0;
        int stuck = 0, stuck_runs = 0;
        double pair = INFINITY;
        long seen = 0, deep = 0;
        for (int s = 0; s < seeds; ++s) {
            const door_run* d = &runs[k * seeds + s];
            m += d->flow / seeds, lo = fmin(lo, d->flow), hi = fmax(hi, d->flow);
            stuck += d->stuck, stuck_runs += d->stuck > 0;
            pair = fmin(pair, d->min_pair), seen += d->seen, deep += d->deep;
            vseries_push(all, WIDTH[k], d->flow, 0);
        }
        stuck_total += stuck;
        const double js = m / WIDTH[k];
        const bool in = js >= JS_LO * (1 - JS_TOL) && js <= JS_HI * (1 + JS_TOL) && stuck == 0;
        if (js > JS_HI) worst_js_dev = fmax(worst_js_dev, js / JS_HI - 1);
        if (js < JS_LO) worst_js_dev = fmax(worst_js_dev, 1 - js / JS_LO);
        pass = pass && in;
        vseries_push(mean, WIDTH[k], m, 0);
        sw += WIDTH[k], sj += m, sww += WIDTH[k] * WIDTH[k], swj += WIDTH[k] * m, sjj += m * m;
        pair_all = fmin(pair_all, pair), seen_all += seen, deep_all += deep;
        vcat(table, "| %.1f | %.2f | %.2f | %.2f-%.2f | %d, %d of %d | %s | %.3f | %.1f%% |\n",
             WIDTH[k], m, js, lo / WIDTH[k], hi / WIDTH[k], stuck, stuck_runs, seeds,
             in ? "yes" : "no", pair, seen ? 100.0 * deep / seen : 0.0);
    }
    free(runs);
    const double nn = nw, cov = swj / nn - sw / nn * sj / nn;
    const double vw = sww / nn - sw / nn * sw / nn, vj = sjj / nn - sj / nn * sj / nn;
    const double r2 = vw > 0 && vj > 0 ? cov * cov / (vw * vj) : 0;
    pass = pass && r2 >= 0.95;
    double jmin = 1e9, jmax = 0;
    for (int k = 0; k < nw; ++k) {
        jmin = fmin(jmin, mean->y[k] / WIDTH[k]);
        jmax = fmax(jmax, mean->y[k] / WIDTH[k]);
    }
    snprintf(r->measured, VTEXT,
             "specific flow %.2f-%.2f persons/(m s) over the widths (worst %.0f%% outside "
             "1.6-2.0); %d agents stuck over %d runs; R^2 %.3f; closest two agents %.3f m "
             "apart, %.1f%% of the agents in the room (sampled every second) overlap a neighbour "
             "by more than half a body",
             jmin, jmax, worst_js_dev * 100, stuck_total, total, r2, pair_all,
             seen_all ? 100.0 * deep_all / seen_all : 0.0);
    vcat(r->measured, "%s", table);
    r->pass = pass;
}

// ---- RiMEA 9 -----------------------------------------------------------------------------------

typedef struct evac {
    double t_last; // when the last agent left (or the limit)
    int left;
} evac;

// The 30 m x 20 m room with 1 m doors at x = 7.5 and 22.5 in the wall y = 0 and, with four
// exits, in the wall y = 20 too; agents head for the nearest exit of an exit set.
static evac run_room(int n, bool four) {
    evac out = {0, 0};
    crowd_world* w = v_world(n + 16);
    bool ok = w && v_wall(w, NULL, 0, 0, 0, 20) && v_wall(w, NULL, 30, 0, 30, 20) &&
              v_wall(w, NULL, 0, 0, 7, 0) && v_wall(w, NULL, 8, 0, 22, 0) &&
              v_wall(w, NULL, 23, 0, 30, 0);
    if (four)
        ok = ok && v_wall(w, NULL, 0, 20, 7, 20) && v_wall(w, NULL, 8, 20, 22, 20) &&
             v_wall(w, NULL, 23, 20, 30, 20);
    else
        ok = ok && v_wall(w, NULL, 0, 20, 30, 20);
    const crowd_vec2 exits[4] = {{7.5f, -1.0f}, {22.5f, -1.0f}, {7.5f, 21.0f}, {22.5f, 21.0f}};
    crowd_exits_id set = {0};
    ok = ok && crowd_exits_create(w, exits, four ? 4 : 2, &set) == CROWD_OK;
    crowd_agent_id* ids = calloc((size_t)n, sizeof *ids);
    bool* in = calloc((size_t)n, sizeof *in);
    crowd_agent_def d = v_pedestrian();
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    d.goal.exits = set;
    ok = ok && ids && in && v_place(w, d, n, 0.5f, 29.5f, 0.5f, 19.5f, 9009, ids);
    if (ok) {
        for (int i = 0; i < n; ++i) in[i] = true;
        const int limit = 12000;
        int tick = 0;
        for (; tick < limit && out.left < n; ++tick) {
            crowd_world_step(w);
            for (int i = 0; i < n; ++i) {
                if (!in[i]) continue;
                crowd_vec2 p;
                crowd_agent_get_position(w, ids[i], &p);
                if (p.y < -0.3f || p.y > 20.3f) {
                    in[i] = false;
                    out.left++;
                    crowd_agent_remove(w, ids[i]);
                }
            }
        }
        out.t_last = tick * DT;
    }
    crowd_world_destroy(w);
    free(ids), free(in);
    return out;
}

void vcase_rimea9(const vopts* o, vresult* r) {
    const int n = o->small ? 300 : 1000;
    snprintf(r->setup, VTEXT,
             "A room 30 m x 20 m, %d agents on a jittered grid over it, four 1 m exits (two in "
             "each long wall, at 7.5 m and 22.5 m), then the same room with the exits of one "
             "long wall closed. Every agent has a SEEK goal naming an exit set "
             "(crowd_exits_create: the exits' points 1 m outside), so it heads for the nearest "
             "exit by walking distance, and is removed once outside. Measured: the time the "
             "last agent leaves, with four exits and with two.",
             n);
    snprintf(r->reference, VTEXT,
             "evacuation time with two exits / with four in 1.6-2.4 (about 2); everyone leaves");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 9: closing half the exits about doubles the evacuation "
             "time (the 1.6-2.4 band is JuPedSim's check of this test).");
    evac e[2];
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < 2; ++k) e[k] = run_room(n, k == 0);
    const double ratio = e[0].t_last > 0 ? e[1].t_last / e[0].t_last : 0;
    snprintf(r->measured, VTEXT,
             "ratio %.2f: four exits %.1f s (%d of %d left), two exits %.1f s (%d of %d left)",
             ratio, e[0].t_last, e[0].left, n, e[1].t_last, e[1].left, n);
    r->pass = e[0].left == n && e[1].left == n && ratio >= 1.6 && ratio <= 2.4;
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "exits open";
    p->ylabel = "evacuation time (s)";
    p->xmin = 0, p->xmax = 5, p->ymin = 0, p->ymax = fmax(e[1].t_last, 2.4 * e[0].t_last) * 1.1;
    vseries* band = vplot_add(p, VSERIES_BAND, "RiMEA: 1.6-2.4 x the four-exit time", "#2a9d8f");
    vseries_push(band, 1.5, 1.6 * e[0].t_last, 2.4 * e[0].t_last);
    vseries_push(band, 2.5, 1.6 * e[0].t_last, 2.4 * e[0].t_last);
    vseries* pts = vplot_add(p, VSERIES_POINTS, "crowdstep", "#e76f51");
    vseries_push(pts, 4, e[0].t_last, 0);
    vseries_push(pts, 2, e[1].t_last, 0);
}

// ---- routed goals through narrow doors ---------------------------------------------------------

void vcase_door_route(const vopts* o, vresult* r) {
    (void)o;
    static const float WIDTH[] = {0.7f, 0.8f, 0.9f, 1.0f, 1.2f};
    enum { NW = sizeof WIDTH / sizeof WIDTH[0] };
    snprintf(r->setup, VTEXT,
             "The bottleneck case's room (8 m x 10 m, a door in the wall x = 0 centred on "
             "y = 0) with doors of 0.7 to 1.2 m, one agent in the room with a routed (default) "
             "SEEK goal 3 m past the door and the default navigation grid (0.5 m cells, "
             "clearance 0.3 m). Measured: the route state crowd_agent_get_route gives after "
             "crowd_world_nav_update.");
    snprintf(r->reference, VTEXT,
             "ROUTED through every door from 0.7 m (the narrowest door of the bottleneck "
             "experiments here, wider than an agent's 0.6 m)");
    snprintf(r->source, VTEXT,
             "The bottleneck experiments (Kretz et al. 2006, Seyfried et al. 2009, Liddle et al. "
             "2009) walk people through doors from 0.4 to 1.2 m; RiMEA 3.0.0 counts a door of "
             "0.8 m as passable. A user's routed goal should pass such a door.");
    bool pass = true;
    for (int k = 0; k < NW; ++k) {
        crowd_world* w = v_world(16);
        const float h = WIDTH[k] * 0.5f;
        bool ok = w && v_wall(w, NULL, -8, -5, 0, -5) && v_wall(w, NULL, -8, 5, 0, 5) &&
                  v_wall(w, NULL, -8, -5, -8, 5) && v_wall(w, NULL, 0, -5, 0, -h) &&
                  v_wall(w, NULL, 0, h, 0, 5);
        crowd_agent_def d = v_pedestrian();
        d.position = (crowd_vec2){-4.0f, 2.0f};
        d.goal = crowd_goal_default();
        d.goal.mode = CROWD_GOAL_SEEK;
        d.goal.target = (crowd_vec2){3.0f, 0.0f};
        crowd_agent_id id;
        crowd_route_info ri = {0};
        ok = ok && crowd_agent_add(w, &d, &id) == CROWD_OK &&
             crowd_world_nav_update(w) == CROWD_OK && crowd_agent_get_route(w, id, &ri) == CROWD_OK;
        crowd_world_destroy(w);
        const bool routed = ok && ri.state == CROWD_ROUTE_STATE_ROUTED;
        pass = pass && routed;
        vcat(r->measured, "%s%.1f m: %s", k ? "; " : "", WIDTH[k],
             !ok                                         ? "error"
             : routed                                    ? "routed"
             : ri.state == CROWD_ROUTE_STATE_UNREACHABLE ? "UNREACHABLE"
                                                         : "other");
    }
    r->pass = pass;
}
