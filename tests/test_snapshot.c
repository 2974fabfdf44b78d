// Snapshots: a loaded world continues bit-identically, handles survive, the two save paths agree,
// and damaged input of every kind is refused with its own status, creating nothing.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counting_alloc.h"
#include "crowd/crowd.h"
#include "scenes.h"
#include "snapshot/snapshot_internal.h"

static int scaled(int n) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && s[0] == 's' ? n / 4 : n;
}

// ---- helpers ------------------------------------------------------------------------------------

static crowd_load_def counted(counter* c) {
    crowd_load_def d = crowd_load_def_default();
    d.alloc = count_alloc;
    d.free = count_free;
    d.alloc_user = c;
    return d;
}

typedef struct bytes {
    uint8_t* p;
    size_t n;
} bytes;

static bytes save(const crowd_world* w) {
    size_t n = 0;
    cr_assert_eq(crowd_world_save(w, NULL, 0, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, crowd_world_save_size(w));
    bytes b = {malloc(n), n};
    size_t written = 0;
    cr_assert_eq(crowd_world_save(w, b.p, n, &written), CROWD_OK);
    cr_assert_eq(written, n);
    return b;
}

// A world with history: mixed goals, removals (so the free list and generations matter),
// re-additions and teleports, stepped a while.
static crowd_world* busy_world(int agents, int threads, uint64_t seed) {
    scene_def def = scene_def_default();
    def.kind = SCENE_MIXED;
    def.agents = agents;
    def.seed = seed;
    def.threads = threads;
    crowd_world* w;
    cr_assert_eq(scene_create(&def, &w), CROWD_OK);
    const int n = crowd_world_agent_count(w);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    int got;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, n, &got), CROWD_OK);
    scene_rng rng = {seed * 7 + 1};
    for (int t = 0; t < 30; ++t) {
        const int i = (int)(scene_rng_next(&rng) % (uint64_t)n);
        crowd_status st = crowd_agent_remove(w, ids[i]);
        cr_assert(st == CROWD_OK || st == CROWD_ERR_STALE_HANDLE);
        if (t % 3 == 0) {
            crowd_agent_def a = crowd_agent_def_default();
            a.position = (crowd_vec2){scene_rng_float(&rng, -10, 10), 0.0f};
            a.goal.mode = CROWD_GOAL_ARRIVE;
            a.user_data = (uint64_t)t << 40 | 0x1234;
            cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
    }
    free(ids);
    return w;
}

// Recomputes the total length and the checksum after a deliberate edit, so the loader's checks
// behind the checksum are reached.
static void reseal(bytes* b) {
    for (int i = 0; i < 8; ++i) b->p[16 + i] = (uint8_t)((uint64_t)b->n >> (8 * i));
    uint64_t sum = cs_crc64(b->p, b->n - 8);
    for (int i = 0; i < 8; ++i) b->p[b->n - 8 + i] = (uint8_t)(sum >> (8 * i));
}

static uint64_t rd(const uint8_t* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void wr(uint8_t* p, int bytes, uint64_t v) {
    for (int i = 0; i < bytes; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

// Section table entries of the current format, in file order.
enum { S_WRLD, S_INDX, S_EXIT, S_AGNT, S_NAVF, S_GOAL, S_QUEU, S_PATH, S_FLLW, S_WALL, S_COUNT };

// Offset of section k's payload, read from the section table.
static size_t section(const bytes* b, int k) {
    return (size_t)rd(b->p + 24 + 24 * k + 8, 8);
}

// Loads through a counting allocator and checks that a failed load leaves nothing behind.
static crowd_status try_load(const bytes* b) {
    counter c = {0};
    crowd_load_def d = counted(&c);
    crowd_world* w = (crowd_world*)&c;
    crowd_status st = crowd_world_load(b->p, b->n, &d, &w);
    if (st != CROWD_OK) {
        cr_assert_null(w);
        cr_assert_eq(c.allocs, c.frees);
        cr_assert_eq(c.live, 0);
    } else {
        crowd_world_destroy(w);
    }
    return st;
}

static bytes copy(const bytes* b, size_t n) {
    bytes c = {malloc(n ? n : 1), n};
    memcpy(c.p, b->p, n < b->n ? n : b->n);
    if (n > b->n) memset(c.p + b->n, 0, n - b->n);
    return c;
}

// ---- continuation -------------------------------------------------------------------------------

Test(snapshot, crc64_check_value) {
    cr_assert_eq(cs_crc64("123456789", 9), 0x995dc9bbdf1939faull);
    cr_assert_eq(cs_crc64("", 0), 0);
}

// The stable sort of the next step starts from the saved slot order, which the state hash (taken
// in handle order) does not see: a snapshot that stored the agents in handle order instead fails
// this test within the 1,000 ticks.
Test(snapshot, loaded_world_continues_bit_identically) {
    crowd_world* a = busy_world(scaled(2000), 2, 11);
    bytes b = save(a);
    counter c = {0};
    crowd_load_def d = counted(&c);
    d.threads = 1; // thread count does not change results, so the copy may differ in it
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_OK);
    cr_assert_gt(c.allocs, 0, "the loaded world uses the given allocator");
    cr_assert_eq(crowd_world_get_threads(l), 1);
    cr_assert_eq(crowd_world_tick(l), crowd_world_tick(a));
    cr_assert_eq(crowd_world_agent_count(l), crowd_world_agent_count(a));
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a));
    for (int t = 1; t <= 1000; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(l), CROWD_OK);
        if (t % 100 == 0)
            cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a), "tick %d", t);
    }
    cr_assert_eq(crowd_world_tick(l), crowd_world_tick(a));
    crowd_world_destroy(l);
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
    crowd_world_destroy(a);
    free(b.p);
}

// One encoding per world: saving a loaded world gives back the very same bytes, slot order,
// free list and all.
Test(snapshot, save_of_loaded_world_is_identical) {
    crowd_world* a = busy_world(scaled(800), 1, 5);
    bytes b = save(a);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &l), CROWD_OK);
    bytes again = save(l);
    cr_assert_eq(again.n, b.n);
    cr_assert_eq(memcmp(again.p, b.p, b.n), 0, "save(load(x)) == x");
    crowd_world_destroy(l);
    free(again.p);
    free(b.p);
    crowd_world_destroy(a);
}

Test(snapshot, handles_survive) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1; // tag derived from the address: the copy keeps it all the same
    crowd_world* a;
    cr_assert_eq(crowd_world_create(&wd, &a), CROWD_OK);
    crowd_agent_id ids[6];
    crowd_agent_def def = crowd_agent_def_default();
    for (int i = 0; i < 6; ++i) {
        def.position = (crowd_vec2){(float)i, 0.0f};
        def.user_data = 100 + (uint64_t)i;
        cr_assert_eq(crowd_agent_add(a, &def, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(crowd_agent_remove(a, ids[1]), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(a, ids[4]), CROWD_OK);
    crowd_agent_id readded;
    cr_assert_eq(crowd_agent_add(a, &def, &readded), CROWD_OK); // reuses index of ids[4]
    cr_assert_eq(crowd_world_step(a), CROWD_OK);
    bytes b = save(a);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &l), CROWD_OK);

    crowd_agent_id live[] = {ids[0], ids[2], ids[3], ids[5], readded};
    for (size_t i = 0; i < sizeof live / sizeof live[0]; ++i) {
        crowd_agent_def x, y;
        cr_assert_eq(crowd_agent_get_def(a, live[i], &x), CROWD_OK);
        cr_assert_eq(crowd_agent_get_def(l, live[i], &y), CROWD_OK);
        cr_assert_eq(memcmp(&x, &y, sizeof x), 0, "agent %zu differs", i);
    }
    cr_assert_eq(crowd_agent_validate(l, ids[1]), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_validate(l, ids[4]), CROWD_ERR_STALE_HANDLE);
    // The next handle issued is the same in both: free list and generations were kept.
    crowd_agent_id na, nl;
    cr_assert_eq(crowd_agent_add(a, &def, &na), CROWD_OK);
    cr_assert_eq(crowd_agent_add(l, &def, &nl), CROWD_OK);
    cr_assert(crowd_agent_id_equal(na, nl));
    cr_assert_eq(na.index1, ids[1].index1);
    cr_assert_neq(na.generation, ids[1].generation);
    crowd_world_destroy(l);
    crowd_world_destroy(a);
    free(b.p);
}

// A long free list (its order is written bottom first from a stack linked top down): the loaded
// world hands out the same handles in the same order, every one of them, and saves back to the
// same bytes.
Test(snapshot, long_free_list_keeps_its_order) {
    enum { N = 2000, REMOVED = 1001 };
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* a;
    cr_assert_eq(crowd_world_create(&wd, &a), CROWD_OK);
    static crowd_agent_id ids[N];
    crowd_agent_def def = crowd_agent_def_default();
    for (int i = 0; i < N; ++i) {
        def.position = (crowd_vec2){(float)(i % 50), (float)(i / 50)};
        cr_assert_eq(crowd_agent_add(a, &def, &ids[i]), CROWD_OK);
    }
    for (int k = 0; k < REMOVED; ++k) // 7 is prime to N: each agent once, scrambled
        cr_assert_eq(crowd_agent_remove(a, ids[(k * 7 + 3) % N]), CROWD_OK);
    cr_assert_eq(crowd_world_step(a), CROWD_OK);
    bytes b = save(a);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &l), CROWD_OK);
    bytes again = save(l);
    cr_assert_eq(again.n, b.n);
    cr_assert_eq(memcmp(again.p, b.p, b.n), 0, "the loaded world saves to other bytes");
    for (int k = 0; k <= REMOVED; ++k) { // one past the free list: a new index in both
        crowd_agent_id na, nl;
        cr_assert_eq(crowd_agent_add(a, &def, &na), CROWD_OK);
        cr_assert_eq(crowd_agent_add(l, &def, &nl), CROWD_OK);
        cr_assert(crowd_agent_id_equal(na, nl), "re-addition %d: handles differ", k);
        if (k < REMOVED) // the last removed index is reused first
            cr_assert_eq(na.index1, ids[((REMOVED - 1 - k) * 7 + 3) % N].index1);
    }
    crowd_world_destroy(l);
    crowd_world_destroy(a);
    free(again.p);
    free(b.p);
}

Test(snapshot, empty_world_round_trips) {
    crowd_world_def wd = crowd_world_def_default();
    wd.capacity = 0;
    crowd_world* a;
    cr_assert_eq(crowd_world_create(&wd, &a), CROWD_OK);
    bytes b = save(a);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &l), CROWD_OK);
    cr_assert_eq(crowd_world_agent_count(l), 0);
    cr_assert_eq(crowd_world_step(l), CROWD_OK);
    crowd_world_destroy(l);
    crowd_world_destroy(a);
    free(b.p);
}

// ---- the two save paths -------------------------------------------------------------------------

typedef struct sink {
    uint8_t* p;
    size_t n, cap;
    int calls, fail_at;
} sink;

static bool sink_write(const void* data, size_t size, void* user) {
    sink* s = user;
    if (s->calls++ == s->fail_at) return false;
    cr_assert_leq(s->n + size, s->cap);
    memcpy(s->p + s->n, data, size);
    s->n += size;
    return true;
}

Test(snapshot, stream_equals_buffer) {
    crowd_world* a = busy_world(scaled(1200), 1, 3);
    bytes b = save(a);
    sink s = {malloc(b.n), 0, b.n, 0, -1};
    cr_assert_eq(crowd_world_save_stream(a, sink_write, &s), CROWD_OK);
    cr_assert_gt(s.calls, 1, "a snapshot this size is written in pieces");
    cr_assert_eq(s.n, b.n);
    cr_assert_eq(memcmp(s.p, b.p, b.n), 0);
    sink f = {malloc(b.n), 0, b.n, 0, 2};
    cr_assert_eq(crowd_world_save_stream(a, sink_write, &f), CROWD_ERR_WRITE_FAILED);
    cr_assert_eq(f.calls, 3, "no write after the failed one");
    free(f.p);
    free(s.p);
    free(b.p);
    crowd_world_destroy(a);
}

Test(snapshot, small_buffer_is_left_untouched) {
    crowd_world* a = busy_world(200, 1, 9);
    const size_t need = crowd_world_save_size(a);
    uint8_t* buf = malloc(need);
    memset(buf, 0xa5, need);
    size_t size = 0;
    cr_assert_eq(crowd_world_save(a, buf, need - 1, &size), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(size, need);
    for (size_t i = 0; i < need; ++i) cr_assert_eq(buf[i], 0xa5);
    cr_assert_eq(crowd_world_save(NULL, buf, need, &size), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_save_stream(a, NULL, NULL), CROWD_ERR_NULL_ARGUMENT);
    free(buf);
    crowd_world_destroy(a);
}

// ---- damaged input ------------------------------------------------------------------------------

Test(snapshot, truncated_oversized_magic_version) {
    crowd_world* a = busy_world(40, 1, 2);
    bytes b = save(a);
    for (size_t n = 0; n < b.n; ++n) {
        bytes t = copy(&b, n);
        cr_assert_eq(try_load(&t), CROWD_ERR_SNAPSHOT_TRUNCATED, "length %zu", n);
        free(t.p);
    }
    bytes o = copy(&b, b.n + 1);
    cr_assert_eq(try_load(&o), CROWD_ERR_SNAPSHOT_OVERSIZED);
    free(o.p);
    bytes m = copy(&b, b.n);
    m.p[0] = 'X';
    cr_assert_eq(try_load(&m), CROWD_ERR_SNAPSHOT_MAGIC);
    bytes v = copy(&b, b.n);
    wr(v.p + 8, 4, CROWD_SNAPSHOT_VERSION + 1);
    cr_assert_eq(try_load(&v), CROWD_ERR_SNAPSHOT_VERSION);
    cr_assert_eq(crowd_world_load(NULL, 0, NULL, &(crowd_world*){NULL}),
                 CROWD_ERR_SNAPSHOT_TRUNCATED);
    free(m.p);
    free(v.p);
    free(b.p);
    crowd_world_destroy(a);
}

// CRC-64 detects every single-bit error: no flipped bit anywhere may load.
Test(snapshot, every_bit_flip_is_refused) {
    crowd_world* a = busy_world(12, 1, 4);
    bytes b = save(a);
    int seen[CROWD_STATUS_COUNT] = {0};
    for (size_t i = 0; i < b.n * 8; ++i) {
        b.p[i / 8] ^= (uint8_t)(1u << (i % 8));
        crowd_status st = try_load(&b);
        b.p[i / 8] ^= (uint8_t)(1u << (i % 8));
        cr_assert_neq(st, CROWD_OK, "bit %zu", i);
        seen[st]++;
    }
    cr_assert_gt(seen[CROWD_ERR_SNAPSHOT_CHECKSUM], 0);
    cr_assert_gt(seen[CROWD_ERR_SNAPSHOT_MAGIC], 0);
    cr_assert_gt(seen[CROWD_ERR_SNAPSHOT_VERSION], 0);
    cr_assert_eq(try_load(&b), CROWD_OK);
    free(b.p);
    crowd_world_destroy(a);
}

// Each edit is resealed (valid length and checksum) so it reaches the content checks.
typedef void edit_fn(bytes* b);

static size_t agent_record(const bytes* b, int k) {
    return section(b, S_AGNT) + 4 + 100 * (size_t)k;
}

static void dup_agent_index(bytes* b) {
    memcpy(b->p + agent_record(b, 1), b->p + agent_record(b, 0), 4);
}
static void agent_index_is_free(bytes* b) {
    const size_t ix = section(b, S_INDX);
    const uint64_t index_count = rd(b->p + ix, 4);
    const uint32_t first_free = (uint32_t)rd(b->p + ix + 8 + 2 * index_count, 4);
    wr(b->p + agent_record(b, 0), 4, first_free);
}
static void agent_index_out_of_range(bytes* b) {
    wr(b->p + agent_record(b, 0), 4, rd(b->p + section(b, S_INDX), 4));
}
static void nan_position(bytes* b) {
    wr(b->p + agent_record(b, 3) + 4, 4, 0x7fc00000u);
}
static void infinite_velocity(bytes* b) {
    wr(b->p + agent_record(b, 2) + 12, 4, 0x7f800000u);
}
static void negative_max_speed(bytes* b) {
    wr(b->p + agent_record(b, 0) + 28, 4, 0xbf800000u); // -1.0f
}
static void zero_radius(bytes* b) {
    wr(b->p + agent_record(b, 0) + 52, 4, 0);
}
static void bad_goal_mode(bytes* b) {
    wr(b->p + agent_record(b, 0) + 56, 4, CROWD_GOAL_MODE_COUNT);
}
static void goal_flag_mismatch(bytes* b) {
    const size_t r = agent_record(b, 0);
    wr(b->p + r + 44, 4, rd(b->p + r + 44, 4) ^ 1u); // CS_FLAG_GOAL
}
static void unknown_flag(bytes* b) {
    const size_t r = agent_record(b, 0);
    wr(b->p + r + 44, 4, rd(b->p + r + 44, 4) | 1u << 20);
}
static void count_mismatch(bytes* b) {
    wr(b->p + section(b, S_AGNT), 4, rd(b->p + section(b, S_AGNT), 4) - 1);
}
static void free_list_duplicate(bytes* b) {
    const size_t ix = section(b, S_INDX);
    const uint64_t index_count = rd(b->p + ix, 4);
    memcpy(b->p + ix + 8 + 2 * index_count + 4, b->p + ix + 8 + 2 * index_count, 4);
}
static void index_count_beyond_capacity(bytes* b) {
    wr(b->p + section(b, S_INDX), 4, rd(b->p + section(b, S_WRLD) + 16, 4) + 1);
}
static void zero_dt(bytes* b) {
    wr(b->p + section(b, S_WRLD), 4, 0);
}
static void capacity_below_max(bytes* b) {
    wr(b->p + section(b, S_WRLD) + 12, 4,
       rd(b->p + section(b, S_WRLD) + 16, 4) - 1); // max < capacity
}
// The world section's neighbor cap (a reserved 0 before the cap existed) beyond its range.
static void neighbor_cap_too_large(bytes* b) {
    wr(b->p + section(b, S_WRLD) + 22, 2, CROWD_MAX_NEIGHBORS + 1);
}
static void table_reserved_nonzero(bytes* b) {
    wr(b->p + 24 + 24 + 4, 4, 1);
}
static void section_length_off(bytes* b) {
    wr(b->p + 24 + 24 + 16, 8, rd(b->p + 24 + 24 + 16, 8) + 2);
}
static void unknown_section_id(bytes* b) {
    memcpy(b->p + 24 + 24, "PATH", 4);
}
static void sections_swapped(bytes* b) {
    uint8_t t[4];
    memcpy(t, b->p + 24 + 24, 4);
    memcpy(b->p + 24 + 24, b->p + 24 + 48, 4);
    memcpy(b->p + 24 + 48, t, 4);
}
static void section_count_off(bytes* b) {
    wr(b->p + 12, 4, rd(b->p + 12, 4) + 1);
}

// A damaged copy of a snapshot: what the edit does and the status the loader must give.
typedef struct corruption {
    const char* name;
    edit_fn* edit;
    crowd_status want;
} corruption;

// Each edit, applied to a copy of b and resealed (length and checksum made to match), must change
// the bytes and be refused with its status.
static void expect_refused(const bytes* b, const corruption* cases, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        bytes c = copy(b, b->n);
        cases[i].edit(&c);
        cr_assert_neq(memcmp(c.p, b->p, b->n), 0, "%s: the edit changed nothing", cases[i].name);
        reseal(&c);
        const crowd_status st = try_load(&c);
        cr_assert_eq(st, cases[i].want, "%s: got '%s'", cases[i].name, crowd_status_string(st));
        free(c.p);
    }
}

Test(snapshot, inconsistent_content_is_refused) {
    const corruption cases[] = {
        {"duplicate agent index", dup_agent_index, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"agent on a free index", agent_index_is_free, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"agent index out of range", agent_index_out_of_range, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"NaN position", nan_position, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"infinite velocity", infinite_velocity, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"negative max speed", negative_max_speed, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"zero radius", zero_radius, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"goal mode out of range", bad_goal_mode, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"goal flag without goal", goal_flag_mismatch, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"unknown flag", unknown_flag, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"agent count mismatch", count_mismatch, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"free list duplicate", free_list_duplicate, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"index count beyond capacity", index_count_beyond_capacity, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"zero dt", zero_dt, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"max agents below capacity", capacity_below_max, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"neighbor cap beyond its range", neighbor_cap_too_large, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"table reserved field set", table_reserved_nonzero, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"section length off", section_length_off, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"unknown section", unknown_section_id, CROWD_ERR_SNAPSHOT_SECTION},
        {"sections out of order", sections_swapped, CROWD_ERR_SNAPSHOT_SECTION},
        {"section count off", section_count_off, CROWD_ERR_SNAPSHOT_SECTION},
    };
    crowd_world* a = busy_world(30, 1, 8);
    bytes b = save(a);
    cr_assert_gt(rd(b.p + section(&b, S_INDX) + 4, 4), 1,
                 "the world has a free list of two or more");
    expect_refused(&b, cases, sizeof cases / sizeof cases[0]);
    free(b.p);
    crowd_world_destroy(a);
}

// An index that is neither live nor free is retired, which only an index at its last
// generation can be (see crowd_agent_remove): index 0 retired after 65,536 uses loads, the same
// snapshot with its generation edited down is refused.
Test(snapshot, retired_index_only_at_its_last_generation) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* a;
    cr_assert_eq(crowd_world_create(&wd, &a), CROWD_OK);
    crowd_agent_def d = crowd_agent_def_default();
    crowd_agent_id id;
    for (int k = 0; k < 65536; ++k) {
        cr_assert_eq(crowd_agent_add(a, &d, &id), CROWD_OK);
        cr_assert_eq(crowd_agent_remove(a, id), CROWD_OK);
    }
    cr_assert_eq(crowd_agent_add(a, &d, &id), CROWD_OK);
    cr_assert_eq(id.index1, 2, "index 0 was retired");
    bytes b = save(a);
    cr_assert_eq(try_load(&b), CROWD_OK);
    const size_t ix = section(&b, S_INDX);
    cr_assert_eq(rd(b.p + ix, 4), 2);     // index_count
    cr_assert_eq(rd(b.p + ix + 4, 4), 0); // nothing free
    cr_assert_eq(rd(b.p + ix + 8, 2), 0xffff);
    wr(b.p + ix + 8, 2, 0xfffe);
    reseal(&b);
    cr_assert_eq(try_load(&b), CROWD_ERR_SNAPSHOT_CORRUPT);
    free(b.p);
    crowd_world_destroy(a);
}

Test(snapshot, world_larger_than_allowed) {
    crowd_world* a = busy_world(100, 1, 6);
    cr_assert_eq(crowd_world_reserve(a, 5000), CROWD_OK);
    bytes b = save(a);
    crowd_load_def d = crowd_load_def_default();
    d.max_capacity = 4999;
    crowd_world* l = (crowd_world*)&d;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_ERR_SNAPSHOT_TOO_LARGE);
    cr_assert_null(l);
    d.max_capacity = 5000;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_OK);
    crowd_world_destroy(l);
    d.max_capacity = 0;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_ERR_BAD_CAPACITY);
    free(b.p);
    crowd_world_destroy(a);
}

// ---- queues -------------------------------------------------------------------------------------

// A world where queues matter: half the agents queue, each policy in turn, with goals close
// enough that STOP arrivals have happened (their done flag is state), REMOVE arrivals have
// removed agents and RESPAWN arrivals have drawn from the world's random stream.
static crowd_world* queue_world(int agents, uint64_t seed) {
    crowd_world* w = busy_world(agents, 1, seed);
    const int n = crowd_world_agent_count(w);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    crowd_vec2* pos = malloc(sizeof *pos * (size_t)n);
    int got;
    cr_assert_eq(crowd_world_get_agents(w, ids, pos, NULL, n, &got), CROWD_OK);
    for (int i = 0; i < n; i += 2) {
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){pos[i].x + (float)(i % 7) * 0.4f, pos[i].y};
        q.on_arrival = (crowd_queue_policy)(i / 2 % CROWD_QUEUE_POLICY_COUNT);
        q.cone_length = 1.5f + (float)(i % 5) * 0.25f;
        q.start_min = (crowd_vec2){-12.0f, -12.0f};
        q.start_max = (crowd_vec2){12.0f, -6.0f};
        cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
    }
    for (int t = 0; t < 40; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    free(ids);
    free(pos);
    return w;
}

static void expect_same_arrivals(const crowd_world* a, const crowd_world* b, int tick) {
    crowd_arrival ea[256], eb[256];
    int na = 0, nb = 0;
    cr_assert_eq(crowd_world_get_arrivals(a, ea, 256, &na), CROWD_OK);
    cr_assert_eq(crowd_world_get_arrivals(b, eb, 256, &nb), CROWD_OK);
    cr_assert_eq(na, nb, "tick %d: arrival counts", tick);
    for (int k = 0; k < na; ++k)
        cr_assert(crowd_agent_id_equal(ea[k].id, eb[k].id) && ea[k].action == eb[k].action &&
                      memcmp(&ea[k].position, &eb[k].position, sizeof ea[k].position) == 0,
                  "tick %d: arrival %d differs", tick, k);
}

Test(snapshot, queue_world_continues_bit_identically) {
    crowd_world* a = queue_world(scaled(800), 21);
    bytes b = save(a);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &l), CROWD_OK);
    bytes again = save(l);
    cr_assert_eq(again.n, b.n);
    cr_assert_eq(memcmp(again.p, b.p, b.n), 0, "save(load(x)) == x");

    // Every queue reads back as it was set.
    const int n = crowd_world_agent_count(a);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    int got, queueing = 0;
    cr_assert_eq(crowd_world_get_agents(a, ids, NULL, NULL, n, &got), CROWD_OK);
    for (int i = 0; i < n; ++i) {
        crowd_queue_def qa, ql;
        const crowd_status sa = crowd_agent_get_queue(a, ids[i], &qa);
        cr_assert_eq(crowd_agent_get_queue(l, ids[i], &ql), sa);
        if (sa != CROWD_OK) continue;
        queueing++;
        cr_assert(qa.cone_length == ql.cone_length && qa.goal.x == ql.goal.x &&
                  qa.on_arrival == ql.on_arrival && qa.start_max.y == ql.start_max.y);
    }
    cr_assert_gt(queueing, n / 4);

    int arrivals = 0, respawns = 0;
    for (int t = 1; t <= 300; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(l), CROWD_OK);
        expect_same_arrivals(a, l, t);
        crowd_arrival ev[256];
        int k = 0;
        cr_assert_eq(crowd_world_get_arrivals(a, ev, 256, &k), CROWD_OK);
        arrivals += k;
        for (int i = 0; i < k; ++i) respawns += ev[i].action == CROWD_QUEUE_RESPAWN;
        if (t % 50 == 0)
            cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a), "tick %d", t);
    }
    cr_assert_gt(respawns, 2, "respawns drew from the random stream (%d arrivals)", arrivals);
    free(ids);
    free(again.p);
    free(b.p);
    crowd_world_destroy(l);
    crowd_world_destroy(a);
}

enum { QUEUE_RECORD = 56 };

static size_t queue_record(const bytes* b, int k) {
    return section(b, S_QUEU) + 12 + QUEUE_RECORD * (size_t)k;
}

static void queue_count_off(bytes* b) {
    wr(b->p + section(b, S_QUEU) + 8, 4, rd(b->p + section(b, S_QUEU) + 8, 4) - 1);
}
static void queue_records_swapped(bytes* b) {
    const uint64_t first = rd(b->p + queue_record(b, 0), 4);
    wr(b->p + queue_record(b, 0), 4, rd(b->p + queue_record(b, 1), 4));
    wr(b->p + queue_record(b, 1), 4, first);
}
// The index of an agent that does not queue (its AGNT flags lack the queue bit).
static void queue_record_on_plain_agent(bytes* b) {
    for (int k = 0;; ++k) {
        if (rd(b->p + agent_record(b, k) + 44, 4) & 2u) continue;
        wr(b->p + queue_record(b, 0), 4, rd(b->p + agent_record(b, k), 4));
        return;
    }
}
static void queue_flag_without_record(bytes* b) {
    for (int k = 0;; ++k) {
        const uint64_t f = rd(b->p + agent_record(b, k) + 44, 4);
        if (f & 2u) continue;
        wr(b->p + agent_record(b, k) + 44, 4, f | 2u);
        return;
    }
}
static void queue_zero_cone(bytes* b) {
    wr(b->p + queue_record(b, 0) + 4, 4, 0);
}
static void queue_bad_policy(bytes* b) {
    wr(b->p + queue_record(b, 0) + 32, 4, CROWD_QUEUE_POLICY_COUNT);
}
static void queue_done_two(bytes* b) {
    wr(b->p + queue_record(b, 0) + 52, 4, 2);
}
static void queue_start_area_inverted(bytes* b) {
    wr(b->p + queue_record(b, 0) + 36, 4, 0x7f000000u); // start_min.x huge, above start_max.x
}

Test(snapshot, inconsistent_queues_are_refused) {
    const corruption cases[] = {
        {"queue count off", queue_count_off, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"queue records out of order", queue_records_swapped, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"queue record on an agent that does not queue", queue_record_on_plain_agent,
         CROWD_ERR_SNAPSHOT_CORRUPT},
        {"queue flag without a record", queue_flag_without_record, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"zero cone length", queue_zero_cone, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"arrival policy out of range", queue_bad_policy, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"done flag not 0 or 1", queue_done_two, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"start area inverted", queue_start_area_inverted, CROWD_ERR_SNAPSHOT_CORRUPT},
    };
    crowd_world* a = queue_world(60, 3);
    bytes b = save(a);
    cr_assert_eq(rd(b.p + 24 + 24 * S_QUEU, 4), (uint64_t)CS_SNAP_ID('Q', 'U', 'E', 'U'));
    cr_assert_geq(rd(b.p + section(&b, S_QUEU) + 8, 4), 2, "two queueing agents or more");
    expect_refused(&b, cases, sizeof cases / sizeof cases[0]);
    free(b.p);
    crowd_world_destroy(a);
}

// ---- paths
// ----------------------------------------------------------------------------------------

// Waypoint and tube followers in every mode on a world whose path table has history: a destroyed
// slot reused by a later path (new generation), a replaced path (new revision), followers of a
// destroyed path (detached, and one still flagged until its next step).
static crowd_world* path_world(int agents, crowd_agent_id* ids, int* n) {
    crowd_world* w = busy_world(agents, 2, 17);
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, agents, n), CROWD_OK);
    crowd_path_id p[4];
    crowd_vec2 ring[24], zig[9], line[3] = {{-30, -30}, {0, -25}, {30, -30}};
    for (int i = 0; i < 24; ++i)
        ring[i] = (crowd_vec2){25.0f * cosf(0.2618f * (float)i), 25.0f * sinf(0.2618f * (float)i)};
    for (int i = 0; i < 9; ++i)
        zig[i] = (crowd_vec2){-40.0f + 10.0f * (float)i, i % 2 ? 8.0f : -8.0f};
    cr_assert_eq(crowd_path_create(w, ring, 24, &p[0]), CROWD_OK);
    cr_assert_eq(crowd_path_create(w, zig, 9, &p[1]), CROWD_OK);
    cr_assert_eq(crowd_path_create(w, line, 3, &p[2]), CROWD_OK);
    cr_assert_eq(crowd_path_create(w, line, 2, &p[3]), CROWD_OK);
    for (int i = 0; i < *n; ++i) {
        crowd_path_follow_def d = crowd_path_follow_def_default();
        d.path = p[i % 4];
        d.kind = (crowd_path_kind)(i / 4 % CROWD_PATH_KIND_COUNT);
        d.mode = (crowd_path_mode)(i / 8 % CROWD_PATH_MODE_COUNT);
        d.reverse = i % 5 == 0;
        d.start_index = i % 2;
        d.weight = 0.5f + (float)(i % 3);
        if (i % 7 != 6) cr_assert_eq(crowd_agent_set_path(w, ids[i], &d), CROWD_OK);
    }
    for (int t = 0; t < 40; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_path_destroy(w, p[2]), CROWD_OK); // detaches its followers at the next step
    cr_assert_eq(crowd_path_replace(w, p[1], zig + 1, 7), CROWD_OK);
    for (int t = 0; t < 20; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_path_id again;
    cr_assert_eq(crowd_path_create(w, zig, 5, &again), CROWD_OK); // reuses p[2]'s slot
    cr_assert_eq(again.index1, p[2].index1);
    cr_assert_neq(again.generation, p[2].generation);
    crowd_path_follow_def d = crowd_path_follow_def_default();
    d.path = again;
    d.kind = CROWD_PATH_TUBE;
    cr_assert_eq(crowd_agent_set_path(w, ids[6], &d), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_path_destroy(w, p[3]), CROWD_OK); // its followers still flagged at save
    cr_assert_eq(crowd_path_replace(w, p[0], ring + 2, 20), CROWD_OK); // cursors behind revision
    return w;
}

static void expect_same_paths(const crowd_world* a, const crowd_world* b, const crowd_agent_id* ids,
                              int n, int tick) {
    for (int i = 0; i < n; ++i) {
        crowd_path_follow_def da, db;
        crowd_path_cursor ca, cb;
        const crowd_status sa = crowd_agent_get_path(a, ids[i], &da, &ca);
        cr_assert_eq(crowd_agent_get_path(b, ids[i], &db, &cb), sa);
        if (sa != CROWD_OK) continue;
        cr_assert_eq(memcmp(&da, &db, sizeof da), 0, "def of %d at tick %d", i, tick);
        cr_assert_eq(memcmp(&ca, &cb, sizeof ca), 0, "cursor of %d at tick %d", i, tick);
    }
}

Test(snapshot, path_world_continues_bit_identically) {
    enum { N = 400 };
    crowd_agent_id ids[N];
    int n;
    crowd_world* a = path_world(scaled(N), ids, &n);
    int states[4] = {0};
    for (int i = 0; i < n; ++i) {
        crowd_path_cursor c;
        cr_assert_eq(crowd_agent_get_path(a, ids[i], NULL, &c), CROWD_OK);
        states[c.state]++;
    }
    cr_assert(states[CROWD_PATH_STATE_FOLLOWING] > 0 && states[CROWD_PATH_STATE_DETACHED] > 0 &&
              states[CROWD_PATH_STATE_NONE] > 0);
    bytes b = save(a);
    counter c = {0};
    crowd_load_def d = counted(&c);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_OK);
    bytes again = save(l);
    cr_assert_eq(again.n, b.n);
    size_t diff = 0;
    while (diff < b.n && again.p[diff] == b.p[diff]) ++diff;
    cr_assert_eq(
        diff, b.n, "save(load(x)) == x; first difference at %zu (sections at %zu %zu %zu %zu)",
        diff, section(&b, S_INDX), section(&b, S_AGNT), section(&b, S_QUEU), section(&b, S_PATH));
    cr_assert_eq(crowd_world_path_count(l), crowd_world_path_count(a));
    expect_same_paths(a, l, ids, n, 0);
    for (int t = 1; t <= 1000; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(l), CROWD_OK);
        if (t % 100 == 0) {
            cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a), "tick %d", t);
            expect_same_paths(a, l, ids, n, t);
        }
    }
    // Handles issued after the load match: the free list and generations came along.
    crowd_vec2 pts[2] = {{0, 0}, {1, 1}};
    crowd_path_id pa, pl;
    cr_assert_eq(crowd_path_create(a, pts, 2, &pa), CROWD_OK);
    cr_assert_eq(crowd_path_create(l, pts, 2, &pl), CROWD_OK);
    cr_assert_eq(memcmp(&pa, &pl, sizeof pa), 0);
    crowd_world_destroy(l);
    cr_assert_eq(c.live, 0);
    crowd_world_destroy(a);
    free(again.p);
    free(b.p);
}

// The PATH section's follower records follow its table.
static size_t path_followers(const bytes* b) {
    const uint8_t* p = b->p + section(b, S_PATH);
    const uint32_t used = (uint32_t)rd(p, 4), free_count = (uint32_t)rd(p + 4, 4);
    size_t at = 8 + 4 * (size_t)free_count;
    for (uint32_t i = 0; i < used; ++i) at += 12 + 8 * rd(p + at + 8, 4);
    return section(b, S_PATH) + at;
}
static size_t path_record(const bytes* b, int k) {
    return path_followers(b) + 4 + 76 * (size_t)k;
}
static void path_index_beyond_table(bytes* b) {
    wr(b->p + path_record(b, 0) + 4, 4, rd(b->p + section(b, S_PATH), 4) + 1);
}
static void path_cursor_past_end(bytes* b) {
    for (int k = 0;; ++k) {
        const size_t r = path_record(b, k);
        if (rd(b->p + r + 48, 4) != CROWD_PATH_STATE_FOLLOWING) continue;
        wr(b->p + r + 52, 4, CROWD_PATH_MAX_POINTS);
        return;
    }
}
static void path_bad_direction(bytes* b) {
    wr(b->p + path_record(b, 0) + 56, 4, 0);
}
static void path_free_list_names_live_slot(bytes* b) {
    const size_t s = section(b, S_PATH);
    wr(b->p + s + 8, 4, rd(b->p + s + 8, 4) == 0 ? 1 : 0);
}
static void path_flag_without_record(bytes* b) {
    for (int k = 0;; ++k) {
        const uint32_t idx = (uint32_t)rd(b->p + agent_record(b, k), 4);
        bool has = false;
        const uint32_t count = (uint32_t)rd(b->p + path_followers(b), 4);
        for (uint32_t j = 0; j < count; ++j) has |= rd(b->p + path_record(b, (int)j), 4) == idx;
        if (has) continue;
        wr(b->p + agent_record(b, k) + 44, 4, rd(b->p + agent_record(b, k) + 44, 4) | 8u);
        return;
    }
}
static void path_nan_point(bytes* b) {
    const size_t s = section(b, S_PATH);
    const uint32_t free_count = (uint32_t)rd(b->p + s + 4, 4);
    size_t at = s + 8 + 4 * (size_t)free_count;
    while (rd(b->p + at + 8, 4) == 0) at += 12;
    wr(b->p + at + 12, 4, 0x7fc00000u);
}
static void path_negative_lost(bytes* b) {
    wr(b->p + path_record(b, 1) + 68, 4, 0xbf800000u);
}

Test(snapshot, inconsistent_paths_are_refused) {
    const corruption cases[] = {
        {"path index beyond the table", path_index_beyond_table, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"cursor index past the path", path_cursor_past_end, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"direction 0", path_bad_direction, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"free list names a live slot", path_free_list_names_live_slot, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"path flag without a record", path_flag_without_record, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"NaN path point", path_nan_point, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"negative lost distance", path_negative_lost, CROWD_ERR_SNAPSHOT_CORRUPT},
    };
    enum { N = 120 };
    crowd_agent_id ids[N];
    int n;
    crowd_world* a = path_world(N, ids, &n);
    bytes b = save(a);
    cr_assert_eq(rd(b.p + 24 + 24 * S_PATH, 4), (uint64_t)CS_SNAP_ID('P', 'A', 'T', 'H'));
    expect_refused(&b, cases, sizeof cases / sizeof cases[0]);
    free(b.p);
    crowd_world_destroy(a);
}

// ---- follow-leader groups
// -------------------------------------------------------------------------

static void follow(crowd_world* w, crowd_agent_id f, crowd_agent_id l, crowd_follow_target target) {
    crowd_follow_def d = crowd_follow_def_default();
    d.target = target;
    d.predict = f.index1 % 3 == 0;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_OK);
}

// Formations of every kind (a custom one with fewer offsets than followers), a chain, a leader
// removed onto its fallback and one removed without (its followers stop), a stale fallback, and
// at save time followers that just joined and a changed formation waiting for the next step's
// reassignment.
static crowd_world* group_world(int agents, crowd_agent_id* ids, int* n) {
    crowd_world* w = busy_world(agents, 2, 23);
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, agents, n), CROWD_OK);
    cr_assert_geq(*n, 96);
    crowd_formation_def wedge = crowd_formation_def_default(), block = wedge, custom = wedge;
    wedge.shape = CROWD_FORMATION_WEDGE;
    block.shape = CROWD_FORMATION_BLOCK;
    block.columns = 3;
    const crowd_vec2 offsets[5] = {{-2, 1}, {-2, -1}, {-4, 0}, {-4, 2}, {-4, -2}};
    custom.shape = CROWD_FORMATION_CUSTOM;
    custom.offsets = offsets;
    custom.offset_count = 5;
    cr_assert_eq(crowd_leader_set_formation(w, ids[0], &wedge), CROWD_OK);
    cr_assert_eq(crowd_leader_set_formation(w, ids[11], &custom), CROWD_OK);
    cr_assert_eq(crowd_leader_set_formation(w, ids[30], &block), CROWD_OK);
    for (int i = 1; i <= 10; ++i) follow(w, ids[i], ids[0], CROWD_FOLLOW_SLOT);
    for (int i = 12; i <= 20; ++i)
        follow(w, ids[i], ids[11], i % 4 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND);
    follow(w, ids[21], ids[0], CROWD_FOLLOW_BEHIND); // a chain hanging off the wedge's leader
    follow(w, ids[22], ids[21], CROWD_FOLLOW_BEHIND);
    follow(w, ids[23], ids[22], CROWD_FOLLOW_BEHIND);
    for (int i = 31; i <= 40; ++i) follow(w, ids[i], ids[30], CROWD_FOLLOW_SLOT);
    for (int i = 51; i <= 55; ++i) follow(w, ids[i], ids[50], CROWD_FOLLOW_BEHIND);
    for (int i = 71; i <= 75; ++i) follow(w, ids[i], ids[70], i % 2 ? CROWD_FOLLOW_SLOT : 0);
    cr_assert_eq(crowd_leader_set_fallback(w, ids[30], ids[0]), CROWD_OK);
    cr_assert_eq(crowd_leader_set_fallback(w, ids[50], ids[60]), CROWD_OK);
    cr_assert_eq(crowd_leader_set_fallback(w, ids[11], ids[90]), CROWD_OK);
    for (int t = 0; t < 50; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, ids[30]), CROWD_OK); // its followers join ids[0]
    cr_assert_eq(crowd_agent_remove(w, ids[70]), CROWD_OK); // its followers stop
    cr_assert_eq(crowd_agent_remove(w, ids[90]), CROWD_OK); // ids[11]'s fallback goes stale
    cr_assert_eq(crowd_agent_unfollow(w, ids[5]), CROWD_OK);
    for (int t = 0; t < 30; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    for (int i = 80; i <= 85; ++i) follow(w, ids[i], ids[11], CROWD_FOLLOW_SLOT);
    cr_assert_eq(crowd_leader_set_formation(w, ids[50], &wedge), CROWD_OK); // no slot followers
    follow(w, ids[56], ids[50], CROWD_FOLLOW_SLOT);
    return w;
}

static void expect_same_groups(const crowd_world* a, const crowd_world* b,
                               const crowd_agent_id* ids, int n, int tick) {
    for (int i = 0; i < n; ++i) {
        crowd_follow_info fa, fb;
        const crowd_status sa = crowd_agent_get_follow(a, ids[i], &fa);
        cr_assert_eq(crowd_agent_get_follow(b, ids[i], &fb), sa);
        if (sa != CROWD_OK) continue;
        cr_assert_eq(fa.state, fb.state, "agent %d tick %d", i, tick);
        cr_assert(crowd_agent_id_equal(fa.leader, fb.leader));
        cr_assert_eq(memcmp(&fa.def, &fb.def, sizeof fa.def), 0);
        cr_assert_eq(fa.slot, fb.slot, "agent %d tick %d", i, tick);
        cr_assert_eq(fa.slot_pending, fb.slot_pending);
        cr_assert_eq(memcmp(&fa.slot_offset, &fb.slot_offset, sizeof fa.slot_offset), 0);
        cr_assert_eq(memcmp(&fa.target, &fb.target, sizeof fa.target), 0);
        crowd_leader_info la, lb;
        cr_assert_eq(crowd_leader_get_info(a, ids[i], &la), CROWD_OK);
        cr_assert_eq(crowd_leader_get_info(b, ids[i], &lb), CROWD_OK);
        cr_assert_eq(memcmp(&la, &lb, sizeof la), 0, "leader %d tick %d", i, tick);
        crowd_agent_id ga[64], gb[64];
        int ca, cb;
        cr_assert_eq(crowd_leader_get_followers(a, ids[i], ga, 64, &ca), CROWD_OK);
        cr_assert_eq(crowd_leader_get_followers(b, ids[i], gb, 64, &cb), CROWD_OK);
        cr_assert_eq(ca, cb);
        for (int k = 0; k < ca; ++k) cr_assert(crowd_agent_id_equal(ga[k], gb[k]));
    }
}

Test(snapshot, group_world_continues_bit_identically) {
    enum { N = 400 };
    crowd_agent_id ids[N];
    int n;
    crowd_world* a = group_world(scaled(N) < 200 ? 200 : scaled(N), ids, &n); // 96 used
    crowd_follow_info info;
    cr_assert_eq(crowd_agent_get_follow(a, ids[81], &info), CROWD_OK);
    cr_assert(info.slot_pending, "a reassignment is pending at save time");
    cr_assert_eq(crowd_agent_get_follow(a, ids[71], &info), CROWD_OK);
    cr_assert_eq(info.state, CROWD_FOLLOW_STOPPED);
    cr_assert_eq(crowd_agent_get_follow(a, ids[31], &info), CROWD_OK);
    cr_assert(crowd_agent_id_equal(info.leader, ids[0]), "moved to the fallback");
    bytes b = save(a);
    counter c = {0};
    crowd_load_def d = counted(&c);
    crowd_world* l;
    cr_assert_eq(crowd_world_load(b.p, b.n, &d, &l), CROWD_OK);
    bytes again = save(l);
    cr_assert_eq(again.n, b.n);
    cr_assert_eq(memcmp(again.p, b.p, b.n), 0, "save(load(x)) == x");
    cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a));
    expect_same_groups(a, l, ids, n, 0);
    for (int t = 1; t <= 1000; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(l), CROWD_OK);
        if (t % 100 == 0) {
            cr_assert_eq(crowd_world_state_hash(l), crowd_world_state_hash(a), "tick %d", t);
            expect_same_groups(a, l, ids, n, t);
        }
        if (t == 500) { // the loaded groups keep working: a leader removal with a fallback
            cr_assert_eq(crowd_agent_remove(a, ids[50]), CROWD_OK);
            cr_assert_eq(crowd_agent_remove(l, ids[50]), CROWD_OK);
        }
    }
    crowd_world_destroy(l);
    cr_assert_eq(c.allocs, c.frees);
    cr_assert_eq(c.live, 0);
    crowd_world_destroy(a);
    free(again.p);
    free(b.p);
}

// Record offsets inside the FLLW section, found by agent index.
static size_t fllw_follower(const bytes* b, uint32_t idx) {
    const size_t s = section(b, S_FLLW);
    const uint32_t count = (uint32_t)rd(b->p + s, 4);
    for (uint32_t k = 0; k < count; ++k)
        if (rd(b->p + s + 4 + 60 * (size_t)k, 4) == idx) return s + 4 + 60 * (size_t)k;
    cr_assert_fail("no follower record for %u", idx);
    return 0;
}
static size_t fllw_leader(const bytes* b, uint32_t idx) {
    const size_t s = section(b, S_FLLW);
    size_t at = s + 4 + 60 * (size_t)rd(b->p + s, 4);
    const uint32_t count = (uint32_t)rd(b->p + at, 4);
    at += 4;
    for (uint32_t k = 0; k < count; ++k) {
        if (rd(b->p + at, 4) == idx) return at;
        at += 44 + 8 * rd(b->p + at + 36, 4) + 4 * rd(b->p + at + 40, 4);
    }
    cr_assert_fail("no leader record for %u", idx);
    return 0;
}
static size_t fllw_list(const bytes* b, uint32_t idx) {
    const size_t at = fllw_leader(b, idx);
    return at + 44 + 8 * rd(b->p + at + 36, 4);
}
static size_t agent_of(const bytes* b, uint32_t idx) {
    for (int k = 0;; ++k)
        if (rd(b->p + agent_record(b, k), 4) == idx) return agent_record(b, k);
}

// The agent indices group_edit_world's edits work on.
static uint32_t gA, gB, gC, gZ, gL;

// A leads Z and follows B, B follows C; L leads two slot followers and its reassignment is pending.
static crowd_world* group_edit_world(void) {
    crowd_world* w = busy_world(200, 1, 29);
    crowd_agent_id ids[200];
    int n;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, 200, &n), CROWD_OK);
    follow(w, ids[1], ids[2], CROWD_FOLLOW_BEHIND); // A -> B
    follow(w, ids[2], ids[3], CROWD_FOLLOW_BEHIND); // B -> C
    follow(w, ids[4], ids[1], CROWD_FOLLOW_BEHIND); // Z -> A
    follow(w, ids[6], ids[5], CROWD_FOLLOW_SLOT);
    follow(w, ids[7], ids[5], CROWD_FOLLOW_SLOT);
    crowd_formation_def custom = crowd_formation_def_default();
    const crowd_vec2 offsets[2] = {{-2, 1}, {-2, -1}};
    custom.shape = CROWD_FORMATION_CUSTOM;
    custom.offsets = offsets;
    custom.offset_count = 2;
    cr_assert_eq(crowd_leader_set_formation(w, ids[5], &custom), CROWD_OK);
    gA = ids[1].index1 - 1, gB = ids[2].index1 - 1, gC = ids[3].index1 - 1;
    gZ = ids[4].index1 - 1, gL = ids[5].index1 - 1;
    return w;
}

static void leader_out_of_range(bytes* b) {
    wr(b->p + fllw_follower(b, gZ) + 8, 4, rd(b->p + section(b, S_INDX), 4) + 1);
}
static void leader_not_listing(bytes* b) {
    wr(b->p + fllw_follower(b, gZ) + 8, 4, gL + 1); // L does not list Z
}
// Z -> C, B -> A while A -> B: every list and column consistent, one cycle.
static void follow_cycle(bytes* b) {
    wr(b->p + fllw_follower(b, gB) + 8, 4, gA + 1);
    wr(b->p + fllw_follower(b, gZ) + 8, 4, gC + 1);
    wr(b->p + fllw_list(b, gA), 4, gB);
    wr(b->p + fllw_list(b, gC), 4, gZ);
    wr(b->p + agent_of(b, gB) + 48, 4, gA + 1);
    wr(b->p + agent_of(b, gZ) + 48, 4, gC + 1);
}
static void listed_twice(bytes* b) {
    wr(b->p + fllw_list(b, gL) + 4, 4, rd(b->p + fllw_list(b, gL), 4));
}
static void dirty_twice(bytes* b) {
    wr(b->p + fllw_leader(b, gA) + 12, 4, rd(b->p + fllw_leader(b, gL) + 12, 4));
}
static void group_column_off(bytes* b) {
    wr(b->p + agent_of(b, gZ) + 48, 4, 0);
}
static void leader_flag_off(bytes* b) {
    const size_t r = agent_of(b, gL);
    wr(b->p + r + 44, 4, rd(b->p + r + 44, 4) & ~16u);
}
static void custom_offset_nan(bytes* b) {
    wr(b->p + fllw_leader(b, gL) + 44, 4, 0x7fc00000u);
}
static void fallback_self(bytes* b) {
    const size_t r = fllw_leader(b, gL);
    wr(b->p + r + 4, 4, gL + 1);
    wr(b->p + r + 10, 2, rd(b->p + section(b, S_WRLD) + 20, 2)); // the world tag
}
static void stopped_with_slot(bytes* b) {
    wr(b->p + fllw_follower(b, gZ) + 4, 4, CROWD_FOLLOW_STOPPED);
}

Test(snapshot, inconsistent_groups_are_refused) {
    const corruption cases[] = {
        {"leader index out of range", leader_out_of_range, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"leader does not list its follower", leader_not_listing, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"follow cycle", follow_cycle, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"follower listed twice", listed_twice, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"two leaders at one pending position", dirty_twice, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"group column disagrees", group_column_off, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"leader flag off on a leader with followers", leader_flag_off, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"NaN custom offset", custom_offset_nan, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"fallback is the leader", fallback_self, CROWD_ERR_SNAPSHOT_CORRUPT},
        {"stopped follower with a leader", stopped_with_slot, CROWD_ERR_SNAPSHOT_CORRUPT},
    };
    crowd_world* a = group_edit_world();
    bytes b = save(a);
    cr_assert_eq(rd(b.p + 24 + 24 * S_FLLW, 4), (uint64_t)CS_SNAP_ID('F', 'L', 'L', 'W'));
    cr_assert_eq(try_load(&b), CROWD_OK);
    expect_refused(&b, cases, sizeof cases / sizeof cases[0]);
    free(b.p);
    crowd_world_destroy(a);
}
