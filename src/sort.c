// Sort phase: rebuild the spatial hash and gather every column into cell order.
#include "internal.h"

static void gather_range(uint32_t* restrict dst, const uint32_t* restrict src,
                         const uint32_t* restrict order, int lo, int hi) {
    for (int s = lo; s < hi; ++s) dst[s] = src[order[s]];
}

static void gather_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    int lo, hi;
    crowd_team_range(w->count, CROWD_LANES, t, nt, &lo, &hi);
    for (int c = 0; c < CROWD_COL_COUNT; ++c)
        gather_range(w->alt.col[c], w->cur.col[c], w->order, lo, hi);
    // Each thread re-points the agents of its own slots, so no barrier is needed.
    const uint32_t* restrict id = w->alt.id;
    int32_t* restrict slot_of = w->slot_of;
    for (int s = lo; s < hi; ++s) slot_of[id[s]] = s;
}

void crowd_pass_sort(crowd_world* w) {
    crowd_grid_sort(&w->grid, w->cell_size, w->cur.px, w->cur.py, w->count, w->bucket_capacity,
                    w->hist, w->threads, w->key, w->order, w->skey, w->cell_start);
    crowd_team_run(w->threads, gather_team, w);
    crowd_columns tmp = w->cur;
    w->cur = w->alt;
    w->alt = tmp;
}
