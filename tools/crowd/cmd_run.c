// crowd run FILE: run a scenario, print its timings, optionally record it and hash it.
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void usage(FILE* f) {
    fputs("usage: crowd run FILE [options]\n"
          "\n"
          "Runs the scenario FILE (see tools/scenarios/README.md) and prints agents, ticks,\n"
          "ms/tick (median, p95 and p99), agent-steps/s and the per-phase times. A progress\n"
          "bar is drawn when stdout is a terminal.\n"
          "\n"
          "options:\n"
          "  --ticks N           ticks to step (default: the scenario's world.ticks)\n"
          "  --threads T         OpenMP threads, 0 = all cores (default 0)\n"
          "  --agents-scale K    multiply every crowd's count by K (followers per leader stay)\n"
          "  --record OUT        write a binary recording of the run to OUT\n"
          "  --record-every K    record every K-th tick (default: the scenario's "
          "world.record_every)\n"
          "  --field SPEC        with --record: record one navigation field for the replay to\n"
          "                      draw under the agents (heat map of the walking distance and\n"
          "                      arrows): 'auto' (the first goal, exit set, queue or waypoint\n"
          "                      path), 'X,Y' (toward that point) or 'exits:NAME' (an exit set)\n"
          "  --field-step M      metres between the field's samples (default: the nav cell\n"
          "                      size, coarser on large maps)\n"
          "  --hash              print the final state hash as 'state-hash: <hex>'\n"
          "  -h, --help          show this help\n",
          f);
}

// --field's value against the scenario: 'auto', 'X,Y' or 'exits:NAME'.
static bool field_spec(const char* cmd, const scenario* sc, const char* v, rec_field_spec* out) {
    if (!strcmp(v, "auto")) {
        if (rec_field_auto(sc, out)) return true;
        cli_error(cmd, "--field auto: the scenario has no routed goal, exit set, queue or waypoint "
                       "path to draw a field for");
        return false;
    }
    if (!strncmp(v, "exits:", 6)) {
        for (int k = 0; k < sc->exits_count; ++k) {
            if (strcmp(sc->exits[k].name, v + 6) != 0) continue;
            *out = (rec_field_spec){.exits = k};
            snprintf(out->label, sizeof out->label, "exits %s", sc->exits[k].name);
            return true;
        }
        cli_error(cmd, "--field: the scenario has no exit set '%s'", v + 6);
        return false;
    }
    char* end;
    errno = 0;
    const double x = strtod(v, &end);
    double y = NAN;
    if (end != v && *end == ',') {
        const char* ys = end + 1;
        y = strtod(ys, &end);
        if (end == ys || *end != '\0') y = NAN;
    }
    if (errno || !isfinite(x) || !isfinite(y) || fabs(x) > CROWD_MAX_COORD ||
        fabs(y) > CROWD_MAX_COORD) {
        cli_error(cmd, "--field: expected auto, X,Y (a point within %g m) or exits:NAME, got '%s'",
                  (double)CROWD_MAX_COORD, v);
        return false;
    }
    *out = (rec_field_spec){.exits = -1, .point = {(float)x, (float)y}};
    snprintf(out->label, sizeof out->label, "goal [%g, %g]", x, y);
    return true;
}

int cmd_run(int argc, char** argv) {
    const char* cmd = "run";
    const char* file = NULL;
    const char* record = NULL;
    const char* field = NULL;
    long ticks = -1, threads = 0, every = -1;
    double scale = 1.0, field_step = 0.0;
    bool hash = false;
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        const char* v;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--hash")) {
            hash = true;
        } else if (!strcmp(a, "--ticks")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) || !cli_int(cmd, a, v, 0, 100000000, &ticks))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--threads")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, a, v, 0, CROWD_MAX_THREADS, &threads))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--record-every")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) || !cli_int(cmd, a, v, 1, 100000000, &every))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--agents-scale")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) || !cli_double(cmd, a, v, 0.0, 1e6, &scale))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--record")) {
            if (!(record = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(a, "--field")) {
            if (!(field = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(a, "--field-step")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_double(cmd, a, v, 0.0, 1000.0, &field_step))
                return EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_error(cmd, "unknown option '%s' (try crowd run --help)", a);
            return EXIT_USAGE;
        } else if (file) {
            cli_error(cmd, "one scenario file at a time (got '%s' and '%s')", file, a);
            return EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (!file) {
        cli_error(cmd, "missing the scenario file (try crowd run --help)");
        return EXIT_USAGE;
    }
    if ((field || field_step > 0.0) && !record) {
        cli_error(cmd, "%s goes with --record", field ? "--field" : "--field-step");
        return EXIT_USAGE;
    }

    // Under mpiexec (the MPI build) every rank builds the same world and the ranks split it; rank
    // 0 prints, writes the recording and draws the progress bar.
    int rank = 0, ranks = 1;
#ifdef CROWD_CLI_MPI
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
    char err[1024];
    scenario sc;
    if (!scenario_load(file, &sc, err, sizeof err)) {
        cli_error(cmd, "%s", err);
        return 1;
    }
    rec_field_spec fs;
    if (field && !field_spec(cmd, &sc, field, &fs)) {
        scenario_free(&sc);
        return 1;
    }
    if (field) fs.step = (float)field_step;
    // Open the output before the run so that an unwritable path fails at once.
    FILE* out = record && rank == 0 ? cli_open_out(cmd, record, "wb") : NULL;
    if (record && rank == 0 && !out) {
        scenario_free(&sc);
        return 1;
    }
    built_world b;
    build_options bo = {.threads = (int)threads, .agents_scale = scale};
    int rc = 0;
    if (!scenario_build(&sc, &bo, &b, err, sizeof err)) {
        cli_error(cmd, "%s", err);
        if (out) {
            fclose(out);
            remove(record);
        }
        scenario_free(&sc);
        return 1;
    }
    rec_writer rec = {0};
    const int record_every = every > 0 ? (int)every : sc.record_every;
    // Every rank keeps a writer so that all take part in gathering each frame; rank 0's is written.
    if (record && !rec_begin(&rec, &b, record_every)) {
        cli_error(cmd, "out of memory");
        rc = 1;
    }
    if (rc == 0 && field && !rec_field(&rec, &b, &fs, err, sizeof err)) {
        if (rank == 0) cli_error(cmd, "%s", err);
        rc = 1;
    }
    run_options ro = {.ticks = ticks >= 0 ? (int)ticks : sc.ticks,
                      .progress = rank == 0 && isatty(STDOUT_FILENO) == 1,
                      .rec = record ? &rec : NULL,
                      .record_every = record_every};
#ifdef CROWD_CLI_MPI
    if (rc == 0 && ranks > 1) {
        const crowd_status cs = crowd_dist_create(MPI_COMM_WORLD, b.world, &ro.dist);
        if (cs != CROWD_OK) {
            if (rank == 0)
                cli_error(cmd, "cannot split the world across %d ranks: %s", ranks,
                          crowd_status_string(cs));
            rc = 1;
        }
    }
#endif
    run_stats st;
    if (rc == 0 && !run_world(&b, &ro, &st, err, sizeof err)) {
        if (rank == 0) cli_error(cmd, "%s", err);
        rc = 1;
    }
    if (rc == 0 && rank == 0) {
        print_run_summary(stdout, &b, &st);
        if (ranks > 1) printf("ranks: %d\n", ranks);
        if (hash) printf("state-hash: %016" PRIx64 "\n", st.hash);
    }
#ifdef CROWD_CLI_MPI
    if (ro.dist) {
        crowd_dist_destroy(ro.dist); // and the world it took over
        b.world = NULL;
    }
#endif
    if (record && !out) rec_writer_free(&rec);
    if (out) {
        if (rc == 0 && !rec_finish(&rec, out)) {
            cli_error(cmd, "cannot write '%s'", record);
            rc = 1;
        }
        if (!cli_close_out(cmd, record, out)) rc = 1;
        if (rc != 0) remove(record);
        if (rc == 0)
            printf("recording: %s (%d frame%s, every %d ticks, %.1f MB)\n", record, rec.frames,
                   rec.frames == 1 ? "" : "s", record_every, (double)rec.len / 1e6);
        rec_writer_free(&rec);
    }
    built_world_free(&b);
    scenario_free(&sc);
    return rc;
}
