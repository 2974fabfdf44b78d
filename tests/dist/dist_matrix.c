// The rank-count determinism check of a world split across MPI ranks (crowd/dist.h): every
// built-in scene, stepped with churn (agents removed, added and teleported between steps, wherever
// they live, and walls removed and added in the town), gives on K ranks the state hash the same
// scene gives in one process, at every checkpoint. The split world is set up as scenes_dist.h
// does: the plain scenes by crowd_dist_add_agents, without the whole world on any rank. Run under
// mpiexec with any rank count:
//
//   mpiexec -n K dist_matrix [--agents N] [--ticks T] [--threads T] [--scene NAME]
//                            [--split bisection|strips] [--rebalance X] [--max-neighbors K]
//
// --split and --rebalance set crowd_dist_set_split and crowd_dist_set_rebalance (defaults: the
// split world's); --max-neighbors sets a neighbor cap on both worlds (default none).
//
// Rank 0 steps the one-process reference beside its share of the split world and prints one line
// per scene; the exit status is 1 on any difference.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "churn_dist.h"
#include "scenes_dist.h"

// One world, stepped either in one process or split (d set).
typedef struct target {
    crowd_world* w; // one process
    crowd_dist* d;  // or split
} target;

enum { CHECKS = 8 };

// Steps the scene `ticks` ticks with churn every 50 (from tick 25); the hash after every 1/CHECKS
// of them.
static crowd_status run(target* t, const scene_def* def, long ticks, uint64_t* hashes, int* recut) {
    scene_rng rng = {def->seed ^ 0xc0ffee};
    const scene_calls calls = t->d ? scene_calls_dist(t->d) : scene_calls_world(t->w);
    const float half = scene_side(def) * 0.5f;
    crowd_status st = CROWD_OK;
    int check = 0;
    for (long k = 0; k < ticks && st == CROWD_OK; ++k) {
        if (k % 50 == 25) st = scene_churn(&calls, &rng, half);
        if (st == CROWD_OK) st = t->d ? crowd_dist_step(t->d) : crowd_world_step(t->w);
        if (st == CROWD_OK && t->d) *recut += crowd_dist_get_stats(t->d).rebalanced;
        if (st == CROWD_OK && check < CHECKS && k + 1 == ticks * (check + 1) / CHECKS) {
            if (t->d)
                st = crowd_dist_state_hash(t->d, &hashes[check]);
            else
                hashes[check] = crowd_world_state_hash(t->w);
            ++check;
        }
    }
    return st == CROWD_OK && check < CHECKS ? CROWD_ERR_BAD_COUNT : st;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int agents = 3000, threads = 1;
    long ticks = 200;
    const char* only = NULL;
    crowd_dist_split split = CROWD_DIST_BISECTION;
    double rebalance = CROWD_DIST_REBALANCE_DEFAULT;
    int cap = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--split"))
            split = strcmp(argv[i + 1], "strips") ? CROWD_DIST_BISECTION : CROWD_DIST_STRIPS;
        if (!strcmp(argv[i], "--rebalance")) rebalance = atof(argv[i + 1]);
        if (!strcmp(argv[i], "--max-neighbors")) cap = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--agents")) agents = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--ticks")) ticks = atol(argv[i + 1]);
        if (!strcmp(argv[i], "--threads")) threads = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--scene")) only = argv[i + 1];
    }
    const scene_kind kinds[] = {SCENE_SEPARATION, SCENE_CROSSING,  SCENE_MIXED,
                                SCENE_QUEUE,      SCENE_WAYPOINTS, SCENE_TUBE,
                                SCENE_GROUPS,     SCENE_PLAZA,     SCENE_TOWN};
    int failed = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        if (only && strcmp(only, scene_kind_name(kinds[k]))) continue;
        scene_def def = scene_def_default();
        def.kind = kinds[k];
        def.agents = agents;
        def.threads = threads;
        uint64_t ref[CHECKS] = {0}, got[CHECKS] = {0};
        crowd_status st = CROWD_OK;
        if (rank == 0) {
            target one = {0};
            st = scene_create(&def, &one.w);
            if (st == CROWD_OK) st = crowd_world_set_max_neighbors(one.w, cap);
            int unused = 0;
            if (st == CROWD_OK) st = run(&one, &def, ticks, ref, &unused);
            crowd_world_destroy(one.w);
        }
        // The plain scenes are set up split (crowd_dist_add_agents), the others built whole.
        target part = {0};
        crowd_status sst = scene_create_dist(MPI_COMM_WORLD, &def, cap, &part.d);
        if (sst == CROWD_OK) sst = crowd_dist_set_split(part.d, split);
        if (sst == CROWD_OK) sst = crowd_dist_set_rebalance(part.d, rebalance);
        int recut = 0;
        if (sst == CROWD_OK) sst = run(&part, &def, ticks, got, &recut);
        const crowd_dist_stats stats = crowd_dist_get_stats(part.d);
        int ghosts = stats.ghosts, linked = stats.linked, owned = stats.owned, most = owned;
        MPI_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &linked, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        crowd_dist_destroy(part.d);
        if (rank != 0) continue;
        const bool same = st == CROWD_OK && sst == CROWD_OK && !memcmp(ref, got, sizeof ref);
        failed |= !same;
        printf(
            "%-10s %d ranks: %s %016" PRIx64 " (one process %016" PRIx64
            "), %d checkpoints; last step: %d ghosts and %d linked in all, most agents on a rank "
            "%d; split (%s) cut before %d steps%s%s\n",
            scene_kind_name(kinds[k]), size, same ? "same" : "DIFFERENT", got[CHECKS - 1],
            ref[CHECKS - 1], CHECKS, ghosts, linked, most,
            split == CROWD_DIST_STRIPS ? "strips" : "bisection", recut,
            st == CROWD_OK ? "" : " (reference failed)",
            sst == CROWD_OK ? "" : crowd_status_string(sst));
        if (!same)
            for (int c = 0; c < CHECKS; ++c)
                printf("  checkpoint %d: %016" PRIx64 " vs %016" PRIx64 "\n", c, got[c], ref[c]);
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed;
}
