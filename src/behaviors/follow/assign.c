// Formation slot assignment: followers to slots, deterministic, three methods by size.
//
// Everything here runs on one thread per group and depends only on its inputs, so the result is
// the same for any number of threads working on other groups.
#include <float.h>
#include <math.h>
#include <string.h>

#include "behaviors/follow/follow_internal.h"
#include "core/heapsort.h"

static inline double cost(const crowd_vec2* fpos, const crowd_vec2* spos, int i, int j) {
    const double dx = (double)fpos[i].x - (double)spos[j].x;
    const double dy = (double)fpos[i].y - (double)spos[j].y;
    return sqrt(dx * dx + dy * dy);
}

static inline size_t align8(size_t b) {
    return (b + 7u) & ~(size_t)7u;
}

typedef enum method { METHOD_EXACT, METHOD_GREEDY, METHOD_SORTED } method;

static method pick(int n, int m) {
    const int64_t pairs = (int64_t)n * (int64_t)m;
    if (n <= CROWD_FOLLOW_EXACT_MAX && pairs <= CROWD_FOLLOW_GREEDY_PAIRS) return METHOD_EXACT;
    if (pairs <= CROWD_FOLLOW_GREEDY_PAIRS) return METHOD_GREEDY;
    return METHOD_SORTED;
}

static size_t exact_bytes(int n, int m) {
    const size_t mm = (size_t)(n > m ? n : m);
    return align8(sizeof(double) * ((size_t)n * mm + (size_t)n + 1 + 2 * (mm + 1)) +
                  sizeof(int) * 2 * (mm + 1) + (mm + 1));
}

// Keys, their radix-sort buffer and the cost table, n x m each, and the slot owners.
static size_t greedy_bytes(int n, int m) {
    return align8(3 * sizeof(uint64_t) * (size_t)n * (size_t)m + sizeof(int) * (size_t)m);
}

typedef struct item {
    float x, y;
    int32_t idx;
} item;

static size_t sorted_bytes(int n, int m) {
    return align8(sizeof(item) * ((size_t)n + (size_t)m));
}

size_t cs_assign_scratch_bytes(int n, int m) {
    if (n <= 0) return 0;
    switch (pick(n, m)) {
    case METHOD_EXACT:
        return exact_bytes(n, m);
    case METHOD_GREEDY:
        return greedy_bytes(n, m);
    case METHOD_SORTED:
        break;
    }
    return sorted_bytes(n, m);
}

size_t cs_assign_scratch_bound(int n, int m) {
    if (n <= 0) return 0;
    const int ne = n < CROWD_FOLLOW_EXACT_MAX ? n : CROWD_FOLLOW_EXACT_MAX;
    const int64_t pairs = (int64_t)n * (int64_t)m;
    const size_t gp =
        (size_t)(pairs < CROWD_FOLLOW_GREEDY_PAIRS ? pairs : CROWD_FOLLOW_GREEDY_PAIRS);
    return exact_bytes(ne, n > m ? n : m) +
           align8(3 * sizeof(uint64_t) * gp + sizeof(int) * (size_t)m) + sorted_bytes(n, m);
}

void cs_assign_slots(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                     void* scratch) {
    if (n <= 0) return;
    switch (pick(n, m)) {
    case METHOD_EXACT:
        cs_assign_exact(n, m, fpos, spos, out, scratch);
        return;
    case METHOD_GREEDY:
        cs_assign_greedy(n, m, fpos, spos, out, scratch);
        return;
    case METHOD_SORTED:
        break;
    }
    cs_assign_sorted(n, m, fpos, spos, out, scratch);
}

// ---- exact: the Hungarian method with potentials (rows = followers, columns = slots) ----------
// Slots are padded with zero-cost dummies up to n, so that with fewer slots than followers the
// followers left on dummies are those whose absence costs least.

void cs_assign_exact(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                     void* scratch) {
    if (n <= 0) return;
    const int mm = n > m ? n : m;
    double* a = scratch; // n x mm
    double* u = a + (size_t)n * (size_t)mm;
    double* v = u + n + 1;
    double* minv = v + mm + 1;
    int* p = (int*)(minv + mm + 1);
    int* way = p + mm + 1;
    unsigned char* used = (unsigned char*)(way + mm + 1);

    for (int i = 0; i < n; ++i)
        for (int j = 0; j < mm; ++j) a[(size_t)i * mm + j] = j < m ? cost(fpos, spos, i, j) : 0.0;
    for (int i = 0; i <= n; ++i) u[i] = 0.0;
    for (int j = 0; j <= mm; ++j) {
        v[j] = 0.0;
        p[j] = 0;
        way[j] = 0;
    }

    for (int i = 1; i <= n; ++i) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= mm; ++j) {
            minv[j] = DBL_MAX;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            const int i0 = p[j0];
            double delta = DBL_MAX;
            int j1 = 0;
            for (int j = 1; j <= mm; ++j) {
                if (used[j]) continue;
                const double cur = a[(size_t)(i0 - 1) * mm + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= mm; ++j) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (int i = 0; i < n; ++i) out[i] = -1;
    for (int j = 1; j <= m; ++j)
        if (p[j]) out[p[j] - 1] = j - 1;
}

// ---- greedy: shortest pair first, then local improvement ------------------------------------

// LSD radix sort of 64-bit keys a byte at a time, skipping bytes equal in every key. The result
// ends in keys.
static void radix_sort(uint64_t* keys, uint64_t* tmp, size_t count) {
    uint64_t *src = keys, *dst = tmp;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t hist[256] = {0};
        for (size_t q = 0; q < count; ++q) ++hist[src[q] >> shift & 0xffu];
        if (hist[src[0] >> shift & 0xffu] == count) continue;
        size_t at = 0;
        for (int b = 0; b < 256; ++b) {
            const size_t h = hist[b];
            hist[b] = at;
            at += h;
        }
        for (size_t q = 0; q < count; ++q) dst[hist[src[q] >> shift & 0xffu]++] = src[q];
        uint64_t* t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) memcpy(keys, src, sizeof *keys * count);
}

static inline double slot_cost(const double* c, int m, int i, int j) {
    return j < 0 ? 0.0 : c[(size_t)i * (size_t)m + (size_t)j];
}

// Improvement only ever lowers the total, so it ends; the pass cap bounds its time. At its fixed
// point no two followers' paths cross (uncrossing two paths shortens them).
enum { IMPROVE_PASSES = 8 };
#define IMPROVE_EPS 1e-9

static void improve(int n, int m, const double* c, int* out, int* owner) {
    for (int pass = 0; pass < IMPROVE_PASSES; ++pass) {
        bool changed = false;
        for (int i = 0; i < n; ++i) {
            for (int k = i + 1; k < n; ++k) {
                const int si = out[i], sk = out[k];
                if (si == sk) continue; // both without a slot
                const double now = slot_cost(c, m, i, si) + slot_cost(c, m, k, sk);
                const double swapped = slot_cost(c, m, i, sk) + slot_cost(c, m, k, si);
                if (swapped + IMPROVE_EPS < now) {
                    out[i] = sk;
                    out[k] = si;
                    if (sk >= 0) owner[sk] = i;
                    if (si >= 0) owner[si] = k;
                    changed = true;
                }
            }
        }
        if (m > n) {
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < m; ++j) {
                    if (owner[j] >= 0) continue;
                    const int si = out[i];
                    if (slot_cost(c, m, i, j) + IMPROVE_EPS < slot_cost(c, m, i, si)) {
                        if (si >= 0) owner[si] = -1;
                        owner[j] = i;
                        out[i] = j;
                        changed = true;
                    }
                }
            }
        }
        if (!changed) break;
    }
}

void cs_assign_greedy(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                      void* scratch) {
    if (n <= 0) return;
    const size_t pairs = (size_t)n * (size_t)m;
    uint64_t* keys = scratch;
    uint64_t* tmp = keys + pairs;
    double* c = (double*)(tmp + pairs);
    int* owner = (int*)(c + pairs);
    size_t k = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j, ++k) {
            c[k] = cost(fpos, spos, i, j);
            // Non-negative floats order like their bit patterns; (i, j) break ties.
            const float d = (float)c[k];
            uint32_t bits;
            memcpy(&bits, &d, sizeof bits);
            keys[k] = (uint64_t)bits << 32 | (uint64_t)i << 16 | (uint64_t)j;
        }
    }
    radix_sort(keys, tmp, pairs);
    for (int i = 0; i < n; ++i) out[i] = -1;
    for (int j = 0; j < m; ++j) owner[j] = -1;
    const int want = n < m ? n : m;
    int got = 0;
    for (size_t q = 0; q < pairs && got < want; ++q) {
        const int i = (int)(keys[q] >> 16 & 0xffffu), j = (int)(keys[q] & 0xffffu);
        if (out[i] >= 0 || owner[j] >= 0) continue;
        out[i] = j;
        owner[j] = i;
        ++got;
    }
    improve(n, m, c, out, owner);
}

// ---- sorted: order matching for groups too large for a pair table ----------------------------

// Both orders end on the unique index: total orders (positions are finite), as cs_heapsort needs.
static int cmp_front(const void* a, const void* b) {
    const item *p = a, *q = b;
    if (p->x != q->x) return p->x > q->x ? -1 : 1;
    if (p->y != q->y) return p->y > q->y ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

static int cmp_left(const void* a, const void* b) {
    const item *p = a, *q = b;
    if (p->y != q->y) return p->y > q->y ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

// Slots are taken row by row (a row = a run of equal x, front first); each row gets the next
// followers in front-to-back order, matched left to right.
void cs_assign_sorted(int n, int m, const crowd_vec2* fpos, const crowd_vec2* spos, int* out,
                      void* scratch) {
    if (n <= 0) return;
    item* f = scratch;
    item* s = f + n;
    for (int i = 0; i < n; ++i) f[i] = (item){fpos[i].x, fpos[i].y, i};
    for (int j = 0; j < m; ++j) s[j] = (item){spos[j].x, spos[j].y, j};
    cs_heapsort(f, (size_t)n, sizeof *f, cmp_front);
    cs_heapsort(s, (size_t)m, sizeof *s, cmp_front);
    for (int i = 0; i < n; ++i) out[i] = -1;
    int fi = 0, sj = 0;
    while (fi < n && sj < m) {
        int run = 1;
        while (sj + run < m && s[sj + run].x == s[sj].x) ++run;
        const int take = run < n - fi ? run : n - fi;
        cs_heapsort(f + fi, (size_t)take, sizeof *f, cmp_left);
        for (int q = 0; q < take; ++q) out[f[fi + q].idx] = s[sj + q].idx;
        fi += take;
        sj += run;
    }
}
