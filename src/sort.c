// Sort phase: rebuild the spatial hash and gather every column into cell order.
#include "internal.h"

void crowd_pass_sort(crowd_world* w) {
    const int n = w->count;
    crowd_grid_sort(&w->grid, w->cell_size, w->cur.px, w->cur.py, n, w->bucket_capacity, w->hist,
                    w->threads, w->key, w->order, w->cell_start);

    const uint32_t* order = w->order;
#pragma omp parallel num_threads(w->threads) if (w->threads > 1)
    {
        for (int c = 0; c < CROWD_COL_COUNT; ++c) {
            const uint32_t* restrict src = w->cur.col[c];
            uint32_t* restrict dst = w->alt.col[c];
#pragma omp for schedule(static) nowait
            for (int s = 0; s < n; ++s) dst[s] = src[order[s]];
        }
    }
    crowd_columns tmp = w->cur;
    w->cur = w->alt;
    w->alt = tmp;

    const uint32_t* id = w->cur.id;
    int32_t* slot_of = w->slot_of;
#pragma omp parallel for num_threads(w->threads) if (w->threads > 1) schedule(static)
    for (int s = 0; s < n; ++s) slot_of[id[s]] = s;
}
