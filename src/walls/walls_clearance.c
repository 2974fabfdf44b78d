// The clearance pass, in the neighbor phase before the neighbor pass (step.c): every agent's wall
// clearance and cell list (see cs_walls_seg_d2) into w->wall_clear / w->wall_list, read by the
// neighbor pass (which agents test line of sight, and against what) and by the walls behavior's
// passes of the same step (the force and the clamp skip agents whose clearance exceeds their
// reach). It reads the agents' sorted positions and the static segment grid, and writes only its
// own agents' slots, so the result does not depend on the thread count.
#include "core/internal.h"

// Agents whose wall lists are looked up together (see clearance_team).
#define CS_WALL_BLOCK 32

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

// Stage two: the lookups (once per run of agents in one cell: agents are sorted by cell), and a
// fetch of each new list.
static void block_lists(const cs_walls* g, cs_wall_ref* out, int n, const int32_t* cx,
                        const int32_t* cy) {
    for (int k = 0; k < n; ++k) {
        const bool same = k > 0 && cx[k] == cx[k - 1] && cy[k] == cy[k - 1];
        out[k] = same ? out[k - 1] : cs_walls_list(g, cx[k], cy[k]);
        if (!same && out[k].count) __builtin_prefetch(g->segs + out[k].start);
    }
}

// Stage three: the clearances of a block. The lists are short (a street's cell holds one or two
// walls), so a loop over one agent's list would be mostly branches: the loop runs over the block's
// agents instead, one segment of each list at a time (a lane past its list's end reads the pool's
// first segment and keeps its minimum), with the same operations in the same order as one agent
// at a time, so the clearances are the same bit for bit.
static void block_clear(const cs_walls* g, const float* restrict px, const float* restrict py,
                        const cs_wall_ref* restrict ref, float* restrict out, int n) {
    uint32_t most = 0, start[CS_WALL_BLOCK], count[CS_WALL_BLOCK];
    float d2[CS_WALL_BLOCK];
    for (int k = 0; k < n; ++k) {
        start[k] = ref[k].start, count[k] = ref[k].count;
        most = count[k] > most ? count[k] : most;
        const float reach = cs_walls_reach(g, px[k], py[k]);
        d2[k] = reach * reach;
    }
    for (uint32_t j = 0; j < most; ++j) {
#pragma omp simd
        for (int k = 0; k < n; ++k) {
            const bool on = j < count[k];
            const cs_wall_seg* s = &g->segs[on ? start[k] + j : 0];
            const float q = cs_walls_seg_d2(s->ax, s->ay, s->bx, s->by, px[k], py[k]);
            d2[k] = on && q < d2[k] ? q : d2[k];
        }
    }
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        const float x = px[k], y = py[k];
        // The float distance may be off by a few units in the last place of the coordinates.
        out[k] = ref[k].count ? sqrtf(d2[k]) - (fabsf(x) + fabsf(y)) * 1e-6f - 1e-4f
                              : cs_walls_reach(g, x, y);
    }
}

// In a pass of its own, so that the neighbor pass's loop reads one float per agent and keeps its
// accumulators in registers. The two stages of the lookups and the clearances (stage three) run
// as a pipeline over blocks of agents, a block apart: while a block's clearances are computed,
// the next block's lists and the one after's table slots are on their way from memory, so the
// loads overlap rather than each waiting on memory.
static void clearance_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const cs_walls* g = &w->walls;
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    const float* restrict px = w->cur.px;
    const float* restrict py = w->cur.py;
    int32_t cx[3][CS_WALL_BLOCK], cy[3][CS_WALL_BLOCK];
    const int blocks = (hi - lo + CS_WALL_BLOCK - 1) / CS_WALL_BLOCK;
    for (int b = 0; b < blocks + 2; ++b) {
        // Stage one for block b, two for block b - 1, three for block b - 2.
        for (int stage = 0; stage < 3; ++stage) {
            const int k = b - stage, s = lo + k * CS_WALL_BLOCK;
            if (k < 0 || k >= blocks) continue;
            const int n = s + CS_WALL_BLOCK < hi ? CS_WALL_BLOCK : hi - s;
            if (stage == 0) block_cells(g, px, py, s, n, cx[k % 3], cy[k % 3]);
            if (stage == 1) block_lists(g, w->wall_list + s, n, cx[k % 3], cy[k % 3]);
            if (stage == 2) block_clear(g, px + s, py + s, w->wall_list + s, w->wall_clear + s, n);
        }
    }
}

void cs_pass_clearance(crowd_world* w) {
    cs_team_run(w->threads, clearance_team, w);
}
