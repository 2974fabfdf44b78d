// Neighbor pass: separation, follower-group separation and the queue's forward cone, in one walk
// over the cell-sorted arrays.
//
// Each agent visits the rows of cells its query box covers. A row is one contiguous range of
// sorted agents, walked in fixed CROWD_LANES-wide chunks with branch-free masks; the padding after
// the last agent lets a chunk read past the end of its range. Sums are carried per lane and reduced
// in one fixed order, so results do not depend on the ISA, the vector width or the thread count.
#include <math.h>

#include "internal.h"

typedef struct query {
    float px, py, vx, vy;
    float sep_r;   // separation radius (also the group-separation radius)
    float hx, hy;  // queue heading
    float cone_l, cone_w;
    uint32_t self; // own sorted slot
    uint32_t group;
    bool sep, grp, cone;
} query;

typedef struct sums {
    float sx[CROWD_LANES], sy[CROWD_LANES], sn[CROWD_LANES]; // separation
    float gx[CROWD_LANES], gy[CROWD_LANES], gn[CROWD_LANES]; // group separation
    float along[CROWD_LANES];                                // closest agent in the cone
} sums;

static inline float reduce_lanes(float* a) {
    for (int width = CROWD_LANES / 2; width >= 1; width /= 2)
        for (int l = 0; l < width; ++l) a[l] += a[l + width];
    return a[0];
}

static inline float min_lanes(const float* a) {
    float m = a[0];
    for (int l = 1; l < CROWD_LANES; ++l) m = a[l] < m ? a[l] : m;
    return m;
}

// Separation only: the common case, kept lean.
static inline __attribute__((always_inline)) void
chunk_sep(const crowd_world* w, const query* q, sums* acc, uint32_t b, uint32_t e, int32_t cy,
          bool sparse) {
    const float* restrict xs = w->cur.px;
    const float* restrict ys = w->cur.py;
    const float inv_cell = w->grid.inv_cell;
    const float r = q->sep_r;
    for (uint32_t j = b; j < e; j += CROWD_LANES) {
#pragma omp simd
        for (int l = 0; l < CROWD_LANES; ++l) {
            const uint32_t jj = j + (uint32_t)l;
            const float dx = q->px - xs[jj], dy = q->py - ys[jj];
            const float d = sqrtf(dx * dx + dy * dy);
            bool in = (jj < e) & (d > 0.01f) & (d < r);
            if (sparse) in &= crowd_cell_coord(ys[jj], inv_cell) == cy;
            const float inv_d = 1.0f / (in ? d : 1.0f);
            const float push = 1.0f - d / r;
            acc->sx[l] += in ? dx * inv_d * push : 0.0f;
            acc->sy[l] += in ? dy * inv_d * push : 0.0f;
            acc->sn[l] += in ? 1.0f : 0.0f;
        }
    }
}

// Everything: separation, separation within the follower group, and the forward cone.
static inline __attribute__((always_inline)) void
chunk_all(const crowd_world* w, const query* q, sums* acc, uint32_t b, uint32_t e, int32_t cy,
          bool sparse) {
    const float* restrict xs = w->cur.px;
    const float* restrict ys = w->cur.py;
    const uint32_t* restrict grp = w->cur.group;
    const float inv_cell = w->grid.inv_cell;
    const float r = q->sep_r;
    for (uint32_t j = b; j < e; j += CROWD_LANES) {
#pragma omp simd
        for (int l = 0; l < CROWD_LANES; ++l) {
            const uint32_t jj = j + (uint32_t)l;
            const float dx = q->px - xs[jj], dy = q->py - ys[jj];
            const float d = sqrtf(dx * dx + dy * dy);
            bool valid = jj < e;
            if (sparse) valid &= crowd_cell_coord(ys[jj], inv_cell) == cy;
            const bool near = valid & (d > 0.01f) & (d < r);
            const bool in_sep = near & q->sep;
            const bool in_grp = near & q->grp & (grp[jj] == q->group);
            const float inv_d = 1.0f / (near ? d : 1.0f);
            const float push = 1.0f - d / r;
            const float ux = dx * inv_d * push, uy = dy * inv_d * push;
            acc->sx[l] += in_sep ? ux : 0.0f;
            acc->sy[l] += in_sep ? uy : 0.0f;
            acc->sn[l] += in_sep ? 1.0f : 0.0f;
            acc->gx[l] += in_grp ? ux : 0.0f;
            acc->gy[l] += in_grp ? uy : 0.0f;
            acc->gn[l] += in_grp ? 1.0f : 0.0f;
            // The cone uses offset = other - agent, the opposite sign of dx, dy.
            const float along = -dx * q->hx + -dy * q->hy;
            const float qx = -dx - q->hx * along, qy = -dy - q->hy * along;
            const float perp = sqrtf(qx * qx + qy * qy);
            const bool in_cone = valid & q->cone & (jj != q->self) & (along >= 0.0f) &
                                 (along <= q->cone_l) & (perp <= q->cone_w);
            acc->along[l] = in_cone && along < acc->along[l] ? along : acc->along[l];
        }
    }
}

// Visits every row of the box; returns the candidates examined.
static inline __attribute__((always_inline)) uint64_t
visit(const crowd_world* w, const query* q, sums* acc, float x0, float y0, float x1, float y1,
      bool general, bool sparse) {
    crowd_cell_box box;
    if (!crowd_grid_box(&w->grid, x0, y0, x1, y1, &box)) return 0;
    uint64_t candidates = 0;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        uint32_t b[2], e[2];
        const int ranges = crowd_grid_row_ranges(&w->grid, &box, cy, b, e);
        for (int k = 0; k < ranges; ++k) {
            candidates += e[k] - b[k];
            if (general)
                chunk_all(w, q, acc, b[k], e[k], cy, sparse);
            else
                chunk_sep(w, q, acc, b[k], e[k], cy, sparse);
        }
    }
    return candidates;
}

// Query boxes are widened by a relative margin so a float-rounded box edge never drops a candidate
// that the exact tests would accept.
static inline float margin(float px, float py, float reach) {
    return (fabsf(px) + fabsf(py) + reach) * 1e-6f + 1e-6f;
}

static inline __attribute__((always_inline)) uint64_t agent_neighbors(crowd_world* w, int s,
                                                                        bool sparse) {
    const crowd_columns* c = &w->cur;
    query q = {
        .px = c->px[s],
        .py = c->py[s],
        .vx = c->vx[s],
        .vy = c->vy[s],
        .sep_r = c->sep_radius[s],
        .self = (uint32_t)s,
        .group = c->group[s],
    };
    const float sep_w = c->sep_weight[s];
    q.sep = sep_w > 0.0f;
    q.grp = q.group != 0;
    if (c->flags[s] & CROWD_FLAG_QUEUE) {
        const uint32_t idx = c->id[s];
        const float speed = sqrtf(q.vx * q.vx + q.vy * q.vy);
        q.cone = speed >= CROWD_QUEUE_MIN_SPEED;
        q.hx = q.cone ? q.vx / speed : 0.0f;
        q.hy = q.cone ? q.vy / speed : 0.0f;
        q.cone_l = w->cone_length[idx];
        q.cone_w = w->cone_width[idx];
    }

    w->force_x[s] = 0.0f;
    w->force_y[s] = 0.0f;
    w->gsep_x[s] = 0.0f;
    w->gsep_y[s] = 0.0f;
    w->cone_along[s] = INFINITY;
    if (!q.sep && !q.grp && !q.cone) return 0;

    // Query box: the separation disc, grown to the cone's bounding box when there is one.
    const float r = (q.sep || q.grp) ? q.sep_r : 0.0f;
    float x0 = q.px - r, x1 = q.px + r, y0 = q.py - r, y1 = q.py + r, reach = r;
    if (q.cone) {
        const float ex = fabsf(q.hy) * q.cone_w, ey = fabsf(q.hx) * q.cone_w;
        const float tx = q.hx * q.cone_l, ty = q.hy * q.cone_l;
        x0 = fminf(x0, q.px + fminf(0.0f, tx) - ex);
        x1 = fmaxf(x1, q.px + fmaxf(0.0f, tx) + ex);
        y0 = fminf(y0, q.py + fminf(0.0f, ty) - ey);
        y1 = fmaxf(y1, q.py + fmaxf(0.0f, ty) + ey);
        reach = fmaxf(reach, q.cone_l + q.cone_w);
    }
    const float m = margin(q.px, q.py, reach);

    sums acc;
    for (int l = 0; l < CROWD_LANES; ++l) {
        acc.sx[l] = acc.sy[l] = acc.sn[l] = 0.0f;
        acc.gx[l] = acc.gy[l] = acc.gn[l] = 0.0f;
        acc.along[l] = INFINITY;
    }
    const bool general = q.grp || q.cone;
    uint64_t cand = general ? visit(w, &q, &acc, x0 - m, y0 - m, x1 + m, y1 + m, true, sparse)
                            : visit(w, &q, &acc, x0 - m, y0 - m, x1 + m, y1 + m, false, sparse);

    const float ms = c->max_speed[s];
    if (q.sep) {
        const float sx = reduce_lanes(acc.sx), sy = reduce_lanes(acc.sy);
        const float sn = reduce_lanes(acc.sn);
        w->force_x[s] = (ms * sx - sn * q.vx) * sep_w;
        w->force_y[s] = (ms * sy - sn * q.vy) * sep_w;
    }
    if (q.grp) {
        const float gx = reduce_lanes(acc.gx), gy = reduce_lanes(acc.gy);
        const float gn = reduce_lanes(acc.gn);
        w->gsep_x[s] = ms * gx - gn * q.vx;
        w->gsep_y[s] = ms * gy - gn * q.vy;
    }
    if (q.cone) w->cone_along[s] = min_lanes(acc.along);
    return cand;
}

uint64_t crowd_pass_neighbor(crowd_world* w) {
    const int n = w->count;
    uint64_t candidates = 0;
    if (w->grid.dense) {
#pragma omp parallel for num_threads(w->threads) if (w->threads > 1) schedule(static)              \
    reduction(+ : candidates)
        for (int s = 0; s < n; ++s) candidates += agent_neighbors(w, s, false);
    } else {
#pragma omp parallel for num_threads(w->threads) if (w->threads > 1) schedule(static)              \
    reduction(+ : candidates)
        for (int s = 0; s < n; ++s) candidates += agent_neighbors(w, s, true);
    }
    return candidates;
}
