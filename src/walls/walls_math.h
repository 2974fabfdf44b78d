// Pure geometry of walls: distances, crossings, containment and the swept disc, in double
// precision (the inputs are floats, so differences are exact and the tests decide the way the
// float data says). Everything here is a pure function of its arguments; the tests compare each
// with a brute-force reference.
#ifndef CS_WALLS_MATH_H
#define CS_WALLS_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "walls/walls_store.h"

// Squared distance from p to segment s, and the closest point on it.
static inline double cs_seg_dist2(const cs_wall_seg* s, double px, double py, double* cx,
                                  double* cy) {
    const double ax = s->ax, ay = s->ay, ex = (double)s->bx - ax, ey = (double)s->by - ay;
    const double l2 = ex * ex + ey * ey;
    double u = l2 > 0.0 ? ((px - ax) * ex + (py - ay) * ey) / l2 : 0.0;
    u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
    *cx = ax + u * ex;
    *cy = ay + u * ey;
    const double wx = px - *cx, wy = py - *cy;
    return wx * wx + wy * wy;
}

// The squared gap between segment s's bounding box and the box [x0, x1] x [y0, y1] (0 where they
// overlap): a lower bound of the squared distance from s to every point of the box.
static inline double cs_seg_box_gap2(const cs_wall_seg* s, double x0, double y0, double x1,
                                     double y1) {
    const double sx0 = s->ax < s->bx ? s->ax : s->bx, sx1 = s->ax < s->bx ? s->bx : s->ax;
    const double sy0 = s->ay < s->by ? s->ay : s->by, sy1 = s->ay < s->by ? s->by : s->ay;
    double gx = sx0 - x1 > x0 - sx1 ? sx0 - x1 : x0 - sx1;
    double gy = sy0 - y1 > y0 - sy1 ? sy0 - y1 : y0 - sy1;
    gx = gx > 0.0 ? gx : 0.0, gy = gy > 0.0 ? gy : 0.0;
    return gx * gx + gy * gy;
}

static inline double cs_orient(double ax, double ay, double bx, double by, double px, double py) {
    return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// Whether p lies on segment ab, given that the three are collinear.
static inline bool cs_on_span(double ax, double ay, double bx, double by, double px, double py) {
    return fmin(ax, bx) <= px && px <= fmax(ax, bx) && fmin(ay, by) <= py && py <= fmax(ay, by);
}

// Whether the closed segments pq and ab share a point (touching counts).
static inline bool cs_segments_meet(double px, double py, double qx, double qy, double ax,
                                    double ay, double bx, double by) {
    const double o1 = cs_orient(ax, ay, bx, by, px, py), o2 = cs_orient(ax, ay, bx, by, qx, qy);
    const double o3 = cs_orient(px, py, qx, qy, ax, ay), o4 = cs_orient(px, py, qx, qy, bx, by);
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0)))
        return true;
    return (o1 == 0 && cs_on_span(ax, ay, bx, by, px, py)) ||
           (o2 == 0 && cs_on_span(ax, ay, bx, by, qx, qy)) ||
           (o3 == 0 && cs_on_span(px, py, qx, qy, ax, ay)) ||
           (o4 == 0 && cs_on_span(px, py, qx, qy, bx, by));
}

// Squared distance between segment pq and segment s, with the closest point on pq and on s.
static inline double cs_segseg_dist2(double px, double py, double qx, double qy,
                                     const cs_wall_seg* s, double* ux, double* uy, double* wx,
                                     double* wy) {
    if (cs_segments_meet(px, py, qx, qy, s->ax, s->ay, s->bx, s->by)) {
        // They meet: the closest points coincide somewhere; report the end of pq nearest s.
        double cx, cy;
        const double dp = cs_seg_dist2(s, px, py, &cx, &cy);
        double ex, ey;
        const double dq = cs_seg_dist2(s, qx, qy, &ex, &ey);
        *ux = dp <= dq ? px : qx, *uy = dp <= dq ? py : qy;
        *wx = *ux, *wy = *uy;
        return 0.0;
    }
    double best, cx, cy;
    // End points of pq against s.
    best = cs_seg_dist2(s, px, py, &cx, &cy);
    *ux = px, *uy = py, *wx = cx, *wy = cy;
    double d = cs_seg_dist2(s, qx, qy, &cx, &cy);
    if (d < best) best = d, *ux = qx, *uy = qy, *wx = cx, *wy = cy;
    // End points of s against pq.
    if (px != qx || py != qy) {
        const double ex = qx - px, ey = qy - py, l2 = ex * ex + ey * ey;
        for (int k = 0; k < 2; ++k) {
            const double ox = k ? s->bx : s->ax, oy = k ? s->by : s->ay;
            double u = ((ox - px) * ex + (oy - py) * ey) / l2;
            u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
            const double cx2 = px + u * ex, cy2 = py + u * ey;
            const double dx = ox - cx2, dy = oy - cy2;
            d = dx * dx + dy * dy;
            if (d < best) best = d, *ux = cx2, *uy = cy2, *wx = ox, *wy = oy;
        }
    }
    return best;
}

// A segment pq and a distance r for many "does a wall come nearer than r" tests (cs_near_list):
// pq's direction and squared length, and the bounds below which a wall's end point's cross and
// dot products with it put the wall beyond r of pq for certain.
typedef struct cs_near_line {
    double px, py, qx, qy, r2;
    double ex, ey, l2;
    double band2;  // cross products squared above this: an end point beyond r of pq's line
    double lo, hi; // dot products below lo or above hi: an end point beyond r of pq's ends
} cs_near_line;

static inline cs_near_line cs_near_line_of(double px, double py, double qx, double qy, double r) {
    const double ex = qx - px, ey = qy - py, l2 = ex * ex + ey * ey, l = sqrt(l2);
    // The margins are far above the rounding of the products (relative 1e-16, the coordinates
    // below 1e6), so that no wall the exact test would find nearer than r is skipped.
    const double rm = r * (1.0 + 1e-6) + 1e-6;
    return (cs_near_line){
        px, py, qx, qy, r * r, ex, ey, l2, rm * rm * l2 * (1.0 + 1e-9), -rm * l, l2 + rm * l};
}

// Whether a segment of list[0..n) comes nearer than r to q's segment: the same answer as
// cs_segseg_dist2(...) < r * r over the list, which it computes only for a segment that neither
// lies wholly on one side of pq's line beyond r of it nor wholly beyond one of pq's ends (the
// usual case for a wall beside a long line: two cross or dot products and no division).
static inline bool cs_near_list(const cs_near_line* q, const cs_wall_seg* list, uint32_t n) {
    double ux, uy, wx, wy;
    for (uint32_t i = 0; i < n; ++i) {
        const cs_wall_seg* s = &list[i];
        const double ax = (double)s->ax - q->px, ay = (double)s->ay - q->py;
        const double bx = (double)s->bx - q->px, by = (double)s->by - q->py;
        const double ca = q->ex * ay - q->ey * ax, cb = q->ex * by - q->ey * bx;
        if (q->l2 > 0.0 && ((ca > 0.0) == (cb > 0.0)) && ca != 0.0 && cb != 0.0 &&
            ca * ca > q->band2 && cb * cb > q->band2)
            continue;
        const double da = q->ex * ax + q->ey * ay, db = q->ex * bx + q->ey * by;
        if (q->l2 > 0.0 && ((da < q->lo && db < q->lo) || (da > q->hi && db > q->hi))) continue;
        if (cs_segseg_dist2(q->px, q->py, q->qx, q->qy, s, &ux, &uy, &wx, &wy) < q->r2) return true;
    }
    return false;
}

// Sets up s for an agent at (px, py) whose sight lines are at most `reach` long: the squared reach
// widened by a relative margin, so that rounding never drops a segment a line could meet.
static inline void cs_sight_init(const cs_walls* g, float px, float py, float reach, cs_sight* s) {
    const double r = (double)reach * 1.0001 + 1e-4;
    s->g = g;
    s->segs = s->local;
    s->n = 0;
    s->overflow = false;
    s->px = px, s->py = py, s->reach2 = r * r;
}

// Appends the segments of a list that s's agent can see within its reach; false when they do not
// fit (then s->overflow).
static inline bool cs_sight_add(cs_sight* s, const cs_wall_seg* list, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
        double cx, cy;
        if (!(cs_seg_dist2(&list[i], s->px, s->py, &cx, &cy) <= s->reach2)) continue;
        if (s->n == CS_SIGHT_SEGS) {
            s->overflow = true;
            return false;
        }
        s->local[s->n++] = list[i];
    }
    return true;
}

// The walls of a cell's list within `reach` of (px, py), for a query within cs_walls_reach of a
// point of the cell; returns false when there are none. A list too long to copy is kept whole.
static inline bool cs_sight_list(const cs_walls* g, cs_wall_ref ref, float px, float py,
                                 float reach, cs_sight* s) {
    cs_sight_init(g, px, py, reach, s);
    const cs_wall_seg* list = g->segs + ref.start;
    const uint32_t n = ref.count;
    if (n > CS_SIGHT_SEGS) {
        s->segs = list, s->n = n;
        return true;
    }
    cs_sight_add(s, list, n);
    return s->n > 0;
}

// The whole of a cell's list as the walls to test, for a query within cs_walls_reach of a point of
// the cell that tests few sight lines: each line is tested against every segment of the list
// rather than the list sifted by distance first (the segments a line cannot reach answer no).
static inline void cs_sight_whole(const cs_walls* g, cs_wall_ref ref, cs_sight* s) {
    s->g = g;
    s->segs = g->segs + ref.start;
    s->n = ref.count;
    s->overflow = false;
}

// The walls to test for the sight lines of an agent at (px, py) no longer than `reach`, which
// its cell's list covers: the two key segments of the cell's summary when every other segment of
// the list (and every unlisted one) is beyond `reach` of every point of the cell, so that such a
// line can only meet a key; else the whole list. Both come from the summary's line, which the
// clearance pass has just read for an agent near a wall, rather than from the index entry; without
// the direct index the list comes from the table.
static inline void cs_sight_cell(const cs_walls* g, float px, float py, float reach, cs_sight* s) {
    const int32_t cx = cs_cell_coord(px, g->inv_cell), cy = cs_cell_coord(py, g->inv_cell);
    if (!g->dir) {
        cs_sight_whole(g, cs_walls_list(g, cx, cy), s);
        return;
    }
    const cs_wall_ref* e = cs_walls_dir_at(g, cx, cy);
    const cs_wall_sum* sum = e ? &g->dsum[e - g->dir] : NULL;
    if (!sum || sum->count == 0) {
        cs_sight_whole(g, (cs_wall_ref){0, 0}, s);
        return;
    }
    if (!(sum->rest > reach * 1.0001f + 1e-4f)) {
        cs_sight_whole(g, (cs_wall_ref){sum->start, sum->count}, s);
        return;
    }
    cs_sight_init(g, px, py, reach, s);
    for (int q = 0; q < 2; ++q)
        s->local[q] = (cs_wall_seg){sum->k[q][0], sum->k[q][1], sum->k[q][2], sum->k[q][3], 0};
    s->n = 2;
}

// Whether the sight line from (x0, y0) to (x1, y1) meets a wall of the gathered list.
static inline bool cs_sight_blocked(const cs_sight* s, float x0, float y0, float x1, float y1) {
    if (s->overflow) return cs_walls_crossed(s->g, x0, y0, x1, y1);
    for (uint32_t i = 0; i < s->n; ++i) {
        const cs_wall_seg* g = &s->segs[i];
        if (cs_segments_meet(x0, y0, x1, y1, g->ax, g->ay, g->bx, g->by)) return true;
    }
    return false;
}

// Crossing-number containment of p in a closed polygon (points in order, last joins first).
// Points exactly on the boundary may go either way; callers test boundary distance first.
static inline bool cs_point_in_polygon(const crowd_vec2* pts, int n, double px, double py) {
    bool in = false;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        const double yi = pts[i].y, yj = pts[j].y;
        if ((yi > py) != (yj > py)) {
            const double xi = pts[i].x, xj = pts[j].x;
            const double x = xi + (py - yi) * (xj - xi) / (yj - yi);
            if (px < x) in = !in;
        }
    }
    return in;
}

// The earliest contact of a moving disc with the segments seen so far: the smallest t, ties to
// the lowest segment id, so the result does not depend on the order segments are offered in
// (a segment offered twice, from two cells, changes nothing).
typedef struct cs_hit {
    double t;      // fraction of the move, in [0, 1]; > 1 when nothing was hit
    double nx, ny; // unit contact normal, pointing from the wall to the disc
    uint32_t id;
} cs_hit;

static inline void cs_hit_offer(cs_hit* best, double t, double nx, double ny, uint32_t id) {
    if (t < best->t || (t == best->t && id < best->id)) *best = (cs_hit){t, nx, ny, id};
}

// Offers segment s's first contact with a disc of radius R whose centre moves from p by d.
// A disc already closer than R (inside its skin) is blocked at t = 0 only when the move brings it
// closer, and never otherwise: the distance to a segment is convex along a line, so a move that
// starts by getting no closer never gets closer.
static inline void cs_sweep_seg(const cs_wall_seg* s, double px, double py, double dx, double dy,
                                double R, cs_hit* best) {
    double cx, cy;
    const double d2 = cs_seg_dist2(s, px, py, &cx, &cy);
    const double wx = px - cx, wy = py - cy;
    const double ax = s->ax, ay = s->ay, ex = (double)s->bx - ax, ey = (double)s->by - ay;
    const double len = sqrt(ex * ex + ey * ey);
    if (d2 < R * R) {
        if (dx * wx + dy * wy >= 0.0) return;
        double nx, ny;
        if (d2 > 0.0) {
            const double d = sqrt(d2);
            nx = wx / d, ny = wy / d;
        } else { // on the segment: the side the move comes from
            nx = -ey / len, ny = ex / len;
            if (nx * dx + ny * dy > 0.0) nx = -nx, ny = -ny;
        }
        cs_hit_offer(best, 0.0, nx, ny, s->id);
        return;
    }
    // The side of the segment's line the disc is on, and the move across it. The disc is at
    // least R from the segment, but rounding may put it a hair closer to the line or an end
    // point: a contact computed before the start counts as a contact at the start.
    double nx = -ey / len, ny = ex / len;
    double s0 = (px - ax) * nx + (py - ay) * ny;
    if (s0 < 0.0) nx = -nx, ny = -ny, s0 = -s0;
    const double dn = dx * nx + dy * ny;
    if (dn < 0.0) {
        double t = (s0 - R) / -dn;
        t = t > 0.0 ? t : 0.0;
        if (t <= 1.0) {
            const double qx = px + t * dx, qy = py + t * dy;
            const double u = ((qx - ax) * ex + (qy - ay) * ey) / (len * len);
            if (u >= 0.0 && u <= 1.0) cs_hit_offer(best, t, nx, ny, s->id);
        }
    }
    // The end points' discs.
    const double a2 = dx * dx + dy * dy;
    for (int k = 0; k < 2 && a2 > 0.0; ++k) {
        const double ox = k ? s->bx : s->ax, oy = k ? s->by : s->ay;
        const double mx = px - ox, my = py - oy;
        const double b = mx * dx + my * dy, c = mx * mx + my * my - R * R;
        const double disc = b * b - a2 * c;
        if (b >= 0.0 || disc < 0.0) continue;
        double t = (-b - sqrt(disc)) / a2;
        t = t > 0.0 ? t : 0.0;
        if (t > 1.0) continue;
        const double hx = mx + t * dx, hy = my + t * dy, hl = sqrt(hx * hx + hy * hy);
        if (hl > 0.0) cs_hit_offer(best, t, hx / hl, hy / hl, s->id);
    }
}

// Offers every segment of a list. A segment whose bounding box lies more than R from the move's
// cannot be met (cs_seg_box_gap2; the relative margin is far above its rounding, so no contact
// cs_sweep_seg would find is skipped): most segments of a cell's list are that far from a short
// move, and skip its square roots and divisions.
static inline void cs_sweep_list(const cs_wall_seg* list, uint32_t n, double px, double py,
                                 double dx, double dy, double R, cs_hit* best) {
    const double x0 = dx < 0.0 ? px + dx : px, x1 = dx < 0.0 ? px : px + dx;
    const double y0 = dy < 0.0 ? py + dy : py, y1 = dy < 0.0 ? py : py + dy;
    const double far = R * R * (1.0 + 1e-6);
    for (uint32_t i = 0; i < n; ++i)
        if (!(cs_seg_box_gap2(&list[i], x0, y0, x1, y1) > far))
            cs_sweep_seg(&list[i], px, py, dx, dy, R, best);
}

// Most slides of one move; a move still blocked after these stops where it is.
#define CS_WALL_SLIDES 4

// The move of a disc of radius R from p by d against the segments `sweep` offers, sliding along
// each wall it meets: move to the contact, drop the part of the rest that points into the wall,
// continue, at most CS_WALL_SLIDES times. Every partial move is free of contact, so a disc that
// started at least R from every segment (or no closer than it was) ends so too. The remainder
// is lifted off the wall by a relative 1e-9 so that rounding never counts a slide along a wall as
// a move into it. Writes the end point; returns whether any segment was met.
typedef void cs_sweep_fn(void* ctx, double px, double py, double dx, double dy, double R,
                         cs_hit* best);

static inline bool cs_wall_slide(cs_sweep_fn* sweep, void* ctx, double* px, double* py, double dx,
                                 double dy, double R) {
    double x = *px, y = *py;
    bool met = false;
    for (int it = 0; it < CS_WALL_SLIDES; ++it) {
        if (dx == 0.0 && dy == 0.0) break;
        cs_hit best = {.t = 2.0, .id = UINT32_MAX};
        sweep(ctx, x, y, dx, dy, R, &best);
        if (best.t > 1.0) {
            x += dx, y += dy;
            dx = dy = 0.0;
            break;
        }
        met = true;
        x += dx * best.t, y += dy * best.t;
        double rx = dx * (1.0 - best.t), ry = dy * (1.0 - best.t);
        const double vn = rx * best.nx + ry * best.ny;
        if (vn < 0.0) rx -= best.nx * vn, ry -= best.ny * vn;
        const double lift = sqrt(rx * rx + ry * ry) * 1e-9;
        dx = rx + best.nx * lift, dy = ry + best.ny * lift;
    }
    *px = x, *py = y;
    return met;
}

#endif
