// In-place heapsort for the sorts a step makes (queue arrivals, leader groups, slot matching).
//
// The C library's qsort may call malloc for large arrays (glibc's merge sort buffer), which a step
// must not do and which would bypass the world's allocator hooks; this sort uses no memory beyond
// the array. It is not stable, so every comparator given to it must be a total order (ties broken
// by a unique key): then the result is the one sorted order, whatever the algorithm.
#ifndef CS_CORE_HEAPSORT_H
#define CS_CORE_HEAPSORT_H

#include <stddef.h>

typedef int (*cs_heap_cmp)(const void* a, const void* b);

// Element i of the sequence being sorted: a pointer to its `size` bytes.
typedef void* (*cs_heap_at)(const void* seq, size_t i);

static inline void cs_heap_swap(unsigned char* a, unsigned char* b, size_t size) {
    for (size_t i = 0; i < size; ++i) {
        const unsigned char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static inline void cs_heap_sift(const void* seq, cs_heap_at at, size_t root, size_t n, size_t size,
                                cs_heap_cmp cmp) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && cmp(at(seq, child + 1), at(seq, child)) > 0) child++;
        if (cmp(at(seq, root), at(seq, child)) >= 0) return;
        cs_heap_swap(at(seq, root), at(seq, child), size);
        root = child;
    }
}

// Sorts the `n` elements of `size` bytes of a sequence whose element i is at(seq, i) (elements
// need not be contiguous: a pool's pages, core/pool.h) into ascending order of `cmp`.
static inline void cs_heapsort_at(const void* seq, cs_heap_at at, size_t n, size_t size,
                                  cs_heap_cmp cmp) {
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) cs_heap_sift(seq, at, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; --end) {
        cs_heap_swap(at(seq, 0), at(seq, end), size);
        cs_heap_sift(seq, at, 0, end, size, cmp);
    }
}

// An array: the element size rides along with the base.
typedef struct cs_heap_array {
    unsigned char* base;
    size_t size;
} cs_heap_array;

static inline void* cs_heap_array_at(const void* seq, size_t i) {
    const cs_heap_array* a = seq;
    return a->base + i * a->size;
}

// Sorts `n` elements of `size` bytes at `base` into ascending order of `cmp`.
static inline void cs_heapsort(void* base, size_t n, size_t size, cs_heap_cmp cmp) {
    const cs_heap_array a = {base, size};
    cs_heapsort_at(&a, cs_heap_array_at, n, size, cmp);
}

#endif
