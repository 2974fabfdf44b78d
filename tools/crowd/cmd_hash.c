// crowd hash: step a built-in scene (optionally with churn) and print its final state hash.
// tools/test.sh compares these hashes across thread counts, builds and, in the MPI build, rank
// counts: under mpiexec with more than one rank the world is split across the ranks
// (crowd/dist.h) and rank 0 prints.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "churn.h"
#include "cli.h"
#include "scenes.h"
#ifdef CROWD_CLI_MPI
#include "churn_dist.h"
#include "scenes_dist.h"
#endif

// The scene's world, in one process or split across MPI ranks (d set).
typedef struct hash_world {
    crowd_world* w;
#ifdef CROWD_CLI_MPI
    crowd_dist* d;
#endif
} hash_world;

#ifdef CROWD_CLI_MPI
#define SPLIT_CALL(hw, split, plain) ((hw)->d ? (split) : (plain))
#else
#define SPLIT_CALL(hw, split, plain) (plain)
#endif

static void usage(FILE* f) {
    fputs("usage: crowd hash [options]\n"
          "\n"
          "Steps a built-in scene and prints 'state-hash: <hex>'. In the MPI build under\n"
          "mpiexec with more than one rank, the world is split across the ranks (the hash is\n"
          "the same; rank 0 prints; every scene, with or without churn and\n"
          "--max-neighbors).\n"
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
    hash_world hw = {0};
    int rank = 0, ranks = 1;
#ifdef CROWD_CLI_MPI
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
    crowd_status st = CROWD_OK;
    if (ranks == 1) {
        st = scene_create(&def, &hw.w);
        if (st == CROWD_OK) st = crowd_world_set_max_neighbors(hw.w, (int)max_neighbors);
    }
#ifdef CROWD_CLI_MPI
    // A plain scene is set up split, without the whole world on any rank (scenes_dist.h).
    if (ranks > 1) st = scene_create_dist(MPI_COMM_WORLD, &def, (int)max_neighbors, &hw.d);
#endif
    if (st != CROWD_OK) {
        if (rank == 0) cli_error(cmd, "cannot create the world: %s", crowd_status_string(st));
        crowd_world_destroy(hw.w);
        return 1;
    }
    scene_rng rng = {def.seed ^ 0xc0ffee};
    const float half = scene_side(&def) * 0.5f;
    const scene_calls calls = SPLIT_CALL(&hw, scene_calls_dist(hw.d), scene_calls_world(hw.w));
    for (long t = 0; t < ticks && st == CROWD_OK; ++t) {
        if (do_churn && t % 50 == 25) st = scene_churn(&calls, &rng, half);
        if (st == CROWD_OK) st = SPLIT_CALL(&hw, crowd_dist_step(hw.d), crowd_world_step(hw.w));
    }
    uint64_t hash = 0;
    if (st == CROWD_OK)
        st = SPLIT_CALL(&hw, crowd_dist_state_hash(hw.d, &hash),
                        (hash = crowd_world_state_hash(hw.w), CROWD_OK));
#ifdef CROWD_CLI_MPI
    if (hw.d) {
        crowd_dist_destroy(hw.d);
        hw.w = NULL;
    }
#endif
    crowd_world_destroy(hw.w);
    if (st != CROWD_OK) {
        if (rank == 0) cli_error(cmd, "step failed: %s", crowd_status_string(st));
        return 1;
    }
    if (rank == 0) printf("state-hash: %016" PRIx64 "\n", hash);
    return 0;
}
