// Two streams crossing at right angles on open ground, each at 1 person/m^2: both must keep
// moving through the crossing. The same stream walking alone is the control.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1
#define SPAN 10.0f // speeds are measured from -SPAN to +SPAN along each stream's axis

typedef struct stream_out {
    double speed[2]; // mean over each stream's agents of SPAN*2 / time in the span
    int through[2];  // agents past +SPAN
    bool ok;
} stream_out;

// Stream 0 walks +x in the band |y| <= 2.5, stream 1 walks +y in |x| <= 2.5, each a block 30 m
// long at 1 person/m^2 (a jittered grid of 1 m) ending 3 m before the crossing. `both` false:
// stream 0 alone. `snap` (may be NULL) gets the positions at t = snap_t.
static stream_out run_streams(bool both, double snap_t, vseries* snap0, vseries* snap1) {
    enum { PER = 150, N = 2 * PER };
    stream_out out = {{0, 0}, {0, 0}, false};
    const int streams = both ? 2 : 1;
    crowd_world* w = v_world(N + 16);
    crowd_agent_id ids[N];
    float s0[N], t_in[N], t_out[N];
    if (!w) return out;
    for (int k = 0; k < streams; ++k)
        for (int j = 0; j < PER; ++j) {
            const int i = k * PER + j;
            const float along = -3.5f - (float)(j / 5), across = -2.0f + (float)(j % 5);
            const float ja = (float)(v_draw(77 + (uint64_t)k, 2 * (uint64_t)j) - 0.5) * 0.2f;
            const float jc = (float)(v_draw(77 + (uint64_t)k, 2 * (uint64_t)j + 1) - 0.5) * 0.2f;
            crowd_agent_def d = v_pedestrian();
            d.goal = crowd_goal_default();
            d.goal.mode = CROWD_GOAL_SEEK;
            s0[i] = along + ja;
            if (k == 0) {
                d.position = (crowd_vec2){s0[i], across + jc};
                d.goal.target = (crowd_vec2){1000.0f, across + jc};
            } else {
                d.position = (crowd_vec2){across + jc, s0[i]};
                d.goal.target = (crowd_vec2){across + jc, 1000.0f};
                d.heading = (crowd_vec2){0.0f, 1.0f};
            }
            t_in[i] = s0[i] >= -SPAN ? 0.0f : -1.0f;
            t_out[i] = -1.0f;
            if (crowd_agent_add(w, &d, &ids[i]) != CROWD_OK) {
                crowd_world_destroy(w);
                return out;
            }
        }
    const int n = streams * PER;
    int done = 0;
    for (int tick = 1; tick <= 1500 && done < n; ++tick) {
        crowd_world_step(w);
        for (int i = 0; i < n; ++i) {
            if (t_out[i] >= 0) continue;
            crowd_vec2 p;
            crowd_agent_get_position(w, ids[i], &p);
            const float s = i < PER ? p.x : p.y;
            if (t_in[i] < 0 && s >= -SPAN) t_in[i] = (float)(tick * DT);
            if (s >= SPAN) t_out[i] = (float)(tick * DT), done++;
            if (snap0 && tick == (int)lround(snap_t / DT))
                vseries_push(i < PER ? snap0 : snap1, p.x, p.y, 0);
        }
    }
    crowd_world_destroy(w);
    for (int k = 0; k < streams; ++k) {
        double sum = 0;
        for (int j = 0; j < PER; ++j) {
            const int i = k * PER + j;
            if (t_out[i] < 0) continue;
            out.through[k]++;
            sum += (SPAN - fmaxf(s0[i], -SPAN)) / (t_out[i] - t_in[i]);
        }
        out.speed[k] = out.through[k] ? sum / out.through[k] : 0;
    }
    out.ok = true;
    return out;
}

void vcase_crossing(const vopts* o, vresult* r) {
    (void)o;
    const double vmin = 0.7 * v_weidmann_speed(1.0);
    snprintf(r->setup, VTEXT,
             "Open ground; stream A walks +x in a band 5 m wide, stream B walks +y in another, "
             "each a block of 150 agents 30 m long at 1 person/m^2 (a jittered 1 m grid) "
             "starting 3 m before the 5 m x 5 m crossing, with SEEK goals 1 km ahead. "
             "Measured: each stream's mean speed over the 20 m centred on the crossing, and "
             "stream A alone as the control.");
    snprintf(r->reference, VTEXT,
             "both streams >= %.2f m/s through the crossing (70%% of Weidmann's %.2f m/s at "
             "1 person/m^2); everyone crosses within 150 s",
             vmin, v_weidmann_speed(1.0));
    snprintf(r->source, VTEXT,
             "Weidmann 1993 for the speed at 1 person/m^2; crossing experiments (Cao et al. "
             "2017, J. Stat. Mech. 033404, streams crossing at 90 degrees) find crossing streams "
             "walk near the one-way speed at such densities. The 70%% floor is this suite's "
             "choice.");
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "x (m)";
    p->ylabel = "y (m)";
    p->xmin = -25, p->xmax = 25, p->ymin = -25, p->ymax = 25;
    vseries* a = vplot_add(p, VSERIES_POINTS, "stream A (+x) at 15 s", "#e76f51");
    vseries* b = vplot_add(p, VSERIES_POINTS, "stream B (+y)", "#457b9d");
    stream_out s[2];
#pragma omp parallel for schedule(dynamic, 1)
    for (int k = 0; k < 2; ++k)
        s[k] = k == 0 ? run_streams(true, 15.0, a, b) : run_streams(false, 0, NULL, NULL);
    snprintf(r->measured, VTEXT,
             "A %.2f m/s, B %.2f m/s through the crossing (A alone %.2f m/s); %d and %d of 150 "
             "crossed",
             s[0].speed[0], s[0].speed[1], s[1].speed[0], s[0].through[0], s[0].through[1]);
    r->pass = s[0].ok && s[1].ok && s[0].through[0] == 150 && s[0].through[1] == 150 &&
              s[0].speed[0] >= vmin && s[0].speed[1] >= vmin;
}
