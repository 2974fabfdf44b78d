// A world split across MPI ranks in rectangles of hash cells (crowd/dist.h, dist/split.h).
//
// A step: when the ranks' agent counts are unbalanced past the threshold, the split cut again from
// the owned agents' cells (histograms summed over the ranks, integers only); agents outside their
// rank's rectangle sent to its owner; ghosts sent to every rank whose rectangle lies within the
// interaction range (the largest neighbor-query reach over all agents, in whole cells); the agents
// that followers read across any distance (leaders, groups being reassigned) gathered by every
// rank; the ordinary step of the rank's world; the copies dropped; and the arrivals of all ranks
// gathered in handle order so every rank frees the same handles in the same order. Nothing is
// summed across ranks in floating point; the only float reduction is a maximum.
//
// Navigation (crowd/nav.h): every rank counts the whole world's uses of destinations and exit sets
// (see core/dist_hooks.h), so each builds every field in use and its budget checks are the whole
// world's. The per-agent record of what each agent counts (routes, kept only in a world with
// navigation on or an exit set) lets the ranks that do not own a removed agent end its uses too.
#define _POSIX_C_SOURCE 200809L // sched_yield

#include "crowd/dist.h"

#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/dist_hooks.h"
#include "core/range.h"
#include "dist/split.h"

// The whole-world gather (crowd_dist_with_whole_world): its messages' tag and largest piece.
enum { GATHER_TAG = 7301, GATHER_PIECE = 1 << 30 };

struct crowd_dist {
    MPI_Comm comm;
    int rank, size;
    crowd_world* w;
    uint8_t* live; // per agent index: its handle is issued and the agent lives (on some rank)
    size_t live_cap;
    // Per agent index: what it counts in navigation (every rank). Only while routes_on: a world
    // that counts no route (navigation off, or no obstacle yet) and has no exit set counts nothing
    // an agent's removal would end (cs_dist_routes_needed), and 48 bytes per index of the whole
    // world would be wasted.
    cs_dist_routes* routes;
    size_t routes_cap;
    bool routes_on;
    int count;      // agents in the whole world
    cs_split split; // which rank owns which cells
    crowd_dist_split kind;
    bool resplit;     // the split's kind changed: cut again before the next step
    int halo;         // cells of ghosts on each side of a rectangle
    int* near;        // ranks whose rectangle meets an agent's halo
    int64_t* sizes;   // per rank: the bytes it sends rank 0 in the whole-world gather (scratch)
    double rebalance; // the split is cut again when the imbalance reaches it
    bool failed;      // a step failed on some rank: every later call is refused (crowd/dist.h)

    unsigned char *send, *recv;
    size_t send_cap, recv_cap;
    int *scount, *sdispl, *rcount, *rdispl;
    unsigned char** bucket; // per destination rank: packed agents
    size_t *bucket_len, *bucket_cap;
    uint32_t* ghost; // indices of the ghosts held during a step
    size_t ghost_cap;
    crowd_arrival* arrivals;
    int arrival_count;
    size_t arrival_cap;
    crowd_dist_stats stats;
};

// ---- helpers ------------------------------------------------------------------------------------

// Collectives wait by polling and yielding the core: with more ranks than cores (and OpenMP teams
// besides) a rank that spins in a blocking collective takes the core from the rank it waits for.
static void settle(MPI_Request* r) {
    int done = 0;
    while (MPI_Test(r, &done, MPI_STATUS_IGNORE), !done) sched_yield();
}
#define COLLECTIVE(call, ...)                                                                      \
    do {                                                                                           \
        MPI_Request r_;                                                                            \
        call(__VA_ARGS__, &r_);                                                                    \
        settle(&r_);                                                                               \
    } while (0)

// Every rank's status of the work since the last agreement, agreed before a collective that moves
// data: when any rank failed (out of memory), every rank leaves the step at the same collective,
// the failing rank with its own status and the others with CROWD_ERR_RANK_FAILED, so no rank waits
// for one that has given up.
static crowd_status agree(crowd_dist* d, crowd_status st) {
    int bad = st != CROWD_OK;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, d->comm);
    if (bad) d->failed = true;
    return st != CROWD_OK ? st : bad ? CROWD_ERR_RANK_FAILED : CROWD_OK;
}

// The split world's buffers come from its world's allocator hooks, like the world's own storage.
// Grown buffers keep their contents and are zero past them.
static bool grow(crowd_world* w, void** p, size_t* cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    unsigned char* q = cs_alloc(w, n * elem);
    if (!q) return false;
    if (*cap) memcpy(q, *p, *cap * elem);
    memset(q + *cap * elem, 0, (n - *cap) * elem);
    cs_free(w, *p, *cap * elem);
    *p = q;
    *cap = n;
    return true;
}

static void* zalloc(crowd_world* w, size_t bytes) {
    void* p = cs_alloc(w, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

// The rank that owns the cell of a point.
static int owner_at(const crowd_dist* d, float x, float y) {
    return cs_split_owner(&d->split, cs_split_column(d->w, x), cs_split_row(d->w, y));
}

static bool live_reserve(crowd_dist* d, int n) {
    const size_t want = (size_t)n < 1024 ? 1024 : (size_t)n;
    const bool ok =
        grow(d->w, (void**)&d->live, &d->live_cap, want, 1) &&
        (!d->routes_on || grow(d->w, (void**)&d->routes, &d->routes_cap, want, sizeof *d->routes));
    cs_dist_set_live(d->w, d->live);
    return ok;
}

// The routes from now on (an exit set is made, or an obstacle that may start the counting): every
// agent's so far counts nothing on the ranks that do not store it, zero.
static bool routes_start(crowd_dist* d) {
    if (d->routes_on) return true;
    d->routes_on = grow(d->w, (void**)&d->routes, &d->routes_cap, d->live_cap, sizeof *d->routes);
    return d->routes_on;
}

static void routes_set(crowd_dist* d, uint32_t idx, cs_dist_routes r) {
    if (d->routes_on) d->routes[idx] = r;
}

// Agent idx is removed: every rank but its owner (whose removal hooks did it, its record cleared
// first) ends what it counted.
static void routes_end(crowd_dist* d, uint32_t idx) {
    if (!d->routes_on) return;
    cs_dist_routes_end(d->w, &d->routes[idx]);
    d->routes[idx] = (cs_dist_routes){0};
}

// ---- the split ---------------------------------------------------------------------------------

static void reduce_ranks(void* ctx, int64_t* v, int n, bool min) {
    const crowd_dist* d = ctx;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, v, n, MPI_INT64_T, min ? MPI_MIN : MPI_SUM, d->comm);
}

// Cuts the split again from the agents' cells. `everyone`: every rank holds every agent (at
// creation), no sums needed.
static void cut_split(crowd_dist* d, bool everyone) {
    cs_split_compute(d->w, NULL, 0, &d->split, d->kind == CROWD_DIST_STRIPS,
                     everyone ? NULL : reduce_ranks, d);
}

// The imbalance of the agents the ranks hold (the most on one rank over the mean), the same on
// every rank: from the integer counts of all ranks.
static double imbalance(crowd_dist* d) {
    const int mine = d->w->count;
    COLLECTIVE(MPI_Iallgather, &mine, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
    int64_t total = 0, most = 0;
    for (int r = 0; r < d->size; ++r) {
        total += d->rcount[r];
        if (d->rcount[r] > most) most = d->rcount[r];
    }
    return total > 0 ? (double)most * d->size / (double)total : 1.0;
}

// ---- exchange -----------------------------------------------------------------------------------

static bool bucket_add(crowd_dist* d, int to, uint32_t idx) {
    const size_t n = cs_dist_packed_size(d->w, idx);
    if (!grow(d->w, (void**)&d->bucket[to], &d->bucket_cap[to], d->bucket_len[to] + n, 1))
        return false;
    cs_dist_pack(d->w, idx, d->bucket[to] + d->bucket_len[to]);
    d->bucket_len[to] += n;
    return true;
}

// Sends every bucket to its rank; the received bytes land in d->recv (their length in *received).
// `st` is the rank's status so far: a rank that failed sends nothing, and when any rank failed no
// data moves and every rank returns a failure (agree).
static crowd_status exchange(crowd_dist* d, crowd_status st, size_t* received) {
    // What exceeds an int count (MPI's) cannot be sent.
    size_t total = 0;
    for (int r = 0; r < d->size; ++r) total += d->bucket_len[r];
    if (total > INT_MAX) st = CROWD_ERR_OUT_OF_MEMORY;
    if (st == CROWD_OK && !grow(d->w, (void**)&d->send, &d->send_cap, total + 1, 1))
        st = CROWD_ERR_OUT_OF_MEMORY;
    total = 0;
    for (int r = 0; r < d->size; ++r) {
        const size_t len = st == CROWD_OK ? d->bucket_len[r] : 0;
        d->scount[r] = (int)len;
        d->sdispl[r] = (int)total;
        if (len) memcpy(d->send + total, d->bucket[r], len);
        total += len;
        d->bucket_len[r] = 0;
    }
    d->stats.bytes_sent += (int64_t)(total - (size_t)d->scount[d->rank]);
    COLLECTIVE(MPI_Ialltoall, d->scount, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
    size_t in = 0;
    for (int r = 0; r < d->size; ++r) {
        d->rdispl[r] = (int)in;
        in += (size_t)d->rcount[r];
    }
    if (st == CROWD_OK && (in > INT_MAX || !grow(d->w, (void**)&d->recv, &d->recv_cap, in + 1, 1)))
        st = CROWD_ERR_OUT_OF_MEMORY;
    st = agree(d, st);
    if (st != CROWD_OK) return st;
    COLLECTIVE(MPI_Ialltoallv, d->send, d->scount, d->sdispl, MPI_BYTE, d->recv, d->rcount,
               d->rdispl, MPI_BYTE, d->comm);
    *received = in;
    return CROWD_OK;
}

// Puts the n packed agents of d->recv into the rank's world; ghosts are listed from
// d->ghost[first].
static crowd_status put_received(crowd_dist* d, size_t bytes, uint32_t flags_or, int first,
                                 int* n_out) {
    int n = 0;
    for (size_t at = 0; at < bytes; at += cs_dist_packed_bytes(d->w, d->recv + at)) ++n;
    crowd_status st = cs_dist_reserve(d->w, d->recv, n);
    if (st != CROWD_OK) return st;
    if (flags_or &&
        !grow(d->w, (void**)&d->ghost, &d->ghost_cap, (size_t)(first + n), sizeof *d->ghost))
        return CROWD_ERR_OUT_OF_MEMORY;
    size_t at = 0;
    for (int i = 0; i < n; ++i) {
        if (flags_or) d->ghost[first + i] = cs_dist_packed_index(d->recv + at);
        cs_dist_put(d->w, d->recv + at, flags_or);
        at += cs_dist_packed_bytes(d->w, d->recv + at);
    }
    *n_out = n;
    return CROWD_OK;
}

// Agents outside this rank's rectangle go to their owners.
static crowd_status migrate(crowd_dist* d) {
    crowd_world* w = d->w;
    crowd_status st = CROWD_OK;
    for (int s = 0; s < w->count && st == CROWD_OK;) {
        const int to = owner_at(d, w->cur.px[s], w->cur.py[s]);
        if (to == d->rank) {
            ++s;
            continue;
        }
        const uint32_t idx = w->cur.id[s];
        if (!bucket_add(d, to, idx))
            st = CROWD_ERR_OUT_OF_MEMORY;
        else
            cs_dist_drop(w, idx); // the last slot moves into s
    }
    size_t bytes;
    st = exchange(d, st, &bytes);
    return st == CROWD_OK ? put_received(d, bytes, 0, 0, &d->stats.migrated_in) : st;
}

// Copies of the agents within `halo` cells of another rank's rectangle go to that rank. `st` is the
// rank's status so far (agreed in the exchange).
static crowd_status send_ghosts(crowd_dist* d, crowd_status st) {
    crowd_world* w = d->w;
    float reach = cs_dist_reach(w);
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &reach, 1, MPI_FLOAT, MPI_MAX, d->comm);
    // A query box reaches ceil(reach / cell) cells past its agent's, and a hash cell may straddle
    // a cell of floor(x / cell), floor(y / cell) (the grid's origin is its own): one more on each
    // side, along both axes.
    const float cols = ceilf(reach / w->cell_size);
    d->halo = cols < (float)(INT_MAX / 4) ? (int)cols + 2 : INT_MAX / 4;
    const int owned = w->count;
    for (int s = 0; s < owned && st == CROWD_OK; ++s) {
        const int64_t c = cs_split_column(w, w->cur.px[s]), r = cs_split_row(w, w->cur.py[s]);
        const int n = cs_split_ranks_in(&d->split, c - d->halo, c + d->halo, r - d->halo,
                                        r + d->halo, d->near);
        for (int i = 0; i < n && st == CROWD_OK; ++i)
            if (d->near[i] != d->rank && !bucket_add(d, d->near[i], w->cur.id[s]))
                st = CROWD_ERR_OUT_OF_MEMORY;
    }
    size_t bytes;
    st = exchange(d, st, &bytes);
    return st == CROWD_OK ? put_received(d, bytes, CS_FLAG_GHOST, 0, &d->stats.ghosts) : st;
}

// Long-range links, fetched by handle whatever the distance: every rank sends every other rank the
// agents it owns that the step's leader pass reads (cs_dist_linked: leaders with followers,
// slot followers of leaders whose slots are reassigned), and each rank keeps, as ghosts, those it
// does not hold already. Leaders are few and a group's slots are reassigned only when it changes,
// so one gather of them all costs less than asking for each by handle (a request round before the
// reply), and it gives every rank every group whose slots are reassigned: every rank runs the same
// assignment on the same inputs and writes the same slots into its copy of the follow records.
static crowd_status fetch_links(crowd_dist* d, crowd_status st, int owned) {
    crowd_world* w = d->w;
    size_t n = 0;
    for (int s = 0; s < owned; ++s)
        if (cs_dist_linked(w, s)) n += cs_dist_packed_size(w, w->cur.id[s]);
    if (st == CROWD_OK && (n > INT_MAX || !grow(w, (void**)&d->send, &d->send_cap, n + 1, 1)))
        st = CROWD_ERR_OUT_OF_MEMORY;
    if (st != CROWD_OK) n = 0;
    for (size_t at = 0, s = 0; n && s < (size_t)owned; ++s)
        if (cs_dist_linked(w, (int)s)) {
            cs_dist_pack(w, w->cur.id[s], d->send + at);
            at += cs_dist_packed_size(w, w->cur.id[s]);
        }
    const int bytes = (int)n;
    COLLECTIVE(MPI_Iallgather, &bytes, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
    size_t total = 0;
    for (int r = 0; r < d->size; ++r) {
        d->rdispl[r] = (int)total;
        total += (size_t)d->rcount[r];
    }
    if (st == CROWD_OK &&
        (total > INT_MAX || !grow(w, (void**)&d->recv, &d->recv_cap, total + 1, 1)))
        st = CROWD_ERR_OUT_OF_MEMORY;
    st = agree(d, st);
    if (st != CROWD_OK) return st;
    COLLECTIVE(MPI_Iallgatherv, d->send, bytes, MPI_BYTE, d->recv, d->rcount, d->rdispl, MPI_BYTE,
               d->comm);
    d->stats.bytes_sent += (int64_t)bytes * (d->size - 1);
    // Keep those not held here (this rank's own and its ghosts are), back to back.
    size_t kept = 0;
    for (size_t at = 0; at < total;) {
        const size_t len = cs_dist_packed_bytes(w, d->recv + at);
        if (w->slot_of[cs_dist_packed_index(d->recv + at)] < 0) {
            memmove(d->recv + kept, d->recv + at, len);
            kept += len;
        }
        at += len;
    }
    return put_received(d, kept, CS_FLAG_GHOST, d->stats.ghosts, &d->stats.linked);
}

static int cmp_arrival(const void* a, const void* b) {
    const uint32_t x = ((const crowd_arrival*)a)->id.index1,
                   y = ((const crowd_arrival*)b)->id.index1;
    return (x > y) - (x < y);
}

// Every rank's arrivals, in handle order; removals free their handles on every rank in that order
// (the free list is LIFO, so the order is part of the state). `st` is the rank's status so far
// (its step's among them), agreed before the arrivals move.
static crowd_status gather_arrivals(crowd_dist* d, crowd_status st, int free_before) {
    crowd_world* w = d->w;
    int mine = st == CROWD_OK ? crowd_world_arrival_count(w) : 0, n = 0;
    if (st == CROWD_OK &&
        !grow(d->w, (void**)&d->send, &d->send_cap, (size_t)mine * sizeof(crowd_arrival) + 1, 1))
        st = CROWD_ERR_OUT_OF_MEMORY;
    if (st != CROWD_OK) mine = 0;
    int got = 0;
    if (mine) crowd_world_get_arrivals(w, (crowd_arrival*)d->send, mine, &got);
    // The agents this rank removed ended their uses in their removal.
    for (int i = 0; i < got; ++i) {
        const crowd_arrival* a = (const crowd_arrival*)d->send + i;
        if (a->action == CROWD_QUEUE_REMOVE) routes_set(d, a->id.index1 - 1, (cs_dist_routes){0});
    }
    const int bytes = mine * (int)sizeof(crowd_arrival);
    COLLECTIVE(MPI_Iallgather, &bytes, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
    size_t total = 0;
    for (int r = 0; r < d->size; ++r) {
        d->rdispl[r] = (int)total;
        total += (size_t)d->rcount[r];
    }
    n = (int)(total / sizeof(crowd_arrival));
    if (st == CROWD_OK &&
        !grow(d->w, (void**)&d->arrivals, &d->arrival_cap, (size_t)n + 1, sizeof(crowd_arrival)))
        st = CROWD_ERR_OUT_OF_MEMORY;
    st = agree(d, st);
    if (st != CROWD_OK) return st;
    COLLECTIVE(MPI_Iallgatherv, d->send, bytes, MPI_BYTE, d->arrivals, d->rcount, d->rdispl,
               MPI_BYTE, d->comm);
    d->stats.bytes_sent += (int64_t)bytes * (d->size - 1);
    qsort(d->arrivals, (size_t)n, sizeof *d->arrivals, cmp_arrival);
    d->arrival_count = n;
    cs_dist_free_truncate(w, free_before);
    for (int i = 0; i < n; ++i) {
        const crowd_arrival* a = &d->arrivals[i];
        if (a->action != CROWD_QUEUE_REMOVE) continue;
        const uint32_t idx = a->id.index1 - 1;
        routes_end(d, idx);
        cs_dist_free_handle(w, idx, a->id.generation);
        d->live[idx] = 0;
        d->count--;
    }
    return CROWD_OK;
}

// ---- public -------------------------------------------------------------------------------------

// Frees the split world's buffers and itself, not its world (whose hooks they came from).
static void release(crowd_dist* d) {
    crowd_world* w = d->w;
    const size_t k = (size_t)d->size;
    for (size_t r = 0; d->bucket && r < k; ++r) cs_free(w, d->bucket[r], d->bucket_cap[r]);
    cs_free(w, d->bucket, k * sizeof *d->bucket);
    cs_free(w, d->bucket_len, k * sizeof(size_t));
    cs_free(w, d->bucket_cap, k * sizeof(size_t));
    cs_split_free(w, &d->split);
    cs_free(w, d->near, k * sizeof(int));
    cs_free(w, d->sizes, k * sizeof *d->sizes);
    cs_free(w, d->scount, k * sizeof(int));
    cs_free(w, d->sdispl, k * sizeof(int));
    cs_free(w, d->rcount, k * sizeof(int));
    cs_free(w, d->rdispl, k * sizeof(int));
    cs_free(w, d->send, d->send_cap);
    cs_free(w, d->recv, d->recv_cap);
    cs_free(w, d->ghost, d->ghost_cap * sizeof *d->ghost);
    cs_free(w, d->arrivals, d->arrival_cap * sizeof *d->arrivals);
    cs_free(w, d->live, d->live_cap);
    cs_free(w, d->routes, d->routes_cap * sizeof *d->routes);
    cs_free(w, d, sizeof *d);
}

crowd_status crowd_dist_create(MPI_Comm comm, crowd_world* world, crowd_dist** out) {
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    *out = NULL;
    if (!world) return CROWD_ERR_NULL_ARGUMENT;
    if (cs_dist_links_removed_in_step(world)) return CROWD_ERR_NOT_DISTRIBUTABLE;
    crowd_dist* d = zalloc(world, sizeof *d);
    if (!d) return CROWD_ERR_OUT_OF_MEMORY;
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    d->w = world;
    d->routes_on = cs_dist_routes_needed(world);
    const size_t k = (size_t)d->size;
    const crowd_status sst = cs_split_init(world, &d->split, d->size);
    d->near = zalloc(world, k * sizeof(int));
    d->sizes = zalloc(world, k * sizeof *d->sizes);
    d->scount = zalloc(world, k * sizeof(int));
    d->sdispl = zalloc(world, k * sizeof(int));
    d->rcount = zalloc(world, k * sizeof(int));
    d->rdispl = zalloc(world, k * sizeof(int));
    d->bucket = zalloc(world, k * sizeof *d->bucket);
    d->bucket_len = zalloc(world, k * sizeof(size_t));
    d->bucket_cap = zalloc(world, k * sizeof(size_t));
    if (sst != CROWD_OK || !d->near || !d->sizes || !d->scount || !d->sdispl || !d->rcount ||
        !d->rdispl || !d->bucket || !d->bucket_len || !d->bucket_cap ||
        !live_reserve(d, world->index_count + 1)) {
        cs_dist_set_live(world, NULL);
        release(d); // the world stays the caller's
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < world->index_count; ++i) d->live[i] = world->slot_of[i] >= 0;
    d->count = world->count;
    d->rebalance = CROWD_DIST_REBALANCE_DEFAULT;
    unsigned tag = cs_dist_tag(world);
    COLLECTIVE(MPI_Ibcast, &tag, 1, MPI_UNSIGNED, 0, comm);
    cs_dist_set_tag(world, (uint16_t)tag);
    for (int s = 0; s < world->count; ++s)
        routes_set(d, world->cur.id[s], cs_dist_routes_of(world, world->cur.id[s]));
    d->kind = CROWD_DIST_BISECTION;
    cut_split(d, true);
    for (int s = 0; s < world->count;)
        if (owner_at(d, world->cur.px[s], world->cur.py[s]) != d->rank)
            cs_dist_drop(world, world->cur.id[s]);
        else
            ++s;
    d->stats.owned = world->count;
    *out = d;
    return CROWD_OK;
}

void crowd_dist_destroy(crowd_dist* d) {
    if (!d) return;
    crowd_world* w = d->w;
    release(d);
    crowd_world_destroy(w);
}

const crowd_world* crowd_dist_world(const crowd_dist* d) {
    return d ? d->w : NULL;
}

crowd_status crowd_dist_step(crowd_dist* d) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    crowd_world* w = d->w;
    d->stats.bytes_sent = 0;
    const double t0 = MPI_Wtime();
    // One rank owns everything and needs no copies.
    crowd_status st = CROWD_OK;
    d->stats.ghosts = d->stats.linked = 0;
    d->stats.rebalanced = 0;
    if (d->size > 1) {
        // Where the borders lie changes no result (docs/distributed.md), only the balance: the
        // split moves only when the agents' drift has unbalanced it enough.
        d->stats.imbalance = imbalance(d);
        if (d->stats.imbalance >= d->rebalance || d->resplit) {
            cut_split(d, false);
            d->stats.rebalanced = 1;
            d->resplit = false;
        }
        // A failure agreed by every rank (agree sets d->failed) ends the step on every rank at
        // the same collective; a failure after a phase's agreement is carried to the next one's.
        st = migrate(d);
        // The balance of the step itself, the split in force (one more gather of an integer).
        if (!d->failed) d->stats.load_imbalance = imbalance(d);
        const int owned = w->count;
        if (!d->failed) st = send_ghosts(d, st);
        if (!d->failed) st = fetch_links(d, st, owned);
    }
    const int free_before = cs_dist_free_count(w);
    const double t1 = MPI_Wtime();
    if (st == CROWD_OK) st = crowd_world_step(w);
    const double t2 = MPI_Wtime();
    for (int i = 0; i < d->stats.ghosts + d->stats.linked; ++i) cs_dist_drop(w, d->ghost[i]);
    if (!d->failed) st = gather_arrivals(d, st, free_before);
    d->stats.step_ms = (t2 - t1) * 1e3;
    d->stats.exchange_ms = (MPI_Wtime() - t2 + t1 - t0) * 1e3;
    d->stats.owned = w->count;
    int64_t box[4];
    cs_split_region(&d->split, d->rank, box);
    d->stats.col_first = box[0];
    d->stats.col_last = box[1];
    d->stats.row_first = box[2];
    d->stats.row_last = box[3];
    d->stats.halo_cells = d->halo;
    return st;
}

// The handle's status as cs_agent_slot would give it in the whole world.
static crowd_status check_handle(const crowd_dist* d, crowd_agent_id id) {
    const crowd_world* w = d->w;
    if (id.index1 == 0) return CROWD_ERR_NULL_HANDLE;
    if (id.world != w->tag) return CROWD_ERR_FOREIGN_HANDLE;
    const uint32_t idx = id.index1 - 1;
    if (idx >= (uint32_t)w->index_count) return CROWD_ERR_FOREIGN_HANDLE;
    if (!d->live[idx] || w->generation[idx] != id.generation) return CROWD_ERR_STALE_HANDLE;
    return CROWD_OK;
}

// Agent `id`, just added on every rank (the same handle everywhere): live in the whole world, its
// routes kept, and stored only by the rank that owns its cell.
static void added_everywhere(crowd_dist* d, crowd_agent_id id, crowd_vec2 position) {
    const uint32_t idx = id.index1 - 1;
    d->live[idx] = 1;
    d->count++;
    routes_set(d, idx, cs_dist_routes_of(d->w, idx));
    if (owner_at(d, position.x, position.y) != d->rank) cs_dist_drop(d->w, idx);
}

crowd_status crowd_dist_agent_add(crowd_dist* d, const crowd_agent_def* def, crowd_agent_id* out) {
    if (!d || !def || !out) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    crowd_world* w = d->w;
    if (d->count >= w->max_agents) return CROWD_ERR_CAPACITY;
    // The same call on every rank issues the same handle; the def's checks see nothing a rank
    // holds alone (obstacles are replicated). Only running out of memory can differ between
    // ranks, and then the handle tables would: the split world is given up on every rank.
    crowd_status st = live_reserve(d, w->index_count + 1) ? crowd_agent_add(w, def, out)
                                                          : CROWD_ERR_OUT_OF_MEMORY;
    int oom = st == CROWD_ERR_OUT_OF_MEMORY;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &oom, 1, MPI_INT, MPI_MAX, d->comm);
    if (oom) {
        d->failed = true;
        return st == CROWD_OK ? CROWD_ERR_RANK_FAILED : st;
    }
    if (st != CROWD_OK) return st;
    added_everywhere(d, *out, def->position);
    return CROWD_OK;
}

// Cuts the split from the agents stored and the `count` agents about to be added, each rank
// describing its share of them (i = rank, rank + size, ...): a split world created empty (every
// cut at infinity: rank 0 owns everything) would otherwise put every added agent on rank 0 until
// the first step. Only this rank's share of the positions is held. *mine: the agents to come that
// this rank will own (each rank counts the owners of its share, and the counts are summed). False
// when some rank ran out of memory (nothing changed).
static bool cut_for_added(crowd_dist* d, int count, crowd_dist_agent_fn* fn, void* user,
                          int64_t* mine) {
    crowd_world* w = d->w;
    const int share = count > d->rank ? (count - 1 - d->rank) / d->size + 1 : 0;
    float* xy = share ? cs_alloc(w, sizeof(float) * 2 * (size_t)share) : NULL;
    // Every rank issues every handle: the per-index arrays grow once, to the indices the agents
    // take (the adds would double them, to up to twice that, holding both for the copy).
    const int64_t fresh = count > w->free_count ? (int64_t)count - w->free_count : 0;
    int64_t indices = w->index_count + fresh;
    if (indices > w->max_agents) indices = w->max_agents;
    int ok = (!share || xy) && live_reserve(d, w->index_count + count + 1) &&
             cs_world_grow(w, w->slot_capacity, (int)indices, NULL, NULL) == CROWD_OK;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, d->comm);
    if (!ok) {
        cs_free(w, xy, sizeof(float) * 2 * (size_t)share);
        return false;
    }
    int got = 0;
    for (int i = d->rank; i < count; i += d->size) {
        crowd_agent_def def = crowd_agent_def_default();
        // A def the add will refuse places nothing. The add stops there on every rank, so the
        // agents after it placed here are never added: the split is then cut for more agents than
        // it holds, which changes only the balance (the next rebalance corrects it).
        if (fn(i, &def, user) != CROWD_OK || cs_range_point(def.position) != CROWD_OK) continue;
        xy[2 * got] = def.position.x;
        xy[2 * got + 1] = def.position.y;
        ++got;
    }
    cs_split_compute(w, xy, got, &d->split, d->kind == CROWD_DIST_STRIPS, reduce_ranks, d);
    int64_t* owned = d->sizes; // scratch of one count per rank
    for (int r = 0; r < d->size; ++r) owned[r] = 0;
    for (int j = 0; j < got; ++j) owned[owner_at(d, xy[2 * j], xy[2 * j + 1])]++;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, owned, d->size, MPI_INT64_T, MPI_SUM, d->comm);
    *mine = owned[d->rank];
    cs_free(w, xy, sizeof(float) * 2 * (size_t)share);
    return true;
}

// Grows this rank's slots once, to the agents it stores and the `mine` to come it will own (the
// split just cut), one more for the add of an agent it does not own, and with other ranks a
// sixteenth more for a step's ghosts (cs_dist_reserve grows them by a quarter past that): grown
// one add at a time they would double, to up to twice that, holding both for the copy. A failure
// leaves the adds to grow them as they go.
static void reserve_added(crowd_dist* d, int64_t mine) {
    crowd_world* w = d->w;
    int64_t slots = (int64_t)w->count + mine + 1;
    if (d->size > 1) slots += slots / 16;
    if (slots > w->max_agents) slots = w->max_agents;
    (void)cs_world_grow(w, (int)slots, w->index_capacity, NULL, NULL);
}

crowd_status crowd_dist_add_agents(crowd_dist* d, int count, crowd_dist_agent_fn* fn, void* user,
                                   crowd_agent_id* ids, int* added) {
    if (added) *added = 0;
    if (!d || !fn) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    if (count < 0) return CROWD_ERR_BAD_COUNT;
    if (count == 0) return CROWD_OK;
    crowd_world* w = d->w;
    // Agents past the world's room are refused (CROWD_ERR_CAPACITY at the first of them): the cut
    // and the reservations are for those that fit.
    const int room = w->max_agents - d->count;
    const int fit = count < room ? count : room;
    int64_t mine = 0;
    if (!cut_for_added(d, fit, fn, user, &mine)) return CROWD_ERR_OUT_OF_MEMORY;
    reserve_added(d, mine);
    crowd_status st = CROWD_OK;
    int i = 0;
    for (; i < count; ++i) {
        if (d->count >= w->max_agents) {
            st = CROWD_ERR_CAPACITY;
            break;
        }
        crowd_agent_def def = crowd_agent_def_default();
        crowd_agent_id id;
        st = fn(i, &def, user);
        // As crowd_dist_agent_add: every rank adds the agent (the same handle, the same counts),
        // and only its owner keeps it.
        if (st == CROWD_OK) st = crowd_agent_add(w, &def, &id);
        if (st != CROWD_OK) break;
        added_everywhere(d, id, def.position);
        if (ids) ids[i] = id;
    }
    // Every rank stops at the same agent with the same status, but for running out of memory (or
    // a fn that answers differently): then the handle tables differ and the split world is given
    // up on every rank.
    int v[4] = {i, -i, (int)st, -(int)st};
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, v, 4, MPI_INT, MPI_MIN, d->comm);
    if (v[0] != -v[1] || v[2] != -v[3]) {
        d->failed = true;
        return st != CROWD_OK ? st : CROWD_ERR_RANK_FAILED;
    }
    if (added) *added = i;
    return st;
}

// Every rank keeps the follow graph (cs_dist_replicated), so every rank takes a linked agent out
// of it; the owner does so in crowd_agent_remove. The others need the agent itself for that (a
// follower of a removed leader stops at its current target, which the leader's position and
// heading give): the owner sends it to all, and they hold it for the call.
static crowd_status unlink_elsewhere(crowd_dist* d, uint32_t idx) {
    crowd_world* w = d->w;
    const bool mine = w->slot_of[idx] >= 0;
    int owner = mine ? d->rank : -1;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &owner, 1, MPI_INT, MPI_MAX, d->comm);
    int bytes = mine ? (int)cs_dist_packed_size(w, idx) : 0;
    COLLECTIVE(MPI_Ibcast, &bytes, 1, MPI_INT, owner, d->comm);
    int ok = grow(w, (void**)&d->recv, &d->recv_cap, (size_t)bytes + 1, 1);
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, d->comm);
    if (!ok) return CROWD_ERR_OUT_OF_MEMORY;
    if (mine) cs_dist_pack(w, idx, d->recv);
    COLLECTIVE(MPI_Ibcast, d->recv, bytes, MPI_BYTE, owner, d->comm);
    d->stats.bytes_sent += mine ? (int64_t)bytes * (d->size - 1) : 0;
    int put = 0;
    const crowd_status st =
        mine ? CROWD_OK : put_received(d, (size_t)bytes, CS_FLAG_GHOST, 0, &put);
    int code = (int)st; // errors are positive: the largest is any rank's failure
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, d->comm);
    if (!mine && st == CROWD_OK) {
        if (code == CROWD_OK) cs_dist_unlink(w, idx);
        cs_dist_drop(w, idx);
    }
    return (crowd_status)code;
}

crowd_status crowd_dist_agent_remove(crowd_dist* d, crowd_agent_id id) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    crowd_status st = check_handle(d, id);
    if (st != CROWD_OK) return st;
    crowd_world* w = d->w;
    const uint32_t idx = id.index1 - 1;
    if (cs_dist_has_links(w, idx)) {
        st = unlink_elsewhere(d, idx);
        if (st != CROWD_OK) return st;
    }
    if (w->slot_of[idx] >= 0) {
        st = crowd_agent_remove(w, id);
        routes_set(d, idx, (cs_dist_routes){0});
    } else {
        routes_end(d, idx);
        cs_dist_free_handle(w, idx, id.generation);
    }
    d->live[idx] = 0;
    d->count--;
    return st;
}

crowd_status crowd_dist_agent_set_position(crowd_dist* d, crowd_agent_id id, crowd_vec2 position) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    crowd_status st = check_handle(d, id);
    if (st != CROWD_OK) return st;
    // The owner's answer (it may refuse a place inside an obstacle), on every rank.
    int mine = d->w->slot_of[id.index1 - 1] >= 0 ? (int)crowd_agent_set_position(d->w, id, position)
                                                 : INT_MAX;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MIN, d->comm);
    return (crowd_status)mine;
}

// The first obstacle started the counting of routes (cs_nav_start_counting), which counted the
// agents each rank stores; every rank counts the whole world's uses, so each also counts the
// others' agents, from the routes their owners send (and keeps those routes for their removal).
// In rounds of at most `piece` agents per rank, so that what a rank receives at once stays near
// COUNT_BYTES whatever the world's size. Fails on every rank when one ran out of memory: the
// counts then differ and the split world is given up.
enum { COUNT_BYTES = 64 << 20 };

static crowd_status count_elsewhere(crowd_dist* d) {
    crowd_world* w = d->w;
    enum { ENTRY = 4 + sizeof(cs_dist_routes) };
    const int piece = (int)((size_t)COUNT_BYTES / ENTRY / (size_t)d->size) + 1;
    int rounds = w->count / piece + 1;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &rounds, 1, MPI_INT, MPI_MAX, d->comm);
    const size_t most = (size_t)piece * ENTRY;
    crowd_status st = grow(w, (void**)&d->send, &d->send_cap, most + 1, 1) &&
                              grow(w, (void**)&d->recv, &d->recv_cap, most * (size_t)d->size + 1, 1)
                          ? CROWD_OK
                          : CROWD_ERR_OUT_OF_MEMORY;
    st = agree(d, st);
    if (st != CROWD_OK) return st;
    for (int round = 0; round < rounds; ++round) {
        const int64_t lo = (int64_t)round * piece;
        const int n = lo >= w->count ? 0 : (int)(w->count - lo < piece ? w->count - lo : piece);
        for (int k = 0; k < n; ++k) {
            const uint32_t idx = w->cur.id[lo + k];
            const cs_dist_routes r = cs_dist_routes_of(w, idx);
            routes_set(d, idx, r);
            memcpy(d->send + (size_t)k * ENTRY, &idx, 4);
            memcpy(d->send + (size_t)k * ENTRY + 4, &r, sizeof r);
        }
        const int bytes = n * ENTRY;
        COLLECTIVE(MPI_Iallgather, &bytes, 1, MPI_INT, d->rcount, 1, MPI_INT, d->comm);
        int total = 0;
        for (int r = 0; r < d->size; ++r) {
            d->rdispl[r] = total;
            total += d->rcount[r];
        }
        COLLECTIVE(MPI_Iallgatherv, d->send, bytes, MPI_BYTE, d->recv, d->rcount, d->rdispl,
                   MPI_BYTE, d->comm);
        d->stats.bytes_sent += (int64_t)bytes * (d->size - 1);
        // Every rank goes through every round's collectives, whatever failed here.
        for (int r = 0; r < d->size; ++r) {
            if (r == d->rank) continue;
            for (int k = 0; k < d->rcount[r] / ENTRY && st == CROWD_OK; ++k) {
                const unsigned char* in = d->recv + d->rdispl[r] + (size_t)k * ENTRY;
                uint32_t idx;
                cs_dist_routes routes;
                memcpy(&idx, in, 4);
                memcpy(&routes, in + 4, sizeof routes);
                routes_set(d, idx, routes);
                st = cs_dist_routes_begin(w, &routes);
            }
        }
    }
    return agree(d, st);
}

crowd_status crowd_dist_obstacle_add(crowd_dist* d, crowd_obstacle_kind kind,
                                     const crowd_vec2* points, int count, crowd_obstacle_id* out) {
    if (!d || !points || !out) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    // Whether it covers an agent is asked of every rank (each tests the agents it owns).
    bool covered = false;
    cs_dist_obstacle_covers(d->w, kind, points, count, &covered);
    int any = covered;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, d->comm);
    const cs_nav_changes_mark mark = cs_nav_changes_now(d->w);
    const bool starts =
        d->size > 1 && cs_dist_routes_may_start(d->w) && !cs_dist_routes_counting(d->w);
    // With navigation on, an obstacle starts the counting of routes: the routes are kept.
    const crowd_status st = !cs_dist_routes_may_start(d->w) || routes_start(d)
                                ? cs_dist_obstacle_add(d->w, kind, points, count, any != 0, out)
                                : CROWD_ERR_OUT_OF_MEMORY;
    // Only running out of memory can differ between ranks; where the add succeeded it is taken
    // back (its obstacle slot then moves on to its next generation there), and navigation forgets
    // both changes: the next route phase repairs (or not) as on the ranks where it failed.
    int code = (int)st;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, d->comm);
    if (code != CROWD_OK && st == CROWD_OK) {
        crowd_obstacle_remove(d->w, *out);
        cs_nav_changes_restore(d->w, mark);
    }
    if (code == CROWD_OK && starts) return count_elsewhere(d);
    return (crowd_status)code;
}

crowd_status crowd_dist_obstacle_remove(crowd_dist* d, crowd_obstacle_id id) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    return crowd_obstacle_remove(d->w, id); // obstacles are replicated: the same on every rank
}

crowd_status crowd_dist_exits_create(crowd_dist* d, const crowd_vec2* points, int count,
                                     crowd_exits_id* out) {
    if (!d || !points || !out) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    // Every rank holds the same exit sets, so only running out of memory can differ between
    // ranks: where the set was made it is taken back, the slot as it was.
    // From the first exit set on, goals may name one: the routes are kept.
    const crowd_status st =
        routes_start(d) ? crowd_exits_create(d->w, points, count, out) : CROWD_ERR_OUT_OF_MEMORY;
    int code = (int)st;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &code, 1, MPI_INT, MPI_MAX, d->comm);
    if (code != CROWD_OK && st == CROWD_OK) cs_dist_exits_take_back(d->w, *out);
    return (crowd_status)code;
}

crowd_status crowd_dist_exits_destroy(crowd_dist* d, crowd_exits_id id) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    // Every rank counts every goal that names the set: the same answer everywhere.
    return crowd_exits_destroy(d->w, id);
}

int crowd_dist_agent_count(const crowd_dist* d) {
    return d ? d->count : 0;
}

crowd_status crowd_dist_get_agents(const crowd_dist* d, crowd_agent_id* ids, int capacity,
                                   int* count) {
    if (!d || !count) return CROWD_ERR_NULL_ARGUMENT;
    if (capacity < d->count) {
        *count = d->count;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    if (d->count > 0 && !ids) return CROWD_ERR_NULL_ARGUMENT;
    int n = 0;
    for (int i = 0; i < d->w->index_count; ++i)
        if (d->live[i]) ids[n++] = cs_agent_handle(d->w, (uint32_t)i);
    *count = n;
    return CROWD_OK;
}

int crowd_dist_owner(const crowd_dist* d, crowd_agent_id id) {
    if (!d || check_handle(d, id) != CROWD_OK) return -1;
    int r = d->w->slot_of[id.index1 - 1] >= 0 ? d->rank : -1;
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &r, 1, MPI_INT, MPI_MAX, d->comm);
    return r;
}

crowd_status crowd_dist_get_arrivals(const crowd_dist* d, crowd_arrival* out, int capacity,
                                     int* count) {
    if (!d || !count) return CROWD_ERR_NULL_ARGUMENT;
    if (capacity < d->arrival_count) {
        *count = d->arrival_count;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    if (d->arrival_count > 0 && !out) return CROWD_ERR_NULL_ARGUMENT;
    if (d->arrival_count > 0) memcpy(out, d->arrivals, sizeof *out * (size_t)d->arrival_count);
    *count = d->arrival_count;
    return CROWD_OK;
}

// Puts every other rank's agents into rank 0's world, runs `fn` on it there (the whole world, as
// one process holds it) and takes them out again; every rank returns fn's status.
crowd_status crowd_dist_with_whole_world(crowd_dist* d, crowd_dist_whole_fn* fn, void* ctx) {
    if (!d || !fn) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    crowd_world* w = d->w;
    size_t n = 0; // rank 0 keeps its own agents where they are
    for (int s = 0; d->rank != 0 && s < w->count; ++s) n += cs_dist_packed_size(w, w->cur.id[s]);
    int ok = grow(d->w, (void**)&d->send, &d->send_cap, n + 1, 1);
    COLLECTIVE(MPI_Iallreduce, MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, d->comm);
    if (!ok) return CROWD_ERR_OUT_OF_MEMORY;
    if (d->rank != 0)
        for (size_t at = 0, s = 0; s < (size_t)w->count; ++s) {
            cs_dist_pack(w, w->cur.id[s], d->send + at);
            at += cs_dist_packed_size(w, w->cur.id[s]);
        }
    // The whole world may exceed MPI's int counts: the byte counts go as 64-bit integers, and each
    // rank's bytes to rank 0 in pieces of at most GATHER_PIECE, one rank after the other.
    int64_t mine = (int64_t)n;
    COLLECTIVE(MPI_Igather, &mine, 1, MPI_INT64_T, d->sizes, 1, MPI_INT64_T, 0, d->comm);
    size_t total = 0;
    if (d->rank == 0)
        for (int r = 0; r < d->size; ++r) total += (size_t)d->sizes[r];
    ok = d->rank != 0 || grow(d->w, (void**)&d->recv, &d->recv_cap, total + 1, 1);
    COLLECTIVE(MPI_Ibcast, &ok, 1, MPI_INT, 0, d->comm);
    if (!ok) return CROWD_ERR_OUT_OF_MEMORY;
    size_t at = 0;
    for (int r = 1; r < d->size; ++r) {
        if (d->rank != 0 && d->rank != r) continue;
        const size_t len = d->rank == 0 ? (size_t)d->sizes[r] : n;
        for (size_t off = 0; off < len; off += GATHER_PIECE) {
            const int piece = (int)(len - off < GATHER_PIECE ? len - off : GATHER_PIECE);
            MPI_Request q;
            if (d->rank == 0)
                MPI_Irecv(d->recv + at + off, piece, MPI_BYTE, r, GATHER_TAG, d->comm, &q);
            else
                MPI_Isend(d->send + off, piece, MPI_BYTE, 0, GATHER_TAG, d->comm, &q);
            settle(&q);
        }
        at += len;
    }
    crowd_status st = CROWD_OK;
    if (d->rank == 0) {
        // Listed through the ghost list (the flag taken off at once): they are no ghosts.
        int put = 0, ghosts = d->stats.ghosts;
        const int slots = w->slot_capacity;
        st = put_received(d, total, CS_FLAG_GHOST, 0, &put);
        if (st == CROWD_OK) {
            for (int i = 0; i < put; ++i) w->cur.flags[w->slot_of[d->ghost[i]]] &= ~CS_FLAG_GHOST;
            st = fn(w, ctx);
            for (int i = 0; i < put; ++i) cs_dist_drop(w, d->ghost[i]);
        }
        d->stats.ghosts = ghosts;
        // Rank 0 held the whole world for the call only: its slots go back to its own share (a
        // failed shrink keeps the larger storage, nothing else).
        (void)cs_world_fit_slots(w, slots);
    }
    // The buffers sized by the whole world (rank 0's receive buffer and ghost list) or by a rank's
    // packed agents go: a step grows them again to what it needs.
    cs_free(w, d->recv, d->recv_cap);
    cs_free(w, d->send, d->send_cap);
    d->recv = d->send = NULL;
    d->recv_cap = d->send_cap = 0;
    if (d->rank == 0) {
        cs_free(w, d->ghost, d->ghost_cap * sizeof *d->ghost);
        d->ghost = NULL;
        d->ghost_cap = 0;
    }
    int code = (int)st;
    COLLECTIVE(MPI_Ibcast, &code, 1, MPI_INT, 0, d->comm);
    return (crowd_status)code;
}

static crowd_status hash_whole(const crowd_world* w, void* ctx) {
    *(uint64_t*)ctx = crowd_world_state_hash(w);
    return CROWD_OK;
}

crowd_status crowd_dist_state_hash(crowd_dist* d, uint64_t* out) {
    if (!d || !out) return CROWD_ERR_NULL_ARGUMENT;
    uint64_t h = 0;
    const crowd_status st = crowd_dist_with_whole_world(d, hash_whole, &h);
    COLLECTIVE(MPI_Ibcast, &h, 1, MPI_UINT64_T, 0, d->comm);
    *out = h;
    return st;
}

typedef struct save_ctx {
    crowd_write_fn* write;
    void* user;
} save_ctx;

static crowd_status save_whole(const crowd_world* w, void* ctx) {
    const save_ctx* c = ctx;
    return crowd_world_save_stream(w, c->write, c->user);
}

crowd_status crowd_dist_save_stream(crowd_dist* d, crowd_write_fn* write, void* user) {
    if (!d || (d->rank == 0 && !write)) return CROWD_ERR_NULL_ARGUMENT;
    save_ctx ctx = {write, user};
    return crowd_dist_with_whole_world(d, save_whole, &ctx);
}

crowd_status crowd_dist_set_rebalance(crowd_dist* d, double threshold) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    if (!isfinite(threshold)) return CROWD_ERR_NOT_FINITE;
    if (threshold < 1.0) return CROWD_ERR_OUT_OF_RANGE;
    d->rebalance = threshold;
    return CROWD_OK;
}

crowd_status crowd_dist_set_split(crowd_dist* d, crowd_dist_split kind) {
    if (!d) return CROWD_ERR_NULL_ARGUMENT;
    if (d->failed) return CROWD_ERR_RANK_FAILED;
    if (kind != CROWD_DIST_BISECTION && kind != CROWD_DIST_STRIPS) return CROWD_ERR_OUT_OF_RANGE;
    if (kind != d->kind) d->resplit = true;
    d->kind = kind;
    return CROWD_OK;
}

crowd_dist_stats crowd_dist_get_stats(const crowd_dist* d) {
    return d ? d->stats : (crowd_dist_stats){0};
}
