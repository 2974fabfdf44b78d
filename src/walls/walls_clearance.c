// The clearance pass, in the neighbor phase before the neighbor pass (step.c): every agent's wall
// clearance and cell list (cs_walls_clearance) into w->wall_clear / w->wall_slot, read by the
// neighbor pass (which agents test line of sight, and against what) and by the walls behavior's
// passes of the same step (the force and the clamp skip agents whose clearance exceeds their
// reach). It reads the agents' sorted positions and the static segment grid, and writes only its
// own agents' slots, so the result does not depend on the thread count.
#include "core/internal.h"

// Agents whose wall lists are looked up together (see clearance_team).
#define CS_WALL_BLOCK 32

// In a pass of its own, so that the neighbor pass's loop reads one float per agent and keeps its
// accumulators in registers. A block of agents is done in three rounds, so that the memory each
// round reads was fetched by the one before and the loads overlap rather than each waiting on
// memory: their cells' table slots, then the lookups (once per run of agents in one cell: agents
// are sorted by cell), then the lists.
static void clearance_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const cs_walls* walls = &w->walls;
    const float inv_cell = walls->inv_cell;
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    const float* restrict px = w->cur.px;
    const float* restrict py = w->cur.py;
    int32_t cx[CS_WALL_BLOCK], cy[CS_WALL_BLOCK];
    for (int s = lo; s < hi; s += CS_WALL_BLOCK) {
        const int n = s + CS_WALL_BLOCK < hi ? CS_WALL_BLOCK : hi - s;
        for (int k = 0; k < n; ++k) {
            cx[k] = cs_cell_coord(px[s + k], inv_cell);
            cy[k] = cs_cell_coord(py[s + k], inv_cell);
            if (k == 0 || cx[k] != cx[k - 1] || cy[k] != cy[k - 1])
                cs_walls_prefetch_slot(walls, cx[k], cy[k]);
        }
        for (int k = 0; k < n; ++k) {
            const bool same = k > 0 && cx[k] == cx[k - 1] && cy[k] == cy[k - 1];
            const uint32_t h = same ? w->wall_slot[s + k - 1] : cs_walls_slot(walls, cx[k], cy[k]);
            w->wall_slot[s + k] = h;
            if (!same && h != UINT32_MAX) __builtin_prefetch(walls->segs + walls->cells[h].start);
        }
        for (int k = s; k < s + n; ++k)
            w->wall_clear[k] = cs_walls_clearance(walls, px[k], py[k], w->wall_slot[k]);
    }
}

void cs_pass_clearance(crowd_world* w) {
    cs_team_run(w->threads, clearance_team, w);
}
