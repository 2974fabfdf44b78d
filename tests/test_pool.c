// Record pools (src/core/pool.c): numbering and reuse, zeroed records, growth that keeps records
// and the aux list, the bound by the world's capacity, and failed growth that changes nothing.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors/follow/follow_internal.h"
#include "behaviors/goal/goal_internal.h"

// An allocator that can be told to fail, counting live blocks and bytes.
typedef struct counter {
    long fail_after; // allocations that still succeed; -1 = all
    long blocks;
    size_t bytes;
} counter;

static void* counted_alloc(size_t size, size_t align, void* user) {
    counter* c = user;
    if (c->fail_after == 0) return NULL;
    if (c->fail_after > 0) c->fail_after--;
    void* p = aligned_alloc(align, (size + align - 1) / align * align);
    cr_assert_not_null(p);
    c->blocks++;
    c->bytes += size;
    return p;
}

static void counted_free(void* p, size_t size, void* user) {
    counter* c = user;
    c->blocks--;
    c->bytes -= size;
    free(p);
}

static crowd_world* make_world(counter* c, int capacity) {
    *c = (counter){.fail_after = -1};
    crowd_world_def wd = crowd_world_def_default();
    wd.capacity = capacity;
    wd.threads = 1;
    wd.alloc = counted_alloc;
    wd.free = counted_free;
    wd.alloc_user = c;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

typedef struct rec {
    uint32_t a, b, c;
} rec;

// Record k holds {k, 2k, 3k} so its survival through growth can be checked.
static void fill(cs_pool* p, int32_t r, uint32_t k) {
    *(rec*)cs_pool_at(p, r) = (rec){k, 2 * k, 3 * k};
}

static void expect_rec(const cs_pool* p, int32_t r, uint32_t k) {
    const rec* x = cs_pool_at(p, r);
    cr_assert(x->a == k && x->b == 2 * k && x->c == 3 * k, "record %d lost its contents", r);
}

Test(pool, numbers_records_and_reuses_the_last_released_first) {
    counter c;
    crowd_world* w = make_world(&c, 1000);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), 0);
    cr_assert_eq(cs_pool_reserve(w, &p, 5), CROWD_OK);
    for (int32_t k = 0; k < 5; ++k) {
        const int32_t r = cs_pool_acquire(&p);
        cr_assert_eq(r, k, "fresh records are numbered in order");
        fill(&p, r, (uint32_t)k + 1);
    }
    cr_assert_eq(p.live, 5);
    cs_pool_release(&p, 1);
    cs_pool_release(&p, 3);
    cr_assert_eq(p.live, 3);
    cr_assert_eq(cs_pool_acquire(&p), 3, "last released first");
    const rec* x = cs_pool_at(&p, 1);
    const int32_t again = cs_pool_acquire(&p);
    cr_assert_eq(again, 1);
    cr_assert(x->a == 0 && x->b == 0 && x->c == 0, "an acquired record is zeroed");
    cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
    cr_assert_eq(cs_pool_acquire(&p), 5, "then the next fresh one");
    expect_rec(&p, 0, 1);
    expect_rec(&p, 2, 3);
    expect_rec(&p, 4, 5);
    cs_pool_free(w, &p);
    cr_assert_eq(p.capacity, 0);
    crowd_world_destroy(w);
    cr_assert_eq(c.blocks, 0);
}

Test(pool, growth_keeps_records_and_the_aux_list) {
    counter c;
    crowd_world* w = make_world(&c, 100000);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), sizeof(uint32_t));
    enum { N = 5000 };
    static uint32_t expect[N];
    static bool in_use[N];
    int32_t live = 0;
    for (uint32_t k = 0; k < N; ++k) {
        cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
        const int32_t r = cs_pool_acquire(&p);
        fill(&p, r, k + 1);
        expect[r] = k + 1;
        in_use[r] = true;
        *(uint32_t*)cs_pool_aux_at(&p, live++) = k ^ 0xabcdu;
        cr_assert_geq(p.capacity, p.live);
        if (k % 7 == 3) {
            cs_pool_release(&p, r); // reused by the next acquire
            in_use[r] = false;
            live--;
        }
    }
    cr_assert_eq(p.live, live);
    for (int32_t r = 0; r < p.used; ++r)
        if (in_use[r]) expect_rec(&p, r, expect[r]);
    for (int32_t i = 0, k = 0; i < live; ++k) {
        if (k % 7 == 3) continue;
        cr_assert_eq(*(const uint32_t*)cs_pool_aux_at(&p, i), (uint32_t)k ^ 0xabcdu,
                     "aux element %d", i);
        ++i;
    }
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
    cr_assert_eq(c.blocks, 0);
}

Test(pool, growth_stops_at_the_world_capacity_unless_more_is_asked) {
    counter c;
    crowd_world* w = make_world(&c, 40);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), 0);
    cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
    cr_assert_eq(p.capacity, 16, "a first growth makes room for a few");
    int want = 16;
    while (p.capacity < 40) {
        while (p.live < p.capacity) cs_pool_acquire(&p);
        cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
        want = want + want / 4 < 40 ? want + want / 4 : 40;
        cr_assert_eq(p.capacity, want, "then a quarter more, never past one record per index");
    }
    while (p.live < p.capacity) cs_pool_acquire(&p);
    cr_assert_eq(cs_pool_reserve(w, &p, 20), CROWD_OK);
    cr_assert_eq(p.capacity, 60, "unless asked for more");
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
}

// Aux elements are aligned for any type whatever the record size: 4-byte records (the queue's)
// with 8-byte aux elements, through every small capacity and into pages.
Test(pool, aux_elements_are_aligned) {
    counter c;
    crowd_world* w = make_world(&c, 5000);
    cs_pool p;
    cs_pool_init(&p, sizeof(uint32_t), sizeof(uint64_t));
    for (int k = 0; k < 3000; ++k) {
        cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
        cs_pool_acquire(&p);
        for (int32_t i = 0; i < p.capacity; i += i < 64 ? 1 : 61) {
            cr_assert_eq((uintptr_t)cs_pool_aux_at(&p, i) % sizeof(uint64_t), 0,
                         "capacity %d: aux element %d misaligned", p.capacity, i);
            *(uint64_t*)cs_pool_aux_at(&p, i) = (uint64_t)i;
        }
    }
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
}

Test(pool, failed_growth_changes_nothing) {
    counter c;
    crowd_world* w = make_world(&c, 1000);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), sizeof(uint64_t));
    cr_assert_eq(cs_pool_reserve(w, &p, 16), CROWD_OK);
    for (uint32_t k = 0; k < 16; ++k) {
        fill(&p, cs_pool_acquire(&p), k + 7);
        *(uint64_t*)cs_pool_aux_at(&p, (int32_t)k) = k * 31u;
    }
    cs_pool_release(&p, 9);
    cs_pool_acquire(&p); // full again, free list empty
    fill(&p, 9, 9 + 7);
    // The growth makes one allocation: a block that holds the records and the aux elements (the
    // page table has room). It fails.
    for (long fail = 0; fail < 1; ++fail) {
        const cs_pool before = p;
        const long blocks = c.blocks;
        const size_t bytes = c.bytes;
        c.fail_after = fail;
        cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_ERR_OUT_OF_MEMORY);
        c.fail_after = -1;
        cr_assert_eq(memcmp(&p, &before, sizeof p), 0, "the pool changed");
        cr_assert_eq(c.blocks, blocks, "a failed growth kept or freed a block");
        cr_assert_eq(c.bytes, bytes);
        for (uint32_t k = 0; k < 16; ++k) {
            expect_rec(&p, (int32_t)k, k + 7);
            cr_assert_eq(*(const uint64_t*)cs_pool_aux_at(&p, (int32_t)k), k * 31u);
        }
    }
    cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
    cr_assert_gt(p.capacity, 16);
    for (uint32_t k = 0; k < 16; ++k) expect_rec(&p, (int32_t)k, k + 7);
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
    cr_assert_eq(c.blocks, 0);
}

// The layout's scratch room is several buffers, each holding whole records, one too small for
// any: records land in them in slot order and come back unchanged, numbered 0 .. live - 1 in slot
// order, wherever the slots are split between three threads (the first numbering from 0, the
// second after the first's count, the last from the end down).
Test(pool, layout_spans_the_scratch_buffers) {
    enum { N = 50 };
    counter c;
    crowd_world* w = make_world(&c, N);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), 0);
    cr_assert_eq(cs_pool_reserve(w, &p, N), CROWD_OK);
    int32_t rec_of[N];
    int32_t live = 0;
    for (uint32_t k = 0; k < N; ++k) {
        rec_of[k] = -1;
        if (k % 4 == 0) continue; // agents without a record
        rec_of[k] = cs_pool_acquire(&p);
        fill(&p, rec_of[k], k);
        live++;
    }
    unsigned char b0[5 * sizeof(rec)], b1[sizeof(rec) - 4], b2[7 * sizeof(rec)],
        b3[40 * sizeof(rec)];
    const cs_scratch x = {
        .buf = {b0, b1, b2, b3}, .first = {0, 5, 5, 12, 52}, .count = 4, .size = sizeof(rec)};
    uint32_t id[N];
    for (int split = 0; split <= N; split += 7)
        for (int mid = split; mid <= N; mid += 9) {
            for (int s = 0; s < N; ++s) id[s] = (uint32_t)(s * 17 + split * 3 + mid) % N;
            const int32_t k0 = cs_pool_count_slots(rec_of, id, 0, split);
            cr_assert_eq(cs_pool_move_slots(&p, &x, rec_of, id, 0, split, 0), k0);
            const int32_t k1 = cs_pool_move_slots(&p, &x, rec_of, id, split, mid, k0);
            const int32_t k2 = cs_pool_move_slots_back(&p, &x, rec_of, id, mid, N, live - 1);
            cr_assert_eq(k0 + k1 + k2, live);
            cs_pool_copy_back(&p, &x, 0, k0);
            cs_pool_copy_back(&p, &x, live - k2, live);
            cs_pool_copy_back(&p, &x, k0, k0 + k1);
            cs_pool_settle(&p);
            int32_t next = 0;
            for (int s = 0; s < N; ++s) {
                const uint32_t idx = id[s];
                if (idx % 4 == 0) {
                    cr_assert_eq(rec_of[idx], -1);
                    continue;
                }
                cr_assert_eq(rec_of[idx], next, "split %d/%d, slot %d: records in slot order",
                             split, mid, s);
                expect_rec(&p, next++, idx);
            }
            cr_assert_eq(next, live);
        }
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
}

// Every CS_RECORD_PERIOD ticks the sort phase lays every pool a pass reads every tick out again in
// slot order (the pool of kind k on ticks that are k modulo the period): here the followers'.
// Records keep their contents and their agents at every tick; after a layout the numbers run
// 0 .. live - 1 in slot order; the free list still serves later acquisitions and releases (agents
// that start following and are removed between steps).
static void expect_follower_layout(const crowd_world* w, const crowd_follow_def* want,
                                   const bool* has, bool laid_out) {
    int32_t next = 0;
    for (int s = 0; s < w->count; ++s) {
        const uint32_t idx = w->cur.id[s];
        const int32_t r = w->rec_of[CS_REC_FOLLOWER][idx];
        cr_assert_eq(r >= 0, has[idx], "agent %u: record present as set", idx);
        if (r < 0) continue;
        if (laid_out) cr_assert_eq(r, next, "slot %d: records in slot order", s);
        ++next;
        const cs_follower* f = cs_pool_at(&w->pools[CS_REC_FOLLOWER], r);
        cr_assert(f->weight == want[idx].weight && f->behind_dist == want[idx].behind_dist,
                  "agent %u: follower record contents kept", idx);
    }
    cr_assert_eq(next, w->pools[CS_REC_FOLLOWER].live);
}

Test(pool, records_follow_their_agents_into_slot_order) {
    enum { N = 400 };
    counter c;
    crowd_world* w = make_world(&c, N);
    crowd_agent_id ids[N];
    crowd_follow_def want[N];
    bool has[N] = {false}, alive[N];
    for (int i = 0; i < N; ++i) {
        alive[i] = true;
        crowd_agent_def a = crowd_agent_def_default();
        // Scattered so that slot order differs from index order.
        a.position = (crowd_vec2){(float)((i * 37) % 101) * 1.7f, (float)((i * 53) % 89) * 1.3f};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    // Agent 0 leads; every third other agent follows it with settings of its own.
    for (int i = 0; i < N; ++i) {
        want[i] = crowd_follow_def_default();
        want[i].weight = 1.5f + (float)i / (float)N;
        if (i == 0 || i % 3 != 0) continue;
        cr_assert_eq(crowd_agent_follow(w, ids[i], ids[0], &want[i]), CROWD_OK);
        has[i] = true;
    }
    int layouts = 0;
    for (int round = 0; round < 4 * CS_RECORD_PERIOD; ++round) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        // The step's sort ran at tick crowd_world_tick - 1.
        const bool laid_out =
            (crowd_world_tick(w) - 1) % CS_RECORD_PERIOD == CS_REC_FOLLOWER % CS_RECORD_PERIOD;
        layouts += laid_out;
        expect_follower_layout(w, want, has, laid_out);
        // Between steps: new followers, removals of others, through the free list.
        for (int i = round; i < N; i += 7) {
            if (!alive[i] || i == 0) continue;
            if (round % 2 == 0 && !has[i]) {
                want[i].behind_dist = 2.0f + (float)round / 8.0f;
                cr_assert_eq(crowd_agent_follow(w, ids[i], ids[0], &want[i]), CROWD_OK);
                has[i] = true;
            } else if (round % 2 == 1 && has[i]) {
                cr_assert_eq(crowd_agent_remove(w, ids[i]), CROWD_OK);
                has[i] = alive[i] = false;
            }
        }
    }
    cr_assert_geq(layouts, 4);
    crowd_world_destroy(w);
}

// From a page of records on, a pool grows by whole pages and copies nothing: records and aux
// elements keep their addresses, the unused room stays within a page, a failed growth changes
// nothing, and a layout copies records back across page boundaries.
Test(pool, paged_growth_moves_no_record) {
    enum { N = 5 * CS_POOL_PAGE + 77 };
    counter c;
    crowd_world* w = make_world(&c, N);
    cs_pool p;
    cs_pool_init(&p, sizeof(rec), sizeof(uint32_t));
    static const void *at[N], *aux_at[N];
    static int32_t rec_of[N];
    static uint32_t id[N];
    for (uint32_t k = 0; k < N; ++k) {
        if (k == 2 * CS_POOL_PAGE) { // a growth due now fails: nothing changes
            cr_assert_eq(p.live, p.capacity, "the pool is full");
            const cs_pool before = p;
            const long blocks = c.blocks;
            c.fail_after = 0;
            cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_ERR_OUT_OF_MEMORY);
            c.fail_after = -1;
            cr_assert_eq(memcmp(&p, &before, sizeof p), 0, "the pool changed");
            cr_assert_eq(c.blocks, blocks);
        }
        const bool small = p.capacity < CS_POOL_PAGE; // copied into its first page when it grows
        cr_assert_eq(cs_pool_reserve(w, &p, 1), CROWD_OK);
        const int32_t r = cs_pool_acquire(&p);
        fill(&p, r, k);
        *(uint32_t*)cs_pool_aux_at(&p, r) = k * 5u;
        rec_of[k] = r;
        for (int32_t q = small ? 0 : r; q <= r; ++q) {
            at[q] = cs_pool_at(&p, q);
            aux_at[q] = cs_pool_aux_at(&p, q);
        }
        if (!small)
            for (int32_t q = 0; q <= r; q += 97) {
                cr_assert_eq(cs_pool_at(&p, q), at[q], "record %d moved", q);
                cr_assert_eq(cs_pool_aux_at(&p, q), aux_at[q], "aux element %d moved", q);
            }
        cr_assert_lt(p.capacity, p.live + CS_POOL_PAGE, "unused room");
    }
    for (uint32_t k = 0; k < N; ++k)
        cr_assert_eq(*(const uint32_t*)cs_pool_aux_at(&p, (int32_t)k), k * 5u, "aux %u", k);
    // Reverse order through one scratch buffer and back: every record crosses pages.
    unsigned char* buf = malloc(sizeof(rec) * N);
    const cs_scratch x = {.buf = {buf}, .first = {0, N}, .count = 1, .size = sizeof(rec)};
    for (int s = 0; s < N; ++s) id[s] = (uint32_t)(N - 1 - s);
    cr_assert_eq(cs_pool_move_slots(&p, &x, rec_of, id, 0, N, 0), N);
    cs_pool_copy_back(&p, &x, 0, 3 * CS_POOL_PAGE + 5);
    cs_pool_copy_back(&p, &x, 3 * CS_POOL_PAGE + 5, N);
    cs_pool_settle(&p);
    for (int s = 0; s < N; ++s) {
        cr_assert_eq(rec_of[id[s]], s);
        expect_rec(&p, s, id[s]);
    }
    free(buf);
    cs_pool_free(w, &p);
    crowd_world_destroy(w);
    cr_assert_eq(c.blocks, 0);
}

// A record kind's per-index record numbers exist from its first reservation on: a world whose
// agents never had a behavior holds none (and removes, describes and saves its agents all the
// same); a failed first reservation leaves none and no byte more; the first wall def other than
// follower brings them, with no record for every other agent.
Test(pool, record_numbers_exist_from_the_first_reservation) {
    counter c;
    crowd_world* w = make_world(&c, 64);
    crowd_agent_def def = crowd_agent_def_default();
    crowd_agent_id ids[40];
    for (int i = 0; i < 40; ++i) {
        def.position = (crowd_vec2){(float)i, 0.0f};
        cr_assert_eq(crowd_agent_add(w, &def, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    for (int k = 0; k < CS_REC_COUNT; ++k) cr_assert_null(w->rec_of[k], "kind %d", k);
    crowd_agent_def got;
    cr_assert_eq(crowd_agent_get_def(w, ids[3], &got), CROWD_OK);
    cr_assert_eq(got.goal.mode, crowd_goal_default().mode);
    cr_assert_eq(crowd_agent_remove(w, ids[5]), CROWD_OK);
    const size_t saved = crowd_world_save_size(w);
    void* buf = malloc(saved);
    size_t wrote = 0;
    cr_assert_eq(crowd_world_save(w, buf, saved, &wrote), CROWD_OK);
    crowd_world* loaded;
    cr_assert_eq(crowd_world_load(buf, wrote, NULL, &loaded), CROWD_OK);
    for (int k = 0; k < CS_REC_COUNT; ++k) cr_assert_null(loaded->rec_of[k], "loaded kind %d", k);
    crowd_world_destroy(loaded);
    free(buf);

    const crowd_follow_def fd = crowd_follow_def_default();
    const size_t bytes = c.bytes;
    const long blocks = c.blocks;
    c.fail_after = 0;
    cr_assert_eq(crowd_agent_follow(w, ids[7], ids[8], &fd), CROWD_ERR_OUT_OF_MEMORY);
    c.fail_after = -1;
    cr_assert_null(w->rec_of[CS_REC_FOLLOWER]);
    cr_assert_eq(c.bytes, bytes);
    cr_assert_eq(c.blocks, blocks);

    cr_assert_eq(crowd_agent_follow(w, ids[7], ids[8], &fd), CROWD_OK);
    cr_assert_not_null(w->rec_of[CS_REC_FOLLOWER]);
    cr_assert_gt(c.bytes, bytes);
    for (int i = 0; i < 40; ++i)
        if (i != 5)
            cr_assert_eq(cs_rec_num(w, CS_REC_FOLLOWER, ids[i].index1 - 1) >= 0, i == 7, "agent %d",
                         i);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_null(w->rec_of[CS_REC_QUEUE]);

    crowd_world_destroy(w);
    cr_assert_eq(c.blocks, 0);
    cr_assert_eq(c.bytes, 0);
}
