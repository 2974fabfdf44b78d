// World lifetime and storage: allocation, growth, thread resources.
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define CS_MIN_BUCKETS 64u

static void* default_alloc(size_t size, size_t align, void* user) {
    (void)user;
    size = (size + align - 1) & ~(align - 1); // aligned_alloc wants a multiple of the alignment
    return aligned_alloc(align, size ? size : align);
}

static void default_free(void* ptr, size_t size, void* user) {
    (void)size;
    (void)user;
    free(ptr);
}

void* cs_alloc(crowd_world* w, size_t bytes) {
    return w->alloc(bytes, 64, w->alloc_user);
}

void cs_free(crowd_world* w, void* p, size_t bytes) {
    if (p) w->free(p, bytes, w->alloc_user);
}

crowd_world_def crowd_world_def_default(void) {
    return (crowd_world_def){
        .dt = 0.1f,
        .cell_size = 2.5f,
        .capacity = 1024,
        .max_agents = 1 << 24,
        .threads = 0,
        .seed = 1,
        .nav = crowd_nav_def_default(),
    };
}

static uint32_t next_pow2(uint32_t v) {
    uint32_t p = CS_MIN_BUCKETS;
    while (p < v) p <<= 1;
    return p;
}

static int resolve_threads(int requested) {
    int t = requested == 0 ? omp_get_num_procs() : requested;
    if (t < 1) t = 1;
    return t > CROWD_MAX_THREADS ? CROWD_MAX_THREADS : t;
}

// ---- the table of arrays that grow with capacity ------------------------------------------------

typedef struct array_ref {
    void* addr; // address of the pointer field (any pointer type)
    size_t elem;
    bool per_slot; // sorted slot arrays carry CS_PAD extra elements
} array_ref;

// Room for every capacity-sized array; world_arrays() lists about 40 today.
enum { MAX_ARRAYS = 2 * CS_COL_ALL + 64 };

static int world_arrays(crowd_world* w, array_ref* out) {
    int n = 0;
    for (int c = 0; c < CS_COL_COUNT; ++c) out[n++] = (array_ref){&w->cur.col[c], 4, true};
    // Only the hot columns a behavior has allocated (cs_world_hot_column).
    for (int k = 0; k < CS_HOT_COUNT; ++k)
        if (w->cur.hot[k]) out[n++] = (array_ref){&w->cur.hot[k], 4, true};
    for (int c = 0; c < CS_FREE_COLS; ++c) out[n++] = (array_ref){&w->free_col[c], 4, true};
    out[n++] = (array_ref){&w->force_x, sizeof(float), true};
    out[n++] = (array_ref){&w->force_y, sizeof(float), true};
    // Only a world that has had obstacles has the clearance arrays (cs_world_wall_arrays).
    if (w->wall_clear) {
        out[n++] = (array_ref){&w->wall_clear, sizeof(float), true};
        out[n++] = (array_ref){&w->wall_sight, sizeof(float), true};
        out[n++] = (array_ref){&w->wall_probe, sizeof(float), true};
    }
    out[n++] = (array_ref){&w->generation, sizeof(uint16_t), false};
    out[n++] = (array_ref){&w->slot_of, sizeof(int32_t), false};
    out[n++] = (array_ref){&w->radius, sizeof(float), false};
    if (w->user_data) out[n++] = (array_ref){&w->user_data, sizeof(uint64_t), false};
    // Behaviors: one record number per index and record kind in use (cs_pool_reserve allocates a
    // kind's); the records are in pools of their own size.
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if (w->rec_of[k]) out[n++] = (array_ref){&w->rec_of[k], sizeof(int32_t), false};
    return n;
}

// Pointer fields of different types are read and written through memcpy, which is the one
// aliasing-safe way to treat them uniformly.
static void* ref_get(const array_ref* r) {
    void* p;
    memcpy(&p, r->addr, sizeof p);
    return p;
}

static void ref_set(const array_ref* r, void* p) {
    memcpy(r->addr, &p, sizeof p);
}

// An array's length in elements: a per-slot one follows the sorted slots (with CS_PAD more), a
// per-index one the agent indices.
static size_t ref_bytes(const array_ref* r, int slots, int indices) {
    size_t n = r->per_slot ? (size_t)slots + CS_PAD : (size_t)indices;
    return n * r->elem;
}

static size_t hist_size(uint32_t buckets, int threads) {
    return cs_hist_bytes(buckets, threads);
}

// The spare array the record layout needs with `hist_bytes` of histograms in a world of `slots`
// sorted slots (the histograms are part of its room, sort.c): what the largest pool holds beyond
// the room, or the present array when that is enough.
static size_t spare_needed(const crowd_world* w, int slots, size_t hist_bytes) {
    size_t need = 0;
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        const cs_pool* p = &w->pools[k];
        const int64_t beyond = p->capacity - cs_scratch_records(slots, hist_bytes, p->size);
        if (beyond > 0 && (size_t)beyond * p->size > need) need = (size_t)beyond * p->size;
    }
    return need > w->rec_spare_bytes ? need : 0;
}

// Resizes the per-slot arrays to `slots` sorted slots and the per-index arrays to `indices`
// agent indices (only those whose length changes), the histograms and the cell table with the
// slots, and then, when `then` is given, calls it with the new storage in place (the behaviors'
// reservations, whose pool growth is capped by the new index capacity). All or nothing: the old
// buffers are freed only once everything has succeeded, so a failure leaves the world's storage
// byte for byte as it was, both capacities included.
static crowd_status resize(crowd_world* w, int slots, int indices, int threads, cs_grow_then* then,
                           void* ctx) {
    array_ref refs[MAX_ARRAYS];
    void* fresh[MAX_ARRAYS];
    void* old[MAX_ARRAYS];
    const int n = world_arrays(w, refs);
    const int old_slots = w->slot_capacity, old_indices = w->index_capacity;
    bool change[MAX_ARRAYS];
    bool arrays_change = false;
    for (int i = 0; i < n; ++i) {
        change[i] = refs[i].per_slot ? slots != old_slots : indices != old_indices;
        arrays_change = arrays_change || change[i];
        fresh[i] = NULL;
    }
    const uint32_t buckets = next_pow2((uint32_t)slots);
    const size_t hist_bytes = hist_size(buckets, threads);
    const size_t start_bytes = sizeof(uint32_t) * ((size_t)buckets + 1);
    uint32_t* hist = NULL;
    uint32_t* start = NULL;
    // Fewer threads have fewer histograms, which the record layout counts as room.
    const size_t spare_bytes = spare_needed(w, slots, hist_bytes);
    unsigned char* spare = NULL;

    bool ok = true;
    for (int i = 0; i < n && ok; ++i)
        if (change[i]) {
            fresh[i] = cs_alloc(w, ref_bytes(&refs[i], slots, indices));
            ok = fresh[i] != NULL;
        }
    const bool hist_change = buckets != w->bucket_capacity || threads != w->hist_threads;
    if (ok && hist_change) {
        hist = hist_bytes ? cs_alloc(w, hist_bytes) : NULL;
        start = cs_alloc(w, start_bytes);
        spare = spare_bytes ? cs_alloc(w, spare_bytes) : NULL;
        ok = (hist || !hist_bytes) && start && (spare || !spare_bytes);
    }
    if (ok && arrays_change) {
        for (int i = 0; i < n; ++i) {
            old[i] = ref_get(&refs[i]);
            if (!change[i]) continue;
            size_t new_bytes = ref_bytes(&refs[i], slots, indices);
            memset(fresh[i], 0, new_bytes);
            if (old[i]) {
                size_t old_bytes = ref_bytes(&refs[i], old_slots, old_indices);
                memcpy(fresh[i], old[i], old_bytes < new_bytes ? old_bytes : new_bytes);
            }
            ref_set(&refs[i], fresh[i]);
        }
        w->columns_epoch++;
        for (int i = old_indices; i < indices; ++i) w->slot_of[i] = -1;
        w->slot_capacity = slots;
        w->index_capacity = indices;
        bool had_rec[CS_REC_COUNT], had_hot[CS_HOT_COUNT];
        for (int k = 0; k < CS_REC_COUNT; ++k) had_rec[k] = w->rec_of[k] != NULL;
        for (int k = 0; k < CS_HOT_COUNT; ++k) had_hot[k] = w->cur.hot[k] != NULL;
        if (then && then(w, ctx) != CROWD_OK) {
            // A kind's record numbers and the hot columns that `then` allocated have the new
            // capacities and hold nothing yet: they go (the next reservation allocates them
            // again).
            for (int k = 0; k < CS_REC_COUNT; ++k)
                if (!had_rec[k] && w->rec_of[k]) {
                    cs_free(w, w->rec_of[k], sizeof(int32_t) * (size_t)indices);
                    w->rec_of[k] = NULL;
                }
            for (int k = 0; k < CS_HOT_COUNT; ++k)
                if (!had_hot[k] && w->cur.hot[k]) {
                    cs_free(w, w->cur.hot[k], 4 * ((size_t)slots + CS_PAD));
                    w->cur.hot[k] = NULL;
                }
            for (int i = 0; i < n; ++i) ref_set(&refs[i], old[i]);
            w->slot_capacity = old_slots;
            w->index_capacity = old_indices;
            ok = false;
        }
    } else if (ok && then) {
        ok = then(w, ctx) == CROWD_OK;
    }
    if (!ok) {
        for (int i = 0; i < n; ++i) cs_free(w, fresh[i], ref_bytes(&refs[i], slots, indices));
        if (hist) cs_free(w, hist, hist_bytes);
        if (start) cs_free(w, start, start_bytes);
        cs_free(w, spare, spare_bytes);
        return CROWD_ERR_OUT_OF_MEMORY;
    }

    if (arrays_change)
        for (int i = 0; i < n; ++i)
            if (change[i]) cs_free(w, old[i], ref_bytes(&refs[i], old_slots, old_indices));
    if (hist_change) {
        cs_free(w, w->hist, hist_size(w->bucket_capacity, w->hist_threads));
        cs_free(w, w->cell_start, sizeof(uint32_t) * ((size_t)w->bucket_capacity + 1));
        w->hist = hist;
        w->cell_start = start;
        w->bucket_capacity = buckets;
        w->hist_threads = threads;
        if (spare) {
            cs_free(w, w->rec_spare, w->rec_spare_bytes);
            w->rec_spare = spare;
            w->rec_spare_bytes = spare_bytes;
        }
        memset(start, 0, start_bytes);
        w->grid = (cs_grid){.inv_cell = 1.0f / w->cell_size, .cell_start = start};
        cs_grid_since_break(w);
    }
    return CROWD_OK;
}

crowd_status cs_world_wall_arrays(crowd_world* w) {
    if (w->wall_clear) return CROWD_OK;
    enum { N = 3 };
    const array_ref refs[N] = {{&w->wall_clear, sizeof(float), true},
                               {&w->wall_sight, sizeof(float), true},
                               {&w->wall_probe, sizeof(float), true}};
    void* mem[N] = {0};
    for (int i = 0; i < N; ++i) {
        const size_t bytes = ref_bytes(&refs[i], w->slot_capacity, w->index_capacity);
        mem[i] = cs_alloc(w, bytes);
        if (!mem[i]) {
            for (int j = 0; j < i; ++j)
                cs_free(w, mem[j], ref_bytes(&refs[j], w->slot_capacity, w->index_capacity));
            return CROWD_ERR_OUT_OF_MEMORY;
        }
        memset(mem[i], 0, bytes);
    }
    for (int i = 0; i < N; ++i) *(void**)refs[i].addr = mem[i];
    return CROWD_OK;
}

// Allocates the array `ref` names for the world's capacities, zero-filled, unless it exists.
static crowd_status lazy_array(crowd_world* w, const array_ref* ref) {
    if (ref_get(ref)) return CROWD_OK;
    const size_t bytes = ref_bytes(ref, w->slot_capacity, w->index_capacity);
    void* mem = cs_alloc(w, bytes);
    if (!mem) return CROWD_ERR_OUT_OF_MEMORY;
    memset(mem, 0, bytes);
    ref_set(ref, mem);
    return CROWD_OK;
}

crowd_status cs_world_hot_column(crowd_world* w, int col) {
    return lazy_array(w, &(array_ref){&w->cur.hot[col], 4, true});
}

crowd_status cs_world_user_data(crowd_world* w) {
    return lazy_array(w, &(array_ref){&w->user_data, sizeof(uint64_t), false});
}

crowd_status cs_world_grow(crowd_world* w, int slots, int indices, cs_grow_then* then, void* ctx) {
    if (slots < w->slot_capacity) slots = w->slot_capacity;
    if (indices < w->index_capacity) indices = w->index_capacity;
    if (slots == w->slot_capacity && indices == w->index_capacity)
        return then ? then(w, ctx) : CROWD_OK;
    return resize(w, slots, indices, w->threads, then, ctx);
}

// Doubling from `have` until `need` fits, capped by max_agents (but never below `need`).
static int64_t doubled(int64_t have, int64_t need, int max_agents) {
    int64_t n = have > 0 ? have : 1;
    while (n < need) n *= 2;
    if (n > max_agents) n = max_agents;
    return n > need ? n : need;
}

crowd_status cs_world_grow_for(crowd_world* w, int64_t slots, int64_t indices, cs_grow_then* then,
                               void* ctx) {
    const int64_t s = slots > w->slot_capacity ? doubled(w->slot_capacity, slots, w->max_agents)
                                               : w->slot_capacity;
    const int64_t i = indices > w->index_capacity
                          ? doubled(w->index_capacity, indices, w->max_agents)
                          : w->index_capacity;
    return cs_world_grow(w, (int)s, (int)i, then, ctx);
}

crowd_status cs_world_fit_slots(crowd_world* w, int slots) {
    if (slots < w->count) slots = w->count;
    if (slots < 1) slots = 1;
    if (slots >= w->slot_capacity) return CROWD_OK;
    return resize(w, slots, w->index_capacity, w->threads, NULL, NULL);
}

// ---- public -------------------------------------------------------------------------------------

static crowd_status validate_def(const crowd_world_def* def) {
    if (!isfinite(def->dt) || !isfinite(def->cell_size)) return CROWD_ERR_NOT_FINITE;
    if (def->dt <= 0.0f) return CROWD_ERR_BAD_DT;
    if (def->cell_size <= 0.0f) return CROWD_ERR_BAD_CELL_SIZE;
    if (def->threads < 0 || def->threads > CROWD_MAX_THREADS) return CROWD_ERR_BAD_THREADS;
    if (def->dt > CROWD_MAX_DT || def->cell_size < CROWD_MIN_CELL_SIZE ||
        def->cell_size > CROWD_MAX_DISTANCE)
        return CROWD_ERR_OUT_OF_RANGE;
    if (def->capacity < 0 || def->max_agents < 1 || def->max_agents > (1 << 30))
        return CROWD_ERR_BAD_CAPACITY;
    if (def->max_neighbors < 0 || def->max_neighbors > CROWD_MAX_NEIGHBORS)
        return CROWD_ERR_BAD_COUNT;
    if ((def->alloc == NULL) != (def->free == NULL)) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_status nav = cs_nav_check_def(&def->nav);
    if (nav != CROWD_OK) return nav;
    return CROWD_OK;
}

crowd_status crowd_world_create(const crowd_world_def* def, crowd_world** out) {
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    *out = NULL;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = validate_def(def);
    if (st != CROWD_OK) return st;

    crowd_alloc_fn* alloc = def->alloc ? def->alloc : default_alloc;
    crowd_free_fn* fr = def->free ? def->free : default_free;
    crowd_world* w = alloc(sizeof *w, 64, def->alloc_user);
    if (!w) return CROWD_ERR_OUT_OF_MEMORY;
    memset(w, 0, sizeof *w);
    w->alloc = alloc;
    w->free = fr;
    w->alloc_user = def->alloc_user;
    w->dt = def->dt;
    w->cell_size = def->cell_size;
    w->threads_requested = def->threads;
    w->threads = resolve_threads(def->threads);
    w->max_neighbors = def->max_neighbors;
    w->max_agents = def->max_agents;
    w->seed = def->seed;
    w->free_top = -1;
    cs_walls_init(&w->walls, w->cell_size);
    cs_nav_init(&w->nav, &def->nav);
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int r = 0; r < CS_BEHAVIOR_MAX_RECORDS && cs_behaviors[b].records[r].size; ++r) {
            const cs_record_def* d = &cs_behaviors[b].records[r];
            cs_pool_init(&w->pools[d->kind], d->size, d->aux_size);
        }
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        if (cs_behaviors[b].profile_size)
            cs_profiles_init(&w->profiles[cs_behaviors[b].profile_kind],
                             cs_behaviors[b].profile_size);
    if (def->world_tag) {
        w->tag = def->world_tag;
    } else {
        uint64_t a = (uint64_t)(uintptr_t)w;
        w->tag = (uint16_t)cs_mix32((uint32_t)(a >> 6) ^ (uint32_t)(a >> 38));
    }

    st = cs_tick_build(w);
    for (int b = 0; b < CS_BEH_COUNT && st == CROWD_OK; ++b) {
        const size_t bytes = cs_behaviors[b].state_bytes;
        if (!bytes) continue;
        w->state[b] = cs_alloc(w, bytes);
        if (w->state[b])
            memset(w->state[b], 0, bytes);
        else
            st = CROWD_ERR_OUT_OF_MEMORY;
    }
    int capacity = def->capacity < def->max_agents ? def->capacity : def->max_agents;
    if (capacity < 1) capacity = 1;
    if (st == CROWD_OK) st = resize(w, capacity, capacity, w->threads, NULL, NULL);
    if (st != CROWD_OK) {
        crowd_world_destroy(w);
        return st;
    }
    *out = w;
    return CROWD_OK;
}

void crowd_world_destroy(crowd_world* w) {
    if (!w) return;
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        if (cs_behaviors[b].destroy) cs_behaviors[b].destroy(w);
        cs_free(w, w->state[b], cs_behaviors[b].state_bytes);
        w->state[b] = NULL;
    }
    for (int k = 0; k < CS_REC_COUNT; ++k) cs_pool_free(w, &w->pools[k]);
    for (int k = 0; k < CS_PROF_COUNT; ++k) cs_profiles_free(w, &w->profiles[k]);
    cs_free(w, w->rec_spare, w->rec_spare_bytes);
    cs_walls_free(w, &w->walls);
    cs_nav_free(w, &w->nav);
    array_ref refs[MAX_ARRAYS];
    const int n = world_arrays(w, refs);
    for (int i = 0; i < n; ++i)
        cs_free(w, ref_get(&refs[i]), ref_bytes(&refs[i], w->slot_capacity, w->index_capacity));
    cs_free(w, w->hist, hist_size(w->bucket_capacity, w->hist_threads));
    cs_free(w, w->cell_start, sizeof(uint32_t) * ((size_t)w->bucket_capacity + 1));
    crowd_free_fn* fr = w->free;
    void* user = w->alloc_user;
    fr(w, sizeof *w, user);
}

// Every behavior's room for `agents` agents, with the grown storage in place.
static crowd_status reserve_behaviors(crowd_world* w, void* ctx) {
    const int agents = *(const int*)ctx;
    crowd_status st = CROWD_OK;
    for (int b = 0; b < CS_BEH_COUNT && st == CROWD_OK; ++b)
        if (cs_behaviors[b].reserve) st = cs_behaviors[b].reserve(w, agents);
    return st;
}

crowd_status crowd_world_reserve(crowd_world* w, int agents) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (agents < 0 || agents > w->max_agents) return CROWD_ERR_BAD_CAPACITY;
    return cs_world_grow(w, agents, agents, reserve_behaviors, &agents);
}

crowd_status crowd_world_set_threads(crowd_world* w, int threads) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (threads < 0 || threads > CROWD_MAX_THREADS) return CROWD_ERR_BAD_THREADS;
    int resolved = resolve_threads(threads);
    crowd_status st = resize(w, w->slot_capacity, w->index_capacity, resolved, NULL, NULL);
    if (st != CROWD_OK) return st;
    w->threads_requested = threads;
    w->threads = resolved;
    return CROWD_OK;
}

int crowd_world_get_threads(const crowd_world* w) {
    return w ? w->threads : 0;
}

crowd_status crowd_world_set_max_neighbors(crowd_world* w, int max_neighbors) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    if (max_neighbors < 0 || max_neighbors > CROWD_MAX_NEIGHBORS) return CROWD_ERR_BAD_COUNT;
    w->max_neighbors = max_neighbors;
    return CROWD_OK;
}

int crowd_world_get_max_neighbors(const crowd_world* w) {
    return w ? w->max_neighbors : 0;
}
int crowd_world_agent_count(const crowd_world* w) {
    return w ? w->count : 0;
}
float crowd_world_get_dt(const crowd_world* w) {
    return w ? w->dt : 0.0f;
}
uint64_t crowd_world_tick(const crowd_world* w) {
    return w ? w->tick : 0;
}
crowd_profile crowd_world_get_profile(const crowd_world* w) {
    return w ? w->profile : (crowd_profile){0};
}
