// Record pools: growth through the world's allocator, and the free list.
#include <string.h>

#include "core/internal.h"

enum { MIN_RECORDS = 16 };

void cs_pool_init(cs_pool* p, size_t size, size_t aux_size) {
    *p = (cs_pool){.size = (uint32_t)size, .aux_size = (uint32_t)aux_size, .free_head = -1};
}

// A pool of less than a page is one block of `capacity` records; from a page on, every block is of
// whole pages.
static bool small(int64_t capacity) {
    return capacity < CS_POOL_PAGE;
}

// A block of n records holds them, then, from an offset aligned for any aux element (16 bytes),
// the aux elements of as many: a paged block's aux page k starts k pages of aux elements after
// that offset.
static size_t aux_offset(const cs_pool* p, int64_t n) {
    const size_t bytes = (size_t)n * p->size;
    return p->aux_size ? (bytes + 15) & ~(size_t)15 : bytes;
}

static size_t records_block_bytes(const cs_pool* p, int64_t n) {
    return aux_offset(p, n) + (size_t)n * p->aux_size;
}

static size_t block_bytes(const cs_pool* p, int32_t page) {
    return records_block_bytes(p, small(p->capacity) ? (int64_t)p->capacity
                                                     : (int64_t)p->block[page] * CS_POOL_PAGE);
}

static void free_blocks(crowd_world* w, cs_pool* p) {
    for (int32_t i = 0; i < p->pages_used; ++i)
        if (p->block[i]) cs_free(w, p->pages[i], block_bytes(p, i));
}

static crowd_status grow(crowd_world* w, cs_pool* p, int n) {
    const int64_t need = (int64_t)p->live + n;
    if (need <= p->capacity) return CROWD_OK;
    // A small pool grows by a quarter at a time; a paged one, which copies nothing, by the pages it
    // needs: less than a page of its room is unused.
    int64_t cap = small(p->capacity) ? (int64_t)p->capacity + p->capacity / 4 : need;
    if (cap < MIN_RECORDS) cap = MIN_RECORDS;
    if (cap > w->index_capacity) cap = w->index_capacity; // one record per agent index at most
    if (cap < need) cap = need;
    // A small pool that outgrows a page becomes one page (or the pages `need` takes).
    if (!small(cap) && small(p->capacity)) cap = need > CS_POOL_PAGE ? need : CS_POOL_PAGE;
    if (!small(cap)) cap = (cap + CS_POOL_PAGE - 1) / CS_POOL_PAGE * CS_POOL_PAGE;

    // A small pool is copied into its new block (less than a page of records and aux elements);
    // a paged one only gets a block for the pages it lacks.
    const bool copy = small(p->capacity);
    const int64_t from = copy ? 0 : p->capacity; // first record of the new block
    const size_t bytes = records_block_bytes(p, cap - from);
    const int32_t pages = small(cap) ? 1 : (int32_t)(cap / CS_POOL_PAGE);
    const int32_t page_cap = pages <= p->page_cap      ? p->page_cap
                             : pages < 2 * p->page_cap ? 2 * p->page_cap
                                                       : pages;
    // The layout's scratch room beyond the free per-slot buffers and histograms (sort.c). Those
    // grow with the world's slot capacity, and a change of thread count that shrinks the histograms
    // grows the spare array (world.c), so it stays large enough (sort.c leaves a pool in place in
    // the one case where it does not: a world growth that failed after this one).
    const int64_t beyond = cap - cs_scratch_free_records(w, p->size);
    const size_t beyond_bytes = beyond > 0 ? (size_t)beyond * p->size : 0;
    const size_t spare_bytes = beyond_bytes > w->rec_spare_bytes ? beyond_bytes : 0;
    const bool new_table = page_cap != p->page_cap;
    const size_t table_bytes = (size_t)page_cap * sizeof(unsigned char*);
    const size_t blocks_bytes = (size_t)page_cap * sizeof(int32_t);
    const bool aux = p->aux_size > 0;
    unsigned char* data = cs_alloc(w, bytes);
    unsigned char** table = data && new_table ? cs_alloc(w, table_bytes) : NULL;
    unsigned char** aux_table = data && new_table && aux ? cs_alloc(w, table_bytes) : NULL;
    int32_t* blocks = data && new_table ? cs_alloc(w, blocks_bytes) : NULL;
    if (!data || (new_table && (!table || !blocks || (aux && !aux_table)))) {
        cs_free(w, data, bytes);
        cs_free(w, table, new_table ? table_bytes : 0);
        cs_free(w, aux_table, new_table && aux ? table_bytes : 0);
        cs_free(w, blocks, new_table ? blocks_bytes : 0);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    if (new_table) {
        if (p->pages_used) {
            memcpy(table, p->pages, (size_t)p->pages_used * sizeof *table);
            memcpy(blocks, p->block, (size_t)p->pages_used * sizeof *blocks);
            if (aux) memcpy(aux_table, p->aux_pages, (size_t)p->pages_used * sizeof *aux_table);
        }
        cs_free(w, p->pages, (size_t)p->page_cap * sizeof(unsigned char*));
        cs_free(w, p->aux_pages, aux ? (size_t)p->page_cap * sizeof(unsigned char*) : 0);
        cs_free(w, p->block, (size_t)p->page_cap * sizeof(int32_t));
        p->pages = table;
        p->aux_pages = aux_table;
        p->block = blocks;
        p->page_cap = page_cap;
    }
    // The new block's aux elements follow its records.
    unsigned char* const data_aux = data + aux_offset(p, cap - from);
    if (copy && p->pages_used) {
        // The aux elements are the owner's list, not tied to records: all of them are copied.
        memcpy(data, p->pages[0], (size_t)p->used * p->size);
        if (aux) memcpy(data_aux, p->aux_pages[0], (size_t)p->capacity * p->aux_size);
        free_blocks(w, p);
        p->pages_used = 0;
    }
    const int32_t first = p->pages_used;
    for (int32_t i = first; i < pages; ++i) {
        p->pages[i] = data + (size_t)(i - first) * CS_POOL_PAGE * p->size;
        if (aux) p->aux_pages[i] = data_aux + (size_t)(i - first) * CS_POOL_PAGE * p->aux_size;
        p->block[i] = 0;
    }
    p->block[first] = pages - first;
    p->pages_used = pages;
    if (spare_bytes) {
        // The spare array holds nothing between steps: the old one goes first, so the two are
        // never held at once (a pool grown page by page would otherwise hold both at every page).
        // Should the new one not be had, the old size is asked for again; a world left with a
        // smaller spare array than the room needs only leaves that pool where it is at the layout
        // (sort.c), which changes no result, and the growth itself has succeeded.
        cs_free(w, w->rec_spare, w->rec_spare_bytes);
        w->rec_spare = cs_alloc(w, spare_bytes);
        if (w->rec_spare)
            w->rec_spare_bytes = spare_bytes;
        else if (!w->rec_spare_bytes || !(w->rec_spare = cs_alloc(w, w->rec_spare_bytes)))
            w->rec_spare_bytes = 0;
    }
    p->capacity = (int32_t)cap;
    return CROWD_OK;
}

// The record kind of one of the world's pools, -1 for a pool that is not one of them.
static int kind_of(const crowd_world* w, const cs_pool* p) {
    for (int k = 0; k < CS_REC_COUNT; ++k)
        if (&w->pools[k] == p) return k;
    return -1;
}

crowd_status cs_pool_reserve(crowd_world* w, cs_pool* p, int n) {
    // The first reservation of a world pool's kind allocates its record numbers, -1 for every
    // index (internal.h): a world never given a record of a kind has none.
    const int kind = n > 0 ? kind_of(w, p) : -1;
    const size_t nums_bytes = sizeof(int32_t) * (size_t)w->index_capacity;
    int32_t* nums = NULL;
    if (kind >= 0 && !w->rec_of[kind]) {
        nums = cs_alloc(w, nums_bytes);
        if (!nums) return CROWD_ERR_OUT_OF_MEMORY;
        memset(nums, 0xff, nums_bytes);
    }
    const crowd_status st = grow(w, p, n);
    if (st != CROWD_OK) {
        cs_free(w, nums, nums_bytes);
        return st;
    }
    if (nums) w->rec_of[kind] = nums;
    return CROWD_OK;
}

int32_t cs_pool_acquire(cs_pool* p) {
    int32_t rec = p->free_head;
    if (rec >= 0)
        memcpy(&p->free_head, cs_pool_at(p, rec), sizeof p->free_head);
    else
        rec = p->used++;
    p->live++;
    memset(cs_pool_at(p, rec), 0, p->size);
    return rec;
}

void cs_pool_release(cs_pool* p, int32_t rec) {
    memcpy(cs_pool_at(p, rec), &p->free_head, sizeof p->free_head);
    p->free_head = rec;
    p->live--;
}

// The per-index record numbers are read in slot order, that is at random: fetched this far ahead.
enum { AHEAD = 32 };

int32_t cs_pool_count_slots(const int32_t* rec_of, const uint32_t* id, int lo, int hi) {
    int32_t k = 0;
    for (int s = lo; s < hi; ++s) {
        if (s + AHEAD < hi) __builtin_prefetch(&rec_of[id[s + AHEAD]]);
        k += rec_of[id[s]] >= 0;
    }
    return k;
}

// Records are small (20 to 80 bytes) and 4-byte aligned: a word loop beats a call to memcpy.
static inline void copy_record(unsigned char* restrict dst, const unsigned char* restrict src,
                               size_t size) {
    for (size_t b = 0; b < size; b += 4) memcpy(dst + b, src + b, 4);
}

int32_t cs_pool_move_slots(const cs_pool* p, const cs_scratch* x, int32_t* rec_of,
                           const uint32_t* id, int lo, int hi, int32_t first) {
    const size_t size = p->size;
    const int32_t start = first;
    int c = 0;
    while (c + 1 < x->count && x->first[c + 1] <= first) ++c;
    unsigned char* dst = x->buf[c] + (size_t)(first - x->first[c]) * size;
    int32_t room = x->first[c + 1] - first; // records that still fit in buffer c
    for (int s = lo; s < hi; ++s) {
        if (s + AHEAD < hi) __builtin_prefetch(&rec_of[id[s + AHEAD]]);
        const int32_t r = rec_of[id[s]];
        if (r < 0) continue;
        while (room == 0) { // the next buffer (a buffer may be too small for one record)
            ++c;
            dst = x->buf[c];
            room = x->first[c + 1] - x->first[c];
        }
        copy_record(dst, cs_pool_at(p, r), size);
        dst += size;
        room--;
        rec_of[id[s]] = first++;
    }
    return first - start;
}

int32_t cs_pool_move_slots_back(const cs_pool* p, const cs_scratch* x, int32_t* rec_of,
                                const uint32_t* id, int lo, int hi, int32_t last) {
    const size_t size = p->size;
    const int32_t start = last;
    int c = 0;
    while (c + 1 < x->count && x->first[c + 1] <= last) ++c;
    int32_t at = last - x->first[c]; // position of record `last` in buffer c; -1: below it
    for (int s = hi - 1; s >= lo; --s) {
        if (s - AHEAD >= lo) __builtin_prefetch(&rec_of[id[s - AHEAD]]);
        const int32_t r = rec_of[id[s]];
        if (r < 0) continue;
        while (at < 0) { // the buffer before (a buffer may be too small for one record)
            --c;
            at = x->first[c + 1] - x->first[c] - 1;
        }
        copy_record(x->buf[c] + (size_t)at * size, cs_pool_at(p, r), size);
        at--;
        rec_of[id[s]] = last--;
    }
    return start - last;
}

void cs_pool_copy_back(cs_pool* p, const cs_scratch* x, int32_t lo, int32_t hi) {
    const size_t size = p->size;
    for (int c = 0; c < x->count && lo < hi; ++c) {
        int32_t a = lo > x->first[c] ? lo : x->first[c];
        const int32_t b = hi < x->first[c + 1] ? hi : x->first[c + 1];
        while (a < b) { // up to the end of a's page
            const int32_t page_end = (a | (CS_POOL_PAGE - 1)) + 1, e = b < page_end ? b : page_end;
            memcpy(cs_pool_at(p, a), x->buf[c] + (size_t)(a - x->first[c]) * size,
                   (size_t)(e - a) * size);
            a = e;
        }
    }
}

// Every live record belongs to exactly one agent, so the moved records are all of them, numbered
// 0 .. live - 1: the free list starts empty after them.
void cs_pool_settle(cs_pool* p) {
    p->used = p->live;
    p->free_head = -1;
}

void cs_pool_free(crowd_world* w, cs_pool* p) {
    free_blocks(w, p);
    cs_free(w, p->pages, (size_t)p->page_cap * sizeof(unsigned char*));
    cs_free(w, p->aux_pages, p->aux_size ? (size_t)p->page_cap * sizeof(unsigned char*) : 0);
    cs_free(w, p->block, (size_t)p->page_cap * sizeof(int32_t));
    cs_pool_init(p, p->size, p->aux_size);
}
