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
// through the cell or one of its eight neighbors, each list a compact run of cs_wall_seg, each
// segment once (the segment's end points are copied into the list, so a query reads one
// contiguous run and no obstacle). So a query within one cell edge of a point (separation, the
// wall force, the clamp of a usual move) reads one cell: one lookup, no duplicates; a larger box
// reads every third cell of each of its rows and columns. Adding or removing one
// obstacle visits only the cells its segments pass through; the table and the list pool grow by
// doubling and drop emptied cells when they grow, so that work is amortized over the obstacles.
// A bitmap of the table's occupied slots answers "no wall here" with one bit for most cells
// (a key can only be stored at or after its home slot), so agents away from walls pay one bit
// test per cell their query touches. Beside the table, a direct index over the walls' bounding
// box (cs_walls.dir) holds every cell's list row by row, with the lists laid out in that order:
// agents sorted by cell read both in order, without hashing (when the box is not too large).
#ifndef CS_WALLS_STORE_H
#define CS_WALLS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/grid.h"
#include "crowd/obstacle.h"

// One segment in a cell list. `id` orders segments wherever an order matters: obstacle index
// in the high 16 bits, segment number within the obstacle in the low 16. The coarse cells (see
// cs_walls_coarse_key) hold polygons' bounding boxes in the same form instead.
typedef struct cs_wall_seg {
    float ax, ay, bx, by;
    uint32_t id;
} cs_wall_seg;

// One cell's list as the passes of a step use it: segs[start, start + count) (count 0: no wall in
// the cell or its eight neighbors).
typedef struct cs_wall_ref {
    uint32_t start, count;
} cs_wall_ref;

// A cell's summary, kept beside its direct index entry (cs_walls.dsum) and computed from its list
// where there is no index (see cs_walls_sum_of), from which the clearance pass
// bounds an agent's clearances with two segments rather than the cell's whole list (see
// walls_clearance.c). Every consumer of the clearances uses them only to skip work that would
// find nothing, so any lower bound keeps every result the same; a tight one saves the work.
//   - k[0], k[1]: the two keys, the list's segments nearest the cell (least box-to-segment
//     distance, then nearest its centre): beside a block's side its edge, at a corner both its
//     edges (a list of one segment has it twice);
//   - rest: a lower bound, over every point of the cell, of the distance to every other segment of
//     the list (the box-to-segment distance), so that an agent at P has a clearance of at least
//     min(|P - k0|, |P - k1|, rest), exact when that is not rest;
//   - sight: a lower bound, over every point of the cell, of what the other segments add to the
//     sight clearance, and open[i] / pair how the keys add to it (see sum_of in walls_grid.c).
// Bounds are left uncapped by the list's reach; the pass caps them. 64 bytes: one line.
#define CS_WALL_NO_TERM 1e30f

typedef struct cs_wall_sum {
    float k[2][4]; // ax, ay, bx, by
    float rest, sight;
    // 0 when key i is an open wall's or a non-convex polygon's edge, else CS_WALL_NO_TERM
    float open[2];
    // When both keys are edges of one convex polygon, its winding (cs_obstacle.turn, +1 or -1),
    // else CS_WALL_NO_TERM
    float pair;
    float box; // the cell's box clearance: a lower bound of the distance from the cell to the list
    // In the direct index: the cell's list, segs[start, start + count), count 0 where it has none
    // (the entry's, kept here too so that the clearance pass and the line-of-sight test read one
    // line per cell)
    uint32_t count, start;
} cs_wall_sum;

// A slot of the cell table: the cell's key (CS_WALL_EMPTY in a free slot) and its list,
// segs[start, start + count). 16 bytes, so a lookup touches one cache line.
typedef struct cs_wall_cell {
    uint64_t key;
    uint32_t start, count;
} cs_wall_cell;

// One obstacle slot. A free slot has points == NULL.
typedef struct cs_obstacle {
    crowd_vec2* points;
    float x0, y0, x1, y1; // bounding box of the points
    int32_t count;
    uint16_t generation;
    uint8_t kind;
    // A polygon's winding: +1 when its inside is on the left of each edge (counterclockwise), -1
    // on the right (the sign of its area); 0 for an open wall
    int8_t turn;
    // 1: a polygon whose every turn goes the same way (it is simple): the cell summaries' sight
    // bound counts only its second nearest edge (see cs_wall_sum)
    uint32_t convex;
} cs_obstacle;

typedef struct cs_walls {
    // How far ahead along its velocity the clearance pass probes each agent's way (the
    // wall_probe clearances): the longest look-ahead the wall force uses, which the walls behavior
    // sets (0 until it does).
    float probe_time;

    // Obstacles, by index (handle index1 - 1).
    cs_obstacle* obs;
    int32_t obs_used, obs_cap; // slots ever issued, slots allocated
    int32_t live;
    int32_t* free_list; // free indices, LIFO (obs_cap entries)
    int32_t free_count;

    // Segment grid.
    float cell_size, inv_cell;
    cs_wall_cell* cells;  // table_cap slots
    uint32_t* caps;       // table_cap: room of each slot's list (read only when lists change)
    uint64_t* occupied;   // table_cap bits
    uint32_t table_cap;   // a power of two, or 0 before the first wall
    uint32_t table_used;  // keys stored (cells with walls, and emptied cells not yet dropped)
    uint32_t table_empty; // stored cells whose list is empty
    cs_wall_seg* segs;    // the lists
    uint32_t segs_used, segs_cap;
    uint32_t segs_live; // entries in lists (the rest of segs_used is garbage from moved lists)

    // Direct index, beside the table (NULL when there is none): the list of every cell of the box
    // [dir_x0, dir_x0 + dir_w) x [dir_y0, dir_y0 + dir_h), row by row, kept equal to the table's;
    // every cell with a wall lies in the box. Agents sorted by cell read it in order, one entry
    // per cell, where the table costs a hashed probe. Its upkeep is in walls_grid.c.
    cs_wall_ref* dir;
    cs_wall_sum* dsum; // each entry's summary (only its count means anything where that is 0)
    // Each entry's box clearance apart (its summary's box, or CS_WALL_NO_TERM where its count is
    // 0: every wall is then beyond the list's reach), 4 bytes a cell: the clearance pass reads it
    // for every agent and the summary only for those near a wall (see block_box).
    float* dbox;
    size_t dir_cells; // entries allocated (of each)
    int32_t dir_x0, dir_y0;
    uint32_t dir_w, dir_h;
    bool dir_off;          // a box too large for an index: none until the table grows again
    uint32_t segs_ordered; // segs[0, segs_ordered) laid out in the index's order
} cs_walls;

#define CS_WALL_EMPTY 0x8000000080000000ull

// Most obstacles a world holds (handle indices fit the segment id's 16 bits).
#define CS_OBSTACLE_MAX_COUNT CROWD_OBSTACLE_MAX_COUNT

static inline uint64_t cs_wall_key(int32_t cx, int32_t cy) {
    return (uint64_t)(uint32_t)cx << 32 | (uint32_t)cy;
}

// Polygons are also listed, by bounding box, in coarse cells of CS_WALL_COARSE cells per edge,
// stored in the same table under keys no cell uses (cell coordinates stay within +-2^30, coarse
// rows are moved by 2^31): the containment test of a point reads the one coarse cell it is in
// rather than every polygon. A polygon costs one entry per coarse cell its box covers.
#define CS_WALL_COARSE 16

static inline uint64_t cs_walls_coarse_key(int32_t cx, int32_t cy) {
    return (uint64_t)(uint32_t)cx << 32 | ((uint32_t)cy + 0x80000000u);
}

static inline uint32_t cs_wall_hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k;
}

// The home slot of a cell key: blocks of 4 x 4 cells hash together and a cell's place in its block
// gives the low bits, so neighboring cells (what neighboring agents, sorted by cell, look up one
// after another) share cache lines. mask + 1 (the table size) is at least 64.
static inline uint32_t cs_wall_home(uint64_t k, uint32_t mask) {
    const uint32_t cx = (uint32_t)(k >> 32), cy = (uint32_t)k;
    const uint64_t block = (uint64_t)(cx >> 2) << 32 | (cy >> 2);
    return (cs_wall_hash(block) << 4 | (cy & 3u) << 2 | (cx & 3u)) & mask;
}

// The table slot of cell (cx, cy), or UINT32_MAX when no wall passes through it or its eight
// neighbors.
static inline uint32_t cs_walls_slot(const cs_walls* g, int32_t cx, int32_t cy) {
    if (g->table_cap == 0) return UINT32_MAX;
    const uint64_t k = cs_wall_key(cx, cy);
    const uint32_t mask = g->table_cap - 1;
    uint32_t h = cs_wall_home(k, mask);
    if (!(g->occupied[h >> 6] >> (h & 63) & 1)) return UINT32_MAX;
    for (;;) {
        const uint64_t s = g->cells[h].key;
        if (s == k) return g->cells[h].count ? h : UINT32_MAX;
        if (s == CS_WALL_EMPTY) return UINT32_MAX;
        h = (h + 1) & mask;
    }
}

// The list of table slot h (UINT32_MAX: none).
static inline cs_wall_ref cs_walls_ref(const cs_walls* g, uint32_t h) {
    return h == UINT32_MAX ? (cs_wall_ref){0, 0}
                           : (cs_wall_ref){g->cells[h].start, g->cells[h].count};
}

// The direct index's entry of cell (cx, cy), or NULL when the cell lies outside its box.
static inline const cs_wall_ref* cs_walls_dir_at(const cs_walls* g, int32_t cx, int32_t cy) {
    const uint64_t x = (uint64_t)((int64_t)cx - g->dir_x0), y = (uint64_t)((int64_t)cy - g->dir_y0);
    return x < g->dir_w && y < g->dir_h ? &g->dir[y * g->dir_w + x] : NULL;
}

// The list of cell (cx, cy) (count 0 when no wall passes through it or its eight neighbors):
// from the direct index when there is one (a cell outside its box has no wall), else from the
// table.
static inline cs_wall_ref cs_walls_list(const cs_walls* g, int32_t cx, int32_t cy) {
    if (g->dir) {
        const cs_wall_ref* r = cs_walls_dir_at(g, cx, cy);
        return r ? *r : (cs_wall_ref){0, 0};
    }
    return cs_walls_ref(g, cs_walls_slot(g, cx, cy));
}

// The list of the cell of point (x, y): what the clearance pass bounded an agent there with, and
// what the passes of the step read for an agent its bounds leave with work.
static inline cs_wall_ref cs_walls_list_at(const cs_walls* g, float x, float y) {
    return cs_walls_list(g, cs_cell_coord(x, g->inv_cell), cs_cell_coord(y, g->inv_cell));
}

// How far the lists of one cell reach: every segment within this distance of a point of the cell
// is in the cell's list (one cell edge, less a margin for rounding).
static inline float cs_walls_reach(const cs_walls* g, float x, float y) {
    return g->cell_size * 0.999f - (fabsf(x) + fabsf(y)) * 1e-6f;
}

// A point's clearance: a lower bound of its distance to every wall segment, at most
// cs_walls_reach. Computed once per agent and step by the clearance pass (walls_clearance.c, from
// the cells' box clearances or summaries above): every wall query of that step whose reach is
// below the clearance is skipped, and one within cs_walls_reach reads the one list of the agent's
// cell (cs_walls_list_at).

// The summary of cell (cx, cy) from its list of n > 0 segments (walls_grid.c). Cost: the list's
// length, squared up to a few dozen segments.
cs_wall_sum cs_walls_sum_of(const cs_walls* g, int32_t cx, int32_t cy, const cs_wall_seg* list,
                            uint32_t n);

void cs_walls_init(cs_walls* g, float cell_size);
void cs_walls_free(crowd_world* w, cs_walls* g);

// Segment of obstacle `o`, number k (a polygon's last segment joins its last point to its first).
static inline int cs_obstacle_segments(const cs_obstacle* o) {
    return o->kind == CROWD_OBSTACLE_POLYGON ? o->count : o->count - 1;
}

// Calls visit(ctx, cx, cy) for every cell segment s passes through (with a small margin), row by
// row, or with `dilate` for every cell of the 3 x 3 blocks around those (some more than once).
// Cost: the cells it visits.
typedef void cs_cell_fn(void* ctx, int32_t cx, int32_t cy);
void cs_walls_segment_cells(const cs_wall_seg* s, float inv_cell, bool dilate, cs_cell_fn* visit,
                            void* ctx);

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

// The coarse cells of a box (no margin: a point's coarse cell is computed the same way).
cs_wall_box cs_walls_coarse_box(const cs_walls* g, float x0, float y0, float x1, float y1);

// True when some cell of the box holds a wall.
bool cs_walls_any(const cs_walls* g, cs_wall_box b);

// Calls fn(ctx, list, count) for lists that together hold every segment passing through a cell
// of the box (and maybe others nearby, and a segment maybe more than once), and stops when fn
// returns true (then returns true): the lists of every third cell of the box in each direction,
// starting one cell in, since each list holds its cell's 3 x 3 block. A box with more such cells
// than the table has slots walks the table instead, so a huge query (a very fast agent) costs at
// most the table's size.
typedef bool cs_wall_list_fn(void* ctx, const cs_wall_seg* list, uint32_t count);

static inline bool cs_walls_visit(const cs_walls* g, cs_wall_box b, cs_wall_list_fn* fn,
                                  void* ctx) {
    if (g->table_cap == 0) return false;
    const int64_t nx = ((int64_t)b.cx1 - b.cx0 + 3) / 3, ny = ((int64_t)b.cy1 - b.cy0 + 3) / 3;
    if ((uint64_t)nx * (uint64_t)ny > g->table_cap) {
        for (uint32_t h = 0; h < g->table_cap; ++h) {
            const uint64_t k = g->cells[h].key;
            if (k == CS_WALL_EMPTY || g->cells[h].count == 0) continue;
            const int32_t cx = (int32_t)(uint32_t)(k >> 32), cy = (int32_t)(uint32_t)k;
            if (cx < b.cx0 || cx > b.cx1 || cy < b.cy0 || cy > b.cy1) continue;
            if (fn(ctx, g->segs + g->cells[h].start, g->cells[h].count)) return true;
        }
        return false;
    }
    // Samples c0 + 1, c0 + 4, ... (c1 when the box is narrower): their blocks cover [c0, c1].
    const int64_t sx = (int64_t)b.cx0 + 1 < b.cx1 ? (int64_t)b.cx0 + 1 : b.cx1;
    const int64_t sy = (int64_t)b.cy0 + 1 < b.cy1 ? (int64_t)b.cy0 + 1 : b.cy1;
    for (int64_t cy = sy; cy - 1 <= b.cy1; cy += 3)
        for (int64_t cx = sx; cx - 1 <= b.cx1; cx += 3) {
            const cs_wall_ref c = cs_walls_list(g, (int32_t)cx, (int32_t)cy);
            if (c.count && fn(ctx, g->segs + c.start, c.count)) return true;
        }
    return false;
}

// Whether a disc of radius r at (x, y) overlaps a wall segment (distance below r) or has its
// centre inside a polygon: what crowd_agent_add refuses. Scans only the cells near the disc, plus
// the polygons' containment test along a ray through the grid (see walls_query.c).
bool cs_walls_blocked(const crowd_world* w, float x, float y, float r);

// Whether the segment from (x0, y0) to (x1, y1) crosses a wall segment: line of sight.
bool cs_walls_crossed(const cs_walls* g, float x0, float y0, float x1, float y1);
// Whether the segment from (x0, y0) to (x1, y1) comes nearer than r (<= a cell edge) to a wall
// segment.
bool cs_walls_near_line(const cs_walls* g, float x0, float y0, float x1, float y1, float r);

// The walls around one agent's neighbor query, gathered once so that each candidate's sight line
// is tested against a short local list: of the segments of the cells of the query box (a segment
// seen from two cells twice), those within the query's reach of the agent. A sight line from the
// agent to a candidate within that reach stays within it, so it can only meet those. When they do
// not fit, `overflow` sends every test to cs_walls_crossed instead.
#define CS_SIGHT_SEGS 48

typedef struct cs_sight {
    const cs_walls* g;
    const cs_wall_seg* segs; // local, or one cell's whole list
    uint32_t n;
    bool overflow;
    double px, py, reach2; // the agent and its squared reach, widened for rounding
    cs_wall_seg local[CS_SIGHT_SEGS];
} cs_sight;

// Gathers into s the walls of the box within `reach` of (px, py); returns false when there are
// none (cs_sight_list, in walls_math.h, does the same for one cell's list).
bool cs_sight_gather(const cs_walls* g, cs_wall_box box, float px, float py, float reach,
                     cs_sight* s);

#endif
