// Removal in two halves: whatever a removal could need is reserved when the behaviors are set, so
// removals inside a step (queue arrivals with CROWD_QUEUE_REMOVE) never fail and never allocate,
// whatever the agent leads, follows or queues for.
#include <criterion/criterion.h>
#include <string.h>

#include "counting_alloc.h"
#include "crowd/crowd.h"

static crowd_world* counted_world(counter* c, int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.alloc = count_alloc;
    wd.free = count_free;
    wd.alloc_user = c;
    wd.threads = threads;
    wd.world_tag = 3;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_agent_id add_at(crowd_world* w, float x, float y) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

static void follow_slot(crowd_world* w, crowd_agent_id f, crowd_agent_id l) {
    crowd_follow_def d = crowd_follow_def_default();
    d.target = CROWD_FOLLOW_SLOT;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_OK);
}

static int followers_of(const crowd_world* w, crowd_agent_id l) {
    crowd_leader_info info;
    cr_assert_eq(crowd_leader_get_info(w, l, &info), CROWD_OK);
    return info.slot_followers;
}

// A chain of K leaders marching on their goals with CROWD_QUEUE_REMOVE, each the fallback of the
// one before it, the last one's fallback a leader that stays (with a CUSTOM formation of more
// slots than it has followers). Each arrival hands the growing group one step further down the
// chain, until the one that stays leads every slot follower. The fallback's group grows from 2 to
// 2 + K * G slot followers inside steps, which needs more slot-assignment scratch than any group
// had before the steps; the allocator sees no call during the steps, the agents are gone, and
// every follower follows the last fallback with a slot.
static void chain_of_removals(int threads) {
    enum { K = 4, G = 12, STAY = 2 };
    counter c = {0};
    crowd_world* w = counted_world(&c, threads);
    crowd_agent_id leader[K], stay = add_at(w, 0.0f, -40.0f);
    crowd_vec2 offsets[60];
    for (int k = 0; k < 60; ++k) offsets[k] = (crowd_vec2){-1.0f - (float)(k / 5), (float)(k % 5)};
    crowd_formation_def fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_CUSTOM;
    fd.offsets = offsets;
    fd.offset_count = 60;
    cr_assert_eq(crowd_leader_set_formation(w, stay, &fd), CROWD_OK);
    for (int i = 0; i < STAY; ++i) follow_slot(w, add_at(w, -2.0f - (float)i, -40.0f), stay);
    for (int k = 0; k < K; ++k) {
        // Leader k starts 1 m plus 3 m per k from its goal: the arrivals come one after another.
        const float y = 10.0f * (float)k;
        leader[k] = add_at(w, 0.0f, y);
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){1.0f + 3.0f * (float)k, y};
        q.on_arrival = CROWD_QUEUE_REMOVE;
        cr_assert_eq(crowd_agent_set_queue(w, leader[k], &q), CROWD_OK);
        for (int i = 0; i < G; ++i)
            follow_slot(w, add_at(w, -2.0f - (float)(i % 4), y + (float)(i / 4)), leader[k]);
    }
    for (int k = 0; k < K; ++k)
        cr_assert_eq(crowd_leader_set_fallback(w, leader[k], k + 1 < K ? leader[k + 1] : stay),
                     CROWD_OK);
    const int agents = crowd_world_agent_count(w);

    const long allocs = c.allocs, frees = c.frees;
    int removed = 0;
    for (int t = 0; t < 300 && removed < K; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        removed += crowd_world_arrival_count(w);
    }
    cr_assert_eq(c.allocs, allocs, "%ld allocations during the steps", c.allocs - allocs);
    cr_assert_eq(c.frees, frees);

    cr_assert_eq(removed, K, "every queueing leader arrived");
    cr_assert_eq(crowd_world_agent_count(w), agents - K);
    for (int k = 0; k < K; ++k)
        cr_assert_eq(crowd_agent_validate(w, leader[k]), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(followers_of(w, stay), STAY + K * G, "the last fallback leads everyone");
    // And the group got its slots: one step assigns them, still without allocating.
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(c.allocs, allocs);
    crowd_agent_id ids[STAY + K * G];
    int n;
    cr_assert_eq(crowd_leader_get_followers(w, stay, ids, STAY + K * G, &n), CROWD_OK);
    bool used[60] = {false};
    for (int i = 0; i < n; ++i) {
        crowd_follow_info info;
        cr_assert_eq(crowd_agent_get_follow(w, ids[i], &info), CROWD_OK);
        cr_assert(crowd_agent_id_equal(info.leader, stay));
        cr_assert(info.slot >= 0 && info.slot < 60 && !used[info.slot], "follower %d slot %d", i,
                  info.slot);
        used[info.slot] = true;
    }
    crowd_world_destroy(w);
    cr_assert_eq(c.live, 0);
}

Test(removal, chain_of_remove_queues_allocates_nothing_one_thread) {
    chain_of_removals(1);
}

Test(removal, chain_of_remove_queues_allocates_nothing_two_threads) {
    chain_of_removals(2);
}

// The calls that raise the reserve fail cleanly: a script of follows, formations and fallbacks
// runs with the allocator refusing its k-th allocation, for every k until the script completes.
// The failing call reports out of memory and leaves the world as it was (same state hash); and
// whatever point the script reached, the leaders it made then arrive and are removed inside steps
// while the allocator refuses everything, without a failure or an allocation.
typedef struct refusing {
    counter c;
    long fail_at; // the allocation with this number and later ones are refused; -1: never
} refusing;

static void* refuse_alloc(size_t size, size_t align, void* user) {
    refusing* r = user;
    if (r->fail_at >= 0 && r->c.allocs >= r->fail_at) return NULL;
    return count_alloc(size, align, &r->c);
}

static void refuse_free(void* p, size_t size, void* user) {
    count_free(p, size, &((refusing*)user)->c);
}

// One call of the script: ok stays true while calls succeed; a failed call is checked.
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        const uint64_t before = crowd_world_state_hash(w);                                         \
        const crowd_status st = (expr);                                                            \
        if (st != CROWD_OK) {                                                                      \
            cr_assert_eq(st, CROWD_ERR_OUT_OF_MEMORY);                                             \
            cr_assert_eq(crowd_world_state_hash(w), before, "a failed call changed the world");    \
            ok = false;                                                                            \
        }                                                                                          \
    } while (0)

Test(removal, failed_reserves_change_nothing_and_removals_never_fail) {
    enum { L = 3, G = 10 };
    bool completed = false;
    for (long k = 0; !completed; ++k) {
        refusing r = {.fail_at = -1};
        crowd_world_def wd = crowd_world_def_default();
        wd.alloc = refuse_alloc;
        wd.free = refuse_free;
        wd.alloc_user = &r;
        wd.threads = 1;
        wd.world_tag = 3;
        wd.capacity = 64;
        crowd_world* w;
        cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
        crowd_agent_id lead[L], f[L][G];
        for (int l = 0; l < L; ++l) {
            lead[l] = add_at(w, 0.0f, 10.0f * (float)l);
            crowd_queue_def q = crowd_queue_def_default();
            q.goal = (crowd_vec2){1.0f + 2.0f * (float)l, 10.0f * (float)l};
            q.on_arrival = CROWD_QUEUE_REMOVE;
            cr_assert_eq(crowd_agent_set_queue(w, lead[l], &q), CROWD_OK);
            for (int i = 0; i < G; ++i) f[l][i] = add_at(w, -1.0f - (float)i, 10.0f * (float)l);
        }
        const int agents = crowd_world_agent_count(w);
        r.fail_at = r.c.allocs + k;

        crowd_follow_def d = crowd_follow_def_default();
        d.target = CROWD_FOLLOW_SLOT;
        crowd_vec2 offsets[3 * G];
        for (int i = 0; i < 3 * G; ++i) offsets[i] = (crowd_vec2){-1.0f - (float)i, 0.0f};
        crowd_formation_def fd = crowd_formation_def_default();
        fd.shape = CROWD_FORMATION_CUSTOM;
        fd.offsets = offsets;
        fd.offset_count = 3 * G;
        bool ok = true;
        // Fallbacks first, so that every later follower and formation raises the reserve.
        for (int l = 0; l + 1 < L && ok; ++l)
            TRY(crowd_leader_set_fallback(w, lead[l], lead[l + 1]));
        for (int l = 0; l < L && ok; ++l)
            for (int i = 0; i < G && ok; ++i) TRY(crowd_agent_follow(w, f[l][i], lead[l], &d));
        if (ok) TRY(crowd_leader_set_formation(w, lead[L - 1], &fd));
        completed = ok;

        r.fail_at = r.c.allocs; // nothing more
        const long allocs = r.c.allocs;
        int removed = 0;
        for (int t = 0; t < 200 && removed < L; ++t) {
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            removed += crowd_world_arrival_count(w);
        }
        cr_assert_eq(removed, L, "k = %ld", k);
        cr_assert_eq(crowd_world_agent_count(w), agents - L);
        cr_assert_eq(r.c.allocs, allocs);
        crowd_world_destroy(w);
        cr_assert_eq(r.c.live, 0);
    }
}
