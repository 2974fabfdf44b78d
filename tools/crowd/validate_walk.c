// RiMEA tests 1, 5, 6 and 7: one agent keeps its speed in a corridor, agents start at their own
// reaction times, a group turns a corner without touching the walls, speeds drawn by age group
// are the speeds walked.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validate.h"

#define DT 0.1 // the default tick, which every case keeps

// ---- RiMEA 1 -----------------------------------------------------------------------------------

void vcase_rimea1(const vopts* o, vresult* r) {
    (void)o;
    const float speed = 1.33f; // the guideline's speed for this test
    snprintf(r->setup, VTEXT,
             "A corridor 2 m wide and 40 m long (two walls), one agent at its start, max_speed "
             "%.2f m/s, starting at rest, a routed SEEK goal 5 m past the corridor's end. "
             "Measured: the time its centre takes from x = 0 to x = 40 m.",
             speed);
    snprintf(r->reference, VTEXT, "26 to 34 s");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 1: a person walking 1.33 m/s covers the 40 m in 26 to "
             "34 s.");
    crowd_world* w = v_world(16);
    if (!w || !v_wall(w, NULL, 0, 0, 40, 0) || !v_wall(w, NULL, 0, 2, 40, 2)) {
        snprintf(r->measured, VTEXT, "could not build the corridor");
        crowd_world_destroy(w);
        return;
    }
    crowd_agent_def d = v_pedestrian();
    d.max_speed = speed;
    d.position = (crowd_vec2){0.0f, 1.0f};
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    d.goal.target = (crowd_vec2){45.0f, 1.0f};
    crowd_agent_id id;
    crowd_agent_add(w, &d, &id);
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "time (s)";
    p->ylabel = "distance walked (m)";
    p->xmin = 0, p->xmax = 40, p->ymin = 0, p->ymax = 45;
    vseries* band = vplot_add(p, VSERIES_BAND, "RiMEA: 40 m in 26 to 34 s", "#2a9d8f");
    vseries_push(band, 0, 0, 0);
    vseries_push(band, 26, 40.0 * 26 / 34, 40);
    vseries_push(band, 34, 40, 40.0 * 34 / 26);
    vseries* line = vplot_add(p, VSERIES_LINE, "agent", "#e76f51");
    vseries_push(line, 0, 0, 0);
    double t_cross = -1, prev_x = 0;
    for (int tick = 1; tick <= 600 && t_cross < 0; ++tick) {
        crowd_world_step(w);
        crowd_vec2 pos;
        crowd_agent_get_position(w, id, &pos);
        if (pos.x >= 40.0f) t_cross = DT * (tick - 1 + (40.0 - prev_x) / (pos.x - prev_x));
        prev_x = pos.x;
        if (tick % 5 == 0) vseries_push(line, tick * DT, pos.x, 0);
    }
    crowd_world_destroy(w);
    if (t_cross < 0) {
        snprintf(r->measured, VTEXT, "did not reach x = 40 m within 60 s");
        return;
    }
    snprintf(r->measured, VTEXT, "%.1f s (mean speed %.3f m/s)", t_cross, 40.0 / t_cross);
    r->pass = t_cross >= 26.0 && t_cross <= 34.0;
}

// ---- RiMEA 5 -----------------------------------------------------------------------------------

void vcase_rimea5(const vopts* o, vresult* r) {
    (void)o;
    enum { N = 10 };
    snprintf(r->setup, VTEXT,
             "A room 8 m x 5 m with a 1 m door in the middle of a short wall; 10 agents in two "
             "rows 2 m apart, 1.4 m between neighbours (beyond the separation radius, so that no "
             "agent is pushed before it starts), with reaction times 10, 20, ..., 100 s, the "
             "earliest nearest the door. An agent has no goal until its reaction time; the "
             "harness gives it a routed SEEK goal past the door at that tick (the engine has no "
             "per-agent start delay). Measured: the time each agent first moves 1 cm from its "
             "place, and whether all leave the room.");
    snprintf(r->reference, VTEXT,
             "each agent starts within 0.2 s (two ticks) of its reaction time; all leave");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 5: ten persons with reaction times evenly spread over 10 "
             "to 100 s start moving at their own times (JuPedSim's check allows two frames).");
    crowd_world* w = v_world(32);
    bool ok = w && v_wall(w, NULL, 0, -2.5f, 8, -2.5f) && v_wall(w, NULL, 0, 2.5f, 8, 2.5f) &&
              v_wall(w, NULL, 0, -2.5f, 0, 2.5f) && v_wall(w, NULL, 8, -2.5f, 8, -0.5f) &&
              v_wall(w, NULL, 8, 0.5f, 8, 2.5f);
    crowd_agent_id ids[N];
    crowd_vec2 start[N];
    double delay[N], started[N];
    bool gone[N] = {0};
    for (int i = 0; ok && i < N; ++i) {
        crowd_agent_def d = v_pedestrian();
        const int col = i / 2; // pairs from the door inward
        d.position = start[i] = (crowd_vec2){6.6f - 1.4f * (float)col, i % 2 ? -1.0f : 1.0f};
        delay[i] = 10.0 * (i + 1);
        started[i] = -1;
        ok = crowd_agent_add(w, &d, &ids[i]) == CROWD_OK;
    }
    if (!ok) {
        snprintf(r->measured, VTEXT, "could not build the room");
        crowd_world_destroy(w);
        return;
    }
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = (crowd_vec2){10.0f, 0.0f};
    int left = 0;
    for (int tick = 0; tick < 1400 && left < N; ++tick) {
        for (int i = 0; i < N; ++i)
            if (tick == (int)lround(delay[i] / DT)) crowd_agent_set_goal(w, ids[i], &g);
        crowd_world_step(w);
        for (int i = 0; i < N; ++i) {
            if (gone[i]) continue;
            crowd_vec2 p;
            crowd_agent_get_position(w, ids[i], &p);
            if (started[i] < 0 && hypotf(p.x - start[i].x, p.y - start[i].y) > 0.01f)
                started[i] = (tick + 1) * DT;
            if (p.x > 8.5f) {
                crowd_agent_remove(w, ids[i]);
                gone[i] = true;
                left++;
            }
        }
    }
    crowd_world_destroy(w);
    double worst = 0;
    bool all_started = true;
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "reaction time (s)";
    p->ylabel = "time the agent starts to move (s)";
    p->xmin = 0, p->xmax = 110, p->ymin = 0, p->ymax = 110;
    vseries* ref = vplot_add(p, VSERIES_LINE, "starts at its reaction time", "#2a9d8f");
    vseries_push(ref, 0, 0, 0);
    vseries_push(ref, 110, 110, 0);
    vseries* pts = vplot_add(p, VSERIES_POINTS, "measured", "#e76f51");
    for (int i = 0; i < N; ++i) {
        if (started[i] < 0) {
            all_started = false;
            continue;
        }
        vseries_push(pts, delay[i], started[i], 0);
        const double e = fabs(started[i] - delay[i]);
        if (e > worst) worst = e;
    }
    snprintf(r->measured, VTEXT, "largest start error %.2f s; %d of %d agents left the room", worst,
             left, N);
    r->pass = all_started && worst <= 0.2 + 1e-9 && left == N;
}

// ---- RiMEA 6 -----------------------------------------------------------------------------------

void vcase_rimea6(const vopts* o, vresult* r) {
    (void)o;
    enum { N = 20 };
    snprintf(r->setup, VTEXT,
             "An L-shaped corridor 2 m wide: 12 m along x, then a left turn and 12 m along y. "
             "20 agents in the first 6 m (two rows of ten, 0.6 m apart), a routed SEEK goal 1 m "
             "past the corridor's end; agents are removed when they leave it. Measured every "
             "tick: the smallest clearance between an agent's disc and a wall (centre distance "
             "minus radius), and the time until all have left.");
    snprintf(r->reference, VTEXT, "clearance >= 0 at every tick; all 20 leave within 60 s");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 6: 20 persons walking around a left corner reach it "
             "without passing through the walls.");
    vwalls walls = {0};
    crowd_world* w = v_world(64);
    bool ok = w && v_wall(w, &walls, 0, 0, 12, 0) && v_wall(w, &walls, 12, 0, 12, 14) &&
              v_wall(w, &walls, 0, 2, 10, 2) && v_wall(w, &walls, 10, 2, 10, 14);
    crowd_agent_id ids[N];
    bool gone[N] = {0};
    for (int i = 0; ok && i < N; ++i) {
        crowd_agent_def d = v_pedestrian();
        d.position = (crowd_vec2){0.4f + 0.6f * (float)(i / 2), i % 2 ? 1.5f : 0.5f};
        d.goal = crowd_goal_default();
        d.goal.mode = CROWD_GOAL_SEEK;
        d.goal.target = (crowd_vec2){11.0f, 15.0f};
        ok = crowd_agent_add(w, &d, &ids[i]) == CROWD_OK;
    }
    if (!ok) {
        snprintf(r->measured, VTEXT, "could not build the corridor");
        crowd_world_destroy(w);
        return;
    }
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "x (m)";
    p->ylabel = "y (m)";
    p->xmin = -1, p->xmax = 15, p->ymin = -1, p->ymax = 15;
    vseries* outer = vplot_add(p, VSERIES_LINE, "outer wall", "#264653");
    vseries_push(outer, 0, 0, 0), vseries_push(outer, 12, 0, 0), vseries_push(outer, 12, 14, 0);
    vseries* inner = vplot_add(p, VSERIES_LINE, "inner wall", "#264653");
    vseries_push(inner, 0, 2, 0), vseries_push(inner, 10, 2, 0), vseries_push(inner, 10, 14, 0);
    vseries* trail = vplot_add(p, VSERIES_POINTS, "agents every 2 s", "#e76f51");
    float min_clear = 1e30f;
    int left = 0, tick = 0;
    for (; tick < 600 && left < N; ++tick) {
        crowd_world_step(w);
        for (int i = 0; i < N; ++i) {
            if (gone[i]) continue;
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            const float c = v_wall_distance(&walls, q) - 0.3f;
            if (c < min_clear) min_clear = c;
            if (tick % 20 == 0) vseries_push(trail, q.x, q.y, 0);
            if (q.y > 14.0f) {
                crowd_agent_remove(w, ids[i]);
                gone[i] = true;
                left++;
            }
        }
    }
    crowd_world_destroy(w);
    snprintf(r->measured, VTEXT,
             "smallest wall clearance %.4f m; %d of %d left, the last after %.1f s", min_clear,
             left, N, tick * DT);
    r->pass = min_clear >= 0.0f && left == N;
}

// ---- RiMEA 7 -----------------------------------------------------------------------------------

// The guideline's age groups: their names and plot colours (their speeds: crowd_speed_dist_age).
static const struct {
    const char* name;
    const char* color;
} AGE[CROWD_AGE_GROUP_COUNT] = {
    {"under 30", "#e9c46a"},
    {"30 to 50", "#2a9d8f"},
    {"over 50", "#8ab17d"},
    {"limited mobility", "#9b5de5"},
};

void vcase_rimea7(const vopts* o, vresult* r) {
    (void)o;
    enum { PER = 50, N = 4 * PER };
    snprintf(r->setup, VTEXT,
             "200 agents, 50 per age group, each with a max_speed drawn from its group's "
             "distribution by the library (crowd_speed_dist_age, crowd_speed_draw: uniform over "
             "the group's range, a keyed draw), on open ground, each in its own "
             "row 1.5 m from the next (beyond the separation radius, as the guideline looks at "
             "the free walking speed) with a SEEK goal 1 km ahead. Measured: each agent's mean "
             "speed from t = 5 s to 25 s.");
    snprintf(r->reference, VTEXT,
             "every speed within its group's range; each group's mean within 0.02 m/s of the "
             "drawn speeds' mean");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 7 and its table of walking speeds on the flat by age "
             "(after Weidmann 1993): under 30 0.58-1.61, 30 to 50 1.41-1.54, over 50 0.68-1.41, "
             "limited mobility 0.46-0.76 m/s.");
    crowd_world* w = v_world(N);
    crowd_agent_id ids[N];
    double drawn[N], x0[N] = {0}, speed[N];
    bool ok = w != NULL;
    for (int i = 0; ok && i < N; ++i) {
        const int g = i / PER;
        crowd_agent_def d = v_pedestrian();
        const crowd_speed_dist dist = crowd_speed_dist_age((crowd_age_group)g);
        ok = crowd_speed_draw(&dist, 7, (uint64_t)i, &d.max_speed) == CROWD_OK;
        drawn[i] = d.max_speed;
        d.position = (crowd_vec2){0.0f, 1.5f * (float)i};
        d.goal = crowd_goal_default();
        d.goal.mode = CROWD_GOAL_SEEK;
        d.goal.target = (crowd_vec2){1000.0f, 1.5f * (float)i};
        ok = ok && crowd_agent_add(w, &d, &ids[i]) == CROWD_OK;
    }
    if (!ok) {
        snprintf(r->measured, VTEXT, "could not build the crowd");
        crowd_world_destroy(w);
        return;
    }
    for (int tick = 1; tick <= 250; ++tick) {
        crowd_world_step(w);
        if (tick != 50 && tick != 250) continue;
        for (int i = 0; i < N; ++i) {
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            if (tick == 50)
                x0[i] = q.x;
            else
                speed[i] = (q.x - x0[i]) / 20.0;
        }
    }
    crowd_world_destroy(w);
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "agent (50 per age group)";
    p->ylabel = "speed (m/s)";
    p->xmin = 0, p->xmax = N, p->ymin = 0, p->ymax = 2;
    bool pass = true;
    for (int g = 0; g < 4; ++g) {
        const crowd_speed_dist dist = crowd_speed_dist_age((crowd_age_group)g);
        const double glo = dist.lo, ghi = dist.hi;
        vseries* b = vplot_add(p, VSERIES_BAND, AGE[g].name, AGE[g].color);
        vseries_push(b, g * PER, glo, ghi);
        vseries_push(b, (g + 1) * PER, glo, ghi);
        double m = 0, md = 0, lo = 1e9, hi = 0;
        for (int i = g * PER; i < (g + 1) * PER; ++i) {
            m += speed[i] / PER, md += drawn[i] / PER;
            lo = fmin(lo, speed[i]), hi = fmax(hi, speed[i]);
        }
        const bool in = lo >= glo - 1e-3 && hi <= ghi + 1e-3 && fabs(m - md) <= 0.02;
        pass = pass && in;
        vcat(r->measured, "%s%s: %.2f-%.2f m/s, mean %.3f (drawn %.3f)", g ? "; " : "", AGE[g].name,
             lo, hi, m, md);
    }
    vseries* pts = vplot_add(p, VSERIES_POINTS, "measured", "#e76f51");
    for (int i = 0; i < N; ++i) vseries_push(pts, i + 0.5, speed[i], 0);
    r->pass = pass;
}
