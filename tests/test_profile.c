// Parameter profiles (core/profile.h) on their own: equal values share a number, numbers follow
// from the calls alone, unused profiles are kept until they are an eighth of all and then dropped
// (their numbers reused), a failed reservation changes nothing, and a reservation for n users
// makes any n users' values internable without allocating, churn included.
#include <criterion/criterion.h>
#include <string.h>

#include "core/internal.h"
#include "counting_alloc.h"

static crowd_world* make_world(counter* c) {
    *c = (counter){0};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.alloc = count_alloc;
    wd.free = count_free;
    wd.alloc_user = c;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

typedef struct value {
    float a, b;
    uint32_t k, pad;
} value;

static value v(uint32_t k) {
    return (value){(float)k * 0.5f, 1.0f, k, 0};
}

// Profiles held, used or not.
static uint32_t interned(const cs_profiles* p) {
    return p->count - p->free_count;
}

static uint32_t users_total(const cs_profiles* p) {
    uint32_t n = 0;
    for (uint32_t id = 0; id < p->count; ++id)
        if (!(p->users[id] & CS_PROFILE_FREE)) n += p->users[id];
    return n;
}

Test(profile, equal_values_share_a_number) {
    counter c;
    crowd_world* w = make_world(&c);
    cs_profiles p;
    cs_profiles_init(&p, sizeof(value));
    cr_assert_eq(cs_profiles_reserve(w, &p, 3), CROWD_OK);
    const value a = v(1), b = v(2);
    const uint32_t ia = cs_profiles_intern(&p, &a), ib = cs_profiles_intern(&p, &b);
    cr_assert_neq(ia, ib);
    cr_assert_eq(cs_profiles_intern(&p, &a), ia);
    cr_assert_eq(memcmp(cs_profiles_at(&p, ia), &a, sizeof a), 0);
    cr_assert_eq(memcmp(cs_profiles_at(&p, ib), &b, sizeof b), 0);
    cr_assert_eq(p.users[ia], 2);
    cr_assert(cs_profiles_has(&p, &a));
    const value z = v(99);
    cr_assert_not(cs_profiles_has(&p, &z));
    // A released profile stays interned: the same value finds it again, with no new room.
    cs_profiles_release(&p, ib);
    cr_assert_eq(p.unused, 1);
    cr_assert(cs_profiles_has(&p, &b));
    cr_assert_eq(cs_profiles_intern(&p, &b), ib);
    cr_assert_eq(p.unused, 0);
    cs_profiles_free(w, &p);
    crowd_world_destroy(w);
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
}

// The same calls give the same numbers; a world that sees ever new values holds at most about 8/7
// of the profiles it uses (plus the few kept), and reuses numbers.
Test(profile, churn_is_bounded_and_deterministic) {
    enum { USERS = 500, ROUNDS = 20000 };
    counter c;
    crowd_world* w = make_world(&c);
    cs_profiles p[2];
    uint32_t held[2][USERS];
    for (int r = 0; r < 2; ++r) {
        cs_profiles_init(&p[r], sizeof(value));
        cr_assert_eq(cs_profiles_reserve_users(w, &p[r], USERS), CROWD_OK);
        for (uint32_t u = 0; u < USERS; ++u) held[r][u] = cs_profiles_intern(&p[r], &(value){0});
    }
    const long allocs = c.allocs;
    uint32_t most = 0;
    for (uint32_t t = 0; t < ROUNDS; ++t) {
        // User t % USERS moves to a new value every round: the old one loses its user.
        const value x = v(1000 + t);
        for (int r = 0; r < 2; ++r) {
            const uint32_t u = t % USERS;
            const uint32_t id = cs_profiles_intern(&p[r], &x);
            cs_profiles_release(&p[r], held[r][u]);
            held[r][u] = id;
        }
        cr_assert_eq(held[0][t % USERS], held[1][t % USERS], "round %u: numbers differ", t);
        cr_assert_eq(users_total(&p[0]), USERS);
        if (interned(&p[0]) > most) most = interned(&p[0]);
    }
    cr_assert_eq(c.allocs, allocs, "interning within the reservation allocated");
    cr_assert_leq(most, USERS + USERS / 7 + 34, "profiles held: %u", most);
    cr_assert_leq(p[0].count, USERS + USERS / 7 + 34, "numbers reused: %u handed out", p[0].count);
    for (uint32_t u = 0; u < USERS; ++u) {
        const value x = v(1000 + (ROUNDS - USERS) + u);
        cr_assert_eq(memcmp(cs_profiles_at(&p[0], held[0][u]), &x, sizeof x), 0, "user %u", u);
    }
    for (int r = 0; r < 2; ++r) cs_profiles_free(w, &p[r]);
    crowd_world_destroy(w);
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
}

// A reservation that cannot allocate changes nothing; the next one succeeds.
Test(profile, failed_reservation_changes_nothing) {
    counter c;
    crowd_world* w = make_world(&c);
    cs_profiles p;
    cs_profiles_init(&p, sizeof(value));
    cr_assert_eq(cs_profiles_reserve(w, &p, 4), CROWD_OK);
    for (uint32_t k = 0; k < 4; ++k) cs_profiles_intern(&p, &(value){(float)k, 0.0f, k, 0});
    const cs_profiles before = p;
    for (long k = 0; k < 3; ++k) {
        c.fail_at = c.allocs + k + 1;
        cr_assert_eq(cs_profiles_reserve(w, &p, 1000), CROWD_ERR_OUT_OF_MEMORY);
        c.fail_at = 0;
        cr_assert_eq(memcmp(&p, &before, sizeof p), 0, "failure %ld changed the table", k);
    }
    cr_assert_eq(cs_profiles_reserve(w, &p, 1000), CROWD_OK);
    for (uint32_t k = 0; k < 4; ++k)
        cr_assert(cs_profiles_has(&p, &(value){(float)k, 0.0f, k, 0}), "value %u kept", k);
    cs_profiles_free(w, &p);
    crowd_world_destroy(w);
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
}
