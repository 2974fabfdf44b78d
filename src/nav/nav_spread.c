// The spread strategy (see nav.h and crowd/nav.h): destinations in use that get no field of their
// own are routed over one graph of tile regions and portals, shared by all of them, with a plan
// per agent that costs the tiles on its way rather than the grid.
//
// The graph is laid with the grid's fields (the route phase, when some destination is spread):
// each tile's regions are labelled on their own (in parallel, tile by tile), then numbered in
// tile order, then the portals are found along the tile borders in scan order. Nothing in it
// depends on the thread count.
//
// A plan is an A* search from the agent's region to its goal's region whose nodes are the portals
// crossed one way or the other; the heap orders (f, node) exactly (the distance's bits above the
// node number), so equal ways resolve by node number. A plan is a function of the region, the goal
// and the grid alone: each agent keeps its last one (cs_nav_plan, by agent index) and makes a new
// one when it enters another region or the grid changes, which reads the same on any thread count,
// after a snapshot's load (the plans are not saved: made again, they are the same) and on any
// rank. The aim is then a function of the agent's cell and its plan: the farthest of the first
// waypoints (or the goal) the cell sees, with the fields' sight rule (a line through FREE cells,
// and where it passes by a NEAR cell, half the clearance from every wall); else a search over the
// cells of its region toward the first waypoint, whose path is followed as far as the cell sees.
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "nav/nav.h"
#include "walls/walls_math.h"

#define TILE CS_NAV_SPREAD_TILE
#define AHEAD CS_NAV_SPREAD_AHEAD

static inline float dist(crowd_vec2 p, crowd_vec2 q) {
    const float dx = p.x - q.x, dy = p.y - q.y;
    return sqrtf(dx * dx + dy * dy);
}

static inline bool free_cell(const cs_nav* nav, int32_t i, int32_t j) {
    return cs_nav_free_at(nav->blocked, nav->gw, nav->gh, i, j);
}

static inline uint32_t tile_of(const cs_nav* nav, uint32_t c) {
    const uint32_t i = c % (uint32_t)nav->gw, j = c / (uint32_t)nav->gw;
    return (j >> CS_NAV_SPREAD_SHIFT) * (uint32_t)nav->sp.tw + (i >> CS_NAV_SPREAD_SHIFT);
}

// The region of cell c, or UINT32_MAX for a cell that is not FREE.
static inline uint32_t region_of(const cs_nav* nav, uint32_t c) {
    const uint8_t l = nav->sp.label[c];
    return l == CS_NAV_NO_REGION ? UINT32_MAX : nav->sp.first[tile_of(nav, c)] + l;
}

// ---- laying the graph --------------------------------------------------------------------------

size_t cs_nav_spread_bytes(int32_t gw, int32_t gh, int threads, int agents) {
    // Labels, and per tile its regions' numbers and (for most tiles of a town or a building) a
    // few regions and portals: the graph's size is known once laid (cs_nav_spread.bytes); this is
    // what the budget counts before.
    const size_t cells = (size_t)gw * (size_t)gh;
    const size_t tiles = cs_nav_tile_count(gw, gh) * (CS_NAV_TILE / TILE) * (CS_NAV_TILE / TILE);
    const size_t graph = cells + tiles * (4 + 4 * 12 + 4 * 40);
    const size_t scratch = (size_t)threads * tiles * 4 * (4 * 4 + 8 * 8);
    return graph + scratch + (size_t)agents * sizeof(cs_nav_plan);
}

static void free_graph(crowd_world* w, cs_nav_spread* sp, size_t cells) {
    const size_t tiles = (size_t)sp->tw * (size_t)sp->th;
    cs_free(w, sp->label, cells);
    cs_free(w, sp->first, (tiles + 1) * sizeof *sp->first);
    cs_free(w, sp->rep, sp->nregions * sizeof *sp->rep);
    cs_free(w, sp->port_first, ((size_t)sp->nregions + 1) * sizeof *sp->port_first);
    cs_free(w, sp->port_list, sp->nlist * sizeof *sp->port_list);
    cs_free(w, sp->portal, sp->nportals * sizeof *sp->portal);
    cs_free(w, sp->rep_d, sp->nlist * sizeof *sp->rep_d);
    cs_free(w, sp->mat, sp->nmat * sizeof *sp->mat);
    cs_free(w, sp->mat_first, ((size_t)sp->nregions + 1) * sizeof *sp->mat_first);
    *sp = (cs_nav_spread){0};
}

static void free_scratch(crowd_world* w, cs_nav* nav) {
    const size_t nodes = 2 * (size_t)nav->sp.nportals + 1;
    for (int t = 0; t < nav->sp_scratch_count; ++t) {
        cs_nav_spread_scratch* s = &nav->sp_scratch[t];
        cs_free(w, s->g, nodes * sizeof *s->g);
        cs_free(w, s->parent, nodes * sizeof *s->parent);
        cs_free(w, s->stamp, nodes * sizeof *s->stamp);
        cs_free(w, s->done, nodes * sizeof *s->done);
        cs_free(w, s->heap, (size_t)nav->sp.heap_cap * sizeof *s->heap);
    }
    cs_free(w, nav->sp_scratch, (size_t)nav->sp_scratch_count * sizeof *nav->sp_scratch);
    nav->sp_scratch = NULL;
    nav->sp_scratch_count = 0;
}

void cs_nav_spread_drop(crowd_world* w, cs_nav* nav) {
    free_scratch(w, nav);
    free_graph(w, &nav->sp, nav->sp_cells);
    cs_free(w, nav->sp_plan, (size_t)nav->sp_plan_count * sizeof *nav->sp_plan);
    nav->sp_plan = NULL;
    nav->sp_plan_count = 0;
    nav->sp_cells = 0;
}

typedef struct label_job {
    const cs_nav* nav;
    uint8_t* label;
    uint32_t* count; // per tile: its regions (written at tile + 1)
    uint32_t* rep;   // second pass: per region its centre cell
    const uint32_t* first;
    bool second;
} label_job;

// Labels the FREE cells of tile (tx, ty) by 4-connected region (a flood from each unlabelled cell
// in scan order), or in the second pass finds each region's centre cell.
static void label_tile(const label_job* j, int32_t tx, int32_t ty) {
    const cs_nav* nav = j->nav;
    const int32_t i0 = tx * TILE, j0 = ty * TILE;
    const int32_t i1 = i0 + TILE < nav->gw ? i0 + TILE : nav->gw;
    const int32_t j1 = j0 + TILE < nav->gh ? j0 + TILE : nav->gh;
    const size_t gw = (size_t)nav->gw;
    const uint32_t tile = (uint32_t)ty * (uint32_t)nav->sp.tw + (uint32_t)tx;
    if (!j->second) {
        uint32_t stack[TILE * TILE];
        uint32_t regions = 0;
        for (int32_t y = j0; y < j1; ++y)
            for (int32_t x = i0; x < i1; ++x)
                j->label[(size_t)y * gw + (size_t)x] = CS_NAV_NO_REGION;
        for (int32_t y = j0; y < j1; ++y)
            for (int32_t x = i0; x < i1; ++x) {
                const uint32_t c = (uint32_t)((size_t)y * gw + (size_t)x);
                if (j->label[c] != CS_NAV_NO_REGION || nav->blocked[c] != CS_NAV_FREE) continue;
                // A label is a byte: a tile of more regions (only tiny enclosures could make them)
                // leaves the rest unlabelled, where spread agents head for the nearest FREE cell.
                if (regions == CS_NAV_NO_REGION) continue;
                const uint8_t l = (uint8_t)regions++;
                uint32_t n = 0;
                stack[n++] = c;
                j->label[c] = l;
                while (n) {
                    const uint32_t m = stack[--n];
                    const int32_t mi = (int32_t)(m % (uint32_t)gw),
                                  mj = (int32_t)(m / (uint32_t)gw);
                    const int32_t di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
                    for (int k = 0; k < 4; ++k) {
                        const int32_t ni = mi + di[k], nj = mj + dj[k];
                        if (ni < i0 || nj < j0 || ni >= i1 || nj >= j1) continue;
                        const uint32_t q = (uint32_t)((size_t)nj * gw + (size_t)ni);
                        if (j->label[q] != CS_NAV_NO_REGION || nav->blocked[q] != CS_NAV_FREE)
                            continue;
                        j->label[q] = l;
                        stack[n++] = q;
                    }
                }
            }
        j->count[tile + 1] = regions;
        return;
    }
    // The centre of each region: its cell nearest the mean of its cells (the first in scan order
    // among equals). A tile has at most TILE * TILE / 2 regions.
    const uint32_t n = j->first[tile + 1] - j->first[tile];
    if (n == 0) return;
    int32_t si[TILE * TILE / 2], sj[TILE * TILE / 2], cnt[TILE * TILE / 2];
    float best[TILE * TILE / 2];
    memset(si, 0, n * sizeof *si), memset(sj, 0, n * sizeof *sj), memset(cnt, 0, n * sizeof *cnt);
    for (int32_t y = j0; y < j1; ++y)
        for (int32_t x = i0; x < i1; ++x) {
            const uint8_t l = j->label[(size_t)y * gw + (size_t)x];
            if (l == CS_NAV_NO_REGION) continue;
            si[l] += x - i0, sj[l] += y - j0, cnt[l]++;
        }
    for (uint32_t l = 0; l < n; ++l) best[l] = INFINITY;
    for (int32_t y = j0; y < j1; ++y)
        for (int32_t x = i0; x < i1; ++x) {
            const uint32_t c = (uint32_t)((size_t)y * gw + (size_t)x);
            const uint8_t l = j->label[c];
            if (l == CS_NAV_NO_REGION) continue;
            const float mx = (float)si[l] / (float)cnt[l], my = (float)sj[l] / (float)cnt[l];
            const float dx = (float)(x - i0) - mx, dy = (float)(y - j0) - my;
            const float d = dx * dx + dy * dy;
            if (d < best[l]) best[l] = d, j->rep[j->first[tile] + l] = c;
        }
}

static inline void heap_push(uint64_t* h, uint32_t* n, uint64_t e);
static inline uint64_t heap_pop(uint64_t* h, uint32_t* n);
static inline uint64_t key(float f, uint32_t node);

// The walking distance from cell src to every cell of its region (label l of the tile whose lower
// left cell is (i0, j0)), by local cell (y - j0) * TILE + (x - i0), INFINITY elsewhere: Dijkstra
// with the 8 steps (a diagonal one between two cells of the region), in cell units.
static void local_dist(const cs_nav* nav, int32_t i0, int32_t j0, uint8_t l, uint32_t src,
                       float* d) {
    const int32_t i1 = i0 + TILE < nav->gw ? i0 + TILE : nav->gw;
    const int32_t j1 = j0 + TILE < nav->gh ? j0 + TILE : nav->gh;
    const size_t gw = (size_t)nav->gw;
    const uint8_t* label = nav->sp.label;
    for (int k = 0; k < TILE * TILE; ++k) d[k] = INFINITY;
    uint64_t heap[8 * TILE * TILE + 1];
    uint8_t done[TILE * TILE];
    memset(done, 0, sizeof done);
    uint32_t hn = 0;
    const int32_t si = (int32_t)(src % (uint32_t)gw) - i0, sj = (int32_t)(src / (uint32_t)gw) - j0;
    d[sj * TILE + si] = 0.0f;
    heap_push(heap, &hn, key(0.0f, (uint32_t)(sj * TILE + si)));
#define IN(x, y)                                                                                   \
    ((x) >= 0 && (y) >= 0 && (x) < i1 - i0 && (y) < j1 - j0 &&                                     \
     label[(size_t)((y) + j0) * gw + (size_t)((x) + i0)] == l)
    while (hn) {
        const uint32_t m = (uint32_t)heap_pop(heap, &hn);
        if (done[m]) continue;
        done[m] = 1;
        const int32_t x = (int32_t)(m % TILE), y = (int32_t)(m / TILE);
        for (int32_t dy = -1; dy <= 1; ++dy)
            for (int32_t dx = -1; dx <= 1; ++dx) {
                if ((dx | dy) == 0 || !IN(x + dx, y + dy)) continue;
                if (dx && dy && !(IN(x + dx, y) && IN(x, y + dy))) continue;
                const uint32_t q = (uint32_t)((y + dy) * TILE + (x + dx));
                const float g = d[m] + (dx && dy ? 1.41421356f : 1.0f);
                if (done[q] || !(g < d[q])) continue;
                d[q] = g;
                heap_push(heap, &hn, key(g, q));
            }
    }
#undef IN
}

// The distances within each region of tile (tx, ty) (cs_nav_spread.rep_d, .mat), in metres.
static void region_dists(const cs_nav* nav, int32_t tx, int32_t ty) {
    const cs_nav_spread* sp = &nav->sp;
    const uint32_t tile = (uint32_t)ty * (uint32_t)sp->tw + (uint32_t)tx;
    const int32_t i0 = tx * TILE, j0 = ty * TILE;
    const float h = nav->def.cell_size;
    float d[TILE * TILE];
    for (uint32_t r = sp->first[tile]; r < sp->first[tile + 1]; ++r) {
        const uint8_t l = (uint8_t)(r - sp->first[tile]);
        const uint32_t k0 = sp->port_first[r], deg = sp->port_first[r + 1] - k0;
        for (uint32_t k = 0; k <= deg; ++k) {
            // k < deg: from the portal's cell on r's side; k == deg: from the centre.
            uint32_t src;
            if (k < deg) {
                const cs_nav_portal* p = &sp->portal[sp->port_list[k0 + k]];
                src = p->cell[p->r[0] == r ? 0 : 1];
            } else {
                src = sp->rep[r];
            }
            local_dist(nav, i0, j0, l, src, d);
            for (uint32_t m = 0; m < deg; ++m) {
                const cs_nav_portal* q = &sp->portal[sp->port_list[k0 + m]];
                const uint32_t c = q->cell[q->r[0] == r ? 0 : 1];
                const int32_t x = (int32_t)(c % (uint32_t)nav->gw) - i0;
                const int32_t y = (int32_t)(c / (uint32_t)nav->gw) - j0;
                const float v = d[y * TILE + x] * h;
                if (k < deg)
                    sp->mat[sp->mat_first[r] + k * deg + m] = v;
                else
                    sp->rep_d[k0 + m] = v;
            }
        }
    }
}

static void dist_team(void* arg, int t, int nt) {
    const cs_nav* nav = arg;
    int lo, hi;
    cs_team_range(nav->sp.th, 1, t, nt, &lo, &hi);
    for (int32_t ty = lo; ty < hi; ++ty)
        for (int32_t tx = 0; tx < nav->sp.tw; ++tx) region_dists(nav, tx, ty);
}

static void label_team(void* arg, int t, int nt) {
    const label_job* j = arg;
    const int32_t tw = j->nav->sp.tw, th = j->nav->sp.th;
    int lo, hi;
    cs_team_range(th, 1, t, nt, &lo, &hi);
    for (int32_t ty = lo; ty < hi; ++ty)
        for (int32_t tx = 0; tx < tw; ++tx) label_tile(j, tx, ty);
}

// The portals along one tile border: cells (i, j) + k * (di, dj) for k in [0, len) on the lower
// side, each with its neighbor (i, j) + k * (di, dj) + (ox, oy) on the upper side. Counts them, and
// with `out` stores them.
static uint32_t border_portals(const cs_nav* nav, int32_t i, int32_t j, int32_t di, int32_t dj,
                               int32_t len, int32_t ox, int32_t oy, cs_nav_portal* out) {
    const size_t gw = (size_t)nav->gw;
    uint32_t n = 0;
    int32_t k = 0;
    while (k < len) {
        const int32_t ai = i + k * di, aj = j + k * dj;
        const uint32_t a = (uint32_t)((size_t)aj * gw + (size_t)ai);
        const uint32_t b = (uint32_t)((size_t)(aj + oy) * gw + (size_t)(ai + ox));
        if (nav->blocked[a] != CS_NAV_FREE || nav->blocked[b] != CS_NAV_FREE) {
            ++k;
            continue;
        }
        const uint32_t ra = region_of(nav, a), rb = region_of(nav, b);
        int32_t e = k + 1; // the run: both sides FREE, the same two regions
        for (; e < len; ++e) {
            const int32_t ei = i + e * di, ej = j + e * dj;
            const uint32_t ea = (uint32_t)((size_t)ej * gw + (size_t)ei);
            const uint32_t eb = (uint32_t)((size_t)(ej + oy) * gw + (size_t)(ei + ox));
            if (nav->blocked[ea] != CS_NAV_FREE || nav->blocked[eb] != CS_NAV_FREE ||
                region_of(nav, ea) != ra || region_of(nav, eb) != rb)
                break;
        }
        if (out) {
            const int32_t m = (k + e - 1) / 2, mi = i + m * di, mj = j + m * dj;
            const uint32_t ma = (uint32_t)((size_t)mj * gw + (size_t)mi);
            const uint32_t mb = (uint32_t)((size_t)(mj + oy) * gw + (size_t)(mi + ox));
            out[n] = (cs_nav_portal){{ma, mb}, {ra, rb}, {0, 0}};
        }
        ++n;
        k = e;
    }
    return n;
}

// Every portal in tile order (each tile's right border, then its top border), counted or stored.
static uint32_t all_portals(const cs_nav* nav, cs_nav_portal* out) {
    uint32_t n = 0;
    for (int32_t ty = 0; ty < nav->sp.th; ++ty)
        for (int32_t tx = 0; tx < nav->sp.tw; ++tx) {
            const int32_t i0 = tx * TILE, j0 = ty * TILE;
            const int32_t w = i0 + TILE < nav->gw ? TILE : nav->gw - i0;
            const int32_t h = j0 + TILE < nav->gh ? TILE : nav->gh - j0;
            if (i0 + TILE < nav->gw)
                n += border_portals(nav, i0 + TILE - 1, j0, 0, 1, h, 1, 0, out ? out + n : NULL);
            if (j0 + TILE < nav->gh)
                n += border_portals(nav, i0, j0 + TILE - 1, 1, 0, w, 0, 1, out ? out + n : NULL);
        }
    return n;
}

crowd_status cs_nav_spread_lay(crowd_world* w, cs_nav* nav) {
    const int threads = w->threads;
    const int agents = w->index_count;
    if (nav->sp.ready && nav->sp_cells == nav->cells && nav->sp_scratch_count >= threads) {
        if (nav->sp_plan_count >= agents) return CROWD_OK;
        // Agents were added: more plans (the graph stays).
        const int plans = agents + agents / 2;
        cs_nav_plan* p = cs_alloc(w, (size_t)plans * sizeof *p);
        if (!p) return CROWD_ERR_OUT_OF_MEMORY;
        memset(p, 0, (size_t)plans * sizeof *p);
        memcpy(p, nav->sp_plan, (size_t)nav->sp_plan_count * sizeof *p);
        cs_free(w, nav->sp_plan, (size_t)nav->sp_plan_count * sizeof *p);
        nav->sp_plan = p;
        nav->sp_plan_count = plans;
        return CROWD_OK;
    }
    cs_nav_spread_drop(w, nav);
    cs_nav_spread* sp = &nav->sp;
    sp->tw = (nav->gw + TILE - 1) / TILE;
    sp->th = (nav->gh + TILE - 1) / TILE;
    const size_t tiles = (size_t)sp->tw * (size_t)sp->th;
    nav->sp_cells = nav->cells;
    sp->label = cs_alloc(w, nav->cells);
    sp->first = cs_alloc(w, (tiles + 1) * sizeof *sp->first);
    if (!sp->label || !sp->first) goto fail;
    label_job job = {.nav = nav, .label = sp->label, .count = sp->first};
    sp->first[0] = 0;
    cs_team_run(threads, label_team, &job);
    for (size_t t = 0; t < tiles; ++t) sp->first[t + 1] += sp->first[t];
    sp->nregions = sp->first[tiles];
    sp->rep = cs_alloc(w, (size_t)sp->nregions * sizeof *sp->rep);
    sp->port_first = cs_alloc(w, ((size_t)sp->nregions + 1) * sizeof *sp->port_first);
    if ((sp->nregions && !sp->rep) || !sp->port_first) goto fail;
    job.second = true;
    job.rep = sp->rep;
    job.first = sp->first;
    cs_team_run(threads, label_team, &job);
    sp->nportals = all_portals(nav, NULL);
    sp->nlist = 2 * sp->nportals;
    sp->portal = cs_alloc(w, (size_t)sp->nportals * sizeof *sp->portal);
    sp->port_list = cs_alloc(w, (size_t)sp->nlist * sizeof *sp->port_list);
    if (sp->nportals && (!sp->portal || !sp->port_list)) goto fail;
    all_portals(nav, sp->portal);
    // Each region's portals, in portal order.
    memset(sp->port_first, 0, ((size_t)sp->nregions + 1) * sizeof *sp->port_first);
    for (uint32_t p = 0; p < sp->nportals; ++p)
        for (int s = 0; s < 2; ++s) sp->port_first[sp->portal[p].r[s] + 1]++;
    for (uint32_t r = 0; r < sp->nregions; ++r) sp->port_first[r + 1] += sp->port_first[r];
    {
        // A cursor per region.
        uint32_t* at = cs_alloc(w, ((size_t)sp->nregions + 1) * sizeof *at);
        if (!at) goto fail;
        memcpy(at, sp->port_first, ((size_t)sp->nregions + 1) * sizeof *at);
        for (uint32_t p = 0; p < sp->nportals; ++p)
            for (int s = 0; s < 2; ++s) {
                const uint32_t r = sp->portal[p].r[s];
                sp->portal[p].local[s] = (uint16_t)(at[r] - sp->port_first[r]);
                sp->port_list[at[r]++] = p;
            }
        cs_free(w, at, ((size_t)sp->nregions + 1) * sizeof *at);
    }
    // The distances within each region.
    sp->mat_first = cs_alloc(w, ((size_t)sp->nregions + 1) * sizeof *sp->mat_first);
    if (!sp->mat_first) goto fail;
    uint64_t nmat = 0;
    for (uint32_t r = 0; r < sp->nregions; ++r) {
        sp->mat_first[r] = (uint32_t)nmat;
        const uint64_t deg = sp->port_first[r + 1] - sp->port_first[r];
        if (deg > 4 * TILE) goto fail; // cannot be: at most TILE / 2 runs a side
        nmat += deg * deg;
    }
    if (nmat > UINT32_MAX) goto fail;
    sp->mat_first[sp->nregions] = (uint32_t)nmat;
    sp->nmat = (uint32_t)nmat;
    sp->mat = cs_alloc(w, (size_t)sp->nmat * sizeof *sp->mat);
    sp->rep_d = cs_alloc(w, (size_t)sp->nlist * sizeof *sp->rep_d);
    if ((sp->nmat && !sp->mat) || (sp->nlist && !sp->rep_d)) goto fail;
    cs_team_run(threads, dist_team, nav);
    // A search settles each node once, which then pushes its region's portals and the goal.
    uint64_t heap = 0, most = 0;
    for (uint32_t r = 0; r < sp->nregions; ++r) {
        const uint64_t d = sp->port_first[r + 1] - sp->port_first[r];
        most = d > most ? d : most;
    }
    for (uint32_t p = 0; p < sp->nportals; ++p)
        for (int s = 0; s < 2; ++s) {
            const uint32_t r = sp->portal[p].r[s];
            heap += sp->port_first[r + 1] - sp->port_first[r] + 1;
        }
    heap += most + 2;
    if (heap > UINT32_MAX) goto fail;
    sp->heap_cap = (uint32_t)heap;
    sp->bytes = nav->cells + (tiles + 1) * 4 + (size_t)sp->nregions * 12 + 8 +
                (size_t)sp->nlist * 8 + (size_t)sp->nmat * 4 +
                (size_t)sp->nportals * sizeof(cs_nav_portal);
    // Scratch for each thread of the goal pass, and a plan per agent index.
    const size_t nodes = 2 * (size_t)sp->nportals + 1;
    nav->sp_scratch = cs_alloc(w, (size_t)threads * sizeof *nav->sp_scratch);
    if (!nav->sp_scratch) goto fail;
    memset(nav->sp_scratch, 0, (size_t)threads * sizeof *nav->sp_scratch);
    nav->sp_scratch_count = threads;
    for (int t = 0; t < threads; ++t) {
        cs_nav_spread_scratch* s = &nav->sp_scratch[t];
        s->g = cs_alloc(w, nodes * sizeof *s->g);
        s->parent = cs_alloc(w, nodes * sizeof *s->parent);
        s->stamp = cs_alloc(w, nodes * sizeof *s->stamp);
        s->done = cs_alloc(w, nodes * sizeof *s->done);
        s->heap = cs_alloc(w, (size_t)sp->heap_cap * sizeof *s->heap);
        if (!s->g || !s->parent || !s->stamp || !s->done || !s->heap) goto fail;
        memset(s->stamp, 0, nodes * sizeof *s->stamp);
        memset(s->done, 0, nodes * sizeof *s->done);
    }
    const int plans = agents > 0 ? agents : 1;
    nav->sp_plan = cs_alloc(w, (size_t)plans * sizeof *nav->sp_plan);
    if (!nav->sp_plan) goto fail;
    memset(nav->sp_plan, 0, (size_t)plans * sizeof *nav->sp_plan);
    nav->sp_plan_count = plans;
    nav->sp_epoch = nav->sp_epoch == UINT32_MAX ? 1 : nav->sp_epoch + 1;
    sp->ready = true;
    return CROWD_OK;
fail:
    cs_nav_spread_drop(w, nav);
    return CROWD_ERR_OUT_OF_MEMORY;
}

size_t cs_nav_spread_used_bytes(const cs_nav* nav) {
    const size_t nodes = 2 * (size_t)nav->sp.nportals + 1;
    return nav->sp.bytes +
           (size_t)nav->sp_scratch_count * (nodes * 16 + (size_t)nav->sp.heap_cap * 8) +
           (size_t)nav->sp_plan_count * sizeof(cs_nav_plan);
}

// ---- planning ----------------------------------------------------------------------------------

// The cell a node stands at: the portal's cell on the side it enters.
static inline uint32_t node_cell(const cs_nav* nav, uint32_t node) {
    return nav->sp.portal[node >> 1].cell[node & 1];
}

static inline uint32_t node_region(const cs_nav* nav, uint32_t node) {
    return nav->sp.portal[node >> 1].r[node & 1];
}

static inline void heap_push(uint64_t* h, uint32_t* n, uint64_t e) {
    uint32_t k = (*n)++;
    while (k > 0) {
        const uint32_t p = (k - 1) / 2;
        if (h[p] <= e) break;
        h[k] = h[p];
        k = p;
    }
    h[k] = e;
}

static inline uint64_t heap_pop(uint64_t* h, uint32_t* n) {
    const uint64_t top = h[0], e = h[--*n];
    uint32_t k = 0;
    for (;;) {
        uint32_t c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && h[c + 1] < h[c]) ++c;
        if (e <= h[c]) break;
        h[k] = h[c];
        k = c;
    }
    if (*n) h[k] = e;
    return top;
}

static inline uint64_t key(float f, uint32_t node) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return (uint64_t)bits << 32 | node;
}

// The nearest FREE cell to cell (i, j) within two cells (by distance, then scan order), or
// CS_NAV_NONE.
static uint32_t nearest_free(const cs_nav* nav, int32_t i, int32_t j) {
    uint32_t best = CS_NAV_NONE;
    int32_t bd = INT32_MAX;
    for (int32_t dj = -2; dj <= 2; ++dj)
        for (int32_t di = -2; di <= 2; ++di) {
            const int32_t d = di * di + dj * dj;
            if (d < bd && free_cell(nav, i + di, j + dj))
                bd = d, best = (uint32_t)((j + dj) * nav->gw + (i + di));
        }
    return best;
}

// The FREE cell the goal point is reached from: its own, else the nearest within two cells of
// the grid cell nearest it; CS_NAV_NONE without one.
static uint32_t goal_cell(const cs_nav* nav, crowd_vec2 own) {
    int64_t i = (int64_t)cs_nav_quantize(own.x, nav->inv_cell) - nav->gx0;
    int64_t j = (int64_t)cs_nav_quantize(own.y, nav->inv_cell) - nav->gy0;
    i = i < 0 ? 0 : (i >= nav->gw ? nav->gw - 1 : i);
    j = j < 0 ? 0 : (j >= nav->gh ? nav->gh - 1 : j);
    return nearest_free(nav, (int32_t)i, (int32_t)j);
}

// The walking distance from the goal's cell gc (in region rg) to each of rg's portals' cells on its
// side (dg, as rg's list), and to rg's centre (*to_rep), plus the goal's offset in its cell.
static void goal_dists(const cs_nav* nav, uint32_t rg, uint32_t gc, crowd_vec2 own, float* dg,
                       float* to_rep) {
    const cs_nav_spread* sp = &nav->sp;
    const uint32_t tile = tile_of(nav, gc);
    const int32_t i0 = (int32_t)(tile % (uint32_t)sp->tw) * TILE;
    const int32_t j0 = (int32_t)(tile / (uint32_t)sp->tw) * TILE;
    float d[TILE * TILE];
    local_dist(nav, i0, j0, sp->label[gc], gc, d);
    const float h = nav->def.cell_size, off = dist(cs_nav_center(nav, gc), own);
    const uint32_t k0 = sp->port_first[rg], deg = sp->port_first[rg + 1] - k0;
    for (uint32_t k = 0; k <= deg; ++k) {
        uint32_t c = sp->rep[rg];
        if (k < deg) {
            const cs_nav_portal* p = &sp->portal[sp->port_list[k0 + k]];
            c = p->cell[p->r[0] == rg ? 0 : 1];
        }
        const int32_t x = (int32_t)(c % (uint32_t)nav->gw) - i0;
        const int32_t y = (int32_t)(c / (uint32_t)nav->gw) - j0;
        const float v = d[y * TILE + x] * h + off;
        if (k < deg)
            dg[k] = v;
        else
            *to_rep = v;
    }
}

// The plan from region r (its centre) to the goal at `own`, whose cell gc (FREE, or CS_NAV_NONE)
// lies in region rg. Between two portals of a region the way costs the walking distance within
// the region (cs_nav_spread.mat) and the step across; the heuristic, the straight line to the
// goal, is below it, so the first way found is the shortest over the graph.
static void plan(const cs_nav* nav, cs_nav_spread_scratch* s, uint32_t r, uint32_t gc,
                 crowd_vec2 own, cs_nav_plan* out) {
    const cs_nav_spread* sp = &nav->sp;
    const uint32_t rg = gc == CS_NAV_NONE ? UINT32_MAX : region_of(nav, gc);
    *out = (cs_nav_plan){.region = r, .epoch = nav->sp_epoch, .goal = own};
    if (rg == UINT32_MAX) {
        out->n = -1;
        return;
    }
    float dg[4 * TILE]; // a region has at most TILE / 2 portals a side
    float to_rep = 0.0f;
    goal_dists(nav, rg, gc, own, dg, &to_rep);
    if (r == rg) {
        out->total = to_rep;
        return;
    }
    if (++s->search == 0) { // the stamps wrapped: none of them may pass for this search
        const size_t nodes = 2 * (size_t)sp->nportals + 1;
        memset(s->stamp, 0, nodes * sizeof *s->stamp);
        memset(s->done, 0, nodes * sizeof *s->done);
        s->search = 1;
    }
    const uint32_t goal = 2 * sp->nportals, stamp = s->search;
    const float step = nav->def.cell_size; // across a portal
    uint32_t hn = 0;
#define RELAX(node, gv, par)                                                                       \
    do {                                                                                           \
        const uint32_t n_ = (node);                                                                \
        const float g_ = (gv);                                                                     \
        if (s->done[n_] != stamp && (s->stamp[n_] != stamp || g_ < s->g[n_])) {                    \
            s->stamp[n_] = stamp, s->g[n_] = g_, s->parent[n_] = (par);                            \
            const float h_ =                                                                       \
                n_ == goal ? 0.0f : dist(cs_nav_center(nav, node_cell(nav, n_)), own);             \
            heap_push(s->heap, &hn, key(g_ + h_, n_));                                             \
        }                                                                                          \
    } while (0)
    // From the centre across each portal of r, into the region on its other side.
    for (uint32_t k = sp->port_first[r]; k < sp->port_first[r + 1]; ++k) {
        const uint32_t p = sp->port_list[k];
        RELAX(2 * p + (sp->portal[p].r[0] == r ? 1u : 0u), sp->rep_d[k] + step, CS_NAV_NONE);
    }
    bool found = false;
    while (hn) {
        const uint32_t node = (uint32_t)heap_pop(s->heap, &hn);
        if (s->done[node] == stamp) continue;
        s->done[node] = stamp;
        if (node == goal) {
            found = true;
            break;
        }
        const uint32_t in = node_region(nav, node);
        const uint32_t li = sp->portal[node >> 1].local[node & 1];
        const uint32_t k0 = sp->port_first[in], deg = sp->port_first[in + 1] - k0;
        const float* row = &sp->mat[sp->mat_first[in] + li * deg];
        const float g = s->g[node];
        if (in == rg) RELAX(goal, g + dg[li], node);
        for (uint32_t k = 0; k < deg; ++k) {
            const uint32_t p = sp->port_list[k0 + k];
            if (k == li) continue;
            RELAX(2 * p + (sp->portal[p].r[0] == in ? 1u : 0u), g + row[k] + step, node);
        }
    }
#undef RELAX
    if (!found) {
        out->n = -1;
        return;
    }
    out->total = s->g[goal];
    uint32_t len = 0;
    for (uint32_t n = s->parent[goal]; n != CS_NAV_NONE; n = s->parent[n]) ++len;
    out->more = len > AHEAD;
    out->n = (int32_t)(len < AHEAD ? len : AHEAD);
    uint32_t k = len;
    for (uint32_t n = s->parent[goal]; n != CS_NAV_NONE; n = s->parent[n]) {
        --k;
        if (k < AHEAD) out->wp[k] = node_cell(nav, n), out->gwp[k] = s->g[n];
    }
}

// ---- sight and the aim -------------------------------------------------------------------------

static bool near_list(void* ctx, const cs_wall_seg* list, uint32_t n) {
    return cs_near_list(ctx, list, n);
}

// Whether cell c sees point q with the fields' rule (nav_build.c's walk_sees): the grid traversal
// (cs_nav_walk) from c's centre through FREE cells to q's cell, inside the grid; where it passes a
// cell that is not open, the line keeps half the clearance from every wall.
static bool sees(const crowd_world* w, const cs_nav* nav, uint32_t c, crowd_vec2 q) {
    const int32_t i0 = (int32_t)(c % (uint32_t)nav->gw), j0 = (int32_t)(c / (uint32_t)nav->gw);
    const float au = (float)((double)q.x * (double)nav->inv_cell - (double)nav->gx0 - 0.5);
    const float av = (float)((double)q.y * (double)nav->inv_cell - (double)nav->gy0 - 0.5);
    // Enough steps for any line: one per cell border it crosses, and a few.
    const int steps =
        abs((int32_t)lroundf(au - (float)i0)) + abs((int32_t)lroundf(av - (float)j0)) + 4;
    const cs_nav_walk_end end =
        cs_nav_walk(nav->blocked, nav->open, nav->gw, nav->gh, i0, j0, au, av, steps, false);
    if (end != CS_NAV_WALK_NEAR) return end == CS_NAV_WALK_CLEAR;
    const crowd_vec2 p = cs_nav_center(nav, c);
    const float r = 0.5f * nav->def.clearance;
    cs_near_line ql = cs_near_line_of(p.x, p.y, q.x, q.y, r);
    const cs_wall_box box = cs_walls_box(&w->walls, fminf(p.x, q.x) - r, fminf(p.y, q.y) - r,
                                         fmaxf(p.x, q.x) + r, fmaxf(p.y, q.y) + r);
    return !cs_walls_visit(&w->walls, box, near_list, &ql);
}

// The cell an agent in cell c of region r steers at toward cell `to` (next to r, or in it) when
// it sees none of its waypoints: a breadth-first search over r's cells (of c's tile and the cells
// round it) from `to`, whose path from c is followed as far as c sees.
static uint32_t along_region(const crowd_world* w, const cs_nav* nav, uint32_t c, uint32_t r,
                             uint32_t to) {
    enum { SIDE = TILE + 2, N = SIDE * SIDE };
    const int32_t ci = (int32_t)(c % (uint32_t)nav->gw), cj = (int32_t)(c / (uint32_t)nav->gw);
    const int32_t wi = (ci >> CS_NAV_SPREAD_SHIFT) * TILE - 1,
                  wj = (cj >> CS_NAV_SPREAD_SHIFT) * TILE - 1;
    const int32_t ti = (int32_t)(to % (uint32_t)nav->gw) - wi,
                  tj = (int32_t)(to / (uint32_t)nav->gw) - wj;
    if (ti < 0 || tj < 0 || ti >= SIDE || tj >= SIDE) return to;
    uint16_t parent[N], queue[N];
    uint8_t seen[N];
    memset(seen, 0, sizeof seen);
    uint32_t head = 0, tail = 0;
    const uint16_t start = (uint16_t)(tj * SIDE + ti),
                   goal = (uint16_t)((cj - wj) * SIDE + (ci - wi));
    queue[tail++] = start;
    seen[start] = 1;
    parent[start] = start;
    while (head < tail && !seen[goal]) {
        const uint16_t m = queue[head++];
        const int32_t mi = m % SIDE, mj = m / SIDE;
        const int32_t di[4] = {1, -1, 0, 0}, dj[4] = {0, 0, 1, -1};
        for (int k = 0; k < 4; ++k) {
            const int32_t ni = mi + di[k], nj = mj + dj[k];
            if (ni < 0 || nj < 0 || ni >= SIDE || nj >= SIDE) continue;
            const uint16_t q = (uint16_t)(nj * SIDE + ni);
            if (seen[q] || !free_cell(nav, wi + ni, wj + nj)) continue;
            const uint32_t qc = (uint32_t)((wj + nj) * nav->gw + (wi + ni));
            if (region_of(nav, qc) != r) continue;
            seen[q] = 1;
            parent[q] = m;
            queue[tail++] = q;
        }
    }
    if (!seen[goal]) return to;
    // The farthest cell of the path c sees (the path's first step at least).
    uint32_t best = CS_NAV_NONE;
    for (uint16_t m = parent[goal];; m = parent[m]) {
        const uint32_t mc = (uint32_t)((wj + m / SIDE) * nav->gw + (wi + m % SIDE));
        if (best == CS_NAV_NONE || sees(w, nav, c, cs_nav_center(nav, mc))) best = mc;
        if (m == start) break;
    }
    return best;
}

// The entry of an agent in cell c (in the grid) heading for `own`, with plan p (made again unless
// it is the plan of c's region for the grid as it is) and scratch s.
static uint32_t entry_of(const crowd_world* w, crowd_vec2 own, uint32_t c, cs_nav_plan* p,
                         cs_nav_spread_scratch* s) {
    const cs_nav* nav = &w->nav;
    const uint32_t r = region_of(nav, c);
    if (r == UINT32_MAX) // pushed by the crowd onto a NEAR cell: back to the nearest FREE one
        return nearest_free(nav, (int32_t)(c % (uint32_t)nav->gw),
                            (int32_t)(c / (uint32_t)nav->gw));
    if (p->region != r || p->epoch != nav->sp_epoch || p->goal.x != own.x || p->goal.y != own.y) {
        plan(nav, s, r, goal_cell(nav, own), own, p);
    }
    if (p->n < 0) return CS_NAV_STAND_IN | c;
    if (!p->more && sees(w, nav, c, own)) return CS_NAV_TARGET;
    for (int32_t k = p->n - 1; k >= 0; --k)
        if (sees(w, nav, c, cs_nav_center(nav, p->wp[k]))) return p->wp[k];
    const uint32_t to = p->n > 0 ? p->wp[0] : goal_cell(nav, own);
    return to == CS_NAV_NONE ? CS_NAV_STAND_IN | c : along_region(w, nav, c, r, to);
}

cs_nav_aim cs_nav_spread_aim_memo(const crowd_world* w, crowd_vec2 own, crowd_vec2 pos,
                                  uint32_t idx, int t, cs_nav_memo* memo) {
    const cs_nav* nav = &w->nav;
    const cs_nav_targets tg = {.count = 1};
    const uint32_t c = cs_nav_cell(nav, pos);
    if (c != CS_NAV_NONE && memo->epoch == nav->epoch && memo->cell == c)
        return cs_nav_aim_from(nav, true, &tg, own, pos, memo->entry);
    const uint32_t e = c == CS_NAV_NONE
                           ? CS_NAV_NONE
                           : entry_of(w, own, c, &nav->sp_plan[idx], &nav->sp_scratch[t]);
    if (c != CS_NAV_NONE) *memo = (cs_nav_memo){c, e, nav->epoch};
    return cs_nav_aim_from(nav, true, &tg, own, pos, e);
}

crowd_route_info cs_nav_spread_route(const crowd_world* w, crowd_vec2 own, crowd_vec2 pos) {
    const cs_nav* nav = &w->nav;
    crowd_world* mw = (crowd_world*)(uintptr_t)w; // the allocator only: the world is not changed
    const size_t nodes = 2 * (size_t)nav->sp.nportals + 1;
    cs_nav_spread_scratch s = {0};
    s.g = cs_alloc(mw, nodes * sizeof *s.g);
    s.parent = cs_alloc(mw, nodes * sizeof *s.parent);
    s.stamp = cs_alloc(mw, nodes * sizeof *s.stamp);
    s.done = cs_alloc(mw, nodes * sizeof *s.done);
    s.heap = cs_alloc(mw, (size_t)nav->sp.heap_cap * sizeof *s.heap);
    crowd_route_info r = {.state = CROWD_ROUTE_STATE_PENDING, .destination = own, .aim = own};
    const uint32_t c = cs_nav_cell(nav, pos);
    if (s.g && s.parent && s.stamp && s.done && s.heap) {
        memset(s.stamp, 0, nodes * sizeof *s.stamp);
        memset(s.done, 0, nodes * sizeof *s.done);
        cs_nav_plan p = {0};
        const cs_nav_targets tg = {.count = 1};
        const uint32_t e = c == CS_NAV_NONE ? CS_NAV_NONE : entry_of(w, own, c, &p, &s);
        const cs_nav_aim a = cs_nav_aim_from(nav, true, &tg, own, pos, e);
        r.state = a.state;
        r.aim = a.aim;
        r.destination = a.state == CROWD_ROUTE_STATE_UNREACHABLE ? a.aim : own;
        r.distance = dist(pos, a.aim);
        if (!a.final && p.epoch) {
            // The rest of the way from the aim: along the plan from the waypoint it is (or from
            // the first one, for a cell on the way to it).
            int32_t k = 0;
            while (k < p.n && p.wp[k] != e) ++k;
            if (k == p.n) {
                k = 0;
                r.distance += p.n > 0 ? dist(a.aim, cs_nav_center(nav, p.wp[0])) : dist(a.aim, own);
            }
            r.distance += p.n > 0 ? p.total - p.gwp[k] : 0.0f;
        }
    }
    cs_free(mw, s.g, nodes * sizeof *s.g);
    cs_free(mw, s.parent, nodes * sizeof *s.parent);
    cs_free(mw, s.stamp, nodes * sizeof *s.stamp);
    cs_free(mw, s.done, nodes * sizeof *s.done);
    cs_free(mw, s.heap, (size_t)nav->sp.heap_cap * sizeof *s.heap);
    return r;
}
