// Record pools: behavior state for the agents that use a behavior, not for every agent index.
//
// A behavior keeps one int32 per agent index (its record number, -1 = none) and its records here:
// fixed-size records in pages grown through the world's allocator, with an intrusive free
// list. Records are acquired and released by API calls between steps. Every few ticks the sort
// phase lays the records out again in the cell order of their agents (cs_pool_move_slots), so
// the passes that follow read them in order rather than at random. It moves them into scratch
// room and copies them back (cs_pool_copy_back). The scratch room is mostly the world's
// per-slot buffers and histograms that hold nothing while the sort lays records out (cs_scratch);
// the world's spare array (w->rec_spare) holds only what a pool has beyond them. Pools grow that
// array, so the step never allocates. Record numbers are therefore private to the pool: everything
// else names a record by its agent index.
//
// A pool may carry `aux` elements, one per record of capacity, that belong to no record in
// particular: a list that can be as long as the pool (the queue's arrivals, the leaders' dirty
// list), element k at cs_pool_aux_at(p, k). They live in the pool's blocks after the records, page
// by page, so they grow with the pool, their contents kept, without a copy either.
#ifndef CS_POOL_H
#define CS_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "crowd/base.h"

typedef struct crowd_world crowd_world;

// Scratch room for laying out one pool's records: buffers that hold nothing meanwhile, used in
// order, each holding as many whole records as fit. Record r of the layout lives in the buffer c
// with first[c] <= r < first[c + 1].
enum { CS_SCRATCH_MAX = 12 };
typedef struct cs_scratch {
    unsigned char* buf[CS_SCRATCH_MAX];
    int32_t first[CS_SCRATCH_MAX + 1];
    int count;
    size_t size; // record size
} cs_scratch;

// Records live in pages of CS_POOL_PAGE records, so growth adds pages and copies none: a growth
// holds no old and new array at once (a contiguous array grown by a quarter held 2.25 times its
// records meanwhile). Pages are allocated in blocks of whole pages, the blocks as large as the
// growth rule says. A pool of less than a page is one block of its capacity, grown by copying.
#define CS_POOL_PAGE_SHIFT 10
#define CS_POOL_PAGE (1 << CS_POOL_PAGE_SHIFT)

typedef struct cs_pool {
    unsigned char** pages; // page_cap entries; the first pages_used point into the blocks
    // The aux elements of each page (page_cap entries; NULL when aux_size is 0).
    unsigned char** aux_pages;
    int32_t* block; // per page: pages in the block that starts at it, 0 inside a block
    int32_t pages_used, page_cap;
    uint32_t size, aux_size;
    int32_t capacity;
    int32_t used;      // records ever handed out (high-water mark)
    int32_t live;      // records acquired and not released
    int32_t free_head; // last released record, -1 when none; each free record holds the next
} cs_pool;

// An empty pool of `size`-byte records: a multiple of 4 bytes, at least 4 (the free list's link).
void cs_pool_init(cs_pool* p, size_t size, size_t aux_size);

// Makes room for `n` more acquisitions without growth, and grows the world's spare array
// (w->rec_spare) to what the pool's records need beyond the free per-slot buffers and histograms
// (when that array cannot grow, the pool still does: the layout then leaves it in place). On
// failure (CROWD_ERR_OUT_OF_MEMORY) the pool and the scratch are unchanged. A pool never holds more
// records than the world has agent indices, so growth stops at the world's index capacity when that
// suffices.
crowd_status cs_pool_reserve(crowd_world* w, cs_pool* p, int n);

// A zeroed record; the caller reserved room for it.
int32_t cs_pool_acquire(cs_pool* p);

void cs_pool_release(cs_pool* p, int32_t rec);

// Lays the live records out again in the order their agents hold in the sorted slots `id`
// (id[s] = agent index of slot s, count slots): the records of slots [lo, hi) go to numbers
// first .. first + k in slot order, and rec_of follows them. Per pool and thread:
// cs_pool_count_slots gives a thread's k when a later thread needs it, cs_pool_move_slots moves
// the records into `scratch` (room for at least live records) and returns k, and, once every
// thread has moved its records, cs_pool_copy_back copies records [lo, hi) of `scratch` back;
// cs_pool_settle ends the layout once every thread is done. cs_pool_move_slots_back numbers from
// the other end: the records of slots [lo, hi) take numbers up to `last`, the last slot's record
// `last`, so the last thread needs no count of its own nor of the threads before it.
int32_t cs_pool_count_slots(const int32_t* rec_of, const uint32_t* id, int lo, int hi);
int32_t cs_pool_move_slots(const cs_pool* p, const cs_scratch* scratch, int32_t* rec_of,
                           const uint32_t* id, int lo, int hi, int32_t first);
int32_t cs_pool_move_slots_back(const cs_pool* p, const cs_scratch* scratch, int32_t* rec_of,
                                const uint32_t* id, int lo, int hi, int32_t last);
void cs_pool_copy_back(cs_pool* p, const cs_scratch* scratch, int32_t lo, int32_t hi);
void cs_pool_settle(cs_pool* p);

// Frees the storage; the pool is empty again.
void cs_pool_free(crowd_world* w, cs_pool* p);

static inline void* cs_pool_at(const cs_pool* p, int32_t rec) {
    return p->pages[rec >> CS_POOL_PAGE_SHIFT] + (size_t)(rec & (CS_POOL_PAGE - 1)) * p->size;
}

// Aux element k < capacity.
static inline void* cs_pool_aux_at(const cs_pool* p, int32_t k) {
    return p->aux_pages[k >> CS_POOL_PAGE_SHIFT] + (size_t)(k & (CS_POOL_PAGE - 1)) * p->aux_size;
}

// The record of an agent index through the behavior's per-index record numbers, or NULL. A kind
// whose pool was never reserved has no record numbers (rec_of NULL): no agent has its record.
static inline void* cs_pool_find(const cs_pool* p, const int32_t* rec_of, uint32_t idx) {
    if (!rec_of) return NULL;
    const int32_t r = rec_of[idx];
    return r < 0 ? NULL : cs_pool_at(p, r);
}

#endif
