// Sort phase: rebuild the spatial hash and gather every column into cell order.
#include "core/internal.h"

static void gather_range(uint32_t* restrict dst, const uint32_t* restrict src,
                         const uint32_t* restrict order, int lo, int hi) {
    for (int s = lo; s < hi; ++s) dst[s] = src[order[s]];
}

// The kinematic columns go to their back buffers. The others rotate through the spare column:
// column c is gathered into the buffer that column c - 1 left (the spare for the first), once every
// thread has finished reading it, hence one barrier per column.
// The sort's two scratch arrays (input-order keys, then the gather permutation) are the force
// arrays: nothing reads those between a step's integration and the next neighbor pass, which
// overwrites them. Two fewer per-agent arrays.
static uint32_t* sort_keys(crowd_world* w) {
    return (uint32_t*)(void*)w->force_x;
}
static uint32_t* sort_order(crowd_world* w) {
    return (uint32_t*)(void*)w->force_y;
}

static void gather_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const uint32_t* order = sort_order(w);
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    for (int c = 0; c < CS_KIN_COUNT; ++c)
        gather_range(w->alt.col[c], w->cur.col[c], order, lo, hi);
    void* dst = w->spare;
    for (int c = CS_KIN_COUNT; c < CS_COL_COUNT; ++c) {
        if (c > CS_KIN_COUNT) cs_team_barrier(nt);
        gather_range(dst, w->cur.col[c], order, lo, hi);
        if (c == CS_COL_ID) {
            // Each thread re-points the agents of its own slots.
            const uint32_t* restrict id = dst;
            int32_t* restrict slot_of = w->slot_of;
            for (int s = lo; s < hi; ++s) slot_of[id[s]] = s;
        }
        dst = w->cur.col[c];
    }
}

// ---- behavior records follow their agents ------------------------------------------------------

typedef struct records_ctx {
    crowd_world* w;
    cs_pool* pool[CS_REC_COUNT];
    int32_t* rec_of[CS_REC_COUNT];
    int pools;
    int32_t count[CS_REC_COUNT][CS_MAX_THREADS]; // records in each thread's slots
} records_ctx;

static void records_team(void* arg, int t, int nt) {
    records_ctx* x = arg;
    const uint32_t* id = x->w->cur.id;
    int lo, hi;
    cs_team_range(x->w->count, CS_LANES, t, nt, &lo, &hi);
    // Alone, a thread's records start at 0 and need no count.
    for (int k = 0; k < x->pools && nt > 1; ++k)
        x->count[k][t] = cs_pool_count_slots(x->rec_of[k], id, lo, hi);
    cs_team_barrier(nt);
    for (int k = 0; k < x->pools; ++k) {
        int32_t first = 0;
        for (int u = 0; u < t; ++u) first += x->count[k][u];
        cs_pool_move_slots(x->pool[k], x->rec_of[k], id, lo, hi, first);
    }
}

// Every pass after the sort reads the records of the agents it visits in slot order; laid out in
// that order they stream from memory instead of costing a cache miss each. Agents move little
// between ticks, so the copy itself reads nearly in order too, and a layout stays nearly in order
// for a few ticks: it is redone every CS_RECORD_PERIOD ticks.
static void records_follow(crowd_world* w) {
    records_ctx x = {.w = w};
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        if (w->pools[k].live == 0) continue;
        x.pool[x.pools] = &w->pools[k];
        x.rec_of[x.pools++] = w->rec_of[k];
    }
    if (x.pools == 0 || w->tick % CS_RECORD_PERIOD != 0) return;
    cs_team_run(w->threads, records_team, &x);
    for (int k = 0; k < x.pools; ++k) cs_pool_settle(x.pool[k]);
}

void cs_pass_sort(crowd_world* w) {
    cs_grid_sort(&w->grid, w->cell_size, w->cur.px, w->cur.py, w->count, w->bucket_capacity,
                 w->hist, w->threads, sort_keys(w), sort_order(w), w->skey, w->cell_start);
    cs_team_run(w->threads, gather_team, w);
    for (int c = 0; c < CS_KIN_COUNT; ++c) {
        void* tmp = w->cur.col[c];
        w->cur.col[c] = w->alt.col[c];
        w->alt.col[c] = tmp;
    }
    void* spare = w->spare;
    for (int c = CS_KIN_COUNT; c < CS_COL_COUNT; ++c) {
        void* old = w->cur.col[c];
        w->cur.col[c] = spare;
        spare = old;
    }
    w->spare = spare;
    records_follow(w);
}
