// Parameter profiles: the parameters many agents share, stored once.
//
// A behavior whose agents mostly share their settings (every goal of a crowd has the same mode,
// slow radius and weight; every queue the same cone) keeps those settings here, interned: equal
// values (bit for bit) get the same profile, and each agent holds only the profile's number in a
// sorted column that rides the sort with its agent. A pass then reads, per agent, a 4-byte column
// in slot order and a table that stays in cache, where a per-agent copy of every parameter would
// cost its record's cache line.
//
// Numbers are a function of the calls alone (the same calls in the same order give the same
// numbers, whatever the threads): profiles are made and released by API calls between steps,
// never by a pass. A profile nobody uses any more stays interned, so that a crowd set and reset to
// the same values finds it again, until the unused are more than an eighth of them; then an
// interning drops the unused ones (their numbers are reused) so that a world that sees ever new
// values holds no more than about 8/7 of the profiles it uses, plus a few.
#ifndef CS_PROFILE_H
#define CS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/base.h"

typedef struct crowd_world crowd_world;

#define CS_PROFILE_FREE 0x80000000u
#define CS_PROFILE_NONE 0x7fffffffu

typedef struct cs_profiles {
    unsigned char* data; // cap profiles of `size` bytes
    // cap: agents using each profile; for a number on the free stack, CS_PROFILE_FREE and the
    // number below it (the stack is threaded through here)
    uint32_t* users;
    uint32_t* table; // table_cap slots: profile number + 1, 0 empty (open addressing)
    uint32_t size;   // bytes of one profile, a multiple of 4
    uint32_t cap, table_cap;
    uint32_t count;      // numbers ever handed out (high-water mark)
    uint32_t free_top;   // the free stack's top number (CS_PROFILE_NONE: empty)
    uint32_t free_count; // numbers on the free stack
    uint32_t unused;     // interned profiles with no user
} cs_profiles;

void cs_profiles_init(cs_profiles* p, size_t size);
void cs_profiles_free(crowd_world* w, cs_profiles* p);

// Room for `n` more profiles to be interned without allocating. All or nothing: on failure
// (CROWD_ERR_OUT_OF_MEMORY) nothing changed.
crowd_status cs_profiles_reserve(crowd_world* w, cs_profiles* p, uint32_t n);

// Room for profiles enough for `users` agents to hold any values (every one its own, and the
// unused profiles interning keeps) without allocating. Same failure rule.
crowd_status cs_profiles_reserve_users(crowd_world* w, cs_profiles* p, uint32_t users);

// The number of the profile equal to `value` (size bytes), with one more user; a new profile if
// there is none, for which room was reserved.
uint32_t cs_profiles_intern(cs_profiles* p, const void* value);

// Whether a profile equal to `value` is interned (used or not): interning it then needs no room.
bool cs_profiles_has(const cs_profiles* p, const void* value);

// One user less of profile `id`.
void cs_profiles_release(cs_profiles* p, uint32_t id);

static inline const void* cs_profiles_at(const cs_profiles* p, uint32_t id) {
    return p->data + (size_t)id * p->size;
}

#endif
