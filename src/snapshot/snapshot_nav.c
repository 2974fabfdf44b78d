// The navigation fields a whole build would not give again ('NAVF', since version 6).
//
// A field is a function of the obstacles, the navigation def and its destination when it was
// built whole, and a loaded world builds those again. A field repaired after obstacle changes
// (src/nav/nav_repair.c) depends on the field before and the changes, so a loaded world could
// not make it again: the section saves it, with the grid it belongs to. The same holds for every
// field built while a repair is pending (obstacles changed since the last route phase, and the
// next one repairs, cs_nav_repairs_next): the repair will start from those fields, so the section
// saves all of them, the grid before the changes and the changes themselves. A repaired field is
// kept only while in use (nav_cache.c drops it when its last user goes), so the fields in use are
// all there is to save.
//
//  'NAVF': u32 form: 0 nothing (the whole payload: no field to save), 1 fields follow:
//          i32 gx0, gy0, gw, gh (the grid, in cells: the box the obstacles need), the grid's cell
//          states (runs, below), u32 changes pending (0..16) and per change f32 x0, y0, x1, y1
//          (the obstacle's box) and u32 added (0 / 1), then u32 fields (at least 1) and per field,
//          by ascending key: u64 key (crowd/nav.h's destination key: a quantized point, or an exit
//          set's handle), u32 flags (1: repaired, 2: has stand-ins; with no change pending, only
//          repaired fields are saved), its anchors (runs).
//          Runs: u32 count, then count x (u32 length, u32 value), lengths at least 1 and adding
//          up to gw * gh cells, neighbouring runs of different values (one encoding per array:
//          anchors come in long runs, so a field of a million cells takes some kilobytes).
//
// The load keeps the payload; once every section is loaded (the obstacles come with the walls'
// section), cs_snap_install_navf checks it against the world (the grid's box, a destination in
// use per field, each anchor a cell, a target of its destination or none, no loop of anchors)
// and installs the grid
// and the fields as the saved world held them, pending changes included, so the loaded world's
// next route phase does what the saved world's would have done.
#include <string.h>

#include "nav/nav.h"
#include "snapshot/snapshot_internal.h"

enum { FLAG_REPAIRED = 1, FLAG_STAND_INS = 2 };

// Whether field f is saved, with a repair pending or not.
static bool field_saved(const cs_nav_field* f, bool pending) {
    return f->users > 0 && f->built && f->anchor && (pending || f->repaired);
}

// Whether fields are saved: a grid is laid and, with a repair pending, the next route phase
// repairs (else it lays the grid and builds every field whole again).
static bool saves_fields(const crowd_world* w) {
    const cs_nav* nav = &w->nav;
    if (!nav->blocked || nav->suspended) return false;
    return !nav->grid_changed || cs_nav_repairs_next(w);
}

// The saved field with the least key above `after` (any, with `first`), or NULL: the fields go
// by ascending key, whatever their order in the cache.
static const cs_nav_field* next_saved(const cs_nav* nav, bool first, cs_nav_key after) {
    const cs_nav_field* best = NULL;
    for (uint32_t i = 0; i < nav->nfields; ++i) {
        const cs_nav_field* f = &nav->fields[i];
        if (!field_saved(f, nav->grid_changed) || (!first && f->key <= after)) continue;
        if (!best || f->key < best->key) best = f;
    }
    return best;
}

static uint32_t runs_u32(const uint32_t* a, size_t n) {
    uint32_t r = n > 0;
    for (size_t c = 1; c < n; ++c) r += a[c] != a[c - 1];
    return r;
}

static uint32_t runs_u8(const uint8_t* a, size_t n) {
    uint32_t r = n > 0;
    for (size_t c = 1; c < n; ++c) r += a[c] != a[c - 1];
    return r;
}

static uint32_t field_flags(const cs_nav_field* f) {
    return (f->repaired ? FLAG_REPAIRED : 0u) | (f->stand_ins ? FLAG_STAND_INS : 0u);
}

uint64_t cs_snap_navf_size(const crowd_world* w) {
    const cs_nav* nav = &w->nav;
    const cs_nav_field* f = saves_fields(w) ? next_saved(nav, true, 0) : NULL;
    if (!f) return 4;
    uint64_t size = 4 + 16 + 4 + 8 * (uint64_t)runs_u8(nav->blocked, nav->cells);
    size += 4 + 20 * (uint64_t)(nav->grid_changed ? nav->nchanges : 0);
    size += 4;
    for (; f; f = next_saved(nav, false, f->key))
        size += 16 + 8 * (uint64_t)runs_u32(f->anchor, nav->cells);
    return size;
}

static void put_runs_u32(cs_snap_writer* out, const uint32_t* a, size_t n) {
    cs_snap_put_u32(out, runs_u32(a, n));
    for (size_t c = 0; c < n;) {
        size_t e = c + 1;
        while (e < n && a[e] == a[c]) ++e;
        cs_snap_put_u32(out, (uint32_t)(e - c));
        cs_snap_put_u32(out, a[c]);
        c = e;
    }
}

static void put_runs_u8(cs_snap_writer* out, const uint8_t* a, size_t n) {
    cs_snap_put_u32(out, runs_u8(a, n));
    for (size_t c = 0; c < n;) {
        size_t e = c + 1;
        while (e < n && a[e] == a[c]) ++e;
        cs_snap_put_u32(out, (uint32_t)(e - c));
        cs_snap_put_u32(out, a[c]);
        c = e;
    }
}

void cs_snap_save_navf(const crowd_world* w, cs_snap_writer* out) {
    const cs_nav* nav = &w->nav;
    const cs_nav_field* first = saves_fields(w) ? next_saved(nav, true, 0) : NULL;
    cs_snap_put_u32(out, first != NULL);
    if (!first) return;
    cs_snap_put_u32(out, (uint32_t)nav->gx0);
    cs_snap_put_u32(out, (uint32_t)nav->gy0);
    cs_snap_put_u32(out, (uint32_t)nav->gw);
    cs_snap_put_u32(out, (uint32_t)nav->gh);
    put_runs_u8(out, nav->blocked, nav->cells);
    const int changes = nav->grid_changed ? nav->nchanges : 0;
    cs_snap_put_u32(out, (uint32_t)changes);
    for (int k = 0; k < changes; ++k) {
        const cs_nav_change* c = &nav->changes[k];
        cs_snap_put_f32(out, c->x0);
        cs_snap_put_f32(out, c->y0);
        cs_snap_put_f32(out, c->x1);
        cs_snap_put_f32(out, c->y1);
        cs_snap_put_u32(out, c->added);
    }
    uint32_t n = 0;
    for (const cs_nav_field* f = first; f; f = next_saved(nav, false, f->key)) ++n;
    cs_snap_put_u32(out, n);
    for (const cs_nav_field* f = first; f; f = next_saved(nav, false, f->key)) {
        cs_snap_put_u64(out, f->key);
        cs_snap_put_u32(out, field_flags(f));
        put_runs_u32(out, f->anchor, nav->cells);
    }
}

// ---- load ---------------------------------------------------------------------------------------

// Reads runs of `cells` values, each at most `most`, in their one encoding; with `to` (cells
// entries) writes them out. False on anything else.
static bool get_runs(cs_snap_reader* in, uint64_t cells, uint32_t most, uint32_t* to32,
                     uint8_t* to8) {
    const uint32_t count = cs_snap_get_u32(in);
    if (in->bad || count < 1 || count > in->left / 8) return false;
    uint64_t at = 0;
    uint32_t prev = 0;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t len = cs_snap_get_u32(in), v = cs_snap_get_u32(in);
        if (in->bad || len < 1 || len > cells - at || v > most || (k > 0 && v == prev))
            return false;
        if (to32)
            for (uint32_t i = 0; i < len; ++i) to32[at + i] = v;
        if (to8) memset(to8 + at, (int)v, len);
        at += len;
        prev = v;
    }
    return at == cells;
}

// Whether following the anchors from every cell ends (at a target, a cell anchored to itself, or
// no anchor): a loop would send a reader round it for ever. `color` (cleared) and `stack` hold a
// byte and an entry per cell.
static bool acyclic(const uint32_t* anchor, uint64_t cells, uint8_t* color, uint32_t* stack) {
    memset(color, 0, cells);
    for (uint64_t c0 = 0; c0 < cells; ++c0) {
        uint64_t n = 0;
        uint32_t x = (uint32_t)c0;
        bool ends = false;
        while (color[x] == 0) { // 1: on the way being followed, 2: its way ends
            color[x] = 1;
            stack[n++] = x;
            const uint32_t a = anchor[x];
            ends = a >= CS_NAV_TARGET || (a & ~CS_NAV_STAND_IN) == x;
            if (ends) break;
            x = a & ~CS_NAV_STAND_IN;
        }
        if (!ends && color[x] == 1) return false; // back on the way it came: a loop
        while (n > 0) color[stack[--n]] = 2;
    }
    return true;
}

typedef struct navf_head {
    int32_t gx0, gy0, gw, gh;
    uint64_t cells;
} navf_head;

// The grid's box; false when it cannot be a grid.
static bool get_head(cs_snap_reader* in, navf_head* h) {
    h->gx0 = (int32_t)cs_snap_get_u32(in);
    h->gy0 = (int32_t)cs_snap_get_u32(in);
    h->gw = (int32_t)cs_snap_get_u32(in);
    h->gh = (int32_t)cs_snap_get_u32(in);
    if (in->bad || h->gw < 1 || h->gh < 1) return false;
    h->cells = (uint64_t)h->gw * (uint64_t)h->gh;
    return h->cells <= (uint64_t)CS_NAV_MAX_CELLS;
}

static bool get_change(cs_snap_reader* in, cs_nav_change* c) {
    c->x0 = cs_snap_get_f32(in), c->y0 = cs_snap_get_f32(in);
    c->x1 = cs_snap_get_f32(in), c->y1 = cs_snap_get_f32(in);
    const uint32_t added = cs_snap_get_u32(in);
    c->added = added == 1;
    return !in->bad && added <= 1 && isfinite(c->x0) && isfinite(c->y0) && isfinite(c->x1) &&
           isfinite(c->y1) && c->x0 <= c->x1 && c->y0 <= c->y1;
}

// Reads the payload through, checking what it can alone; with `nav` (a world whose sections are
// all loaded) also installs it, checking the rest. The same walk for both, so that what the load
// accepts is what the install reads.
static crowd_status walk(cs_snap_reader* in, crowd_world* w, bool install) {
    cs_nav* nav = &w->nav;
    const uint32_t form = cs_snap_get_u32(in);
    if (in->bad || form > 1) return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (form == 0) return CROWD_OK;
    navf_head h;
    if (!get_head(in, &h)) return CROWD_ERR_SNAPSHOT_CORRUPT;
    uint8_t* blocked = NULL;
    if (install) {
        // The grid the obstacles need, within the limits (the saved world laid it).
        bool empty;
        const cs_nav_box box = cs_nav_grid_box_now(w, &empty);
        if (empty || box.gx0 != h.gx0 || box.gy0 != h.gy0 || box.gw != h.gw || box.gh != h.gh ||
            (int64_t)h.cells > nav->def.max_cells || nav->blocked)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        blocked = cs_alloc(w, 2 * h.cells);
        if (!blocked) return CROWD_ERR_OUT_OF_MEMORY;
        nav->blocked = blocked;
        nav->open = blocked + h.cells;
        nav->cells = (size_t)h.cells;
        nav->gx0 = h.gx0, nav->gy0 = h.gy0, nav->gw = h.gw, nav->gh = h.gh;
    }
    if (!get_runs(in, h.cells, CS_NAV_SOLID, NULL, blocked)) return CROWD_ERR_SNAPSHOT_CORRUPT;
    const uint32_t changes = cs_snap_get_u32(in);
    if (in->bad || changes > CS_NAV_MAX_CHANGES) return CROWD_ERR_SNAPSHOT_CORRUPT;
    for (uint32_t k = 0; k < changes; ++k) {
        cs_nav_change c;
        if (!get_change(in, &c)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        if (install) nav->changes[k] = c;
    }
    const uint32_t fields = cs_snap_get_u32(in);
    if (in->bad || fields < 1 || fields > in->left / 16) return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (install && (double)fields * 4.0 * (double)h.cells > (double)nav->def.budget)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // Room to check each field's anchors for loops (freed at the end, or with the world).
    if (install) {
        nav->restore_check = cs_alloc(w, (size_t)h.cells * (1 + sizeof(uint32_t)));
        if (!nav->restore_check) return CROWD_ERR_OUT_OF_MEMORY;
        nav->restore_check_bytes = (size_t)h.cells * (1 + sizeof(uint32_t));
    }
    cs_nav_key prev = 0;
    for (uint32_t k = 0; k < fields; ++k) {
        const cs_nav_key key = cs_snap_get_u64(in);
        const uint32_t flags = cs_snap_get_u32(in);
        if (in->bad || (k > 0 && key <= prev) || flags > 3 ||
            (changes == 0 && !(flags & FLAG_REPAIRED)))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        prev = key;
        cs_nav_field* f = NULL;
        if (install) {
            f = (cs_nav_field*)cs_nav_find(nav, key);
            if (!f || f->users <= 0) return CROWD_ERR_SNAPSHOT_CORRUPT; // a destination in use
            f->anchor = cs_alloc(w, (size_t)h.cells * sizeof *f->anchor);
            if (!f->anchor) return CROWD_ERR_OUT_OF_MEMORY;
            nav->field_bytes += (size_t)h.cells * sizeof *f->anchor;
        }
        if (!get_runs(in, h.cells, UINT32_MAX, f ? f->anchor : NULL, NULL))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        if (!install) continue;
        // Each anchor a cell (marked a stand-in only in a field that has them), a target of the
        // destination, or none.
        const int targets = cs_nav_targets_of(nav, key).count;
        for (uint64_t c = 0; c < h.cells; ++c) {
            const uint32_t a = f->anchor[c];
            const bool ok =
                a == CS_NAV_NONE ||
                (a >= CS_NAV_TARGET ? a - CS_NAV_TARGET < (uint32_t)targets
                                    : (a & ~CS_NAV_STAND_IN) < h.cells &&
                                          (!(a & CS_NAV_STAND_IN) || (flags & FLAG_STAND_INS)));
            if (!ok) return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
        uint32_t* stack = (uint32_t*)nav->restore_check;
        if (!acyclic(f->anchor, h.cells, (uint8_t*)(stack + h.cells), stack))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        f->built = true;
        f->repaired = flags & FLAG_REPAIRED;
        f->stand_ins = flags & FLAG_STAND_INS;
    }
    if (install) {
        cs_nav_grid_open(nav);
        nav->nchanges = (int)changes;
        nav->changes_lost = false;
        nav->grid_changed = changes > 0;
        nav->suspended = false;
    }
    return CROWD_OK;
}

crowd_status cs_snap_load_navf(crowd_world* w, cs_snap_reader* in) {
    const uint8_t* start = in->p;
    const size_t len = in->left;
    const crowd_status st = walk(in, w, false);
    if (st != CROWD_OK || in->bad || in->left != 0) return st;
    if (len == 4) return CROWD_OK; // form 0
    cs_nav* nav = &w->nav;
    nav->restore = cs_alloc(w, len);
    if (!nav->restore) return CROWD_ERR_OUT_OF_MEMORY;
    nav->restore_bytes = len;
    memcpy(nav->restore, start, len);
    return CROWD_OK;
}

crowd_status cs_snap_install_navf(crowd_world* w) {
    cs_nav* nav = &w->nav;
    cs_snap_reader in = {nav->restore, nav->restore_bytes, false, CROWD_SNAPSHOT_VERSION, 0};
    const crowd_status st = walk(&in, w, true);
    // On failure the world is destroyed, which frees what the install took.
    cs_free(w, nav->restore, nav->restore_bytes);
    cs_free(w, nav->restore_check, nav->restore_check_bytes);
    nav->restore = nav->restore_check = NULL;
    nav->restore_bytes = nav->restore_check_bytes = 0;
    return st;
}
