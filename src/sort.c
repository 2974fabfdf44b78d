// Sort phase: rebuild the spatial hash and gather every column into cell order.
#include "internal.h"

static void gather_range(uint32_t* restrict dst, const uint32_t* restrict src,
                         const uint32_t* restrict order, int lo, int hi) {
    for (int s = lo; s < hi; ++s) dst[s] = src[order[s]];
}

static void slot_range(int32_t* restrict slot_of, const uint32_t* restrict id, int lo, int hi) {
    for (int s = lo; s < hi; ++s) slot_of[id[s]] = s;
}

void crowd_pass_sort(crowd_world* w) {
    const int n = w->count;
    crowd_grid_sort(&w->grid, w->cell_size, w->cur.px, w->cur.py, n, w->bucket_capacity, w->hist,
                    w->threads, w->key, w->order, w->skey, w->cell_start);

    const uint32_t* order = w->order;
#pragma omp parallel num_threads(w->threads) if (w->threads > 1)
    {
        int lo, hi;
        crowd_thread_range(n, &lo, &hi);
        for (int c = 0; c < CROWD_COL_COUNT; ++c)
            gather_range(w->alt.col[c], w->cur.col[c], order, lo, hi);
    }
    crowd_columns tmp = w->cur;
    w->cur = w->alt;
    w->alt = tmp;

#pragma omp parallel num_threads(w->threads) if (w->threads > 1)
    {
        int lo, hi;
        crowd_thread_range(n, &lo, &hi);
        slot_range(w->slot_of, w->cur.id, lo, hi);
    }
}
