// Keyed random bits: a function of a seed and keys alone, not a position in a shared stream, so a
// draw does not depend on which draws came before it (nor on the thread or the process that makes
// it). Integer only: the same bits on every machine.
#ifndef CS_KEYED_H
#define CS_KEYED_H

#include <stdint.h>

// splitmix64's finalizer.
static inline uint64_t cs_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Bits keyed by (seed, a, b).
static inline uint64_t cs_keyed_bits(uint64_t seed, uint64_t a, uint64_t b) {
    const uint64_t z = cs_mix64(cs_mix64(seed + 0x9e3779b97f4a7c15ull) ^ a);
    return cs_mix64(z ^ b);
}

#endif
