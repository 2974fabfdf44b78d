// Neighbor pass: every agent's separation force and the queries the behavior table subscribes
// agents to (core/behavior.h: the forward cone, group separation and the one ahead in a file;
// today the queue's agents and the follow behavior's followers), in one walk over the cell-sorted
// arrays. A query's inputs come from its subscribers' parameter profiles (or hot columns), its
// outputs go to the per-slot buffers cs_nb_out names, its constants come with the subscription.
// With a neighbor cap set, neighbor_cap.c runs instead.
//
// The arithmetic of a candidate (the separation term, the cone's and the file's tests) and of an
// agent (its cone's heading and shape, its query box, its separation force) is the one copy in
// steer/steer_math.h, with the lane-wise loops and the reduction in steer/steer_lanes.h: this file
// chooses the candidates and carries the sums.
//
// Agents take one of three paths. A separation-only agent of the dense layout walks the rows of
// the 3x3 cells around it with its sums in registers (sep_only). An agent whose one query is the
// cone, the file or its group's separation is prepared with the others of its block of
// CS_NB_BLOCK (prepare_block: headings and cell boxes in one vector loop) and walked by cone_only,
// file_only or group_only. Every other agent (several queries, the sparse layout, a wall near
// enough to hide a candidate, which tests line of sight) takes agent_neighbors. cone_only,
// file_only and group_only add agent_neighbors' terms in the same lanes and order, so a
// subscribed agent's results do not depend on which of the two walks it.
//
// Each agent visits the rows of cells its query box covers. A row is one contiguous range of
// sorted agents, walked in fixed CS_LANES-wide chunks with branch-free masks; the padding after
// the last agent lets a chunk read past the end of its range. Sums are carried per lane and reduced
// in one fixed order, so results do not depend on the ISA, the vector width or the thread count.
//
// A lane's candidates are those at its positions in the row's sequence of candidates: the agents
// of the row's cells of the box, cell by cell, each cell in agent-index order (the sort phase's
// order). That sequence depends on the agents near the query alone, not on the grid layout, the
// occupied bounding box or where the row starts in the arrays, so an agent's sums come out the
// same, to the bit, whatever other agents the world holds elsewhere. A dense row range is that
// sequence; a sparse row's own agents are gathered out of its ranges first (visit_sparse_row). Two
// fallbacks of the sparse layout for huge query boxes keep table order instead: a row wider than
// the table, and a box with more rows than there are agents (one walk over all agents).
//
// A pile-up would make the walks quadratic: an agent whose box (the cells its walk visits) holds
// more than CROWD_NEIGHBOR_BUDGET agents is handed to the capped pass's walk instead
// (cs_nb_capped_agent with a cap of CROWD_MAX_NEIGHBORS), which examines at most that many. The
// count is the box's own agents, the same in either layout and on any rank; the sort's largest
// bucket bounds it (grid.max_pop), so an agent is counted only where the box could pass the
// budget, and a separation-only agent's count is its walk's row lengths, which it reads anyway.
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "steer/steer_lanes.h"
#include "steer/steer_math.h"
#include "walls/walls_math.h"

typedef struct query {
    float px, py, vx, vy;
    float sep_r; // separation radius (also the group-separation radius)
    float inv_r;
    float hx, hy;                  // cone heading
    float cone_l, cone_w, cone_w2; // cone length, width and squared-width bound (CS_NB_CONE)
    uint32_t self;                 // own sorted slot
    uint32_t group;
    float gx, gy, gd2; // CS_NB_FILE: the target and |pos - target|^2
    bool sep, grp, cone, file;
    bool hw;      // the cone is the headway's (CS_NB_HEADWAY): candidates heading the agent's way
    float hw_cos; // CS_NB_HEADWAY: the smallest dot product of the two aims (exclusive)
    // CS_NB_HEADWAY: every slot's aim (the subscription's direction inputs), which a candidate's
    // is compared with; the heading columns, unread, without the headway.
    const float *ax, *ay;
    const cs_sight* sight; // the walls around the query, when it has any (line of sight)
} query;

typedef struct sums {
    float sx[CS_LANES], sy[CS_LANES], sn[CS_LANES]; // separation
    float gx[CS_LANES], gy[CS_LANES], gn[CS_LANES]; // group separation
    float along[CS_LANES];                          // closest agent in the cone
    float ox[CS_LANES], oy[CS_LANES];               // CS_NB_FILE: its offset
    uint32_t os[CS_LANES];                          // CS_NB_FILE: its sorted slot
} sums;

// The separation over a range (cs_steer_sep_lanes, steer/steer_lanes.h) for an agent with walls
// near enough to hide a candidate (`sight`, its gathered walls): a candidate that counts is
// dropped when a wall stands between the two. The sight tests run on their own, between two lane
// loops, so that both stay vector loops, and only for the lanes that count. Most lane blocks have
// none (few candidates are within the separation radius): they add nothing, so the second loop,
// whose sum would add zeros, is skipped.
static inline __attribute__((always_inline)) void
sep_range_los(const float* restrict xs, const float* restrict ys, uint32_t b, uint32_t end,
              float px, float py, float r, float inv_r, const cs_sight* sight, float* restrict ax,
              float* restrict ay, float* restrict an) {
    for (uint32_t j = b; j < end; j += CS_LANES) {
        const float* restrict xc = xs + j;
        const float* restrict yc = ys + j;
        const int live = (int)(end - j);
        int32_t seen[CS_LANES]; // 32-bit flags, as in chunk_all
        uint32_t count = 0;     // the same as a mask, built in the vector loop
#pragma omp simd reduction(| : count)
        for (int l = 0; l < CS_LANES; ++l) {
            seen[l] = cs_steer_sep_term(px - xc[l], py - yc[l], l < live, r, inv_r).in;
            count |= (uint32_t)seen[l] << l;
        }
        if (!count) continue;
        for (; count; count &= count - 1) {
            const int l = __builtin_ctz(count);
            seen[l] = !cs_sight_blocked(sight, px, py, xc[l], yc[l]);
        }
#pragma omp simd
        for (int l = 0; l < CS_LANES; ++l) {
            const cs_steer_sep t =
                cs_steer_sep_term(px - xc[l], py - yc[l], seen[l] != 0, r, inv_r);
            ax[l] += t.ux;
            ay[l] += t.uy;
            an[l] += t.in ? 1.0f : 0.0f;
        }
    }
}

// The separation over a range (cs_steer_sep_lanes) with the sums of the candidates of the agent's
// group besides (a loop of its own: the group sums inside that one, even under a constant flag,
// keep gcc from vectorizing it).
static inline __attribute__((always_inline)) void
sep_group_range(const float* restrict xs, const float* restrict ys, const uint32_t* restrict groups,
                uint32_t b, uint32_t end, float px, float py, float r, float inv_r, uint32_t group,
                float* restrict ax, float* restrict ay, float* restrict an, float* restrict gx,
                float* restrict gy, float* restrict gn) {
    for (uint32_t j = b; j < end; j += CS_LANES) {
        const float* restrict xc = xs + j;
        const float* restrict yc = ys + j;
        const uint32_t* restrict gc = groups + j;
        const int live = (int)(end - j);
        for (int l = 0; l < CS_LANES; ++l) {
            const cs_steer_sep t = cs_steer_sep_term(px - xc[l], py - yc[l], l < live, r, inv_r);
            const bool ing = t.in & (gc[l] == group);
            ax[l] += t.ux;
            ay[l] += t.uy;
            an[l] += t.in ? 1.0f : 0.0f;
            gx[l] += ing ? t.ux : 0.0f;
            gy[l] += ing ? t.uy : 0.0f;
            gn[l] += ing ? 1.0f : 0.0f;
        }
    }
}

// The tests of one candidate at (x, y) against query q: its offset (dx, dy = agent - candidate),
// its separation term (which counts when `valid` and within range), whether it is in the cone
// (`in_cone`, the file's sector with `file`) and how far along the cone's axis it is.
typedef struct lane_test {
    float dx, dy, along;
    cs_steer_sep sep;
    bool in_cone;
} lane_test;

static inline __attribute__((always_inline)) lane_test test_lane(const query* q, float x, float y,
                                                                 float ohx, float ohy, bool valid,
                                                                 bool not_self, bool file,
                                                                 bool hw) {
    lane_test t;
    t.dx = q->px - x, t.dy = q->py - y;
    t.sep = cs_steer_sep_term(t.dx, t.dy, valid, q->sep_r, q->inv_r);
    // The cone takes the offset other - agent, the opposite sign of dx, dy.
    const cs_steer_cone_at a = cs_steer_cone_offset(-t.dx, -t.dy, q->hx, q->hy);
    t.along = a.along;
    const float ex = x - q->gx, ey = y - q->gy;
    // The cone's and the headway's tests are both computed and chosen bit-wise: a select between
    // them (`hw ? headway : cone`) keeps gcc from vectorizing the lane loops that call this.
    const bool sector = cs_steer_in_sector(a, q->cone_l, q->cone_w2, ex * ex + ey * ey, q->gd2);
    const bool cone = cs_steer_in_cone(a, q->cone_l, q->cone_w2);
    const bool headway = cs_steer_in_headway(a, q->cone_l, q->cone_w2, q->hx, q->hy, ohx, ohy,
                                             q->hw_cos, -t.dx, -t.dy);
    const bool in = file ? sector : ((hw & headway) | (!hw & cone));
    t.in_cone = valid & q->cone & not_self & in;
    return t;
}

// Everything: separation, separation within the agent's group (none unless `grp`), and the
// forward cone, over candidates [b, e) of xs / ys / groups; `self` is the agent's own position in
// them (or -1). The group sums stay unconditional: a branch around them, even on a constant, keeps
// gcc from vectorizing the loop. With `los` (agents with walls within their reach) a candidate
// behind a wall counts for nothing: a first lane loop finds the candidates that would count, the
// few of them are tested against q->sight one at a time, and the lane loop that sums then drops
// the hidden ones, so both lane loops stay vector loops; without `los` that is compiled out. With
// `file` the cone is the file query's (CS_NB_FILE) instead of the forward cone; `slots` gives the
// sorted slot of each candidate (NULL: the candidates are the sorted slots themselves).
static inline __attribute__((always_inline)) void
chunk_all(const float* restrict xs, const float* restrict ys, const float* restrict hxs,
          const float* restrict hys, const uint32_t* restrict groups,
          const uint32_t* restrict slots, const query* q, sums* acc, uint32_t b, uint32_t e,
          int64_t self, bool grp, bool los, bool file) {
    // A local copy, which nothing else can write: with the line-of-sight calls in the loop gcc
    // would otherwise load the query's fields lane by lane and not vectorize.
    const query qc = *q;
    q = &qc;
    const bool hw = qc.hw;
    for (uint32_t j = b; j < e; j += CS_LANES) {
        const float* restrict xc = xs + j;
        const float* restrict yc = ys + j;
        const float* restrict hxc = hxs + j;
        const float* restrict hyc = hys + j;
        const uint32_t* restrict gc = groups + j;
        const int live = (int)(e - j);
        const int64_t self_lane = self - (int64_t)j; // lane of the agent itself, if in this chunk
        // 32-bit flags: gcc finds no vector type for a bool array in a loop of floats.
        int32_t hidden[CS_LANES] = {0};
        if (los) {
            int32_t counts[CS_LANES];
            for (int l = 0; l < CS_LANES; ++l) {
                const lane_test t =
                    test_lane(q, xc[l], yc[l], hxc[l], hyc[l], l < live, l != self_lane, file, hw);
                counts[l] = t.sep.in | t.in_cone;
            }
            for (int l = 0; l < CS_LANES; ++l)
                hidden[l] = counts[l] && cs_sight_blocked(q->sight, q->px, q->py, xc[l], yc[l]);
        }
        for (int l = 0; l < CS_LANES; ++l) {
            // A hidden candidate counts for nothing: it is masked like an empty lane.
            const lane_test t = test_lane(q, xc[l], yc[l], hxc[l], hyc[l], (l < live) & !hidden[l],
                                          l != self_lane, file, hw);
            const bool in_cone = t.in_cone;
            const float along = t.along;
            const bool in_sep = t.sep.in & q->sep;
            const bool in_grp = t.sep.in & grp & (gc[l] == q->group);
            acc->sx[l] += in_sep ? t.sep.ux : 0.0f;
            acc->sy[l] += in_sep ? t.sep.uy : 0.0f;
            acc->sn[l] += in_sep ? 1.0f : 0.0f;
            acc->gx[l] += in_grp ? t.sep.ux : 0.0f;
            acc->gy[l] += in_grp ? t.sep.uy : 0.0f;
            acc->gn[l] += in_grp ? 1.0f : 0.0f;
            if (!file) {
                acc->along[l] = in_cone && along < acc->along[l] ? along : acc->along[l];
            } else {
                const float ox = -t.dx, oy = -t.dy;
                const bool better =
                    cs_steer_file_before(along, ox, oy, acc->along[l], acc->ox[l], acc->oy[l]);
                const bool take = in_cone & better;
                const uint32_t slot = slots ? slots[j + (uint32_t)l] : j + (uint32_t)l;
                acc->along[l] = take ? along : acc->along[l];
                acc->ox[l] = take ? ox : acc->ox[l];
                acc->oy[l] = take ? oy : acc->oy[l];
                acc->os[l] = take ? slot : acc->os[l];
            }
        }
    }
}

// One range of candidates: chunk_all (with group sums when `grp`, line of sight when `los`) when
// `general`, else the separation loop.
static inline __attribute__((always_inline)) void
visit_range(const float* xs, const float* ys, const float* hxs, const float* hys,
            const uint32_t* groups, const uint32_t* slots, const query* q, sums* acc, uint32_t b,
            uint32_t e, int64_t self, bool general, bool grp, bool los, bool file) {
    if (general)
        chunk_all(xs, ys, hxs, hys, groups, slots, q, acc, b, e, self, grp, los, file);
    else
        cs_steer_sep_lanes(xs, ys, b, e, q->px, q->py, q->sep_r, q->inv_r, acc->sx, acc->sy,
                           acc->sn);
}

// A sparse row's own candidates are gathered in blocks of this many (a multiple of CS_LANES, so a
// candidate keeps its lane across blocks).
#define CS_ROW_BLOCK 64

typedef struct row_block {
    float x[CS_ROW_BLOCK + CS_PAD], y[CS_ROW_BLOCK + CS_PAD];
    float hx[CS_ROW_BLOCK + CS_PAD], hy[CS_ROW_BLOCK + CS_PAD]; // headings: the headway's test
    uint32_t group[CS_ROW_BLOCK + CS_PAD], slot[CS_ROW_BLOCK + CS_PAD];
} row_block;

static inline __attribute__((always_inline)) void flush_block(row_block* blk, uint32_t m,
                                                              int64_t self, const query* q,
                                                              sums* acc, bool general, bool grp,
                                                              bool los, bool file) {
    for (int l = 0; l < CS_LANES; ++l)
        blk->x[m + l] = blk->y[m + l] = blk->hx[m + l] = blk->hy[m + l] = 0.0f,
                   blk->group[m + l] = blk->slot[m + l] = 0;
    visit_range(blk->x, blk->y, blk->hx, blk->hy, blk->group, blk->slot, q, acc, 0, m, self,
                general, grp, los, file);
}

// Row cy of a sparse layout: its ranges also hold agents of rows (and, in a row wider than the
// table, of columns) that share its keys. The agents of the box's cells of this row are gathered
// in the order the ranges hold them, which is cell by cell (keys rise with cx) and, within a cell,
// agent-index order: the sequence a dense walk sees, lane for lane.
static inline __attribute__((always_inline)) void
visit_sparse_row(const crowd_world* w, const query* q, sums* acc, const cs_cell_box* box,
                 int32_t cy, const uint32_t b[2], const uint32_t e[2], int ranges, bool general,
                 bool grp, bool los, bool file) {
    const cs_columns* c = &w->cur;
    const float inv_cell = w->grid.inv_cell;
    row_block blk;
    uint32_t m = 0;
    int64_t self = -1;
    for (int k = 0; k < ranges; ++k)
        for (uint32_t j = b[k]; j < e[k]; ++j) {
            const float x = c->px[j], y = c->py[j];
            const int32_t cx = cs_cell_coord(x, inv_cell);
            if (cs_cell_coord(y, inv_cell) != cy || cx < box->cx0 || cx > box->cx1) continue;
            if (j == q->self) self = m;
            blk.x[m] = x, blk.y[m] = y, blk.group[m] = c->group[j], blk.slot[m] = j;
            blk.hx[m] = q->ax[j], blk.hy[m] = q->ay[j];
            if (++m == CS_ROW_BLOCK) {
                flush_block(&blk, m, self, q, acc, general, grp, los, file);
                m = 0, self = -1;
            }
        }
    if (m) flush_block(&blk, m, self, q, acc, general, grp, los, file);
}

// Visits every row of the cell box (clipped to the occupied cells); returns the candidates
// examined. Every flag reaches the loops as a constant (a runtime flag inside a lane loop keeps gcc
// from vectorizing it). A sparse box with more rows than there are agents (a huge radius over
// agents spread across the plane) costs less as one walk over all agents: each agent is visited
// exactly once, and the exact tests decide as always.
static inline __attribute__((always_inline)) uint64_t visit(const crowd_world* w, const query* q,
                                                            sums* acc, cs_cell_box box,
                                                            bool general, bool grp, bool sparse,
                                                            bool los, bool file) {
    const cs_grid* g = &w->grid;
    const cs_columns* c = &w->cur;
    const uint32_t n = (uint32_t)w->count;
    if (!cs_grid_clip(g, &box)) return 0;
    if (sparse && (int64_t)box.cy1 - box.cy0 >= (int64_t)n) {
        visit_range(c->px, c->py, q->ax, q->ay, c->group, NULL, q, acc, 0, n, q->self, general, grp,
                    los, file);
        return n;
    }
    uint64_t candidates = 0;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        uint32_t b[2], e[2];
        const int ranges = cs_grid_row_ranges(g, &box, cy, b, e);
        for (int k = 0; k < ranges; ++k) candidates += e[k] - b[k];
        if (sparse)
            visit_sparse_row(w, q, acc, &box, cy, b, e, ranges, general, grp, los, file);
        else
            for (int k = 0; k < ranges; ++k)
                visit_range(c->px, c->py, q->ax, q->ay, c->group, NULL, q, acc, b[k], e[k], q->self,
                            general, grp, los, file);
    }
    return candidates;
}

static inline int32_t clamp_cell(int32_t v, int32_t lo, int32_t hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

// ---- the budget (crowd_world_set_max_neighbors): an agent whose box holds more than
// CROWD_NEIGHBOR_BUDGET candidates is walked capped (cs_nb_capped_agent) --------------------------

// Returned by a walk that found its agent over the budget, before it wrote anything.
#define OVER_BUDGET UINT64_MAX

// Whether the (clipped) box has more cells than `safe` (only then can it hold more than the
// budget).
static inline bool box_may_pass(const cs_cell_box* box, uint64_t safe) {
    const uint64_t wide = (uint64_t)((int64_t)box->cx1 - box->cx0 + 1);
    const uint64_t high = (uint64_t)((int64_t)box->cy1 - box->cy0 + 1);
    return wide > safe || wide * high > safe;
}

// Whether the (clipped) box's cells hold more than the budget: the dense layout's row ranges are
// exactly their agents; the sparse layout's rows are counted agent by agent (as visit_sparse_row
// takes them), stopping past the budget.
static bool box_over_budget(const crowd_world* w, const cs_cell_box* box) {
    const cs_grid* g = &w->grid;
    const cs_columns* c = &w->cur;
    const uint32_t n = (uint32_t)w->count;
    const float inv = g->inv_cell;
    uint64_t count = 0;
    if (!g->dense && (int64_t)box->cy1 - box->cy0 >= (int64_t)n) {
        for (uint32_t j = 0; j < n && count <= CROWD_NEIGHBOR_BUDGET; ++j) {
            const int32_t cx = cs_cell_coord(c->px[j], inv), cy = cs_cell_coord(c->py[j], inv);
            count += cx >= box->cx0 && cx <= box->cx1 && cy >= box->cy0 && cy <= box->cy1;
        }
        return count > CROWD_NEIGHBOR_BUDGET;
    }
    for (int32_t cy = box->cy0; cy <= box->cy1 && count <= CROWD_NEIGHBOR_BUDGET; ++cy) {
        uint32_t b[2], e[2];
        const int ranges = cs_grid_row_ranges(g, box, cy, b, e);
        for (int k = 0; k < ranges; ++k) {
            if (g->dense) {
                count += e[k] - b[k];
                continue;
            }
            for (uint32_t j = b[k]; j < e[k] && count <= CROWD_NEIGHBOR_BUDGET; ++j) {
                const int32_t cx = cs_cell_coord(c->px[j], inv);
                count += cs_cell_coord(c->py[j], inv) == cy && cx >= box->cx0 && cx <= box->cx1;
            }
        }
    }
    return count > CROWD_NEIGHBOR_BUDGET;
}

typedef struct nb_subs {
    union {
        cs_nb_uses uses; // the four together, for the capped walk of an agent over the budget
        struct {
            cs_nb_use cone, group, file, headway;
        };
    };
    // The most cells a box may have without its agents being counted: a box of more cells may
    // hold more than CROWD_NEIGHBOR_BUDGET (cells * grid.max_pop).
    uint64_t safe_cells;
    uint32_t flags; // agents with any of these take the general path
    // Every slot's aim, which a headway candidate's is compared with (the headway's direction
    // inputs; without a headway the heading columns, which its test then does not read).
    const float *aim_x, *aim_y;
    float headway_align;
    // The cones' constants from the subscriptions (cs_neighbor_use): the shortest direction with a
    // heading, for the cone, the file and the headway, and the factor of the file's reach.
    float cone_min, file_min, headway_min, file_scale;
} nb_subs;

// The outputs of slot s's queries (grp, cone, file: it subscribes to them) to their per-slot
// arrays.
static inline void store_outputs(const nb_subs* nb, int s, bool grp, bool cone, bool file,
                                 crowd_vec2 gsep, float along, uint32_t ahead) {
    if (grp) nb->group.out[0][s] = gsep.x, nb->group.out[1][s] = gsep.y;
    if (cone) nb->cone.out[0][s] = along;
    if (file) ((uint32_t*)(void*)nb->file.out[0])[s] = ahead;
}

// The one ahead in the file from a file query's lane results: the lexicographic minimum of
// (along, offset) over the lanes, in lane order (its along in *along). Only an agent of the same
// file (subscribed, with the same target) is the one ahead, its slot the output; anyone else in
// the way leaves the
// agent without one (x = +inf).
static inline uint32_t file_ahead(const cs_columns* c, const nb_subs* nb, float gx, float gy,
                                  const float* al, const float* ox, const float* oy,
                                  const uint32_t* os, float* along) {
    float a = INFINITY;
    crowd_vec2 ahead = {INFINITY, 0.0f};
    uint32_t slot = 0;
    for (int l = 0; l < CS_LANES; ++l)
        if (cs_steer_file_before(al[l], ox[l], oy[l], a, ahead.x, ahead.y))
            a = al[l], ahead = (crowd_vec2){ox[l], oy[l]}, slot = os[l];
    *along = a;
    const bool other = a < INFINITY && (c->flags[slot] & nb->file.flag);
    const bool same =
        other && cs_nb_in(&nb->file, (int)slot, 0) == gx && cs_nb_in(&nb->file, (int)slot, 1) == gy;
    return same ? slot : CS_NB_NONE;
}

// Agents subscribed to a query, and agents with a wall within their query: out of line
// (agent_neighbors_dense / _sparse below) so the separation-only loop stays small and keeps its
// values in registers.
static inline __attribute__((always_inline)) uint64_t
agent_neighbors(crowd_world* w, const nb_subs* nb, int s, bool sparse) {
    const cs_columns* c = &w->cur;
    query q = {
        .px = c->px[s],
        .py = c->py[s],
        .vx = c->vx[s],
        .vy = c->vy[s],
        .sep_r = c->sep_radius[s],
        .inv_r = 1.0f / c->sep_radius[s],
        .self = (uint32_t)s,
        .group = c->group[s],
    };
    const float sep_w = c->sep_weight[s];
    q.sep = sep_w > 0.0f;
    q.grp = q.group != 0; // only agents in a group (ACTIVE followers) have one
    // The inputs come from the subscribers' profiles; the outputs go to the queries' per-slot
    // arrays, written once at the end.
    const uint32_t flags = c->flags[s];
    const bool grec = flags & nb->group.flag, crec = flags & nb->cone.flag;
    const bool frec = flags & nb->file.flag;
    // The headway is the cone's test along the heading column; an agent in a file or a cone (which
    // the headway's subscriber never is) takes those.
    const bool hrec = (flags & nb->headway.flag) && !frec && !crec;
    if (frec) {
        // The file looks toward the agent's target, whatever its velocity.
        q.file = true;
        q.gx = cs_nb_in(&nb->file, s, 0);
        q.gy = cs_nb_in(&nb->file, s, 1);
        const cs_steer_look look = cs_steer_cone_look(q.gx - q.px, q.gy - q.py, nb->file_min);
        q.gd2 = look.len2, q.cone = look.on, q.hx = look.hx, q.hy = look.hy;
        const cs_steer_shape sh = cs_steer_sector_shape(cs_nb_in(&nb->file, s, 2) * nb->file_scale,
                                                        cs_nb_in(&nb->file, s, 3));
        q.cone_l = sh.len, q.cone_w = sh.width, q.cone_w2 = sh.width2;
    } else if (crec) {
        const cs_steer_look look = cs_steer_cone_look(q.vx, q.vy, nb->cone_min);
        q.cone = look.on, q.hx = look.hx, q.hy = look.hy;
        q.cone_l = cs_nb_in(&nb->cone, s, 0);
        q.cone_w = cs_nb_in(&nb->cone, s, 1);
        q.cone_w2 = cs_nb_in(&nb->cone, s, 2);
    } else if (hrec) {
        const cs_nb_use* u = &nb->headway;
        const cs_steer_look look =
            cs_steer_cone_look(cs_nb_in(u, s, 0), cs_nb_in(u, s, 1), nb->headway_min);
        q.cone = look.on, q.hx = look.hx, q.hy = look.hy, q.hw = true;
        const cs_steer_shape sh = cs_steer_headway_shape(cs_nb_in(u, s, 2), cs_nb_in(u, s, 3));
        q.cone_l = sh.len, q.cone_w = sh.width, q.cone_w2 = sh.width2;
        q.hw_cos = nb->headway_align;
    }
    q.ax = nb->aim_x, q.ay = nb->aim_y;
    crowd_vec2 gsep = {0.0f, 0.0f};
    uint32_t ahead = CS_NB_NONE;
    float along = INFINITY;

    w->force_x[s] = 0.0f;
    w->force_y[s] = 0.0f;
    if (!q.sep && !q.grp && !q.cone) {
        store_outputs(nb, s, grec, crec || hrec, frec, gsep, along, ahead);
        return 0;
    }

    // Query box: the separation disc, grown to the cone's bounding box when there is one.
    const cs_steer_box qb = cs_steer_query_box(q.px, q.py, (q.sep || q.grp) ? q.sep_r : 0.0f,
                                               q.cone, q.hx, q.hy, q.cone_l, q.cone_w);
    const cs_cell_box box = cs_grid_cells(&w->grid, qb.x0, qb.y0, qb.x1, qb.y1);
    cs_cell_box clipped = box;
    if (cs_grid_clip(&w->grid, &clipped) && box_may_pass(&clipped, nb->safe_cells) &&
        box_over_budget(w, &clipped))
        return cs_nb_capped_agent(w, &nb->uses, s, CROWD_MAX_NEIGHBORS, CROWD_NEIGHBOR_BUDGET);

    sums acc;
    for (int l = 0; l < CS_LANES; ++l) {
        acc.sx[l] = acc.sy[l] = acc.sn[l] = 0.0f;
        acc.gx[l] = acc.gy[l] = acc.gn[l] = 0.0f;
        acc.along[l] = INFINITY;
        acc.ox[l] = acc.oy[l] = INFINITY;
        acc.os[l] = 0;
    }
    // A wall within reach that could hide a neighbor (the sight clearance, wall_sight): every
    // candidate that counts is checked for line of sight, against the walls within the query's
    // reach (from the agent's own cell list when the query fits in its reach). Otherwise one
    // instance per combination, each with its constant flags inlined.
    cs_sight sight;
    bool los = false;
    if (w->walls.live > 0 && w->wall_sight[s] < qb.reach) {
        if (qb.reach <= cs_walls_reach(&w->walls, q.px, q.py))
            los = cs_sight_list(&w->walls, cs_walls_list_at(&w->walls, q.px, q.py), q.px, q.py,
                                qb.reach, &sight);
        else
            los = cs_sight_gather(&w->walls, cs_walls_box(&w->walls, qb.x0, qb.y0, qb.x1, qb.y1),
                                  q.px, q.py, qb.reach, &sight);
    }
    q.sight = &sight;
    // With line of sight the plain case (no group, no file: separation and maybe the cone) has an
    // instance of its own with constant flags, so that its lane loops vectorize; the others share
    // one (an agent in a group and in a file gets the group's, where the file query finds no one
    // ahead).
    uint64_t cand = los && !q.grp && !q.file
                        ? visit(w, &q, &acc, box, true, false, sparse, true, false)
                    : los    ? visit(w, &q, &acc, box, true, q.grp, sparse, true, q.file && !q.grp)
                    : q.grp  ? visit(w, &q, &acc, box, true, true, sparse, false, false)
                    : q.file ? visit(w, &q, &acc, box, true, false, sparse, false, true)
                    : q.cone ? visit(w, &q, &acc, box, true, false, sparse, false, false)
                             : visit(w, &q, &acc, box, false, false, sparse, false, false);

    const float ms = c->max_speed[s];
    const crowd_vec2 vel = {q.vx, q.vy};
    // CS_FLAG_SEP_PUSH: separation (the agent's own and its group's) without the spec's velocity
    // term (crowd_steer_separation_push).
    const bool drag = !(flags & CS_FLAG_SEP_PUSH);
    if (q.sep) {
        const crowd_vec2 f = cs_steer_sep_force(ms, drag, cs_lanes_sum(acc.sx),
                                                cs_lanes_sum(acc.sy), cs_lanes_sum(acc.sn), vel);
        w->force_x[s] = f.x * sep_w;
        w->force_y[s] = f.y * sep_w;
    }
    if (q.grp)
        gsep = cs_steer_sep_force(ms, drag, cs_lanes_sum(acc.gx), cs_lanes_sum(acc.gy),
                                  cs_lanes_sum(acc.gn), vel);
    // CS_NB_CONE's output is over the cone's length, CS_NB_HEADWAY's the distance itself.
    if (q.cone && !q.file) along = cs_lanes_min(acc.along) / (crec ? q.cone_l : 1.0f);
    if (q.cone && q.file && !q.grp)
        ahead = file_ahead(c, nb, q.gx, q.gy, acc.along, acc.ox, acc.oy, acc.os, &along);
    store_outputs(nb, s, grec, crec || hrec, frec, gsep, along, ahead);
    return cand;
}

// One copy per grid layout, so `sparse` is a constant in the lane loops.
static __attribute__((noinline)) uint64_t agent_neighbors_dense(crowd_world* w, const nb_subs* nb,
                                                                int s) {
    return agent_neighbors(w, nb, s, false);
}
static __attribute__((noinline)) uint64_t agent_neighbors_sparse(crowd_world* w, const nb_subs* nb,
                                                                 int s) {
    return agent_neighbors(w, nb, s, true);
}

// The cells a separation disc of radius r (and margin m) at p covers: the 3x3 cells around p's
// when it fits in them (the usual case: radius 1.2, cell 2.5), else the disc's box. Both layouts
// walk these same cells.
static inline bool sep_fits_stencil(float r, float m, float inv_cell) {
    return (r + m) * inv_cell <= 1.0f;
}

static inline cs_cell_box sep_cells(const cs_grid* g, float px, float py, float r, float m) {
    if (sep_fits_stencil(r, m, g->inv_cell)) {
        const int32_t cx = cs_cell_coord(px, g->inv_cell), cy = cs_cell_coord(py, g->inv_cell);
        return (cs_cell_box){cx - 1, cy - 1, cx + 1, cy + 1};
    }
    return cs_grid_cells(g, px - r - m, py - r - m, px + r + m, py + r + m);
}

// The weighted separation force of the lane sums. Without `drag` (CS_FLAG_SEP_PUSH) it has no
// velocity term (crowd_steer_separation_push).
static inline void sep_force(float ms, float weight, bool drag, float vx, float vy, const float* ax,
                             const float* ay, const float* an, float* out_x, float* out_y) {
    const crowd_vec2 f = cs_steer_sep_force(ms, drag, cs_lanes_sum(ax), cs_lanes_sum(ay),
                                            cs_lanes_sum(an), (crowd_vec2){vx, vy});
    *out_x = f.x * weight;
    *out_y = f.y * weight;
}

// Separation-only agent in the dense layout: the hot path of a plain crowd, with every accumulator
// a local the compiler keeps in vector registers. When the disc fits in the 3x3 cells, their rows
// come straight from the agent's sorted key: three ranges, no cell arithmetic. With `sight` (walls
// that may hide a candidate, see sep_range_los) each candidate is tested for line of sight; the
// plain instance, with a constant NULL, has no trace of it. An agent whose cells hold more than the
// budget gets OVER_BUDGET back, with nothing written.
static inline __attribute__((always_inline)) uint64_t
sep_only(const cs_grid* restrict g, const float* restrict xs, const float* restrict ys,
         uint32_t key, float px, float py, float vx, float vy, float r, float ms, float weight,
         bool drag, const cs_sight* sight, float* restrict out_x, float* restrict out_y) {
    const float inv_r = 1.0f / r, m = cs_steer_margin(px, py, r);
    const float inv_cell = g->inv_cell;
    float ax[CS_LANES] = {0}, ay[CS_LANES] = {0}, an[CS_LANES] = {0};
    uint64_t candidates = 0;
    if (sep_fits_stencil(r, m, inv_cell)) {
        uint32_t b[3], e[3];
        cs_grid_stencil(g, key, b, e);
        candidates = (uint64_t)(e[0] - b[0]) + (e[1] - b[1]) + (e[2] - b[2]);
        if (candidates > CROWD_NEIGHBOR_BUDGET) return OVER_BUDGET;
        for (int k = 0; k < 3; ++k) {
            if (sight)
                sep_range_los(xs, ys, b[k], e[k], px, py, r, inv_r, sight, ax, ay, an);
            else
                cs_steer_sep_lanes(xs, ys, b[k], e[k], px, py, r, inv_r, ax, ay, an);
        }
    } else {
        cs_cell_box box = sep_cells(g, px, py, r, m);
        if (cs_grid_clip(g, &box)) {
            for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
                uint32_t b[2], e[2];
                cs_grid_row_ranges(g, &box, cy, b, e); // one range: dense
                candidates += e[0] - b[0];
            }
            if (candidates > CROWD_NEIGHBOR_BUDGET) return OVER_BUDGET;
        }
        if (candidates)
            for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
                uint32_t b[2], e[2];
                cs_grid_row_ranges(g, &box, cy, b, e);
                if (sight)
                    sep_range_los(xs, ys, b[0], e[0], px, py, r, inv_r, sight, ax, ay, an);
                else
                    cs_steer_sep_lanes(xs, ys, b[0], e[0], px, py, r, inv_r, ax, ay, an);
            }
    }
    sep_force(ms, weight, drag, vx, vy, ax, ay, an, out_x, out_y);
    return candidates;
}

// Separation-only agent in the sparse layout: the same cells through visit().
static __attribute__((noinline)) uint64_t sep_only_sparse(crowd_world* w, const nb_subs* nb,
                                                          int s) {
    const cs_columns* c = &w->cur;
    const float r = c->sep_radius[s];
    const query q = {.px = c->px[s],
                     .py = c->py[s],
                     .sep_r = r,
                     .inv_r = 1.0f / r,
                     .self = (uint32_t)s,
                     .sep = true,
                     .ax = c->hx, // gathered by the sparse rows, unread
                     .ay = c->hy};
    sums acc;
    for (int l = 0; l < CS_LANES; ++l) acc.sx[l] = acc.sy[l] = acc.sn[l] = 0.0f;
    const cs_cell_box box = sep_cells(&w->grid, q.px, q.py, r, cs_steer_margin(q.px, q.py, r));
    cs_cell_box clipped = box;
    if (cs_grid_clip(&w->grid, &clipped) && box_may_pass(&clipped, nb->safe_cells) &&
        box_over_budget(w, &clipped))
        return OVER_BUDGET;
    const uint64_t candidates = visit(w, &q, &acc, box, false, false, true, false, false);
    sep_force(c->max_speed[s], c->sep_weight[s], !(c->flags[s] & CS_FLAG_SEP_PUSH), c->vx[s],
              c->vy[s], acc.sx, acc.sy, acc.sn, &w->force_x[s], &w->force_y[s]);
    return candidates;
}

// Agents are stepped in blocks of this many. Before a block's walks, the cone, file and group
// agents among them (cone_only, file_only, group_only below) get their records' parameters
// gathered, then their headings and cell boxes computed in one vector loop: one agent at a time,
// the square root, the divisions and the floors around each walk were a large share of its cost.
#define CS_NB_BLOCK 64

enum { BLOCK_OTHER, BLOCK_CONE, BLOCK_FILE, BLOCK_GROUP };

typedef struct query_block {
    int32_t kind[CS_NB_BLOCK]; // BLOCK_*
    // BLOCK_CONE: 1 for a headway (it looks along the heading, its output is not divided), 0 for
    // the queue's cone.
    int32_t headway[CS_NB_BLOCK];
    float hw_cos[CS_NB_BLOCK]; // the headway's smallest dot product of the headings
    float cone_l[CS_NB_BLOCK], cone_w[CS_NB_BLOCK], cone_w2[CS_NB_BLOCK];
    float gx[CS_NB_BLOCK], gy[CS_NB_BLOCK], gd2[CS_NB_BLOCK];
    float hx[CS_NB_BLOCK], hy[CS_NB_BLOCK], reach[CS_NB_BLOCK];
    int32_t cone[CS_NB_BLOCK];
    int32_t cx0[CS_NB_BLOCK], cy0[CS_NB_BLOCK], cx1[CS_NB_BLOCK], cy1[CS_NB_BLOCK];
} query_block;

// The query of the agent in slot s, lane i of its prepared block: position, separation radius,
// heading and cone.
static inline query block_query(const cs_columns* c, int s, const query_block* blk, int i) {
    return (query){.px = c->px[s],
                   .py = c->py[s],
                   .sep_r = c->sep_radius[s],
                   .inv_r = 1.0f / c->sep_radius[s],
                   .hx = blk->hx[i],
                   .hy = blk->hy[i],
                   .cone_l = blk->cone_l[i],
                   .cone_w2 = blk->cone_w2[i],
                   .cone = blk->cone[i] != 0,
                   .hw = blk->headway[i] != 0,
                   .hw_cos = blk->hw_cos[i]};
}

// The same with the candidates' aims (the headway's) from the subscriptions.
static inline query block_query_of(const cs_columns* c, const nb_subs* nb, int s,
                                   const query_block* blk, int i) {
    query q = block_query(c, s, blk, i);
    q.ax = nb->aim_x, q.ay = nb->aim_y;
    return q;
}

// Agents of the dense layout whose only query is the forward cone (CS_NB_CONE) or the file
// (CS_NB_FILE), with a separation weight: the plain queue agent, in the spec's form or in the file
// form. They are prepared a block at a time (cs_pass_neighbor below), so here the heading, the
// query's parameters and the cell boxes are given. The lane tests are test_lane's and the sums
// chunk_all's, lane for lane, so the results are those of agent_neighbors to the bit; the
// accumulators are locals the compiler keeps in registers, and there are no group sums to carry.
static inline __attribute__((always_inline)) uint64_t
cone_only(crowd_world* w, const nb_subs* nb, int s, const query_block* blk, int i) {
    const cs_cell_box box = {blk->cx0[i], blk->cy0[i], blk->cx1[i], blk->cy1[i]};
    const cs_columns* c = &w->cur;
    const cs_grid* g = &w->grid;
    const float* restrict xs = c->px;
    const float* restrict ys = c->py;
    const query q = block_query_of(c, nb, s, blk, i);
    const float* restrict hxs = q.ax;
    const float* restrict hys = q.ay;
    const bool hw = blk->headway[i] != 0;
    const int64_t self = s;
    float ax[CS_LANES], ay[CS_LANES], an[CS_LANES], al[CS_LANES];
    for (int l = 0; l < CS_LANES; ++l) ax[l] = ay[l] = an[l] = 0.0f, al[l] = INFINITY;
    uint64_t candidates = 0;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        const uint32_t base = cs_grid_row_base(g, cy);
        const uint32_t b = g->cell_start[base + (uint32_t)box.cx0];
        const uint32_t e = g->cell_start[base + (uint32_t)box.cx1 + 1];
        candidates += e - b;
        for (uint32_t j = b; j < e; j += CS_LANES) {
            const float* restrict xc = xs + j;
            const float* restrict yc = ys + j;
            const int live = (int)(e - j);
            const float* restrict hxc = hxs + j;
            const float* restrict hyc = hys + j;
            const int64_t self_lane = self - (int64_t)j;
            for (int l = 0; l < CS_LANES; ++l) {
                const lane_test t = test_lane(&q, xc[l], yc[l], hxc[l], hyc[l], l < live,
                                              l != self_lane, false, hw);
                ax[l] += t.sep.ux;
                ay[l] += t.sep.uy;
                an[l] += t.sep.in ? 1.0f : 0.0f;
                al[l] = t.in_cone && t.along < al[l] ? t.along : al[l];
            }
        }
    }
    const uint32_t flags = c->flags[s];
    sep_force(c->max_speed[s], c->sep_weight[s], !(flags & CS_FLAG_SEP_PUSH), c->vx[s], c->vy[s],
              ax, ay, an, &w->force_x[s], &w->force_y[s]);
    // The cone's output is over its length, the headway's the distance (cs_neighbor_query); the
    // two share the buffer.
    nb->cone.out[0][s] = q.cone ? cs_lanes_min(al) / (hw ? 1.0f : q.cone_l) : INFINITY;
    return candidates;
}

// The file agent's box is the sector toward its target (about four times the separation disc's
// cells), and only the disc's few cells can hold a separation neighbor. So the two are walked
// apart over the same rows and lanes: the separation loop over the chunks of each row that reach
// the disc's cells, and the file test alone (no square root, no division) over the whole box. A
// chunk a walk leaves out holds no candidate that would count in it (a candidate outside the
// disc's cells is farther than the radius plus the margin), and a lane that does not count adds
// nothing, so each lane's sums see the same terms in the same order as in chunk_all.
static inline __attribute__((always_inline)) uint64_t
file_only(crowd_world* w, const nb_subs* nb, int s, const query_block* blk, int i) {
    const cs_cell_box box = {blk->cx0[i], blk->cy0[i], blk->cx1[i], blk->cy1[i]};
    const cs_columns* c = &w->cur;
    const cs_grid* g = &w->grid;
    const float* restrict xs = c->px;
    const float* restrict ys = c->py;
    query q = block_query(c, s, blk, i);
    q.gx = blk->gx[i];
    q.gy = blk->gy[i];
    q.gd2 = blk->gd2[i];
    q.file = true;
    const int64_t self = s;
    float ax[CS_LANES], ay[CS_LANES], an[CS_LANES];
    float al[CS_LANES], ox[CS_LANES], oy[CS_LANES];
    uint32_t os[CS_LANES];
    for (int l = 0; l < CS_LANES; ++l) {
        ax[l] = ay[l] = an[l] = 0.0f;
        al[l] = ox[l] = oy[l] = INFINITY;
        os[l] = 0;
    }
    // The disc's cells, with its own (smaller) margin, within the box.
    const float m = cs_steer_margin(q.px, q.py, q.sep_r), inv_cell = g->inv_cell;
    const int32_t dx0 = clamp_cell(cs_cell_coord(q.px - q.sep_r - m, inv_cell), box.cx0, box.cx1);
    const int32_t dx1 = clamp_cell(cs_cell_coord(q.px + q.sep_r + m, inv_cell), box.cx0, box.cx1);
    const int32_t dy0 = cs_cell_coord(q.py - q.sep_r - m, inv_cell);
    const int32_t dy1 = cs_cell_coord(q.py + q.sep_r + m, inv_cell);
    uint64_t candidates = 0;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        const uint32_t base = cs_grid_row_base(g, cy);
        const uint32_t b = g->cell_start[base + (uint32_t)box.cx0];
        const uint32_t e = g->cell_start[base + (uint32_t)box.cx1 + 1];
        candidates += e - b;
        if (cy >= dy0 && cy <= dy1) {
            const uint32_t sb = g->cell_start[base + (uint32_t)dx0];
            const uint32_t se = g->cell_start[base + (uint32_t)dx1 + 1];
            // From the chunk of the row's walk that holds sb; lanes past se count for nothing.
            if (sb < se)
                cs_steer_sep_lanes(xs, ys, b + (sb - b) / CS_LANES * CS_LANES, se, q.px, q.py,
                                   q.sep_r, q.inv_r, ax, ay, an);
        }
        if (!q.cone) continue;
        for (uint32_t j = b; j < e; j += CS_LANES) {
            const float* restrict xc = xs + j;
            const float* restrict yc = ys + j;
            const int live = (int)(e - j);
            const int64_t self_lane = self - (int64_t)j;
            for (int l = 0; l < CS_LANES; ++l) {
                const lane_test t =
                    test_lane(&q, xc[l], yc[l], 0.0f, 0.0f, l < live, l != self_lane, true, false);
                const float x = -t.dx, y = -t.dy;
                const bool take =
                    t.in_cone & cs_steer_file_before(t.along, x, y, al[l], ox[l], oy[l]);
                al[l] = take ? t.along : al[l];
                ox[l] = take ? x : ox[l];
                oy[l] = take ? y : oy[l];
                os[l] = take ? j + (uint32_t)l : os[l];
            }
        }
    }
    const uint32_t flags = c->flags[s];
    sep_force(c->max_speed[s], c->sep_weight[s], !(flags & CS_FLAG_SEP_PUSH), c->vx[s], c->vy[s],
              ax, ay, an, &w->force_x[s], &w->force_y[s]);
    float along;
    ((uint32_t*)(void*)nb->file.out[0])[s] = file_ahead(c, nb, q.gx, q.gy, al, ox, oy, os, &along);
    return candidates;
}

// Agents of the dense layout whose only query is their group's separation (CS_NB_GROUP: the
// active follower), with a separation weight. Their box is the separation disc's (prepared a block
// at a time, as for the queries above), walked with both sums in registers; the lane terms are
// chunk_all's, so the results are agent_neighbors' to the bit.
static inline __attribute__((always_inline)) uint64_t
group_only(crowd_world* w, const nb_subs* nb, int s, const query_block* blk, int i) {
    (void)i;
    const cs_cell_box box = {blk->cx0[i], blk->cy0[i], blk->cx1[i], blk->cy1[i]};
    const cs_columns* c = &w->cur;
    const cs_grid* g = &w->grid;
    const float px = c->px[s], py = c->py[s], r = c->sep_radius[s], inv_r = 1.0f / r;
    const uint32_t group = c->group[s];
    float ax[CS_LANES], ay[CS_LANES], an[CS_LANES], gx[CS_LANES], gy[CS_LANES], gn[CS_LANES];
    for (int l = 0; l < CS_LANES; ++l) ax[l] = ay[l] = an[l] = gx[l] = gy[l] = gn[l] = 0.0f;
    uint64_t candidates = 0;
    for (int32_t cy = box.cy0; cy <= box.cy1; ++cy) {
        const uint32_t base = cs_grid_row_base(g, cy);
        const uint32_t b = g->cell_start[base + (uint32_t)box.cx0];
        const uint32_t e = g->cell_start[base + (uint32_t)box.cx1 + 1];
        candidates += e - b;
        sep_group_range(c->px, c->py, c->group, b, e, px, py, r, inv_r, group, ax, ay, an, gx, gy,
                        gn);
    }
    const float ms = c->max_speed[s], vx = c->vx[s], vy = c->vy[s];
    const bool drag = !(c->flags[s] & CS_FLAG_SEP_PUSH);
    sep_force(ms, c->sep_weight[s], drag, vx, vy, ax, ay, an, &w->force_x[s], &w->force_y[s]);
    const crowd_vec2 gsep = cs_steer_sep_force(ms, drag, cs_lanes_sum(gx), cs_lanes_sum(gy),
                                               cs_lanes_sum(gn), (crowd_vec2){vx, vy});
    nb->group.out[0][s] = gsep.x;
    nb->group.out[1][s] = gsep.y;
    return candidates;
}

// Prepares agents [s0, s0 + n) of the dense layout; returns how many are cone, file or group
// agents. The arithmetic is agent_neighbors' own, operation for operation.
static inline __attribute__((always_inline)) int
prepare_block(const crowd_world* w, const nb_subs* nb, int s0, int n, query_block* blk) {
    const cs_columns* c = &w->cur;
    int found = 0;
    for (int i = 0; i < n; ++i) {
        const int s = s0 + i;
        const uint32_t f = c->flags[s] & nb->flags;
        const bool sep = c->sep_weight[s] > 0.0f;
        // A follower without a group (not active) has separation alone, in the general path.
        const bool hw = nb->headway.flag && f == nb->headway.flag;
        const int kind = !sep                                                        ? BLOCK_OTHER
                         : (nb->cone.flag && f == nb->cone.flag) || hw               ? BLOCK_CONE
                         : nb->file.flag && f == nb->file.flag                       ? BLOCK_FILE
                         : nb->group.flag && f == nb->group.flag && c->group[s] != 0 ? BLOCK_GROUP
                                                                                     : BLOCK_OTHER;
        const cs_nb_use* u = kind == BLOCK_FILE    ? &nb->file
                             : kind == BLOCK_GROUP ? &nb->group
                             : hw                  ? &nb->headway
                                                   : &nb->cone;
        blk->kind[i] = kind;
        blk->headway[i] = hw;
        float cl = 0.0f, cw = 0.0f, cw2 = 0.0f, gx = 0.0f, gy = 0.0f, hc = 0.0f;
        if (kind == BLOCK_CONE && !hw) {
            cl = cs_nb_in(u, s, 0), cw = cs_nb_in(u, s, 1), cw2 = cs_nb_in(u, s, 2);
        } else if (kind == BLOCK_CONE) { // the headway: gx, gy hold its aim
            gx = cs_nb_in(u, s, 0), gy = cs_nb_in(u, s, 1);
            const cs_steer_shape sh = cs_steer_headway_shape(cs_nb_in(u, s, 2), cs_nb_in(u, s, 3));
            cl = sh.len, cw = sh.width, cw2 = sh.width2, hc = nb->headway_align;
        } else if (kind == BLOCK_FILE) {
            gx = cs_nb_in(u, s, 0), gy = cs_nb_in(u, s, 1);
            const cs_steer_shape sh =
                cs_steer_sector_shape(cs_nb_in(u, s, 2) * nb->file_scale, cs_nb_in(u, s, 3));
            cl = sh.len, cw = sh.width, cw2 = sh.width2;
        }
        blk->cone_l[i] = cl, blk->cone_w[i] = cw, blk->cone_w2[i] = cw2, blk->hw_cos[i] = hc;
        blk->gx[i] = gx, blk->gy[i] = gy;
        found += kind != BLOCK_OTHER;
    }
    if (!found) return 0;
    const cs_grid* g = &w->grid;
    const float* restrict pxs = c->px + s0;
    const float* restrict pys = c->py + s0;
    const float* restrict vxs = c->vx + s0;
    const float* restrict vys = c->vy + s0;
    const float* restrict rs = c->sep_radius + s0;
    const float inv_cell = g->inv_cell;
    const int32_t min_cx = g->min_cx, min_cy = g->min_cy, max_cx = g->max_cx, max_cy = g->max_cy;
    const float cone_min = nb->cone_min, file_min = nb->file_min, hw_min = nb->headway_min;
#pragma omp simd
    for (int i = 0; i < n; ++i) {
        const float px = pxs[i], py = pys[i], r = rs[i];
        // The cone looks along the velocity, the headway along its aim, the file toward the
        // target, whatever the velocity.
        const bool file = blk->kind[i] == BLOCK_FILE, hw = blk->headway[i] != 0;
        const float tx = file ? blk->gx[i] - px : (hw ? blk->gx[i] : vxs[i]);
        const float ty = file ? blk->gy[i] - py : (hw ? blk->gy[i] : vys[i]);
        const float min = file ? file_min : (hw ? hw_min : cone_min);
        const cs_steer_look look = cs_steer_cone_look(tx, ty, min);
        const bool cone = blk->kind[i] != BLOCK_GROUP && look.on;
        const float hx = cone ? look.hx : 0.0f, hy = cone ? look.hy : 0.0f;
        const cs_steer_box qb =
            cs_steer_query_box(px, py, r, cone, hx, hy, blk->cone_l[i], blk->cone_w[i]);
        int32_t bx0 = cs_cell_coord(qb.x0, inv_cell), by0 = cs_cell_coord(qb.y0, inv_cell);
        int32_t bx1 = cs_cell_coord(qb.x1, inv_cell), by1 = cs_cell_coord(qb.y1, inv_cell);
        bx0 = bx0 < min_cx ? min_cx : bx0, by0 = by0 < min_cy ? min_cy : by0;
        bx1 = bx1 > max_cx ? max_cx : bx1, by1 = by1 > max_cy ? max_cy : by1;
        blk->hx[i] = hx, blk->hy[i] = hy, blk->cone[i] = cone, blk->reach[i] = qb.reach;
        blk->gd2[i] = look.len2;
        blk->cx0[i] = bx0, blk->cx1[i] = bx1, blk->cy0[i] = by0;
        blk->cy1[i] = bx0 <= bx1 ? by1 : by0 - 1; // no row at all when no column is left
    }
    return found;
}

// What one agent's walk reads and writes, copied out of the world once per range.
typedef struct range_view {
    cs_grid g;
    cs_columns c;
    float* restrict fx;
    float* restrict fy;
    const cs_walls* walls; // NULL: no walls
} range_view;

// A separation-only agent in the dense layout with a wall near enough to hide a neighbor: the
// separation loop with each counted candidate's line of sight tested against its cell's two key
// segments when no other wall is within its separation disc, else against its
// cell's list (which holds every wall the disc reaches). A disc too large for one list takes the
// general path.
static __attribute__((noinline)) uint64_t sep_walls(crowd_world* w, const nb_subs* nb,
                                                    const range_view* v, int s, uint32_t key) {
    const cs_columns c = v->c;
    const float px = c.px[s], py = c.py[s], r = c.sep_radius[s], m = cs_steer_margin(px, py, r);
    if (r + m > cs_walls_reach(v->walls, px, py)) return agent_neighbors_dense(w, nb, s);
    cs_sight sight;
    cs_sight_cell(v->walls, px, py, r + m, &sight);
    return sep_only(&v->g, c.px, c.py, key, px, py, c.vx[s], c.vy[s], r, c.max_speed[s],
                    c.sep_weight[s], !(c.flags[s] & CS_FLAG_SEP_PUSH), &sight, &v->fx[s],
                    &v->fy[s]);
}

// Agent s, unless it is a prepared cone agent: the general path for subscribed agents and agents
// near a wall, else the separation loop.
static inline __attribute__((always_inline)) uint64_t one_agent(crowd_world* w, const nb_subs* nb,
                                                                const range_view* v, int s,
                                                                bool sparse, uint32_t key) {
    const cs_columns c = v->c;
    // Subscribed agents write their records besides the force.
    if (c.flags[s] & nb->flags)
        return sparse ? agent_neighbors_sparse(w, nb, s) : agent_neighbors_dense(w, nb, s);
    const float weight = c.sep_weight[s];
    if (!(weight > 0.0f)) {
        v->fx[s] = v->fy[s] = 0.0f;
        return 0;
    }
    // An agent with a wall that could hide a neighbor closer than its separation radius tests line
    // of sight.
    uint64_t found;
    if (v->walls &&
        w->wall_sight[s] < c.sep_radius[s] + cs_steer_margin(c.px[s], c.py[s], c.sep_radius[s]))
        found = sparse ? agent_neighbors_sparse(w, nb, s) : sep_walls(w, nb, v, s, key);
    else if (sparse)
        found = sep_only_sparse(w, nb, s);
    else
        found = sep_only(&v->g, c.px, c.py, key, c.px[s], c.py[s], c.vx[s], c.vy[s],
                         c.sep_radius[s], c.max_speed[s], weight, !(c.flags[s] & CS_FLAG_SEP_PUSH),
                         NULL, &v->fx[s], &v->fy[s]);
    return found != OVER_BUDGET
               ? found
               : cs_nb_capped_agent(w, &nb->uses, s, CROWD_MAX_NEIGHBORS, CROWD_NEIGHBOR_BUDGET);
}

// The cell keys of n agents from slot s0 in the dense layout, as the sort computed them (one_agent
// takes each agent's; computed a block ahead in a vector loop, off the separation loop's path).
static void dense_keys(const cs_grid* g, const float* restrict px, const float* restrict py, int s0,
                       int n, uint32_t* restrict key) {
    const float inv = g->inv_cell;
    const uint32_t width = g->width;
    const int32_t min_cx = g->min_cx, min_cy = g->min_cy;
    for (int i = 0; i < n; ++i)
        key[i] = cs_grid_dense_key(px[s0 + i], py[s0 + i], inv, width, min_cx, min_cy);
}

// In the dense layout, when the world has cone, file or group agents, agents go by blocks
// (prepare_block); else one by one, with nothing around the separation loop.
static inline __attribute__((always_inline)) uint64_t
neighbor_range(crowd_world* w, const nb_subs* nb, int lo, int hi, bool sparse) {
    const range_view v = {w->grid, w->cur, w->force_x, w->force_y,
                          w->walls.live > 0 ? &w->walls : NULL};
    uint64_t candidates = 0;
    const bool cones = (nb->cone.flag && nb->cone.live) || (nb->headway.flag && nb->headway.live);
    const bool files = nb->file.flag && nb->file.live;
    const bool groups = nb->group.flag && nb->group.live;
    uint32_t key[CS_NB_BLOCK] = {0};
    if (sparse) {
        for (int s = lo; s < hi; ++s) candidates += one_agent(w, nb, &v, s, true, 0);
        return candidates;
    }
    if (!(cones || files || groups)) {
        for (int s0 = lo; s0 < hi; s0 += CS_NB_BLOCK) {
            const int n = hi - s0 < CS_NB_BLOCK ? hi - s0 : CS_NB_BLOCK;
            dense_keys(&v.g, v.c.px, v.c.py, s0, n, key);
            uint64_t found = 0; // per block: a sum carried across the call would live in memory
            for (int i = 0; i < n; ++i) found += one_agent(w, nb, &v, s0 + i, false, key[i]);
            candidates += found;
        }
        return candidates;
    }
    query_block blk;
    for (int s0 = lo; s0 < hi; s0 += CS_NB_BLOCK) {
        const int n = hi - s0 < CS_NB_BLOCK ? hi - s0 : CS_NB_BLOCK;
        dense_keys(&v.g, v.c.px, v.c.py, s0, n, key);
        const int found = prepare_block(w, nb, s0, n, &blk);
        for (int i = 0; i < n; ++i) {
            const int s = s0 + i;
            // An agent with a wall that could hide a neighbor within its query's reach takes the
            // general path, which tests line of sight.
            const int kind =
                found && !(v.walls && w->wall_sight[s] < blk.reach[i]) ? blk.kind[i] : BLOCK_OTHER;
            if (kind == BLOCK_OTHER) {
                candidates += one_agent(w, nb, &v, s, false, key[i]);
                continue;
            }
            const cs_cell_box box = {blk.cx0[i], blk.cy0[i], blk.cx1[i], blk.cy1[i]};
            if (box.cy0 <= box.cy1 && box_may_pass(&box, nb->safe_cells) &&
                box_over_budget(w, &box)) {
                candidates +=
                    cs_nb_capped_agent(w, &nb->uses, s, CROWD_MAX_NEIGHBORS, CROWD_NEIGHBOR_BUDGET);
                continue;
            }
            candidates += kind == BLOCK_CONE   ? cone_only(w, nb, s, &blk, i)
                          : kind == BLOCK_FILE ? file_only(w, nb, s, &blk, i)
                                               : group_only(w, nb, s, &blk, i);
        }
    }
    return candidates;
}

typedef struct neighbor_ctx {
    crowd_world* w;
    nb_subs nb;
} neighbor_ctx;

// The pass's cost per agent varies several times over a world (a queue's crowded end, a block of
// cone agents), so a thread done with its share helps with the others' (cs_team_run_chunks): an
// agent's result does not depend on the chunk it is in.
static uint64_t neighbor_chunk(void* arg, int lo, int hi) {
    const neighbor_ctx* c = arg;
    // With obstacles, the chunk's wall clearances first, while its agents' columns are in cache
    // for the neighbor loop after it (an agent's line of sight reads its own).
    if (c->w->walls.live > 0) cs_walls_clearance_range(c->w, lo, hi);
    return c->w->grid.dense ? neighbor_range(c->w, &c->nb, lo, hi, false)
                            : neighbor_range(c->w, &c->nb, lo, hi, true);
}

void cs_pass_neighbor(crowd_world* w) {
    neighbor_ctx c = {.w = w};
    c.nb.cone = cs_nb_resolve(w, CS_NB_CONE);
    c.nb.group = cs_nb_resolve(w, CS_NB_GROUP);
    c.nb.file = cs_nb_resolve(w, CS_NB_FILE);
    c.nb.headway = cs_nb_resolve(w, CS_NB_HEADWAY);
    c.nb.flags = c.nb.cone.flag | c.nb.group.flag | c.nb.file.flag | c.nb.headway.flag;
    c.nb.cone_min = c.nb.cone.min_len;
    c.nb.headway_min = c.nb.headway.min_len;
    c.nb.headway_align = c.nb.headway.align;
    const bool aims = c.nb.headway.in_col[0] && c.nb.headway.in_col[1];
    c.nb.aim_x = aims ? c.nb.headway.in_col[0] : w->cur.hx;
    c.nb.aim_y = aims ? c.nb.headway.in_col[1] : w->cur.hy;
    c.nb.file_min = c.nb.file.min_len;
    c.nb.file_scale = c.nb.file.reach_scale;
    c.nb.safe_cells = w->grid.max_pop ? CROWD_NEIGHBOR_BUDGET / w->grid.max_pop : UINT64_MAX;
    w->profile.candidates =
        cs_team_run_chunks(w->threads, w->count, CS_NB_BLOCK, neighbor_chunk, &c);
}
