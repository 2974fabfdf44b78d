// Parameter profiles (see core/profile.h): an array of profiles, their user counts, and an
// open-addressing table from value to number that is rebuilt, never edited, when profiles go.
#include "core/profile.h"

#include <string.h>

#include "core/internal.h"

enum { MIN_PROFILES = 16, KEEP_UNUSED = 16 };

void cs_profiles_init(cs_profiles* p, size_t size) {
    memset(p, 0, sizeof *p);
    p->size = (uint32_t)size;
    p->free_top = CS_PROFILE_NONE;
}

static void push_free(cs_profiles* p, uint32_t id) {
    p->users[id] = CS_PROFILE_FREE | p->free_top;
    p->free_top = id;
    p->free_count++;
}

static uint32_t pop_free(cs_profiles* p) {
    const uint32_t id = p->free_top;
    p->free_top = p->users[id] & ~CS_PROFILE_FREE;
    p->free_count--;
    return id;
}

static void free_arrays(crowd_world* w, cs_profiles* p) {
    cs_free(w, p->data, (size_t)p->cap * p->size);
    cs_free(w, p->users, sizeof(uint32_t) * p->cap);
    cs_free(w, p->table, sizeof(uint32_t) * p->table_cap);
}

void cs_profiles_free(crowd_world* w, cs_profiles* p) {
    free_arrays(w, p);
    cs_profiles_init(p, p->size);
}

// FNV-1a over the value's bytes.
static uint32_t hash_of(const void* value, uint32_t size) {
    const unsigned char* b = value;
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < size; ++i) h = (h ^ b[i]) * 16777619u;
    return h;
}

static void table_put(uint32_t* table, uint32_t table_cap, const void* value, uint32_t size,
                      uint32_t id) {
    uint32_t i = hash_of(value, size) & (table_cap - 1);
    while (table[i]) i = (i + 1) & (table_cap - 1);
    table[i] = id + 1;
}

// Profiles held, used or not (numbers handed out and not on the free stack).
static uint32_t interned(const cs_profiles* p) {
    return p->count - p->free_count;
}

crowd_status cs_profiles_reserve(crowd_world* w, cs_profiles* p, uint32_t n) {
    const uint64_t need = (uint64_t)interned(p) + n;
    const bool ids_ok = (uint64_t)p->free_count + (p->cap - p->count) >= n;
    if (ids_ok && 2 * need <= p->table_cap) return CROWD_OK;
    if (need >= CS_PROFILE_NONE / 2) return CROWD_ERR_OUT_OF_MEMORY;
    // The arrays grow by half at least, so that one new profile at a time costs amortized O(1);
    // the table stays a power of two at most half full.
    const uint64_t want = (uint64_t)p->count + n, grown = (uint64_t)p->cap + p->cap / 2;
    uint64_t cap64 = want > grown ? want : grown;
    if (cap64 < MIN_PROFILES) cap64 = MIN_PROFILES;
    const uint32_t cap = (uint32_t)cap64;
    uint32_t table_cap = p->table_cap < 2 * MIN_PROFILES ? 2 * MIN_PROFILES : p->table_cap;
    while (table_cap < 2 * need) table_cap *= 2;
    unsigned char* data = cs_alloc(w, (size_t)cap * p->size);
    uint32_t* users = cs_alloc(w, sizeof(uint32_t) * cap);
    uint32_t* table = cs_alloc(w, sizeof(uint32_t) * table_cap);
    if (!data || !users || !table) {
        cs_free(w, data, (size_t)cap * p->size);
        cs_free(w, users, sizeof(uint32_t) * cap);
        cs_free(w, table, sizeof(uint32_t) * table_cap);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    if (p->count) {
        memcpy(data, p->data, (size_t)p->count * p->size);
        memcpy(users, p->users, sizeof(uint32_t) * p->count);
    }
    memset(table, 0, sizeof(uint32_t) * table_cap);
    // The old table's entries, in its slot order: the new table then depends only on the calls.
    for (uint32_t i = 0; i < p->table_cap; ++i)
        if (p->table[i]) {
            const uint32_t id = p->table[i] - 1;
            table_put(table, table_cap, data + (size_t)id * p->size, p->size, id);
        }
    free_arrays(w, p);
    p->data = data, p->users = users, p->table = table;
    p->cap = cap, p->table_cap = table_cap;
    return CROWD_OK;
}

crowd_status cs_profiles_reserve_users(crowd_world* w, cs_profiles* p, uint32_t users) {
    // Before an interning, at most KEEP_UNUSED + 1 or an eighth of the profiles are unused.
    const uint64_t need = (uint64_t)users + users / 7 + 2 * KEEP_UNUSED + 2;
    if (need > UINT32_MAX / 4) return CROWD_ERR_OUT_OF_MEMORY;
    return need > interned(p) ? cs_profiles_reserve(w, p, (uint32_t)need - interned(p)) : CROWD_OK;
}

// Drops the profiles nobody uses: their numbers go on the free stack (highest first, so the
// lowest is reused first) and the table is laid out again from the used ones.
static void compact(cs_profiles* p) {
    memset(p->table, 0, sizeof(uint32_t) * p->table_cap);
    p->free_top = CS_PROFILE_NONE;
    p->free_count = 0;
    for (uint32_t id = p->count; id-- > 0;) {
        if (p->users[id] == 0 || (p->users[id] & CS_PROFILE_FREE))
            push_free(p, id);
        else
            table_put(p->table, p->table_cap, p->data + (size_t)id * p->size, p->size, id);
    }
    p->unused = 0;
}

bool cs_profiles_has(const cs_profiles* p, const void* value) {
    if (!p->table_cap) return false;
    const uint32_t mask = p->table_cap - 1;
    for (uint32_t i = hash_of(value, p->size) & mask; p->table[i]; i = (i + 1) & mask)
        if (memcmp(p->data + (size_t)(p->table[i] - 1) * p->size, value, p->size) == 0) return true;
    return false;
}

uint32_t cs_profiles_intern(cs_profiles* p, const void* value) {
    if (p->unused > KEEP_UNUSED && 8 * (uint64_t)p->unused > interned(p)) compact(p);
    const uint32_t mask = p->table_cap - 1;
    uint32_t i = hash_of(value, p->size) & mask;
    for (; p->table[i]; i = (i + 1) & mask) {
        const uint32_t id = p->table[i] - 1;
        if (memcmp(p->data + (size_t)id * p->size, value, p->size) == 0) {
            if (p->users[id]++ == 0) p->unused--;
            return id;
        }
    }
    const uint32_t id = p->free_count ? pop_free(p) : p->count++;
    memcpy(p->data + (size_t)id * p->size, value, p->size);
    p->users[id] = 1;
    p->table[i] = id + 1;
    return id;
}

void cs_profiles_release(cs_profiles* p, uint32_t id) {
    if (--p->users[id] == 0) p->unused++;
}
