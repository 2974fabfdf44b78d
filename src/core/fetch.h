// Helpers that only fetch memory ahead (__builtin_prefetch) are declared with CS_FETCH_HELPER.
//
// gcc's local pure-const analysis counts a prefetch as no side effect, so a helper whose only
// effect is prefetching is found "pure" and, its result unused, every call to it is deleted:
// the pass it was written for then fetches nothing (gcc 12 did this to the clearance pass's
// cell fetches and to the path pass's geometry fetches). Forced inlining puts the prefetches in
// the caller's body before that analysis runs, where they stay.
#ifndef CS_FETCH_H
#define CS_FETCH_H

#define CS_FETCH_HELPER static inline __attribute__((always_inline))

#endif
