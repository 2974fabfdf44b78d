// Obstacles: input checks, generational handles, add / remove / read.
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist_hooks.h"
#include "core/internal.h"
#include "walls/walls_math.h"

// ---- input checks -------------------------------------------------------------------------------

static crowd_status check_points(crowd_obstacle_kind kind, const crowd_vec2* pts, int n) {
    if ((unsigned)kind >= CROWD_OBSTACLE_KIND_COUNT) return CROWD_ERR_INVALID_ENUM;
    if (n < (kind == CROWD_OBSTACLE_POLYGON ? 3 : 2)) return CROWD_ERR_OBSTACLE_TOO_SHORT;
    if (n > CROWD_OBSTACLE_MAX_POINTS) return CROWD_ERR_OBSTACLE_TOO_LONG;
    for (int i = 0; i < n; ++i)
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y)) return CROWD_ERR_NOT_FINITE;
    for (int i = 0; i < n; ++i)
        if (fabsf(pts[i].x) > CROWD_MAX_COORD || fabsf(pts[i].y) > CROWD_MAX_COORD)
            return CROWD_ERR_OUT_OF_RANGE;
    const int last = kind == CROWD_OBSTACLE_POLYGON ? n : n - 1;
    // Equal points, or points so close (about 1e-19 m) that the squared length of their segment is
    // not a normal float: the distance kernels divide by it, and a segment they cannot measure
    // would be no wall at all.
    for (int i = 0; i < last; ++i) {
        const crowd_vec2 a = pts[i], b = pts[i + 1 < n ? i + 1 : 0];
        const float ex = b.x - a.x, ey = b.y - a.y;
        if (!(ex * ex + ey * ey >= FLT_MIN)) return CROWD_ERR_OBSTACLE_REPEATED_POINT;
    }
    return CROWD_OK;
}

// Self-intersection of a polygon: two segments that meet must share a cell of a grid, so the
// segments are bucketed by cell and only segments of one cell are tested against each other.
// Adjacent edges share their common point and meet nowhere else unless they fold back.
typedef struct cell_seg {
    uint64_t key;
    int32_t seg;
} cell_seg;

typedef struct bucket {
    cell_seg* out;
    size_t n;
    int32_t seg;
} bucket;

static void count_cells(void* ctx, int32_t cx, int32_t cy) {
    (void)cx, (void)cy;
    ((bucket*)ctx)->n++;
}

static void put_cells(void* ctx, int32_t cx, int32_t cy) {
    bucket* b = ctx;
    b->out[b->n++] = (cell_seg){cs_wall_key(cx, cy), b->seg};
}

static int cmp_cell_seg(const void* a, const void* b) {
    const cell_seg *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return (p->seg > q->seg) - (p->seg < q->seg);
}

static cs_wall_seg poly_seg(const crowd_vec2* pts, int n, int k) {
    const crowd_vec2 a = pts[k], b = pts[k + 1 < n ? k + 1 : 0];
    return (cs_wall_seg){a.x, a.y, b.x, b.y, (uint32_t)k};
}

static bool folds_back(const crowd_vec2* pts, int n, int k) {
    const crowd_vec2 a = pts[k], b = pts[(k + 1) % n], c = pts[(k + 2) % n];
    const double o = cs_orient(a.x, a.y, b.x, b.y, c.x, c.y);
    const double dot =
        ((double)b.x - a.x) * ((double)c.x - b.x) + ((double)b.y - a.y) * ((double)c.y - b.y);
    return o == 0.0 && dot < 0.0;
}

static bool segs_cross(const crowd_vec2* pts, int n, int i, int j) {
    if (i == j) return false;
    const bool adjacent = (i + 1) % n == j || (j + 1) % n == i;
    if (adjacent) return false; // covered by folds_back
    const cs_wall_seg a = poly_seg(pts, n, i), b = poly_seg(pts, n, j);
    return cs_segments_meet(a.ax, a.ay, a.bx, a.by, b.ax, b.ay, b.bx, b.by);
}

static crowd_status check_simple(crowd_world* w, const crowd_vec2* pts, int n) {
    for (int k = 0; k < n; ++k)
        if (folds_back(pts, n, k)) return CROWD_ERR_OBSTACLE_SELF_INTERSECTING;
    if (n == 3) return CROWD_OK; // a triangle without a fold is simple
    // Buckets of the polygon's own size: edges four times the mean edge length on a side, so a
    // polygon of any scale spreads its n edges over about n cells.
    double len = 0.0;
    for (int k = 0; k < n; ++k) {
        const crowd_vec2 a = pts[k], c = pts[(k + 1) % n];
        len += fabs((double)c.x - a.x) + fabs((double)c.y - a.y);
    }
    const float inv = (float)((double)n / (4.0 * len));
    bucket b = {0};
    for (int k = 0; k < n; ++k) {
        const cs_wall_seg s = poly_seg(pts, n, k);
        cs_walls_segment_cells(&s, inv, false, count_cells, &b);
    }
    const size_t bytes = sizeof(cell_seg) * b.n;
    cell_seg* list = cs_alloc(w, bytes);
    if (!list) return CROWD_ERR_OUT_OF_MEMORY;
    b = (bucket){.out = list};
    for (int k = 0; k < n; ++k) {
        const cs_wall_seg s = poly_seg(pts, n, k);
        b.seg = k;
        cs_walls_segment_cells(&s, inv, false, put_cells, &b);
    }
    qsort(list, b.n, sizeof *list, cmp_cell_seg);
    crowd_status st = CROWD_OK;
    for (size_t i = 0; i < b.n && st == CROWD_OK;) {
        size_t j = i;
        while (j < b.n && list[j].key == list[i].key) ++j;
        for (size_t p = i; p < j && st == CROWD_OK; ++p)
            for (size_t q = p + 1; q < j; ++q)
                if (segs_cross(pts, n, list[p].seg, list[q].seg)) {
                    st = CROWD_ERR_OBSTACLE_SELF_INTERSECTING;
                    break;
                }
        i = j;
    }
    cs_free(w, list, bytes);
    return st;
}

// Agents whose positions covers_range tests against the box at a time.
#define CS_COVER_BLOCK 256

// An obstacle to add and its bounding box grown by the largest radius.
typedef struct cover_q {
    crowd_obstacle_kind kind;
    const crowd_vec2* pts;
    int n;
    float gx0, gy0, gx1, gy1;
} cover_q;

// Whether the obstacle would overlap the disc of an agent in slots [b, e) or hold its centre. The
// agents are tested against the grown box a block of positions at a time in a vector loop; only
// those inside it are tested exactly.
static bool covers_range(const crowd_world* w, const cover_q* q, int b, int e) {
    const cs_columns* c = &w->cur;
    const int nseg = q->kind == CROWD_OBSTACLE_POLYGON ? q->n : q->n - 1;
    const float gx0 = q->gx0, gy0 = q->gy0, gx1 = q->gx1, gy1 = q->gy1;
    uint8_t in[CS_COVER_BLOCK];
    for (; b < e; b += CS_COVER_BLOCK) {
        const int m = e - b < CS_COVER_BLOCK ? e - b : CS_COVER_BLOCK;
        const float* restrict px = c->px + b;
        const float* restrict py = c->py + b;
        uint8_t any = 0;
#pragma omp simd reduction(| : any)
        for (int k = 0; k < m; ++k) {
            in[k] = (px[k] >= gx0) & (px[k] <= gx1) & (py[k] >= gy0) & (py[k] <= gy1);
            any |= in[k];
        }
        for (int k = 0; any && k < m; ++k) {
            if (!in[k]) continue;
            const float x = px[k], y = py[k], r = w->radius[c->id[b + k]];
            for (int i = 0; i < nseg; ++i) {
                const cs_wall_seg seg = poly_seg(q->pts, q->n, i);
                double cx, cy;
                if (cs_seg_dist2(&seg, x, y, &cx, &cy) < (double)r * r) return true;
            }
            if (q->kind == CROWD_OBSTACLE_POLYGON && cs_point_in_polygon(q->pts, q->n, x, y))
                return true;
        }
    }
    return false;
}

// Whether the obstacle (bounding box bx0..by1) would overlap a live agent's disc or hold its
// centre. Agents are not kept sorted between steps, but the last sort's grid still bounds where
// they are (crowd_world.since_sort): an agent the grown box can hold now was, when sorted, at most
// the step's longest move farther out, so only the grid's cells under the box grown by that much
// more are visited, and the slots added since. The cost then follows the obstacle's cells and the
// agents in them, not the world. Without that bound (the world has not stepped since an agent was
// removed or moved by hand, say) or for a box of more cells than there are agents, every agent is
// tested, at about 0.15 ns each.
static bool covers_agent(const crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* pts,
                         int n, float bx0, float by0, float bx1, float by1) {
    const float rm = w->radius_max;
    const cover_q q = {kind, pts, n, bx0 - rm, by0 - rm, bx1 + rm, by1 + rm};
    const int sorted = w->since_sort.sorted;
    if (!w->since_sort.intact || sorted > w->count) return covers_range(w, &q, 0, w->count);
    float moved;
    memcpy(&moved, &w->since_sort.moved, sizeof moved);
    // The move, widened for the rounding of the positions, the cells and the move itself.
    const float mag = fabsf(bx0) + fabsf(by0) + fabsf(bx1) + fabsf(by1);
    const float grow = rm + moved * 1.00001f + 1e-3f + mag * 1e-6f;
    cs_cell_box box;
    if (sorted > 0 && cs_grid_box(&w->grid, bx0 - grow, by0 - grow, bx1 + grow, by1 + grow, &box)) {
        const int64_t cells = ((int64_t)box.cx1 - box.cx0 + 1) * ((int64_t)box.cy1 - box.cy0 + 1);
        if (cells > sorted) return covers_range(w, &q, 0, w->count);
        for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
            uint32_t begin[2], end[2];
            const int ranges = cs_grid_row_ranges(&w->grid, &box, cy, begin, end);
            for (int k = 0; k < ranges; ++k)
                if (covers_range(w, &q, (int)begin[k], (int)end[k])) return true;
        }
    }
    return covers_range(w, &q, sorted, w->count);
}

// ---- handles ------------------------------------------------------------------------------------

static crowd_status obstacle_index(const crowd_world* w, crowd_obstacle_id id, uint32_t* oi) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (id.index1 == 0) return CROWD_ERR_NULL_OBSTACLE;
    const cs_walls* g = &w->walls;
    if (id.world != w->tag || id.index1 > (uint32_t)g->obs_used) return CROWD_ERR_FOREIGN_OBSTACLE;
    const cs_obstacle* o = &g->obs[id.index1 - 1];
    if (!o->points || o->generation != id.generation) return CROWD_ERR_STALE_OBSTACLE;
    *oi = id.index1 - 1;
    return CROWD_OK;
}

crowd_status crowd_obstacle_validate(const crowd_world* w, crowd_obstacle_id id) {
    uint32_t oi;
    return obstacle_index(w, id, &oi);
}

crowd_status cs_obstacle_check(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* pts,
                               int n) {
    crowd_status st = check_points(kind, pts, n);
    if (st == CROWD_OK && kind == CROWD_OBSTACLE_POLYGON) st = check_simple(w, pts, n);
    return st;
}

crowd_status cs_walls_reserve_slots(crowd_world* w, cs_walls* g, int32_t slots) {
    // The agents' clearance arrays exist only in a world that has had obstacles.
    if (slots <= g->obs_cap) return cs_world_wall_arrays(w);
    int32_t cap = g->obs_cap ? g->obs_cap * 2 : 16;
    if (cap < slots) cap = slots;
    if (cap > CS_OBSTACLE_MAX_COUNT) cap = CS_OBSTACLE_MAX_COUNT;
    cs_obstacle* obs = cs_alloc(w, sizeof(cs_obstacle) * (size_t)cap);
    int32_t* fl = obs ? cs_alloc(w, sizeof(int32_t) * (size_t)cap) : NULL;
    if (!fl || cs_world_wall_arrays(w) != CROWD_OK) {
        cs_free(w, fl, sizeof(int32_t) * (size_t)cap);
        cs_free(w, obs, sizeof(cs_obstacle) * (size_t)cap);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    memset(obs, 0, sizeof(cs_obstacle) * (size_t)cap);
    if (g->obs_used) memcpy(obs, g->obs, sizeof(cs_obstacle) * (size_t)g->obs_used);
    if (g->free_count) memcpy(fl, g->free_list, sizeof(int32_t) * (size_t)g->free_count);
    cs_free(w, g->obs, sizeof(cs_obstacle) * (size_t)g->obs_cap);
    cs_free(w, g->free_list, sizeof(int32_t) * (size_t)g->obs_cap);
    g->obs = obs, g->free_list = fl, g->obs_cap = cap;
    return CROWD_OK;
}

crowd_status cs_obstacle_insert(crowd_world* w, uint32_t oi, uint16_t generation,
                                crowd_obstacle_kind kind, const crowd_vec2* pts, int n) {
    cs_walls* g = &w->walls;
    const size_t bytes = sizeof(crowd_vec2) * (size_t)n;
    crowd_vec2* copy = cs_alloc(w, bytes);
    if (!copy) return CROWD_ERR_OUT_OF_MEMORY;
    memcpy(copy, pts, bytes);
    cs_obstacle* o = &g->obs[oi];
    float x0 = pts[0].x, y0 = pts[0].y, x1 = x0, y1 = y0;
    for (int i = 1; i < n; ++i) {
        x0 = fminf(x0, pts[i].x), x1 = fmaxf(x1, pts[i].x);
        y0 = fminf(y0, pts[i].y), y1 = fmaxf(y1, pts[i].y);
    }
    // A simple polygon is convex when no two of its turns go opposite ways (a turn within rounding
    // of straight may count as either: the polygon is then convex to within that rounding).
    // Its winding is the sign of its area (shoelace, about the first point).
    bool left = false, right = false;
    double area = 0.0;
    for (int i = 0; kind == CROWD_OBSTACLE_POLYGON && i < n; ++i) {
        const crowd_vec2 a = pts[i], b = pts[(i + 1) % n], c = pts[(i + 2) % n];
        const double t =
            ((double)b.x - a.x) * ((double)c.y - b.y) - ((double)b.y - a.y) * ((double)c.x - b.x);
        left |= t > 0.0, right |= t < 0.0;
        area += cs_orient(pts[0].x, pts[0].y, a.x, a.y, b.x, b.y);
    }
    *o = (cs_obstacle){.points = copy,
                       .x0 = x0,
                       .y0 = y0,
                       .x1 = x1,
                       .y1 = y1,
                       .count = n,
                       .generation = generation,
                       .kind = (uint8_t)kind,
                       .turn = (int8_t)(kind != CROWD_OBSTACLE_POLYGON ? 0
                                        : area > 0.0                   ? 1
                                                                       : -1),
                       .convex = kind == CROWD_OBSTACLE_POLYGON && !(left && right)};
    // The first obstacle starts the count of the destinations routes use (src/nav/).
    const bool first = g->live == 0 && w->nav.def.enable;
    crowd_status st = first ? cs_nav_start_counting(w) : CROWD_OK;
    if (st == CROWD_OK) {
        st = cs_walls_grid_insert(w, g, oi);
        if (st != CROWD_OK && first) cs_nav_stop_counting(w);
    }
    if (st != CROWD_OK) {
        cs_free(w, copy, bytes);
        o->points = NULL;
        o->count = 0;
        return st;
    }
    g->live++;
    cs_nav_obstacles_changed(w, o, true);
    return CROWD_OK;
}

// covers_agent over the obstacle's bounding box.
static bool covers_any(const crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* points,
                       int count) {
    float x0 = points[0].x, y0 = points[0].y, x1 = x0, y1 = y0;
    for (int i = 1; i < count; ++i) {
        x0 = fminf(x0, points[i].x), x1 = fmaxf(x1, points[i].x);
        y0 = fminf(y0, points[i].y), y1 = fmaxf(y1, points[i].y);
    }
    return covers_agent(w, kind, points, count, x0, y0, x1, y1);
}

crowd_status cs_dist_obstacle_covers(crowd_world* w, crowd_obstacle_kind kind,
                                     const crowd_vec2* points, int count, bool* covered) {
    *covered = false;
    if (!w || !points) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_status st = cs_obstacle_check(w, kind, points, count);
    if (st == CROWD_OK) *covered = covers_any(w, kind, points, count);
    return st;
}

// covered: -1 to test this world's agents, else the answer (0 or 1) of a split world's processes.
static crowd_status obstacle_add(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* points,
                                 int count, int covered, crowd_obstacle_id* out) {
    if (!w || !points || !out) return CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = cs_obstacle_check(w, kind, points, count);
    if (st != CROWD_OK) return st;
    cs_walls* g = &w->walls;
    if (g->live >= CS_OBSTACLE_MAX_COUNT) return CROWD_ERR_CAPACITY;
    if (covered < 0 ? covers_any(w, kind, points, count) : covered > 0)
        return CROWD_ERR_INSIDE_OBSTACLE;
    if (g->free_count == 0) st = cs_walls_reserve_slots(w, g, g->obs_used + 1);
    if (st != CROWD_OK) return st;
    const bool reuse = g->free_count > 0;
    const uint32_t oi = reuse ? (uint32_t)g->free_list[g->free_count - 1] : (uint32_t)g->obs_used;
    const uint16_t gen = reuse ? g->obs[oi].generation : 0;
    st = cs_obstacle_insert(w, oi, gen, kind, points, count);
    if (st != CROWD_OK) return st;
    if (reuse)
        g->free_count--;
    else
        g->obs_used++;
    *out = (crowd_obstacle_id){.index1 = oi + 1, .generation = gen, .world = w->tag};
    return CROWD_OK;
}

crowd_status crowd_obstacle_add(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* points,
                                int count, crowd_obstacle_id* out) {
    return obstacle_add(w, kind, points, count, -1, out);
}

crowd_status cs_dist_obstacle_add(crowd_world* w, crowd_obstacle_kind kind,
                                  const crowd_vec2* points, int count, bool covered,
                                  crowd_obstacle_id* out) {
    return obstacle_add(w, kind, points, count, covered, out);
}

crowd_status crowd_obstacle_remove(crowd_world* w, crowd_obstacle_id id) {
    uint32_t oi;
    crowd_status st = obstacle_index(w, id, &oi);
    if (st != CROWD_OK) return st;
    cs_walls* g = &w->walls;
    cs_walls_grid_remove(g, oi);
    cs_obstacle* o = &g->obs[oi];
    cs_nav_obstacles_changed(w, o, false);
    cs_free(w, o->points, sizeof(crowd_vec2) * (size_t)o->count);
    const uint16_t next = (uint16_t)(o->generation + 1);
    *o = (cs_obstacle){.generation = next};
    g->free_list[g->free_count++] = (int32_t)oi;
    g->live--;
    if (g->live == 0) cs_nav_stop_counting(w);
    return CROWD_OK;
}

crowd_status crowd_obstacle_get_points(const crowd_world* w, crowd_obstacle_id id,
                                       crowd_obstacle_kind* kind, crowd_vec2* points, int capacity,
                                       int* count) {
    uint32_t oi;
    crowd_status st = obstacle_index(w, id, &oi);
    if (st != CROWD_OK) return st;
    if (!count || (!points && capacity > 0)) return CROWD_ERR_NULL_ARGUMENT;
    const cs_obstacle* o = &w->walls.obs[oi];
    if (kind) *kind = (crowd_obstacle_kind)o->kind;
    *count = o->count;
    if (capacity < o->count) return CROWD_ERR_BUFFER_TOO_SMALL;
    memcpy(points, o->points, sizeof(crowd_vec2) * (size_t)o->count);
    return CROWD_OK;
}

int crowd_world_obstacle_count(const crowd_world* w) {
    return w ? w->walls.live : 0;
}

crowd_status crowd_world_get_obstacles(const crowd_world* w, crowd_obstacle_id* ids, int capacity,
                                       int* count) {
    if (!w || !count || (!ids && capacity > 0)) return CROWD_ERR_NULL_ARGUMENT;
    const cs_walls* g = &w->walls;
    *count = g->live;
    if (capacity < g->live) return CROWD_ERR_BUFFER_TOO_SMALL;
    int k = 0;
    for (int32_t i = 0; i < g->obs_used; ++i)
        if (g->obs[i].points)
            ids[k++] = (crowd_obstacle_id){
                .index1 = (uint32_t)i + 1, .generation = g->obs[i].generation, .world = w->tag};
    return CROWD_OK;
}
