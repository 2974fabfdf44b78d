// crowd: the command-line front end of crowdstep.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

typedef struct options {
    scene_def scene;
    int ticks;
    bool churn;
} options;

static void usage(FILE* f) {
    fputs("usage: crowd <command> [options]\n"
          "\n"
          "commands:\n"
          "  demo   step a crowd of separating agents and print timings\n"
          "  hash   step a scene and print its final state hash\n"
          "\n"
          "options:\n"
          "  --agents N     number of agents (demo: 100000, hash: 20000)\n"
          "  --ticks N      ticks to step (demo: 100, hash: 200)\n"
          "  --threads T    OpenMP threads, 0 = all cores (default 0)\n"
          "  --scene NAME   separation | crossing | mixed | queue (default mixed)\n"
          "  --seed S       random seed (default 1)\n"
          "  --churn        hash: add, remove and teleport agents between steps\n",
          f);
}

static bool parse_int(const char* s, long lo, long hi, long* out) {
    char* end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int parse(int argc, char** argv, options* o) {
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--churn")) {
            o->churn = true;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "crowd: %s needs a value\n", a);
            return 2;
        }
        const char* v = argv[++i];
        long n;
        if (!strcmp(a, "--agents") && parse_int(v, 0, 1 << 26, &n)) {
            o->scene.agents = (int)n;
        } else if (!strcmp(a, "--ticks") && parse_int(v, 0, 100000000, &n)) {
            o->ticks = (int)n;
        } else if (!strcmp(a, "--threads") && parse_int(v, 0, 256, &n)) {
            o->scene.threads = (int)n;
        } else if (!strcmp(a, "--seed") && parse_int(v, 0, INT32_MAX, &n)) {
            o->scene.seed = (uint64_t)n;
        } else if (!strcmp(a, "--scene")) {
            const int kind = scene_kind_of(v);
            if (kind < 0) {
                fprintf(stderr,
                        "crowd: unknown scene '%s' (separation, crossing, mixed, queue, "
                        "waypoints, tube, groups, plaza)\n",
                        v);
                return 2;
            }
            o->scene.kind = (scene_kind)kind;
        } else {
            fprintf(stderr, "crowd: bad option or value: %s %s\n", a, v);
            return 2;
        }
    }
    return 0;
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static int demo(const options* o) {
    crowd_world* w;
    crowd_status st = scene_create(&o->scene, &w);
    if (st != CROWD_OK) {
        fprintf(stderr, "crowd: cannot create the world: %s\n", crowd_status_string(st));
        return 1;
    }
    const int ticks = o->ticks > 0 ? o->ticks : 1;
    double* ms = malloc(sizeof(double) * (size_t)ticks * (CROWD_PHASE_COUNT + 1));
    uint64_t candidates = 0;
    if (!ms) {
        crowd_world_destroy(w);
        fputs("crowd: out of memory\n", stderr);
        return 1;
    }
    for (int t = 0; t < ticks; ++t) {
        crowd_world_step(w);
        crowd_profile p = crowd_world_get_profile(w);
        ms[t] = p.step_ms;
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) ms[(size_t)(k + 1) * ticks + t] = p.phase_ms[k];
        candidates += p.candidates;
    }
    for (int k = 0; k <= CROWD_PHASE_COUNT; ++k)
        qsort(ms + (size_t)k * ticks, (size_t)ticks, sizeof *ms, cmp_double);
    const double median = ms[ticks / 2], p95 = ms[(int)((ticks - 1) * 0.95)];
    const int n = crowd_world_agent_count(w);
    printf("crowdstep demo: %d separating agents, density %.2f/m2, %d threads, %d ticks\n", n,
           (double)o->scene.density, crowd_world_get_threads(w), ticks);
    printf("ms/tick: median %.3f, p95 %.3f\n", median, p95);
    printf("agent-steps/s: %.2f M\n", median > 0 ? n / median * 1e-3 : 0.0);
    printf("candidates/agent: %.1f\n", n ? (double)candidates / ticks / n : 0.0);
    printf("phases (median ms):");
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        printf(" %s %.3f", crowd_phase_name((crowd_phase)k),
               ms[(size_t)(k + 1) * ticks + ticks / 2]);
    printf("\nstate-hash: %016" PRIx64 "\n", crowd_world_state_hash(w));
    free(ms);
    crowd_world_destroy(w);
    return 0;
}

// Between steps, exercises every mutation a server makes: removals, additions, teleports.
static crowd_status churn(crowd_world* w, scene_rng* rng, float half) {
    enum { MAX = 64 };
    crowd_agent_id ids[MAX];
    int n = crowd_world_agent_count(w);
    crowd_agent_id* all = malloc(sizeof *all * (size_t)(n ? n : 1));
    if (!all) return CROWD_ERR_OUT_OF_MEMORY;
    int count = 0;
    crowd_status st = crowd_world_get_agents(w, all, NULL, NULL, n, &count);
    int picked = 0;
    for (int k = 0; st == CROWD_OK && k < MAX && count > 0; ++k)
        ids[picked++] = all[scene_rng_next(rng) % (uint64_t)count];
    free(all);
    for (int k = 0; st == CROWD_OK && k < picked; ++k) {
        if (k % 3 == 0) {
            st = crowd_agent_remove(w, ids[k]);
            if (st == CROWD_ERR_STALE_HANDLE) st = CROWD_OK; // picked twice
        } else if (k % 3 == 1) {
            crowd_vec2 p = {scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
            st = crowd_agent_set_position(w, ids[k], p);
            if (st == CROWD_ERR_STALE_HANDLE) st = CROWD_OK;
        } else {
            crowd_agent_def a = crowd_agent_def_default();
            a.position =
                (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
            a.goal.mode = CROWD_GOAL_ARRIVE;
            a.goal.target = (crowd_vec2){0.0f, 0.0f};
            crowd_agent_id id;
            st = crowd_agent_add(w, &a, &id);
        }
    }
    return st;
}

static int hash(const options* o) {
    crowd_world* w;
    crowd_status st = scene_create(&o->scene, &w);
    if (st != CROWD_OK) {
        fprintf(stderr, "crowd: cannot create the world: %s\n", crowd_status_string(st));
        return 1;
    }
    scene_rng rng = {o->scene.seed ^ 0xc0ffee};
    const float half = scene_side(&o->scene) * 0.5f;
    for (int t = 0; t < o->ticks && st == CROWD_OK; ++t) {
        if (o->churn && t % 50 == 25) st = churn(w, &rng, half);
        if (st == CROWD_OK) st = crowd_world_step(w);
    }
    if (st != CROWD_OK) {
        fprintf(stderr, "crowd: step failed: %s\n", crowd_status_string(st));
        crowd_world_destroy(w);
        return 1;
    }
    printf("state-hash: %016" PRIx64 "\n", crowd_world_state_hash(w));
    crowd_world_destroy(w);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    options o = {.scene = scene_def_default()};
    if (!strcmp(argv[1], "demo")) {
        o.scene.agents = 100000;
        o.ticks = 100;
        int r = parse(argc, argv, &o);
        return r ? (r == 1 ? 0 : r) : demo(&o);
    }
    if (!strcmp(argv[1], "hash")) {
        o.scene.agents = 20000;
        o.scene.kind = SCENE_MIXED;
        o.ticks = 200;
        int r = parse(argc, argv, &o);
        return r ? (r == 1 ? 0 : r) : hash(&o);
    }
    fprintf(stderr, "crowd: unknown command '%s' (try crowd --help)\n", argv[1]);
    return 2;
}
