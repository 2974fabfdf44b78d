// A crowd_world_def / crowd_load_def allocator that counts: tests check that every byte a world
// allocates is freed and that failed calls leave nothing behind.
#ifndef CROWD_TESTS_COUNTING_ALLOC_H
#define CROWD_TESTS_COUNTING_ALLOC_H

#include <stdlib.h>

typedef struct counter {
    long allocs, frees;
    long long live;
    long fail_at; // the allocation that fails: allocs + 1 at the time of the attempt (0: none)
} counter;

static inline void* count_alloc(size_t size, size_t align, void* user) {
    counter* c = user;
    if (c->fail_at && c->allocs + 1 == c->fail_at) return NULL;
    void* p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
    if (p) c->allocs++, c->live += (long long)size;
    return p;
}

static inline void count_free(void* p, size_t size, void* user) {
    counter* c = user;
    c->frees++;
    c->live -= (long long)size;
    free(p);
}

#endif
