// Queries of the static geometry between steps and inside the passes: is a disc free, does a
// sight line cross a wall.
#include "core/internal.h"
#include "walls/walls_math.h"

typedef struct disc_q {
    double x, y, r2;
} disc_q;

static bool disc_hits(void* ctx, const cs_wall_seg* list, uint32_t n) {
    const disc_q* q = ctx;
    for (uint32_t i = 0; i < n; ++i) {
        double cx, cy;
        if (cs_seg_dist2(&list[i], q->x, q->y, &cx, &cy) < q->r2) return true;
    }
    return false;
}

bool cs_walls_blocked(const crowd_world* w, float x, float y, float r) {
    const cs_walls* g = &w->walls;
    if (g->live == 0) return false;
    disc_q q = {x, y, (double)r * r};
    if (cs_walls_visit(g, cs_walls_box(g, x - r, y - r, x + r, y + r), disc_hits, &q)) return true;
    // Inside a solid: the polygons whose boxes cover the coarse cell of (x, y), box test first.
    const cs_wall_box b = cs_walls_coarse_box(g, x, y, x, y);
    const cs_wall_cell* c = NULL;
    if (g->table_cap) {
        const uint64_t k = cs_walls_coarse_key(b.cx0, b.cy0);
        for (uint32_t h = cs_wall_home(k, g->table_cap - 1);; h = (h + 1) & (g->table_cap - 1)) {
            if (g->cells[h].key == k) c = &g->cells[h];
            if (g->cells[h].key == k || g->cells[h].key == CS_WALL_EMPTY) break;
        }
    }
    for (uint32_t i = 0; c && i < c->count; ++i) {
        const cs_wall_seg* e = &g->segs[c->start + i];
        if (x < e->ax || x > e->bx || y < e->ay || y > e->by) continue;
        const cs_obstacle* o = &g->obs[e->id >> 16];
        if (cs_point_in_polygon(o->points, o->count, x, y)) return true;
    }
    return false;
}

typedef struct line_q {
    double x0, y0, x1, y1;
} line_q;

static bool line_hits(void* ctx, const cs_wall_seg* list, uint32_t n) {
    const line_q* q = ctx;
    for (uint32_t i = 0; i < n; ++i)
        if (cs_segments_meet(q->x0, q->y0, q->x1, q->y1, list[i].ax, list[i].ay, list[i].bx,
                             list[i].by))
            return true;
    return false;
}

bool cs_walls_crossed(const cs_walls* g, float x0, float y0, float x1, float y1) {
    line_q q = {x0, y0, x1, y1};
    const cs_wall_box b =
        cs_walls_box(g, x0 < x1 ? x0 : x1, y0 < y1 ? y0 : y1, x0 < x1 ? x1 : x0, y0 < y1 ? y1 : y0);
    return cs_walls_visit(g, b, line_hits, &q);
}

typedef struct near_q {
    double x0, y0, x1, y1, r2;
} near_q;

static bool line_near(void* ctx, const cs_wall_seg* list, uint32_t n) {
    const near_q* q = ctx;
    double ux, uy, wx, wy;
    for (uint32_t i = 0; i < n; ++i)
        if (cs_segseg_dist2(q->x0, q->y0, q->x1, q->y1, &list[i], &ux, &uy, &wx, &wy) < q->r2)
            return true;
    return false;
}

bool cs_walls_near_line(const cs_walls* g, float x0, float y0, float x1, float y1, float r) {
    near_q q = {x0, y0, x1, y1, (double)r * r};
    const cs_wall_box b =
        cs_walls_box(g, fminf(x0, x1) - r, fminf(y0, y1) - r, fmaxf(x0, x1) + r, fmaxf(y0, y1) + r);
    return cs_walls_visit(g, b, line_near, &q);
}

static bool gather_list(void* ctx, const cs_wall_seg* list, uint32_t n) {
    return !cs_sight_add(ctx, list, n);
}

bool cs_sight_gather(const cs_walls* g, cs_wall_box box, float px, float py, float reach,
                     cs_sight* s) {
    cs_sight_init(g, px, py, reach, s);
    cs_walls_visit(g, box, gather_list, s);
    return s->overflow || s->n > 0;
}
