#include "meter.h"

#include <stdatomic.h>
#include <stdlib.h>

// Process-wide by nature: the measured code may allocate from any thread.
static _Atomic int64_t held, high;

static void count(int64_t bytes) {
    const int64_t now = atomic_fetch_add_explicit(&held, bytes, memory_order_relaxed) + bytes;
    int64_t top = atomic_load_explicit(&high, memory_order_relaxed);
    while (now > top && !atomic_compare_exchange_weak_explicit(
                            &high, &top, now, memory_order_relaxed, memory_order_relaxed)) {
    }
}

void* meter_alloc(size_t size, size_t align, void* user) {
    (void)user;
    const size_t rounded = (size + align - 1) & ~(align - 1); // aligned_alloc wants a multiple
    void* p = aligned_alloc(align, rounded ? rounded : align);
    if (p) count((int64_t)size);
    return p;
}

void meter_free(void* ptr, size_t size, void* user) {
    (void)user;
    if (!ptr) return;
    count(-(int64_t)size);
    free(ptr);
}

enum { HEADER = 16 };

void* meter_malloc(size_t size) {
    unsigned char* p = malloc(size + HEADER);
    if (!p) return NULL;
    *(size_t*)p = size;
    count((int64_t)size);
    return p + HEADER;
}

void meter_release(void* ptr) {
    if (!ptr) return;
    unsigned char* p = (unsigned char*)ptr - HEADER;
    count(-(int64_t) * (size_t*)p);
    free(p);
}

int64_t meter_current(void) {
    return atomic_load_explicit(&held, memory_order_relaxed);
}
int64_t meter_peak(void) {
    return atomic_load_explicit(&high, memory_order_relaxed);
}
void meter_mark(void) {
    atomic_store_explicit(&high, atomic_load_explicit(&held, memory_order_relaxed),
                          memory_order_relaxed);
}
