// Paths as shared world data: the handle table, creation with its segment grid, replacement and
// destruction. Every path is one allocation, so a replace can build the new one completely
// before it touches the old.
#include <float.h>
#include <math.h>
#include <string.h>

#include "behaviors/path/path_internal.h"
#include "core/range.h"

// ---- validation ---------------------------------------------------------------------------------

static crowd_status check_points(const crowd_vec2* pts, int count) {
    if (!pts) return CROWD_ERR_NULL_ARGUMENT;
    if (count < 2) return CROWD_ERR_PATH_TOO_SHORT;
    if (count > CROWD_PATH_MAX_POINTS) return CROWD_ERR_PATH_TOO_LONG;
    // Every point is checked for NaN and infinities before any for its range, so a path with
    // both reports CROWD_ERR_NOT_FINITE.
    for (int i = 0; i < count; ++i)
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y)) return CROWD_ERR_NOT_FINITE;
    for (int i = 0; i < count; ++i)
        if (cs_range_point(pts[i]) != CROWD_OK) return CROWD_ERR_OUT_OF_RANGE;
    for (int i = 1; i < count; ++i)
        if (pts[i].x == pts[i - 1].x && pts[i].y == pts[i - 1].y)
            return CROWD_ERR_PATH_REPEATED_POINT;
    return CROWD_OK;
}

// ---- the segment grid ---------------------------------------------------------------------------

static size_t align64(size_t n) {
    return (n + 63) & ~(size_t)63;
}

// Visits every cell that segment a-b passes within `slack` of, row by row. With `counts` NULL
// only the total is returned; with `counts` each visited cell's counter is incremented; with
// `fill` the segment index is written at fill[cursor[cell]++].
static uint64_t raster(const cs_path_grid* g, crowd_vec2 a, crowd_vec2 b, int32_t k,
                       uint32_t* counts, uint32_t* cursor, int32_t* fill) {
    const double ax = a.x, ay = a.y, dx = (double)b.x - ax, dy = (double)b.y - ay;
    const double slack = g->cell * 1e-6;
    const int r0 = cs_path_cell(fmin(ay, ay + dy) - slack, g->y0, g->cell, g->gy);
    const int r1 = cs_path_cell(fmax(ay, ay + dy) + slack, g->y0, g->cell, g->gy);
    uint64_t total = 0;
    for (int r = r0; r <= r1; ++r) {
        double t0 = 0.0, t1 = 1.0;
        if (dy != 0.0) {
            const double lo = g->y0 + r * g->cell - slack, hi = g->y0 + (r + 1) * g->cell + slack;
            t0 = (lo - ay) / dy;
            t1 = (hi - ay) / dy;
            if (t0 > t1) {
                const double t = t0;
                t0 = t1;
                t1 = t;
            }
            t0 = t0 < 0.0 ? 0.0 : t0;
            t1 = t1 > 1.0 ? 1.0 : t1;
            if (t0 > t1) continue;
        }
        const double xa = ax + dx * t0, xb = ax + dx * t1;
        const int c0 = cs_path_cell(fmin(xa, xb) - slack, g->x0, g->cell, g->gx);
        const int c1 = cs_path_cell(fmax(xa, xb) + slack, g->x0, g->cell, g->gx);
        total += (uint64_t)(c1 - c0 + 1);
        if (!counts && !fill) continue;
        for (int c = c0; c <= c1; ++c) {
            const size_t cell = (size_t)r * (size_t)g->gx + (size_t)c;
            if (counts) counts[cell]++;
            if (fill) fill[cursor[cell]++] = k;
        }
    }
    return total;
}

// Picks the cell edge: at least the mean segment length (so a segment crosses few cells), at
// least the edge that gives about one cell per segment, and at most 4096 cells a side. Doubles it
// until the listing fits 32-bit offsets.
static void grid_shape(cs_path_grid* g, const crowd_vec2* pts, int count, uint64_t* entries) {
    double x0 = pts[0].x, x1 = x0, y0 = pts[0].y, y1 = y0, length = 0.0;
    for (int i = 0; i < count; ++i) {
        x0 = fmin(x0, pts[i].x), x1 = fmax(x1, pts[i].x);
        y0 = fmin(y0, pts[i].y), y1 = fmax(y1, pts[i].y);
        if (i > 0) {
            const double dx = (double)pts[i].x - pts[i - 1].x, dy = (double)pts[i].y - pts[i - 1].y;
            length += sqrt(dx * dx + dy * dy); // not hypot: C libraries round it differently
        }
    }
    const double w = x1 - x0, h = y1 - y0;
    double cell = fmax(length / (count - 1), sqrt(w * h / count));
    cell = fmax(cell, fmax(w, h) / 4096.0);
    for (;;) {
        g->x0 = x0, g->y0 = y0, g->cell = cell;
        g->gx = (int)floor(w / cell) + 1;
        g->gy = (int)floor(h / cell) + 1;
        uint64_t total = 0;
        for (int k = 0; k < count; ++k)
            total += raster(g, pts[k], pts[k + 1 == count ? 0 : k + 1], k, NULL, NULL, NULL);
        if (total < UINT32_MAX) {
            *entries = total;
            break;
        }
        cell *= 2.0;
    }
    g->magnitude = fmax(fmax(fabs(x0), fabs(x1)), fmax(fabs(y0), fabs(y1)));
}

static cs_path* build(crowd_world* w, const crowd_vec2* pts, int count) {
    cs_path_grid g;
    uint64_t entries;
    grid_shape(&g, pts, count, &entries);
    const size_t cells = (size_t)g.gx * (size_t)g.gy;
    const size_t head = align64(sizeof(cs_path));
    const size_t pts_bytes = align64(sizeof(crowd_vec2) * (size_t)count);
    const size_t stride = (size_t)CS_PATH_SEG_STRIDE(count);
    const size_t seg_bytes = align64(sizeof(float) * CS_SEG_ROWS * stride);
    const size_t start_bytes = align64(sizeof(uint32_t) * (cells + 1));
    const size_t list_bytes = align64(sizeof(int32_t) * (size_t)(entries ? entries : 1));
    const size_t bytes = head + pts_bytes + seg_bytes + start_bytes + list_bytes;
    char* block = cs_alloc(w, bytes);
    if (!block) return NULL;

    cs_path* p = (cs_path*)block;
    p->count = count;
    p->bytes = bytes;
    p->points = (crowd_vec2*)(block + head);
    p->seg = (float*)(block + head + pts_bytes);
    g.cell_start = (uint32_t*)(block + head + pts_bytes + seg_bytes);
    g.cell_segs = (int32_t*)(block + head + pts_bytes + seg_bytes + start_bytes);
    p->grid = g;
    memcpy(p->points, pts, sizeof(crowd_vec2) * (size_t)count);
    for (size_t k = 0; k < stride; ++k) {
        const size_t i = k % (size_t)count;
        const cs_path_seg s = cs_path_make_seg(pts[i], pts[i + 1 == (size_t)count ? 0 : i + 1]);
        p->seg[k] = s.ax;
        p->seg[stride + k] = s.ay;
        p->seg[2 * stride + k] = s.abx;
        p->seg[3 * stride + k] = s.aby;
        p->seg[4 * stride + k] = s.len2;
    }

    // Counting sort of (cell, segment) pairs: counts, exclusive prefix sum, fill in segment order.
    uint32_t* start = g.cell_start;
    memset(start, 0, sizeof(uint32_t) * (cells + 1));
    for (int k = 0; k < count; ++k)
        raster(&g, pts[k], pts[k + 1 == count ? 0 : k + 1], k, start + 1, NULL, NULL);
    for (size_t c = 0; c < cells; ++c) start[c + 1] += start[c];
    // The fill advances each cell's start to the next cell's; shifting the array back by one
    // entry restores it, so no second buffer is needed.
    for (int k = 0; k < count; ++k)
        raster(&g, pts[k], pts[k + 1 == count ? 0 : k + 1], k, NULL, start, g.cell_segs);
    for (size_t c = cells; c > 0; --c) start[c] = start[c - 1];
    start[0] = 0;
    return p;
}

// ---- the table ----------------------------------------------------------------------------------

static void set_path(cs_path_entry* e, cs_path* p) {
    e->path = p;
    e->points = p ? p->points : NULL;
    e->seg = p ? p->seg : NULL;
    e->count = p ? p->count : 0;
}

static void free_path(crowd_world* w, cs_path* p) {
    if (p) cs_free(w, p, p->bytes);
}

// Makes room for one more slot. Leaves the table as it was on failure.
static crowd_status reserve_slot(crowd_world* w) {
    cs_path_table* t = cs_paths(w);
    if (!t) {
        t = cs_alloc(w, sizeof *t);
        if (!t) return CROWD_ERR_OUT_OF_MEMORY;
        memset(t, 0, sizeof *t);
        w->state[CS_BEH_PATH] = t;
    }
    if (t->free_count > 0 || t->used < t->capacity) return CROWD_OK;
    const int cap = t->capacity ? t->capacity * 2 : 16;
    cs_path_entry* e = cs_alloc(w, sizeof(cs_path_entry) * (size_t)cap);
    int32_t* f = cs_alloc(w, sizeof(int32_t) * (size_t)cap);
    if (!e || !f) {
        cs_free(w, e, sizeof(cs_path_entry) * (size_t)cap);
        cs_free(w, f, sizeof(int32_t) * (size_t)cap);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    memset(e, 0, sizeof(cs_path_entry) * (size_t)cap);
    if (t->capacity) {
        memcpy(e, t->entries, sizeof(cs_path_entry) * (size_t)t->used);
        memcpy(f, t->free_list, sizeof(int32_t) * (size_t)t->free_count);
    }
    cs_free(w, t->entries, sizeof(cs_path_entry) * (size_t)t->capacity);
    cs_free(w, t->free_list, sizeof(int32_t) * (size_t)t->capacity);
    t->entries = e;
    t->free_list = f;
    t->capacity = cap;
    return CROWD_OK;
}

void cs_paths_free(crowd_world* w) {
    cs_path_table* t = cs_paths(w);
    if (!t) return;
    for (int i = 0; i < t->used; ++i) free_path(w, t->entries[i].path);
    cs_free(w, t->entries, sizeof(cs_path_entry) * (size_t)t->capacity);
    cs_free(w, t->free_list, sizeof(int32_t) * (size_t)t->capacity);
    cs_free(w, t, sizeof *t);
    w->state[CS_BEH_PATH] = NULL;
}

crowd_status cs_path_lookup(const crowd_world* w, crowd_path_id id, const cs_path_entry** out) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (id.index1 == 0) return CROWD_ERR_NULL_PATH;
    if (id.world != w->tag) return CROWD_ERR_FOREIGN_PATH;
    const cs_path_table* t = cs_paths(w);
    if (!t || id.index1 > (uint32_t)t->used) return CROWD_ERR_FOREIGN_PATH;
    const cs_path_entry* e = &t->entries[id.index1 - 1];
    if (!e->path || e->generation != id.generation) return CROWD_ERR_STALE_PATH;
    *out = e;
    return CROWD_OK;
}

// ---- public -------------------------------------------------------------------------------------

crowd_status crowd_path_create(crowd_world* w, const crowd_vec2* points, int count,
                               crowd_path_id* out) {
    if (!w || !out) return CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = check_points(points, count);
    if (st != CROWD_OK) return st;
    cs_path* p = build(w, points, count);
    if (!p) return CROWD_ERR_OUT_OF_MEMORY;
    st = reserve_slot(w);
    if (st != CROWD_OK) {
        free_path(w, p);
        return st;
    }
    cs_path_table* t = cs_paths(w);
    const int slot = t->free_count > 0 ? t->free_list[--t->free_count] : t->used++;
    cs_path_entry* e = &t->entries[slot];
    set_path(e, p);
    t->live++;
    *out =
        (crowd_path_id){.index1 = (uint32_t)slot + 1, .generation = e->generation, .world = w->tag};
    return CROWD_OK;
}

crowd_status crowd_path_replace(crowd_world* w, crowd_path_id id, const crowd_vec2* points,
                                int count) {
    const cs_path_entry* found;
    crowd_status st = cs_path_lookup(w, id, &found);
    if (st == CROWD_OK) st = check_points(points, count);
    if (st != CROWD_OK) return st;
    cs_path* p = build(w, points, count);
    if (!p) return CROWD_ERR_OUT_OF_MEMORY;
    cs_path_entry* e = &cs_paths(w)->entries[id.index1 - 1];
    st = cs_path_route_count(w, e, points, count); // its routed followers' new waypoints
    if (st != CROWD_OK) {
        free_path(w, p);
        return st;
    }
    cs_path_route_release(w, e);
    free_path(w, e->path);
    set_path(e, p);
    e->revision++;
    return CROWD_OK;
}

crowd_status crowd_path_destroy(crowd_world* w, crowd_path_id id) {
    const cs_path_entry* found;
    crowd_status st = cs_path_lookup(w, id, &found);
    if (st != CROWD_OK) return st;
    cs_path_table* t = cs_paths(w);
    cs_path_entry* e = &t->entries[id.index1 - 1];
    cs_path_route_release(w, e); // its followers are detached: none routes any more
    e->nav_users = 0;
    free_path(w, e->path);
    set_path(e, NULL);
    e->generation++;
    t->free_list[t->free_count++] = (int32_t)(id.index1 - 1);
    t->live--;
    return CROWD_OK;
}

crowd_status crowd_path_validate(const crowd_world* w, crowd_path_id id) {
    const cs_path_entry* e;
    return cs_path_lookup(w, id, &e);
}

crowd_status crowd_path_get_points(const crowd_world* w, crowd_path_id id, crowd_vec2* points,
                                   int capacity, int* count) {
    const cs_path_entry* e;
    crowd_status st = cs_path_lookup(w, id, &e);
    if (st != CROWD_OK) return st;
    if (!count) return CROWD_ERR_NULL_ARGUMENT;
    const cs_path* p = e->path;
    if (capacity < p->count) {
        *count = p->count;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    if (!points) return CROWD_ERR_NULL_ARGUMENT;
    memcpy(points, p->points, sizeof(crowd_vec2) * (size_t)p->count);
    *count = p->count;
    return CROWD_OK;
}

int crowd_world_path_count(const crowd_world* w) {
    return w && cs_paths(w) ? cs_paths(w)->live : 0;
}

// ---- snapshot restore
// -----------------------------------------------------------------------------

crowd_status cs_path_table_restore(crowd_world* w, int used) {
    cs_path_table* t = cs_alloc(w, sizeof *t);
    if (!t) return CROWD_ERR_OUT_OF_MEMORY;
    memset(t, 0, sizeof *t);
    w->state[CS_BEH_PATH] = t;
    int cap = 16;
    while (cap < used) cap *= 2;
    t->entries = cs_alloc(w, sizeof(cs_path_entry) * (size_t)cap);
    t->free_list = cs_alloc(w, sizeof(int32_t) * (size_t)cap);
    if (!t->entries || !t->free_list) {
        // cs_paths_free frees by capacity: keep it describing what was allocated.
        cs_free(w, t->entries, sizeof(cs_path_entry) * (size_t)cap);
        cs_free(w, t->free_list, sizeof(int32_t) * (size_t)cap);
        t->entries = NULL;
        t->free_list = NULL;
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    memset(t->entries, 0, sizeof(cs_path_entry) * (size_t)cap);
    t->capacity = cap;
    t->used = used;
    return CROWD_OK;
}

crowd_status cs_path_slot_restore(crowd_world* w, int slot, const crowd_vec2* points, int count) {
    if (check_points(points, count) != CROWD_OK) return CROWD_ERR_SNAPSHOT_CORRUPT;
    cs_path* p = build(w, points, count);
    if (!p) return CROWD_ERR_OUT_OF_MEMORY;
    set_path(&cs_paths(w)->entries[slot], p);
    cs_paths(w)->live++;
    return CROWD_OK;
}
