// The field cache: destinations in use, their fields, the budget, and the route phase that lays
// the grid and builds what is missing.
//
// Memory is only ever taken by calls that may fail cleanly: a new destination (cs_nav_reserve,
// from the calls that set goals and paths) takes its entry, and the route phase (a step's first
// work after the sort, or crowd_world_nav_update) allocates the grid and the missing fields before
// it builds anything, all or nothing. The budget is checked when a destination comes into use
// and when an obstacle would grow the grid, so the fields in use always fit it; fields nobody
// uses stay cached until the budget needs their room, least recently used first.
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/internal.h"
#include "nav/nav.h"

crowd_nav_def crowd_nav_def_default(void) {
    return (crowd_nav_def){.enable = true,
                           .cell_size = 0.5f,
                           .clearance = 0.3f,
                           .budget = (size_t)1 << 30,
                           .max_cells = (int64_t)1 << 26};
}

crowd_status cs_nav_check_def(const crowd_nav_def* d) {
    if (!isfinite(d->cell_size) || !isfinite(d->clearance)) return CROWD_ERR_NOT_FINITE;
    if (d->cell_size <= 0.0f) return CROWD_ERR_BAD_CELL_SIZE;
    if (d->clearance <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    if (d->cell_size < CROWD_MIN_CELL_SIZE || d->cell_size > CROWD_MAX_DISTANCE ||
        d->clearance > CROWD_MAX_DISTANCE || !(d->clearance > 0.5f * d->cell_size))
        return CROWD_ERR_OUT_OF_RANGE;
    if (d->max_cells < 1 || d->max_cells > CS_NAV_MAX_CELLS) return CROWD_ERR_BAD_COUNT;
    return CROWD_OK;
}

void cs_nav_init(cs_nav* nav, const crowd_nav_def* def) {
    *nav = (cs_nav){.def = *def, .inv_cell = 1.0f / def->cell_size, .epoch = 1};
    nav->pending_x0 = nav->pending_y0 = INFINITY;
    nav->pending_x1 = nav->pending_y1 = -INFINITY;
}

static size_t anchor_bytes(size_t cells) {
    return cells * sizeof(uint32_t);
}

// A field's tile boxes (see cs_nav_field.tiles), of the grid as it is.
static void drop_tiles(crowd_world* w, cs_nav* nav, cs_nav_field* f) {
    cs_free(w, f->tiles, cs_nav_tile_count(nav->gw, nav->gh) * sizeof *f->tiles);
    f->tiles = NULL;
    f->tiles_ok = false;
}

static void drop_anchor(crowd_world* w, cs_nav* nav, cs_nav_field* f) {
    drop_tiles(w, nav, f);
    if (!f->anchor) return;
    cs_free(w, f->anchor, anchor_bytes(nav->cells));
    nav->field_bytes -= anchor_bytes(nav->cells);
    f->anchor = NULL;
    f->built = false;
    f->stale = false;
    f->repaired = false;
}

static void free_scratch(crowd_world* w, cs_nav* nav) {
    const size_t n = nav->scratch_cells;
    for (int t = 0; t < nav->scratch_count; ++t) {
        cs_nav_scratch* s = &nav->scratch[t];
        cs_free(w, s->g, n * sizeof *s->g);
        cs_free(w, s->heap, n * sizeof *s->heap);
        cs_free(w, s->closed, n);
        cs_free(w, s->list, n * sizeof *s->list);
    }
    cs_free(w, nav->scratch, (size_t)nav->scratch_count * sizeof *nav->scratch);
    nav->scratch = NULL;
    nav->scratch_count = 0;
    nav->scratch_cells = 0;
}

void cs_nav_free(crowd_world* w, cs_nav* nav) {
    for (uint32_t i = 0; i < nav->nfields; ++i) drop_anchor(w, nav, &nav->fields[i]);
    cs_free(w, nav->fields, nav->fields_cap * sizeof *nav->fields);
    cs_free(w, nav->index, nav->index_cap * sizeof *nav->index);
    for (int32_t i = 0; i < nav->exits_used; ++i)
        cs_free(w, nav->exits[i].points, (size_t)nav->exits[i].count * sizeof(crowd_vec2));
    cs_free(w, nav->exits, (size_t)nav->exits_cap * sizeof *nav->exits);
    cs_free(w, nav->blocked, 2 * nav->cells);
    cs_free(w, nav->poly_xs, nav->poly_xs_cap * sizeof(double));
    cs_free(w, nav->restore, nav->restore_bytes);
    cs_free(w, nav->restore_check, nav->restore_check_bytes);
    free_scratch(w, nav);
    cs_nav_spread_drop(w, nav);
}

// ---- the index ----------------------------------------------------------------------------------

static uint32_t key_hash(cs_nav_key k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

// The index slot holding key, or the empty slot where it would go.
static uint32_t slot_of(const cs_nav* nav, cs_nav_key key) {
    const uint32_t mask = nav->index_cap - 1;
    uint32_t h = key_hash(key) & mask;
    while (nav->index[h] && nav->fields[nav->index[h] - 1].key != key) h = (h + 1) & mask;
    return h;
}

const cs_nav_field* cs_nav_find(const cs_nav* nav, cs_nav_key key) {
    if (nav->index_cap == 0) return NULL;
    const uint32_t n = nav->index[slot_of(nav, key)];
    return n ? &nav->fields[n - 1] : NULL;
}

// Room for one more field entry. Entries of destinations nobody uses and whose field was dropped
// are compacted away when the array is full, before it grows.
static crowd_status room_for_entry(crowd_world* w, cs_nav* nav) {
    if (nav->nfields < nav->fields_cap && 2 * (nav->nfields + 1) <= nav->index_cap) return CROWD_OK;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i)
        keep += nav->fields[i].users > 0 || nav->fields[i].anchor;
    const uint32_t cap = 2 * (keep + 1) > 16 ? 2 * (keep + 1) : 16;
    uint32_t icap = 32;
    while (icap < 2 * cap) icap *= 2;
    cs_nav_field* fields = cs_alloc(w, cap * sizeof *fields);
    uint32_t* index = cs_alloc(w, icap * sizeof *index);
    if (!fields || !index) {
        cs_free(w, fields, cap * sizeof *fields);
        cs_free(w, index, icap * sizeof *index);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i)
        if (nav->fields[i].users > 0 || nav->fields[i].anchor) fields[n++] = nav->fields[i];
    cs_free(w, nav->fields, nav->fields_cap * sizeof *nav->fields);
    cs_free(w, nav->index, nav->index_cap * sizeof *nav->index);
    nav->fields = fields;
    nav->fields_cap = cap;
    nav->nfields = n;
    nav->index = index;
    nav->index_cap = icap;
    memset(index, 0, icap * sizeof *index);
    for (uint32_t i = 0; i < n; ++i) index[slot_of(nav, fields[i].key)] = i + 1;
    return CROWD_OK;
}

// Cells the grid will have once laid: from the obstacles' box as it is now known (an upper bound
// after removals), 0 without obstacles.
static int64_t grid_cells_for(const cs_nav* nav, float x0, float y0, float x1, float y1) {
    if (!(x0 <= x1 && y0 <= y1)) return 0;
    const cs_nav_box b = cs_nav_grid_box(nav, x0, y0, x1, y1);
    return (int64_t)b.gw * b.gh;
}

// Whether `in_use` fields of a grid of `cells` fit the budget. A grid beyond the cell limit is not
// laid at all (navigation is suspended, see relay_grid), so it needs no field memory.
static bool fits(const cs_nav* nav, int64_t cells, int64_t in_use) {
    if (cells > nav->def.max_cells) return true;
    return (double)anchor_bytes((size_t)cells) * (double)in_use <= (double)nav->def.budget;
}

// Whether `pinned` fields and the spread strategy (its graph, scratch and plans, as
// cs_nav_spread_bytes counts them before the graph is laid) fit the budget on the grid the
// obstacles need now: the goals' destinations beyond them are then spread (cs_nav_rank).
static bool spread_fits(const crowd_world* w, const cs_nav* nav, float x0, float y0, float x1,
                        float y1, int64_t pinned) {
    if (!(x0 <= x1 && y0 <= y1)) return true;
    const cs_nav_box b = cs_nav_grid_box(nav, x0, y0, x1, y1);
    const int64_t cells = (int64_t)b.gw * b.gh;
    if (cells > nav->def.max_cells) return true;
    const double sp = (double)cs_nav_spread_bytes(b.gw, b.gh, w->threads, w->index_count + 1);
    return (double)anchor_bytes((size_t)cells) * (double)pinned + sp <= (double)nav->def.budget;
}

// Whether field f may not be spread: an exit set's, or a waypoint path's.
static bool pinned(const cs_nav_field* f) {
    return (f->key & CS_NAV_KEY_EXITS) || f->pins > 0;
}

// Room for a use of key (`pin`: by a waypoint path). Every destination in use gets a field while
// they all fit the budget; beyond it only the pinned ones must, and the goals' others are spread.
static crowd_status reserve(crowd_world* w, cs_nav_key key, bool pin) {
    cs_nav* nav = &w->nav;
    const cs_nav_field* f = cs_nav_find(nav, key);
    pin = pin || (key & CS_NAV_KEY_EXITS);
    const bool used = f && f->users > 0, pinned_now = f && pinned(f);
    if (used && (!pin || pinned_now)) return CROWD_OK;
    const int64_t cells =
        grid_cells_for(nav, nav->pending_x0, nav->pending_y0, nav->pending_x1, nav->pending_y1);
    if (!fits(nav, cells, nav->in_use + !used) &&
        !spread_fits(w, nav, nav->pending_x0, nav->pending_y0, nav->pending_x1, nav->pending_y1,
                     nav->pinned_in_use + (pin && !(used && pinned_now))))
        return CROWD_ERR_CAPACITY;
    return f ? CROWD_OK : room_for_entry(w, nav);
}

crowd_status cs_nav_reserve(crowd_world* w, cs_nav_key key) {
    return reserve(w, key, false);
}

crowd_status cs_nav_reserve_pinned(crowd_world* w, cs_nav_key key) {
    return reserve(w, key, true);
}

void cs_nav_pin(crowd_world* w, cs_nav_key key, int delta) {
    cs_nav* nav = &w->nav;
    if (!nav->index_cap || !nav->index[slot_of(nav, key)]) return;
    cs_nav_field* f = &nav->fields[nav->index[slot_of(nav, key)] - 1];
    const bool was = f->users > 0 && pinned(f);
    f->pins += delta;
    nav->pinned_in_use += (f->users > 0 && pinned(f)) - was;
    nav->rank_dirty = true;
}

void cs_nav_ref(crowd_world* w, cs_nav_key key, int delta) {
    cs_nav* nav = &w->nav;
    uint32_t h = nav->index_cap ? slot_of(nav, key) : 0;
    if (!nav->index_cap || !nav->index[h]) {
        if (delta < 0) return; // nothing counted (cannot happen: uses come in pairs)
        cs_nav_field* f = &nav->fields[nav->nfields++];
        *f = (cs_nav_field){.key = key};
        nav->index[h] = nav->nfields;
    }
    cs_nav_field* f = &nav->fields[nav->index[h] - 1];
    const int32_t before = f->users;
    const bool was = before > 0 && pinned(f);
    f->users += delta;
    nav->pinned_in_use += (f->users > 0 && pinned(f)) - was;
    nav->rank_dirty = true;
    if (before == 0 && f->users > 0) nav->in_use++;
    if (before > 0 && f->users == 0) {
        nav->in_use--;
        f->last_use = ++nav->clock;
        // A repaired field is kept only while in use: a snapshot saves the repaired fields in use
        // (a whole build is what a loaded world would make of the others), so a destination used
        // again is built whole in both.
        if (f->repaired) drop_anchor(w, nav, f);
    }
}

// ---- obstacles ---------------------------------------------------------------------------------

// Uses are counted only while the world has obstacles (before, nothing needs a field, and a world
// without walls takes no memory per destination). The first obstacle asks every behavior for its
// uses; the last one's removal forgets them all.
void cs_nav_stop_counting(crowd_world* w) {
    cs_nav* nav = &w->nav;
    for (uint32_t i = 0; i < nav->nfields; ++i) drop_anchor(w, nav, &nav->fields[i]);
    nav->nfields = 0;
    nav->in_use = 0;
    nav->pinned_in_use = 0;
    nav->spreading = 0;
    cs_nav_spread_drop(w, nav);
    if (nav->index) memset(nav->index, 0, nav->index_cap * sizeof *nav->index);
}

crowd_status cs_nav_start_counting(crowd_world* w) {
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        if (!cs_behaviors[b].count_routes) continue;
        const crowd_status st = cs_behaviors[b].count_routes(w);
        if (st != CROWD_OK) {
            cs_nav_stop_counting(w);
            return st;
        }
    }
    return CROWD_OK;
}

// The changes are kept for the route phase, which repairs the grid and the fields where they
// reach (nav_repair.c) rather than laying and building everything again.
void cs_nav_obstacles_changed(crowd_world* w, const struct cs_obstacle* o, bool added) {
    cs_nav* nav = &w->nav;
    nav->grid_changed = true;
    if (nav->nchanges < CS_NAV_MAX_CHANGES)
        nav->changes[nav->nchanges++] = (cs_nav_change){o->x0, o->y0, o->x1, o->y1, added};
    else
        nav->changes_lost = true;
    if (!added) return; // a removal: the box is recomputed when the grid is laid again
    nav->pending_x0 = fminf(nav->pending_x0, o->x0);
    nav->pending_y0 = fminf(nav->pending_y0, o->y0);
    nav->pending_x1 = fmaxf(nav->pending_x1, o->x1);
    nav->pending_y1 = fmaxf(nav->pending_y1, o->y1);
}

cs_nav_changes_mark cs_nav_changes_now(const crowd_world* w) {
    return (cs_nav_changes_mark){w->nav.nchanges, w->nav.changes_lost, w->nav.grid_changed};
}

void cs_nav_changes_restore(crowd_world* w, cs_nav_changes_mark m) {
    w->nav.nchanges = m.nchanges;
    w->nav.changes_lost = m.lost;
    w->nav.grid_changed = m.changed;
}

static void forget_changes(cs_nav* nav) {
    nav->nchanges = 0;
    nav->changes_lost = false;
}

// ---- the route phase ----------------------------------------------------------------------------

crowd_status cs_nav_scratch_reserve(crowd_world* w, cs_nav* nav, int threads) {
    if (nav->scratch_count >= threads && nav->scratch_cells == nav->cells) return CROWD_OK;
    free_scratch(w, nav);
    const size_t n = nav->cells;
    cs_nav_scratch* s = cs_alloc(w, (size_t)threads * sizeof *s);
    if (!s) return CROWD_ERR_OUT_OF_MEMORY;
    memset(s, 0, (size_t)threads * sizeof *s);
    nav->scratch = s;
    nav->scratch_count = threads;
    nav->scratch_cells = n;
    for (int t = 0; t < threads; ++t) {
        s[t].g = cs_alloc(w, n * sizeof *s[t].g);
        s[t].heap = cs_alloc(w, n * sizeof *s[t].heap);
        s[t].closed = cs_alloc(w, n);
        s[t].list = cs_alloc(w, n * sizeof *s[t].list);
        if (!s[t].g || !s[t].heap || !s[t].closed || !s[t].list) {
            free_scratch(w, nav);
            return CROWD_ERR_OUT_OF_MEMORY;
        }
    }
    return CROWD_OK;
}

// No obstacles: no grid, no fields (everybody heads straight).
static void drop_grid(crowd_world* w, cs_nav* nav) {
    for (uint32_t i = 0; i < nav->nfields; ++i) drop_anchor(w, nav, &nav->fields[i]);
    cs_free(w, nav->blocked, 2 * nav->cells);
    nav->blocked = NULL;
    nav->open = NULL;
    nav->cells = 0;
    nav->gw = nav->gh = 0;
    free_scratch(w, nav);
    cs_nav_spread_drop(w, nav);
    nav->rank_dirty = true;
    nav->pending_x0 = nav->pending_y0 = INFINITY;
    nav->pending_x1 = nav->pending_y1 = -INFINITY;
}

// The box the grid must cover: every obstacle's and every exit point (an agent must never head
// for an exit it can only see from outside the grid: outside, it heads straight for the
// nearest), and the most points of a polygon.
static void grid_extent(const crowd_world* w, const cs_nav* nav, float* bx0, float* by0, float* bx1,
                        float* by1, int32_t* most_points) {
    const cs_walls* g = &w->walls;
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    int32_t most = 0;
    for (int32_t oi = 0; oi < g->obs_used; ++oi) {
        const cs_obstacle* o = &g->obs[oi];
        if (!o->points) continue;
        x0 = fminf(x0, o->x0), y0 = fminf(y0, o->y0), x1 = fmaxf(x1, o->x1), y1 = fmaxf(y1, o->y1);
        if (o->kind == CROWD_OBSTACLE_POLYGON && o->count > most) most = o->count;
    }
    for (int32_t k = 0; k < nav->exits_used; ++k)
        for (int32_t p = 0; p < nav->exits[k].count; ++p) {
            const crowd_vec2 e = nav->exits[k].points[p];
            x0 = fminf(x0, e.x), y0 = fminf(y0, e.y), x1 = fmaxf(x1, e.x), y1 = fmaxf(y1, e.y);
        }
    *bx0 = x0, *by0 = y0, *bx1 = x1, *by1 = y1, *most_points = most;
}

// Room for the scan lines' crossings of a polygon of `most` points (see fill_polygons in
// nav_grid.c), before anything is laid.
static crowd_status reserve_poly(crowd_world* w, cs_nav* nav, int32_t most) {
    if (most <= 256 || (size_t)most <= nav->poly_xs_cap) return CROWD_OK;
    double* xs = cs_alloc(w, (size_t)most * sizeof *xs);
    if (!xs) return CROWD_ERR_OUT_OF_MEMORY;
    cs_free(w, nav->poly_xs, nav->poly_xs_cap * sizeof(double));
    nav->poly_xs = xs;
    nav->poly_xs_cap = (size_t)most;
    return CROWD_OK;
}

cs_nav_box cs_nav_grid_box_now(const crowd_world* w, bool* empty) {
    float x0, y0, x1, y1;
    int32_t most;
    grid_extent(w, &w->nav, &x0, &y0, &x1, &y1, &most);
    *empty = !(x0 <= x1 && y0 <= y1);
    return *empty ? (cs_nav_box){0, 0, 0, 0} : cs_nav_grid_box(&w->nav, x0, y0, x1, y1);
}

bool cs_nav_repairs_next(const crowd_world* w) {
    const cs_nav* nav = &w->nav;
    if (!nav->grid_changed || !nav->blocked || nav->suspended || nav->changes_lost ||
        nav->nchanges == 0)
        return false;
    bool empty;
    const cs_nav_box box = cs_nav_grid_box_now(w, &empty);
    return !empty && box.gx0 == nav->gx0 && box.gy0 == nav->gy0 && box.gw == nav->gw &&
           box.gh == nav->gh;
}

// Lays the grid again for the obstacles as they are: a new box (the exact union of the obstacles'
// boxes), new storage when its size changes, and every field to be built again (the ones nobody
// uses are dropped). On failure nothing changed.
static crowd_status relay_grid(crowd_world* w, cs_nav* nav) {
    float x0, y0, x1, y1;
    int32_t most;
    grid_extent(w, nav, &x0, &y0, &x1, &y1, &most);
    const cs_nav_box box = cs_nav_grid_box(nav, x0, y0, x1, y1);
    const size_t cells = (size_t)box.gw * (size_t)box.gh;
    nav->pending_x0 = x0, nav->pending_y0 = y0, nav->pending_x1 = x1, nav->pending_y1 = y1;
    if ((int64_t)cells > nav->def.max_cells ||
        (!fits(nav, (int64_t)cells, nav->in_use) &&
         !spread_fits(w, nav, x0, y0, x1, y1, nav->pinned_in_use))) {
        // Too large a grid, or the fields in use would not fit the budget once it grew: no grid;
        // everybody heads straight until obstacles are removed (crowd_nav_stats.suspended).
        drop_grid(w, nav);
        nav->suspended = true;
        nav->grid_changed = false;
        forget_changes(nav);
        return CROWD_OK;
    }
    nav->suspended = false;
    const crowd_status pst = reserve_poly(w, nav, most);
    if (pst != CROWD_OK) return pst;
    for (uint32_t i = 0; i < nav->nfields; ++i)
        if (nav->fields[i].users == 0) drop_anchor(w, nav, &nav->fields[i]);
    if (cells != nav->cells) {
        // Every field in use needs storage of the new size: all of it first, or none.
        uint8_t* blocked = cs_alloc(w, 2 * cells); // and the open cells after it
        bool ok = blocked != NULL;
        uint32_t made = 0;
        for (; ok && made < nav->nfields; ++made) {
            cs_nav_field* f = &nav->fields[made];
            if (!f->anchor) continue;
            f->next = cs_alloc(w, anchor_bytes(cells));
            ok = f->next != NULL;
        }
        if (!ok) {
            for (uint32_t i = 0; i < made; ++i) {
                cs_free(w, nav->fields[i].next, anchor_bytes(cells));
                nav->fields[i].next = NULL;
            }
            cs_free(w, blocked, 2 * cells);
            return CROWD_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t i = 0; i < nav->nfields; ++i) {
            cs_nav_field* f = &nav->fields[i];
            if (!f->anchor) continue;
            cs_free(w, f->anchor, anchor_bytes(nav->cells));
            f->anchor = f->next;
            f->next = NULL;
        }
        nav->field_bytes = 0;
        for (uint32_t i = 0; i < nav->nfields; ++i)
            nav->field_bytes += nav->fields[i].anchor ? anchor_bytes(cells) : 0;
        cs_free(w, nav->blocked, 2 * nav->cells);
        nav->blocked = blocked;
        nav->open = blocked + cells;
        nav->cells = cells;
    }
    for (uint32_t i = 0; i < nav->nfields; ++i) drop_tiles(w, nav, &nav->fields[i]);
    nav->gx0 = box.gx0, nav->gy0 = box.gy0, nav->gw = box.gw, nav->gh = box.gh;
    for (uint32_t i = 0; i < nav->nfields; ++i) nav->fields[i].built = false;
    cs_nav_grid_lay(w, nav);
    nav->sp.ready = false; // the spread graph is laid again (cs_nav_rank)
    nav->rank_dirty = true;
    nav->grid_changed = false;
    forget_changes(nav);
    return CROWD_OK;
}

// Lays again only the cells the changes reach, when the grid keeps its box (*done; else the caller
// lays it whole): the fields in use are then repaired rather than built whole (stale). The cells
// laid again, grown by one, are the dirty rectangles the repair works from.
static crowd_status relay_part(crowd_world* w, cs_nav* nav, bool* done) {
    *done = false;
    if (!cs_nav_repairs_next(w)) return CROWD_OK;
    float x0, y0, x1, y1;
    int32_t most;
    grid_extent(w, nav, &x0, &y0, &x1, &y1, &most);
    const crowd_status pst = reserve_poly(w, nav, most);
    if (pst != CROWD_OK) return pst;
    cs_nav_rect reach[CS_NAV_MAX_CHANGES];
    size_t room = 0;
    for (int k = 0; k < nav->nchanges; ++k) {
        const cs_nav_change* c = &nav->changes[k];
        reach[k] = cs_nav_grid_reach(nav, c->x0, c->y0, c->x1, c->y1);
        const size_t cells = cs_nav_grid_window_cells(nav, reach[k]);
        room = cells > room ? cells : room;
    }
    uint8_t* tmp = room ? cs_alloc(w, 2 * room) : NULL;
    if (room && !tmp) return CROWD_ERR_OUT_OF_MEMORY;
    int64_t freed = 0;
    bool removed = false;
    nav->ndirty = 0;
    for (int k = 0; k < nav->nchanges; ++k) {
        const cs_nav_change* c = &nav->changes[k];
        removed |= !c->added;
        if (reach[k].i0 > reach[k].i1) continue;
        // The obstacle's box with half the clearance (the sight rule's) round it, and the cells
        // whose state changed.
        const float m = 0.5f * nav->def.clearance;
        cs_nav_rect d = {cs_nav_quantize(c->x0 - m, nav->inv_cell) - nav->gx0,
                         cs_nav_quantize(c->y0 - m, nav->inv_cell) - nav->gy0,
                         cs_nav_quantize(c->x1 + m, nav->inv_cell) - nav->gx0,
                         cs_nav_quantize(c->y1 + m, nav->inv_cell) - nav->gy0};
        cs_nav_grid_lay_part(w, nav, reach[k], tmp, &d, &freed);
        // A cell more: the open flags round a changed cell, and the quantization.
        d.i0 = d.i0 - 1 > 0 ? d.i0 - 1 : 0, d.j0 = d.j0 - 1 > 0 ? d.j0 - 1 : 0;
        d.i1 = d.i1 + 1 < nav->gw ? d.i1 + 1 : nav->gw - 1;
        d.j1 = d.j1 + 1 < nav->gh ? d.j1 + 1 : nav->gh - 1;
        if (d.i0 <= d.i1 && d.j0 <= d.j1) nav->dirty[nav->ndirty++] = d;
    }
    cs_free(w, tmp, 2 * room);
    nav->dirty_shrinks = removed || freed > 0;
    nav->sp.ready = false;
    nav->rank_dirty = true;
    nav->pending_x0 = x0, nav->pending_y0 = y0, nav->pending_x1 = x1, nav->pending_y1 = y1;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        cs_nav_field* f = &nav->fields[i];
        if (f->users == 0) {
            drop_anchor(w, nav, f);
            continue;
        }
        f->stale = f->built && f->anchor;
        f->built = false;
    }
    nav->grid_changed = false;
    forget_changes(nav);
    *done = true;
    return CROWD_OK;
}

// Storage for a field in use, making room within the budget by dropping fields nobody uses, least
// recently used first (the lowest entry among equals).
static crowd_status give_anchor(crowd_world* w, cs_nav* nav, cs_nav_field* f) {
    const size_t bytes = anchor_bytes(nav->cells);
    const size_t sp = cs_nav_spread_used_bytes(nav);
    while (nav->field_bytes + bytes + sp > nav->def.budget) {
        cs_nav_field* old = NULL;
        for (uint32_t i = 0; i < nav->nfields; ++i) {
            cs_nav_field* c = &nav->fields[i];
            if (c->users == 0 && c->anchor && (!old || c->last_use < old->last_use)) old = c;
        }
        if (!old) break; // the fields in use fit the budget (checked when they came into use)
        drop_anchor(w, nav, old);
    }
    f->anchor = cs_alloc(w, bytes);
    if (!f->anchor) return CROWD_ERR_OUT_OF_MEMORY;
    nav->field_bytes += bytes;
    return CROWD_OK;
}

// ---- which destinations are spread -------------------------------------------------------------

typedef struct rank_entry {
    int32_t users;
    uint32_t field;
    cs_nav_key key;
} rank_entry;

// More users first, then the lower key: an order of the destinations alone.
static int rank_cmp(const void* a, const void* b) {
    const rank_entry *x = a, *y = b;
    if (x->users != y->users) return x->users > y->users ? -1 : 1;
    return x->key < y->key ? -1 : (x->key > y->key);
}

// Decides which destinations in use are spread (cs_nav_field.spread). While the fields of all of
// them fit the budget, none is (the world routes exactly as without the strategy). Beyond it the
// spread graph is laid, and of the budget it leaves, the pinned destinations (exit sets, waypoint
// paths) take fields first, then the goals' destinations of at least CS_NAV_FIELD_USERS users by
// users, most first (the lower key among equals), as many as fit; the others are spread (a field
// costs a search over the whole grid, a plan the tiles on one agent's way: below that many users
// the plans cost less). The order depends on the uses alone,
// which every process and a loaded snapshot count alike. *changed: some destination changed
// sides (the memos of the aims then expire).
static crowd_status cs_nav_rank(crowd_world* w, cs_nav* nav, bool* changed) {
    *changed = false;
    const size_t bytes = anchor_bytes(nav->cells);
    if ((double)bytes * (double)nav->in_use <= (double)nav->def.budget) {
        for (uint32_t i = 0; i < nav->nfields; ++i) {
            *changed |= nav->fields[i].spread;
            nav->fields[i].spread = false;
        }
        nav->spreading = 0;
        cs_nav_spread_drop(w, nav);
        nav->rank_dirty = false;
        return CROWD_OK;
    }
    crowd_status st = cs_nav_spread_lay(w, nav);
    if (st != CROWD_OK) return st;
    const uint32_t n = (uint32_t)(nav->in_use - nav->pinned_in_use);
    nav->spreading = 0;
    rank_entry* order = cs_alloc(w, (n ? n : 1) * sizeof *order);
    if (!order) return CROWD_ERR_OUT_OF_MEMORY;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        cs_nav_field* f = &nav->fields[i];
        if (f->users >= CS_NAV_FIELD_USERS && !pinned(f) && k < n) {
            order[k++] = (rank_entry){f->users, i, f->key};
        } else if (f->users > 0 && !pinned(f)) {
            *changed |= !f->spread;
            f->spread = true;
            nav->spreading++;
            drop_anchor(w, nav, f);
        } else if (f->spread) {
            f->spread = false;
            *changed = true;
        }
    }
    qsort(order, k, sizeof *order, rank_cmp);
    const size_t used = cs_nav_spread_used_bytes(nav);
    int64_t slots = nav->def.budget > used ? (int64_t)((nav->def.budget - used) / bytes) : 0;
    slots -= nav->pinned_in_use;
    for (uint32_t r = 0; r < k; ++r) {
        cs_nav_field* f = &nav->fields[order[r].field];
        const bool spread = (int64_t)r >= slots;
        *changed |= f->spread != spread;
        f->spread = spread;
        nav->spreading += spread;
        if (spread) drop_anchor(w, nav, f); // its room goes to the fields that are built
    }
    cs_free(w, order, (n ? n : 1) * sizeof *order);
    if (nav->spreading == 0) cs_nav_spread_drop(w, nav);
    nav->rank_dirty = false;
    return CROWD_OK;
}

typedef struct build_job {
    crowd_world* w;
    cs_nav* nav;
    uint32_t* todo; // field numbers
    uint32_t count;
    int builders;
    atomic_uint next;
} build_job;

static void build_team(void* arg, int t, int nt) {
    (void)nt;
    build_job* j = arg;
    if (t >= j->builders) return;
    for (;;) {
        const uint32_t k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (k >= j->count) break;
        cs_nav_field* f = &j->nav->fields[j->todo[k]];
        cs_nav_scratch* s = &j->nav->scratch[t];
        f->resolved = 0;
        const bool repaired = f->stale && f->tiles && cs_nav_repair(j->w, j->nav, f, s);
        if (!repaired) {
            f->stand_ins = cs_nav_build(j->w, j->nav, f->key, f->anchor, s);
            f->tiles_ok = false;
        }
        f->repaired = repaired;
        f->stale = false;
        f->built = true;
    }
}

crowd_status cs_nav_update(crowd_world* w) {
    cs_nav* nav = &w->nav;
    if (!cs_nav_counting(w)) {
        if (nav->blocked) drop_grid(w, nav);
        nav->grid_changed = false;
        forget_changes(nav);
        nav->suspended = false;
        return CROWD_OK;
    }
    const bool relay = nav->grid_changed || (!nav->blocked && !nav->suspended);
    if (!relay && nav->suspended) return CROWD_OK;
    uint32_t missing = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i)
        missing +=
            nav->fields[i].users > 0 && !nav->fields[i].spread && (relay || !nav->fields[i].built);
    // Uses changed while every field fits and none is spread: nothing to decide.
    if (nav->rank_dirty && nav->spreading == 0 &&
        (double)anchor_bytes(nav->cells) * (double)nav->in_use <= (double)nav->def.budget)
        nav->rank_dirty = false;
    const bool spread_work =
        nav->rank_dirty ||
        (nav->spreading && (!nav->sp.ready || nav->sp_plan_count < w->index_count));
    if (!relay && missing == 0 && !spread_work) return CROWD_OK;
    const double t0 = omp_get_wtime();
    // Every memo of an entry expires (below, too, when fields are built or change sides; a ranking
    // that changed nothing, after goals of spread destinations changed, keeps them).
    if (relay || missing) nav->epoch = nav->epoch == UINT32_MAX ? 1 : nav->epoch + 1;
    if (relay) {
        // A field left stale by a repair that never ran (a failed update) is built whole: the
        // dirty cells are about to be those of the new changes alone.
        for (uint32_t i = 0; i < nav->nfields; ++i) nav->fields[i].stale = false;
        bool part;
        crowd_status st = relay_part(w, nav, &part);
        if (st == CROWD_OK && !part) st = relay_grid(w, nav);
        if (st != CROWD_OK) return st;
        if (nav->suspended) return CROWD_OK;
    }
    // Which destinations are spread, and the spread graph for the grid as it is (the plans of the
    // agents a world adds between steps too).
    if (nav->rank_dirty || relay || (nav->spreading && !nav->sp.ready)) {
        bool changed;
        const crowd_status st = cs_nav_rank(w, nav, &changed);
        if (changed && !relay && !missing)
            nav->epoch = nav->epoch == UINT32_MAX ? 1 : nav->epoch + 1;
        if (st != CROWD_OK) return st;
    }
    if (nav->spreading && nav->sp_plan_count < w->index_count) {
        const crowd_status st = cs_nav_spread_lay(w, nav);
        if (st != CROWD_OK) return st;
    }
    missing = 0;
    for (uint32_t i = 0; i < nav->nfields; ++i)
        missing += nav->fields[i].users > 0 && !nav->fields[i].spread && !nav->fields[i].built;
    const double t1 = omp_get_wtime();
    nav->last_grid_ms = relay ? (t1 - t0) * 1e3 : 0.0;
    if (missing == 0) {
        nav->last_build_ms = nav->last_grid_ms;
        return CROWD_OK;
    }
    // The fields to build, their storage, and each builder's scratch: all before any build.
    uint32_t* todo = cs_alloc(w, missing * sizeof *todo);
    if (!todo) return CROWD_ERR_OUT_OF_MEMORY;
    uint32_t n = 0;
    crowd_status st = CROWD_OK;
    for (uint32_t i = 0; i < nav->nfields && st == CROWD_OK; ++i) {
        cs_nav_field* f = &nav->fields[i];
        if (f->users == 0 || f->built || f->spread) continue;
        if (!f->anchor) st = give_anchor(w, nav, f);
        if (f->stale && !f->tiles) { // without them the field is built whole
            f->tiles = cs_alloc(w, cs_nav_tile_count(nav->gw, nav->gh) * sizeof *f->tiles);
            f->tiles_ok = false;
        }
        todo[n++] = i;
    }
    // The world's own team (another size would make the runtime build a new one), of which only
    // as many threads as there are fields build.
    const int builders = (int)(n < (uint32_t)w->threads ? n : (uint32_t)w->threads);
    if (st == CROWD_OK) st = cs_nav_scratch_reserve(w, nav, builders);
    if (st == CROWD_OK) {
        build_job job = {.w = w, .nav = nav, .todo = todo, .count = n, .builders = builders};
        atomic_init(&job.next, 0);
        cs_team_run(w->threads, build_team, &job);
        nav->last_repair_cells = 0;
        for (uint32_t k = 0; k < n; ++k) {
            const cs_nav_field* f = &nav->fields[todo[k]];
            nav->repairs += f->repaired;
            nav->builds += !f->repaired;
            nav->last_repair_cells += f->repaired ? f->resolved : 0;
        }
    }
    cs_free(w, todo, missing * sizeof *todo);
    nav->last_build_ms = (omp_get_wtime() - t0) * 1e3;
    return st;
}

// The route phase. A failure to allocate is kept in nav.status: crowd_world_step then stops before
// any pass that changes the world (see step.c) and returns it.
void cs_pass_route(crowd_world* w) {
    w->nav.status = cs_nav_update(w);
}
