// The scaling profiler's results and their reports (table, JSON, SVG).
#ifndef CROWD_CLI_SCALE_H
#define CROWD_CLI_SCALE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"

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

void scale_finish(scale_report* r); // speedups, efficiencies, hash agreement
void scale_print_table(FILE* f, const scale_report* r);
bool scale_write_json(FILE* f, const scale_report* r);
bool scale_write_svg(FILE* f, const scale_report* r);

#endif
