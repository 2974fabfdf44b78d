// Navigation inside the library: the grid of walkable cells, the fields to each destination in use
// and their cache, and the lookup the goal and path passes make per agent (see crowd/nav.h for
// what routing does).
//
// It lives in src/nav/, beside src/walls/ rather than inside a behavior: like the obstacles it
// is world-level state that several behaviors read (goals, waypoint paths). Behaviors count
// their use of a destination with cs_nav_ref when they set it and read their agents' aims with
// cs_nav_aim_memo in their passes (through a memo in each agent's record); the route phase
// (cs_pass_route) builds what is missing first. After obstacle changes that keep the grid's box it
// lays the grid again only where they reach and repairs the fields built (nav_repair.c) rather
// than building them whole.
//
// A field is one uint32_t per grid cell, the cell's anchor: below the cell count a cell index
// (the corner the cell steers at; a cell that anchors to itself is a stand-in for an unreachable
// destination), from CS_NAV_TARGET on target k = anchor - CS_NAV_TARGET of the destination (its
// point, or exit k of a set), CS_NAV_NONE for a cell with no way (inside a solid, or walled off
// from everything). A cell anchor that is a stand-in carries CS_NAV_STAND_IN.
#ifndef CS_NAV_H
#define CS_NAV_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/nav.h"

#define CS_NAV_NONE UINT32_MAX
#define CS_NAV_TARGET 0x80000000u // anchors from here on name a target of the destination
// Set on a cell anchor that is a stand-in (see above), so that a reader knows it for the end of
// the way without reading the stand-in's own entry (a second cache miss per agent).
#define CS_NAV_STAND_IN 0x40000000u
#define CS_NAV_MAX_CELLS ((int64_t)1 << 30)

// A cell's state in the grid.
enum { CS_NAV_FREE = 0, CS_NAV_NEAR = 1, CS_NAV_SOLID = 2 }; // NEAR: within the clearance

// The grid that covers every obstacle of the world with the margin, in cells.
typedef struct cs_nav_box {
    int32_t gx0, gy0, gw, gh;
} cs_nav_box;

// A destination: a point quantized to the grid's cell size (its key cell's centre is the point
// the field is built for; an agent anchored at the target steers at its own goal point), or an
// exit set (by handle index and generation).
typedef uint64_t cs_nav_key;
#define CS_NAV_KEY_EXITS ((uint64_t)1 << 63)

// A rectangle of grid cells, i0..i1 by j0..j1 (inclusive).
typedef struct cs_nav_rect {
    int32_t i0, j0, i1, j1;
} cs_nav_rect;

// Tiles of the repair's boxes (cs_nav_field.tiles): CS_NAV_TILE cells a side.
#define CS_NAV_TILE_SHIFT 5
#define CS_NAV_TILE (1 << CS_NAV_TILE_SHIFT)

static inline size_t cs_nav_tile_count(int32_t gw, int32_t gh) {
    return (size_t)((gw + CS_NAV_TILE - 1) >> CS_NAV_TILE_SHIFT) *
           (size_t)((gh + CS_NAV_TILE - 1) >> CS_NAV_TILE_SHIFT);
}

typedef struct cs_nav_field {
    cs_nav_key key;
    int32_t users; // goals, paths and holds that route here
    bool built;    // anchor is this field for the current grid
    // anchor is this field for the grid before the last obstacle changes: the route phase repairs
    // it (nav_repair.c) rather than building it whole
    bool stale;
    // anchor came from a repair, not from a whole build: it need not be what a build gives, so a
    // snapshot saves it (see the snapshot's 'NAVF' section)
    bool repaired;
    int64_t resolved; // cells the last repair of this field solved again
    bool stand_ins;   // the field has stand-ins (a walled-off region): see nav_repair.c
    // Per tile of CS_NAV_TILE x CS_NAV_TILE cells, a box of cells that holds the tile and every
    // anchor of its cells (so every cell's line to its anchor): where it misses the changed
    // cells, no cell of the tile is hit directly (nav_repair.c). Valid when tiles_ok: kept by
    // the repairs (grown over the anchors they change), computed by the first repair after a
    // whole build.
    cs_nav_rect* tiles;
    bool tiles_ok;
    uint32_t* anchor;  // one per grid cell; NULL until the route phase needs it
    uint64_t last_use; // the clock when it last went out of use (least recently used goes first)
    uint32_t* next;    // while the grid is laid again: its storage of the new size
    // Waypoint paths that head here (cs_nav_pin): such a destination, like an exit set, always
    // has a field of its own; only a goal's point may be spread.
    int32_t pins;
    // Routed by the spread strategy (nav_spread.c) rather than a field of its own: the budget
    // does not hold a field for every destination in use, and this one has too few users to be
    // among those that get one (see cs_nav_rank in nav_cache.c).
    bool spread;
} cs_nav_field;

// ---- the spread strategy (nav_spread.c) ---------------------------------------------------------
//
// Destinations without a field of their own (cs_nav_field.spread) are routed over one graph shared
// by all of them: the grid cut into tiles of CS_NAV_SPREAD_TILE cells a side (8 m at 0.5 m cells),
// each tile's FREE cells split into regions (4-connected within the tile), and portals where two
// regions of neighboring tiles touch (a run of FREE cells on either side of the tile border,
// crossed at its middle: the waypoint is the middle cell on the side it enters). An agent's way is
// planned from its region: an A* search over the portals (between two portals of a region the
// straight distance) toward its goal's region, from the region's centre cell. The agent steers at
// the farthest of the first CS_NAV_SPREAD_AHEAD waypoints (or its goal) it sees from its cell, else
// along the cells of its region toward the first waypoint.
#define CS_NAV_SPREAD_SHIFT 4
#define CS_NAV_SPREAD_TILE (1 << CS_NAV_SPREAD_SHIFT)
#define CS_NAV_SPREAD_AHEAD 4
// Under budget pressure, a goal's destination with fewer users is spread even where a field
// would fit (cs_nav_rank in nav_cache.c).
#define CS_NAV_FIELD_USERS 32
#define CS_NAV_NO_REGION 0xffu

typedef struct cs_nav_portal {
    uint32_t cell[2];  // the run's middle cell on either side: [0] in region r[0], [1] in r[1]
    uint32_t r[2];     // the regions it joins, r[0] on the lower tile's side
    uint16_t local[2]; // its place in each region's list of portals
} cs_nav_portal;

typedef struct cs_nav_spread {
    bool ready;            // built for the grid as it is
    int32_t tw, th;        // tiles
    uint8_t* label;        // per cell: its region's number within its tile, CS_NAV_NO_REGION
    uint32_t* first;       // per tile + 1: its first region (tile-major numbering)
    uint32_t* rep;         // per region: its centre cell (the cell nearest its cells' mean)
    uint32_t* port_first;  // per region + 1: where its portals start in port_list
    uint32_t* port_list;   // the portals of each region
    cs_nav_portal* portal; // every portal
    // The walking distances within a region (over its cells, 8 steps, a diagonal one between two
    // FREE cells of the region): per region, from its centre to each of its portals' cells on its
    // side (rep_d, as port_list), and between each two of them (mat from mat_first[region], a
    // row per portal of its list).
    float* rep_d;
    float* mat;
    uint32_t* mat_first; // per region + 1
    uint32_t nregions, nportals, nlist, nmat;
    uint32_t heap_cap; // entries a search may push (each node settled once pushes its region's
                       // portals and the goal)
    size_t bytes;      // of all of the above
} cs_nav_spread;

// An A* search's state over the portals, one per thread that plans (a goal pass thread). Its nodes
// are a portal crossed one way or the other (2 p + the side entered) and the goal (2 nportals).
typedef struct cs_nav_spread_scratch {
    float* g;         // per node
    uint32_t* parent; // per node
    uint32_t* stamp;  // per node: the search that set g and parent (else they are unset)
    uint32_t* done;   // per node: the search that settled it
    uint64_t* heap;   // (f bits, node) keys
    uint32_t search;  // the current search's stamp
} cs_nav_spread_scratch;

// A spread agent's plan, by agent index (cs_nav.sp_plan): the way from its region to `goal`, valid
// while the graph is that of `epoch` (cs_nav.sp_epoch).
typedef struct cs_nav_plan {
    uint32_t region, epoch;
    crowd_vec2 goal;
    int32_t n;   // waypoints in wp (-1: the goal cannot be reached from the region)
    bool more;   // the way has waypoints beyond wp
    float total; // the way's length from the region's centre to the goal
    uint32_t wp[CS_NAV_SPREAD_AHEAD]; // the waypoint cells, in order
    float gwp[CS_NAV_SPREAD_AHEAD];   // the way's length from the centre to each
} cs_nav_plan;

// One exit set. A free slot has points == NULL.
typedef struct cs_nav_exits {
    crowd_vec2* points;
    int32_t count;
    int32_t users; // goals that name it
    uint16_t generation;
} cs_nav_exits;

// What one thread needs to build or repair a field (nav_build.c, nav_repair.c).
typedef struct cs_nav_scratch {
    float* g;        // walking distance from each cell to the destination
    uint64_t* heap;  // a 4-ary heap of (g, cell index) keys, stale ones among them
    uint8_t* closed; // 1 once the cell's distance is final
    uint32_t* list;  // a repair's cells: those it solves again and those whose g it read
    // g is FLT_MAX and closed 1 everywhere: the state a repair starts from and leaves behind (a
    // whole build leaves them otherwise), so that a repair resets only the cells it touched
    bool ready;
} cs_nav_scratch;

// Obstacle changes since the grid was laid, for the repair: each one's bounding box. More than
// CS_NAV_MAX_CHANGES between two route phases lay the grid again whole.
#define CS_NAV_MAX_CHANGES 16
typedef struct cs_nav_change {
    float x0, y0, x1, y1;
    bool added;
} cs_nav_change;

typedef struct cs_nav {
    crowd_nav_def def;
    float inv_cell;

    // The grid: cells (gx0 + i, gy0 + j) of the quantization floor(p / cell_size), i < gw, j < gh,
    // row by row. NULL blocked: no grid (a world without obstacles: everybody heads straight).
    int32_t gx0, gy0, gw, gh;
    size_t cells;
    uint8_t* blocked;
    // 1 for a FREE cell whose eight neighbors are FREE too: a line through such cells only keeps
    // its clearance without a test against the walls (walk_sees in nav_build.c). After blocked,
    // in the same allocation.
    uint8_t* open;
    bool grid_changed; // obstacles changed since the grid was laid
    // What changed since: the obstacles' boxes (changes), or more than fits or something the
    // repair does not follow (an exit set outside the grid): changes_lost
    cs_nav_change changes[CS_NAV_MAX_CHANGES];
    int nchanges;
    bool changes_lost;
    // Per change of the last route phase, the cells where a field's way may have changed
    // (nav_repair.c): those whose state changed and the changed obstacle's box with half the
    // clearance round it, grown by a cell (whose open flag may have changed); and whether a way
    // may have become shorter (an obstacle removed or a cell become FREE): the repair then lets
    // better ways spread
    cs_nav_rect dirty[CS_NAV_MAX_CHANGES];
    int ndirty;
    bool dirty_shrinks;
    // The grid the obstacles need exceeds max_cells, or its fields in use the budget: no grid,
    // and everybody heads straight (crowd_nav_stats.suspended)
    bool suspended;
    // The obstacles' box as far as it is known between layings: grown by every add, kept by
    // removals (an upper bound), exact again once the grid is laid. The budget checks use it.
    float pending_x0, pending_y0, pending_x1, pending_y1;
    uint64_t clock; // counts fields going out of use (least recently used goes first)
    // Counts the route phases that laid the grid or built fields, from 1: an entry read from a
    // field stays valid while it is unchanged (the goal pass keeps each agent's last one).
    uint32_t epoch;
    crowd_status status; // of the last route phase (step.c stops a step that failed there)

    // Fields, dense, and a hash index from key to field number + 1 (0: empty slot).
    cs_nav_field* fields;
    uint32_t nfields, fields_cap;
    uint32_t* index;
    uint32_t index_cap; // a power of two, at least twice nfields; 0 before the first field
    size_t field_bytes; // of the fields' anchors, allocated
    int32_t in_use;     // fields with users

    // The spread strategy (nav_spread.c): its graph, each goal pass thread's search scratch, each
    // agent index's plan; `spreading` counts the destinations in use it routes. Laid and sized by
    // the route phase when some destination is spread, dropped when none is.
    cs_nav_spread sp;
    cs_nav_spread_scratch* sp_scratch;
    int sp_scratch_count;
    cs_nav_plan* sp_plan;
    int sp_plan_count;
    size_t sp_cells;   // the grid's cells when the graph was laid
    uint32_t sp_epoch; // counts the layings of the graph, from 1 (a plan of another is stale)
    int32_t spreading;
    int32_t pinned_in_use; // fields in use that cannot be spread (exit sets, waypoint paths)
    bool rank_dirty;       // the uses changed since the last ranking (cs_nav_rank)

    // Exit sets by handle index.
    cs_nav_exits* exits;
    int32_t exits_used, exits_cap;

    // Build scratch, one per thread that builds.
    cs_nav_scratch* scratch;
    int scratch_count;
    size_t scratch_cells;

    // The polygon scan lines' crossings when a polygon has more points than fit on the stack.
    double* poly_xs;
    size_t poly_xs_cap;

    // A loaded snapshot's 'NAVF' payload (snapshot_nav.c) between its section's load and the
    // checks of the loaded world, which install it.
    uint8_t* restore;
    size_t restore_bytes;
    uint8_t* restore_check; // the install's scratch (snapshot_nav.c)
    size_t restore_check_bytes;

    uint64_t builds;
    uint64_t repairs;          // fields repaired rather than built whole
    int64_t last_repair_cells; // cells the last update's repairs solved again, over all fields
    double last_build_ms, last_grid_ms;
} cs_nav;

struct crowd_world;

void cs_nav_init(cs_nav* nav, const crowd_nav_def* def);
void cs_nav_free(struct crowd_world* w, cs_nav* nav);
crowd_status cs_nav_check_def(const crowd_nav_def* def);

// ---- destinations and their use (nav_cache.c) --------------------------------------------------

static inline int32_t cs_nav_quantize(float v, float inv_cell) {
    return (int32_t)floorf(v * inv_cell);
}

static inline cs_nav_key cs_nav_point_key(const cs_nav* nav, crowd_vec2 p) {
    const int64_t qx = (int64_t)cs_nav_quantize(p.x, nav->inv_cell) + ((int64_t)1 << 30);
    const int64_t qy = (int64_t)cs_nav_quantize(p.y, nav->inv_cell) + ((int64_t)1 << 30);
    return (uint64_t)qx << 31 | (uint64_t)qy;
}

// The generation is part of the key: a set made later in the same slot never finds the old
// set's field.
static inline cs_nav_key cs_nav_exits_key(crowd_exits_id id) {
    return CS_NAV_KEY_EXITS | (uint64_t)id.generation << 32 | id.index1;
}

// The field of a key, or NULL.
const cs_nav_field* cs_nav_find(const cs_nav* nav, cs_nav_key key);

// Room to count one more use of `key`: what cs_nav_ref then needs, so that it cannot fail.
// CROWD_ERR_CAPACITY when a new destination in use would take the fields beyond the budget.
crowd_status cs_nav_reserve(struct crowd_world* w, cs_nav_key key);
// Counts a use (+1) or its end (-1) of `key`; a +1 needs cs_nav_reserve first.
void cs_nav_ref(struct crowd_world* w, cs_nav_key key, int delta);

// The route phase: lays the grid again after obstacles changed, then builds the missing fields in
// use (crowd_world_nav_update is the same outside a step).
crowd_status cs_nav_update(struct crowd_world* w);
void cs_pass_route(struct crowd_world* w);

// Whether the next route phase repairs (lays the grid again only where the changes reach and
// repairs the fields built, nav_repair.c) rather than laying the grid whole and building every
// field: obstacles changed, a grid is laid, the changes are known and keep the grid's box.
bool cs_nav_repairs_next(const struct crowd_world* w);
// The grid box the obstacles and exit sets need now (*empty: none).
cs_nav_box cs_nav_grid_box_now(const struct crowd_world* w, bool* empty);

// The record of obstacle changes since the grid was laid, to take changes back as if they never
// were (the split world's add that failed on another rank, src/dist/dist.c).
typedef struct cs_nav_changes_mark {
    int nchanges;
    bool lost, changed;
} cs_nav_changes_mark;

cs_nav_changes_mark cs_nav_changes_now(const struct crowd_world* w);
void cs_nav_changes_restore(struct crowd_world* w, cs_nav_changes_mark m);

// Obstacle o (in storage, its points still there on a removal) was added or is being removed.
struct cs_obstacle;
void cs_nav_obstacles_changed(struct crowd_world* w, const struct cs_obstacle* o, bool added);

// Uses of destinations are counted only while the world has obstacles: the first obstacle starts
// the count (asking every behavior's count_routes; on failure nothing is counted) and the removal
// of the last stops it. cs_nav_counting says whether uses are being counted.
crowd_status cs_nav_start_counting(struct crowd_world* w);
bool cs_nav_counting(const struct crowd_world* w);
void cs_nav_stop_counting(struct crowd_world* w);

// ---- the grid (nav_grid.c) ---------------------------------------------------------------------

cs_nav_box cs_nav_grid_box(const cs_nav* nav, float x0, float y0, float x1, float y1);
// Marks each cell of nav->blocked FREE, NEAR or SOLID from the world's obstacles, and nav->open.
void cs_nav_grid_lay(const struct crowd_world* w, cs_nav* nav);
// nav->open from nav->blocked.
void cs_nav_grid_open(cs_nav* nav);

// The cells a change of an obstacle with box (x0, y0, x1, y1) may lay otherwise (clipped to the
// grid; empty, i0 > i1, when none), and the cells of the window cs_nav_grid_lay_part lays to
// decide them.
cs_nav_rect cs_nav_grid_reach(const cs_nav* nav, float x0, float y0, float x1, float y1);
size_t cs_nav_grid_window_cells(const cs_nav* nav, cs_nav_rect r);
// Lays the cells of r again (and nav->open one cell round it), exactly as cs_nav_grid_lay would:
// `tmp` holds 2 * cs_nav_grid_window_cells(nav, r) bytes. Grows *box over the cells whose state
// changed and counts those that became FREE.
void cs_nav_grid_lay_part(const struct crowd_world* w, cs_nav* nav, cs_nav_rect r, uint8_t* tmp,
                          cs_nav_rect* box, int64_t* freed);

static inline crowd_vec2 cs_nav_center(const cs_nav* nav, uint32_t c) {
    const int32_t i = (int32_t)(c % (uint32_t)nav->gw), j = (int32_t)(c / (uint32_t)nav->gw);
    return (crowd_vec2){((float)(nav->gx0 + i) + 0.5f) * nav->def.cell_size,
                        ((float)(nav->gy0 + j) + 0.5f) * nav->def.cell_size};
}

// Whether cell (i, j) of a gw x gh grid of `blocked` states is in the grid and FREE.
static inline bool cs_nav_free_at(const uint8_t* blocked, int32_t gw, int32_t gh, int32_t i,
                                  int32_t j) {
    return i >= 0 && j >= 0 && i < gw && j < gh &&
           blocked[(size_t)j * (size_t)gw + (size_t)i] == CS_NAV_FREE;
}

// What a line through the grid meets (cs_nav_walk): a cell that is not FREE (or the walk's
// bound), only FREE open cells, or FREE cells of which some are not open (nav->open: next to a
// NEAR cell), where the caller checks the line itself against the walls.
typedef enum cs_nav_walk_end {
    CS_NAV_WALK_BLOCKED,
    CS_NAV_WALK_CLEAR,
    CS_NAV_WALK_NEAR
} cs_nav_walk_end;

// The line of sight's grid traversal (Amanatides and Woo: the next cell is across whichever cell
// border the line meets first; a line through a cell corner needs both cells beside the corner
// FREE) from cell (i0, j0)'s centre to the point (au, av) in cell units (a cell centre's are its
// integer coordinates), over a gw x gh grid of `blocked` states and `open` flags, in at most
// max_steps cells. Leaving the grid ends the walk: the point is reached when `outside_open` (open
// ground), else the line is blocked. The fields (nav_build.c) and the spread plans' aims
// (nav_spread.c) see by it.
static inline __attribute__((always_inline)) cs_nav_walk_end
cs_nav_walk(const uint8_t* blocked, const uint8_t* open, int32_t gw, int32_t gh, int32_t i0,
            int32_t j0, float au, float av, int max_steps, bool outside_open) {
    const float u = au - (float)i0, v = av - (float)j0;
    const int32_t sx = u > 0.0f ? 1 : -1, sy = v > 0.0f ? 1 : -1;
    const float du = u != 0.0f ? 1.0f / fabsf(u) : INFINITY;
    const float dv = v != 0.0f ? 1.0f / fabsf(v) : INFINITY;
    float tu = 0.5f * du, tv = 0.5f * dv; // the line's parameter at the next border in x, in y
    const int32_t sc = sy * gw;
    int32_t i = i0, j = j0, c = j0 * gw + i0;
    uint8_t near_walls = !open[c];
    for (int step = 0; step < max_steps; ++step) {
        if (tu >= 1.0f && tv >= 1.0f) // (i, j) holds the point
            return near_walls ? CS_NAV_WALK_NEAR : CS_NAV_WALK_CLEAR;
        if (tu == tv) { // through a corner, where the line is exactly diagonal for a step
            if (!cs_nav_free_at(blocked, gw, gh, i + sx, j) ||
                !cs_nav_free_at(blocked, gw, gh, i, j + sy))
                return CS_NAV_WALK_BLOCKED;
            i += sx, j += sy, c += sx + sc, tu += du, tv += dv;
        } else { // one border or the other, chosen without a branch (which would mispredict)
            const bool x = tu < tv;
            i += x ? sx : 0, j += x ? 0 : sy, c += x ? sx : sc;
            const float nu = tu + du, nv = tv + dv;
            tu = x ? nu : tu, tv = x ? tv : nv;
        }
        if ((uint32_t)i >= (uint32_t)gw || (uint32_t)j >= (uint32_t)gh) {
            if (!outside_open) return CS_NAV_WALK_BLOCKED;
            return near_walls ? CS_NAV_WALK_NEAR : CS_NAV_WALK_CLEAR;
        }
        if (blocked[c] != CS_NAV_FREE) return CS_NAV_WALK_BLOCKED;
        near_walls |= open[c] ^ 1;
    }
    return CS_NAV_WALK_BLOCKED;
}

// The grid cell of point p, or CS_NAV_NONE outside the grid.
static inline uint32_t cs_nav_cell(const cs_nav* nav, crowd_vec2 p) {
    const int64_t i = (int64_t)cs_nav_quantize(p.x, nav->inv_cell) - nav->gx0;
    const int64_t j = (int64_t)cs_nav_quantize(p.y, nav->inv_cell) - nav->gy0;
    if (i < 0 || j < 0 || i >= nav->gw || j >= nav->gh) return CS_NAV_NONE;
    return (uint32_t)(j * nav->gw + i);
}

// ---- building a field (nav_build.c) ------------------------------------------------------------

// The targets of a destination: the exit set's points, or (points NULL, count 1) its key cell's
// centre `one`.
typedef struct cs_nav_targets {
    const crowd_vec2* points;
    int count;
    crowd_vec2 one;
} cs_nav_targets;

static inline crowd_vec2 cs_nav_target(const cs_nav_targets* t, int k) {
    return t->points ? t->points[k] : t->one;
}

cs_nav_targets cs_nav_targets_of(const cs_nav* nav, cs_nav_key key);

crowd_status cs_nav_scratch_reserve(struct crowd_world* w, cs_nav* nav, int threads);
// Builds the field of key whole into `anchor`; true when it has stand-ins.
bool cs_nav_build(const struct crowd_world* w, const cs_nav* nav, cs_nav_key key, uint32_t* anchor,
                  cs_nav_scratch* s);

// ---- repairing a field (nav_repair.c) ----------------------------------------------------------

// Repairs field f (its anchors valid for the grid before the cells of nav->dirty were laid again,
// f->tiles its boxes when f->tiles_ok) for the grid as it is now: the cells whose way passed the
// changed cells are solved again from those round them (f->resolved counts them). False when the
// repair cannot vouch for the result (a walled-off region, a target by the change, most of the
// grid to solve again): the caller then builds the field whole.
bool cs_nav_repair(const struct crowd_world* w, const cs_nav* nav, cs_nav_field* f,
                   cs_nav_scratch* s);

// ---- reading a field (nav_query.c and inline) --------------------------------------------------

// Where an agent at pos steers for a destination whose field is f (NULL: not built yet), with
// `own` its own goal point (used where the field's target is in sight, for a point destination).
typedef struct cs_nav_aim {
    crowd_vec2 aim;
    crowd_route_state state;
    bool final; // the aim is where it stops (its goal, an exit, or the stand-in of an unreachable
                // one), not a corner on the way
} cs_nav_aim;

// The target nearest pos in a straight line (the lowest number among equals), `own` for a point.
static inline crowd_vec2 cs_nav_nearest(const cs_nav_targets* t, crowd_vec2 own, crowd_vec2 pos) {
    if (!t->points) return own;
    int best = 0;
    float bd = INFINITY;
    for (int k = 0; k < t->count; ++k) {
        const float dx = t->points[k].x - pos.x, dy = t->points[k].y - pos.y;
        const float d = dx * dx + dy * dy;
        if (d < bd) bd = d, best = k;
    }
    return t->points[best];
}

// The field entry of an agent at pos (CS_NAV_NONE outside the grid or without a built field).
static inline uint32_t cs_nav_entry(const cs_nav* nav, const cs_nav_field* f, crowd_vec2 pos) {
    const bool ready = nav->blocked && !nav->grid_changed && f && f->built;
    const uint32_t c = ready ? cs_nav_cell(nav, pos) : CS_NAV_NONE;
    return c == CS_NAV_NONE ? CS_NAV_NONE : f->anchor[c];
}

// The aim of an agent at pos whose field entry is a (cs_nav_entry; `ready`: f is a built field of
// the current grid).
static inline cs_nav_aim cs_nav_aim_from(const cs_nav* nav, bool ready, const cs_nav_targets* t,
                                         crowd_vec2 own, crowd_vec2 pos, uint32_t a) {
    if (a == CS_NAV_NONE) {
        // Outside the grid, or no way from here: straight at the nearest target.
        crowd_route_state st = nav->grid_changed ? CROWD_ROUTE_STATE_PENDING
                               : !nav->blocked   ? CROWD_ROUTE_STATE_STRAIGHT
                               : !ready          ? CROWD_ROUTE_STATE_PENDING
                               : cs_nav_cell(nav, pos) == CS_NAV_NONE
                                   ? CROWD_ROUTE_STATE_STRAIGHT
                                   : CROWD_ROUTE_STATE_UNREACHABLE;
        return (cs_nav_aim){cs_nav_nearest(t, own, pos), st, true};
    }
    if (a >= CS_NAV_TARGET) {
        const uint32_t k = a - CS_NAV_TARGET;
        return (cs_nav_aim){t->points ? t->points[k] : own, CROWD_ROUTE_STATE_ROUTED, true};
    }
    const bool stand_in = a & CS_NAV_STAND_IN;
    return (cs_nav_aim){cs_nav_center(nav, a & ~CS_NAV_STAND_IN),
                        stand_in ? CROWD_ROUTE_STATE_UNREACHABLE : CROWD_ROUTE_STATE_ROUTED,
                        stand_in};
}

static inline cs_nav_aim cs_nav_aim_at(const cs_nav* nav, const cs_nav_field* f,
                                       const cs_nav_targets* t, crowd_vec2 own, crowd_vec2 pos) {
    const bool ready = nav->blocked && !nav->grid_changed && f && f->built;
    return cs_nav_aim_from(nav, ready, t, own, pos, cs_nav_entry(nav, f, pos));
}

// The aim of an agent at pos heading for its own point `own` or for an exit set (exits not null,
// live),
// through the cache: what the goal and path passes call per routed agent.
// Not `routed`: straight at the point or the nearest exit.
cs_nav_aim cs_nav_aim_of(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos,
                         bool routed);

// A per-agent memo of the last field entry read: the entry of `cell` in the field of the agent's
// destination while the fields are those of `epoch` (0: none). A behavior keeps one in its
// agent's record and zeroes it when the destination changes.
typedef struct cs_nav_memo {
    uint32_t cell, entry, epoch;
} cs_nav_memo;

// Whether the memo serves an agent at pos.
static inline bool cs_nav_memo_serves(const cs_nav* nav, const cs_nav_memo* m, crowd_vec2 pos) {
    return m->epoch == nav->epoch && m->cell == cs_nav_cell(nav, pos) && !nav->grid_changed;
}

// cs_nav_aim_of (routed) through the memo: the field is read only when the agent's cell or the
// fields changed.
cs_nav_aim cs_nav_aim_memo(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos,
                           cs_nav_memo* memo);

// Fetches the field entry cs_nav_aim_of will read for a routed agent at pos (a grid with fields
// of several destinations is read at random: a pass fetches a block of agents' entries first).
void cs_nav_prefetch(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits, crowd_vec2 pos);

// The same as a crowd_route_info, with the walking distance along the anchors.
crowd_route_info cs_nav_route_info(const cs_nav* nav, crowd_vec2 own, crowd_exits_id exits,
                                   crowd_vec2 pos, bool routed);

// The aim pushed out past a corner so that an arrive toward it does not slow down there: along
// the same direction, `reach` metres further. A final aim is returned as it is.
static inline crowd_vec2 cs_nav_steer_point(cs_nav_aim a, crowd_vec2 pos, float reach) {
    if (a.final) return a.aim;
    const float dx = a.aim.x - pos.x, dy = a.aim.y - pos.y;
    const float d = sqrtf(dx * dx + dy * dy);
    if (!(d > 0.0f)) return a.aim;
    const float k = (d + reach) / d;
    return (crowd_vec2){pos.x + dx * k, pos.y + dy * k};
}

// ---- the spread strategy (nav_spread.c) --------------------------------------------------------

// Bytes the spread strategy's graph takes on a grid of gw x gh cells (an upper bound, for the
// budget), and its scratch and plans for `threads` and `agents`.
size_t cs_nav_spread_bytes(int32_t gw, int32_t gh, int threads, int agents);
// Lays the graph for the grid as it is, sizes the scratch and the plans: all or nothing.
crowd_status cs_nav_spread_lay(struct crowd_world* w, cs_nav* nav);
void cs_nav_spread_drop(struct crowd_world* w, cs_nav* nav);
size_t cs_nav_spread_used_bytes(const cs_nav* nav);
// The aim of a spread agent (index idx) at pos heading for `own`, through its memo (whose entry is
// an anchor as a field's: a corner cell, CS_NAV_TARGET for the goal itself, CS_NAV_STAND_IN | its
// cell where the goal cannot be reached, CS_NAV_NONE outside the grid), planned with thread t's
// scratch.
cs_nav_aim cs_nav_spread_aim_memo(const struct crowd_world* w, crowd_vec2 own, crowd_vec2 pos,
                                  uint32_t idx, int t, cs_nav_memo* memo);
// The route of an agent at pos heading for `own` (a query: plans with scratch of its own).
crowd_route_info cs_nav_spread_route(const struct crowd_world* w, crowd_vec2 own, crowd_vec2 pos);
// Whether the destination of `own` (a goal's point) is spread.
static inline bool cs_nav_is_spread(const cs_nav* nav, crowd_vec2 own) {
    if (nav->spreading == 0 || !nav->sp.ready) return false;
    const cs_nav_field* f = cs_nav_find(nav, cs_nav_point_key(nav, own));
    return f && f->spread;
}
// Counts a waypoint path's use of key (besides cs_nav_ref): such a destination is never spread.
void cs_nav_pin(struct crowd_world* w, cs_nav_key key, int delta);
// cs_nav_reserve for a destination that cannot be spread (a waypoint path's).
crowd_status cs_nav_reserve_pinned(struct crowd_world* w, cs_nav_key key);

// ---- exit sets (nav_exits.c) -------------------------------------------------------------------

crowd_status cs_nav_exits_lookup(const cs_nav* nav, uint16_t tag, crowd_exits_id id,
                                 const cs_nav_exits** out);

#endif
