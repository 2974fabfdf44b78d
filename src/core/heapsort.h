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

static inline void cs_heap_swap(unsigned char* a, unsigned char* b, size_t size) {
    for (size_t i = 0; i < size; ++i) {
        const unsigned char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static inline void cs_heap_sift(unsigned char* a, size_t root, size_t n, size_t size,
                                cs_heap_cmp cmp) {
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && cmp(a + (child + 1) * size, a + child * size) > 0) child++;
        if (cmp(a + root * size, a + child * size) >= 0) return;
        cs_heap_swap(a + root * size, a + child * size, size);
        root = child;
    }
}

// Sorts `n` elements of `size` bytes at `base` into ascending order of `cmp`.
static inline void cs_heapsort(void* base, size_t n, size_t size, cs_heap_cmp cmp) {
    unsigned char* a = base;
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) cs_heap_sift(a, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; --end) {
        cs_heap_swap(a, a + end * size, size);
        cs_heap_sift(a, 0, end, size, cmp);
    }
}

#endif
