// The clearance pass, in the neighbor phase before the neighbor pass (step.c): every agent's wall
// clearance, sight clearance, probe clearance and cell list (see block_key) into w->wall_clear /
// w->wall_sight / w->wall_probe / w->wall_list, read by the neighbor pass (which agents test line
// of sight, and against what) and by the walls behavior's passes of the same step (the force and
// the clamp skip agents whose clearance exceeds their reach). It reads the agents' sorted positions
// and velocities and the static segment grid, and writes only its own agents' slots, so the result
// does not depend on the thread count.
#include "core/internal.h"

// Agents whose wall lists are looked up together (see clearance_team).
#define CS_WALL_BLOCK 32
// Pieces of the probe (see block_key).
#define CS_WALL_PROBE 2

// Stage one of a block: its agents' cells, and a fetch of where each new cell's list is found.
static void block_cells(const cs_walls* g, const float* px, const float* py, int s, int n,
                        int32_t* cx, int32_t* cy) {
    for (int k = 0; k < n; ++k) {
        cx[k] = cs_cell_coord(px[s + k], g->inv_cell);
        cy[k] = cs_cell_coord(py[s + k], g->inv_cell);
        if (k == 0 || cx[k] != cx[k - 1] || cy[k] != cy[k - 1])
            cs_walls_prefetch_cell(g, cx[k], cy[k]);
    }
}

// The summary's fields as block_key reads them, one column each (see block_keys).
enum { SUM_FIELDS = 13 };

// A summary for agents without a list (its values are not used; they only keep the lanes finite).
static const cs_wall_sum NO_SUM = {.k = {{0.0f, 0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 1.0f, 0.0f}}};

// Stage two: the lookups (once per run of agents in one cell: agents are sorted by cell), from
// the direct index when there is one, else from the table, and each cell's summary
// (cs_wall_sum), as columns for stage three's lanes. Both hold the same summaries, so the
// clearances do not depend on which one answers.
static void block_keys(const cs_walls* g, cs_wall_ref* out, float (*key)[CS_WALL_BLOCK], int n,
                       const int32_t* cx, const int32_t* cy) {
    // The current cell's list and fields, kept in registers across its run of agents.
    cs_wall_ref ref = {0, 0};
    cs_wall_sum sum;
    float f[SUM_FIELDS];
    for (int k = 0; k < n; ++k) {
        if (k == 0 || cx[k] != cx[k - 1] || cy[k] != cy[k - 1]) {
            const cs_wall_sum* e = &NO_SUM;
            if (g->dir) {
                const cs_wall_ref* r = cs_walls_dir_at(g, cx[k], cy[k]);
                ref = r ? *r : (cs_wall_ref){0, 0};
                if (ref.count) e = &g->dsum[r - g->dir];
            } else if (g->table_cap) {
                // Without the index (walls spread over too large a box) the summary is computed
                // from the list, the same as the index would hold.
                ref = cs_walls_ref(g, cs_walls_slot(g, cx[k], cy[k]));
                if (ref.count) {
                    sum = cs_walls_sum_of(g, cx[k], cy[k], g->segs + ref.start, ref.count);
                    e = &sum;
                }
            } else {
                ref = (cs_wall_ref){0, 0};
            }
            for (int q = 0; q < 8; ++q) f[q] = e->k[q >> 2][q & 3];
            f[8] = e->rest, f[9] = e->sight;
            f[10] = e->open[0], f[11] = e->open[1], f[12] = e->pair;
        }
        out[k] = ref;
        for (int q = 0; q < SUM_FIELDS; ++q) key[q][k] = f[q];
    }
}

// The squared distance from (x, y) to the segment from (ax, ay) along (ex, ey), inv = 1 / |e|^2.
// A closest point off by a rounding of u is still on the segment, so the distance only grows by
// its square; the passes' margins cover that.
static inline float seg_d2_inv(float ax, float ay, float ex, float ey, float inv, float x,
                               float y) {
    float u = ((x - ax) * ex + (y - ay) * ey) * inv;
    u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
    const float dx = x - (ax + u * ex), dy = y - (ay + u * ey);
    return dx * dx + dy * dy;
}

// Stage three: every bound from the agent's cell summary (see cs_wall_sum), a few operations per
// agent whatever the list's length. Every consumer uses these bounds only to skip work that would
// find nothing, so a bound below the true value changes no result, only the work done. With d0,
// d1 the distances to the two keys and r the summary's rest (all capped at the list's reach: a
// segment not in the list is at least that far):
//   - clearance: min(d0, d1, r), exact when r is not the least (an agent beside a block's side or
//     at its corner).
//   - sight clearance (w->wall_sight): a lower bound of the distance to the walls that could hide
//     a neighbor, so that a sight line no longer than it meets no wall. A sight line joins two
//     agents' centres, and no centre is ever inside a solid, so a line that meets a convex polygon
//     enters and leaves it through two of its edges, and one of them is not the polygon's nearest:
//     the line is at least as long as the distance to the polygon's second nearest edge. The bound
//     is the least of the summary's sight (the other segments' share), d_i for an open key i and
//     max(d0, d1) for two keys of one convex polygon (see sum_of in walls_grid.c), raised to the
//     clearance when that is larger. An agent walking along a block tests no line of sight.
//   - probe clearance (w->wall_probe): a lower bound of the distance from the walls to the probe,
//     the segment from the agent's centre P to P + velocity * wall_probe_time. The distance to the
//     walls changes by at most the distance moved, so with the probe cut into CS_WALL_PROBE
//     pieces of length h and its end points' distances a and b known, no point of a piece is
//     nearer than (a + b - h) / 2. The i-th point's distance is bounded by its distances to the
//     keys and by r - i h (the other segments are at least r from P, i h away). An agent walking
//     along a wall has its probe as far from the wall as itself, less h / 2.
static void block_key(const cs_walls* g, const float* restrict px, const float* restrict py,
                      const float* restrict vx, const float* restrict vy, float probe_time,
                      const cs_wall_ref* restrict ref, float (*restrict key)[CS_WALL_BLOCK],
                      float* restrict out, float* restrict sight, float* restrict probe, int n) {
    // The counts as a column of their own: a strided load from ref keeps gcc from vectorizing.
    uint32_t cnt[CS_WALL_BLOCK];
    for (int k = 0; k < n; ++k) cnt[k] = ref[k].count;
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        const float x = px[k], y = py[k];
        const bool some = cnt[k] != 0;
        const float reach = cs_walls_reach(g, x, y), margin = (fabsf(x) + fabsf(y)) * 1e-6f;
        const float a0x = key[0][k], a0y = key[1][k], e0x = key[2][k] - a0x, e0y = key[3][k] - a0y;
        const float a1x = key[4][k], a1y = key[5][k], e1x = key[6][k] - a1x, e1y = key[7][k] - a1y;
        const float inv0 = 1.0f / (e0x * e0x + e0y * e0y), inv1 = 1.0f / (e1x * e1x + e1y * e1y);
        const float d0 = sqrtf(seg_d2_inv(a0x, a0y, e0x, e0y, inv0, x, y));
        const float d1 = sqrtf(seg_d2_inv(a1x, a1y, e1x, e1y, inv1, x, y));
        const float rest = key[8][k] < reach ? key[8][k] : reach;
        float near = d0 < d1 ? d0 : d1;
        near = near < rest ? near : rest;
        const float clear = near - margin - 1e-4f;
        out[k] = some ? clear : reach;
        float sg = key[9][k] < reach ? key[9][k] : reach;
        // The keys' terms come with 0 (they count) or a huge number (they do not) added, which
        // keeps the loop free of branches.
        const float t0 = d0 + key[10][k], t1 = d1 + key[11][k];
        const float t2 = (d0 > d1 ? d0 : d1) + key[12][k];
        sg = t0 < sg ? t0 : sg;
        sg = t1 < sg ? t1 : sg;
        sg = t2 < sg ? t2 : sg;
        sg -= margin + 1e-4f;
        sg = sg > clear ? sg : clear;
        sight[k] = some ? sg : reach;
        // The pieces' length, rounded up; the bound of the piece from point i - 1 to point i.
        float h = sqrtf(vx[k] * vx[k] + vy[k] * vy[k]) * probe_time / (float)CS_WALL_PROBE;
        h += h * 1e-5f;
        float prev = out[k], bound = out[k];
        for (int i = 0; i < CS_WALL_PROBE; ++i) {
            const float t = probe_time * (float)(i + 1) / (float)CS_WALL_PROBE;
            const float qx = x + vx[k] * t, qy = y + vy[k] * t;
            const float q0 = seg_d2_inv(a0x, a0y, e0x, e0y, inv0, qx, qy);
            const float q1 = seg_d2_inv(a1x, a1y, e1x, e1y, inv1, qx, qy);
            float dq = sqrtf(q0 < q1 ? q0 : q1);
            dq = some ? dq : reach;
            const float unseen = (some ? rest : reach) - (float)(i + 1) * h;
            const float mi = (fabsf(qx) + fabsf(qy)) * 1e-6f;
            const float di = (unseen < dq ? unseen : dq) - mi - 1e-4f;
            const float piece = (prev + di - h) * 0.5f;
            bound = piece < bound ? piece : bound;
            prev = di;
        }
        probe[k] = bound - 1e-4f;
    }
}

// In a pass of its own, so that the neighbor pass's loop reads one float per agent and keeps its
// accumulators in registers. The two stages of the lookups and the clearances (stage three) run
// as a pipeline over blocks of agents, a block apart: while a block's clearances are computed,
// the next block's lists and the one after's table slots are on their way from memory, so the
// loads overlap rather than each waiting on memory.
static uint64_t clearance_chunk(void* arg, int lo, int hi) {
    crowd_world* w = arg;
    const cs_walls* g = &w->walls;
    const float* restrict px = w->cur.px;
    const float* restrict py = w->cur.py;
    const float* restrict vx = w->cur.vx;
    const float* restrict vy = w->cur.vy;
    int32_t cx[3][CS_WALL_BLOCK], cy[3][CS_WALL_BLOCK];
    // The summaries' fields as columns (see block_keys).
    float key[3][SUM_FIELDS][CS_WALL_BLOCK];
    const int blocks = (hi - lo + CS_WALL_BLOCK - 1) / CS_WALL_BLOCK;
    for (int b = 0; b < blocks + 2; ++b) {
        // Stage one for block b, two for block b - 1, three for block b - 2.
        for (int stage = 0; stage < 3; ++stage) {
            const int k = b - stage, s = lo + k * CS_WALL_BLOCK;
            if (k < 0 || k >= blocks) continue;
            const int n = s + CS_WALL_BLOCK < hi ? CS_WALL_BLOCK : hi - s;
            if (stage == 0) block_cells(g, px, py, s, n, cx[k % 3], cy[k % 3]);
            if (stage == 1) block_keys(g, w->wall_list + s, key[k % 3], n, cx[k % 3], cy[k % 3]);
            if (stage == 2)
                block_key(g, px + s, py + s, vx + s, vy + s, w->wall_probe_time, w->wall_list + s,
                          key[k % 3], w->wall_clear + s, w->wall_sight + s, w->wall_probe + s, n);
        }
    }
    return 0;
}

// Agents beside walls cost more than those in open cells, so a thread done with its share helps
// with the others' (cs_team_run_chunks). Chunks hold whole blocks.
void cs_pass_clearance(crowd_world* w) {
    cs_team_run_chunks(w->threads, w->count, CS_WALL_BLOCK, clearance_chunk, w);
}
