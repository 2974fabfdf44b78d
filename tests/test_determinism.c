// Determinism across thread counts: the same world stepped with 1, 2, 3 and 8 threads, with the
// same agents added, removed and teleported between steps, stays bit-identical (state hash, bulk
// state and every agent's full state) for 1,000 ticks.
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

static const int thread_counts[] = {1, 2, 3, 8};
enum { WORLDS = sizeof thread_counts / sizeof thread_counts[0] };

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

typedef struct bulk {
    int count;
    crowd_agent_id* ids;
    crowd_vec2 *pos, *vel;
} bulk;

static void bulk_read(const crowd_world* w, bulk* b, int capacity) {
    cr_assert_eq(crowd_world_get_agents(w, b->ids, b->pos, b->vel, capacity, &b->count), CROWD_OK);
    cr_assert_eq(b->count, crowd_world_agent_count(w));
}

static void bulk_alloc(bulk* b, int capacity) {
    b->ids = calloc((size_t)capacity, sizeof *b->ids);
    b->pos = calloc((size_t)capacity, sizeof *b->pos);
    b->vel = calloc((size_t)capacity, sizeof *b->vel);
    cr_assert(b->ids && b->pos && b->vel);
}

static void bulk_free(bulk* b) {
    free(b->ids);
    free(b->pos);
    free(b->vel);
}

static float rnd(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}
static int rndi(scene_rng* r, int n) {
    return (int)(scene_rng_next(r) % (uint64_t)n);
}

// Between steps: remove ~1% of the agents, add as many new ones, teleport and re-aim some, send a
// few far away (forcing the sparse grid layout) and, later on, bring them back. Every random draw
// comes from `r` in a fixed order, so a deterministic world sees the same operations whatever its
// thread count. Every handle that add returns is appended to `issued`.
static void churn(crowd_world* w, scene_rng* r, float half, bool recall, bulk* live,
                  crowd_agent_id* issued, int* issued_count) {
    const int k = live->count / 100 + 1;
    for (int i = 0; i < k && live->count > 0; ++i) {
        const int j = rndi(r, live->count);
        cr_assert_eq(crowd_agent_remove(w, live->ids[j]), CROWD_OK);
        --live->count; // the same handle is never removed twice
        live->ids[j] = live->ids[live->count];
        live->pos[j] = live->pos[live->count];
    }
    for (int i = 0; i < k; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){rnd(r, -half, half), rnd(r, -half, half)};
        a.velocity = (crowd_vec2){rnd(r, -1, 1), rnd(r, -1, 1)};
        a.max_speed = rnd(r, 0.8f, 2.0f);
        a.separation_radius = rnd(r, 0.8f, 2.0f);
        a.goal.mode = (crowd_goal_mode)rndi(r, CROWD_GOAL_MODE_COUNT);
        a.goal.target = (crowd_vec2){rnd(r, -half, half), rnd(r, -half, half)};
        a.goal.slow_radius = 2.0f;
        cr_assert_eq(crowd_agent_add(w, &a, &issued[*issued_count]), CROWD_OK);
        ++*issued_count;
    }
    for (int i = 0; i < k && live->count > 0; ++i) {
        const crowd_agent_id id = live->ids[rndi(r, live->count)];
        const bool far = !recall && rndi(r, 8) == 0;
        const crowd_vec2 p = far ? (crowd_vec2){rnd(r, 1e5f, 2e5f), rnd(r, -2e5f, -1e5f)}
                                 : (crowd_vec2){rnd(r, -half, half), rnd(r, -half, half)};
        const crowd_vec2 v = {rnd(r, -2, 2), rnd(r, -2, 2)};
        crowd_goal g = crowd_goal_default();
        g.mode = (crowd_goal_mode)rndi(r, CROWD_GOAL_MODE_COUNT);
        g.target = (crowd_vec2){rnd(r, -half, half), rnd(r, -half, half)};
        g.weight = rnd(r, 0.2f, 1.5f);
        const float sep_radius = rnd(r, 0.6f, 2.5f), sep_weight = rnd(r, 0.0f, 2.0f);
        const float max_speed = rnd(r, 0.5f, 2.5f), max_force = rnd(r, 1.0f, 5.0f);
        cr_assert_eq(crowd_agent_set_position(w, id, p), CROWD_OK);
        cr_assert_eq(crowd_agent_set_velocity(w, id, v), CROWD_OK);
        cr_assert_eq(crowd_agent_set_goal(w, id, &g), CROWD_OK);
        cr_assert_eq(crowd_agent_set_separation(w, id, sep_radius, sep_weight), CROWD_OK);
        cr_assert_eq(crowd_agent_set_limits(w, id, max_speed, max_force), CROWD_OK);
    }
    if (recall) { // everyone sent far away comes back into the square
        for (int i = 0; i < live->count; ++i) {
            if (live->pos[i].x < 5e4f) continue;
            const crowd_vec2 p = {rnd(r, -half, half), rnd(r, -half, half)};
            cr_assert_eq(crowd_agent_set_position(w, live->ids[i], p), CROWD_OK);
        }
    }
}

enum { CHECK_EVERY = 50, CHURN_EVERY = 20 };

// Everything one run produces that must not depend on the thread count.
typedef struct record {
    uint64_t* hashes; // after every CHECK_EVERY ticks
    crowd_agent_id* issued;
    int issued_count;
    bulk final;
    crowd_vec2* headings; // final, in handle order
    bool went_sparse;
} record;

// Each thread count runs on its own, start to end: interleaving OpenMP teams of different sizes on
// one thread is very slow on small machines, and a run must not see another run's state anyway.
static void run_scene(scene_kind kind, int agents, int ticks, int threads, record* rec) {
    scene_def d = scene_def_default();
    d.kind = kind;
    d.agents = agents;
    d.seed = 7;
    d.threads = threads;
    crowd_world* w;
    cr_assert_eq(scene_create(&d, &w), CROWD_OK);
    cr_assert_eq(crowd_world_get_threads(w), threads);
    const float half = scene_side(&d) * 0.5f;
    const int capacity = agents * 2;
    const int churns = ticks / CHURN_EVERY + 1;
    rec->hashes = calloc((size_t)(ticks / CHECK_EVERY + 2), sizeof *rec->hashes);
    rec->issued = calloc((size_t)churns * (size_t)(capacity / 100 + 1), sizeof *rec->issued);
    rec->headings = calloc((size_t)capacity, sizeof *rec->headings);
    cr_assert(rec->hashes && rec->issued && rec->headings);
    bulk_alloc(&rec->final, capacity);

    bulk live;
    bulk_alloc(&live, capacity);
    scene_rng r = {1234};
    int checks = 0;
    rec->hashes[checks++] = crowd_world_state_hash(w);
    for (int tick = 0; tick < ticks; ++tick) {
        if (tick % CHURN_EVERY == CHURN_EVERY / 2) {
            bulk_read(w, &live, capacity);
            for (int i = 0; i < live.count; ++i) rec->went_sparse |= live.pos[i].x > 5e4f;
            churn(w, &r, half, tick >= ticks / 2, &live, rec->issued, &rec->issued_count);
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        if (tick % CHECK_EVERY == CHECK_EVERY - 1)
            rec->hashes[checks++] = crowd_world_state_hash(w);
    }
    rec->hashes[checks] = crowd_world_state_hash(w);
    cr_assert_eq(crowd_world_tick(w), (uint64_t)ticks);
    bulk_read(w, &rec->final, capacity);
    for (int i = 0; i < rec->final.count; ++i)
        cr_assert_eq(crowd_agent_get_heading(w, rec->final.ids[i], &rec->headings[i]), CROWD_OK);
    bulk_free(&live);
    crowd_world_destroy(w);
}

static void record_free(record* rec) {
    free(rec->hashes);
    free(rec->issued);
    free(rec->headings);
    bulk_free(&rec->final);
}

static void expect_same_run(const record* a, const record* b, int ticks, int threads) {
    for (int c = 0; c <= ticks / CHECK_EVERY + 1; ++c)
        cr_assert_eq(b->hashes[c], a->hashes[c],
                     "state hash after %d ticks: %d threads %016llx, 1 thread %016llx",
                     c == ticks / CHECK_EVERY + 1 ? ticks : c * CHECK_EVERY, threads,
                     (unsigned long long)b->hashes[c], (unsigned long long)a->hashes[c]);
    cr_assert_eq(b->issued_count, a->issued_count);
    cr_assert_eq(memcmp(b->issued, a->issued, sizeof *a->issued * (size_t)a->issued_count), 0,
                 "add returned different handles on %d threads", threads);
    cr_assert_eq(b->final.count, a->final.count);
    const size_t n = (size_t)a->final.count;
    cr_assert_eq(memcmp(b->final.ids, a->final.ids, n * sizeof *a->final.ids), 0,
                 "final handles differ on %d threads", threads);
    for (size_t i = 0; i < n; ++i) {
        const crowd_vec2 *pa = &a->final.pos[i], *pb = &b->final.pos[i];
        const crowd_vec2 *va = &a->final.vel[i], *vb = &b->final.vel[i];
        cr_assert(memcmp(pa, pb, sizeof *pa) == 0 && memcmp(va, vb, sizeof *va) == 0 &&
                      memcmp(&a->headings[i], &b->headings[i], sizeof(crowd_vec2)) == 0,
                  "agent %u: %d threads p (%.9g, %.9g) v (%.9g, %.9g), 1 thread p (%.9g, %.9g) "
                  "v (%.9g, %.9g)",
                  a->final.ids[i].index1, threads, (double)pb->x, (double)pb->y, (double)vb->x,
                  (double)vb->y, (double)pa->x, (double)pa->y, (double)va->x, (double)va->y);
    }
}

static void check_scene(scene_kind kind, int agents, int ticks) {
    record rec[WORLDS] = {0};
    for (int t = 0; t < WORLDS; ++t) run_scene(kind, agents, ticks, thread_counts[t], &rec[t]);
    cr_assert_neq(rec[0].hashes[ticks / CHECK_EVERY + 1], rec[0].hashes[0],
                  "the world did not change");
    cr_assert(rec[0].went_sparse, "no agent was ever teleported far away");
    cr_assert_gt(rec[0].issued_count, 0);
    for (int t = 1; t < WORLDS; ++t) expect_same_run(&rec[0], &rec[t], ticks, thread_counts[t]);
    for (int t = 0; t < WORLDS; ++t) record_free(&rec[t]);
}

Test(determinism, mixed_scene_threads_1_2_3_8) {
    if (small_scale())
        check_scene(SCENE_MIXED, 1000, 200);
    else
        check_scene(SCENE_MIXED, 5000, 1000);
}

Test(determinism, crossing_scene_threads_1_2_3_8) {
    if (small_scale())
        check_scene(SCENE_CROSSING, 1000, 200);
    else
        check_scene(SCENE_CROSSING, 5000, 1000);
}

// Several worlds stepped at the same time from different threads (each with its own OpenMP team)
// give the same results as stepping them one after the other: no shared mutable state.
typedef struct stepper {
    crowd_world* world;
    int ticks;
} stepper;

static void* step_world(void* arg) {
    stepper* s = arg;
    for (int i = 0; i < s->ticks; ++i) crowd_world_step(s->world);
    return NULL;
}

Test(determinism, concurrent_worlds) {
    const int ticks = small_scale() ? 50 : 200;
    enum { N = 3 };
    crowd_world* alone[N];
    crowd_world* together[N];
    for (int i = 0; i < N; ++i) {
        scene_def d = scene_def_default();
        d.kind = (scene_kind)(i % 3);
        d.agents = small_scale() ? 500 : 2000;
        d.seed = (uint64_t)(11 + i);
        d.threads = 2;
        cr_assert_eq(scene_create(&d, &alone[i]), CROWD_OK);
        cr_assert_eq(scene_create(&d, &together[i]), CROWD_OK);
    }
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < ticks; ++k) cr_assert_eq(crowd_world_step(alone[i]), CROWD_OK);
    pthread_t th[N];
    stepper st[N];
    for (int i = 0; i < N; ++i) {
        st[i] = (stepper){together[i], ticks};
        cr_assert_eq(pthread_create(&th[i], NULL, step_world, &st[i]), 0);
    }
    for (int i = 0; i < N; ++i) cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < N; ++i) {
        cr_assert_eq(crowd_world_tick(together[i]), (uint64_t)ticks);
        cr_assert_eq(crowd_world_state_hash(together[i]), crowd_world_state_hash(alone[i]),
                     "world %d stepped concurrently differs from stepped alone", i);
        crowd_world_destroy(alone[i]);
        crowd_world_destroy(together[i]);
    }
}
