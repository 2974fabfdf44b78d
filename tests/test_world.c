// The world's contract with its caller: every bad input gets its own status and leaves the world
// exactly as it was; handles keep naming the right agent through add, remove, teleport and steps;
// bulk reads are in handle order; growth keeps agents intact; every allocation is freed.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

static float rnd(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}
static int rndi(scene_rng* r, int n) {
    return (int)(scene_rng_next(r) % (uint64_t)n);
}

// ---- a counting allocator -----------------------------------------------------------------------

enum { MAX_BLOCKS = 1024 };

typedef struct alloc_log {
    long allocs, frees;
    long fail_after; // allocations that still succeed; -1 = all of them
    bool bad_align, bad_free;
    int blocks;
    void* ptr[MAX_BLOCKS];
    size_t size[MAX_BLOCKS];
} alloc_log;

static void* counting_alloc(size_t size, size_t align, void* user) {
    alloc_log* log = user;
    if (align == 0 || (align & (align - 1)) != 0 || align > 64) log->bad_align = true;
    if (log->fail_after == 0) return NULL;
    if (log->fail_after > 0) log->fail_after--;
    cr_assert_lt(log->blocks, MAX_BLOCKS, "too many live blocks");
    const size_t rounded = (size + align - 1) / align * align;
    void* p = aligned_alloc(align, rounded ? rounded : align);
    cr_assert_not_null(p);
    if ((uintptr_t)p % align != 0) log->bad_align = true;
    log->ptr[log->blocks] = p;
    log->size[log->blocks] = size;
    log->blocks++;
    log->allocs++;
    return p;
}

static void counting_free(void* p, size_t size, void* user) {
    alloc_log* log = user;
    for (int i = 0; i < log->blocks; ++i) {
        if (log->ptr[i] != p) continue;
        if (log->size[i] != size) log->bad_free = true;
        log->blocks--;
        log->ptr[i] = log->ptr[log->blocks];
        log->size[i] = log->size[log->blocks];
        log->frees++;
        free(p);
        return;
    }
    log->bad_free = true; // never allocated, or freed twice
}

static void log_init(alloc_log* log) {
    memset(log, 0, sizeof *log);
    log->fail_after = -1;
}

static void expect_clean(const alloc_log* log, const char* when) {
    cr_assert_not(log->bad_align, "%s: an allocation was misaligned or asked a bad alignment",
                  when);
    cr_assert_not(log->bad_free, "%s: free of an unknown block or with the wrong size", when);
    cr_assert_eq(log->blocks, 0, "%s: %d blocks still allocated", when, log->blocks);
    cr_assert_eq(log->allocs, log->frees, "%s: %ld allocations, %ld frees", when, log->allocs,
                 log->frees);
}

static crowd_world_def counted_def(alloc_log* log) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.alloc = counting_alloc;
    wd.free = counting_free;
    wd.alloc_user = log;
    return wd;
}

// ---- snapshots: everything the API can observe --------------------------------------------------

typedef struct snapshot {
    uint64_t hash, tick;
    int count, threads;
    float dt;
    crowd_agent_id* ids;
    crowd_vec2 *pos, *vel;
    crowd_agent_def* defs;
} snapshot;

static void snap_take(const crowd_world* w, snapshot* s) {
    s->hash = crowd_world_state_hash(w);
    s->tick = crowd_world_tick(w);
    s->count = crowd_world_agent_count(w);
    s->threads = crowd_world_get_threads(w);
    s->dt = crowd_world_get_dt(w);
    const size_t n = (size_t)s->count + 1;
    s->ids = calloc(n, sizeof *s->ids);
    s->pos = calloc(n, sizeof *s->pos);
    s->vel = calloc(n, sizeof *s->vel);
    s->defs = calloc(n, sizeof *s->defs);
    cr_assert(s->ids && s->pos && s->vel && s->defs);
    int got = -1;
    cr_assert_eq(crowd_world_get_agents(w, s->ids, s->pos, s->vel, s->count, &got), CROWD_OK);
    cr_assert_eq(got, s->count);
    for (int i = 0; i < s->count; ++i)
        cr_assert_eq(crowd_agent_get_def(w, s->ids[i], &s->defs[i]), CROWD_OK);
}

static void snap_free(snapshot* s) {
    free(s->ids);
    free(s->pos);
    free(s->vel);
    free(s->defs);
}

#define SAME(a, b, field) (memcmp(&(a)->field, &(b)->field, sizeof(a)->field) == 0)

static bool def_equal(const crowd_agent_def* a, const crowd_agent_def* b) {
    return SAME(a, b, position) && SAME(a, b, velocity) && SAME(a, b, heading) &&
           SAME(a, b, radius) && SAME(a, b, max_speed) && SAME(a, b, max_force) &&
           SAME(a, b, separation_radius) && SAME(a, b, separation_weight) &&
           a->goal.mode == b->goal.mode && SAME(a, b, goal.target) &&
           SAME(a, b, goal.slow_radius) && SAME(a, b, goal.weight) && a->user_data == b->user_data;
}

static void snap_expect_same(const snapshot* a, const snapshot* b, const char* call) {
    cr_assert_eq(a->count, b->count, "%s changed the agent count", call);
    cr_assert_eq(a->hash, b->hash, "%s changed the state hash", call);
    cr_assert_eq(a->tick, b->tick, "%s changed the tick", call);
    cr_assert_eq(a->threads, b->threads, "%s changed the thread count", call);
    cr_assert_eq(a->dt, b->dt, "%s changed dt", call);
    const size_t n = (size_t)a->count;
    cr_assert_eq(memcmp(a->ids, b->ids, n * sizeof *a->ids), 0, "%s changed the handles", call);
    cr_assert_eq(memcmp(a->pos, b->pos, n * sizeof *a->pos), 0, "%s changed a position", call);
    cr_assert_eq(memcmp(a->vel, b->vel, n * sizeof *a->vel), 0, "%s changed a velocity", call);
    for (size_t i = 0; i < n; ++i)
        cr_assert(def_equal(&a->defs[i], &b->defs[i]), "%s changed agent %u", call,
                  a->ids[i].index1);
}

static void expect_status(crowd_status got, crowd_status want, const char* call) {
    cr_assert_eq(got, want, "%s returned %d (%s), expected %d (%s)", call, (int)got,
                 crowd_status_string(got), (int)want, crowd_status_string(want));
    const char* s = crowd_status_string(got);
    cr_assert(s != NULL && s[0] != '\0', "%s: empty status string", call);
}

// The call must return `expected` and leave every observable part of the world as it was.
#define EXPECT_REJECTED(world, expected, call)                                                     \
    do {                                                                                           \
        snapshot before_, after_;                                                                  \
        snap_take((world), &before_);                                                              \
        const crowd_status st_ = (call);                                                           \
        expect_status(st_, (expected), #call);                                                     \
        snap_take((world), &after_);                                                               \
        snap_expect_same(&before_, &after_, #call);                                                \
        snap_free(&before_);                                                                       \
        snap_free(&after_);                                                                        \
    } while (0)

// A world with some history: agents with and without goals, a few steps, a few removals (so the
// free list is not empty).
static crowd_world* fixture(uint16_t tag, crowd_agent_id* ids, int n) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = tag;
    wd.capacity = 8;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng r = {tag};
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){rnd(&r, -8, 8), rnd(&r, -8, 8)};
        a.velocity = (crowd_vec2){rnd(&r, -1, 1), rnd(&r, -1, 1)};
        a.goal.mode = (crowd_goal_mode)(i % CROWD_GOAL_MODE_COUNT);
        a.goal.target = (crowd_vec2){rnd(&r, -8, 8), rnd(&r, -8, 8)};
        a.user_data = 1000u + (uint64_t)i;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    for (int t = 0; t < 5; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, ids[3]), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, ids[7]), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    return w;
}

enum { FIXTURE_AGENTS = 40 };

// ---- statuses -----------------------------------------------------------------------------------

Test(world_status, strings_distinct_and_non_empty) {
    for (int a = 0; a < CROWD_STATUS_COUNT; ++a) {
        const char* sa = crowd_status_string((crowd_status)a);
        cr_assert(sa && sa[0], "status %d has no string", a);
        for (int b = 0; b < a; ++b)
            cr_assert_str_neq(sa, crowd_status_string((crowd_status)b),
                              "statuses %d and %d share a string", a, b);
    }
    const char* unknown = crowd_status_string(CROWD_STATUS_COUNT);
    cr_assert(unknown && unknown[0]);
    for (int a = 0; a < CROWD_PHASE_COUNT; ++a) {
        const char* pa = crowd_phase_name((crowd_phase)a);
        cr_assert(pa && pa[0]);
        for (int b = 0; b < a; ++b) cr_assert_str_neq(pa, crowd_phase_name((crowd_phase)b));
    }
}

typedef struct def_case {
    const char* what;
    crowd_status want;
    void (*apply)(crowd_world_def*);
} def_case;

static void wd_dt_nan(crowd_world_def* d) {
    d->dt = NAN;
}
static void wd_dt_inf(crowd_world_def* d) {
    d->dt = INFINITY;
}
static void wd_dt_neg_inf(crowd_world_def* d) {
    d->dt = -INFINITY;
}
static void wd_cell_nan(crowd_world_def* d) {
    d->cell_size = NAN;
}
static void wd_cell_inf(crowd_world_def* d) {
    d->cell_size = INFINITY;
}
static void wd_dt_zero(crowd_world_def* d) {
    d->dt = 0.0f;
}
static void wd_dt_neg(crowd_world_def* d) {
    d->dt = -0.1f;
}
static void wd_cell_zero(crowd_world_def* d) {
    d->cell_size = 0.0f;
}
static void wd_cell_neg(crowd_world_def* d) {
    d->cell_size = -2.5f;
}
static void wd_threads_neg(crowd_world_def* d) {
    d->threads = -1;
}
static void wd_capacity_neg(crowd_world_def* d) {
    d->capacity = -1;
}
static void wd_max_zero(crowd_world_def* d) {
    d->max_agents = 0;
}
static void wd_max_neg(crowd_world_def* d) {
    d->max_agents = -5;
}
static void wd_max_huge(crowd_world_def* d) {
    d->max_agents = (1 << 30) + 1;
}
static void wd_alloc_only(crowd_world_def* d) {
    d->free = NULL;
}
static void wd_free_only(crowd_world_def* d) {
    d->alloc = NULL;
}

Test(world_status, create_rejects_bad_defs) {
    static const def_case cases[] = {
        {"dt NaN", CROWD_ERR_NOT_FINITE, wd_dt_nan},
        {"dt inf", CROWD_ERR_NOT_FINITE, wd_dt_inf},
        {"dt -inf", CROWD_ERR_NOT_FINITE, wd_dt_neg_inf},
        {"cell NaN", CROWD_ERR_NOT_FINITE, wd_cell_nan},
        {"cell inf", CROWD_ERR_NOT_FINITE, wd_cell_inf},
        {"dt 0", CROWD_ERR_BAD_DT, wd_dt_zero},
        {"dt < 0", CROWD_ERR_BAD_DT, wd_dt_neg},
        {"cell 0", CROWD_ERR_BAD_CELL_SIZE, wd_cell_zero},
        {"cell < 0", CROWD_ERR_BAD_CELL_SIZE, wd_cell_neg},
        {"threads < 0", CROWD_ERR_BAD_THREADS, wd_threads_neg},
        {"capacity < 0", CROWD_ERR_BAD_CAPACITY, wd_capacity_neg},
        {"max_agents 0", CROWD_ERR_BAD_CAPACITY, wd_max_zero},
        {"max_agents < 0", CROWD_ERR_BAD_CAPACITY, wd_max_neg},
        {"max_agents above the handle range", CROWD_ERR_BAD_CAPACITY, wd_max_huge},
        {"alloc without free", CROWD_ERR_NULL_ARGUMENT, wd_alloc_only},
        {"free without alloc", CROWD_ERR_NULL_ARGUMENT, wd_free_only},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        alloc_log log;
        log_init(&log);
        crowd_world_def wd = counted_def(&log);
        cases[i].apply(&wd);
        crowd_world* w = (crowd_world*)&log; // any non-NULL value: create must reset it
        expect_status(crowd_world_create(&wd, &w), cases[i].want, cases[i].what);
        cr_assert_null(w, "%s: *out not reset to NULL", cases[i].what);
        cr_assert_eq(log.allocs, 0, "%s: allocated before rejecting", cases[i].what);
    }
    crowd_world_def wd = crowd_world_def_default();
    crowd_world* w = (crowd_world*)&wd;
    expect_status(crowd_world_create(NULL, &w), CROWD_ERR_NULL_ARGUMENT, "create(NULL def)");
    cr_assert_null(w);
    expect_status(crowd_world_create(&wd, NULL), CROWD_ERR_NULL_ARGUMENT, "create(NULL out)");
}

Test(world_status, world_calls_reject_bad_arguments) {
    crowd_agent_id ids[FIXTURE_AGENTS];
    crowd_world* w = fixture(1, ids, FIXTURE_AGENTS);
    EXPECT_REJECTED(w, CROWD_ERR_BAD_THREADS, crowd_world_set_threads(w, -1));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_CAPACITY, crowd_world_reserve(w, -1));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_CAPACITY, crowd_world_reserve(w, (1 << 24) + 1));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT,
                    crowd_world_get_agents(w, NULL, NULL, NULL, 100, NULL));
    int count;

    expect_status(crowd_world_step(NULL), CROWD_ERR_NULL_ARGUMENT, "step(NULL)");
    expect_status(crowd_world_reserve(NULL, 10), CROWD_ERR_NULL_ARGUMENT, "reserve(NULL)");
    expect_status(crowd_world_set_threads(NULL, 1), CROWD_ERR_NULL_ARGUMENT, "set_threads(NULL)");
    expect_status(crowd_world_get_agents(NULL, NULL, NULL, NULL, 10, &count),
                  CROWD_ERR_NULL_ARGUMENT, "get_agents(NULL)");
    crowd_world_destroy(NULL); // allowed, does nothing
    crowd_world_destroy(w);
}

Test(world_status, buffer_too_small_writes_nothing) {
    crowd_agent_id ids[FIXTURE_AGENTS];
    crowd_world* w = fixture(1, ids, FIXTURE_AGENTS);
    const int n = crowd_world_agent_count(w);
    cr_assert_eq(n, FIXTURE_AGENTS - 2);
    crowd_agent_id out_ids[FIXTURE_AGENTS];
    crowd_vec2 out_pos[FIXTURE_AGENTS], out_vel[FIXTURE_AGENTS];
    unsigned char pattern[sizeof out_pos];
    memset(pattern, 0xA5, sizeof pattern);
    memset(out_ids, 0xA5, sizeof out_ids);
    memset(out_pos, 0xA5, sizeof out_pos);
    memset(out_vel, 0xA5, sizeof out_vel);
    const int capacities[] = {n - 1, 1, 0, -1};
    for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; ++i) {
        int count = -1;
        EXPECT_REJECTED(
            w, CROWD_ERR_BUFFER_TOO_SMALL,
            crowd_world_get_agents(w, out_ids, out_pos, out_vel, capacities[i], &count));
        cr_assert_eq(count, n, "capacity %d: count %d, expected the agent count %d", capacities[i],
                     count, n);
        cr_assert_eq(memcmp(out_ids, pattern, sizeof out_ids), 0, "ids written");
        cr_assert_eq(memcmp(out_pos, pattern, sizeof out_pos), 0, "positions written");
        cr_assert_eq(memcmp(out_vel, pattern, sizeof out_vel), 0, "velocities written");
    }
    int count = -1;
    EXPECT_REJECTED(w, CROWD_ERR_BUFFER_TOO_SMALL,
                    crowd_world_get_agents(w, NULL, NULL, NULL, 0, &count));
    cr_assert_eq(count, n);
    // Exactly enough is enough.
    expect_status(crowd_world_get_agents(w, out_ids, out_pos, out_vel, n, &count), CROWD_OK,
                  "get_agents(exact capacity)");
    cr_assert_eq(count, n);
    crowd_world_destroy(w);
}

// ---- bad agent definitions ----------------------------------------------------------------------

typedef struct agent_case {
    const char* what;
    crowd_status want;
    void (*apply)(crowd_agent_def*);
} agent_case;

static void ad_px_nan(crowd_agent_def* d) {
    d->position.x = NAN;
}
static void ad_py_inf(crowd_agent_def* d) {
    d->position.y = INFINITY;
}
static void ad_vx_neg_inf(crowd_agent_def* d) {
    d->velocity.x = -INFINITY;
}
static void ad_vy_nan(crowd_agent_def* d) {
    d->velocity.y = NAN;
}
static void ad_heading_nan(crowd_agent_def* d) {
    d->heading.y = NAN;
}
static void ad_radius_nan(crowd_agent_def* d) {
    d->radius = NAN;
}
static void ad_radius_zero(crowd_agent_def* d) {
    d->radius = 0.0f;
}
static void ad_radius_neg(crowd_agent_def* d) {
    d->radius = -0.3f;
}
static void ad_speed_zero(crowd_agent_def* d) {
    d->max_speed = 0.0f;
}
static void ad_speed_neg(crowd_agent_def* d) {
    d->max_speed = -1.0f;
}
static void ad_speed_nan(crowd_agent_def* d) {
    d->max_speed = NAN;
}
static void ad_force_zero(crowd_agent_def* d) {
    d->max_force = 0.0f;
}
static void ad_force_neg(crowd_agent_def* d) {
    d->max_force = -3.0f;
}
static void ad_force_inf(crowd_agent_def* d) {
    d->max_force = INFINITY;
}
static void ad_sep_zero(crowd_agent_def* d) {
    d->separation_radius = 0.0f;
}
static void ad_sep_neg(crowd_agent_def* d) {
    d->separation_radius = -1.2f;
}
static void ad_sep_nan(crowd_agent_def* d) {
    d->separation_radius = NAN;
}
static void ad_sepw_neg(crowd_agent_def* d) {
    d->separation_weight = -0.5f;
}
static void ad_sepw_inf(crowd_agent_def* d) {
    d->separation_weight = INFINITY;
}
static void ad_goal_mode_count(crowd_agent_def* d) {
    d->goal.mode = CROWD_GOAL_MODE_COUNT;
}
static void ad_goal_mode_big(crowd_agent_def* d) {
    d->goal.mode = (crowd_goal_mode)99;
}
static void ad_goal_mode_neg(crowd_agent_def* d) {
    d->goal.mode = (crowd_goal_mode)-1;
}
static void ad_goal_target_nan(crowd_agent_def* d) {
    d->goal.target.x = NAN;
}
static void ad_goal_slow_zero(crowd_agent_def* d) {
    d->goal.slow_radius = 0.0f;
}
static void ad_goal_slow_neg(crowd_agent_def* d) {
    d->goal.slow_radius = -2.0f;
}
static void ad_goal_slow_inf(crowd_agent_def* d) {
    d->goal.slow_radius = INFINITY;
}
static void ad_goal_weight_neg(crowd_agent_def* d) {
    d->goal.weight = -1.0f;
}
static void ad_goal_weight_nan(crowd_agent_def* d) {
    d->goal.weight = NAN;
}
static void ad_heading_zero(crowd_agent_def* d) {
    d->heading = (crowd_vec2){0.0f, 0.0f};
}
static void ad_heading_neg_zero(crowd_agent_def* d) {
    d->heading = (crowd_vec2){-0.0f, -0.0f};
}

static const agent_case agent_cases[] = {
    {"position.x NaN", CROWD_ERR_NOT_FINITE, ad_px_nan},
    {"position.y inf", CROWD_ERR_NOT_FINITE, ad_py_inf},
    {"velocity.x -inf", CROWD_ERR_NOT_FINITE, ad_vx_neg_inf},
    {"velocity.y NaN", CROWD_ERR_NOT_FINITE, ad_vy_nan},
    {"heading NaN", CROWD_ERR_NOT_FINITE, ad_heading_nan},
    {"radius NaN", CROWD_ERR_NOT_FINITE, ad_radius_nan},
    {"radius 0", CROWD_ERR_BAD_RADIUS, ad_radius_zero},
    {"radius < 0", CROWD_ERR_BAD_RADIUS, ad_radius_neg},
    {"max_speed 0", CROWD_ERR_BAD_SPEED, ad_speed_zero},
    {"max_speed < 0", CROWD_ERR_BAD_SPEED, ad_speed_neg},
    {"max_speed NaN", CROWD_ERR_NOT_FINITE, ad_speed_nan},
    {"max_force 0", CROWD_ERR_BAD_SPEED, ad_force_zero},
    {"max_force < 0", CROWD_ERR_BAD_SPEED, ad_force_neg},
    {"max_force inf", CROWD_ERR_NOT_FINITE, ad_force_inf},
    {"separation_radius 0", CROWD_ERR_BAD_RADIUS, ad_sep_zero},
    {"separation_radius < 0", CROWD_ERR_BAD_RADIUS, ad_sep_neg},
    {"separation_radius NaN", CROWD_ERR_NOT_FINITE, ad_sep_nan},
    {"separation_weight < 0", CROWD_ERR_BAD_WEIGHT, ad_sepw_neg},
    {"separation_weight inf", CROWD_ERR_NOT_FINITE, ad_sepw_inf},
    {"goal mode = count", CROWD_ERR_INVALID_ENUM, ad_goal_mode_count},
    {"goal mode 99", CROWD_ERR_INVALID_ENUM, ad_goal_mode_big},
    {"goal mode -1", CROWD_ERR_INVALID_ENUM, ad_goal_mode_neg},
    {"goal target NaN", CROWD_ERR_NOT_FINITE, ad_goal_target_nan},
    {"goal slow_radius 0", CROWD_ERR_BAD_RADIUS, ad_goal_slow_zero},
    {"goal slow_radius < 0", CROWD_ERR_BAD_RADIUS, ad_goal_slow_neg},
    {"goal slow_radius inf", CROWD_ERR_NOT_FINITE, ad_goal_slow_inf},
    {"goal weight < 0", CROWD_ERR_BAD_WEIGHT, ad_goal_weight_neg},
    {"goal weight NaN", CROWD_ERR_NOT_FINITE, ad_goal_weight_nan},
    {"heading (0, 0)", CROWD_ERR_BAD_HEADING, ad_heading_zero},
    {"heading (-0, -0)", CROWD_ERR_BAD_HEADING, ad_heading_neg_zero},
};

static crowd_agent_def good_agent(void) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){0.25f, -0.5f};
    a.velocity = (crowd_vec2){0.5f, 0.0f};
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){4.0f, 4.0f};
    a.user_data = 77;
    return a;
}

Test(world_status, add_rejects_bad_defs) {
    crowd_agent_id ids[FIXTURE_AGENTS], twin_ids[FIXTURE_AGENTS];
    crowd_world* w = fixture(1, ids, FIXTURE_AGENTS);
    crowd_world* twin = fixture(1, twin_ids, FIXTURE_AGENTS); // never sees a rejected call
    for (size_t i = 0; i < sizeof agent_cases / sizeof agent_cases[0]; ++i) {
        crowd_agent_def a = good_agent();
        agent_cases[i].apply(&a);
        crowd_agent_id id = {.index1 = 12345, .generation = 6, .world = 7};
        const crowd_agent_id sentinel = id;
        EXPECT_REJECTED(w, agent_cases[i].want, crowd_agent_add(w, &a, &id));
        cr_assert(crowd_agent_id_equal(id, sentinel), "%s: *out written", agent_cases[i].what);
    }
    const crowd_agent_def a = good_agent();
    crowd_agent_id id;
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_add(w, NULL, &id));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_add(w, &a, NULL));
    expect_status(crowd_agent_add(NULL, &a, &id), CROWD_ERR_NULL_ARGUMENT, "add(NULL world)");

    // Hidden state too (free list, generations): the next add and steps match the twin's.
    crowd_agent_id got, want;
    cr_assert_eq(crowd_agent_add(w, &a, &got), CROWD_OK);
    cr_assert_eq(crowd_agent_add(twin, &a, &want), CROWD_OK);
    cr_assert(crowd_agent_id_equal(got, want), "add after rejected calls gave another handle");
    for (int t = 0; t < 3; ++t) {
        crowd_world_step(w);
        crowd_world_step(twin);
    }
    cr_assert_eq(crowd_world_state_hash(w), crowd_world_state_hash(twin));
    crowd_world_destroy(w);
    crowd_world_destroy(twin);
}

Test(world_status, setters_reject_bad_values) {
    crowd_agent_id ids[FIXTURE_AGENTS];
    crowd_world* w = fixture(1, ids, FIXTURE_AGENTS);
    const crowd_agent_id id = ids[5];
    const float nan = NAN, inf = INFINITY;
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_position(w, id, (crowd_vec2){nan, 0}));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_position(w, id, (crowd_vec2){0, inf}));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE,
                    crowd_agent_set_velocity(w, id, (crowd_vec2){-inf, 0}));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_velocity(w, id, (crowd_vec2){0, nan}));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_SPEED, crowd_agent_set_limits(w, id, 0.0f, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_SPEED, crowd_agent_set_limits(w, id, -1.0f, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_SPEED, crowd_agent_set_limits(w, id, 1.0f, 0.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_SPEED, crowd_agent_set_limits(w, id, 1.0f, -2.0f));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_limits(w, id, nan, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_limits(w, id, 1.0f, inf));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_RADIUS, crowd_agent_set_radius(w, id, 0.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_RADIUS, crowd_agent_set_radius(w, id, -0.5f));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_radius(w, id, nan));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_radius(w, id, inf));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_RADIUS, crowd_agent_set_separation(w, id, 0.0f, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_RADIUS, crowd_agent_set_separation(w, id, -1.0f, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_WEIGHT, crowd_agent_set_separation(w, id, 1.0f, -0.1f));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_separation(w, id, nan, 1.0f));
    EXPECT_REJECTED(w, CROWD_ERR_NOT_FINITE, crowd_agent_set_separation(w, id, 1.0f, inf));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_set_goal(w, id, NULL));
    const crowd_agent_def good = good_agent();
    for (size_t i = 0; i < sizeof agent_cases / sizeof agent_cases[0]; ++i) {
        crowd_agent_def a = good;
        agent_cases[i].apply(&a);
        const bool goal_case = a.goal.mode != good.goal.mode || !SAME(&a, &good, goal.target) ||
                               !SAME(&a, &good, goal.slow_radius) || !SAME(&a, &good, goal.weight);
        if (!goal_case) continue;
        EXPECT_REJECTED(w, agent_cases[i].want, crowd_agent_set_goal(w, id, &a.goal));
    }
    crowd_agent_def d;
    crowd_vec2 v;
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_get_def(w, id, NULL));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_get_position(w, id, NULL));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_get_velocity(w, id, NULL));
    EXPECT_REJECTED(w, CROWD_ERR_NULL_ARGUMENT, crowd_agent_get_heading(w, id, NULL));
    expect_status(crowd_agent_get_def(NULL, id, &d), CROWD_ERR_NULL_ARGUMENT, "get_def(NULL)");
    expect_status(crowd_agent_get_position(NULL, id, &v), CROWD_ERR_NULL_ARGUMENT,
                  "get_position(NULL)");
    expect_status(crowd_agent_set_position(NULL, id, v), CROWD_ERR_NULL_ARGUMENT,
                  "set_position(NULL)");
    crowd_world_destroy(w);
}

// ---- bad handles --------------------------------------------------------------------------------

typedef crowd_status (*handle_op)(crowd_world*, crowd_agent_id);

static crowd_status op_remove(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_remove(w, id);
}
static crowd_status op_validate(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_validate(w, id);
}
static crowd_status op_get_def(crowd_world* w, crowd_agent_id id) {
    crowd_agent_def d;
    return crowd_agent_get_def(w, id, &d);
}
static crowd_status op_get_position(crowd_world* w, crowd_agent_id id) {
    crowd_vec2 v;
    return crowd_agent_get_position(w, id, &v);
}
static crowd_status op_get_velocity(crowd_world* w, crowd_agent_id id) {
    crowd_vec2 v;
    return crowd_agent_get_velocity(w, id, &v);
}
static crowd_status op_get_heading(crowd_world* w, crowd_agent_id id) {
    crowd_vec2 v;
    return crowd_agent_get_heading(w, id, &v);
}
static crowd_status op_set_position(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_set_position(w, id, (crowd_vec2){1.0f, 2.0f});
}
static crowd_status op_set_velocity(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_set_velocity(w, id, (crowd_vec2){0.5f, -0.5f});
}
static crowd_status op_set_limits(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_set_limits(w, id, 2.0f, 4.0f);
}
static crowd_status op_set_radius(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_set_radius(w, id, 0.4f);
}
static crowd_status op_set_separation(crowd_world* w, crowd_agent_id id) {
    return crowd_agent_set_separation(w, id, 1.5f, 0.5f);
}
static crowd_status op_set_goal(crowd_world* w, crowd_agent_id id) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    return crowd_agent_set_goal(w, id, &g);
}

static const struct {
    const char* name;
    handle_op op;
} handle_ops[] = {
    {"remove", op_remove},
    {"validate", op_validate},
    {"get_def", op_get_def},
    {"get_position", op_get_position},
    {"get_velocity", op_get_velocity},
    {"get_heading", op_get_heading},
    {"set_position", op_set_position},
    {"set_velocity", op_set_velocity},
    {"set_limits", op_set_limits},
    {"set_radius", op_set_radius},
    {"set_separation", op_set_separation},
    {"set_goal", op_set_goal},
};
enum { HANDLE_OPS = sizeof handle_ops / sizeof handle_ops[0] };

Test(world_handles, bad_handles_rejected_by_every_call) {
    crowd_agent_id a_ids[FIXTURE_AGENTS], b_ids[FIXTURE_AGENTS];
    crowd_world* a = fixture(1, a_ids, FIXTURE_AGENTS);
    crowd_world* b = fixture(2, b_ids, FIXTURE_AGENTS);

    // ids[3] and ids[7] were removed by the fixture; ids[8] is removed too and new agents are added
    // until its index is live again under another generation.
    const crowd_agent_id reused_old = a_ids[8];
    crowd_agent_id reused_new = {0};
    cr_assert_eq(crowd_agent_remove(a, reused_old), CROWD_OK);
    const crowd_agent_def def = good_agent();
    for (int k = 0; k < 3 && reused_new.index1 != reused_old.index1; ++k)
        cr_assert_eq(crowd_agent_add(a, &def, &reused_new), CROWD_OK);
    cr_assert_eq(reused_new.index1, reused_old.index1, "a freed index was not reused");
    cr_assert_neq(reused_new.generation, reused_old.generation);

    crowd_agent_id live_wrong_gen = a_ids[10];
    live_wrong_gen.generation++;
    const struct {
        const char* what;
        crowd_agent_id id;
        crowd_status want;
    } bad[] = {
        {"null handle", (crowd_agent_id){0}, CROWD_ERR_NULL_HANDLE},
        {"null handle with a tag", (crowd_agent_id){.world = 1}, CROWD_ERR_NULL_HANDLE},
        {"removed agent", a_ids[3], CROWD_ERR_STALE_HANDLE},
        {"removed agent (index reused)", reused_old, CROWD_ERR_STALE_HANDLE},
        {"live index, wrong generation", live_wrong_gen, CROWD_ERR_STALE_HANDLE},
        {"other world's handle", b_ids[10], CROWD_ERR_FOREIGN_HANDLE},
        {"never issued index",
         {.index1 = 5000, .generation = 0, .world = 1},
         CROWD_ERR_FOREIGN_HANDLE},
        {"index just past the issued ones",
         {.index1 = FIXTURE_AGENTS + 1, .world = 1},
         CROWD_ERR_FOREIGN_HANDLE},
        {"largest index", {.index1 = UINT32_MAX, .world = 1}, CROWD_ERR_FOREIGN_HANDLE},
    };
    for (size_t h = 0; h < sizeof bad / sizeof bad[0]; ++h) {
        for (int o = 0; o < HANDLE_OPS; ++o) {
            snapshot before, after;
            snap_take(a, &before);
            const crowd_status st = handle_ops[o].op(a, bad[h].id);
            cr_assert_eq(st, bad[h].want, "%s on %s: %s, expected %s", handle_ops[o].name,
                         bad[h].what, crowd_status_string(st), crowd_status_string(bad[h].want));
            cr_assert(crowd_status_string(st)[0]);
            snap_take(a, &after);
            snap_expect_same(&before, &after, handle_ops[o].name);
            snap_free(&before);
            snap_free(&after);
            expect_status(handle_ops[o].op(NULL, bad[h].id), CROWD_ERR_NULL_ARGUMENT,
                          handle_ops[o].name);
        }
    }
    // The good handles still work on their own world, and the foreign one still on its own.
    for (int o = 0; o < HANDLE_OPS; ++o) {
        if (handle_ops[o].op == op_remove) continue;
        expect_status(handle_ops[o].op(a, a_ids[10]), CROWD_OK, handle_ops[o].name);
        expect_status(handle_ops[o].op(b, b_ids[10]), CROWD_OK, handle_ops[o].name);
        expect_status(handle_ops[o].op(a, reused_new), CROWD_OK, handle_ops[o].name);
    }
    crowd_world_destroy(a);
    crowd_world_destroy(b);
}

Test(world_status, capacity_exhausted) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.capacity = 2; // grows to 4, then is capped at max_agents
    wd.max_agents = 5;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = good_agent();
    crowd_agent_id ids[5], extra;
    for (int i = 0; i < 5; ++i) {
        a.position.x = (float)i;
        a.user_data = (uint64_t)i;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    EXPECT_REJECTED(w, CROWD_ERR_CAPACITY, crowd_agent_add(w, &a, &extra));
    EXPECT_REJECTED(w, CROWD_ERR_BAD_CAPACITY, crowd_world_reserve(w, 6));
    expect_status(crowd_world_reserve(w, 5), CROWD_OK, "reserve(max_agents)");
    // A removal makes room again, under a new generation.
    cr_assert_eq(crowd_agent_remove(w, ids[2]), CROWD_OK);
    cr_assert_eq(crowd_agent_add(w, &a, &extra), CROWD_OK);
    cr_assert_eq(extra.index1, ids[2].index1);
    cr_assert_neq(extra.generation, ids[2].generation);
    EXPECT_REJECTED(w, CROWD_ERR_CAPACITY, crowd_agent_add(w, &a, &extra));
    crowd_world_destroy(w);

    // max_agents below the initial capacity caps it.
    wd.capacity = 100;
    wd.max_agents = 3;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    for (int i = 0; i < 3; ++i) cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    EXPECT_REJECTED(w, CROWD_ERR_CAPACITY, crowd_agent_add(w, &a, &extra));
    crowd_world_destroy(w);
}

// ---- memory -------------------------------------------------------------------------------------

Test(world_memory, out_of_memory_at_every_allocation_of_create) {
    long needed = -1;
    for (long k = 0; k < 200 && needed < 0; ++k) {
        alloc_log log;
        log_init(&log);
        log.fail_after = k;
        crowd_world_def wd = counted_def(&log);
        crowd_world* w = (crowd_world*)&log;
        const crowd_status st = crowd_world_create(&wd, &w);
        if (st == CROWD_OK) {
            needed = k;
            crowd_world_destroy(w);
        } else {
            expect_status(st, CROWD_ERR_OUT_OF_MEMORY, "create with a failing allocator");
            cr_assert_null(w);
        }
        expect_clean(&log, "create");
    }
    cr_assert_gt(needed, 1, "create needs several allocations (%ld)", needed);
}

Test(world_memory, out_of_memory_leaves_the_world_unchanged) {
    alloc_log log;
    log_init(&log);
    crowd_world_def wd = counted_def(&log);
    wd.capacity = 4;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = good_agent();
    crowd_agent_id ids[5];
    for (int i = 0; i < 4; ++i) {
        a.position.x = (float)i * 0.7f;
        a.user_data = (uint64_t)i;
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);

    // Fail the growth at every one of its allocations in turn.
    int failures = 0;
    for (long k = 0;; ++k) {
        const int blocks = log.blocks;
        log.fail_after = k;
        snapshot before, after;
        snap_take(w, &before);
        const crowd_status st = crowd_agent_add(w, &a, &ids[4]);
        if (st == CROWD_OK) {
            snap_free(&before);
            break;
        }
        expect_status(st, CROWD_ERR_OUT_OF_MEMORY, "add that must grow");
        snap_take(w, &after);
        snap_expect_same(&before, &after, "add that must grow");
        snap_free(&before);
        snap_free(&after);
        cr_assert_eq(log.blocks, blocks, "failed growth leaked or freed blocks");
        failures++;
    }
    cr_assert_gt(failures, 1);
    log.fail_after = -1;
    crowd_agent_def got;
    cr_assert_eq(crowd_agent_get_def(w, ids[4], &got), CROWD_OK);
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &got), CROWD_OK);
        cr_assert_eq(got.user_data, (uint64_t)i);
    }

    log.fail_after = 0;
    EXPECT_REJECTED(w, CROWD_ERR_OUT_OF_MEMORY, crowd_world_set_threads(w, 3));
    EXPECT_REJECTED(w, CROWD_ERR_OUT_OF_MEMORY, crowd_world_reserve(w, 1000));
    log.fail_after = 1;
    EXPECT_REJECTED(w, CROWD_ERR_OUT_OF_MEMORY, crowd_world_set_threads(w, 3));
    EXPECT_REJECTED(w, CROWD_ERR_OUT_OF_MEMORY, crowd_world_reserve(w, 1000));
    log.fail_after = -1;
    cr_assert_eq(crowd_world_set_threads(w, 3), CROWD_OK);
    cr_assert_eq(crowd_world_get_threads(w), 3);
    cr_assert_eq(crowd_world_reserve(w, 1000), CROWD_OK);
    // A step allocates nothing.
    const long allocs = log.allocs;
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(log.allocs, allocs, "a step allocated");
    crowd_world_destroy(w);
    expect_clean(&log, "destroy");
}

Test(world_memory, every_allocation_freed_at_destroy) {
    alloc_log log;
    log_init(&log);
    crowd_world_def wd = counted_def(&log);
    wd.capacity = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng r = {5};
    crowd_agent_id ids[2000];
    for (int i = 0; i < 2000; ++i) {
        crowd_agent_def a = good_agent();
        a.position = (crowd_vec2){rnd(&r, -30, 30), rnd(&r, -30, 30)};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        if (i % 500 == 0) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    }
    for (int i = 0; i < 2000; i += 2) cr_assert_eq(crowd_agent_remove(w, ids[i]), CROWD_OK);
    cr_assert_eq(crowd_world_set_threads(w, 3), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_world_set_threads(w, 1), CROWD_OK);
    cr_assert_eq(crowd_world_reserve(w, 5000), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_gt(log.allocs, 10);
    crowd_world_destroy(w);
    expect_clean(&log, "destroy");
}

// ---- behavior records ---------------------------------------------------------------------------
// Behaviors keep their state in records acquired by the API calls that start them: those calls
// may allocate (and on failure change nothing), a step never does.

static uint64_t digest_bytes(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

#define DIGEST(h, x) ((h) = digest_bytes((h), &(x), sizeof(x)))

static uint64_t digest_id(uint64_t h, crowd_agent_id id) {
    DIGEST(h, id.index1);
    DIGEST(h, id.generation);
    return DIGEST(h, id.world);
}

// Everything the behavior getters report for every agent, field by field (no padding bytes).
static uint64_t behavior_digest(const crowd_world* w) {
    uint64_t h = 0xcbf29ce484222325ull;
    const int n = crowd_world_agent_count(w);
    crowd_agent_id* ids = calloc((size_t)n + 1, sizeof *ids);
    cr_assert_not_null(ids);
    int count = 0;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, n, &count), CROWD_OK);
    for (int i = 0; i < count; ++i) {
        h = digest_id(h, ids[i]);
        crowd_queue_def q;
        const crowd_status qs = crowd_agent_get_queue(w, ids[i], &q);
        DIGEST(h, qs);
        if (qs == CROWD_OK) {
            DIGEST(h, q.cone_length), DIGEST(h, q.cone_width), DIGEST(h, q.goal);
            DIGEST(h, q.slow_radius), DIGEST(h, q.weight), DIGEST(h, q.arrival_radius);
            DIGEST(h, q.on_arrival), DIGEST(h, q.start_min), DIGEST(h, q.start_max);
        }
        crowd_path_follow_def p;
        crowd_path_cursor c;
        cr_assert_eq(crowd_agent_get_path(w, ids[i], &p, &c), CROWD_OK);
        DIGEST(h, p.path.index1), DIGEST(h, p.path.generation), DIGEST(h, p.kind);
        DIGEST(h, p.mode), DIGEST(h, p.arrive_radius), DIGEST(h, p.slow_radius);
        DIGEST(h, p.tube_radius), DIGEST(h, p.predict_ahead), DIGEST(h, p.weight);
        DIGEST(h, p.start_index), DIGEST(h, p.reverse);
        DIGEST(h, c.state), DIGEST(h, c.index), DIGEST(h, c.direction), DIGEST(h, c.segment);
        crowd_follow_info f;
        cr_assert_eq(crowd_agent_get_follow(w, ids[i], &f), CROWD_OK);
        DIGEST(h, f.state), DIGEST(h, f.slot), DIGEST(h, f.slot_pending);
        DIGEST(h, f.slot_offset), DIGEST(h, f.target), DIGEST(h, f.def.behind_dist);
        DIGEST(h, f.def.weight), DIGEST(h, f.def.target), DIGEST(h, f.def.predict);
        h = digest_id(h, f.leader);
        crowd_leader_info l;
        cr_assert_eq(crowd_leader_get_info(w, ids[i], &l), CROWD_OK);
        DIGEST(h, l.followers), DIGEST(h, l.slot_followers), DIGEST(h, l.shape);
        DIGEST(h, l.spacing), DIGEST(h, l.distance), DIGEST(h, l.columns);
        DIGEST(h, l.offset_count);
        h = digest_id(h, l.fallback);
        crowd_agent_id fl[64];
        int k = 0;
        cr_assert_eq(crowd_leader_get_followers(w, ids[i], fl, 64, &k), CROWD_OK);
        for (int j = 0; j < k; ++j) h = digest_id(h, fl[j]);
    }
    free(ids);
    return h;
}

// A counted world using every behavior: queues with each arrival policy right next to their goal,
// waypoint and tube followers, and two groups (one in a formation) with a fallback.
typedef struct behavior_world {
    crowd_world* w;
    crowd_agent_id ids[48];
    crowd_path_id path;
} behavior_world;

enum { BW_AGENTS = 48 };

// Plain agents (default goals) and a path nobody follows yet.
static void plain_world_make(behavior_world* b, alloc_log* log, int capacity) {
    crowd_world_def wd = counted_def(log);
    wd.capacity = capacity;
    cr_assert_eq(crowd_world_create(&wd, &b->w), CROWD_OK);
    crowd_world* w = b->w;
    scene_rng r = {11};
    for (int i = 0; i < BW_AGENTS; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){rnd(&r, -10, 10), rnd(&r, -10, 10)};
        a.velocity = (crowd_vec2){rnd(&r, -1, 1), rnd(&r, -1, 1)};
        cr_assert_eq(crowd_agent_add(w, &a, &b->ids[i]), CROWD_OK);
    }
    const crowd_vec2 pts[] = {{-8, -8}, {8, -8}, {8, 8}, {-8, 8}};
    cr_assert_eq(crowd_path_create(w, pts, 4, &b->path), CROWD_OK);
}

static void behavior_world_make(behavior_world* b, alloc_log* log) {
    plain_world_make(b, log, 4); // grows while the agents are added
    crowd_world* w = b->w;
    for (int i = 0; i < 12; ++i) {
        crowd_queue_def q = crowd_queue_def_default();
        crowd_vec2 p;
        cr_assert_eq(crowd_agent_get_position(w, b->ids[i], &p), CROWD_OK);
        q.goal = (crowd_vec2){p.x + 0.6f, p.y}; // arrives within a few steps
        q.on_arrival = (crowd_queue_policy)(i % CROWD_QUEUE_POLICY_COUNT);
        q.start_min = (crowd_vec2){-10, -10};
        q.start_max = (crowd_vec2){10, 10};
        cr_assert_eq(crowd_agent_set_queue(w, b->ids[i], &q), CROWD_OK);
    }
    for (int i = 12; i < 24; ++i) {
        crowd_path_follow_def p = crowd_path_follow_def_default();
        p.path = b->path;
        p.kind = (crowd_path_kind)(i % CROWD_PATH_KIND_COUNT);
        cr_assert_eq(crowd_agent_set_path(w, b->ids[i], &p), CROWD_OK);
    }
    crowd_formation_def f = crowd_formation_def_default();
    f.shape = CROWD_FORMATION_WEDGE;
    cr_assert_eq(crowd_leader_set_formation(w, b->ids[24], &f), CROWD_OK);
    cr_assert_eq(crowd_leader_set_fallback(w, b->ids[24], b->ids[36]), CROWD_OK);
    for (int i = 25; i < BW_AGENTS; ++i) {
        if (i == 36) continue;
        crowd_follow_def d = crowd_follow_def_default();
        d.target = i < 36 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
        cr_assert_eq(crowd_agent_follow(w, b->ids[i], b->ids[i < 36 ? 24 : 36], &d), CROWD_OK);
    }
}

Test(world_memory, steps_with_behaviors_allocate_nothing) {
    alloc_log log;
    log_init(&log);
    behavior_world b;
    behavior_world_make(&b, &log);
    crowd_world* w = b.w;
    // A queueing agent removed on arrival, inside a step, hands its group to its fallback.
    const crowd_follow_def behind = crowd_follow_def_default();
    cr_assert_eq(crowd_agent_follow(w, b.ids[22], b.ids[1], &behind), CROWD_OK);
    cr_assert_eq(crowd_agent_follow(w, b.ids[23], b.ids[1], &behind), CROWD_OK);
    cr_assert_eq(crowd_leader_set_fallback(w, b.ids[1], b.ids[2]), CROWD_OK);
    int arrivals = 0;
    for (int t = 0; t < 60; ++t) {
        if (t == 20) {
            // Between steps the API may allocate: the leader goes, its group moves to the fallback
            // (slots to reassign in the next step), a queueing agent queues again.
            cr_assert_eq(crowd_agent_remove(w, b.ids[24]), CROWD_OK);
            crowd_queue_def q = crowd_queue_def_default();
            cr_assert_eq(crowd_agent_set_queue(w, b.ids[0], &q), CROWD_OK); // a STOP queue
        }
        const long allocs = log.allocs, frees = log.frees;
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_eq(log.allocs, allocs, "step %d allocated", t);
        cr_assert_eq(log.frees, frees, "step %d freed", t);
        arrivals += crowd_world_arrival_count(w);
    }
    cr_assert_geq(arrivals, 8, "the queues' arrival policies ran (%d arrivals)", arrivals);
    cr_assert_eq(crowd_agent_validate(w, b.ids[1]), CROWD_ERR_STALE_HANDLE, "removed on arrival");
    crowd_leader_info li;
    cr_assert_eq(crowd_leader_get_info(w, b.ids[2], &li), CROWD_OK);
    cr_assert_eq(li.followers, 2, "the fallback took the arrived leader's group");
    cr_assert_eq(crowd_leader_get_info(w, b.ids[36], &li), CROWD_OK);
    cr_assert_eq(li.followers, BW_AGENTS - 26, "the fallback took the removed leader's group");
    crowd_world_destroy(w);
    expect_clean(&log, "destroy");
}

// Fails a behavior call at each of its allocations in turn: every failure reports
// CROWD_ERR_OUT_OF_MEMORY and leaves everything observable as it was; then the call succeeds.
typedef crowd_status (*behavior_call)(behavior_world* b);

// A goal of a new profile, which a full profile table (the FULL world's) has no room for.
static crowd_status call_set_goal(behavior_world* b) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = (crowd_vec2){1, 2};
    return crowd_agent_set_goal(b->w, b->ids[40], &g);
}
static crowd_status call_add_with_goal(behavior_world* b) {
    crowd_agent_def a = good_agent();
    crowd_agent_id id;
    return crowd_agent_add(b->w, &a, &id);
}
static crowd_status call_set_queue(behavior_world* b) {
    crowd_queue_def q = crowd_queue_def_default();
    return crowd_agent_set_queue(b->w, b->ids[44], &q);
}
static crowd_status call_set_path(behavior_world* b) {
    crowd_path_follow_def p = crowd_path_follow_def_default();
    p.path = b->path;
    return crowd_agent_set_path(b->w, b->ids[45], &p);
}
static crowd_status call_follow_slot(behavior_world* b) {
    crowd_follow_def d = crowd_follow_def_default();
    d.target = CROWD_FOLLOW_SLOT;
    return crowd_agent_follow(b->w, b->ids[46], b->ids[47], &d);
}
static crowd_status call_custom_formation(behavior_world* b) {
    const crowd_vec2 offsets[] = {{-1, 1}, {-1, -1}, {-2, 0}};
    crowd_formation_def f = crowd_formation_def_default();
    f.shape = CROWD_FORMATION_CUSTOM;
    f.offsets = offsets;
    f.offset_count = 3;
    return crowd_leader_set_formation(b->w, b->ids[45], &f);
}
static crowd_status call_fallback(behavior_world* b) {
    return crowd_leader_set_fallback(b->w, b->ids[44], b->ids[24]);
}

typedef enum world_kind {
    PLAIN,     // no behavior yet: the call acquires the first record of its kind
    BEHAVIORS, // every behavior in use
    FULL,      // capacity 16, every agent of the first 16 with a goal and a queue record, then
               // more agents: the pools hold records and are full, so the call must grow one
} world_kind;

typedef struct behavior_case {
    const char* what;
    behavior_call call;
    world_kind world;
} behavior_case;

static void full_world_make(behavior_world* b, alloc_log* log) {
    crowd_world_def wd = counted_def(log);
    wd.capacity = 16;
    cr_assert_eq(crowd_world_create(&wd, &b->w), CROWD_OK);
    crowd_world* w = b->w;
    scene_rng r = {12};
    for (int i = 0; i < BW_AGENTS; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){rnd(&r, -10, 10), rnd(&r, -10, 10)};
        cr_assert_eq(crowd_agent_add(w, &a, &b->ids[i]), CROWD_OK);
        if (i >= 16) continue;
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){rnd(&r, -10, 10), rnd(&r, -10, 10)};
        // Each its own slow radius: the goal and queue profiles fill their tables too.
        q.slow_radius = 1.0f + 0.01f * (float)i;
        cr_assert_eq(crowd_agent_set_queue(w, b->ids[i], &q), CROWD_OK);
    }
    const crowd_vec2 pts[] = {{-8, -8}, {8, -8}};
    cr_assert_eq(crowd_path_create(w, pts, 2, &b->path), CROWD_OK);
}

static void expect_oom_then_success(const behavior_case* c) {
    alloc_log log;
    log_init(&log);
    behavior_world b;
    if (c->world == PLAIN) plain_world_make(&b, &log, BW_AGENTS);
    if (c->world == BEHAVIORS) behavior_world_make(&b, &log);
    if (c->world == FULL) full_world_make(&b, &log);
    for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(b.w), CROWD_OK);
    int failures = 0;
    for (long k = 0;; ++k) {
        log.fail_after = k;
        snapshot before, after;
        snap_take(b.w, &before);
        const uint64_t behaviors = behavior_digest(b.w);
        const crowd_status st = c->call(&b);
        log.fail_after = -1;
        if (st == CROWD_OK) {
            snap_free(&before);
            break;
        }
        expect_status(st, CROWD_ERR_OUT_OF_MEMORY, c->what);
        snap_take(b.w, &after);
        snap_expect_same(&before, &after, c->what);
        cr_assert_eq(behavior_digest(b.w), behaviors, "%s: a behavior changed", c->what);
        snap_free(&before);
        snap_free(&after);
        failures++;
    }
    cr_assert_gt(failures, 0, "%s: needed no memory", c->what);
    const long allocs = log.allocs;
    for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(b.w), CROWD_OK);
    cr_assert_eq(log.allocs, allocs, "%s: a later step allocated", c->what);
    crowd_world_destroy(b.w);
    expect_clean(&log, c->what);
}

Test(world_memory, behavior_calls_out_of_memory_leave_the_world_unchanged) {
    const behavior_case cases[] = {
        {"set_goal, first goal", call_set_goal, PLAIN},
        {"add with a goal, first goal", call_add_with_goal, PLAIN},
        {"set_queue, first queue", call_set_queue, PLAIN},
        {"set_path, first path follower", call_set_path, PLAIN},
        {"follow a slot, first group", call_follow_slot, PLAIN},
        {"custom formation, first leader", call_custom_formation, PLAIN},
        {"set_fallback, first leader", call_fallback, PLAIN},
        {"custom formation of a follower", call_custom_formation, BEHAVIORS},
        {"set_goal, full pool", call_set_goal, FULL},
        {"set_queue, full pools", call_set_queue, FULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) expect_oom_then_success(&cases[i]);
}

// ---- growth -------------------------------------------------------------------------------------

// Headings whose normalization is exact in float, so the stored heading is known bit for bit.
static const crowd_vec2 exact_headings[4][2] = {
    {{1, 0}, {1, 0}}, {{0, -2}, {0, -1}}, {{3, 4}, {0.6f, 0.8f}}, {{-8, 6}, {-0.8f, 0.6f}}};

static crowd_agent_def numbered_agent(int i, scene_rng* r) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){rnd(r, -40, 40), rnd(r, -40, 40)};
    a.velocity = (crowd_vec2){rnd(r, -1, 1), rnd(r, -1, 1)};
    a.heading = exact_headings[i % 4][0];
    a.radius = rnd(r, 0.1f, 0.5f);
    a.max_speed = rnd(r, 0.5f, 2.5f);
    a.max_force = rnd(r, 1.0f, 5.0f);
    a.separation_radius = rnd(r, 0.5f, 2.0f);
    a.separation_weight = rnd(r, 0.0f, 2.0f);
    a.goal.mode = (crowd_goal_mode)(i % CROWD_GOAL_MODE_COUNT);
    a.goal.target = (crowd_vec2){rnd(r, -40, 40), rnd(r, -40, 40)};
    a.goal.slow_radius = rnd(r, 0.5f, 5.0f);
    a.goal.weight = rnd(r, 0.0f, 2.0f);
    a.user_data = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    return a;
}

Test(world_growth, growth_keeps_every_agent) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.capacity = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    enum { N = 3000 };
    crowd_agent_id* ids = calloc(N, sizeof *ids);
    crowd_agent_def* defs = calloc(N, sizeof *defs);
    cr_assert(ids && defs);
    scene_rng r = {99};
    for (int i = 0; i < N; ++i) {
        defs[i] = numbered_agent(i, &r);
        cr_assert_eq(crowd_agent_add(w, &defs[i], &ids[i]), CROWD_OK);
        defs[i].heading = exact_headings[i % 4][1]; // stored normalized
        if ((i & (i + 1)) == 0) { // after every power-of-two growth, everyone is intact
            for (int j = 0; j <= i; ++j) {
                crowd_agent_def got;
                cr_assert_eq(crowd_agent_get_def(w, ids[j], &got), CROWD_OK);
                cr_assert(def_equal(&got, &defs[j]), "agent %d changed when %d agents were added",
                          j, i + 1);
            }
        }
    }
    cr_assert_eq(crowd_world_agent_count(w), N);
    cr_assert_eq(crowd_world_reserve(w, 3 * N), CROWD_OK);
    for (int j = 0; j < N; ++j) {
        crowd_agent_def got;
        cr_assert_eq(crowd_agent_get_def(w, ids[j], &got), CROWD_OK);
        cr_assert(def_equal(&got, &defs[j]), "agent %d changed by reserve", j);
    }
    // After a step the parameters are still each agent's own.
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    for (int j = 0; j < N; ++j) {
        crowd_agent_def got;
        cr_assert_eq(crowd_agent_get_def(w, ids[j], &got), CROWD_OK);
        got.position = defs[j].position;
        got.velocity = defs[j].velocity;
        got.heading = defs[j].heading;
        cr_assert(def_equal(&got, &defs[j]), "agent %d's parameters changed by a step", j);
    }
    free(ids);
    free(defs);
    crowd_world_destroy(w);
}

// ---- handles through random add / remove / teleport / step --------------------------------------

typedef struct tracked {
    crowd_agent_id id;
    uint64_t user;
    bool alive;
    bool probe; // alone far away with no goal: its next step is integrate(force 0), exactly
} tracked;

typedef struct handle_world {
    crowd_world* w;
    tracked* t;
    int n, alive;
    int* live_of_index; // tracked entry holding each live index1, -1 when none
} handle_world;

static void sweep(const handle_world* hw, const char* when) {
    const int n = crowd_world_agent_count(hw->w);
    cr_assert_eq(n, hw->alive, "%s: %d agents, %d expected", when, n, hw->alive);
    for (int i = 0; i < hw->n; ++i) {
        const tracked* t = &hw->t[i];
        if (!t->alive) {
            cr_assert_eq(crowd_agent_validate(hw->w, t->id), CROWD_ERR_STALE_HANDLE,
                         "%s: removed handle %u/%u not stale", when, t->id.index1,
                         t->id.generation);
            continue;
        }
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(hw->w, t->id, &d), CROWD_OK);
        cr_assert_eq(d.user_data, t->user, "%s: handle %u/%u names agent %llu, not %llu", when,
                     t->id.index1, t->id.generation, (unsigned long long)d.user_data,
                     (unsigned long long)t->user);
    }

    // Bulk read: handle order, every live agent once, values equal the per-agent getters.
    crowd_agent_id* ids = calloc((size_t)n + 1, sizeof *ids);
    crowd_vec2* pos = calloc((size_t)n + 1, sizeof *pos);
    crowd_vec2* vel = calloc((size_t)n + 1, sizeof *vel);
    cr_assert(ids && pos && vel);
    int count = -1;
    cr_assert_eq(crowd_world_get_agents(hw->w, ids, pos, vel, n, &count), CROWD_OK);
    cr_assert_eq(count, n);
    for (int k = 0; k < n; ++k) {
        if (k > 0) cr_assert_lt(ids[k - 1].index1, ids[k].index1, "%s: not in handle order", when);
        cr_assert(ids[k].index1 > 0);
        const int e = hw->live_of_index[ids[k].index1];
        cr_assert_geq(e, 0, "%s: bulk read lists index %u, which is not live", when, ids[k].index1);
        cr_assert(crowd_agent_id_equal(ids[k], hw->t[e].id), "%s: bulk handle differs", when);
        crowd_vec2 p, v;
        cr_assert_eq(crowd_agent_get_position(hw->w, ids[k], &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(hw->w, ids[k], &v), CROWD_OK);
        cr_assert(memcmp(&p, &pos[k], sizeof p) == 0 && memcmp(&v, &vel[k], sizeof v) == 0,
                  "%s: bulk state of %u differs from the getters", when, ids[k].index1);
    }
    // Any subset of the arrays may be requested.
    crowd_vec2* pos2 = calloc((size_t)n + 1, sizeof *pos2);
    cr_assert_not_null(pos2);
    cr_assert_eq(crowd_world_get_agents(hw->w, NULL, pos2, NULL, n, &count), CROWD_OK);
    cr_assert_eq(memcmp(pos, pos2, sizeof *pos * (size_t)n), 0);
    free(pos2);
    free(ids);
    free(pos);
    free(vel);
}

static int pick_alive(const handle_world* hw, scene_rng* r) {
    if (hw->alive == 0) return -1;
    for (;;) {
        const int i = rndi(r, hw->n);
        if (hw->t[i].alive) return i;
    }
}

Test(world_handles, random_add_remove_teleport_step) {
    const int ops = small_scale() ? 1500 : 5000;
    handle_world hw = {0};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 2;
    wd.capacity = 16;
    wd.world_tag = 3;
    cr_assert_eq(crowd_world_create(&wd, &hw.w), CROWD_OK);
    hw.t = calloc((size_t)ops, sizeof *hw.t);
    hw.live_of_index = malloc(sizeof(int) * ((size_t)ops + 2));
    cr_assert(hw.t && hw.live_of_index);
    for (int i = 0; i < ops + 2; ++i) hw.live_of_index[i] = -1;
    const float dt = crowd_world_get_dt(hw.w);
    scene_rng r = {2024};
    int reused = 0, teleports = 0, steps = 0, probe_checks = 0;

    for (int op = 0; op < ops; ++op) {
        const int roll = rndi(&r, 100);
        if (roll < 35 || hw.alive == 0) { // add
            crowd_agent_def a = crowd_agent_def_default();
            a.position = (crowd_vec2){rnd(&r, -25, 25), rnd(&r, -25, 25)};
            a.velocity = (crowd_vec2){rnd(&r, -1, 1), rnd(&r, -1, 1)};
            a.goal.mode = (crowd_goal_mode)rndi(&r, CROWD_GOAL_MODE_COUNT);
            a.goal.target = (crowd_vec2){rnd(&r, -25, 25), rnd(&r, -25, 25)};
            a.user_data = 0xC0FFEE00ull + (uint64_t)hw.n;
            tracked* t = &hw.t[hw.n];
            cr_assert_eq(crowd_agent_add(hw.w, &a, &t->id), CROWD_OK);
            cr_assert_eq(t->id.world, 3);
            cr_assert_leq(t->id.index1, (uint32_t)ops + 1);
            cr_assert_eq(hw.live_of_index[t->id.index1], -1, "add returned a live index");
            bool seen = false;
            for (int i = 0; i < hw.n; ++i) {
                if (hw.t[i].id.index1 != t->id.index1) continue;
                cr_assert_neq(hw.t[i].id.generation, t->id.generation,
                              "index %u reused with an old generation", t->id.index1);
                seen = true;
            }
            reused += seen;
            t->user = a.user_data;
            t->alive = true;
            hw.live_of_index[t->id.index1] = hw.n;
            hw.n++;
            hw.alive++;
        } else if (roll < 55) { // remove
            const int i = pick_alive(&hw, &r);
            tracked* t = &hw.t[i];
            cr_assert_eq(crowd_agent_remove(hw.w, t->id), CROWD_OK);
            t->alive = false;
            t->probe = false;
            hw.live_of_index[t->id.index1] = -1;
            hw.alive--;
            cr_assert_eq(crowd_agent_validate(hw.w, t->id), CROWD_ERR_STALE_HANDLE);
            cr_assert_eq(crowd_agent_remove(hw.w, t->id), CROWD_ERR_STALE_HANDLE);
        } else if (roll < 75) { // teleport: into the crowd, or far away alone as a probe
            const int i = pick_alive(&hw, &r);
            tracked* t = &hw.t[i];
            const bool probe = rndi(&r, 3) == 0;
            // Probes sit 200 m apart: at most 1.5 m/s for the whole run keeps them alone.
            const crowd_vec2 p = probe ? (crowd_vec2){1e4f + 200.0f * (float)(i % 64),
                                                      1e4f + 200.0f * (float)(i / 64)}
                                       : (crowd_vec2){rnd(&r, -25, 25), rnd(&r, -25, 25)};
            const crowd_vec2 v = {rnd(&r, -1.5f, 1.5f), rnd(&r, -1.5f, 1.5f)};
            cr_assert_eq(crowd_agent_set_position(hw.w, t->id, p), CROWD_OK);
            cr_assert_eq(crowd_agent_set_velocity(hw.w, t->id, v), CROWD_OK);
            if (probe) {
                crowd_goal none = crowd_goal_default();
                cr_assert_eq(crowd_agent_set_goal(hw.w, t->id, &none), CROWD_OK);
            }
            t->probe = probe;
            crowd_vec2 gp, gv;
            cr_assert_eq(crowd_agent_get_position(hw.w, t->id, &gp), CROWD_OK);
            cr_assert_eq(crowd_agent_get_velocity(hw.w, t->id, &gv), CROWD_OK);
            cr_assert(memcmp(&gp, &p, sizeof p) == 0 && memcmp(&gv, &v, sizeof v) == 0,
                      "teleport not read back");
            teleports++;
        } else if (roll < 85) { // step; probes move exactly as integrate with no force says
            crowd_agent_def* before = calloc((size_t)hw.n + 1, sizeof *before);
            cr_assert_not_null(before);
            for (int i = 0; i < hw.n; ++i)
                if (hw.t[i].probe)
                    cr_assert_eq(crowd_agent_get_def(hw.w, hw.t[i].id, &before[i]), CROWD_OK);
            cr_assert_eq(crowd_world_step(hw.w), CROWD_OK);
            steps++;
            for (int i = 0; i < hw.n; ++i) {
                if (!hw.t[i].probe) continue;
                crowd_agent_def* b = &before[i];
                crowd_steer_integrate(&b->position, &b->velocity, &b->heading, (crowd_vec2){0, 0},
                                      b->max_speed, b->max_force, dt);
                crowd_vec2 gp, gv;
                cr_assert_eq(crowd_agent_get_position(hw.w, hw.t[i].id, &gp), CROWD_OK);
                cr_assert_eq(crowd_agent_get_velocity(hw.w, hw.t[i].id, &gv), CROWD_OK);
                cr_assert(memcmp(&gp, &b->position, sizeof gp) == 0 &&
                              memcmp(&gv, &b->velocity, sizeof gv) == 0,
                          "probe %d: (%.9g, %.9g) after the step, expected (%.9g, %.9g)", i,
                          (double)gp.x, (double)gp.y, (double)b->position.x, (double)b->position.y);
                probe_checks++;
            }
            free(before);
        } else { // other calls on live and removed handles
            const int i = rndi(&r, hw.n);
            const tracked* t = &hw.t[i];
            const crowd_status want = t->alive ? CROWD_OK : CROWD_ERR_STALE_HANDLE;
            cr_assert_eq(crowd_agent_set_separation(hw.w, t->id, 1.2f, 1.0f), want);
            cr_assert_eq(crowd_agent_set_limits(hw.w, t->id, 1.5f, 3.0f), want);
        }
        if (op % 100 == 99) sweep(&hw, "periodic sweep");
    }
    sweep(&hw, "final sweep");
    cr_assert_gt(reused, 10, "indices were reused only %d times", reused);
    cr_assert(teleports > 10 && steps > 10 && probe_checks > 10,
              "teleports %d, steps %d, probe checks %d", teleports, steps, probe_checks);
    crowd_world_destroy(hw.w);
    free(hw.t);
    free(hw.live_of_index);
}

// A world with no agents (never had any, or all removed) steps, hashes and reads back as empty.
Test(world_growth, empty_world) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 3;
    wd.capacity = 0;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    const uint64_t empty = crowd_world_state_hash(w);
    for (int t = 0; t < 3; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    int count = -1;
    cr_assert_eq(crowd_world_get_agents(w, NULL, NULL, NULL, 0, &count), CROWD_OK);
    cr_assert_eq(count, 0);
    cr_assert_eq(crowd_world_state_hash(w), empty);

    const crowd_agent_def a = good_agent();
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    cr_assert_neq(crowd_world_state_hash(w), empty);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, id), CROWD_OK);
    cr_assert_eq(crowd_world_state_hash(w), empty, "an emptied world hashes like an empty one");
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_world_agent_count(w), 0);
    cr_assert_eq(crowd_world_tick(w), 5u);
    crowd_world_destroy(w);
}
