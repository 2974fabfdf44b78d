// Repairing a field after obstacles changed: only the cells whose way the change can touch are
// solved again, by the build's own search (nav_build.c), from the cells round them.
//
// The grid was laid again only in the rectangles of nav->dirty (cs_nav_grid_lay_part; each holds
// the cells whose state changed and the changed obstacle's box with half the clearance round it,
// grown by a cell for the open flags), and only there did walls come or go: a cell's straight
// line to its anchor that stays out of them keeps the sight rule (it passes the same cells and the
// same walls as before). So a cell's way is still valid when neither its own line nor any line
// further along its anchors meets a dirty rectangle. The others are the "hit" cells: a cell is hit
// when it lies in a rectangle, when its line meets one, or when its anchor (a corner) is hit,
// which a memo on the corners decides once per corner.
//
// The hit cells are found without a pass over the whole field: each field keeps, per tile of
// 32 x 32 cells, a box that holds the tile's cells and their anchors (cs_nav_field.tiles). Only
// tiles whose box meets a dirty rectangle can hold cells hit by their own line; a cell hit through
// its anchor lies in a tile whose box holds that anchor, a hit cell itself; so the tiles to read
// are those, then those whose box meets the hit cells found, until no more are found (find_hits).
// The first repair after a whole build reads every tile and computes the boxes; a repair grows
// them over the anchors it gives.
//
// The hit cells are reset and solved again by the search, with every other cell settled at its
// anchor's distance (computed along the anchors when first read, cs_nav_search_g): the settled
// cells round the hit ones offer their anchors, exactly as if the search had just settled them.
// When walls only came, ways only grow, and the cells not hit keep theirs. When a way can have
// become shorter (an obstacle removed, or a cell become FREE: nav->dirty_shrinks) the search also
// offers its anchors to settled cells, which take one where it is shorter beyond rounding and
// seen, and pass it on. The NEAR cells hit point again to their best neighbor, ring by ring as in
// the build.
//
// What the repair does not vouch for goes back to a whole build (cs_nav_repair returns false): a
// field with stand-ins (walled-off regions) when an obstacle went or a cell became FREE (regions
// may join), a target whose seeding cells a change touches, a hit cell the search does not reach
// (a region walled off by the change, or a stand-in's own cell hit), and a change that hits a
// quarter of the grid or more (a build is then as fast). Where walls only came, a field with
// stand-ins is repaired like any other: the anchors its cells pass on carry the stand-in mark. A
// repaired field depends on the field before and the change, not on threads: each is repaired by
// one thread, in a fixed order.
#include <float.h>
#include <string.h>

#include "core/internal.h"
#include "nav/nav.h"
#include "nav/nav_search.h"

// Marks of the hit memo in `closed` during the pass over the field (the clean state is 1).
#define MEMO_KNOWN 16
#define MEMO_HIT 32
// A NEAR cell queued for the next ring.
#define QUEUED 2
// A settled cell that has offered its anchor to the hit cells round it (while they are seeded).
#define EXPANDED 128

typedef struct repair {
    cs_nav_search* b;
    const cs_nav_rect* d;
    int nd;
    uint32_t lo[CS_NAV_MAX_CHANGES], hi[CS_NAV_MAX_CHANGES];      // first cell of each rectangle's
                                                                  // rows, first cell past them
    float tu[CROWD_EXITS_MAX_POINTS], tv[CROWD_EXITS_MAX_POINTS]; // targets in cell units
    uint32_t* hits; // the hit cells (in the heap's array, unused until the search)
    uint32_t nhits, most;
    uint32_t scanned; // tiles scanned
} repair;

// Whether the segment from (x0, y0) to (x1, y1), in cell units (cell (i, j) spans [i, i + 1) x
// [j, j + 1)), meets rectangle q (Liang and Barsky's clipping).
static bool meets(const cs_nav_rect* q, float x0, float y0, float x1, float y1) {
    const float dx = x1 - x0, dy = y1 - y0;
    const float p[4] = {-dx, dx, -dy, dy};
    const float e[4] = {x0 - (float)q->i0, (float)q->i1 + 1.0f - x0, y0 - (float)q->j0,
                        (float)q->j1 + 1.0f - y0};
    float t0 = 0.0f, t1 = 1.0f;
    for (int k = 0; k < 4; ++k) {
        if (p[k] == 0.0f) {
            if (e[k] < 0.0f) return false;
            continue;
        }
        const float t = e[k] / p[k];
        if (p[k] < 0.0f)
            t0 = t > t0 ? t : t0;
        else
            t1 = t < t1 ? t : t1;
        if (t0 > t1) return false;
    }
    return true;
}

// The point of anchor a (not CS_NAV_NONE) in cell units.
static inline void anchor_at(const repair* r, uint32_t a, float* u, float* v) {
    if (a >= CS_NAV_TARGET) {
        *u = r->tu[a - CS_NAV_TARGET], *v = r->tv[a - CS_NAV_TARGET];
    } else {
        const uint32_t x = a & ~CS_NAV_STAND_IN, gw = (uint32_t)r->b->gw;
        *u = (float)(x % gw) + 0.5f, *v = (float)(x / gw) + 0.5f;
    }
}

// Whether cell (i, j) lies in a dirty rectangle or its line to anchor a, at (au, av), meets one.
static inline bool direct_at(const repair* r, int32_t i, int32_t j, uint32_t a, float au,
                             float av) {
    for (int k = 0; k < r->nd; ++k) {
        const cs_nav_rect* q = &r->d[k];
        if (i >= q->i0 && i <= q->i1 && j >= q->j0 && j <= q->j1) return true;
        if (a == CS_NAV_NONE) continue;
        // Both ends below the rectangle's rows, or both above: no meeting.
        if ((j < q->j0 && av < (float)q->j0) || (j > q->j1 && av > (float)q->j1 + 1.0f)) continue;
        if (meets(q, (float)i + 0.5f, (float)j + 0.5f, au, av)) return true;
    }
    return false;
}

static bool direct(const repair* r, int32_t i, int32_t j, uint32_t a) {
    float au = 0.0f, av = 0.0f;
    if (a != CS_NAV_NONE) anchor_at(r, a, &au, &av);
    return direct_at(r, i, j, a, au, av);
}

static void memo(repair* r, uint32_t x, bool hit) {
    r->b->closed[x] |= (uint8_t)(MEMO_KNOWN | (hit ? MEMO_HIT : 0));
    r->b->list[r->b->nlist++] = x;
}

// Whether corner a is hit: itself (direct) or any corner further along its anchors. Memoized on
// every corner of the way.
static bool chain_hit(repair* r, uint32_t a) {
    const uint8_t* closed = r->b->closed;
    const uint32_t* anchor = r->b->anchor;
    const uint32_t gw = (uint32_t)r->b->gw;
    uint32_t stack[256];
    int n = 0;
    uint32_t x = a;
    bool hit;
    for (;;) {
        if (closed[x] & MEMO_KNOWN) {
            hit = closed[x] & MEMO_HIT;
            break;
        }
        const uint32_t y = anchor[x];
        if (direct(r, (int32_t)(x % gw), (int32_t)(x / gw), y)) {
            hit = true;
            memo(r, x, true);
            break;
        }
        if (y >= CS_NAV_TARGET || (y & ~CS_NAV_STAND_IN) == x) {
            hit = false;
            memo(r, x, false);
            break;
        }
        if (n == (int)(sizeof stack / sizeof stack[0])) { // a way this long is solved again
            hit = true;
            break;
        }
        stack[n++] = x;
        x = y & ~CS_NAV_STAND_IN;
    }
    while (n > 0) memo(r, stack[--n], hit);
    return hit;
}

static bool overlap(const cs_nav_rect* a, const cs_nav_rect* b) {
    return a->i0 <= b->i1 && b->i0 <= a->i1 && a->j0 <= b->j1 && b->j0 <= a->j1;
}

static void grow_to(cs_nav_rect* q, int32_t i, int32_t j) {
    q->i0 = i < q->i0 ? i : q->i0, q->j0 = j < q->j0 ? j : q->j0;
    q->i1 = i > q->i1 ? i : q->i1, q->j1 = j > q->j1 ? j : q->j1;
}

// The cell of a point in cell units, clamped to a range every grid fits (a target may lie far
// outside the grid).
static int32_t cell_of(float u) {
    const float f = floorf(u);
    return f < -1073741824.0f ? -1073741824 : f > 1073741824.0f ? 1073741824 : (int32_t)f;
}

// Grows tile box q over the cell of anchor a (not CS_NAV_NONE).
static void grow_anchor(const repair* r, cs_nav_rect* q, uint32_t a) {
    float u, v;
    anchor_at(r, a, &u, &v);
    grow_to(q, cell_of(u), cell_of(v));
}

// The cells of tile t.
static cs_nav_rect tile_cells(const cs_nav_search* b, uint32_t t, uint32_t ntx) {
    const int32_t i0 = (int32_t)(t % ntx) << CS_NAV_TILE_SHIFT;
    const int32_t j0 = (int32_t)(t / ntx) << CS_NAV_TILE_SHIFT;
    const int32_t i1 = i0 + CS_NAV_TILE - 1 < b->gw ? i0 + CS_NAV_TILE - 1 : b->gw - 1;
    const int32_t j1 = j0 + CS_NAV_TILE - 1 < b->gh ? j0 + CS_NAV_TILE - 1 : b->gh - 1;
    return (cs_nav_rect){i0, j0, i1, j1};
}

// The hit cells of tile t into r->hits, its box from its anchors as they are, and the box of the
// hit cells into *hb. False when the repair gives up (a stand-in, or too many cells hit).
static bool scan_tile(repair* r, cs_nav_rect* tiles, uint32_t t, uint32_t ntx, cs_nav_rect* hb) {
    cs_nav_search* b = r->b;
    const uint32_t* anchor = b->anchor;
    const cs_nav_rect cells = tile_cells(b, t, ntx);
    cs_nav_rect box = cells;
    uint32_t last = CS_NAV_NONE;
    bool last_hit = false;
    float au = 0.0f, av = 0.0f;
    for (int32_t j = cells.j0; j <= cells.j1; ++j) {
        uint32_t c = (uint32_t)j * (uint32_t)b->gw + (uint32_t)cells.i0;
        for (int32_t i = cells.i0; i <= cells.i1; ++i, ++c) {
            const uint32_t a = anchor[c];
            if (a != last) { // anchors come in runs: each run's anchor is placed once
                last = a;
                last_hit = false;
                if (a != CS_NAV_NONE) {
                    anchor_at(r, a, &au, &av);
                    grow_to(&box, cell_of(au), cell_of(av));
                    if (a < CS_NAV_TARGET) last_hit = chain_hit(r, a & ~CS_NAV_STAND_IN);
                }
            }
            if (!last_hit && !direct_at(r, i, j, a, au, av)) continue;
            if (r->nhits == r->most) return false;
            r->hits[r->nhits++] = c;
            grow_to(hb, i, j);
        }
    }
    tiles[t] = box;
    return true;
}

// The hit cells into r->hits, tile by tile: first the tiles whose box meets a dirty rectangle
// (every tile when the boxes are not known yet), then, while hit cells are found, the tiles whose
// box meets theirs (a cell whose anchor is a hit cell is hit: its tile's box holds that anchor).
// Every hit cell is found so: along its anchors, the first corner whose own line meets a dirty
// rectangle lies in a tile of the first kind, and each cell before it in a tile whose box holds
// the next. The tile queue and its marks lie in the heap's array past the hits.
static bool find_hits(repair* r, cs_nav_field* f) {
    cs_nav_search* b = r->b;
    const uint32_t ntx = (uint32_t)(b->gw + CS_NAV_TILE - 1) >> CS_NAV_TILE_SHIFT;
    const uint32_t nt = (uint32_t)cs_nav_tile_count(b->gw, b->gh);
    uint32_t* queue = (uint32_t*)b->heap + (uint32_t)b->gw * (uint32_t)b->gh;
    uint8_t* queued = (uint8_t*)(queue + nt);
    uint32_t qn = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        bool meets_dirty = !f->tiles_ok;
        for (int k = 0; k < r->nd && !meets_dirty; ++k)
            meets_dirty = overlap(&f->tiles[t], &r->d[k]);
        queued[t] = meets_dirty;
        if (meets_dirty) queue[qn++] = t;
    }
    for (uint32_t qh = 0; qh < qn; ++qh) {
        cs_nav_rect hb = {INT32_MAX, INT32_MAX, INT32_MIN, INT32_MIN};
        if (!scan_tile(r, f->tiles, queue[qh], ntx, &hb)) return false;
        if (hb.i0 > hb.i1) continue;
        for (uint32_t t = 0; t < nt; ++t)
            if (!queued[t] && overlap(&f->tiles[t], &hb)) queued[t] = 1, queue[qn++] = t;
    }
    r->scanned = qn;
    return true;
}

// Whether a change touches the cells a target is seeded from (seed_target in nav_build.c): its
// own cell and those round it, or the border of the grid for a target outside it.
static bool seeds_touched(const repair* r) {
    const cs_nav_search* b = r->b;
    const int32_t reach = (int32_t)ceilf(b->nav->def.clearance / b->h) + 2;
    for (int t = 0; t < b->tn; ++t) {
        const float fi = floorf(b->tp[t].x / b->h), fj = floorf(b->tp[t].y / b->h);
        const bool outside = fi < 0.0f || fj < 0.0f || fi >= (float)b->gw || fj >= (float)b->gh;
        for (int k = 0; k < r->nd; ++k) {
            const cs_nav_rect* q = &r->d[k];
            if (outside) {
                if (q->i0 == 0 || q->j0 == 0 || q->i1 == b->gw - 1 || q->j1 == b->gh - 1)
                    return true;
                continue;
            }
            const int32_t ti = (int32_t)fi, tj = (int32_t)fj;
            if (ti + reach >= q->i0 && ti - reach <= q->i1 && tj + reach >= q->j0 &&
                tj - reach <= q->j1)
                return true;
        }
    }
    return false;
}

static const int32_t dirs4[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static bool inside(const cs_nav_search* b, int32_t i, int32_t j) {
    return i >= 0 && j >= 0 && i < b->gw && j < b->gh;
}

// Whether cell m is settled with a way (the NEAR rings start from such cells).
static bool has_way(cs_nav_search* b, uint32_t m) {
    return b->closed[m] == 1 && cs_nav_search_g(b, m) < FLT_MAX;
}

// The NEAR cells hit, ring by ring from the settled cells as near_cells in nav_build.c does; a
// NEAR cell without a way that a ring reaches takes one too. The rings are lists in the heap's
// array (empty again after the search).
static void near_rings(repair* r) {
    cs_nav_search* b = r->b;
    const uint32_t n = (uint32_t)b->gw * (uint32_t)b->gh;
    uint32_t* ring = (uint32_t*)b->heap;
    uint32_t* next = ring + n;
    uint32_t len = 0;
    for (uint32_t k = 0; k < r->nhits; ++k) {
        const uint32_t c = b->list[k];
        if (b->blocked[c] != CS_NAV_NEAR) continue;
        const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
        for (int d = 0; d < 4; ++d) {
            const int32_t x = i + dirs4[d][0], y = j + dirs4[d][1];
            if (!inside(b, x, y) || !has_way(b, (uint32_t)y * (uint32_t)b->gw + (uint32_t)x))
                continue;
            ring[len++] = c;
            b->closed[c] = QUEUED;
            break;
        }
    }
    while (len > 0) {
        for (uint32_t k = 0; k < len; ++k) {
            const uint32_t c = ring[k];
            const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
            for (int d = 0; d < 4; ++d) { // the neighbors' distances, before they are compared
                const int32_t x = i + dirs4[d][0], y = j + dirs4[d][1];
                const uint32_t m = (uint32_t)y * (uint32_t)b->gw + (uint32_t)x;
                if (inside(b, x, y) && b->closed[m] == 1) cs_nav_search_g(b, m);
            }
            b->anchor[c] = cs_nav_search_near_anchor(b, c);
        }
        for (uint32_t k = 0; k < len; ++k) {
            const uint32_t c = ring[k], a = b->anchor[c];
            b->closed[c] = a == CS_NAV_NONE ? 0 : 1;
            b->g[c] = a == CS_NAV_NONE ? FLT_MAX : b->g[a] + b->h;
        }
        uint32_t nlen = 0;
        for (uint32_t k = 0; k < len; ++k) {
            const uint32_t c = ring[k];
            if (b->closed[c] != 1) continue;
            const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
            for (int d = 0; d < 4; ++d) {
                const int32_t x = i + dirs4[d][0], y = j + dirs4[d][1];
                if (!inside(b, x, y)) continue;
                const uint32_t m = (uint32_t)y * (uint32_t)b->gw + (uint32_t)x;
                if (b->blocked[m] != CS_NAV_NEAR) continue;
                const bool hit_open = b->closed[m] == 0;
                const bool wayless = b->closed[m] == 1 && b->anchor[m] == CS_NAV_NONE;
                if (!hit_open && !wayless) continue;
                if (wayless) b->list[b->nlist++] = m; // reset with the others at the end
                b->closed[m] = QUEUED;
                next[nlen++] = m;
            }
        }
        uint32_t* t = ring;
        ring = next;
        next = t;
        len = nlen;
    }
}

bool cs_nav_repair(const crowd_world* w, const cs_nav* nav, cs_nav_field* f, cs_nav_scratch* s) {
    // Walled-off regions may join when obstacles go: whole build. (When walls come, a region cut
    // off leaves hit cells the search does not reach, found below.)
    if (f->stand_ins && nav->dirty_shrinks) return false;
    cs_nav_search search;
    cs_nav_search* b = &search;
    uint32_t* anchor = f->anchor;
    cs_nav_search_init(b, w, nav, f->key, anchor, s);
    b->lazy = true;
    b->reopen = nav->dirty_shrinks;
    const size_t n = nav->cells;
    if (!s->ready) {
        for (size_t c = 0; c < n; ++c) s->g[c] = FLT_MAX;
        memset(s->closed, 1, n);
        s->ready = true;
    }
    repair r = {.b = b,
                .d = nav->dirty,
                .nd = nav->ndirty,
                .hits = (uint32_t*)s->heap,
                .most = (uint32_t)(n / 4)};
    for (int k = 0; k < r.nd; ++k) {
        r.lo[k] = (uint32_t)r.d[k].j0 * (uint32_t)b->gw;
        r.hi[k] = (uint32_t)(r.d[k].j1 + 1) * (uint32_t)b->gw;
    }
    for (int t = 0; t < b->tn; ++t) r.tu[t] = b->tp[t].x / b->h, r.tv[t] = b->tp[t].y / b->h;
    f->resolved = 0;
    if (seeds_touched(&r)) return false;
    const bool found = find_hits(&r, f);
    for (uint32_t k = 0; k < b->nlist; ++k) b->closed[b->list[k]] = 1; // the memo's marks
    b->nlist = 0;
    if (!found) { // the boxes are no longer all known
        f->tiles_ok = false;
        return false;
    }
    f->tiles_ok = true;
    // Reset the hit cells: the search solves them again.
    for (uint32_t k = 0; k < r.nhits; ++k) {
        const uint32_t c = r.hits[k];
        b->list[b->nlist++] = c;
        anchor[c] = CS_NAV_NONE;
        b->closed[c] = 0;
    }
    // The settled FREE cells round them offer their anchors, each once (marked EXPANDED until
    // all have).
    for (int pass = 0; pass < 2; ++pass)
        for (uint32_t k = 0; k < r.nhits; ++k) {
            const uint32_t c = b->list[k];
            if (b->blocked[c] != CS_NAV_FREE) continue;
            const int32_t i = (int32_t)(c % (uint32_t)b->gw), j = (int32_t)(c / (uint32_t)b->gw);
            for (int32_t dj = -1; dj <= 1; ++dj)
                for (int32_t di = -1; di <= 1; ++di) {
                    const int32_t x = i + di, y = j + dj;
                    if ((di | dj) == 0 || !inside(b, x, y)) continue;
                    const uint32_t m = (uint32_t)y * (uint32_t)b->gw + (uint32_t)x;
                    if (pass == 1) {
                        b->closed[m] &= (uint8_t)~EXPANDED;
                    } else if (b->blocked[m] == CS_NAV_FREE && b->closed[m] == 1) {
                        cs_nav_search_expand(b, m);
                        b->closed[m] |= EXPANDED;
                    }
                }
        }
    cs_nav_search_run(b);
    bool ok = true;
    for (uint32_t k = 0; k < r.nhits && ok; ++k) {
        const uint32_t c = b->list[k];
        ok = b->blocked[c] != CS_NAV_FREE || b->closed[c] == 1;
    }
    if (!ok) { // a region the change walled off: it needs a stand-in
        s->ready = false;
        b->hn = 0;
        return false;
    }
    near_rings(&r);
    // A cell that took a stand-in itself as its corner (a step to it) marks it, as the build's
    // last pass does (the anchors passed on from neighbors carry the mark already).
    for (uint32_t k = 0; k < b->nlist; ++k) {
        const uint32_t c = b->list[k], a = anchor[c];
        if (a < CS_NAV_TARGET && anchor[a & ~CS_NAV_STAND_IN] == (a | CS_NAV_STAND_IN))
            anchor[c] = a | CS_NAV_STAND_IN;
    }
    // Back to the clean state for the next repair; the tiles' boxes grown over the anchors the
    // repair gave (every cell whose anchor it changed is in the list).
    const uint32_t ntx = (uint32_t)(b->gw + CS_NAV_TILE - 1) >> CS_NAV_TILE_SHIFT;
    for (uint32_t k = 0; k < b->nlist; ++k) {
        const uint32_t c = b->list[k];
        b->g[c] = FLT_MAX;
        b->closed[c] = 1;
        if (anchor[c] == CS_NAV_NONE) continue;
        const uint32_t i = c % (uint32_t)b->gw, j = c / (uint32_t)b->gw;
        grow_anchor(&r, &f->tiles[(j >> CS_NAV_TILE_SHIFT) * ntx + (i >> CS_NAV_TILE_SHIFT)],
                    anchor[c]);
    }
    f->resolved = r.nhits;
    return true;
}
