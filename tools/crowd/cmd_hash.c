// crowd hash: step a built-in scene (optionally with churn) and print its final state hash.
// tools/test.sh compares these hashes across thread counts and builds.
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scenes.h"

static void usage(FILE* f) {
    fputs("usage: crowd hash [options]\n"
          "\n"
          "Steps a built-in scene and prints 'state-hash: <hex>'.\n"
          "\n"
          "options:\n"
          "  --scene NAME   separation | crossing | mixed | queue | waypoints | tube | groups |\n"
          "                 plaza | town (default mixed)\n"
          "  --agents N     number of agents (default 20000)\n"
          "  --ticks N      ticks to step (default 200)\n"
          "  --threads T    OpenMP threads, 0 = all cores (default 0)\n"
          "  --seed S       random seed (default 1)\n"
          "  --churn        add, remove and teleport agents between steps (and in a world\n"
          "                 with obstacles, remove two and add two short walls)\n"
          "  --max-neighbors K  per-agent neighbor cap, 0 = none (default 0)\n"
          "  -h, --help     show this help\n",
          f);
}

// A status of a mutation that a world with walls may refuse and leave unchanged: a place in or
// across an obstacle.
static crowd_status refused_ok(crowd_status st) {
    return st == CROWD_ERR_INSIDE_OBSTACLE ? CROWD_OK : st;
}

// In a world with obstacles: removes the first two in handle order and adds two 3 m walls at random
// places (where no agent stands in their way).
static crowd_status churn_walls(crowd_world* w, scene_rng* rng, float half) {
    const int n = crowd_world_obstacle_count(w);
    if (n == 0) return CROWD_OK;
    crowd_obstacle_id* all = malloc(sizeof *all * (size_t)n);
    if (!all) return CROWD_ERR_OUT_OF_MEMORY;
    int count = 0;
    crowd_status st = crowd_world_get_obstacles(w, all, n, &count);
    for (int k = 0; st == CROWD_OK && k < 2 && k < count; ++k)
        st = crowd_obstacle_remove(w, all[k]);
    free(all);
    for (int k = 0; st == CROWD_OK && k < 2; ++k) {
        const crowd_vec2 a = {scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
        const float ang = scene_rng_float(rng, 0.0f, 6.2831853f);
        const crowd_vec2 pts[2] = {a, {a.x + 3.0f * cosf(ang), a.y + 3.0f * sinf(ang)}};
        crowd_obstacle_id id;
        st = refused_ok(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, pts, 2, &id));
    }
    return st;
}

// Between steps, exercises every mutation a server makes: removals, additions, teleports (and
// walls, when the world has some).
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
            st = refused_ok(crowd_agent_set_position(w, ids[k], p));
            if (st == CROWD_ERR_STALE_HANDLE) st = CROWD_OK;
        } else {
            crowd_agent_def a = crowd_agent_def_default();
            a.position =
                (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
            a.goal.mode = CROWD_GOAL_ARRIVE;
            a.goal.target = (crowd_vec2){0.0f, 0.0f};
            crowd_agent_id id;
            st = refused_ok(crowd_agent_add(w, &a, &id));
        }
    }
    return st == CROWD_OK ? churn_walls(w, rng, half) : st;
}

int cmd_hash(int argc, char** argv) {
    const char* cmd = "hash";
    scene_def def = scene_def_default();
    def.agents = 20000;
    def.kind = SCENE_MIXED;
    long ticks = 200, n, max_neighbors = 0;
    bool do_churn = false;
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        const char* v;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--churn")) {
            do_churn = true;
            continue;
        }
        if (strcmp(a, "--agents") && strcmp(a, "--ticks") && strcmp(a, "--threads") &&
            strcmp(a, "--seed") && strcmp(a, "--scene") && strcmp(a, "--max-neighbors")) {
            cli_error(cmd, "unknown option '%s' (try crowd hash --help)", a);
            return EXIT_USAGE;
        }
        if (!(v = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        if (!strcmp(a, "--scene")) {
            const int kind = scene_kind_of(v);
            if (kind < 0) {
                cli_error(cmd,
                          "--scene: expected separation, crossing, mixed, queue, waypoints, tube, "
                          "groups, plaza or town, got '%s'",
                          v);
                return EXIT_USAGE;
            }
            def.kind = (scene_kind)kind;
        } else if (!strcmp(a, "--agents")) {
            if (!cli_int(cmd, a, v, 0, 1 << 24, &n)) return EXIT_USAGE;
            def.agents = (int)n;
        } else if (!strcmp(a, "--ticks")) {
            if (!cli_int(cmd, a, v, 0, 100000000, &ticks)) return EXIT_USAGE;
        } else if (!strcmp(a, "--threads")) {
            if (!cli_int(cmd, a, v, 0, CROWD_MAX_THREADS, &n)) return EXIT_USAGE;
            def.threads = (int)n;
        } else if (!strcmp(a, "--max-neighbors")) {
            if (!cli_int(cmd, a, v, 0, CROWD_MAX_NEIGHBORS, &max_neighbors)) return EXIT_USAGE;
        } else {
            if (!cli_int(cmd, a, v, 0, INT32_MAX, &n)) return EXIT_USAGE;
            def.seed = (uint64_t)n;
        }
    }
    crowd_world* w;
    crowd_status st = scene_create(&def, &w);
    if (st == CROWD_OK) st = crowd_world_set_max_neighbors(w, (int)max_neighbors);
    if (st != CROWD_OK) {
        cli_error(cmd, "cannot create the world: %s", crowd_status_string(st));
        return 1;
    }
    scene_rng rng = {def.seed ^ 0xc0ffee};
    const float half = scene_side(&def) * 0.5f;
    for (long t = 0; t < ticks && st == CROWD_OK; ++t) {
        if (do_churn && t % 50 == 25) st = churn(w, &rng, half);
        if (st == CROWD_OK) st = crowd_world_step(w);
    }
    if (st != CROWD_OK) {
        cli_error(cmd, "step failed: %s", crowd_status_string(st));
        crowd_world_destroy(w);
        return 1;
    }
    printf("state-hash: %016" PRIx64 "\n", crowd_world_state_hash(w));
    crowd_world_destroy(w);
    return 0;
}
