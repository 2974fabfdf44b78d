// Static wall geometry: the obstacles (generational handles, their points) and the segment grid
// the passes query.
//
// It lives in src/walls/, beside src/core/ rather than inside a behavior: it is world geometry,
// like the agent hash, and three users read it: agent creation and teleports (refused inside a
// solid or over a wall), the neighbor pass (line of sight) and the walls behavior
// (src/behaviors/walls/: the containment force and the move clamp). It depends on nothing but
// the world's allocator.
//
// The segment grid has the agent hash's cells (same cell size, same floor(p / cell_size)
// coordinates) but its own table, because the agent hash is laid out again every tick and walls
// never move: an open-addressing hash table from cell to a list of the segments that pass
// through the cell, each list a compact run of cs_wall_seg (the segment's end points are copied
// into the list, so a query reads one contiguous run and no obstacle). Adding or removing one
// obstacle visits only the cells its segments pass through; the table and the list pool grow by
// doubling and drop emptied cells when they grow, so that work is amortized over the obstacles.
// A bitmap of the table's occupied slots answers "no wall here" with one bit for most cells
// (a key can only be stored at or after its home slot), so agents away from walls pay one bit
// test per cell their query touches.
#ifndef CS_WALLS_STORE_H
#define CS_WALLS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/obstacle.h"

// One segment in a cell list. `id` orders segments wherever an order matters: obstacle index
// in the high 16 bits, segment number within the obstacle in the low 16.
typedef struct cs_wall_seg {
    float ax, ay, bx, by;
    uint32_t id;
} cs_wall_seg;

typedef struct cs_wall_cell {
    uint32_t start, count, cap; // the cell's list: segs[start, start + count), room for cap
} cs_wall_cell;

// One obstacle slot. A free slot has points == NULL.
typedef struct cs_obstacle {
    crowd_vec2* points;
    float x0, y0, x1, y1; // bounding box of the points
    int32_t count;
    uint16_t generation;
    uint8_t kind;
} cs_obstacle;

typedef struct cs_walls {
    // Obstacles, by index (handle index1 - 1).
    cs_obstacle* obs;
    int32_t obs_used, obs_cap; // slots ever issued, slots allocated
    int32_t live;
    int32_t* free_list; // free indices, LIFO (obs_cap entries)
    int32_t free_count;

    // Segment grid.
    float cell_size, inv_cell;
    uint64_t* keys;       // table_cap keys, CS_WALL_EMPTY where free
    cs_wall_cell* cells;  // table_cap cells
    uint64_t* occupied;   // table_cap bits
    uint32_t table_cap;   // a power of two, or 0 before the first wall
    uint32_t table_used;  // keys stored (cells with walls, and emptied cells not yet dropped)
    uint32_t table_empty; // stored cells whose list is empty
    cs_wall_seg* segs;    // the lists
    uint32_t segs_used, segs_cap;
    uint32_t segs_live; // entries in lists (the rest of segs_used is garbage from moved lists)
} cs_walls;

#define CS_WALL_EMPTY 0x8000000080000000ull

// Most obstacles a world holds (handle indices fit the segment id's 16 bits).
#define CS_OBSTACLE_MAX_COUNT CROWD_OBSTACLE_MAX_COUNT

static inline uint64_t cs_wall_key(int32_t cx, int32_t cy) {
    return (uint64_t)(uint32_t)cx << 32 | (uint32_t)cy;
}

static inline uint32_t cs_wall_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k;
}

// The list of cell (cx, cy), or NULL when no wall passes through it.
static inline const cs_wall_cell* cs_walls_cell(const cs_walls* g, int32_t cx, int32_t cy) {
    if (g->table_cap == 0) return NULL;
    const uint64_t k = cs_wall_key(cx, cy);
    const uint32_t mask = g->table_cap - 1;
    uint32_t h = cs_wall_hash(k) & mask;
    if (!(g->occupied[h >> 6] >> (h & 63) & 1)) return NULL;
    for (;;) {
        const uint64_t s = g->keys[h];
        if (s == k) return g->cells[h].count ? &g->cells[h] : NULL;
        if (s == CS_WALL_EMPTY) return NULL;
        h = (h + 1) & mask;
    }
}

void cs_walls_init(cs_walls* g, float cell_size);
void cs_walls_free(crowd_world* w, cs_walls* g);

// Segment of obstacle `o`, number k (a polygon's last segment joins its last point to its first).
static inline int cs_obstacle_segments(const cs_obstacle* o) {
    return o->kind == CROWD_OBSTACLE_POLYGON ? o->count : o->count - 1;
}

// Calls visit(ctx, cx, cy) for every cell segment s passes through (with a small margin), row by
// row. Cost: the cells it visits.
typedef void cs_cell_fn(void* ctx, int32_t cx, int32_t cy);
void cs_walls_segment_cells(const cs_wall_seg* s, float inv_cell, cs_cell_fn* visit, void* ctx);

// Inserts / removes the segments of obstacle index `oi` into / from the grid. Insert reserves
// everything first: on CROWD_ERR_OUT_OF_MEMORY the grid is unchanged. Remove cannot fail.
crowd_status cs_walls_grid_insert(crowd_world* w, cs_walls* g, uint32_t oi);
void cs_walls_grid_remove(cs_walls* g, uint32_t oi);

// The input checks of crowd_obstacle_add that concern the points alone (kind, count, finite,
// repeated points, a polygon's crossings), in its order.
crowd_status cs_obstacle_check(crowd_world* w, crowd_obstacle_kind kind, const crowd_vec2* pts,
                               int n);

// Room for `slots` obstacle slots (at most CS_OBSTACLE_MAX_COUNT); on failure nothing changed.
crowd_status cs_walls_reserve_slots(crowd_world* w, cs_walls* g, int32_t slots);

// Stores obstacle index `oi` with this generation, a copy of the points (already checked) and its
// segments in the grid: what crowd_obstacle_add and the snapshot loader share. The slot must be
// reserved and free. On CROWD_ERR_OUT_OF_MEMORY nothing changed.
crowd_status cs_obstacle_insert(crowd_world* w, uint32_t oi, uint16_t generation,
                                crowd_obstacle_kind kind, const crowd_vec2* pts, int n);

// The cell range [c0, c1] each axis of a box covers, widened by a relative margin so that a
// rounded bound never drops a cell that holds a segment the exact tests would reach.
typedef struct cs_wall_box {
    int32_t cx0, cy0, cx1, cy1;
} cs_wall_box;

cs_wall_box cs_walls_box(const cs_walls* g, float x0, float y0, float x1, float y1);

// True when some cell of the box holds a wall.
bool cs_walls_any(const cs_walls* g, cs_wall_box b);

// Calls fn(ctx, list, count) for each cell of the box that holds walls, and stops when fn returns
// true (then returns true). A box with more cells than the table has slots walks the table
// instead, so a huge query (a very fast agent) costs at most the table's size.
typedef bool cs_wall_list_fn(void* ctx, const cs_wall_seg* list, uint32_t count);

static inline bool cs_walls_visit(const cs_walls* g, cs_wall_box b, cs_wall_list_fn* fn,
                                  void* ctx) {
    if (g->table_cap == 0) return false;
    const uint64_t cells =
        (uint64_t)((int64_t)b.cx1 - b.cx0 + 1) * (uint64_t)((int64_t)b.cy1 - b.cy0 + 1);
    if (cells > g->table_cap) {
        for (uint32_t h = 0; h < g->table_cap; ++h) {
            const uint64_t k = g->keys[h];
            if (k == CS_WALL_EMPTY || g->cells[h].count == 0) continue;
            const int32_t cx = (int32_t)(uint32_t)(k >> 32), cy = (int32_t)(uint32_t)k;
            if (cx < b.cx0 || cx > b.cx1 || cy < b.cy0 || cy > b.cy1) continue;
            if (fn(ctx, g->segs + g->cells[h].start, g->cells[h].count)) return true;
        }
        return false;
    }
    for (int64_t cy = b.cy0; cy <= b.cy1; ++cy)
        for (int64_t cx = b.cx0; cx <= b.cx1; ++cx) {
            const cs_wall_cell* c = cs_walls_cell(g, (int32_t)cx, (int32_t)cy);
            if (c && fn(ctx, g->segs + c->start, c->count)) return true;
        }
    return false;
}

// Whether a disc of radius r at (x, y) overlaps a wall segment (distance below r) or has its
// centre inside a polygon: what crowd_agent_add refuses. Scans only the cells near the disc, plus
// the polygons' containment test along a ray through the grid (see walls_query.c).
bool cs_walls_blocked(const crowd_world* w, float x, float y, float r);

// Whether the segment from (x0, y0) to (x1, y1) crosses a wall segment: line of sight.
bool cs_walls_crossed(const cs_walls* g, float x0, float y0, float x1, float y1);

// The walls around one agent's neighbor query, gathered once so that each candidate's sight line
// is tested against a short local list: every segment of the cells of the query box (a segment
// seen from two cells twice). A sight line between two points of the box can only cross
// segments of those cells. When they do not fit, `overflow` sends every test to
// cs_walls_crossed instead.
#define CS_SIGHT_SEGS 48

typedef struct cs_sight {
    const cs_walls* g;
    uint32_t n;
    bool overflow;
    cs_wall_seg segs[CS_SIGHT_SEGS];
} cs_sight;

// Gathers the walls of the box into s; returns false when the box holds none.
bool cs_sight_gather(const cs_walls* g, cs_wall_box box, cs_sight* s);

#endif
