// The move clamp (CROWD_PHASE_CLAMP): after the integration, every agent's move is checked
// against the wall segments it sweeps and, where it meets one, cut at the contact and slid along
// the wall (cs_wall_slide). This is what guarantees that no disc overlaps or crosses a wall, at
// any speed and dt, whatever the forces did.
//
// It runs after the integration, so w->alt holds where each agent was (the step's input) and
// w->cur where the integration put it. An agent reads only its own two positions and the static
// grid, so the result cannot depend on the thread count, and the slide takes the earliest contact
// with ties to the lowest segment id, so it does not depend on the order of the segment lists
// either.
//
// An agent whose clearance (wall_clear, from the clearance pass cs_pass_clearance or the neighbor
// pass's chunks, src/walls/walls_clearance.c) exceeds the longest move of the step plus the
// largest radius (hit_bound) keeps the integration's result bit for bit at the cost of one
// comparison; one whose move fits in its cell list's reach sweeps that one list.
// An agent that met a wall gets the velocity of the move it made and a heading from it by the
// integration's rule (cs_steer_heading).
#include <math.h>

#include "behaviors/walls/walls_internal.h"
#include "core/range.h"
#include "steer/steer_math.h"
#include "walls/walls_math.h"

// Where a move's segments are: one cell's list (a move within that list's reach) or a box.
typedef struct sweep_ctx {
    const cs_walls* g;
    const cs_wall_seg* list; // NULL: the box
    uint32_t n;
    cs_wall_box box;
} sweep_ctx;

static bool visit_ctx(const sweep_ctx* c, cs_wall_list_fn* fn, void* arg) {
    return c->list ? fn(arg, c->list, c->n) : cs_walls_visit(c->g, c->box, fn, arg);
}

typedef struct list_sweep {
    double px, py, dx, dy, R;
    cs_hit* best;
} list_sweep;

static bool sweep_cell(void* ctx, const cs_wall_seg* list, uint32_t n) {
    const list_sweep* q = ctx;
    cs_sweep_list(list, n, q->px, q->py, q->dx, q->dy, q->R, q->best);
    return false;
}

static void sweep_grid(void* ctx, double px, double py, double dx, double dy, double R,
                       cs_hit* best) {
    list_sweep q = {px, py, dx, dy, R, best};
    visit_ctx(ctx, sweep_cell, &q);
}

typedef struct clear_q {
    double x, y, r2;
} clear_q;

static bool too_close(void* ctx, const cs_wall_seg* list, uint32_t n) {
    const clear_q* q = ctx;
    for (uint32_t i = 0; i < n; ++i) {
        double cx, cy;
        if (cs_seg_dist2(&list[i], q->x, q->y, &cx, &cy) < q->r2) return true;
    }
    return false;
}

// The skin the slide keeps between a disc and a wall, on top of its radius: more than the
// rounding of the end point to float (half a unit in the last place of each coordinate), so the
// stored position is still at least a radius away.
static double skin(double x, double y, double dx, double dy) {
    const double m = fabs(x) + fabs(y) + fabs(dx) + fabs(dy);
    return 1e-4 + m * 0x1p-21;
}

// The reach of the move of an agent from (x0, y0) to (x1, y1): its length and skin plus the
// largest radius, widened for rounding.
static inline float move_reach(float x0, float y0, float x1, float y1, float rmax) {
    const double dx = (double)x1 - x0, dy = (double)y1 - y0;
    const double len = sqrt(dx * dx + dy * dy);
    float reach = (float)(len + skin(x0, y0, dx, dy)) + rmax;
    return reach + reach * 1e-6f;
}

// The move of sorted slot s, which has a wall within its reach. Returns the length of the move it
// made, when it changed it (else 0: the integration's stands).
static float clamp_agent(crowd_world* w, int s) {
    const cs_walls* g = &w->walls;
    const cs_columns old = w->alt, c = w->cur;
    const float rmax = w->radius_max, dt = w->dt;
    const float x0 = old.px[s], y0 = old.py[s];
    const double dx = (double)c.px[s] - x0, dy = (double)c.py[s] - y0;
    const double sk = skin(x0, y0, dx, dy);
    const float reach = move_reach(x0, y0, c.px[s], c.py[s], rmax);
    sweep_ctx ctx = {.g = g};
    if (reach <= cs_walls_reach(g, x0, y0)) {
        const cs_wall_ref list = cs_walls_list_at(g, x0, y0);
        ctx.list = g->segs + list.start, ctx.n = list.count;
    } else {
        ctx.box = cs_walls_box(g, x0 - reach, y0 - reach, x0 + reach, y0 + reach);
    }

    const double r = w->radius[c.id[s]];
    double x = x0, y = y0;
    if (!cs_wall_slide(sweep_grid, &ctx, &x, &y, dx, dy, r + sk)) return 0.0f;
    // Within the plane's bounds like every position (a slide may turn toward them); the check
    // below still holds the agent back if that would put it in a wall.
    float fx = cs_clamp_coord((float)x), fy = cs_clamp_coord((float)y);
    // The rounded end point must still be a radius clear of every wall; if rounding ever
    // broke that, the agent stays where it was, which was clear.
    clear_q q = {fx, fy, r * r};
    if (visit_ctx(&ctx, too_close, &q)) fx = x0, fy = y0;
    c.px[s] = fx;
    c.py[s] = fy;
    const crowd_vec2 v = {(fx - x0) / dt, (fy - y0) / dt};
    c.vx[s] = v.x;
    c.vy[s] = v.y;
    const crowd_vec2 h = cs_steer_heading(v, (crowd_vec2){old.hx[s], old.hy[s]});
    c.hx[s] = h.x;
    c.hy[s] = h.y;
    const double mx = (double)fx - x0, my = (double)fy - y0;
    return (float)sqrt(mx * mx + my * my);
}

// Agents whose moves are checked together: a vectorized loop finds those with a wall within their
// move's reach (few: most agents are farther from every wall than one step), and only these are
// worked on.
#define CS_CLAMP_CHUNK 512
_Static_assert(CS_CLAMP_CHUNK <= CS_WALLS_PIPE_CHUNK, "a chunk fits the pipeline");

// The reach every agent's move has at most: the longest move of the integration (since_sort.moved,
// the largest speed times dt, raised since the sort by the integration alone), a bound of every
// position's |x| + |y| from the sort's occupied cells, and the largest radius, in move_reach's
// form. Each factor and term is well above the rounding between a velocity times dt and the
// positions' difference, so every agent whose own move_reach exceeds its clearance is found.
// Checking every agent against this one bound reads its clearance alone, where its own reach read
// four position columns besides: a fifth of the memory the pass sweeps, for a few more agents
// checked exactly (the last step's moves differ little from the fastest).
static float hit_bound(const crowd_world* w) {
    float moved;
    memcpy(&moved, &w->since_sort.moved, sizeof moved);
    const cs_grid* g = &w->grid;
    const double cell = 1.0 / g->inv_cell;
    const double ax = fmax(fabs((double)g->min_cx), fabs((double)g->max_cx + 1.0)) * cell;
    const double ay = fmax(fabs((double)g->min_cy), fabs((double)g->max_cy + 1.0)) * cell;
    // (cell coordinates clamped at the plane's edge say nothing: the world's bound instead)
    const bool clamped = fmax(ax, ay) * g->inv_cell >= (double)CS_CELL_CLAMP;
    const double a = clamped ? 2.0 * CROWD_MAX_COORD : (ax + ay) * 1.001;
    const double len = moved * 1.0001 + a * 0x1p-20;
    const double sk = 1e-4 + (a + 2.0 * len) * 0x1p-21;
    return (float)((len + sk + w->radius_max) * 1.0001 + 1e-5);
}

// The slots of the chunk from b (none past hi) whose clearance is below *bound (hit_bound): a
// wall within reach; returns how many (a cs_walls_find_fn). Each is far from the others, so the
// lines of its columns are fetched here, two chunks before it is worked on.
static int hits(const crowd_world* w, const void* arg, int b, int hi, int* slot) {
    const float bound = *(const float*)arg;
    const int n = hi - b < CS_CLAMP_CHUNK ? hi - b : CS_CLAMP_CHUNK;
    if (n <= 0) return 0;
    const float* restrict clear = w->wall_clear + b;
    uint8_t hit[CS_CLAMP_CHUNK];
#pragma omp simd
    for (int k = 0; k < n; ++k) hit[k] = clear[k] < bound;
    const int m = cs_walls_flagged(hit, n, b, slot);
    for (int i = 0; i < m; ++i) {
        const int s = slot[i];
        __builtin_prefetch(&w->cur.id[s]);
        __builtin_prefetch(&w->alt.px[s]);
        __builtin_prefetch(&w->alt.py[s]);
        __builtin_prefetch(&w->alt.hx[s]);
        __builtin_prefetch(&w->alt.hy[s]);
        __builtin_prefetch(&w->cur.px[s], 1);
        __builtin_prefetch(&w->cur.py[s], 1);
        __builtin_prefetch(&w->cur.vx[s], 1);
        __builtin_prefetch(&w->cur.vy[s], 1);
    }
    return m;
}

// A chunk at a time: its hits were found (and their columns fetched) two chunks before, their
// radii (by agent index) and cells' entries one chunk before and their lists now (cs_walls_pipe).
// The longest move a slide made goes to since_sort.moved (crowd_world.since_sort): a slide is never
// longer than the integration's move, but the bound the obstacle add relies on is measured rather
// than argued.
static void clamp_range(crowd_world* w, float bound, int lo, int hi) {
    cs_walls_pipe pipe;
    cs_walls_pipe_start(&pipe, w, w->alt.px, w->alt.py, hits, &bound, lo, hi, CS_CLAMP_CHUNK);
    float moved = 0.0f;
    for (int b = lo; b < hi; b += CS_CLAMP_CHUNK) {
        const int* sl;
        const int m = cs_walls_pipe_next(&pipe, b, &sl);
        for (int i = 0; i < m; ++i) {
            const float d = clamp_agent(w, sl[i]);
            moved = d > moved ? d : moved;
        }
    }
    cs_grid_since_moved(w, moved);
}

typedef struct clamp_ctx {
    crowd_world* w;
    float bound; // hit_bound
} clamp_ctx;

static uint64_t clamp_chunk(void* arg, int lo, int hi) {
    const clamp_ctx* c = arg;
    clamp_range(c->w, c->bound, lo, hi);
    return 0;
}

// Hits gather beside walls, so a thread done with its share helps with the others'
// (cs_team_run_chunks): an agent's move does not depend on its chunk.
void cs_pass_clamp(crowd_world* w) {
    if (w->walls.live == 0 || w->count == 0) return;
    clamp_ctx c = {w, hit_bound(w)};
    cs_team_run_chunks(w->threads, w->count, CS_LANES, clamp_chunk, &c);
}
