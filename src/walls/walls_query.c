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
    // Inside a solid: one bounding-box test per obstacle, the exact test for those around (x, y).
    for (int32_t i = 0; i < g->obs_used; ++i) {
        const cs_obstacle* o = &g->obs[i];
        if (o->kind != CROWD_OBSTACLE_POLYGON || !o->points) continue;
        if (x < o->x0 || x > o->x1 || y < o->y0 || y > o->y1) continue;
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

static bool gather_list(void* ctx, const cs_wall_seg* list, uint32_t n) {
    cs_sight* s = ctx;
    if (s->n + n > CS_SIGHT_SEGS) {
        s->overflow = true;
        return true;
    }
    for (uint32_t i = 0; i < n; ++i) s->segs[s->n + i] = list[i];
    s->n += n;
    return false;
}

bool cs_sight_gather(const cs_walls* g, cs_wall_box box, cs_sight* s) {
    s->g = g;
    s->n = 0;
    s->overflow = false;
    cs_walls_visit(g, box, gather_list, s);
    return s->overflow || s->n > 0;
}
