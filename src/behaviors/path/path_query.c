// Nearest-segment searches: the global one through the path's grid, for followers that are new
// or lost, and the hint window every follower uses otherwise, which costs O(window) however long
// the path is and keeps a follower on its own part of a path that comes back near itself.
#include <math.h>

#include "behaviors/path/path_internal.h"

// Keeps (d, k) when it is nearer than the best so far, or as near with a lower index, so the
// result does not depend on the order cells and windows are visited in.
static inline void consider(float d, int k, float* best_d, int* best_k) {
    if (d < *best_d || (d == *best_d && k < *best_k)) {
        *best_d = d;
        *best_k = k;
    }
}

static void visit_cell(const cs_path* p, int segs, int i, int j, crowd_vec2 q, float* best_d,
                       int* best_k) {
    const cs_path_grid* g = &p->grid;
    const size_t cell = (size_t)j * (size_t)g->gx + (size_t)i;
    for (uint32_t e = g->cell_start[cell]; e < g->cell_start[cell + 1]; ++e) {
        const int k = g->cell_segs[e];
        if (k >= segs) continue;
        float d;
        const cs_path_seg s = cs_path_seg_at(p->seg, p->count, k);
        cs_path_project_seg(&s, q, &d);
        consider(d, k, best_d, best_k);
    }
}

// Rings of cells around q's cell, nearest first. After ring r every segment not yet seen lies
// outside the block of rings 0..r, so at least `margin` away; the search stops once the best
// distance is below that (less a tolerance for the float rounding of the distances).
int cs_path_nearest(const cs_path* p, int segs, crowd_vec2 q, float* dist) {
    const cs_path_grid* g = &p->grid;
    const double qx = q.x, qy = q.y;
    const int cx = cs_path_cell(qx, g->x0, g->cell, g->gx);
    const int cy = cs_path_cell(qy, g->y0, g->cell, g->gy);
    const double tol = 1e-5 * (fabs(qx) + fabs(qy) + g->magnitude) + 1e-6 * g->cell;
    float best_d = INFINITY;
    int best_k = -1;
    for (int r = 0;; ++r) {
        const int i0 = cx - r, i1 = cx + r, j0 = cy - r, j1 = cy + r;
        const int ja = j0 < 0 ? 0 : j0, jb = j1 >= g->gy ? g->gy - 1 : j1;
        const int ia = i0 < 0 ? 0 : i0, ib = i1 >= g->gx ? g->gx - 1 : i1;
        for (int j = ja; j <= jb; ++j) {
            if (j == j0 || j == j1) {
                for (int i = ia; i <= ib; ++i) visit_cell(p, segs, i, j, q, &best_d, &best_k);
            } else {
                if (i0 >= 0) visit_cell(p, segs, i0, j, q, &best_d, &best_k);
                if (i1 < g->gx) visit_cell(p, segs, i1, j, q, &best_d, &best_k);
            }
        }
        if (i0 <= 0 && j0 <= 0 && i1 >= g->gx - 1 && j1 >= g->gy - 1) break;
        double margin = INFINITY;
        if (i0 > 0) margin = fmin(margin, qx - (g->x0 + i0 * g->cell));
        if (i1 < g->gx - 1) margin = fmin(margin, g->x0 + (i1 + 1) * g->cell - qx);
        if (j0 > 0) margin = fmin(margin, qy - (g->y0 + j0 * g->cell));
        if (j1 < g->gy - 1) margin = fmin(margin, g->y0 + (j1 + 1) * g->cell - qy);
        if (best_k >= 0 && (double)best_d < margin - tol) break;
    }
    *dist = best_d;
    return best_k;
}

// Lane j of the window projects q on segment lo + j (wrapped); returns the lane of the nearest,
// lowest segment index on ties, among lanes [0, width), with its projection.
static int window_best(const float* seg, int count, int segs, int lo, int width, crowd_vec2 q,
                       crowd_vec2* proj, float* dist) {
    const size_t n = (size_t)CS_PATH_SEG_STRIDE(count);
    const float* restrict ax = seg + (size_t)lo;
    const float* restrict ay = ax + n;
    const float* restrict abx = ax + 2 * n;
    const float* restrict aby = ax + 3 * n;
    const float* restrict len2 = ax + 4 * n;
    float ds[CROWD_PATH_WINDOW], px[CROWD_PATH_WINDOW], py[CROWD_PATH_WINDOW];
#pragma omp simd
    for (int j = 0; j < CROWD_PATH_WINDOW; ++j) {
        const cs_path_seg s = {ax[j], ay[j], abx[j], aby[j], len2[j]};
        const crowd_vec2 p = cs_path_project_seg(&s, q, &ds[j]);
        px[j] = p.x;
        py[j] = p.y;
    }
    int best_j = 0, best_k = lo;
    float best_d = ds[0];
    for (int j = 1; j < width; ++j) {
        const int k = lo + j >= segs ? lo + j - segs : lo + j;
        if (ds[j] < best_d || (ds[j] == best_d && k < best_k)) {
            best_d = ds[j];
            best_k = k;
            best_j = j;
        }
    }
    *proj = (crowd_vec2){px[best_j], py[best_j]};
    *dist = best_d;
    return best_j;
}

int cs_path_track(const float* seg, int count, int segs, bool closed, int dir, int hint,
                  crowd_vec2 q, crowd_vec2* proj, float* dist) {
    const int width = segs < CROWD_PATH_WINDOW ? segs : CROWD_PATH_WINDOW;
    // One segment behind the hint, the rest ahead, in the direction of travel.
    int lo = dir > 0 ? hint - 1 : hint - (width - 2);
    for (int slide = 0;; ++slide) {
        if (closed) {
            // lo lies in (-segs, 2 * segs): the hint is a segment, a window starts at most
            // width - 2 behind it and a slide moves it by less than segs.
            lo = lo < 0 ? lo + segs : (lo >= segs ? lo - segs : lo);
        } else {
            lo = lo > segs - width ? segs - width : lo;
            lo = lo < 0 ? 0 : lo;
        }
        const int best_j = window_best(seg, count, segs, lo, width, q, proj, dist);
        // A best segment at the front edge means the nearest may lie further ahead.
        const bool at_front = dir > 0 ? best_j == width - 1 : best_j == 0;
        const bool can_slide = closed ? width < segs : (dir > 0 ? lo + width < segs : lo > 0);
        if (!at_front || !can_slide || slide == CS_PATH_MAX_SLIDES)
            return lo + best_j >= segs ? lo + best_j - segs : lo + best_j;
        const int step = width > 2 ? width - 2 : 1; // the old front stays in the new window
        lo += dir > 0 ? step : -step;
    }
}
