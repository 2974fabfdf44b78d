// Threads for servers: worlds stepped concurrently from the caller's own threads, some on the
// calling thread only and some with an OpenMP team each, end in the same state as worlds stepped
// one after another on the main thread.
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>

#include "crowd/crowd.h"
#include "scenes.h"

enum { WORLDS = 4 };

static int scale_agents(int n) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && s[0] == 's' ? n / 4 : n;
}

typedef struct job {
    int index;
    int threads;
    int ticks;
    bool switching; // change the thread count before every step (1, 2, 3, 1, ...)
    uint64_t hash;
    crowd_status status;
} job;

// World `index` of the test: a different scene and seed each, with churn between steps so adds,
// removes and teleports are part of what must match.
static void run(job* j) {
    scene_def def = scene_def_default();
    def.kind = (scene_kind)(j->index % 3);
    def.agents = scale_agents(1500 + 500 * j->index);
    def.seed = 100 + (uint64_t)j->index;
    def.threads = j->threads;
    crowd_world* w;
    j->status = scene_create(&def, &w);
    if (j->status != CROWD_OK) return;
    scene_rng rng = {def.seed};
    const float half = scene_side(&def) * 0.5f;
    for (int t = 0; t < j->ticks && j->status == CROWD_OK; ++t) {
        if (t % 10 == 5) {
            crowd_agent_def a = crowd_agent_def_default();
            a.position = (crowd_vec2){scene_rng_float(&rng, -half, half), 0.0f};
            a.goal.mode = CROWD_GOAL_SEEK;
            crowd_agent_id id;
            j->status = crowd_agent_add(w, &a, &id);
            if (j->status == CROWD_OK)
                j->status = crowd_agent_set_position(w, id, (crowd_vec2){0.0f, half * 0.5f});
            const int count = crowd_world_agent_count(w);
            crowd_agent_id* all = malloc(sizeof *all * (size_t)count);
            int n = 0;
            if (!all) j->status = CROWD_ERR_OUT_OF_MEMORY;
            if (j->status == CROWD_OK)
                j->status = crowd_world_get_agents(w, all, NULL, NULL, count, &n);
            if (j->status == CROWD_OK)
                j->status = crowd_agent_remove(w, all[scene_rng_next(&rng) % (uint64_t)n]);
            free(all);
        }
        if (j->status == CROWD_OK && j->switching)
            j->status = crowd_world_set_threads(w, 1 + t % 3);
        if (j->status == CROWD_OK) j->status = crowd_world_step(w);
    }
    j->hash = crowd_world_state_hash(w);
    crowd_world_destroy(w);
}

static void* run_thread(void* arg) {
    run(arg);
    return NULL;
}

Test(threads, concurrent_worlds_match_sequential) {
    job seq[WORLDS], par[WORLDS];
    for (int i = 0; i < WORLDS; ++i) {
        seq[i] = (job){.index = i, .threads = 1, .ticks = 60};
        run(&seq[i]);
        cr_assert_eq(seq[i].status, CROWD_OK, "%s", crowd_status_string(seq[i].status));
    }
    // Worlds 0 and 2 step on their pthread only, 1 and 3 with a team of 2 threads each.
    pthread_t th[WORLDS];
    for (int i = 0; i < WORLDS; ++i) {
        par[i] = (job){.index = i, .threads = 1 + i % 2, .ticks = 60};
        cr_assert_eq(pthread_create(&th[i], NULL, run_thread, &par[i]), 0);
    }
    for (int i = 0; i < WORLDS; ++i) cr_assert_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < WORLDS; ++i) {
        cr_assert_eq(par[i].status, CROWD_OK, "%s", crowd_status_string(par[i].status));
        cr_assert_eq(par[i].hash, seq[i].hash, "world %d (%d threads): %016llx != %016llx", i,
                     par[i].threads, (unsigned long long)par[i].hash,
                     (unsigned long long)seq[i].hash);
    }
    // Different worlds really are different, so equal hashes above are not a coincidence.
    for (int i = 1; i < WORLDS; ++i) cr_assert_neq(seq[i].hash, seq[0].hash);
}

// One world whose thread count changes between steps ends where a one-thread world ends.
Test(threads, changing_thread_count_between_steps) {
    job ref = {.index = 1, .threads = 1, .ticks = 40};
    run(&ref);
    job sw = {.index = 1, .threads = 2, .ticks = 40, .switching = true};
    run(&sw);
    cr_assert_eq(ref.status, CROWD_OK);
    cr_assert_eq(sw.status, CROWD_OK);
    cr_assert_eq(sw.hash, ref.hash);
}
