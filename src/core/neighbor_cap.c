// Neighbor pass with a per-agent neighbor cap (crowd_world_set_max_neighbors): the bounded-cost
// alternative to neighbor.c for worlds where a client may pile agents up. Its walk of one agent
// (cs_nb_capped_agent) also serves the uncapped pass for an agent whose query box holds more than
// CROWD_NEIGHBOR_BUDGET agents, with k = CROWD_MAX_NEIGHBORS and scan = CROWD_NEIGHBOR_BUDGET.
//
// Each agent examines at most `scan` (k * CROWD_NEIGHBOR_SCAN in this pass) candidates of its query
// box, visiting the box's rows from its own row outward (own, below, above, two below, ...) and
// each row's agents in sorted-slot order. Of the candidates examined it keeps the k nearest within
// its separation radius (ties: the lower agent index first) and sums separation and group
// separation over them nearest first; the queue cone (and the file query) take the closest agent
// ahead among all candidates examined. Per agent the work is therefore at most `scan` candidates,
// plus the rows of its query box, however many agents share a cell. Everything is per agent and in
// a fixed order, so results do not depend on the thread count.
//
// Scalar code: the cap is for hostile or pathological worlds; the default (no cap) is neighbor.c.
// The tests, terms and box are neighbor.c's, from steer/steer_math.h, so an agent whose neighbors
// all fit in the cap gets neighbor.c's terms (summed in another order).
#include <math.h>

#include "core/internal.h"
#include "steer/steer_math.h"

typedef struct kept {
    float d;
    uint32_t id;
    float ux, uy; // offset * (1 / d - 1 / r)
    uint32_t group;
} kept;

typedef struct cap_query {
    float px, py, r, inv_r;
    float hx, hy, cone_l, cone_w, cone_w2;
    float gx, gy, gd2; // CS_NB_FILE: the target and |pos - target|^2
    uint32_t self, group;
    bool cone, file;
    bool hw;              // the cone is the headway's: candidates heading the agent's way
    float hw_cos;         // its smallest dot product of the aims (exclusive)
    const float *ax, *ay; // every slot's aim (the headway's direction inputs)
    int k, scan;          // neighbors kept at most, candidates examined at most
    int examined, n;      // candidates examined so far, neighbors kept
    float along;          // closest along in the cone (CS_NB_FILE: in the file's sector)
    float ox, oy;         // CS_NB_FILE: the offset of that agent
    uint32_t os;          // CS_NB_FILE: its sorted slot
    kept* best;           // n entries, nearest first
    const cs_grid* g;
    const crowd_world* w;
} cap_query;

static inline bool before(float d, uint32_t id, const kept* b) {
    return d < b->d || (d == b->d && id < b->id);
}

// Examines slots [b, e) until the scan budget is spent. With `box`, the sparse layout's: agents
// outside the box's cells of the row (other rows' agents that share the row's keys) are skipped
// without counting against the budget, so the candidates examined are the box's, cell by cell, as
// in the dense layout, whatever else the world holds.
static void examine(cap_query* q, uint32_t b, uint32_t e, const cs_cell_box* box, int32_t row) {
    const cs_columns* c = &q->w->cur;
    const float inv = q->g->inv_cell;
    for (uint32_t j = b; j < e && q->examined < q->scan; ++j) {
        if (box) {
            const int32_t cx = cs_cell_coord(c->px[j], inv);
            if (cs_cell_coord(c->py[j], inv) != row || cx < box->cx0 || cx > box->cx1) continue;
        }
        q->examined++;
        if (j == q->self) continue;
        const float dx = q->px - c->px[j], dy = q->py - c->py[j];
        if (q->cone) {
            // The cone takes the offset other - agent, the opposite sign of dx, dy.
            const float ox = -dx, oy = -dy;
            const cs_steer_cone_at a = cs_steer_cone_offset(ox, oy, q->hx, q->hy);
            if (!q->file) {
                const bool in = q->hw ? cs_steer_in_headway(a, q->cone_l, q->cone_w2, q->hx, q->hy,
                                                            q->ax[j], q->ay[j], q->hw_cos, ox, oy)
                                      : cs_steer_in_cone(a, q->cone_l, q->cone_w2);
                if (in && a.along < q->along) q->along = a.along;
            } else {
                const float ex = c->px[j] - q->gx, ey = c->py[j] - q->gy;
                if (cs_steer_in_sector(a, q->cone_l, q->cone_w2, ex * ex + ey * ey, q->gd2) &&
                    cs_steer_file_before(a.along, ox, oy, q->along, q->ox, q->oy)) {
                    q->along = a.along;
                    q->ox = ox;
                    q->oy = oy;
                    q->os = j;
                }
            }
        }
        const cs_steer_sep t = cs_steer_sep_term(dx, dy, true, q->r, q->inv_r);
        if (!t.in) continue;
        const uint32_t id = c->id[j];
        if (q->n == q->k && !before(t.d, id, &q->best[q->n - 1])) continue;
        int at = q->n < q->k ? q->n++ : q->k - 1;
        while (at > 0 && before(t.d, id, &q->best[at - 1])) {
            q->best[at] = q->best[at - 1];
            --at;
        }
        q->best[at] = (kept){.d = t.d, .id = id, .ux = t.ux, .uy = t.uy, .group = c->group[j]};
    }
}

// The agent's query box: neighbor.c's (the separation disc of radius r, grown to the cone's
// bounding box).
static bool query_box(const cap_query* q, float r, cs_cell_box* box) {
    const cs_steer_box b =
        cs_steer_query_box(q->px, q->py, r, q->cone, q->hx, q->hy, q->cone_l, q->cone_w);
    return cs_grid_box(q->g, b.x0, b.y0, b.x1, b.y1, box);
}

static void visit_rows(cap_query* q, const cs_cell_box* box) {
    const cs_grid* g = q->g;
    const uint32_t n = (uint32_t)q->w->count;
    const bool sparse = !g->dense;
    if (sparse && (int64_t)box->cy1 - box->cy0 >= (int64_t)n) {
        examine(q, 0, n, NULL, 0); // as neighbor.c: one walk over all agents
        return;
    }
    int32_t own = cs_cell_coord(q->py, g->inv_cell);
    own = own < box->cy0 ? box->cy0 : (own > box->cy1 ? box->cy1 : own);
    // Rows own, own - 1, own + 1, own - 2, own + 2, ... while the budget lasts.
    for (int64_t d = 0; q->examined < q->scan; ++d) {
        const bool below = own - d >= box->cy0, above = own + d <= box->cy1;
        if (!below && !above) return;
        for (int side = 0; side < 2; ++side) {
            if (side == 0 ? !below : (d == 0 || !above)) continue;
            const int32_t cy = (int32_t)(side == 0 ? own - d : own + d);
            uint32_t b[2], e[2];
            const int ranges = cs_grid_row_ranges(g, box, cy, b, e);
            for (int k = 0; k < ranges; ++k) examine(q, b[k], e[k], sparse ? box : NULL, cy);
        }
    }
}

uint64_t cs_nb_capped_agent(crowd_world* w, const cs_nb_uses* uses, int s, int k, int scan) {
    const cs_nb_use *cone_use = &uses->cone, *group_use = &uses->group;
    const cs_nb_use *file_use = &uses->file, *hw_use = &uses->headway;
    kept best[CROWD_MAX_NEIGHBORS];
    const cs_columns* c = &w->cur;
    const uint32_t flags = c->flags[s];
    const bool grec = flags & group_use->flag, crec = flags & cone_use->flag;
    const bool frec = flags & file_use->flag;
    // The headway: the cone's test along the heading column (as in neighbor.c).
    const bool hrec = (flags & hw_use->flag) && !frec && !crec;
    const float vx = c->vx[s], vy = c->vy[s], sep_w = c->sep_weight[s];
    cap_query q = {.px = c->px[s],
                   .py = c->py[s],
                   .r = c->sep_radius[s],
                   .inv_r = 1.0f / c->sep_radius[s],
                   .self = (uint32_t)s,
                   .group = c->group[s],
                   .k = k,
                   .scan = scan,
                   .along = INFINITY,
                   .ox = INFINITY,
                   .oy = INFINITY,
                   .best = best,
                   .g = &w->grid,
                   .w = w};
    const bool sep = sep_w > 0.0f, grp = q.group != 0;
    if (frec) {
        q.file = true;
        q.gx = cs_nb_in(file_use, s, 0);
        q.gy = cs_nb_in(file_use, s, 1);
        const cs_steer_look look = cs_steer_cone_look(q.gx - q.px, q.gy - q.py, file_use->min_len);
        q.gd2 = look.len2, q.cone = look.on, q.hx = look.hx, q.hy = look.hy;
        const cs_steer_shape sh = cs_steer_sector_shape(
            cs_nb_in(file_use, s, 2) * file_use->reach_scale, cs_nb_in(file_use, s, 3));
        q.cone_l = sh.len, q.cone_w = sh.width, q.cone_w2 = sh.width2;
    } else if (crec) {
        const cs_steer_look look = cs_steer_cone_look(vx, vy, cone_use->min_len);
        q.cone = look.on, q.hx = look.hx, q.hy = look.hy;
        q.cone_l = cs_nb_in(cone_use, s, 0);
        q.cone_w = cs_nb_in(cone_use, s, 1);
        q.cone_w2 = cs_nb_in(cone_use, s, 2);
    } else if (hrec) {
        const cs_steer_look look =
            cs_steer_cone_look(cs_nb_in(hw_use, s, 0), cs_nb_in(hw_use, s, 1), hw_use->min_len);
        q.cone = look.on, q.hx = look.hx, q.hy = look.hy, q.hw = true;
        const cs_steer_shape sh =
            cs_steer_headway_shape(cs_nb_in(hw_use, s, 2), cs_nb_in(hw_use, s, 3));
        q.cone_l = sh.len, q.cone_w = sh.width, q.cone_w2 = sh.width2;
        q.hw_cos = hw_use->align;
        q.ax = hw_use->in_col[0], q.ay = hw_use->in_col[1];
    }
    w->force_x[s] = 0.0f;
    w->force_y[s] = 0.0f;
    cs_cell_box box;
    if ((sep || grp || q.cone) && query_box(&q, (sep || grp) ? q.r : 0.0f, &box))
        visit_rows(&q, &box);

    const float ms = c->max_speed[s];
    float sx = 0.0f, sy = 0.0f, gx = 0.0f, gy = 0.0f;
    int gn = 0;
    for (int i = 0; i < q.n; ++i) {
        sx += q.best[i].ux;
        sy += q.best[i].uy;
        if (q.best[i].group == q.group) {
            gx += q.best[i].ux;
            gy += q.best[i].uy;
            gn++;
        }
    }
    // CS_FLAG_SEP_PUSH: without the spec's velocity term, as in neighbor.c.
    const bool drag = !(flags & CS_FLAG_SEP_PUSH);
    const crowd_vec2 vel = {vx, vy};
    if (sep) {
        const crowd_vec2 f = cs_steer_sep_force(ms, drag, sx, sy, (float)q.n, vel);
        w->force_x[s] = f.x * sep_w;
        w->force_y[s] = f.y * sep_w;
    }
    if (grec) {
        const crowd_vec2 g = cs_steer_sep_force(ms, drag, gx, gy, (float)gn, vel);
        group_use->out[0][s] = grp ? g.x : 0.0f;
        group_use->out[1][s] = grp ? g.y : 0.0f;
    }
    if (crec) cone_use->out[0][s] = q.cone ? q.along / q.cone_l : INFINITY;
    if (hrec) hw_use->out[0][s] = q.cone ? q.along : INFINITY; // not over the length
    if (frec) {
        // Only an agent of the same file (subscribed, with the same target) is the one ahead.
        const bool other = q.cone && q.along < INFINITY && (c->flags[q.os] & file_use->flag);
        const bool same = other && cs_nb_in(file_use, (int)q.os, 0) == q.gx &&
                          cs_nb_in(file_use, (int)q.os, 1) == q.gy;
        ((uint32_t*)(void*)file_use->out[0])[s] = same ? q.os : CS_NB_NONE;
    }
    return (uint64_t)q.examined;
}

typedef struct cap_ctx {
    crowd_world* w;
    cs_nb_uses uses;
    uint64_t candidates[CS_MAX_THREADS]; // per thread, summed in thread order
} cap_ctx;

static void cap_team(void* arg, int t, int nt) {
    cap_ctx* x = arg;
    crowd_world* w = x->w;
    const int k = w->max_neighbors;
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    uint64_t total = 0;
    for (int s = lo; s < hi; ++s)
        total += cs_nb_capped_agent(w, &x->uses, s, k, k * CROWD_NEIGHBOR_SCAN);
    x->candidates[t] = total;
}

void cs_pass_neighbor_capped(crowd_world* w) {
    cap_ctx x = {.w = w,
                 .uses = {cs_nb_resolve(w, CS_NB_CONE), cs_nb_resolve(w, CS_NB_GROUP),
                          cs_nb_resolve(w, CS_NB_FILE), cs_nb_resolve(w, CS_NB_HEADWAY)}};
    cs_team_run(w->threads, cap_team, &x);
    uint64_t total = 0;
    for (int t = 0; t < CS_MAX_THREADS; ++t) total += x.candidates[t];
    w->profile.candidates = total;
}
