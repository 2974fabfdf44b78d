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
        cs_path_project_seg(&p->seg[k], q, &d);
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

int cs_path_track(const cs_path_seg* seg, int segs, bool closed, int dir, int hint, crowd_vec2 q,
                  float* dist) {
    const int width = segs < CROWD_PATH_WINDOW ? segs : CROWD_PATH_WINDOW;
    // One segment behind the hint, the rest ahead, in the direction of travel.
    int lo = dir > 0 ? hint - 1 : hint - (width - 2);
    float best_d = INFINITY;
    int best_k = hint;
    for (int slide = 0;; ++slide) {
        if (closed) {
            lo %= segs;
            if (lo < 0) lo += segs;
        } else {
            lo = lo > segs - width ? segs - width : lo;
            lo = lo < 0 ? 0 : lo;
        }
        int ks[CROWD_PATH_WINDOW] = {0};
        float ds[CROWD_PATH_WINDOW] = {0};
        for (int j = 0; j < width; ++j) ks[j] = lo + j >= segs ? lo + j - segs : lo + j;
#pragma omp simd
        for (int j = 0; j < width; ++j) cs_path_project_seg(&seg[ks[j]], q, &ds[j]);
        int best_j = 0;
        best_d = ds[0];
        best_k = ks[0];
        for (int j = 1; j < width; ++j) {
            if (ds[j] < best_d || (ds[j] == best_d && ks[j] < best_k)) {
                best_d = ds[j];
                best_k = ks[j];
                best_j = j;
            }
        }
        // A best segment at the front edge means the nearest may lie further ahead.
        const bool at_front = dir > 0 ? best_j == width - 1 : best_j == 0;
        const bool can_slide = closed ? width < segs : (dir > 0 ? lo + width < segs : lo > 0);
        if (!at_front || !can_slide || slide == CS_PATH_MAX_SLIDES) break;
        const int step = width > 2 ? width - 2 : 1; // the old front stays in the new window
        lo += dir > 0 ? step : -step;
    }
    *dist = best_d;
    return best_k;
}
