// The clearance pass, in the neighbor phase before the neighbor pass (step.c): every agent's wall
// clearance, sight clearance, probe clearance and cell list (see cs_walls_seg_d2 and block_clear)
// into w->wall_clear / w->wall_sight / w->wall_probe / w->wall_list, read by the neighbor pass
// (which agents test line of sight, and against what) and by the walls behavior's passes of the
// same step (the force and the clamp skip agents whose clearance exceeds their reach). It reads
// the agents' sorted positions and velocities and the static segment grid, and writes only its
// own agents' slots, so the result does not depend on the thread count.
#include "core/internal.h"

// Agents whose wall lists are looked up together (see clearance_team).
#define CS_WALL_BLOCK 32
// Pieces of the probe (see block_clear).
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
// first segment and keeps what it had), with the same operations in the same order as one agent
// at a time, so the clearances are the same bit for bit.
//
// The sight clearance (w->wall_sight) is a lower bound of the distance to the walls that could
// hide a neighbor: a sight line no longer than it meets no wall. A sight line joins two agents'
// centres, and no centre is ever inside a solid. So the nearest edge of a convex polygon cannot
// hide anyone on its own: the agent is on its outer side (its nearest point is not a corner,
// which the next edge shares), and a line from there that met the edge would enter the solid and
// leave it through a second edge. The sight clearance is therefore the least of the distances to
// the open walls and to the edges of non-convex polygons, to the second nearest edge of the
// polygon with the nearest convex edge, and to the edges of every other convex polygon (each
// counted from its nearest, which costs nothing where polygons stand apart). So an agent walking
// along a block's side tests no line of sight, and one at its corner does.
//
// The probe clearance (w->wall_probe) is a lower bound of the distance from the walls to the
// probe, the segment from the agent's centre P to P + velocity * wall_probe_time. The distance
// to the walls changes by at most the distance moved, so with the probe cut into CS_WALL_PROBE
// pieces of length h and its end points' distances a and b known, no point of a piece is nearer
// than (a + b - h) / 2. The end points' distances come from the agent's own list: a segment not
// in it is at least the list's reach from P, so at least that reach less i h from the i-th point.
// An agent walking along a wall has its probe as far from the wall as itself, less h / 2, where
// its clearance less the probe's length would have been the only bound.
static void block_clear(const cs_walls* g, const float* restrict px, const float* restrict py,
                        const float* restrict vx, const float* restrict vy, float probe_time,
                        const cs_wall_ref* restrict ref, float* restrict out, float* restrict sight,
                        float* restrict probe, int n) {
    uint32_t most = 0, start[CS_WALL_BLOCK], count[CS_WALL_BLOCK];
    float near_obs[CS_WALL_BLOCK];
    // The probe's points past P and their squared distances.
    float qx[CS_WALL_PROBE][CS_WALL_BLOCK], qy[CS_WALL_PROBE][CS_WALL_BLOCK],
        qd2[CS_WALL_PROBE][CS_WALL_BLOCK];
    // Squared: d2 the clearance's; open2 of open walls and non-convex edges; m1 and m2 the nearest
    // and second nearest edges of convex polygon near_obs; others2 other convex polygons' edges.
    float d2[CS_WALL_BLOCK], open2[CS_WALL_BLOCK], m1[CS_WALL_BLOCK], m2[CS_WALL_BLOCK],
        others2[CS_WALL_BLOCK];
    for (int k = 0; k < n; ++k) {
        start[k] = ref[k].start, count[k] = ref[k].count;
        most = count[k] > most ? count[k] : most;
        const float reach = cs_walls_reach(g, px[k], py[k]);
        d2[k] = open2[k] = m1[k] = m2[k] = others2[k] = reach * reach;
        near_obs[k] = -1.0f;
        for (int i = 0; i < CS_WALL_PROBE; ++i) {
            const float t = probe_time * (float)(i + 1) / (float)CS_WALL_PROBE;
            qx[i][k] = px[k] + vx[k] * t, qy[i][k] = py[k] + vy[k] * t;
            qd2[i][k] = reach * reach;
        }
    }
    const cs_obstacle* restrict obs = g->obs;
    const cs_wall_seg* restrict segs = g->segs;
    const float far2 = 4.0f * g->cell_size * g->cell_size; // beyond every list's reach
    for (uint32_t j = 0; j < most; ++j) {
        float q[CS_WALL_BLOCK];
        // Obstacle numbers and kinds as floats (exact below 2^24), so that the lanes below
        // compare floats only.
        float oi[CS_WALL_BLOCK], convex[CS_WALL_BLOCK];
#pragma omp simd
        for (int k = 0; k < n; ++k) {
            const uint32_t e = j < count[k] ? start[k] + j : 0;
            q[k] = cs_walls_seg_d2(segs[e].ax, segs[e].ay, segs[e].bx, segs[e].by, px[k], py[k]);
            oi[k] = (float)(segs[e].id >> 16);
            d2[k] = j < count[k] && q[k] < d2[k] ? q[k] : d2[k];
            // The probe's points, with one division for them all: a closest point off by a
            // rounding of u is still on the segment, so the distance only grows by its square.
            const float ax = segs[e].ax, ay = segs[e].ay, ex = segs[e].bx - ax,
                        ey = segs[e].by - ay, inv = 1.0f / (ex * ex + ey * ey);
            for (int i = 0; i < CS_WALL_PROBE; ++i) {
                float u = ((qx[i][k] - ax) * ex + (qy[i][k] - ay) * ey) * inv;
                u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
                const float dx = qx[i][k] - (ax + u * ex), dy = qy[i][k] - (ay + u * ey);
                const float qi = dx * dx + dy * dy;
                qd2[i][k] = j < count[k] && qi < qd2[i][k] ? qi : qd2[i][k];
            }
        }
        for (int k = 0; k < n; ++k)
            convex[k] = j < count[k] ? (float)obs[segs[start[k] + j].id >> 16].convex : 2.0f;
#pragma omp simd
        for (int k = 0; k < n; ++k) {
            // convex: 1 a convex polygon's edge, 0 an open wall's or a non-convex one's, 2 none.
            const bool same = oi[k] == near_obs[k], nearer = q[k] < m1[k];
            // Open walls and non-convex edges.
            open2[k] = convex[k] == 0.0f && q[k] < open2[k] ? q[k] : open2[k];
            // An edge of near_obs: the nearest and second nearest of its edges.
            const float second = nearer ? m1[k] : (q[k] < m2[k] ? q[k] : m2[k]);
            m2[k] = convex[k] == 1.0f && same ? second : m2[k];
            // An edge of another convex polygon: it becomes near_obs when nearer than m1 (the old
            // nearest edge joins the others), else it joins the others.
            const bool other = convex[k] == 1.0f && !same;
            const float to_others = nearer ? m1[k] : q[k];
            others2[k] = other && to_others < others2[k] ? to_others : others2[k];
            m2[k] = other && nearer ? far2 : m2[k];
            near_obs[k] = other && nearer ? oi[k] : near_obs[k];
            m1[k] = convex[k] == 1.0f && nearer ? q[k] : m1[k];
        }
    }
#pragma omp simd
    for (int k = 0; k < n; ++k) {
        const float x = px[k], y = py[k];
        // The float distance may be off by a few units in the last place of the coordinates.
        const float reach = cs_walls_reach(g, x, y), margin = (fabsf(x) + fabsf(y)) * 1e-6f;
        out[k] = count[k] ? sqrtf(d2[k]) - margin - 1e-4f : reach;
        float s2 = open2[k] < m2[k] ? open2[k] : m2[k];
        s2 = others2[k] < s2 ? others2[k] : s2;
        s2 = s2 < reach * reach ? s2 : reach * reach;
        sight[k] = count[k] ? sqrtf(s2) - margin - 1e-4f : reach;
        // The pieces' length, rounded up; the bound of the piece from point i - 1 to point i.
        float h = sqrtf(vx[k] * vx[k] + vy[k] * vy[k]) * probe_time / (float)CS_WALL_PROBE;
        h += h * 1e-5f;
        float prev = out[k], bound = out[k];
        for (int i = 0; i < CS_WALL_PROBE; ++i) {
            const float mi = (fabsf(qx[i][k]) + fabsf(qy[i][k])) * 1e-6f;
            float di = sqrtf(qd2[i][k]) - mi - 1e-4f;
            const float unseen = reach - (float)(i + 1) * h;
            di = unseen < di ? unseen : di;
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
static void clearance_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const cs_walls* g = &w->walls;
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    const float* restrict px = w->cur.px;
    const float* restrict py = w->cur.py;
    const float* restrict vx = w->cur.vx;
    const float* restrict vy = w->cur.vy;
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
            if (stage == 2)
                block_clear(g, px + s, py + s, vx + s, vy + s, w->wall_probe_time, w->wall_list + s,
                            w->wall_clear + s, w->wall_sight + s, w->wall_probe + s, n);
        }
    }
}

void cs_pass_clearance(crowd_world* w) {
    cs_team_run(w->threads, clearance_team, w);
}
