// The rank-count determinism check of a world split across MPI ranks (crowd/dist.h): every
// built-in scene, stepped with churn (agents removed, added and teleported between steps, wherever
// they live, and walls removed and added in the town), gives on K ranks the state hash the same
// scene gives in one process, at every checkpoint. Run under mpiexec with any rank count:
//
//   mpiexec -n K dist_matrix [--agents N] [--ticks T] [--threads T] [--scene NAME]
//
// Rank 0 steps the one-process reference beside its share of the split world and prints one line
// per scene; the exit status is 1 on any difference.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/dist.h"
#include "scenes.h"

// One world, stepped either in one process or split: the churn calls go to either.
typedef struct target {
    crowd_world* w; // one process
    crowd_dist* d;  // or split
} target;

static int cmp_handle(const void* a, const void* b) {
    const uint32_t x = ((const crowd_agent_id*)a)->index1, y = ((const crowd_agent_id*)b)->index1;
    return (x > y) - (x < y);
}

// Every live handle in handle order.
static crowd_agent_id* handles(const target* t, int* n) {
    const int count = t->d ? crowd_dist_agent_count(t->d) : crowd_world_agent_count(t->w);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)(count + 1));
    if (!ids) abort();
    if (t->d)
        crowd_dist_get_agents(t->d, ids, count, n);
    else {
        crowd_world_get_agents(t->w, ids, NULL, NULL, count, n);
        qsort(ids, (size_t)*n, sizeof *ids, cmp_handle);
    }
    return ids;
}

static crowd_status refused_ok(crowd_status st) {
    return st == CROWD_ERR_INSIDE_OBSTACLE || st == CROWD_ERR_STALE_HANDLE ? CROWD_OK : st;
}

// As crowd hash --churn in a world with obstacles: the first two in handle order removed, two 3 m
// walls added at random places (refused where they would cover an agent, on any rank).
static crowd_status churn_walls(target* t, scene_rng* rng, float half) {
    const crowd_world* w = t->d ? crowd_dist_world(t->d) : t->w;
    const int n = crowd_world_obstacle_count(w);
    if (n == 0) return CROWD_OK;
    crowd_obstacle_id* all = malloc(sizeof *all * (size_t)n);
    if (!all) abort();
    int count = 0;
    crowd_status st = crowd_world_get_obstacles(w, all, n, &count);
    for (int k = 0; st == CROWD_OK && k < 2 && k < count; ++k)
        st = t->d ? crowd_dist_obstacle_remove(t->d, all[k]) : crowd_obstacle_remove(t->w, all[k]);
    free(all);
    for (int k = 0; st == CROWD_OK && k < 2; ++k) {
        const crowd_vec2 a = {scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
        const float ang = scene_rng_float(rng, 0.0f, 6.2831853f);
        const crowd_vec2 pts[2] = {a, {a.x + 3.0f * cosf(ang), a.y + 3.0f * sinf(ang)}};
        crowd_obstacle_id id;
        st = refused_ok(t->d ? crowd_dist_obstacle_add(t->d, CROWD_OBSTACLE_WALL, pts, 2, &id)
                             : crowd_obstacle_add(t->w, CROWD_OBSTACLE_WALL, pts, 2, &id));
    }
    return st;
}

// As crowd hash --churn: 64 picks, every third removed, teleported or a new agent added.
static crowd_status churn(target* t, scene_rng* rng, float half) {
    int count;
    crowd_agent_id* all = handles(t, &count);
    crowd_status st = CROWD_OK;
    for (int k = 0; st == CROWD_OK && k < 64 && count > 0; ++k) {
        const crowd_agent_id id = all[scene_rng_next(rng) % (uint64_t)count];
        if (k % 3 == 0) {
            st =
                refused_ok(t->d ? crowd_dist_agent_remove(t->d, id) : crowd_agent_remove(t->w, id));
        } else if (k % 3 == 1) {
            const crowd_vec2 p = {scene_rng_float(rng, -half, half),
                                  scene_rng_float(rng, -half, half)};
            st = refused_ok(t->d ? crowd_dist_agent_set_position(t->d, id, p)
                                 : crowd_agent_set_position(t->w, id, p));
        } else {
            crowd_agent_def a = crowd_agent_def_default();
            a.position =
                (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
            a.goal.mode = CROWD_GOAL_ARRIVE;
            crowd_agent_id out;
            st = refused_ok(t->d ? crowd_dist_agent_add(t->d, &a, &out)
                                 : crowd_agent_add(t->w, &a, &out));
        }
    }
    free(all);
    return st == CROWD_OK ? churn_walls(t, rng, half) : st;
}

enum { CHECKS = 8 };

// Steps the scene `ticks` ticks with churn every 25; the hash after every 1/CHECKS of them.
static crowd_status run(target* t, const scene_def* def, long ticks, uint64_t* hashes) {
    scene_rng rng = {def->seed ^ 0xc0ffee};
    const float half = scene_side(def) * 0.5f;
    crowd_status st = CROWD_OK;
    int check = 0;
    for (long k = 0; k < ticks && st == CROWD_OK; ++k) {
        if (k % 50 == 25) st = churn(t, &rng, half);
        if (st == CROWD_OK) st = t->d ? crowd_dist_step(t->d) : crowd_world_step(t->w);
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
    for (int i = 1; i + 1 < argc; i += 2) {
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
            if (st == CROWD_OK) st = run(&one, &def, ticks, ref);
            crowd_world_destroy(one.w);
        }
        target split = {0};
        crowd_world* w = NULL;
        crowd_status sst = scene_create(&def, &w);
        if (sst == CROWD_OK) sst = crowd_dist_create(MPI_COMM_WORLD, w, &split.d);
        if (sst == CROWD_OK) sst = run(&split, &def, ticks, got);
        const crowd_dist_stats stats = crowd_dist_get_stats(split.d);
        int ghosts = stats.ghosts, linked = stats.linked, owned = stats.owned, most = owned;
        MPI_Allreduce(MPI_IN_PLACE, &ghosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &linked, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (split.d)
            crowd_dist_destroy(split.d);
        else
            crowd_world_destroy(w);
        if (rank != 0) continue;
        const bool same = st == CROWD_OK && sst == CROWD_OK && !memcmp(ref, got, sizeof ref);
        failed |= !same;
        printf(
            "%-10s %d ranks: %s %016" PRIx64 " (one process %016" PRIx64
            "), %d checkpoints; last step: %d ghosts and %d linked in all, most agents on a rank "
            "%d%s%s\n",
            scene_kind_name(kinds[k]), size, same ? "same" : "DIFFERENT", got[CHECKS - 1],
            ref[CHECKS - 1], CHECKS, ghosts, linked, most,
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
