// Cases in a corridor with periodic ends: the fundamental diagram (RiMEA test 4) and
// counterflow. The engine has no periodic world, so the harness moves an agent that walks out of
// one end in at the other (crowd_agent_set_position, keeping its velocity). Separation does not
// act across that seam, so measurements are taken in the middle of the corridor, far from it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1

typedef struct corridor {
    crowd_world* w;
    float length, width;
    int n;
    crowd_agent_id* ids;
    int* dir; // +1 walks along +x, -1 along -x
    crowd_vec2 *pos, *vel;
} corridor;

static void corridor_free(corridor* c) {
    crowd_world_destroy(c->w);
    free(c->ids), free(c->dir), free(c->pos), free(c->vel);
}

// n agents on a jittered grid filling the corridor (clear of the walls by a radius); dir_of
// decides each one's direction. Goals are far along the corridor's axis and straight: the seam
// moves agents, and a routed goal would only add a field that points the same way.
static bool corridor_make(corridor* c, float length, float width, int n, uint64_t seed,
                          int (*dir_of)(int i, uint64_t seed)) {
    memset(c, 0, sizeof *c);
    c->length = length, c->width = width, c->n = n;
    c->w = v_world(n + 16);
    c->ids = calloc((size_t)n, sizeof *c->ids);
    c->dir = calloc((size_t)n, sizeof *c->dir);
    c->pos = calloc((size_t)n, sizeof *c->pos);
    c->vel = calloc((size_t)n, sizeof *c->vel);
    if (!c->w || !c->ids || !c->dir || !c->pos || !c->vel) return false;
    if (!v_wall(c->w, NULL, -1000, 0, 1000, 0) || !v_wall(c->w, NULL, -1000, width, 1000, width))
        return false;
    const crowd_agent_def base = v_pedestrian();
    const float r = base.radius, band = width - 2 * r;
    int rows = (int)ceil(sqrt((double)n * band / length));
    if (rows < 1) rows = 1;
    const int cols = (n + rows - 1) / rows;
    const float sx = length / (float)cols, sy = band / (float)rows;
    for (int i = 0; i < n; ++i) {
        crowd_agent_def d = base;
        const int row = i % rows, col = i / rows;
        const float jx = (float)(v_draw(seed, 2 * (uint64_t)i) - 0.5) * 0.2f * sx;
        const float jy = (float)(v_draw(seed, 2 * (uint64_t)i + 1) - 0.5) * 0.2f * sy;
        d.position = (crowd_vec2){((float)col + 0.5f) * sx + jx, r + ((float)row + 0.5f) * sy + jy};
        c->dir[i] = dir_of(i, seed);
        d.goal = crowd_goal_default();
        d.goal.mode = CROWD_GOAL_SEEK;
        d.goal.route = CROWD_ROUTE_STRAIGHT;
        d.goal.target = (crowd_vec2){c->dir[i] > 0 ? 1.0e5f : -1.0e5f, d.position.y};
        d.heading = (crowd_vec2){(float)c->dir[i], 0.0f};
        if (crowd_agent_add(c->w, &d, &c->ids[i]) != CROWD_OK) return false;
    }
    return true;
}

// One tick, then the seam; c->pos and c->vel hold every agent's state after it (handle order,
// which is the order of creation: nobody is removed).
static bool corridor_step(corridor* c) {
    if (crowd_world_step(c->w) != CROWD_OK) return false;
    int count = 0;
    if (crowd_world_get_agents(c->w, NULL, c->pos, c->vel, c->n, &count) != CROWD_OK) return false;
    for (int i = 0; i < c->n; ++i) {
        crowd_vec2 p = c->pos[i];
        if (p.x >= c->length)
            p.x -= c->length;
        else if (p.x < 0.0f)
            p.x += c->length;
        else
            continue;
        crowd_agent_set_position(c->w, c->ids[i], p);
        c->pos[i] = p;
    }
    return true;
}

static int all_forward(int i, uint64_t seed) {
    (void)i, (void)seed;
    return 1;
}

// ---- RiMEA 4: the fundamental diagram ----------------------------------------------------------

// Tolerance around Weidmann's curve: his compilation of measurements scatters by about
// +-0.3 m/s at a given density (Weidmann 1993, fig. 2.6), the band every speed must fall in.
#define FD_BAND 0.3

void vcase_rimea4(const vopts* o, vresult* r) {
    static const double RHO[] = {0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0};
    const int nr = o->small ? 3 : (int)(sizeof RHO / sizeof RHO[0]);
    const float L = o->small ? 30.0f : 40.0f, W = 4.0f;
    const float m0 = 0.375f * L, m1 = 0.625f * L; // the measurement area, away from the seam
    const int warm = 200, meas = o->small ? 100 : 300;
    snprintf(r->setup, VTEXT,
             "A corridor %.0f m x %.0f m with walls along both sides and periodic ends; agents "
             "on a jittered grid at a global density of %s persons/m^2, all with a straight "
             "SEEK goal far along the corridor. After %.0f s, for %.0f s: the density in a "
             "measurement area %.0f m x %.0f m in the middle and the mean speed along the "
             "corridor of the agents in it; specific flow = density x speed.",
             L, W, o->small ? "0.5, 1, 1.5" : "0.5, 1, 1.5, 2, 2.5, 3, 4 and 5", warm * DT,
             meas * DT, m1 - m0, W);
    snprintf(r->reference, VTEXT,
             "Weidmann's speed +-%.1f m/s at every density; no jam (speed > 0.1 m/s) below "
             "4 persons/m^2",
             FD_BAND);
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 4 (fundamental diagram); Weidmann 1993, v = 1.34 (1 - "
             "exp(-1.913 (1/rho - 1/5.4))) m/s, with the band for the scatter of the measurements "
             "he compiled.");
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "density (persons/m^2)";
    p->ylabel = "speed (m/s)";
    p->xmin = 0, p->xmax = 5.5, p->ymin = 0, p->ymax = 1.6;
    vseries* band = vplot_add(p, VSERIES_BAND, "Weidmann +-0.3 m/s", "#2a9d8f");
    vseries* curve = vplot_add(p, VSERIES_LINE, "Weidmann 1993", "#264653");
    for (int k = 0; k <= 60; ++k) {
        const double rho = 0.3 + k * (5.4 - 0.3) / 60, v = v_weidmann_speed(rho);
        vseries_push(band, rho, fmax(0, v - FD_BAND), v + FD_BAND);
        vseries_push(curve, rho, v, 0);
    }
    vseries* pts = vplot_add(p, VSERIES_POINTS, "crowdstep", "#e76f51");
    double rho_m[8], v_m[8];
    bool ok[8];
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < nr; ++k) {
        corridor c;
        const int n = (int)lround(RHO[k] * L * W);
        ok[k] = corridor_make(&c, L, W, n, 4000 + (uint64_t)k, all_forward);
        double count = 0, vsum = 0;
        for (int t = 0; ok[k] && t < warm + meas; ++t) {
            ok[k] = corridor_step(&c);
            if (t < warm) continue;
            for (int i = 0; i < n; ++i)
                if (c.pos[i].x >= m0 && c.pos[i].x < m1) count += 1, vsum += c.vel[i].x;
        }
        corridor_free(&c);
        rho_m[k] = count / meas / ((m1 - m0) * W);
        v_m[k] = count > 0 ? vsum / count : 0;
    }
    bool pass = true;
    for (int k = 0; k < nr; ++k) {
        const double vw = v_weidmann_speed(rho_m[k]);
        const bool in = ok[k] && fabs(v_m[k] - vw) <= FD_BAND && !(rho_m[k] < 4.0 && v_m[k] <= 0.1);
        pass = pass && in;
        vseries_push(pts, rho_m[k], v_m[k], 0);
        vcat(r->measured, "%s%.2f/m^2: %.2f m/s (W. %.2f)%s", k ? "; " : "", rho_m[k], v_m[k], vw,
             in ? "" : " OUT");
    }
    vcat(r->measured, "\n\n| global density | measured density | speed | Weidmann | specific flow "
                      "| Weidmann's flow | within |\n|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < nr; ++k) {
        const double vw = v_weidmann_speed(rho_m[k]);
        vcat(r->measured, "| %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", RHO[k], rho_m[k],
             v_m[k], vw, rho_m[k] * v_m[k], rho_m[k] * vw,
             fabs(v_m[k] - vw) <= FD_BAND ? "yes" : "no");
    }
    r->pass = pass;
}

// ---- counterflow -------------------------------------------------------------------------------

static int mixed_dirs(int i, uint64_t seed) {
    return v_draw(seed ^ 0xC0FFEEull, (uint64_t)i) < 0.5 ? 1 : -1;
}

// Lane order: the corridor cut lengthwise into strips of 0.4 m; in each strip the share of
// agents that are not outnumbered by the other direction, |n+ - n-| / (n+ + n-), weighted by the
// strip's agents. 1: every strip holds one direction (lanes); mixed at random, about 0.2.
static double lane_order(const corridor* c) {
    enum { MAXS = 64 };
    int plus[MAXS] = {0}, minus[MAXS] = {0};
    const int strips = (int)(c->width / 0.4f);
    for (int i = 0; i < c->n; ++i) {
        int s = (int)(c->pos[i].y / 0.4f);
        s = s < 0 ? 0 : s >= strips ? strips - 1 : s;
        if (c->dir[i] > 0)
            plus[s]++;
        else
            minus[s]++;
    }
    int num = 0, den = 0;
    for (int s = 0; s < strips; ++s) num += abs(plus[s] - minus[s]), den += plus[s] + minus[s];
    return den ? (double)num / den : 0;
}

void vcase_counterflow(const vopts* o, vresult* r) {
    const float L = 40.0f, W = 4.0f;
    const double rho = 1.0;
    const int n = (int)lround(rho * L * W), warm = 300, meas = o->small ? 100 : 300;
    snprintf(r->setup, VTEXT,
             "A corridor %.0f m x %.0f m with periodic ends, %d agents (%.0f persons/m^2) on a "
             "jittered grid, each walking +x or -x at random (straight SEEK goals far along the "
             "corridor). After %.0f s, for %.0f s: each stream's mean speed in its own "
             "direction; at the end the lane order (the corridor cut into 0.4 m strips: "
             "sum |n+ - n-| / sum (n+ + n-), 1 for pure lanes, about 0.2 mixed at random).",
             L, W, n, rho, warm * DT, meas * DT);
    const double vmin = 0.7 * v_weidmann_speed(rho);
    snprintf(r->reference, VTEXT,
             "both streams >= %.2f m/s (70%% of Weidmann's %.2f m/s at 1 person/m^2); lane "
             "order >= 0.6",
             vmin, v_weidmann_speed(rho));
    snprintf(r->source, VTEXT,
             "Kretz et al. 2006 (J. Stat. Mech. P10001) and Zhang et al. 2012 (J. Stat. Mech. "
             "P02002): opposite streams in a corridor separate into lanes, and at about "
             "1 person/m^2 they walk near the one-way speed. The 70%% floor and the lane order "
             "threshold are this suite's choice.");
    corridor c;
    bool ok = corridor_make(&c, L, W, n, 9100, mixed_dirs);
    double v[2] = {0, 0}, cnt[2] = {0, 0}, order0 = 0;
    int count = 0;
    if (ok && crowd_world_get_agents(c.w, NULL, c.pos, c.vel, n, &count) == CROWD_OK)
        order0 = lane_order(&c);
    for (int t = 0; ok && t < warm + meas; ++t) {
        ok = corridor_step(&c);
        if (t < warm) continue;
        for (int i = 0; i < n; ++i) {
            const int s = c.dir[i] > 0 ? 0 : 1;
            v[s] += c.dir[i] * c.vel[i].x, cnt[s] += 1;
        }
    }
    const double order = ok ? lane_order(&c) : 0;
    if (ok) {
        r->has_plot = true;
        vplot* p = &r->plot;
        p->xlabel = "x (m)";
        p->ylabel = "y (m)";
        p->xmin = 0, p->xmax = L, p->ymin = -0.5, p->ymax = W + 3.5;
        vseries* wall = vplot_add(p, VSERIES_BAND, "corridor", "#264653");
        vseries_push(wall, 0, 0, W), vseries_push(wall, L, 0, W);
        vseries* a = vplot_add(p, VSERIES_POINTS, "walking +x (at the end)", "#e76f51");
        vseries* b = vplot_add(p, VSERIES_POINTS, "walking -x", "#457b9d");
        for (int i = 0; i < n; ++i) vseries_push(c.dir[i] > 0 ? a : b, c.pos[i].x, c.pos[i].y, 0);
    }
    corridor_free(&c);
    v[0] = cnt[0] ? v[0] / cnt[0] : 0, v[1] = cnt[1] ? v[1] / cnt[1] : 0;
    snprintf(r->measured, VTEXT,
             "speeds %.2f m/s (+x) and %.2f m/s (-x); lane order %.2f (%.2f at the start)", v[0],
             v[1], order, order0);
    r->pass = ok && v[0] >= vmin && v[1] >= vmin && order >= 0.6;
}
