// Recursive bisection of the cell lattice among the ranks of a split world (see dist/split.h).
#include "dist/split.h"

#include <limits.h>
#include <math.h>
#include <string.h>

// Histogram bins of one level of the tree, shared by its nodes (at least MIN_BINS each).
enum { BINS = 4096, MIN_BINS = 16 };

static int shape(cs_split* s, int first, int ranks, int depth) {
    const int n = s->nodes++;
    cs_split_node* e = &s->node[n];
    *e = (cs_split_node){
        .cut = INT64_MAX, .depth = depth, .lo = -1, .hi = -1, .first = first, .ranks = ranks};
    if (depth > s->depth) s->depth = depth;
    if (ranks == 1) return n;
    const int low = ranks / 2;
    const int lo = shape(s, first, low, depth + 1);
    const int hi = shape(s, first + low, ranks - low, depth + 1);
    s->node[n].lo = lo;
    s->node[n].hi = hi;
    return n;
}

// A level has at most `ranks` / 2 nodes with children; its buffer takes 4 + MIN_BINS values per
// node, or BINS histogram bins in all.
static size_t buf_len(int ranks) {
    const size_t most = (size_t)ranks;
    return 4 * most + (MIN_BINS * most > BINS ? MIN_BINS * most : BINS);
}

crowd_status cs_split_init(crowd_world* w, cs_split* s, int ranks) {
    *s = (cs_split){.ranks = ranks};
    const size_t nodes = (size_t)(2 * ranks - 1);
    s->node = cs_alloc(w, nodes * sizeof *s->node);
    s->buf_len = buf_len(ranks);
    s->buf = cs_alloc(w, s->buf_len * sizeof *s->buf);
    s->level = cs_alloc(w, (size_t)ranks * sizeof *s->level);
    s->slot = cs_alloc(w, nodes * sizeof *s->slot);
    if (!s->node || !s->buf || !s->level || !s->slot) {
        cs_split_free(w, s);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    shape(s, 0, ranks, 0);
    return CROWD_OK;
}

void cs_split_free(crowd_world* w, cs_split* s) {
    const size_t nodes = (size_t)(2 * s->ranks - 1);
    cs_free(w, s->node, nodes * sizeof *s->node);
    cs_free(w, s->buf, s->buf_len * sizeof *s->buf);
    cs_free(w, s->level, (size_t)s->ranks * sizeof *s->level);
    cs_free(w, s->slot, nodes * sizeof *s->slot);
    *s = (cs_split){0};
}

int64_t cs_split_column(const crowd_world* w, float x) {
    return (int64_t)floorf(x / w->cell_size);
}

int64_t cs_split_row(const crowd_world* w, float y) {
    return (int64_t)floorf(y / w->cell_size);
}

static int child(const cs_split_node* e, int64_t col, int64_t row) {
    return (e->axis ? row : col) < e->cut ? e->lo : e->hi;
}

int cs_split_owner(const cs_split* s, int64_t col, int64_t row) {
    int n = 0;
    while (s->node[n].lo >= 0) n = child(&s->node[n], col, row);
    return s->node[n].first;
}

int cs_split_ranks_in(const cs_split* s, int64_t c0, int64_t c1, int64_t r0, int64_t r1, int* out) {
    int stack[2 * 32 + 2], top = 0, k = 0;
    stack[top++] = 0;
    while (top) {
        const cs_split_node* e = &s->node[stack[--top]];
        if (e->lo < 0) {
            out[k++] = e->first;
            continue;
        }
        const int64_t a = e->axis ? r0 : c0, b = e->axis ? r1 : c1;
        if (b >= e->cut) stack[top++] = e->hi; // popped after the low side: ranks in order
        if (a < e->cut) stack[top++] = e->lo;
    }
    return k;
}

void cs_split_region(const cs_split* s, int rank, int64_t box[4]) {
    box[0] = box[2] = INT64_MIN;
    box[1] = box[3] = INT64_MAX;
    for (int n = 0; s->node[n].lo >= 0;) {
        const cs_split_node* e = &s->node[n];
        if (rank < s->node[e->hi].first) {
            if (e->cut - 1 < box[2 * e->axis + 1]) box[2 * e->axis + 1] = e->cut - 1;
            n = e->lo;
        } else {
            if (e->cut > box[2 * e->axis]) box[2 * e->axis] = e->cut;
            n = e->hi;
        }
    }
}

// The node of depth `depth` whose rectangle holds the cell, when it has children; else -1.
static int node_at(const cs_split* s, int depth, int64_t col, int64_t row) {
    int n = 0;
    while (s->node[n].depth < depth && s->node[n].lo >= 0) n = child(&s->node[n], col, row);
    return s->node[n].depth == depth && s->node[n].lo >= 0 ? n : -1;
}

// Bin b of `bins` over `span` cells starts ceil(b * span / bins) cells into the span (exact for
// any span: the quotient and remainder of span / bins are taken apart).
static int64_t bin_start(int64_t b, int64_t span, int64_t bins) {
    return b * (span / bins) + (b * (span % bins) + bins - 1) / bins;
}

// The bin of offset x (0 <= x < span): the last whose start is at most x.
static int64_t bin_of(int64_t x, int64_t span, int64_t bins) {
    if (span <= INT64_MAX / BINS) return x * bins / span;
    int64_t lo = 0, hi = bins - 1;
    while (lo < hi) {
        const int64_t mid = (lo + hi + 1) / 2;
        if (bin_start(mid, span, bins) <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Point a of the ones a cut counts: the world's agents, then the extra points.
static void point_at(const crowd_world* w, const float* extra, int a, int64_t* col, int64_t* row) {
    const bool stored = a < w->count;
    const float x = stored ? w->cur.px[a] : extra[2 * (a - w->count)];
    const float y = stored ? w->cur.py[a] : extra[2 * (a - w->count) + 1];
    *col = cs_split_column(w, x);
    *row = cs_split_row(w, y);
}

void cs_split_compute(const crowd_world* w, const float* extra, int extra_count, cs_split* s,
                      bool strips, cs_split_reduce_fn* reduce, void* ctx) {
    cs_split_level* lv = s->level;
    int* slot = s->slot;
    int64_t* buf = s->buf;
    const int points = w->count + extra_count;
    for (int depth = 0; depth < s->depth; ++depth) {
        int nl = 0;
        for (int n = 0; n < s->nodes; ++n)
            if (s->node[n].depth == depth && s->node[n].lo >= 0) {
                slot[n] = nl;
                lv[nl++] = (cs_split_level){.n = n};
            }
        for (int i = 0; i < 4 * nl; ++i) buf[i] = INT64_MAX;
        for (int a = 0; a < points; ++a) {
            int64_t col, row;
            point_at(w, extra, a, &col, &row);
            const int n = node_at(s, depth, col, row);
            if (n < 0) continue;
            int64_t* r = buf + 4 * slot[n];
            if (col < r[0]) r[0] = col;
            if (-col < r[1]) r[1] = -col;
            if (row < r[2]) r[2] = row;
            if (-row < r[3]) r[3] = -row;
        }
        if (reduce) reduce(ctx, buf, 4 * nl, true);
        const int64_t per = BINS / nl > MIN_BINS ? BINS / nl : MIN_BINS;
        int64_t at = 4 * nl;
        for (int i = 0; i < nl; ++i) {
            cs_split_node* e = &s->node[lv[i].n];
            const int64_t* r = buf + 4 * i;
            e->axis = 0;
            if (r[0] == INT64_MAX) { // no agent: everything to the low side
                e->cut = INT64_MAX;
                continue;
            }
            const int64_t cols = -r[1] - r[0] + 1, rows = -r[3] - r[2] + 1;
            e->axis = !strips && rows > cols;
            lv[i].lo = e->axis ? r[2] : r[0];
            lv[i].span = e->axis ? rows : cols;
            lv[i].bins = lv[i].span < per ? lv[i].span : per;
            lv[i].at = at;
            at += lv[i].bins;
        }
        memset(buf + 4 * nl, 0, (size_t)(at - 4 * nl) * sizeof *buf);
        for (int a = 0; a < points; ++a) {
            int64_t col, row;
            point_at(w, extra, a, &col, &row);
            const int n = node_at(s, depth, col, row);
            if (n < 0) continue;
            const int i = slot[n];
            const int64_t x = (s->node[n].axis ? row : col) - lv[i].lo;
            buf[lv[i].at + bin_of(x, lv[i].span, lv[i].bins)]++;
        }
        if (reduce) reduce(ctx, buf + 4 * nl, (int)(at - 4 * nl), false);
        // The low child's share of the ranks, of the node's agents: its cut is the start of the
        // first bin where the running count has reached it.
        for (int i = 0; i < nl; ++i) {
            cs_split_node* e = &s->node[lv[i].n];
            if (buf[4 * i] == INT64_MAX) continue;
            const int64_t* h = buf + lv[i].at;
            int64_t total = 0;
            for (int64_t b = 0; b < lv[i].bins; ++b) total += h[b];
            const int64_t low = s->node[e->lo].ranks;
            const int64_t want = (total * low + e->ranks - 1) / e->ranks;
            int64_t run = 0, b = 0;
            while (b < lv[i].bins && run < want) run += h[b++];
            // The bin that reached the share goes to whichever side it leaves nearer its share
            // (a bin is a whole cell column or row: a dense one holds many agents).
            if (b > 1 && run - want > want - (run - h[b - 1])) --b;
            e->cut = b < lv[i].bins ? lv[i].lo + bin_start(b, lv[i].span, lv[i].bins)
                                    : lv[i].lo + lv[i].span;
        }
    }
}
