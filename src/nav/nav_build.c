// Building one field: a Dijkstra search from the destination over the FREE cells, in which a cell
// takes over its neighbor's anchor when it sees that anchor (so its distance is the straight
// line to it), else takes the neighbor itself as its corner.
//
// "Sees" is decided first locally, from the one or two cells the straight line to the anchor
// enters first: each must be FREE and either be the anchor or already carry it (final). Those
// cells lie nearer the anchor along the line, so they are settled before the cell is, and by
// induction the line from every cell to its anchor runs through cells that see the anchor. That
// is the "line-of-sight pass" of grid flow fields folded into the search. Where two anchors'
// regions meet, those cells carry another anchor though the line is clear: there the whole line
// is walked (walk_sees), so open ground gives straight lines in every direction and a corner
// appears only where a wall stands in the line.
//
// Then two passes that only some fields need: walled-off regions get a stand-in destination
// each (their cell nearest the destination, anchored to itself), and the NEAR cells by the walls
// (where routes do not go, but where the crowd may push an agent) point to the nearest FREE cell
// on their side of the wall.
//
// Every order in here is fixed (the heap breaks ties by cell index), so a field depends on
// nothing but the grid, the walls and its destination.
#include <float.h>
#include <string.h>

#include "core/internal.h"
#include "nav/nav.h"

typedef struct build {
    const cs_nav* nav;
    const cs_walls* walls;
    const uint8_t* blocked;
    uint32_t* anchor;
    float* g;
    uint64_t* heap;
    uint32_t* pos;
    uint8_t* closed;
    uint32_t hn;
    int32_t gw, gh;
    float h;
    double ox, oy;                         // the grid's lower left corner (world coordinates)
    crowd_vec2 tp[CROWD_EXITS_MAX_POINTS]; // targets, in grid coordinates (metres from ox, oy)
    int tn;
} build;

// Heap entries carry their key: the distance's bits (a non-negative float orders as its bits do)
// above the cell index, so that comparing two entries reads neither g nor anything else, and the
// order is (distance, index) exactly.
static inline uint64_t key_of(const build* b, uint32_t c) {
    uint32_t bits;
    memcpy(&bits, &b->g[c], sizeof bits);
    return (uint64_t)bits << 32 | c;
}

static inline void sift_up(build* b, uint32_t k, uint64_t e) {
    while (k > 0) {
        const uint32_t p = (k - 1) / 2;
        if (b->heap[p] <= e) break;
        b->heap[k] = b->heap[p];
        b->pos[(uint32_t)b->heap[k]] = k + 1;
        k = p;
    }
    b->heap[k] = e;
    b->pos[(uint32_t)e] = k + 1;
}

static inline void sift_down(build* b, uint32_t k, uint64_t e) {
    for (;;) {
        uint32_t l = 2 * k + 1;
        if (l >= b->hn) break;
        if (l + 1 < b->hn && b->heap[l + 1] < b->heap[l]) ++l;
        if (b->heap[l] >= e) break;
        b->heap[k] = b->heap[l];
        b->pos[(uint32_t)b->heap[k]] = k + 1;
        k = l;
    }
    b->heap[k] = e;
    b->pos[(uint32_t)e] = k + 1;
}

// Cell c's distance fell (or it is new): its entry moves up.
static inline void heap_update(build* b, uint32_t c) {
    const uint64_t e = key_of(b, c);
    if (b->pos[c] == 0)
        sift_up(b, b->hn++, e);
    else
        sift_up(b, b->pos[c] - 1, e);
}

static inline uint32_t heap_pop(build* b) {
    const uint32_t top = (uint32_t)b->heap[0];
    b->pos[top] = 0;
    if (--b->hn > 0) sift_down(b, 0, b->heap[b->hn]);
    return top;
}

static inline crowd_vec2 center(const build* b, uint32_t c) {
    return (crowd_vec2){((float)(c % (uint32_t)b->gw) + 0.5f) * b->h,
                        ((float)(c / (uint32_t)b->gw) + 0.5f) * b->h};
}

static inline crowd_vec2 anchor_point(const build* b, uint32_t a) {
    return a >= CS_NAV_TARGET ? b->tp[a - CS_NAV_TARGET] : center(b, a);
}

static inline float dist(crowd_vec2 p, crowd_vec2 q) {
    const float dx = p.x - q.x, dy = p.y - q.y;
    return sqrtf(dx * dx + dy * dy);
}

static inline bool free_at(const build* b, int32_t i, int32_t j) {
    return i >= 0 && j >= 0 && i < b->gw && j < b->gh &&
           b->blocked[(size_t)j * (size_t)b->gw + (size_t)i] == CS_NAV_FREE;
}

// Whether bracket cell (i, j) lets the line to anchor a through: outside the grid (open ground:
// only a border cell's line leaves it), or FREE and the anchor itself or settled with it.
static inline bool passes(const build* b, int32_t i, int32_t j, uint32_t a) {
    if (i < 0 || j < 0 || i >= b->gw || j >= b->gh) return true;
    const uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)i;
    return b->blocked[c] == CS_NAV_FREE && (c == a || (b->closed[c] && b->anchor[c] == a));
}

// Most cells the walk toward an anchor (walk_sees) visits: the length of sight it can confirm.
#define NAV_WALK 256

// Whether cell (i, j) sees the anchor a at (au, av) (cell units) along the whole line: a grid
// traversal (Amanatides and Woo: the next cell is across whichever cell border the line meets
// first; a line through a cell corner needs both cells beside the corner FREE) through FREE cells
// to the anchor's cell or out of the grid (open ground); where it passes a cell that is not open
// (nav->open: next to a NEAR cell) the line itself is checked against the walls: it must keep
// half the clearance from every wall segment. Exact where the local test of
// sees() is not, and dearer: it runs only where that test fails, which is mostly where two
// anchors' regions meet and along shadows' edges (where it stops at the first blocked cell).
static bool walk_sees(const build* b, int32_t i0, int32_t j0, uint32_t a, float au, float av) {
    const float u = au - (float)i0, v = av - (float)j0;
    const int32_t sx = u > 0.0f ? 1 : -1, sy = v > 0.0f ? 1 : -1;
    const float du = u != 0.0f ? 1.0f / fabsf(u) : INFINITY;
    const float dv = v != 0.0f ? 1.0f / fabsf(v) : INFINITY;
    float tu = 0.5f * du, tv = 0.5f * dv; // the line's parameter at the next border in x, in y
    int32_t i = i0, j = j0;
    bool reached = false, near_walls = !b->nav->open[(uint32_t)j0 * (uint32_t)b->gw + (uint32_t)i0];
    for (int step = 0; step < NAV_WALK && !reached; ++step) {
        if (tu >= 1.0f && tv >= 1.0f) {
            reached = true; // (i, j) holds the anchor's point
            break;
        }
        if (tu < tv) {
            i += sx, tu += du;
        } else if (tv < tu) {
            j += sy, tv += dv;
        } else {
            if (!free_at(b, i + sx, j) || !free_at(b, i, j + sy)) return false;
            i += sx, j += sy, tu += du, tv += dv;
        }
        if (i < 0 || j < 0 || i >= b->gw || j >= b->gh) {
            reached = true;
            break;
        }
        const uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)i;
        if (b->blocked[c] != CS_NAV_FREE) return false;
        near_walls |= !b->nav->open[c];
    }
    if (!reached) return false;
    if (!near_walls) return true; // a cell's breadth of FREE cells on either side all along
    const crowd_vec2 p = center(b, (uint32_t)j0 * (uint32_t)b->gw + (uint32_t)i0);
    const crowd_vec2 q = anchor_point(b, a);
    return !cs_walls_near_line(b->walls, (float)(b->ox + p.x), (float)(b->oy + p.y),
                               (float)(b->ox + q.x), (float)(b->oy + q.y),
                               0.5f * b->nav->def.clearance);
}

// Whether cell (i, j) sees anchor a (see the top of the file), the anchor at (au, av) in cell
// units (its point / cell size - 0.5: a cell centre's are its integer coordinates): the one or two
// cells the line enters first carry it, or else (where two anchors' regions meet, so those cells
// carry another) the whole line is clear (walk_sees).
static inline bool sees(const build* b, int32_t i, int32_t j, uint32_t a, float au, float av) {
    const float u = au - (float)i, v = av - (float)j;
    const float fu = fabsf(u), fv = fabsf(v);
    if (fu <= 0.5f && fv <= 0.5f) return true; // the anchor is in this very cell
    const int32_t sx = u > 0.0f ? 1 : (u < 0.0f ? -1 : 0), sy = v > 0.0f ? 1 : (v < 0.0f ? -1 : 0);
    bool near;
    if (fu == fv) // through the corner: the diagonal cell, and room on both sides
        near = passes(b, i + sx, j + sy, a) && free_at(b, i + sx, j) && free_at(b, i, j + sy);
    else if (fu > fv)
        near = passes(b, i + sx, j, a) && (sy == 0 || passes(b, i + sx, j + sy, a));
    else
        near = passes(b, i, j + sy, a) && (sx == 0 || passes(b, i + sx, j + sy, a));
    return near || walk_sees(b, i, j, a, au, av);
}

// The cell a step (di, dj) from cell (i, j) leads to when the search may take it (FREE, not
// settled; a diagonal step also needs both cells beside it FREE), else CS_NAV_NONE.
static inline uint32_t step_to(const build* b, int32_t i, int32_t j, int32_t di, int32_t dj) {
    if ((di | dj) == 0 || !free_at(b, i + di, j + dj)) return CS_NAV_NONE;
    if (di && dj && !(free_at(b, i + di, j) && free_at(b, i, j + dj))) return CS_NAV_NONE;
    const uint32_t m = (uint32_t)(j + dj) * (uint32_t)b->gw + (uint32_t)(i + di);
    return b->closed[m] ? CS_NAV_NONE : m;
}

static inline void offer(build* b, uint32_t c, float g, uint32_t a) {
    if (g < b->g[c]) {
        b->g[c] = g;
        b->anchor[c] = a;
        heap_update(b, c);
    }
}

// The search over FREE cells from whatever the heap holds.
static void search(build* b) {
    const float h = b->h, diag = b->h * 1.41421356f;
    while (b->hn > 0) {
        const uint32_t c = heap_pop(b);
        b->closed[c] = 1;
        const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
        const uint32_t a = b->anchor[c];
        const crowd_vec2 pa = anchor_point(b, a);
        const float au = pa.x / b->h - 0.5f, av = pa.y / b->h - 0.5f;
        const float ga = a >= CS_NAV_TARGET ? 0.0f : b->g[a];
        for (int32_t dj = -1; dj <= 1; ++dj)
            for (int32_t di = -1; di <= 1; ++di) {
                const uint32_t m = step_to(b, i, j, di, dj);
                if (m == CS_NAV_NONE) continue;
                // Through c's anchor is never longer than through c (the triangle inequality):
                // when even that does not improve on what m has, neither can, and the sight
                // test is skipped.
                const float through = ga + dist(center(b, m), pa);
                if (!(through < b->g[m])) continue;
                if (sees(b, i + di, j + dj, a, au, av))
                    offer(b, m, through, a);
                else
                    offer(b, m, b->g[c] + (di && dj ? diag : h), c);
            }
    }
}

// Squared distance from cell c to the nearest target.
static float target_d2(const build* b, uint32_t c) {
    const crowd_vec2 p = center(b, c);
    float best = FLT_MAX;
    for (int k = 0; k < b->tn; ++k) {
        const float dx = p.x - b->tp[k].x, dy = p.y - b->tp[k].y;
        const float d = dx * dx + dy * dy;
        best = d < best ? d : best;
    }
    return best;
}

// Each region of FREE cells the search did not reach gets a stand-in: its cell nearest a target
// (the lowest index among equals), anchored to itself, from which a second search runs. A
// breadth-first walk labels each region (closed = 2 while labelling; the queue is the heap's
// array, empty here).
static bool stand_ins(build* b) {
    bool any = false;
    const uint32_t n = (uint32_t)b->gw * (uint32_t)b->gh;
    uint32_t* q = (uint32_t*)b->heap; // twice the room it needs
    for (uint32_t s = 0; s < n; ++s) {
        if (b->blocked[s] != CS_NAV_FREE || b->closed[s] || b->g[s] < FLT_MAX) continue;
        any = true;
        uint32_t head = 0, tail = 0, best = s;
        float best_d = target_d2(b, s);
        q[tail++] = s;
        b->closed[s] = 2;
        while (head < tail) {
            const uint32_t c = q[head++];
            const float d = target_d2(b, c);
            if (d < best_d || (d == best_d && c < best)) best = c, best_d = d;
            const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
            for (int32_t dj = -1; dj <= 1; ++dj)
                for (int32_t di = -1; di <= 1; ++di) {
                    const uint32_t m = step_to(b, i, j, di, dj);
                    if (m == CS_NAV_NONE) continue;
                    b->closed[m] = 2;
                    q[tail++] = m;
                }
        }
        // Stand-ins are seeded after every region is labelled (the heap's array is the queue).
        b->g[best] = -1.0f; // marked; seeded below
    }
    if (!any) return false;
    for (uint32_t c = 0; c < n; ++c) {
        if (b->closed[c] == 2) b->closed[c] = 0;
        if (b->g[c] == -1.0f) {
            b->g[c] = FLT_MAX;
            offer(b, c, 0.0f, c);
        }
    }
    return true;
}

// Marks every anchor that is a stand-in (a cell anchored to itself) with CS_NAV_STAND_IN: the
// stand-ins first (closed = 3; the build is done with it), then every cell anchored to one.
static void mark_stand_ins(build* b) {
    const uint32_t n = (uint32_t)b->gw * (uint32_t)b->gh;
    for (uint32_t c = 0; c < n; ++c)
        if (b->anchor[c] == c) b->closed[c] = 3;
    for (uint32_t c = 0; c < n; ++c) {
        const uint32_t a = b->anchor[c];
        if (a < CS_NAV_TARGET && b->closed[a] == 3) b->anchor[c] = a | CS_NAV_STAND_IN;
    }
}

// The best neighbor a NEAR cell c can point to: of its four neighbors that are settled (FREE and
// reached, or NEAR and pointed in an earlier ring), the nearest the destination (the lowest index
// among equals) whose centre c sees across no wall; CS_NAV_NONE when there is none.
static uint32_t near_anchor(const build* b, uint32_t c) {
    static const int32_t dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
    uint32_t cand[4];
    int n = 0;
    for (int k = 0; k < 4; ++k) {
        const int32_t x = i + dirs[k][0], y = j + dirs[k][1];
        if (x < 0 || y < 0 || x >= b->gw || y >= b->gh) continue;
        const uint32_t m = (uint32_t)y * (uint32_t)b->gw + (uint32_t)x;
        if (b->closed[m] == 1 && b->g[m] < FLT_MAX) cand[n++] = m;
    }
    // Nearest first (insertion sort of at most four).
    for (int p = 1; p < n; ++p)
        for (int q = p; q > 0 && (b->g[cand[q]] < b->g[cand[q - 1]] ||
                                  (b->g[cand[q]] == b->g[cand[q - 1]] && cand[q] < cand[q - 1]));
             --q) {
            const uint32_t t = cand[q];
            cand[q] = cand[q - 1];
            cand[q - 1] = t;
        }
    const crowd_vec2 pc = center(b, c);
    for (int k = 0; k < n; ++k) {
        const crowd_vec2 pm = center(b, cand[k]);
        if (!cs_walls_crossed(b->walls, (float)(b->ox + pc.x), (float)(b->oy + pc.y),
                              (float)(b->ox + pm.x), (float)(b->oy + pm.y)))
            return cand[k];
    }
    return CS_NAV_NONE;
}

// NEAR cells, ring by ring out of the walkable ground: a cell of the first ring borders a reached
// FREE cell, one of the next borders a cell of the ring before; each points to its best neighbor
// (near_anchor), decided from the earlier rings only, so the order within a ring does not matter.
// The rings are lists in the heap's array (empty here): this ring's cells in the first half,
// the next ring's in the second.
static void near_cells(build* b) {
    static const int32_t dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    const uint32_t n = (uint32_t)b->gw * (uint32_t)b->gh;
    uint32_t* ring = (uint32_t*)b->heap;
    uint32_t* next = ring + n;
    uint32_t len = 0;
    for (uint32_t c = 0; c < n; ++c) {
        if (b->blocked[c] != CS_NAV_NEAR) continue;
        const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
        for (int k = 0; k < 4; ++k) {
            const int32_t x = i + dirs[k][0], y = j + dirs[k][1];
            if (free_at(b, x, y) && b->closed[(uint32_t)y * (uint32_t)b->gw + (uint32_t)x]) {
                ring[len++] = c;
                b->closed[c] = 2; // queued
                break;
            }
        }
    }
    while (len > 0) {
        // Decide the whole ring, then settle it.
        for (uint32_t k = 0; k < len; ++k) b->anchor[ring[k]] = near_anchor(b, ring[k]);
        for (uint32_t k = 0; k < len; ++k) {
            const uint32_t c = ring[k], a = b->anchor[c];
            b->closed[c] = a == CS_NAV_NONE ? 0 : 1;
            if (a != CS_NAV_NONE) b->g[c] = b->g[a] + b->h;
        }
        uint32_t nlen = 0;
        for (uint32_t k = 0; k < len; ++k) {
            const uint32_t c = ring[k];
            if (b->closed[c] != 1) continue;
            const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
            for (int d = 0; d < 4; ++d) {
                const int32_t x = i + dirs[d][0], y = j + dirs[d][1];
                if (x < 0 || y < 0 || x >= b->gw || y >= b->gh) continue;
                const uint32_t m = (uint32_t)y * (uint32_t)b->gw + (uint32_t)x;
                if (b->blocked[m] != CS_NAV_NEAR || b->closed[m]) continue;
                b->closed[m] = 2;
                next[nlen++] = m;
            }
        }
        uint32_t* t = ring;
        ring = next;
        next = t;
        len = nlen;
    }
}

// Seeds of target k at grid point t: its cell when FREE; else the FREE cells around it that see
// it across no wall (a goal within the clearance of a wall); a target outside the grid, every
// FREE border cell.
static void seed_target(build* b, int k) {
    const crowd_vec2 t = b->tp[k];
    const uint32_t a = CS_NAV_TARGET + (uint32_t)k;
    const float fi = floorf(t.x / b->h), fj = floorf(t.y / b->h);
    if (fi < 0.0f || fj < 0.0f || fi >= (float)b->gw || fj >= (float)b->gh) {
        // A border cell on a side that faces the target: its line leaves the grid at once.
        for (int32_t j = 0; j < b->gh; ++j)
            for (int32_t i = 0; i < b->gw; ++i) {
                const bool faces = (i == 0 && fi < 0.0f) || (j == 0 && fj < 0.0f) ||
                                   (i == b->gw - 1 && fi >= (float)b->gw) ||
                                   (j == b->gh - 1 && fj >= (float)b->gh);
                if (!faces || !free_at(b, i, j)) continue;
                const uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)i;
                offer(b, c, dist(center(b, c), t), a);
            }
        return;
    }
    const int32_t ti = (int32_t)fi, tj = (int32_t)fj;
    if (free_at(b, ti, tj)) {
        const uint32_t c = (uint32_t)tj * (uint32_t)b->gw + (uint32_t)ti;
        offer(b, c, dist(center(b, c), t), a);
        return;
    }
    const int32_t r = (int32_t)ceilf(b->nav->def.clearance / b->h) + 2;
    for (int32_t j = tj - r; j <= tj + r; ++j)
        for (int32_t i = ti - r; i <= ti + r; ++i) {
            if (!free_at(b, i, j)) continue;
            const uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)i;
            const crowd_vec2 p = center(b, c);
            if (cs_walls_crossed(b->walls, (float)(b->ox + p.x), (float)(b->oy + p.y),
                                 (float)(b->ox + t.x), (float)(b->oy + t.y)))
                continue;
            offer(b, c, dist(p, t), a);
        }
}

void cs_nav_build(const crowd_world* w, const cs_nav* nav, cs_nav_key key, uint32_t* anchor,
                  cs_nav_scratch* s) {
    build local;
    build* b = &local;
    *b = (build){.nav = nav,
                 .walls = &w->walls,
                 .blocked = nav->blocked,
                 .anchor = anchor,
                 .g = s->g,
                 .heap = s->heap,
                 .pos = s->pos,
                 .closed = s->closed,
                 .gw = nav->gw,
                 .gh = nav->gh,
                 .h = nav->def.cell_size,
                 .ox = (double)nav->gx0 * nav->def.cell_size,
                 .oy = (double)nav->gy0 * nav->def.cell_size};
    const size_t n = nav->cells;
    for (size_t c = 0; c < n; ++c) {
        anchor[c] = CS_NAV_NONE;
        b->g[c] = FLT_MAX;
    }
    memset(b->pos, 0, n * sizeof *b->pos);
    memset(b->closed, 0, n);
    const cs_nav_targets t = cs_nav_targets_of(nav, key);
    b->tn = t.count;
    for (int k = 0; k < t.count; ++k)
        b->tp[k] = (crowd_vec2){(float)((double)cs_nav_target(&t, k).x - b->ox),
                                (float)((double)cs_nav_target(&t, k).y - b->oy)};
    for (int k = 0; k < t.count; ++k) seed_target(b, k);
    search(b);
    const bool walled_off = stand_ins(b);
    if (walled_off) search(b);
    near_cells(b);
    if (walled_off) mark_stand_ins(b);
}
