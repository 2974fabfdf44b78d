// Record pools: growth through the world's allocator, and the free list.
#include <string.h>

#include "core/internal.h"

enum { MIN_RECORDS = 16 };

void cs_pool_init(cs_pool* p, size_t size, size_t aux_size) {
    *p = (cs_pool){.size = (uint32_t)size, .aux_size = (uint32_t)aux_size, .free_head = -1};
}

crowd_status cs_pool_reserve(crowd_world* w, cs_pool* p, int n) {
    const int64_t need = (int64_t)p->live + n;
    if (need <= p->capacity) return CROWD_OK;
    // A quarter more at a time: at most a fifth of a pool is unused room, and a growth holds the
    // old and the new array at once, 2.25 times the records rather than 3 times when doubling.
    int64_t cap = (int64_t)p->capacity + p->capacity / 4;
    if (cap < MIN_RECORDS) cap = MIN_RECORDS;
    if (cap > w->capacity) cap = w->capacity; // one record per agent index at most
    if (cap < need) cap = need;

    const size_t bytes = (size_t)cap * p->size, aux_bytes = (size_t)cap * p->aux_size;
    // The layout's scratch room beyond the free per-slot buffers (sort.c). Those buffers grow
    // with the world's capacity, so the spare array stays large enough (sort.c leaves a pool in
    // place in the one case where it does not: a world growth that failed after this one).
    const int64_t beyond = cap - cs_scratch_free_records(w, p->size);
    const size_t beyond_bytes = beyond > 0 ? (size_t)beyond * p->size : 0;
    const size_t spare_bytes = beyond_bytes > w->rec_spare_bytes ? beyond_bytes : 0;
    unsigned char* data = cs_alloc(w, bytes);
    unsigned char* spare = data && spare_bytes ? cs_alloc(w, spare_bytes) : NULL;
    void* aux = data && aux_bytes ? cs_alloc(w, aux_bytes) : NULL;
    if (!data || (spare_bytes && !spare) || (aux_bytes && !aux)) {
        cs_free(w, data, bytes);
        cs_free(w, spare, spare_bytes);
        cs_free(w, aux, aux_bytes);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    if (p->used) memcpy(data, p->data, (size_t)p->used * p->size);
    if (p->aux) memcpy(aux, p->aux, (size_t)p->capacity * p->aux_size);
    cs_free(w, p->data, (size_t)p->capacity * p->size);
    cs_free(w, p->aux, (size_t)p->capacity * p->aux_size);
    if (spare) {
        cs_free(w, w->rec_spare, w->rec_spare_bytes);
        w->rec_spare = spare;
        w->rec_spare_bytes = spare_bytes;
    }
    p->data = data;
    p->aux = aux;
    p->capacity = (int32_t)cap;
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
        const int32_t a = lo > x->first[c] ? lo : x->first[c];
        const int32_t b = hi < x->first[c + 1] ? hi : x->first[c + 1];
        if (b > a)
            memcpy(p->data + (size_t)a * size, x->buf[c] + (size_t)(a - x->first[c]) * size,
                   (size_t)(b - a) * size);
    }
}

// Every live record belongs to exactly one agent, so the moved records are all of them, numbered
// 0 .. live - 1: the free list starts empty after them.
void cs_pool_settle(cs_pool* p) {
    p->used = p->live;
    p->free_head = -1;
}

void cs_pool_free(crowd_world* w, cs_pool* p) {
    cs_free(w, p->data, (size_t)p->capacity * p->size);
    cs_free(w, p->aux, (size_t)p->capacity * p->aux_size);
    cs_pool_init(p, p->size, p->aux_size);
}
