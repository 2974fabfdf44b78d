// crowd scale: ms/tick, speedup, parallel efficiency and per-phase times for every thread count
// and size, as a table, JSON and an SVG chart.
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale.h"
#include "scenes.h"

static void usage(FILE* f) {
    fputs(
        "usage: crowd scale (FILE | --agents N[,N...]) [options]\n"
        "\n"
        "Runs the scenario FILE (at each --agents-scale) or a built-in scene of N agents with\n"
        "each thread count and reports ms/tick, speedup and parallel efficiency against the\n"
        "smallest thread count, and the per-phase breakdown. Thread counts above the number\n"
        "of cores run too and are marked oversubscribed.\n"
        "\n"
        "options:\n"
        "  --threads LIST        thread counts, e.g. 1,2,4 (default 1,2,4)\n"
        "  --ticks N             timed ticks per run (default 100)\n"
        "  --warmup N            untimed ticks before them (default 5)\n"
        "  --agents LIST         sizes of the built-in scene, e.g. 10000,100000\n"
        "  --scene NAME          built-in scene: separation | crossing | mixed | queue |\n"
        "                        waypoints | tube | groups | plaza | town (default\n"
        "                        separation)\n"
        "  --agents-scale LIST   scenario sizes as count multipliers (default 1)\n"
        "  --json OUT            write the results as JSON (schema in tools/scenarios/README.md)\n"
        "  --svg OUT             write a chart of speedup and phase times (not with --ranks)\n"
        "  --ranks LIST          (MPI build) split the world across each number of MPI ranks\n"
        "                        instead, e.g. 1,2,4, with the first --threads count per rank, "
        "and\n"
        "                        report per rank its agents, ghosts, bytes sent per tick and\n"
        "                        step and exchange times, and the load imbalance. Started\n"
        "                        alone, crowd starts itself under mpiexec with the most ranks.\n"
        "  --split KIND          with --ranks: bisection (default) or strips\n"
        "  --rebalance X         with --ranks: cut the split again when the imbalance (most\n"
        "                        agents on a rank / mean) reaches X >= 1 (default 1.1)\n"
        "  -h, --help            show this help\n",
        f);
}

static int parse(int argc, char** argv, scale_args* a) {
    const char* cmd = "scale";
    for (int i = 2; i < argc; ++i) {
        const char* f = argv[i];
        const char* v;
        if (cli_is_help(f)) {
            usage(stdout);
            return -1;
        } else if (!strcmp(f, "--threads")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int_list(cmd, f, v, 1, CROWD_MAX_THREADS, a->threads, SCALE_MAX_THREADS,
                              &a->thread_count))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--agents")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int_list(cmd, f, v, 1, 1 << 24, a->agents, SCALE_MAX_SIZES, &a->agent_count))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--agents-scale")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_double_list(cmd, f, v, a->scales, SCALE_MAX_SIZES, &a->scale_count))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--ticks")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, f, v, 1, 100000000, &a->ticks))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--warmup")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, f, v, 0, 100000000, &a->warmup))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--scene")) {
            if (!(v = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
            const int kind = scene_kind_of(v);
            if (kind < 0) {
                cli_error(cmd,
                          "--scene: expected separation, crossing, mixed, queue, waypoints, tube, "
                          "groups, plaza or town, got '%s'",
                          v);
                return EXIT_USAGE;
            }
            a->scene = (scene_kind)kind;
            a->scene_name = v;
        } else if (!strcmp(f, "--ranks")) {
#ifdef CROWD_CLI_MPI
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int_list(cmd, f, v, 1, 1024, a->ranks, SCALE_MAX_THREADS, &a->rank_count))
                return EXIT_USAGE;
#else
            cli_error(cmd, "--ranks needs the MPI build (cmake -DCROWD_MPI=ON)");
            return EXIT_USAGE;
#endif
        } else if (!strcmp(f, "--split")) {
            if (!(v = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
            if (strcmp(v, "bisection") && strcmp(v, "strips")) {
                cli_error(cmd, "--split: expected bisection or strips, got '%s'", v);
                return EXIT_USAGE;
            }
            a->strips = !strcmp(v, "strips");
        } else if (!strcmp(f, "--rebalance")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_double(cmd, f, v, 0.0, 1e300, &a->rebalance))
                return EXIT_USAGE;
            if (a->rebalance < 1.0) {
                cli_error(cmd, "--rebalance: expected at least 1, got %s", v);
                return EXIT_USAGE;
            }
        } else if (!strcmp(f, "--json")) {
            if (!(a->json = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(f, "--svg")) {
            if (!(a->svg = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (f[0] == '-' && f[1] != '\0') {
            cli_error(cmd, "unknown option '%s' (try crowd scale --help)", f);
            return EXIT_USAGE;
        } else if (a->file) {
            cli_error(cmd, "one scenario file at a time (got '%s' and '%s')", a->file, f);
            return EXIT_USAGE;
        } else {
            a->file = f;
        }
    }
    if (!a->file == !a->agent_count) {
        cli_error(cmd, "give either a scenario FILE or --agents N (try crowd scale --help)");
        return EXIT_USAGE;
    }
    if (a->file && a->scene_name) {
        cli_error(cmd, "--scene goes with --agents, not with a scenario file");
        return EXIT_USAGE;
    }
    if (a->rank_count && a->svg) {
        cli_error(cmd, "--svg charts thread counts; with --ranks the figures go to --json");
        return EXIT_USAGE;
    }
    if (!a->rank_count && (a->strips || a->rebalance > 0.0)) {
        cli_error(cmd, "--split and --rebalance go with --ranks");
        return EXIT_USAGE;
    }
    if (!a->file && a->scale_count) {
        cli_error(cmd, "--agents-scale goes with a scenario file, not with --agents");
        return EXIT_USAGE;
    }
    return 0;
}

// Builds the world of one size with `threads` (scale.h).
bool scale_build(const scale_args* a, const scenario* sc, int size, int threads, built_world* b,
                 scene_def* scene, char* err, size_t errlen) {
    if (a->file) {
        build_options bo = {.threads = threads, .agents_scale = a->scales[size]};
        return scenario_build(sc, &bo, b, err, errlen);
    }
    *scene = scene_def_default();
    scene->kind = a->scene;
    scene->agents = a->agents[size];
    scene->threads = threads;
    *b = (built_world){.sc = sc};
    crowd_status st = scene_create(scene, &b->world);
    if (st != CROWD_OK) {
        snprintf(err, errlen, "cannot create the scene: %s", crowd_status_string(st));
        return false;
    }
    return true;
}

int cmd_scale(int argc, char** argv) {
    const char* cmd = "scale";
    scale_args a = {.ticks = 100, .warmup = 5, .scene = SCENE_SEPARATION};
    int r = parse(argc, argv, &a);
    if (r) return r < 0 ? 0 : r;
    if (!a.thread_count) {
        a.threads[0] = 1;
        a.threads[1] = 2;
        a.threads[2] = 4;
        a.thread_count = 3;
    }
    if (a.file && !a.scale_count) {
        a.scales[0] = 1.0;
        a.scale_count = 1;
    }
    char err[1024];
    scenario sc = {0};
    if (a.file && !scenario_load(a.file, &sc, err, sizeof err)) {
        cli_error(cmd, "%s", err);
        return 1;
    }
    if (!a.file) {
        // The summary printer reads the scenario's name and dt; a scene has the defaults.
        sc.name = (char*)(a.scene_name ? a.scene_name : "separation");
        sc.file = (char*)"built-in scene";
        sc.dt = crowd_world_def_default().dt;
    }
#ifdef CROWD_CLI_MPI
    if (a.rank_count) {
        const int st = scale_ranks(&a, &sc, argc, argv);
        if (a.file) scenario_free(&sc);
        return st;
    }
#endif
    FILE* json = a.json ? cli_open_out(cmd, a.json, "w") : NULL;
    FILE* svg = a.svg ? cli_open_out(cmd, a.svg, "w") : NULL;
    scale_report* rep = calloc(1, sizeof *rep);
    int rc = 0;
    if ((a.json && !json) || (a.svg && !svg)) rc = 1;
    if (!rep && rc == 0) {
        cli_error(cmd, "out of memory");
        rc = 1;
    }
    if (rc == 0) {
        rep->source_kind = a.file ? "scenario" : "scene";
        rep->source = a.file ? a.file : sc.name;
        rep->name = sc.name;
        rep->ticks = (int)a.ticks;
        rep->warmup = (int)a.warmup;
        rep->cores = omp_get_num_procs();
        rep->size_count = a.file ? a.scale_count : a.agent_count;
    }
    const bool tty = isatty(STDOUT_FILENO) == 1;
    for (int s = 0; rc == 0 && s < rep->size_count; ++s) {
        scale_size* z = &rep->sizes[s];
        z->agents_scale = a.file ? a.scales[s] : 0.0;
        for (int t = 0; rc == 0 && t < a.thread_count; ++t) {
            built_world b;
            scene_def scene;
            if (!scale_build(&a, &sc, s, a.threads[t], &b, &scene, err, sizeof err)) {
                cli_error(cmd, "%s", err);
                rc = 1;
                break;
            }
            if (tty) {
                printf("  %d agents, %d thread%s\n", crowd_world_agent_count(b.world), a.threads[t],
                       a.threads[t] == 1 ? "" : "s");
                fflush(stdout);
            }
            run_options ro = {.ticks = (int)a.ticks, .warmup = (int)a.warmup, .progress = tty};
            scale_run* run = &z->runs[z->run_count];
            if (!run_world(&b, &ro, &run->stats, err, sizeof err)) {
                cli_error(cmd, "%s", err);
                rc = 1;
            } else {
                run->threads = a.threads[t];
                run->oversubscribed = a.threads[t] > rep->cores;
                z->agents = run->stats.agents_start;
                z->run_count++;
            }
            if (a.file)
                built_world_free(&b);
            else
                crowd_world_destroy(b.world);
        }
    }
    if (rc == 0) {
        scale_finish(rep);
        scale_print_table(stdout, rep);
        if (json && !scale_write_json(json, rep)) {
            cli_error(cmd, "cannot write '%s'", a.json);
            rc = 1;
        }
        if (svg && !scale_write_svg(svg, rep)) {
            cli_error(cmd, "cannot write '%s'", a.svg);
            rc = 1;
        }
    }
    if (json && !cli_close_out(cmd, a.json, json)) rc = 1;
    if (svg && !cli_close_out(cmd, a.svg, svg)) rc = 1;
    if (rc != 0) {
        if (json) remove(a.json);
        if (svg) remove(a.svg);
    } else {
        if (json) printf("json: %s\n", a.json);
        if (svg) printf("svg: %s\n", a.svg);
    }
    free(rep);
    if (a.file) scenario_free(&sc);
    return rc;
}
