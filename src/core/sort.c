// Sort phase: rebuild the spatial hash and gather every column into cell order.
#include "core/dist_hooks.h"
#include "core/internal.h"

// The sort's two scratch arrays (input-order keys, then the gather permutation) are the force
// arrays: nothing reads those between a step's integration and the next neighbor pass, which
// overwrites them. Two fewer per-agent arrays.
static uint32_t* sort_keys(crowd_world* w) {
    return (uint32_t*)(void*)w->force_x;
}
static uint32_t* sort_order(crowd_world* w) {
    return (uint32_t*)(void*)w->force_y;
}
// The cell keys of the sorted slots go into the last free column buffer: only order_cells reads
// them, before the gather writes that buffer (the neighbor pass computes an agent's key again
// from its position, cs_grid_dense_key).
static uint32_t* sort_cell_keys(crowd_world* w) {
    return w->free_col[CS_FREE_COLS - 1];
}

// Puts the agents of each cell in agent-index order: the counting sort keeps them in the order of
// the slots before the sort, which is history (what moved where last tick), while agent indices are
// the same whatever the history, the thread count or, in a world split across processes, which
// other agents a process holds. The neighbor sums then see every cell's agents in one order.
//
// A cell's agents that were together last tick come in index order already; only those that
// entered it are out of place, a few per tick. Each is found by a branch-free scan and inserted
// back. A cell that gets many (agents put down together by the caller) is heap-sorted instead, so
// no input costs more than n log n.

// Agent indices of the slots are in `ids` (a copy the sort permutes along with `order`).
typedef struct cell_order {
    const uint32_t* skey;
    uint32_t *order, *ids;
} cell_order;

// First slot of the cell of slot j (sorted keys rise: gallop back, then bisect).
static int cell_begin(const uint32_t* skey, int j) {
    const uint32_t key = skey[j];
    int lo = j, step = 1;
    while (lo > 0 && skey[lo - 1] == key) {
        const int next = lo - step;
        if (next <= 0 || skey[next - 1] != key) break;
        lo = next;
        step *= 2;
    }
    int a = lo - step < 0 ? 0 : lo - step, b = lo; // skey[b] == key; find the first such slot
    while (a < b) {
        const int m = a + (b - a) / 2;
        if (skey[m] == key)
            b = m;
        else
            a = m + 1;
    }
    return b;
}

static void sift(cell_order* c, int base, int root, int n) {
    uint32_t* ids = c->ids + base;
    uint32_t* order = c->order + base;
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && ids[child + 1] > ids[child]) child++;
        if (ids[root] >= ids[child]) return;
        const uint32_t ti = ids[root], to = order[root];
        ids[root] = ids[child], order[root] = order[child];
        ids[child] = ti, order[child] = to;
        root = child;
    }
}

static void heap_sort_cell(cell_order* c, int b, int e) {
    const int n = e - b;
    for (int i = n / 2 - 1; i >= 0; --i) sift(c, b, i, n);
    for (int end = n - 1; end > 0; --end) {
        const uint32_t ti = c->ids[b], to = c->order[b];
        c->ids[b] = c->ids[b + end], c->order[b] = c->order[b + end];
        c->ids[b + end] = ti, c->order[b + end] = to;
        sift(c, b, 0, end);
    }
}

// Moves slot j, out of place, back among the slots before it in its cell (which are in order).
static void insert_back(cell_order* c, int j) {
    const uint32_t k = c->ids[j], o = c->order[j], key = c->skey[j];
    int i = j;
    for (; i > 0 && c->skey[i - 1] == key && c->ids[i - 1] > k; --i)
        c->ids[i] = c->ids[i - 1], c->order[i] = c->order[i - 1];
    c->ids[i] = k, c->order[i] = o;
}

// Insertions into one cell before it is heap-sorted instead.
#define CS_CELL_INSERTS 16

// Out of place: slot j shares its cell with slot j - 1 and comes before it in index order.
static inline uint64_t out_of_place(const uint32_t* skey, const uint32_t* ids, int j) {
    return (uint64_t)(skey[j] == skey[j - 1]) & (uint64_t)(ids[j] < ids[j - 1]);
}

// Thread t orders the cells that start in its slots [lo, hi), reading on past hi to their end.
static void order_cells(const uint32_t* restrict skey, const uint32_t* restrict id,
                        uint32_t* restrict order, uint32_t* restrict ids, int n, int lo, int hi) {
    if (lo >= hi) return;
    int s = lo;
    while (s > 0 && s < hi && skey[s] == skey[s - 1]) ++s; // a cell that straddles lo is t - 1's
    int e = hi;
    while (e < n && skey[e] == skey[e - 1]) ++e;
    if (s >= e) return;
    // The agent indices of the slots first, in a loop of its own: a gather that vectorizes.
    for (int j = s; j < e; ++j) ids[j] = id[order[j]];
    cell_order c = {skey, order, ids};
    uint32_t last_key = 0;
    int inserts = 0;
    // 64 slots at a time, tested without branches into a bit mask: per slot, the cell test is a
    // coin toss (half the slots share their cell with the one before), too costly as a branch.
    for (int blk = s + 1; blk < e; blk += 64) {
        const int len = e - blk < 64 ? e - blk : 64;
        uint64_t bad = 0;
        for (int l = 0; l < len; ++l) bad |= out_of_place(skey, ids, blk + l) << l;
        while (bad) {
            const int l = __builtin_ctzll(bad), j = blk + l;
            bad &= bad - 1;
            inserts = skey[j] == last_key ? inserts + 1 : 1;
            last_key = skey[j];
            if (inserts <= CS_CELL_INSERTS) {
                insert_back(&c, j);
                // Slot j now holds the cell's largest index so far: j + 1 may have become out of
                // place (slots after it are unchanged).
                if (l + 1 < len) bad |= out_of_place(skey, ids, j + 1) << (l + 1);
                continue;
            }
            const int b = cell_begin(skey, j);
            int end = j + 1;
            while (end < e && skey[end] == skey[j]) ++end;
            heap_sort_cell(&c, b, end);
            // The rest of the cell is in order now; the slots after it are unchanged.
            const int past = end - blk;
            bad = past >= 64 ? 0 : bad & ~((UINT64_C(1) << past) - 1);
        }
    }
}

// The gather is out of place: each column goes into a buffer that holds nothing. The world has
// CS_FREE_COLS of them, fewer than the columns, so the columns go in groups of that many: the first
// group fills the free buffers, and once every thread has read a group's old buffers (one barrier)
// those hold the next group: a barrier per group, not one per column. The agent indices go into
// the sort's key array, done with once the grid is sorted: order_cells writes them there in slot
// order, and that buffer becomes the index column. plan_gather works out, before the threads
// start, which buffer each column goes into; every thread reads the same plan.
typedef struct gather_plan {
    int n;                    // columns gathered: the core's but the agent index, the hot in use
    int col[CS_COL_ALL];      // in column order
    void* dst[CS_COL_ALL];    // the buffer each goes into
    void* free[CS_FREE_COLS]; // the buffers that hold nothing afterwards
} gather_plan;

// The flags among `want` that some agent has: the OR of the flags column, in blocks that stop as
// soon as every bit of `want` has been seen (a world with such agents usually meets one at once).
static uint32_t flags_present(const crowd_world* w, uint32_t want) {
    enum { BLOCK = 4096 };
    const uint32_t* restrict flags = w->cur.flags;
    uint32_t seen = 0;
    for (int lo = 0; lo < w->count && (seen & want) != want; lo += BLOCK) {
        const int hi = w->count - lo < BLOCK ? w->count : lo + BLOCK;
        uint32_t any = 0;
        for (int s = lo; s < hi; ++s) any |= flags[s];
        seen |= any;
    }
    return seen & want;
}

// Hot columns the sort leaves where they are: those gated on flags no agent has, which then hold 0
// in every slot (core/behavior.h, cs_hot_def.gate), so gathering them would change nothing.
static uint32_t hot_idle(const crowd_world* w) {
    uint32_t gates = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < cs_behaviors[b].hot_count; ++k)
            if (cs_hot_live(w, cs_behaviors[b].hot[k].col)) gates |= cs_behaviors[b].hot[k].gate;
    const uint32_t present = gates ? flags_present(w, gates) : 0;
    uint32_t idle = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < cs_behaviors[b].hot_count; ++k) {
            const cs_hot_def* h = &cs_behaviors[b].hot[k];
            if (h->gate && !(h->gate & present)) idle |= 1u << h->col;
        }
    return idle;
}

static void plan_gather(const crowd_world* w, gather_plan* p) {
    const uint32_t idle = hot_idle(w);
    p->n = 0;
    for (int c = 0; c < CS_COL_ALL; ++c)
        if (c != CS_COL_ID && (c < CS_COL_COUNT || (cs_hot_live(w, c - CS_COL_COUNT) &&
                                                    !(idle >> (c - CS_COL_COUNT) & 1u))))
            p->col[p->n++] = c;
    // Buffers free for the next group, oldest first: the free buffers, then each group's old ones.
    void* avail[CS_FREE_COLS + CS_COL_ALL];
    int head = 0, tail = 0;
    for (int k = 0; k < CS_FREE_COLS; ++k) avail[tail++] = w->free_col[k];
    for (int g = 0; g * CS_FREE_COLS < p->n; ++g) {
        const int lo = g * CS_FREE_COLS, hi = lo + CS_FREE_COLS < p->n ? lo + CS_FREE_COLS : p->n;
        for (int j = lo; j < hi; ++j) p->dst[j] = avail[head++];
        for (int j = lo; j < hi; ++j) avail[tail++] = w->cur.col[p->col[j]];
    }
    for (int k = 0; k < CS_FREE_COLS; ++k) p->free[k] = avail[head++];
}

// One column at a time: the loop vectorizes (a loop over several columns per slot stays scalar and
// was slower at 100k agents, where the columns are in cache).
static void gather_range(uint32_t* restrict dst, const uint32_t* restrict src,
                         const uint32_t* restrict order, int lo, int hi) {
    for (int s = lo; s < hi; ++s) dst[s] = src[order[s]];
}

// Group g of the plan: its columns' sources are the columns as they were before the sort.
static void gather_group(const crowd_world* w, const gather_plan* p, int g, const uint32_t* order,
                         int lo, int hi) {
    const int j0 = g * CS_FREE_COLS, j1 = j0 + CS_FREE_COLS < p->n ? j0 + CS_FREE_COLS : p->n;
    for (int j = j0; j < j1; ++j) gather_range(p->dst[j], w->cur.col[p->col[j]], order, lo, hi);
}

typedef struct gather_ctx {
    crowd_world* w;
    gather_plan plan;
} gather_ctx;

// Worlds of at most this many agents re-point slot_of on one thread (gather_team).
#define CS_SLOT_OF_SHARED 262144

static void gather_team(void* arg, int t, int nt) {
    const gather_ctx* x = arg;
    crowd_world* w = x->w;
    const uint32_t* order = sort_order(w);
    uint32_t* ids = sort_keys(w);
    int lo, hi;
    cs_team_range(w->count, CS_LANES, t, nt, &lo, &hi);
    order_cells(sort_cell_keys(w), w->cur.id, sort_order(w), ids, w->count, lo, hi);
    cs_team_barrier(nt);
    gather_group(w, &x->plan, 0, order, lo, hi);
    // Each thread re-points the agents of its own slots; in a small world one thread re-points them
    // all. slot_of is indexed by agent, so the threads' writes share cache lines: a small world's
    // slot_of stays in cache and its lines move between the cores at every write (10k agents on
    // 2 threads: 50 us on each against 3.3 us on one; 100k: 135 against 88). A large one misses
    // the cache either way and splits well (1M: 1.2 ms on each against 2.2 ms on one).
    const uint32_t* restrict id = ids;
    int32_t* restrict slot_of = w->slot_of;
    const bool one = nt > 1 && w->count <= CS_SLOT_OF_SHARED;
    if (!one || t == 0)
        for (int s = one ? 0 : lo, e = one ? w->count : hi; s < e; ++s) slot_of[id[s]] = s;
    for (int g = 1; g * CS_FREE_COLS < x->plan.n; ++g) {
        cs_team_barrier(nt);
        gather_group(w, &x->plan, g, order, lo, hi);
    }
}

// ---- behavior records follow their agents ------------------------------------------------------

typedef struct records_ctx {
    crowd_world* w;
    cs_pool* pool[CS_REC_COUNT];
    int32_t* rec_of[CS_REC_COUNT];
    cs_scratch scratch[CS_REC_COUNT];
    int pools;
    int32_t count[CS_REC_COUNT][CS_MAX_THREADS]; // records in each thread's slots
} records_ctx;

// The layout's room for records of `size` bytes: the free per-slot buffers, then the spare array.
static cs_scratch scratch_for(crowd_world* w, size_t size) {
    enum { N = CS_SCRATCH_BUFS + 2 };
    void* bufs[N];
    size_t bytes[N];
    for (int c = 0; c < CS_FREE_COLS; ++c) bufs[c] = w->free_col[c];
    bufs[CS_FREE_COLS] = w->force_x;
    bufs[CS_FREE_COLS + 1] = w->force_y;
    for (int c = 0; c < CS_SCRATCH_BUFS; ++c) bytes[c] = cs_scratch_buf_bytes(w->slot_capacity);
    bufs[CS_SCRATCH_BUFS] = w->hist;
    bytes[CS_SCRATCH_BUFS] = w->hist ? cs_hist_bytes(w->bucket_capacity, w->hist_threads) : 0;
    bufs[N - 1] = w->rec_spare;
    bytes[N - 1] = w->rec_spare_bytes;
    cs_scratch x = {.size = size};
    int64_t at = 0;
    for (int c = 0; c < N; ++c) {
        x.buf[c] = bufs[c];
        x.first[c] = (int32_t)(at < INT32_MAX ? at : INT32_MAX);
        at += (int64_t)(bytes[c] / size);
    }
    x.count = N;
    x.first[x.count] = (int32_t)(at < INT32_MAX ? at : INT32_MAX);
    return x;
}

// The pools go one after the other through the scratch room: a thread copies back the records it
// moved once every thread has moved (the sources are anywhere in the pool), and the next pool's
// moves wait for every copy. The first thread numbers its records from 0 and the last one from
// the pool's end down, so only the threads between them need the counts of those before them:
// with two threads, no thread counts.
static void records_team(void* arg, int t, int nt) {
    records_ctx* x = arg;
    const uint32_t* id = x->w->cur.id;
    int lo, hi;
    cs_team_range(x->w->count, CS_LANES, t, nt, &lo, &hi);
    for (int k = 0; k < x->pools && t < nt - 2; ++k)
        x->count[k][t] = cs_pool_count_slots(x->rec_of[k], id, lo, hi);
    for (int k = 0; k < x->pools; ++k) {
        // The counts, and for a later pool every copy of the one before: the next pool's moves
        // write the scratch room those copies read.
        if (k > 0 || nt > 2) cs_team_barrier(nt);
        int32_t first = 0, end;
        if (t > 0 && t == nt - 1) {
            end = x->pool[k]->live;
            first = end - cs_pool_move_slots_back(x->pool[k], &x->scratch[k], x->rec_of[k], id, lo,
                                                  hi, end - 1);
        } else {
            for (int u = 0; u < t; ++u) first += x->count[k][u];
            end = first +
                  cs_pool_move_slots(x->pool[k], &x->scratch[k], x->rec_of[k], id, lo, hi, first);
        }
        cs_team_barrier(nt);
        cs_pool_copy_back(x->pool[k], &x->scratch[k], first, end);
    }
}

// A pass that reads records every tick (cs_record_def.slot_order) visits its agents in slot order;
// laid out in that order the records stream from memory instead of costing a cache miss each.
// Agents move little between ticks, so the copy itself reads nearly in order too, and a layout
// stays nearly in order for a few ticks: each such pool is laid out again every CS_RECORD_PERIOD
// ticks. Records read only on events are left where they are.
static void records_follow(crowd_world* w) {
    records_ctx x = {.w = w};
    bool in_order[CS_REC_COUNT] = {false};
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int r = 0; r < CS_BEHAVIOR_MAX_RECORDS && cs_behaviors[b].records[r].size; ++r)
            in_order[cs_behaviors[b].records[r].kind] = cs_behaviors[b].records[r].slot_order;
    for (int k = 0; k < CS_REC_COUNT; ++k) {
        if (!in_order[k] || w->pools[k].live == 0 ||
            w->tick % CS_RECORD_PERIOD != (uint64_t)k % CS_RECORD_PERIOD)
            continue;
        // A split world keeps these records for agents it does not store: they stay in place.
        if (w->split_live && (cs_dist_replicated() & (1u << k))) continue;
        // cs_pool_reserve sizes the spare array so the room holds every live record. A pool that
        // grew inside a world growth that then failed was sized against the larger capacity; if
        // it fills past the room, it stays where it is rather than overflow (the layout changes
        // no result, only the order of memory reads).
        const cs_scratch room = scratch_for(w, w->pools[k].size);
        if (room.first[room.count] < w->pools[k].live) continue;
        x.pool[x.pools] = &w->pools[k];
        x.scratch[x.pools] = room;
        x.rec_of[x.pools++] = w->rec_of[k];
    }
    if (x.pools == 0) return;
    cs_team_run(w->threads, records_team, &x);
    for (int k = 0; k < x.pools; ++k) cs_pool_settle(x.pool[k]);
}

void cs_pass_sort(crowd_world* w) {
    cs_grid_sort(&w->grid, w->cell_size, w->cur.px, w->cur.py, w->count, w->bucket_capacity,
                 w->hist, w->threads, sort_keys(w), sort_order(w), sort_cell_keys(w),
                 w->cell_start);
    gather_ctx x = {.w = w};
    plan_gather(w, &x.plan);
    cs_team_run(w->threads, gather_team, &x);
    // Every column is in its planned buffer now. The agent indices went into the key array, and the
    // old index buffer is the key array now.
    for (int j = 0; j < x.plan.n; ++j) w->cur.col[x.plan.col[j]] = x.plan.dst[j];
    for (int k = 0; k < CS_FREE_COLS; ++k) w->free_col[k] = x.plan.free[k];
    void* const old_id = w->cur.col[CS_COL_ID];
    w->cur.col[CS_COL_ID] = w->force_x;
    w->force_x = old_id;
    records_follow(w);
    w->since_sort.intact = true;
    w->since_sort.sorted = w->count;
    w->since_sort.moved = 0;
}
