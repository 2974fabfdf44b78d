// The wall force (CROWD_PHASE_WALLS): Reynolds' containment. Each moving agent probes look_ahead
// seconds along its velocity; the nearest wall segment to that probe (a segment from the agent's
// centre) pushes it once the probe comes within 2 radii of it (one radius of clearance for the
// disc) and only while the agent heads toward it. The push is along n, the direction from the
// wall's closest point to the probe's (where the probe crosses the wall, the wall's normal on the
// agent's side), with max_force * weight * cos * strength: cos = -dot(heading, n), how squarely
// the agent heads into the wall, and a strength that grows from 0 at 2 radii to 1 at one radius,
// but for a slow agent never more than stops its approach within one tick.
// So an agent sheds its speed into a wall before it gets there and keeps its speed along it, and
// an agent at rest, or passing a door's jamb, is not pushed back (an earlier push along n alone
// held pairs of customers at both jambs of a 1 m door for good; a push across the heading alone
// slowed a room's evacuation by a quarter). Only the nearest wall pushes (ties to the lowest
// segment id), so a wall seen from two cells counts once and the result does not depend on list
// order.
//
// Agents whose probe clearance (computed by the clearance pass, see walls_clearance.c: a lower
// bound of the distance from the walls to the longest probe any agent may have) is at least 2
// radii add nothing at the cost of one comparison, and so do those whose clearance exceeds that
// probe's length and 2 radii.
#include <math.h>

#include "behaviors/walls/walls_internal.h"
#include "walls/walls_math.h"

// Speed (m/s) below which the push is bounded by what stops the approach (see force_range).
#define CS_WALL_SETTLE_SPEED 0.2

// Agents a force pass sorts into candidates at a time.
#define CS_FORCE_CHUNK 256
_Static_assert(CS_FORCE_CHUNK <= CS_WALLS_PIPE_CHUNK, "a chunk fits the pipeline");

typedef struct probe {
    double px, py, qx, qy;
    double best;   // squared distance of the nearest segment so far
    uint32_t id;   // its id
    double ux, uy; // closest point on the probe
    double wx, wy; // closest point on the wall
    cs_wall_seg seg;
} probe;

// fmin / fmax are library calls without -ffinite-math-only; every operand here is finite.
static inline double lo2(double a, double b) {
    return a < b ? a : b;
}
static inline double hi2(double a, double b) {
    return a > b ? a : b;
}

// Segments whose bounding box lies farther from the probe's than the nearest so far are skipped:
// the boxes' gap (cs_seg_box_gap2) is a lower bound of the distance, and the relative margin covers
// its rounding, so a skipped segment could neither be nearer nor tie.
static bool nearest(void* ctx, const cs_wall_seg* list, uint32_t n) {
    probe* p = ctx;
    const double x0 = lo2(p->px, p->qx), x1 = hi2(p->px, p->qx);
    const double y0 = lo2(p->py, p->qy), y1 = hi2(p->py, p->qy);
    for (uint32_t i = 0; i < n; ++i) {
        if (cs_seg_box_gap2(&list[i], x0, y0, x1, y1) > p->best * (1.0 + 1e-6)) continue;
        double ux, uy, wx, wy;
        const double d = cs_segseg_dist2(p->px, p->py, p->qx, p->qy, &list[i], &ux, &uy, &wx, &wy);
        if (d < p->best || (d == p->best && list[i].id < p->id)) {
            p->best = d, p->id = list[i].id;
            p->ux = ux, p->uy = uy, p->wx = wx, p->wy = wy;
            p->seg = list[i];
        }
    }
    return false;
}

// Which agents look for a wall (see candidates).
typedef struct candidate_test {
    bool probed; // the probe clearances say (else every agent does)
    float band;  // those below it
} candidate_test;

// The candidates of the chunk of agents from b (none past hi): every agent, or with probe
// clearances those whose probe clearance is below `band`; returns how many (a cs_walls_find_fn).
// The candidates are few and far apart, so each reads lines of its own: every column it reads or
// writes by sorted slot (where it finds its list, its index, position, velocity, clearance, force)
// is fetched here, two chunks before it is worked on.
static int candidates(const crowd_world* w, const void* arg, int b, int hi, int* cand) {
    const bool probed = ((const candidate_test*)arg)->probed;
    const float band = ((const candidate_test*)arg)->band;
    const int e = b + CS_FORCE_CHUNK < hi ? b + CS_FORCE_CHUNK : hi;
    int m = 0;
    if (!probed) {
        for (int s = b; s < e; ++s) cand[m++] = s;
        return m;
    }
    // The tests in a vector loop, then the few set flags.
    const float* restrict probe = w->wall_probe + b;
    uint8_t flag[CS_FORCE_CHUNK];
#pragma omp simd
    for (int k = 0; k < e - b; ++k) flag[k] = probe[k] < band;
    m = cs_walls_flagged(flag, e - b, b, cand);
    for (int i = 0; i < m; ++i) {
        const int s = cand[i];
        __builtin_prefetch(&w->cur.id[s]);
        __builtin_prefetch(&w->cur.px[s]);
        __builtin_prefetch(&w->cur.py[s]);
        __builtin_prefetch(&w->cur.vx[s]);
        __builtin_prefetch(&w->cur.vy[s]);
        __builtin_prefetch(&w->wall_clear[s]);
        __builtin_prefetch(&w->cur.max_force[s]);
        __builtin_prefetch(&w->force_x[s], 1);
        __builtin_prefetch(&w->force_y[s], 1);
    }
    return m;
}

static void force_range(crowd_world* w, int lo, int hi) {
    const cs_walls* g = &w->walls;
    const cs_columns c = w->cur;
    // Every agent without a record has the default look-ahead.
    const float rmax = w->radius_max, lmax = fmaxf(cs_walls_world_of(w)->look_ahead_max,
                                                   crowd_wall_def_default().look_ahead);
    // Without any wall profile every agent has the default def: no lookup.
    const uint32_t* prof = cs_hot_live(w, CS_HOT_WALL_PROFILE);
    const cs_profiles* profiles = &w->profiles[CS_PROF_WALL];
    const float band = 2.0f * rmax;
    // The clearance pass bounded each agent's longest probe (wall_probe, for probes of
    // walls.probe_time, which is lmax unless no agent has had a wall def yet): an agent whose bound
    // is at least 2 radii from every wall has nothing to look for. Otherwise the agent's own
    // clearance against the longest probe's length and the band decides.
    const bool probed = w->walls.probe_time >= lmax;
    // A chunk of agents at a time, its candidates (those whose probe clearance is below 2 radii;
    // with no probe clearance, every agent) found two chunks before, their cells' entries and
    // radii fetched one chunk before and their lists now (cs_walls_pipe).
    const candidate_test test = {probed, band};
    cs_walls_pipe pipe;
    cs_walls_pipe_start(&pipe, w, c.px, c.py, candidates, &test, lo, hi, CS_FORCE_CHUNK);
    for (int b = lo; b < hi; b += CS_FORCE_CHUNK) {
        const int* cd;
        const int m = cs_walls_pipe_next(&pipe, b, &cd);
        for (int i = 0; i < m; ++i) {
            const int s = cd[i];
            const float x = c.px[s], y = c.py[s], vx = c.vx[s], vy = c.vy[s];
            // An agent at rest has no probe and nothing to steer: the clamp keeps it clear.
            if (!(vx * vx + vy * vy >= 1e-6f)) continue;
            // The longest probe any agent may have (the largest look-ahead and radius ever set)
            // against the agent's clearance decides whether to look further; the agent's own def
            // is read only then.
            const float speed = sqrtf(vx * vx + vy * vy);
            float reach = speed * lmax + band;
            reach += reach * 1e-6f;
            if (w->wall_clear[s] >= reach) continue;
            const uint32_t idx = c.id[s];
            const crowd_wall_def* own =
                prof && prof[s] ? cs_profiles_at(profiles, prof[s] - 1) : NULL;
            const crowd_wall_def def = own ? *own : crowd_wall_def_default();
            if (!(def.weight > 0.0f)) continue;
            const float qx = x + vx * def.look_ahead, qy = y + vy * def.look_ahead;

            const double r = w->radius[idx];
            // Only a segment nearer than 2 r pushes: starting from that bound rather than infinity
            // gives the same nearest one when there is one (a tie at the bound keeps best at 4 r r,
            // which pushes nothing either way) and lets nearest() skip the far segments.
            probe p = {.px = x, .py = y, .qx = qx, .qy = qy, .best = 4.0 * r * r, .id = UINT32_MAX};
            if (reach <= cs_walls_reach(g, x, y)) {
                const cs_wall_ref list = cs_walls_list_at(g, x, y);
                nearest(&p, g->segs + list.start, list.count);
            } else {
                const float lx = x + vx * lmax, ly = y + vy * lmax;
                cs_walls_visit(g,
                               cs_walls_box(g, fminf(x, lx) - band, fminf(y, ly) - band,
                                            fmaxf(x, lx) + band, fmaxf(y, ly) + band),
                               nearest, &p);
            }
            if (!(p.best < 4.0 * r * r)) continue;
            const double d = sqrt(p.best);
            double nx, ny;
            if (d > 1e-9) {
                nx = (p.ux - p.wx) / d, ny = (p.uy - p.wy) / d;
            } else { // the probe reaches the wall: its normal, on the agent's side
                const double ex = (double)p.seg.bx - p.seg.ax, ey = (double)p.seg.by - p.seg.ay;
                const double l = sqrt(ex * ex + ey * ey);
                nx = -ey / l, ny = ex / l;
                double side = (x - p.seg.ax) * nx + (y - p.seg.ay) * ny;
                if (side == 0.0) side = -(vx * nx + vy * ny);
                if (side < 0.0) nx = -nx, ny = -ny;
            }
            // Scaled by how squarely the agent heads into the wall; nothing when it heads away.
            const double sp = sqrt((double)vx * vx + (double)vy * vy);
            const double hx = vx / sp, hy = vy / sp, along = nx * hx + ny * hy;
            if (along >= 0.0) continue;
            nx *= -along, ny *= -along;
            double k = (2.0 * r - d) / r;
            k = k > 1.0 ? 1.0 : k;
            // A slow agent (pressed against the wall by a crowd, or settling at a goal by it) gets
            // at most what stops its approach within the tick (the speed into the wall / dt), so
            // it settles instead of bouncing off the wall; the bound grows with the speed beyond
            // CS_WALL_SETTLE_SPEED, so a walking agent is turned as before.
            double fk = k * c.max_force[s] * def.weight;
            const double settle = sp > CS_WALL_SETTLE_SPEED ? sp / CS_WALL_SETTLE_SPEED : 1.0;
            const double stop = -along * sp / w->dt * settle;
            fk = fk < stop ? fk : stop;
            const float f = (float)fk;
            w->force_x[s] += (float)nx * f;
            w->force_y[s] += (float)ny * f;
        }
    }
}

static uint64_t force_chunk(void* arg, int lo, int hi) {
    force_range(arg, lo, hi);
    return 0;
}

// Candidates gather beside walls, so a thread done with its share helps with the others'
// (cs_team_run_chunks): an agent's force does not depend on its chunk.
void cs_pass_walls(crowd_world* w) {
    if (w->walls.live == 0) return;
    cs_team_run_chunks(w->threads, w->count, CS_LANES, force_chunk, w);
}
