// The crowd command: subcommands and what they share.
#ifndef CROWD_CLI_H
#define CROWD_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "build.h"
#include "crowd/crowd.h"
#include "record.h"
#ifdef CROWD_CLI_MPI
#include "crowd/dist.h"
#endif

// Exit codes: 0 success, 1 a failure while working (bad file, unwritable output, a scenario
// this build cannot run), 2 a usage error (unknown or malformed flag).
enum { EXIT_USAGE = 2 };

int cmd_run(int argc, char** argv);
int cmd_demo(int argc, char** argv);
int cmd_view(int argc, char** argv);
int cmd_scale(int argc, char** argv);
int cmd_hash(int argc, char** argv);
int cmd_validate(int argc, char** argv);

// ---- args.c -----------------------------------------------------------------------------------
// Every message is one line "crowd <cmd>: ..." on stderr.
void cli_error(const char* cmd, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
bool cli_is_help(const char* arg);
// The value of flag argv[*i], advancing *i; reports a missing value.
const char* cli_value(const char* cmd, int argc, char** argv, int* i);
bool cli_int(const char* cmd, const char* flag, const char* s, long lo, long hi, long* out);
bool cli_double(const char* cmd, const char* flag, const char* s, double lo_open, double hi,
                double* out);
// "1,2,4" into out[]; at most `max` values, each in [lo, hi].
bool cli_int_list(const char* cmd, const char* flag, const char* s, long lo, long hi, int* out,
                  int max, int* count);
bool cli_double_list(const char* cmd, const char* flag, const char* s, double* out, int max,
                     int* count);
// Opens an output file for writing, reporting failure.
FILE* cli_open_out(const char* cmd, const char* path, const char* mode);
// Closes an output file, reporting a failed flush; removes `path` on failure.
bool cli_close_out(const char* cmd, const char* path, FILE* f);

// ---- run_loop.c -------------------------------------------------------------------------------

typedef struct run_stats {
    int agents_start; // when the timed ticks begin
    int agents;       // at the end of the run
    int threads;
    int ticks; // timed ticks
    double median_ms, p95_ms, p99_ms, mean_ms;
    double phase_ms[CROWD_PHASE_COUNT]; // medians
    uint64_t hash;
    // Navigation built before the timed ticks (crowd_world_nav_update): the fields in use then
    // and the wall time it took (0 without obstacles or routed agents).
    int nav_fields;
    double nav_ms;
} run_stats;

typedef struct run_options {
    int ticks;
    int warmup;      // untimed ticks before the timed ones
    bool progress;   // draw a progress bar on stdout
    rec_writer* rec; // NULL = no recording
    int record_every;
#ifdef CROWD_CLI_MPI
    // The world split across the ranks of mpiexec (NULL: one process). Every rank runs the loop;
    // rank 0 draws the progress, and each recorded frame is gathered to it (its rec).
    crowd_dist* dist;
#endif
} run_options;

// Steps the world; false with a message when a step or the recording fails.
bool run_world(built_world* b, const run_options* o, run_stats* out, char* err, size_t errlen);
void print_run_summary(FILE* f, const built_world* b, const run_stats* s);
double cli_median(double* v, int n); // sorts v
double cli_percentile(double* v, int n, double p);

// ---- viewer.c ---------------------------------------------------------------------------------
// Writes the self-contained HTML replay of the recording bytes to f.
bool viewer_write_html(FILE* f, const uint8_t* rec, size_t len, const char* title);

#endif
