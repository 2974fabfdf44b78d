// Nothing in the process allocates while a world steps: neither the library (its hooks are
// checked by test_memory) nor the OpenMP runtime underneath it. This program replaces the C
// library's allocation functions to count every call from every thread, so it is a plain program
// rather than a Criterion test (Criterion's own threads would be counted too), and it is not built
// under the sanitizers, which replace the same functions.
//
//  - one thread: the step runs on the calling thread and makes no OpenMP call that could set up a
//    team; this holds from the first step on, also on a thread the OpenMP runtime has never seen.
//  - a team: the runtime creates its threads and team on the first step; later steps of a world
//    with the same thread count allocate nothing.
//  - a large leader group: its first step assigns the formation slots of several hundred followers,
//    sorting arrays of a few kilobytes (the C library's qsort would call malloc for those).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "crowd/crowd.h"
#include "scenes.h"

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t align, size_t size);
extern void __libc_free(void* p);

static atomic_long calls;

void* malloc(size_t size) {
    atomic_fetch_add(&calls, 1);
    return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
    atomic_fetch_add(&calls, 1);
    return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) {
    atomic_fetch_add(&calls, 1);
    return __libc_realloc(p, size);
}
void* aligned_alloc(size_t align, size_t size) {
    atomic_fetch_add(&calls, 1);
    return __libc_memalign(align, size);
}
void* memalign(size_t align, size_t size) {
    atomic_fetch_add(&calls, 1);
    return __libc_memalign(align, size);
}
int posix_memalign(void** out, size_t align, size_t size) {
    atomic_fetch_add(&calls, 1);
    *out = __libc_memalign(align, size);
    return *out ? 0 : 12;
}
void free(void* p) {
    __libc_free(p);
}

typedef struct job {
    int threads, warmup, ticks;
    int slot_followers; // > 0: a world of one leader with this many slot followers instead
    long calls;         // allocation calls seen during the counted steps
    crowd_status status;
} job;

// One leader walking east and `n` CROWD_FOLLOW_SLOT followers in a BLOCK formation (rows of
// equal depth, so the slot matching sorts rows too), scattered on a grid behind it.
static crowd_status group_create(int n, int threads, crowd_world** out) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    crowd_world* w;
    crowd_status st = crowd_world_create(&wd, &w);
    if (st != CROWD_OK) return st;
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){0.0f, 0.0f};
    a.velocity = (crowd_vec2){1.0f, 0.0f};
    crowd_agent_id leader;
    st = crowd_agent_add(w, &a, &leader);
    crowd_formation_def fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_BLOCK;
    fd.columns = 20;
    if (st == CROWD_OK) st = crowd_leader_set_formation(w, leader, &fd);
    crowd_follow_def follow = crowd_follow_def_default();
    follow.target = CROWD_FOLLOW_SLOT;
    for (int i = 0; i < n && st == CROWD_OK; ++i) {
        a.position = (crowd_vec2){-3.0f - (float)(i % 25) * 1.1f, (float)(i / 25) * 1.1f - 13.0f};
        a.velocity = (crowd_vec2){0.0f, 0.0f};
        crowd_agent_id id;
        st = crowd_agent_add(w, &a, &id);
        if (st == CROWD_OK) st = crowd_agent_follow(w, id, leader, &follow);
    }
    if (st != CROWD_OK) {
        crowd_world_destroy(w);
        return st;
    }
    *out = w;
    return CROWD_OK;
}

static void* run(void* arg) {
    job* j = arg;
    crowd_world* w;
    if (j->slot_followers > 0) {
        j->status = group_create(j->slot_followers, j->threads, &w);
    } else {
        scene_def def = scene_def_default();
        def.kind = SCENE_MIXED;
        def.agents = 4000;
        def.threads = j->threads;
        j->status = scene_create(&def, &w);
    }
    if (j->status != CROWD_OK) return NULL;
    for (int t = 0; t < j->warmup; ++t) crowd_world_step(w);
    const long before = atomic_load(&calls);
    for (int t = 0; t < j->ticks; ++t) crowd_world_step(w);
    j->calls = atomic_load(&calls) - before;
    crowd_world_destroy(w);
    return NULL;
}

static int passed, failed;

static void check(const char* what, job j, bool own_thread) {
    if (own_thread) {
        pthread_t th;
        if (pthread_create(&th, NULL, run, &j) != 0 || pthread_join(th, NULL) != 0) {
            j.status = CROWD_ERR_OUT_OF_MEMORY;
        }
    } else {
        run(&j);
    }
    const bool ok = j.status == CROWD_OK && j.calls == 0;
    printf("%s: %s: %ld allocation calls in %d steps (%s)\n", ok ? "PASS" : "FAIL", what, j.calls,
           j.ticks, crowd_status_string(j.status));
    ok ? ++passed : ++failed;
}

int main(void) {
    // A fresh pthread never seen by the OpenMP runtime, one thread, from its first step.
    check("one thread, new pthread, first steps", (job){.threads = 1, .ticks = 30}, true);
    check("one thread, main thread, first steps", (job){.threads = 1, .ticks = 30}, false);
    check("one thread, leader with 600 slot followers, first steps",
          (job){.threads = 1, .ticks = 5, .slot_followers = 600}, false);
    // Teams last: the counter sees every thread of the process, and the OpenMP workers of a team
    // whose pthread has ended may still be freeing and allocating while they wind down (seen as
    // 2 calls during a later one-thread check on a loaded machine).
    check("team of 2, after one step", (job){.threads = 2, .warmup = 1, .ticks = 30}, false);
    check("team of 2 on a pthread, after one step", (job){.threads = 2, .warmup = 1, .ticks = 30},
          true);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
