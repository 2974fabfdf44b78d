// Allocator hooks: every byte the library uses comes from them and goes back to them, a step
// allocates nothing once storage is reserved, and a failed allocation leaves the world unchanged.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

// A counting allocator that also remembers each block's size and alignment, so a free with a
// different size than its allocation, or of an unknown pointer, is caught.
enum { MAX_BLOCKS = 4096 };

typedef struct counter {
    long allocs, frees;
    long long live_bytes, total_bytes;
    long fail_after; // the allocation with this number (0-based) and later ones fail; -1 = never
    int bad_align, bad_free;
    void* ptr[MAX_BLOCKS];
    size_t size[MAX_BLOCKS];
    int blocks;
} counter;

static void* count_alloc(size_t size, size_t align, void* user) {
    counter* c = user;
    if (align == 0 || (align & (align - 1)) != 0 || align > 64) c->bad_align++;
    if (c->fail_after >= 0 && c->allocs >= c->fail_after) return NULL;
    if (c->blocks == MAX_BLOCKS) return NULL;
    void* p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (!p) return NULL;
    if ((uintptr_t)p % align != 0) c->bad_align++;
    c->allocs++;
    c->live_bytes += (long long)size;
    c->total_bytes += (long long)size;
    c->ptr[c->blocks] = p;
    c->size[c->blocks] = size;
    c->blocks++;
    return p;
}

static void count_free(void* p, size_t size, void* user) {
    counter* c = user;
    for (int i = 0; i < c->blocks; ++i) {
        if (c->ptr[i] != p) continue;
        if (c->size[i] != size) c->bad_free++;
        c->live_bytes -= (long long)c->size[i];
        c->frees++;
        c->blocks--;
        c->ptr[i] = c->ptr[c->blocks];
        c->size[i] = c->size[c->blocks];
        free(p);
        return;
    }
    c->bad_free++;
}

static crowd_world_def counted_def(counter* c, int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.alloc = count_alloc;
    wd.free = count_free;
    wd.alloc_user = c;
    wd.threads = threads;
    wd.capacity = 4;
    wd.world_tag = 7;
    return wd;
}

static crowd_agent_def agent_at(scene_rng* rng, float half) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
    a.velocity = (crowd_vec2){scene_rng_float(rng, -1, 1), scene_rng_float(rng, -1, 1)};
    a.goal.mode = (crowd_goal_mode)(scene_rng_next(rng) % CROWD_GOAL_MODE_COUNT);
    a.goal.target = (crowd_vec2){scene_rng_float(rng, -half, half), 0.0f};
    return a;
}

static void check_balanced(const counter* c) {
    cr_assert_eq(c->allocs, c->frees, "allocations %ld, frees %ld", c->allocs, c->frees);
    cr_assert_eq(c->live_bytes, 0, "%lld bytes never freed", c->live_bytes);
    cr_assert_eq(c->blocks, 0);
    cr_assert_eq(c->bad_free, 0, "frees of unknown pointers or with the wrong size");
    cr_assert_eq(c->bad_align, 0, "bad alignment requested or returned");
}

static void no_allocation_in_steps(int threads) {
    enum { N = 3000 };
    counter c = {.fail_after = -1};
    crowd_world_def wd = counted_def(&c, threads);
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    cr_assert_eq(crowd_world_reserve(w, N), CROWD_OK);
    const long after_reserve = c.allocs, frees_after_reserve = c.frees;
    cr_assert_gt(after_reserve, 0);

    scene_rng rng = {42};
    static crowd_agent_id ids[N];
    for (int i = 0; i < N; ++i) {
        crowd_agent_def a = agent_at(&rng, 30.0f);
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(c.allocs, after_reserve, "adding within the reserve allocated");

    for (int t = 0; t < 60; ++t) {
        // Churn between steps within the reserve: remove, re-add, teleport, retarget.
        for (int k = 0; k < 20; ++k) {
            int i = (int)(scene_rng_next(&rng) % N);
            crowd_agent_def a = agent_at(&rng, 30.0f);
            cr_assert_eq(crowd_agent_remove(w, ids[i]), CROWD_OK);
            cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
            cr_assert_eq(crowd_agent_set_position(w, ids[(i + 1) % N], a.position), CROWD_OK);
            cr_assert_eq(crowd_agent_set_goal(w, ids[(i + 2) % N], &a.goal), CROWD_OK);
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
    }
    cr_assert_eq(c.allocs, after_reserve, "%ld allocations after the reserve",
                 c.allocs - after_reserve);
    cr_assert_eq(c.frees, frees_after_reserve);

    // The counter does see growth: one agent past the reserve allocates.
    crowd_agent_def a = crowd_agent_def_default();
    crowd_agent_id extra;
    cr_assert_eq(crowd_agent_add(w, &a, &extra), CROWD_OK);
    cr_assert_gt(c.allocs, after_reserve);

    crowd_world_destroy(w);
    check_balanced(&c);
}

Test(memory, step_allocates_nothing_one_thread) {
    no_allocation_in_steps(1);
}

Test(memory, step_allocates_nothing_two_threads) {
    no_allocation_in_steps(2);
}

// Every allocation the library makes, failed one at a time: the call reports out of memory, the
// world is left as it was (same agents, same state hash, still steps) and nothing leaks.
// The world's snapshot, in memory the C library allocates (not the counted allocator).
static unsigned char* snapshot_of(const crowd_world* w, size_t* size) {
    *size = crowd_world_save_size(w);
    unsigned char* buf = malloc(*size);
    size_t written;
    cr_assert_eq(crowd_world_save(w, buf, *size, &written), CROWD_OK);
    return buf;
}

Test(memory, every_failed_allocation_is_clean) {
    for (long fail = 0;; ++fail) {
        counter c = {.fail_after = -1};
        crowd_world_def wd = counted_def(&c, 2);
        c.fail_after = fail;
        crowd_world* w = (crowd_world*)&c; // must be reset to NULL on failure
        crowd_status st = crowd_world_create(&wd, &w);
        if (st != CROWD_OK) {
            cr_assert_eq(st, CROWD_ERR_OUT_OF_MEMORY);
            cr_assert_null(w);
            check_balanced(&c);
            continue;
        }
        // Growing by adding, reserving and changing the thread count may each fail.
        scene_rng rng = {fail};
        bool failed = false;
        for (int i = 0; i < 40 && !failed; ++i) {
            const uint64_t before = crowd_world_state_hash(w);
            const int count = crowd_world_agent_count(w);
            // Byte for byte, capacity included: the snapshot records the storage capacity.
            size_t snap_size;
            unsigned char* snap = snapshot_of(w, &snap_size);
            crowd_agent_def a = agent_at(&rng, 5.0f);
            a.user_data = i >= 10 ? (uint64_t)i : 0; // the first one other than 0 allocates
            crowd_agent_id id;
            if (i == 20) {
                st = crowd_world_reserve(w, 500);
            } else if (i == 30) {
                st = crowd_world_set_threads(w, 3);
                if (st != CROWD_OK) cr_assert_eq(crowd_world_get_threads(w), 2);
            } else {
                st = crowd_agent_add(w, &a, &id);
            }
            if (st != CROWD_OK) {
                cr_assert_eq(st, CROWD_ERR_OUT_OF_MEMORY);
                cr_assert_eq(crowd_world_agent_count(w), count);
                cr_assert_eq(crowd_world_state_hash(w), before);
                size_t after_size;
                unsigned char* after = snapshot_of(w, &after_size);
                cr_assert(after_size == snap_size && memcmp(after, snap, snap_size) == 0,
                          "failed call %d changed the snapshot", i);
                free(after);
                failed = true;
            }
            free(snap);
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
        }
        crowd_world_destroy(w);
        check_balanced(&c);
        if (!failed) break; // every allocation of the sequence has been failed once
    }
}

// user_data costs nothing until an agent gets one other than 0: then one 8-byte entry per index
// of capacity, and every value (the zeros before it included) reads back, after growth and
// through a snapshot.
Test(memory, user_data_is_allocated_with_the_first_value) {
    enum { N = 300 };
    counter c = {.fail_after = -1};
    crowd_world_def wd = counted_def(&c, 1);
    wd.capacity = 256;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng rng = {3};
    static crowd_agent_id ids[N];
    for (int i = 0; i < 100; ++i) {
        crowd_agent_def a = agent_at(&rng, 20.0f);
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    const long long before = c.live_bytes;
    crowd_agent_def a = agent_at(&rng, 20.0f);
    a.user_data = 0x123456789abcull;
    cr_assert_eq(crowd_agent_add(w, &a, &ids[100]), CROWD_OK);
    cr_assert_eq(c.live_bytes - before, 8 * 256, "one entry per index of capacity");
    for (int i = 101; i < N; ++i) { // past the capacity: the array grows with the storage
        crowd_agent_def b = agent_at(&rng, 20.0f);
        b.user_data = (uint64_t)i * 1000003u;
        cr_assert_eq(crowd_agent_add(w, &b, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    size_t size;
    unsigned char* snap = snapshot_of(w, &size);
    crowd_world* loaded;
    const crowd_load_def ld = crowd_load_def_default();
    cr_assert_eq(crowd_world_load(snap, size, &ld, &loaded), CROWD_OK);
    free(snap);
    for (int i = 0; i < N; ++i) {
        const uint64_t want = i < 100 ? 0 : i == 100 ? 0x123456789abcull : (uint64_t)i * 1000003u;
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
        cr_assert_eq(d.user_data, want, "agent %d", i);
        crowd_agent_id id = ids[i];
        id.world = 7;
        cr_assert_eq(crowd_agent_get_def(loaded, id, &d), CROWD_OK);
        cr_assert_eq(d.user_data, want, "agent %d after a load", i);
    }
    crowd_world_destroy(loaded);
    crowd_world_destroy(w);
    check_balanced(&c);
}
