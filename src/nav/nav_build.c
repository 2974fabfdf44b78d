// Building one field: a Dijkstra search from the destination over the FREE cells, in which a cell
// takes over its neighbor's anchor when it sees that anchor (so its distance is the straight
// line to it), else takes a neighbor itself as its corner.
//
// A settled cell offers each neighbor its anchor at the straight line's distance as a candidate
// (TENTATIVE), and whether the neighbor sees that anchor is decided only when the neighbor comes
// out of the heap with it: by then every cell nearer the anchor is settled. "Sees" is decided
// first locally, from the one or two cells the straight line to the anchor enters first: each
// must be FREE and either be the anchor or be settled with it. Those cells lie nearer the anchor
// along the line, so by induction the line from every cell to its anchor runs through cells that
// see the anchor. That is the "line-of-sight pass" of grid flow fields folded into the search.
// Where two anchors' regions meet, those cells carry another anchor though the line may be clear:
// there the whole line is walked (walk_sees), so open ground gives straight lines in every
// direction and a corner appears only where a wall stands in the line. A candidate refused goes
// back into the heap with the cell's best way from its settled neighbors (fall_back): another
// of their anchors it sees, else the step to the nearest of them, which becomes its corner.
// (Testing at the offer instead, when the second of those cells is mostly not settled yet, sent
// nine tests in ten to the whole-line walk.)
//
// The heap holds (distance bits, cell index) keys, and a cell whose distance falls is pushed
// again (the old entry is dropped when it comes out). The whole-line walk checks the line against
// the walls only where it passes a cell by a NEAR one, and most wall segments there are ruled out
// by two products each before the exact distance (cs_near_list).
//
// Then two passes that only some fields need: walled-off regions get a stand-in destination
// each (their cell nearest the destination, anchored to itself), and the NEAR cells by the walls
// (where routes do not go, but where the crowd may push an agent) point to the nearest FREE cell
// on their side of the wall.
//
// Every order in here is fixed (the heap breaks ties by cell index, the candidates of a cell by
// distance and anchor), so a field depends on nothing but the grid, the walls and its
// destination.
#include <float.h>
#include <string.h>

#include "core/internal.h"
#include "nav/nav.h"
#include "nav/nav_search.h"
#include "walls/walls_math.h"

// A cell's state in `closed`: 0 not settled, 1 settled, TENTATIVE while its distance is a sight
// candidate not yet verified (see search); KEPT marks a cell while the heap is compacted; 2 and 3
// mark cells in the passes after the search.
#define TENTATIVE 4
#define KEPT 8
// A repair's settled cell that took a shorter way (reopen_offer) and waits in the heap: further
// offers to it are decided as for a settled cell, never as a TENTATIVE candidate, since cells
// anchored at it may be settled (a candidate through them would make a loop).
#define REOPENED 64

typedef cs_nav_search build;

// Heap entries carry their key: the distance's bits (a non-negative float orders as its bits do)
// above the cell index, so that comparing two entries reads neither g nor anything else, and the
// order is (distance, index) exactly. A cell whose distance falls is pushed again rather than
// moved: the entry it leaves behind is stale (its key is no longer the cell's, or the cell is
// settled) and is dropped when it comes out. That spares the search an index of every cell's
// place in the heap, whose writes went all over the grid.
static inline uint64_t key_of(const build* b, uint32_t c) {
    uint32_t bits;
    memcpy(&bits, &b->g[c], sizeof bits);
    return (uint64_t)bits << 32 | c;
}

static void heap_push(build* b, uint64_t e);

// Drops the stale entries (and a second entry of the same key) and orders the rest as a heap
// again: when the heap's array is full. At most one entry per cell is left, and the cell being
// pushed has none (its distance has just changed), so the push finds room.
static void heap_compact(build* b) {
    uint32_t k = 0;
    const uint32_t hn = b->hn;
    for (uint32_t r = 0; r < hn; ++r) {
        const uint64_t e = b->heap[r];
        const uint32_t c = (uint32_t)e;
        if ((b->closed[c] & (1 | KEPT)) || e != key_of(b, c)) continue;
        b->closed[c] |= KEPT;
        b->heap[k++] = e;
    }
    b->hn = 0;
    for (uint32_t r = 0; r < k; ++r) {
        const uint64_t e = b->heap[r];
        b->closed[(uint32_t)e] &= (uint8_t)~KEPT;
        heap_push(b, e);
    }
}

// Entry e rises from place k to where it belongs.
static inline void heap_rise(uint64_t* restrict h, uint32_t k, uint64_t e) {
    while (k > 0) {
        const uint32_t p = (k - 1) / 4;
        if (h[p] <= e) break;
        h[k] = h[p];
        k = p;
    }
    h[k] = e;
}

static void heap_push(build* b, uint64_t e) {
    if (b->hn == b->cap) heap_compact(b);
    heap_rise(b->heap, b->hn++, e);
}

// The least entry, taken out (the heap is not empty). The heap is 4-ary (half as deep as a
// binary one, and a node's four children share a cache line). The hole at the top goes down to a
// leaf by the least child (chosen without branches), and the last entry rises from there: it
// belongs near the bottom, so that rise is short, and the way down has no comparison with it to
// mispredict.
static inline uint64_t heap_pop(build* b) {
    uint64_t* restrict h = b->heap;
    const uint64_t top = h[0];
    const uint32_t n = --b->hn;
    if (n == 0) return top;
    const uint64_t e = h[n];
    uint32_t k = 0;
    for (uint32_t l = 1; l < n; l = 4 * k + 1) {
        uint32_t m;
        if (l + 3 < n) {
            const uint32_t x = h[l + 1] < h[l] ? l + 1 : l;
            const uint32_t y = h[l + 3] < h[l + 2] ? l + 3 : l + 2;
            m = h[y] < h[x] ? y : x;
        } else {
            m = l;
            for (uint32_t q = l + 1; q < n; ++q) m = h[q] < h[m] ? q : m;
        }
        h[k] = h[m];
        k = m;
    }
    heap_rise(h, k, e);
    return top;
}

// Cell c's distance fell (or it is new).
static inline void heap_update(build* b, uint32_t c) {
    heap_push(b, key_of(b, c));
}

static inline crowd_vec2 center(const build* b, uint32_t c) {
    return (crowd_vec2){((float)(c % (uint32_t)b->gw) + 0.5f) * b->h,
                        ((float)(c / (uint32_t)b->gw) + 0.5f) * b->h};
}

// An anchor's point and distance. A repair (nav_repair.c) meets anchors marked as stand-ins
// (CS_NAV_STAND_IN), which the build marks only once its search is done.
static inline crowd_vec2 anchor_point(const build* b, uint32_t a) {
    return a >= CS_NAV_TARGET ? b->tp[a - CS_NAV_TARGET] : center(b, a & ~CS_NAV_STAND_IN);
}

static inline float dist(crowd_vec2 p, crowd_vec2 q) {
    const float dx = p.x - q.x, dy = p.y - q.y;
    return sqrtf(dx * dx + dy * dy);
}

static inline bool free_at(const build* b, int32_t i, int32_t j) {
    return cs_nav_free_at(b->blocked, b->gw, b->gh, i, j);
}

// Whether bracket cell (i, j) lets the line to anchor a through: outside the grid (open ground:
// only a border cell's line leaves it), or FREE and the anchor itself or settled with it.
static inline bool passes(const build* b, int32_t i, int32_t j, uint32_t a) {
    if (i < 0 || j < 0 || i >= b->gw || j >= b->gh) return true;
    const uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)i;
    return b->blocked[c] == CS_NAV_FREE && (c == a || (b->closed[c] == 1 && b->anchor[c] == a));
}

static bool near_list(void* ctx, const cs_wall_seg* list, uint32_t n) {
    return cs_near_list(ctx, list, n);
}

// cs_walls_near_line, the same answer (the same lists, the same exact test of each segment that
// can be near), with most segments of the lists ruled out by two products each (cs_near_list).
static bool near_line(const cs_walls* g, float x0, float y0, float x1, float y1, float r) {
    cs_near_line q = cs_near_line_of(x0, y0, x1, y1, r);
    const cs_wall_box box =
        cs_walls_box(g, fminf(x0, x1) - r, fminf(y0, y1) - r, fmaxf(x0, x1) + r, fmaxf(y0, y1) + r);
    return cs_walls_visit(g, box, near_list, &q);
}

// Most cells the walk toward an anchor (walk_sees) visits: the length of sight it can confirm.
#define NAV_WALK 256

// Whether cell (i, j) sees the anchor a at (au, av) (cell units) along the whole line: the grid
// traversal (cs_nav_walk) through FREE cells to the anchor's cell or out of the grid (open
// ground); where it passes a cell that is not open the line itself is checked against the walls:
// it must keep half the clearance from every wall segment. Exact where the local test of
// sees() is not, and dearer: it runs only where that test fails, which is mostly where two
// anchors' regions meet and along shadows' edges (where it stops at the first blocked cell).
static bool walk_sees(const build* b, int32_t i0, int32_t j0, uint32_t a, float au, float av) {
    const cs_nav_walk_end end =
        cs_nav_walk(b->blocked, b->nav->open, b->gw, b->gh, i0, j0, au, av, NAV_WALK, true);
    if (end != CS_NAV_WALK_NEAR) return end == CS_NAV_WALK_CLEAR;
    const crowd_vec2 p = center(b, (uint32_t)j0 * (uint32_t)b->gw + (uint32_t)i0);
    const crowd_vec2 q = anchor_point(b, a);
    return !near_line(b->walls, (float)(b->ox + p.x), (float)(b->oy + p.y), (float)(b->ox + q.x),
                      (float)(b->oy + q.y), 0.5f * b->nav->def.clearance);
}

// Whether cell (i, j) sees anchor a (see the top of the file), the anchor at (au, av) in cell
// units (its point / cell size - 0.5: a cell centre's are its integer coordinates): the one or two
// cells the line enters first carry it, or else (where two anchors' regions meet, so those cells
// carry another) the whole line is clear (walk_sees).
// Inlined into the search's loop (as the one call it was before the repair called it too).
static inline __attribute__((always_inline)) bool sees(const build* b, int32_t i, int32_t j,
                                                       uint32_t a, float au, float av) {
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
    return b->closed[m] & 3 ? CS_NAV_NONE : m;
}

// The eight steps, and each one's bit in steps_from.
static const int32_t step_di[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int32_t step_dj[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
static const int step_bit[8] = {0, 1, 2, 3, 5, 6, 7, 8};

// The steps (di, dj) the search may take from cell (i, j) by the grid alone (step_to without the
// settled test): bit (dj + 1) * 3 + di + 1. The 3 x 3 block's FREE cells are read once, without
// the bounds tests inside the grid.
static inline uint32_t steps_from(const build* b, int32_t i, int32_t j) {
    uint32_t f = 0; // FREE cells of the block, by the same bits
    if (i > 0 && j > 0 && i + 1 < b->gw && j + 1 < b->gh) {
        const uint8_t* r = b->blocked + (size_t)(j - 1) * (size_t)b->gw + (size_t)(i - 1);
        for (int dj = 0; dj < 3; ++dj, r += b->gw)
            for (int di = 0; di < 3; ++di) f |= (uint32_t)(r[di] == CS_NAV_FREE) << (dj * 3 + di);
    } else {
        for (int dj = 0; dj < 3; ++dj)
            for (int di = 0; di < 3; ++di)
                f |= (uint32_t)free_at(b, i + di - 1, j + dj - 1) << (dj * 3 + di);
    }
    // Straight steps need their cell; diagonal ones the two beside them too.
    uint32_t s = f & 0xAA; // bits 1, 3, 5, 7
    s |= (f & 1) && (f & 2) && (f & 8) ? 1u : 0u;
    s |= (f & 4) && (f & 2) && (f & 32) ? 4u : 0u;
    s |= (f & 64) && (f & 8) && (f & 128) ? 64u : 0u;
    s |= (f & 256) && (f & 32) && (f & 128) ? 256u : 0u;
    return s;
}

static inline void offer(build* b, uint32_t c, float g, uint32_t a) {
    if (g < b->g[c]) {
        b->g[c] = g;
        b->anchor[c] = a;
        heap_update(b, c);
    }
}

static inline float anchor_g(const build* b, uint32_t a) {
    return a >= CS_NAV_TARGET ? 0.0f : b->g[a & ~CS_NAV_STAND_IN];
}

// Cell c's walking distance along its anchors as they are now, from the end of its way (g read
// nowhere on the way): a repair's kept g may be too long (see reopen_offer).
static float fresh_g(const build* b, uint32_t c) {
    uint32_t stack[1024];
    int n = 0;
    uint32_t x = c;
    float gx;
    for (;;) {
        const uint32_t a = b->anchor[x];
        if (a == CS_NAV_NONE) return FLT_MAX;
        if (a >= CS_NAV_TARGET || (a & ~CS_NAV_STAND_IN) == x) {
            gx = a >= CS_NAV_TARGET ? dist(center(b, x), b->tp[a - CS_NAV_TARGET]) : 0.0f;
            break;
        }
        if (n == (int)(sizeof stack / sizeof stack[0])) return b->g[c]; // as kept
        stack[n++] = x;
        x = a & ~CS_NAV_STAND_IN;
    }
    while (n > 0) {
        const uint32_t y = stack[--n];
        const uint32_t a = b->anchor[y] & ~CS_NAV_STAND_IN;
        gx = b->blocked[y] == CS_NAV_FREE ? gx + dist(center(b, y), center(b, a)) : gx + b->h;
    }
    return gx;
}

// The best way of cell c from its settled neighbors, other than through anchor `refused`: each
// settled neighbor's anchor (nearest first, each tested) and, when none of those is seen and
// shorter, the step from the neighbor nearest the destination (*t FLT_MAX: none).
static inline __attribute__((always_inline)) void best_way(build* b, uint32_t c, uint32_t refused,
                                                           float* t_out, uint32_t* a_out) {
    const float h = b->h, diag = b->h * 1.41421356f;
    const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
    const crowd_vec2 pc = center(b, c);
    float fg = FLT_MAX, ct[8];
    uint32_t fa = CS_NAV_NONE, ca[8];
    int n = 0;
    const uint32_t steps = steps_from(b, i, j);
    for (int s = 0; s < 8; ++s) {
        if (!(steps >> step_bit[s] & 1)) continue;
        const uint32_t m = (uint32_t)((int32_t)c + step_dj[s] * b->gw + step_di[s]);
        if (b->closed[m] != 1) continue;
        const float gm = b->lazy ? cs_nav_search_g(b, m) : b->g[m];
        const float f = gm + (step_di[s] && step_dj[s] ? diag : h);
        if (f < fg || (f == fg && m < fa)) fg = f, fa = m;
        const uint32_t a = b->anchor[m];
        if (a == refused) continue;
        bool dup = false;
        for (int k = 0; k < n; ++k) dup |= ca[k] == a;
        if (dup) continue;
        const float t = anchor_g(b, a) + dist(pc, anchor_point(b, a));
        // Insertion by (distance, anchor).
        int k = n++;
        for (; k > 0 && (ct[k - 1] > t || (ct[k - 1] == t && ca[k - 1] > a)); --k)
            ct[k] = ct[k - 1], ca[k] = ca[k - 1];
        ct[k] = t, ca[k] = a;
    }
    // A corner is taken only where it is shorter beyond rounding: along a straight run of cells
    // the neighbor's anchor and the step to the neighbor tie.
    const float most = fg + fg * 0x1p-20f;
    for (int k = 0; k < n && ct[k] <= most; ++k) {
        const crowd_vec2 pa = anchor_point(b, ca[k]);
        if (sees(b, i, j, ca[k], pa.x / b->h - 0.5f, pa.y / b->h - 0.5f)) {
            *t_out = ct[k], *a_out = ca[k];
            return;
        }
    }
    *t_out = fg, *a_out = fa;
}

// Cell c was popped with a sight candidate its test refuses: its best way from its settled
// neighbors instead (best_way), put back into the heap (with a larger key).
static void fall_back(build* b, uint32_t c) {
    float t;
    uint32_t a;
    best_way(b, c, b->anchor[c], &t, &a);
    b->closed[c] = 0;
    b->g[c] = FLT_MAX;
    offer(b, c, t, a);
}

// A repair's settled cell m is offered a way of distance t through anchor a (see
// cs_nav_search): where it does not see a, its best way from its settled neighbors is the offer
// (one of them has just become shorter). It takes the offer, to be settled again, when it is
// shorter beyond rounding; the cells anchored at m are then as much nearer without a change.
static void reopen_offer(build* b, uint32_t m, float t, uint32_t a) {
    const float gm = cs_nav_search_g(b, m);
    if (!(t < gm - gm * 0x1p-20f)) return;
    const int32_t i = (int32_t)(m % (uint32_t)b->gw), j = (int32_t)(m / (uint32_t)b->gw);
    const crowd_vec2 pa = anchor_point(b, a);
    if (!sees(b, i, j, a, pa.x / b->h - 0.5f, pa.y / b->h - 0.5f)) {
        best_way(b, m, a, &t, &a);
        if (!(t < gm - gm * 0x1p-20f)) return;
    }
    // The g kept for a settled cell is too long where a corner on its way took a shorter one
    // since it was read: the way as it is now decides.
    const float now = b->closed[m] == 1 ? fresh_g(b, m) : gm;
    if (!(t < now - now * 0x1p-20f)) return;
    b->g[m] = t;
    b->anchor[m] = a;
    b->closed[m] = REOPENED; // a way seen: settled as it comes out, without a test
    heap_update(b, m);
}

// Settled cell c = (i, j) with anchor a at pa offers a to each neighbor not settled, at the
// straight line's distance, as a candidate (TENTATIVE) whose sight is tested when the neighbor
// comes out of the heap. With `reopen` (a repair), settled neighbors are offered it too.
static inline __attribute__((always_inline)) void expand(build* b, uint32_t c, int32_t i, int32_t j,
                                                         uint32_t a, crowd_vec2 pa, bool reopen) {
    const float ga = anchor_g(b, a);
    const uint32_t steps = steps_from(b, i, j);
    // The distances through the anchor for all eight neighbors at once (a vector of eight
    // lanes; each lane as center() and dist() compute it), then the offers one by one.
    float through[8];
    for (int k = 0; k < 8; ++k) {
        const float x = ((float)(i + step_di[k]) + 0.5f) * b->h;
        const float y = ((float)(j + step_dj[k]) + 0.5f) * b->h;
        const float dx = x - pa.x, dy = y - pa.y;
        through[k] = ga + sqrtf(dx * dx + dy * dy);
    }
    for (int k = 0; k < 8; ++k) {
        if (!(steps >> step_bit[k] & 1)) continue;
        const uint32_t m = (uint32_t)((int32_t)c + step_dj[k] * b->gw + step_di[k]);
        if (b->closed[m] & (3 | REOPENED)) {
            if (reopen && (b->closed[m] == 1 || b->closed[m] == REOPENED))
                reopen_offer(b, m, through[k], a);
            continue;
        }
        if (!(through[k] < b->g[m])) continue;
        b->g[m] = through[k];
        b->anchor[m] = a;
        b->closed[m] = TENTATIVE;
        heap_update(b, m);
    }
}

// The search over FREE cells from whatever the heap holds. A settled cell offers each neighbor
// its own anchor at the straight line's distance, as a candidate (TENTATIVE) whose sight is
// tested only when the neighbor is popped with it: by then the cells between it and the anchor,
// all nearer the anchor, are settled, so the local test of sees() mostly decides. A candidate
// refused goes back with the neighbor's best way from its settled neighbors (fall_back).
// Inlined where it is called, so that the build's search (reopen false) has no trace of the
// repair's branch.
static inline __attribute__((always_inline)) void search(build* b, bool reopen) {
    while (b->hn > 0) {
        const uint64_t e = heap_pop(b);
        const uint32_t c = (uint32_t)e;
        if (b->closed[c] == 1 || e != key_of(b, c)) continue; // stale
        const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
        const uint32_t a = b->anchor[c];
        const crowd_vec2 pa = anchor_point(b, a);
        const float au = pa.x / b->h - 0.5f, av = pa.y / b->h - 0.5f;
        if (b->closed[c] == TENTATIVE && !sees(b, i, j, a, au, av)) {
            fall_back(b, c);
            continue;
        }
        b->closed[c] = 1;
        expand(b, c, i, j, a, pa, reopen);
    }
}

// The search as the build runs it, and as a repair that lets shorter ways spread runs it.
static void search_plain(build* b) {
    search(b, false);
}

static void search_reopen(build* b) {
    search(b, true);
}

void cs_nav_search_run(build* b) {
    if (b->reopen)
        search_reopen(b);
    else
        search_plain(b);
}

void cs_nav_search_expand(build* b, uint32_t c) {
    cs_nav_search_g(b, c); // and its anchor's
    const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
    const uint32_t a = b->anchor[c];
    expand(b, c, i, j, a, anchor_point(b, a), false);
}

float cs_nav_search_g(build* b, uint32_t c) {
    if (b->g[c] != FLT_MAX) return b->g[c];
    // Up the anchors to one whose g is known or is the end of the way, then down again.
    uint32_t stack[256];
    int n = 0;
    uint32_t x = c;
    float gx;
    for (;;) {
        if (b->g[x] != FLT_MAX) {
            gx = b->g[x];
            break;
        }
        const uint32_t a = b->anchor[x];
        if (a == CS_NAV_NONE) {
            gx = FLT_MAX;
            break;
        }
        if (a >= CS_NAV_TARGET || (a & ~CS_NAV_STAND_IN) == x) {
            gx = a >= CS_NAV_TARGET ? dist(center(b, x), b->tp[a - CS_NAV_TARGET]) : 0.0f;
            b->g[x] = gx;
            b->list[b->nlist++] = x;
            break;
        }
        if (n == (int)(sizeof stack / sizeof stack[0])) { // a long way: its upper part first
            gx = cs_nav_search_g(b, x);
            break;
        }
        stack[n++] = x;
        x = a & ~CS_NAV_STAND_IN;
    }
    while (n > 0 && gx != FLT_MAX) {
        const uint32_t y = stack[--n];
        const uint32_t a = b->anchor[y] & ~CS_NAV_STAND_IN;
        gx = b->blocked[y] == CS_NAV_FREE ? gx + dist(center(b, y), center(b, a)) : gx + b->h;
        b->g[y] = gx;
        b->list[b->nlist++] = y;
    }
    return n > 0 ? FLT_MAX : gx;
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
uint32_t cs_nav_search_near_anchor(const build* b, uint32_t c) {
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
        for (uint32_t k = 0; k < len; ++k)
            b->anchor[ring[k]] = cs_nav_search_near_anchor(b, ring[k]);
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

void cs_nav_search_init(build* b, const crowd_world* w, const cs_nav* nav, cs_nav_key key,
                        uint32_t* anchor, cs_nav_scratch* s) {
    *b = (build){.nav = nav,
                 .walls = &w->walls,
                 .blocked = nav->blocked,
                 .anchor = anchor,
                 .g = s->g,
                 .heap = s->heap,
                 .closed = s->closed,
                 .cap = (uint32_t)nav->cells,
                 .gw = nav->gw,
                 .gh = nav->gh,
                 .h = nav->def.cell_size,
                 .ox = (double)nav->gx0 * nav->def.cell_size,
                 .oy = (double)nav->gy0 * nav->def.cell_size,
                 .list = s->list};
    const cs_nav_targets t = cs_nav_targets_of(nav, key);
    b->tn = t.count;
    for (int k = 0; k < t.count; ++k)
        b->tp[k] = (crowd_vec2){(float)((double)cs_nav_target(&t, k).x - b->ox),
                                (float)((double)cs_nav_target(&t, k).y - b->oy)};
}

bool cs_nav_build(const crowd_world* w, const cs_nav* nav, cs_nav_key key, uint32_t* anchor,
                  cs_nav_scratch* s) {
    build local;
    build* b = &local;
    cs_nav_search_init(b, w, nav, key, anchor, s);
    s->ready = false; // g and closed are left as the build leaves them
    const size_t n = nav->cells;
    for (size_t c = 0; c < n; ++c) {
        anchor[c] = CS_NAV_NONE;
        b->g[c] = FLT_MAX;
    }
    memset(b->closed, 0, n);
    for (int k = 0; k < b->tn; ++k) seed_target(b, k);
    search_plain(b);
    const bool walled_off = stand_ins(b);
    if (walled_off) search_plain(b);
    near_cells(b);
    if (walled_off) mark_stand_ins(b);
    return walled_off;
}
