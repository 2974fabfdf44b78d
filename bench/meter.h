// Counting allocator: the bytes an implementation under measurement holds, and their peak.
//
// Every implementation in the suite allocates through these functions (the engine through its
// allocator hooks, the C baselines through the same hooks, C++ code through the replaced global
// operator new, DetourCrowd through dtAllocSetCustom), so bytes per agent are the exact bytes each
// asked for: no allocator headers, no page rounding, no memory of other benchmarks.
#ifndef BENCH_METER_H
#define BENCH_METER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Sized pair, the signature of crowd_alloc_fn / crowd_free_fn. `align` is a power of two <= 64.
void* meter_alloc(size_t size, size_t align, void* user);
void meter_free(void* ptr, size_t size, void* user);

// Unsized pair for callers that free without a size (operator delete, dtFree): the size is kept
// in a 16-byte header, so the memory is 16-byte aligned.
void* meter_malloc(size_t size);
void meter_release(void* ptr);

// Bytes held now, and the most held since the last meter_mark().
int64_t meter_current(void);
int64_t meter_peak(void);
void meter_mark(void);

#ifdef __cplusplus
}
#endif

#endif
