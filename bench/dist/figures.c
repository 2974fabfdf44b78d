// Exchange figures of a world split across MPI ranks (crowd/dist.h), for docs/distributed.md:
//
//   mpiexec -n K dist_figures --scene NAME --agents N --ticks T [--threads T] [--plain]
//
// Rank 0 prints, over the last T ticks (after 2 warm-up ticks): agents per rank (mean, most:
// the imbalance), ghosts per rank (mean, most) and the ghost fraction (ghosts / agents), bytes
// sent per rank and tick (mean, most), and the median per tick of the slowest rank's step and
// exchange wall times. --plain (one rank): the same scene as a plain world, stepped before and
// after the split one on alternate ticks, for the 1-rank overhead (median ns per agent and tick of
// each).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/dist.h"
#include "scenes.h"

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    scene_def def = scene_def_default();
    def.kind = SCENE_CROSSING;
    def.agents = 100000;
    def.threads = 1;
    int ticks = 5;
    bool plain = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--plain")) plain = true;
        if (i + 1 >= argc) continue;
        if (!strcmp(argv[i], "--scene")) def.kind = (scene_kind)scene_kind_of(argv[i + 1]);
        if (!strcmp(argv[i], "--agents")) def.agents = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--ticks")) ticks = atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--threads")) def.threads = atoi(argv[i + 1]);
    }
    if ((int)def.kind < 0 || ticks < 1) MPI_Abort(MPI_COMM_WORLD, 2);
    crowd_world *w, *ref = NULL;
    crowd_dist* d;
    if (plain && (size != 1 || scene_create(&def, &ref) != CROWD_OK)) MPI_Abort(MPI_COMM_WORLD, 1);
    if (scene_create(&def, &w) != CROWD_OK || crowd_dist_create(MPI_COMM_WORLD, w, &d) != CROWD_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double* step = malloc(sizeof(double) * (size_t)ticks);
    double* exch = malloc(sizeof(double) * (size_t)ticks);
    double* one = malloc(sizeof(double) * (size_t)ticks);
    double sum[3] = {0}, most[3] = {0}; // owned, ghosts, bytes
    for (int t = -2; t < ticks; ++t) {
        // The plain world before the split one on even ticks, after it on odd ones.
        for (int k = 0; k < 2; ++k) {
            if (ref && k == (t & 1)) {
                const double a = MPI_Wtime();
                crowd_world_step(ref);
                if (t >= 0) one[t] = (MPI_Wtime() - a) * 1e3;
            }
            if (k == 0 && crowd_dist_step(d) != CROWD_OK) MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (t < 0) continue;
        const crowd_dist_stats s = crowd_dist_get_stats(d);
        double v[3] = {s.owned, s.ghosts, (double)s.bytes_sent}, vs[3], vm[3];
        double times[2] = {s.step_ms, s.exchange_ms};
        MPI_Allreduce(v, vs, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(v, vm, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        step[t] = times[0];
        exch[t] = times[1];
        for (int k = 0; k < 3; ++k) {
            sum[k] += vs[k] / ticks;
            most[k] += vm[k] / ticks;
        }
    }
    if (rank == 0) {
        const double n = sum[0], st = median(step, ticks), ex = median(exch, ticks);
        printf("%s, %.0f agents, %d ranks x %d threads, %d ticks: agents per rank %.0f (most %.0f, "
               "imbalance %.3f); ghosts per rank %.0f (most %.0f), ghost fraction %.4f; bytes sent "
               "per rank and tick %.0f (most %.0f); slowest rank's step %.2f ms, exchange %.2f ms "
               "(share %.1f%%)",
               scene_kind_name(def.kind), n, size, def.threads, ticks, n / size, most[0],
               most[0] / (n / size), sum[1] / size, most[1], sum[1] / n, sum[2] / size, most[2], st,
               ex, 100.0 * ex / (st + ex));
        if (ref) {
            const double p = median(one, ticks);
            printf("; plain world %.2f ms, split world on 1 rank %.2f ms (step + exchange, "
                   "ratio %.3f)",
                   p, st + ex, (st + ex) / p);
        }
        printf("\n");
    }
    free(step);
    free(exch);
    free(one);
    crowd_world_destroy(ref);
    crowd_dist_destroy(d);
    MPI_Finalize();
    return 0;
}
