// The scaling profiler's results and their reports (table, JSON, SVG).
#ifndef CROWD_CLI_SCALE_H
#define CROWD_CLI_SCALE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "scenes.h"

enum { SCALE_MAX_THREADS = 32, SCALE_MAX_SIZES = 16 };

typedef struct scale_run {
    int threads;
    bool oversubscribed; // more threads than omp_get_num_procs()
    run_stats stats;
    double speedup;    // baseline ms / this ms
    double efficiency; // speedup * baseline threads / threads
} scale_run;

typedef struct scale_size {
    int agents;
    double agents_scale; // scenario runs; 0 for a built-in scene
    int baseline_threads;
    bool hashes_equal;
    scale_run runs[SCALE_MAX_THREADS];
    int run_count;
} scale_size;

typedef struct scale_report {
    const char* source_kind; // "scenario" or "scene"
    const char* source;      // file or scene name
    const char* name;        // scenario name or scene name
    int ticks, warmup, cores;
    scale_size sizes[SCALE_MAX_SIZES];
    int size_count;
} scale_report;

// The command line of crowd scale.
typedef struct scale_args {
    const char* file;
    const char* json;
    const char* svg;
    int threads[SCALE_MAX_THREADS], thread_count;
    int agents[SCALE_MAX_SIZES], agent_count;
    double scales[SCALE_MAX_SIZES];
    int scale_count;
    scene_kind scene;
    const char* scene_name;
    long ticks, warmup;
    int ranks[SCALE_MAX_THREADS], rank_count;
    bool strips;      // --split strips (else bisection)
    double rebalance; // --rebalance (0: the split world's default)
} scale_args;

// Builds the world of one size (index into the sizes or scales) with `threads`: the scenario's
// built world, or the built-in scene (then *scene is its def and b->world the world).
bool scale_build(const scale_args* a, const scenario* sc, int size, int threads, built_world* b,
                 scene_def* scene, char* err, size_t errlen);

#ifdef CROWD_CLI_MPI
// crowd scale --ranks (cmd_scale_ranks.c): each size's world split across each rank count; started
// as one process with more ranks asked for, the command starts itself under mpiexec.
int scale_ranks(const scale_args* a, const scenario* sc, int argc, char** argv);
#endif

void scale_finish(scale_report* r); // speedups, efficiencies, hash agreement
void scale_print_table(FILE* f, const scale_report* r);
bool scale_write_json(FILE* f, const scale_report* r);
bool scale_write_svg(FILE* f, const scale_report* r);

#endif
