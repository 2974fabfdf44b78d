// crowd scale: ms/tick, speedup, parallel efficiency and per-phase times for every thread count
// and size, as a table, JSON and an SVG chart.
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scale.h"
#include "scenes.h"
#ifdef CROWD_CLI_MPI
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#endif

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
        "  --svg OUT             write a chart of speedup and phase times\n"
        "  --ranks LIST          (MPI build) split the world across each number of MPI ranks\n"
        "                        instead, e.g. 1,2,4, with the first --threads count per rank, "
        "and\n"
        "                        report per rank its agents, ghosts, bytes sent per tick and\n"
        "                        step and exchange times, and the load imbalance. Started\n"
        "                        alone, crowd starts itself under mpiexec with the most ranks.\n"
        "  -h, --help            show this help\n",
        f);
}

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
} scale_args;

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
    if (!a->file && a->scale_count) {
        cli_error(cmd, "--agents-scale goes with a scenario file, not with --agents");
        return EXIT_USAGE;
    }
    return 0;
}

// Builds the world of one size with `threads`.
static bool build(const scale_args* a, const scenario* sc, int size, int threads, built_world* b,
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

#ifdef CROWD_CLI_MPI
extern char** environ;

// Started alone (one rank) with more ranks asked for: the same command under mpiexec with the
// most ranks (MPIEXEC names the launcher; default mpiexec), its exit status returned.
static int relaunch(int argc, char** argv, int ranks) {
    char self[4096], n[16];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return -1;
    self[len] = '\0';
    snprintf(n, sizeof n, "%d", ranks);
    const char* launcher = getenv("MPIEXEC") ? getenv("MPIEXEC") : "mpiexec";
    char** args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) return -1;
    args[0] = (char*)launcher;
    args[1] = (char*)"-n";
    args[2] = n;
    args[3] = self;
    for (int i = 1; i < argc; ++i) args[i + 3] = argv[i];
    pid_t pid;
    const int e = posix_spawnp(&pid, launcher, NULL, NULL, args, environ);
    free(args);
    if (e != 0) return -1;
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int cmp_dbl(const void* x, const void* y) {
    const double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

// One rank's figures over the timed ticks.
typedef struct rank_figures {
    double agents, ghosts, linked, kb_per_tick, step_ms, exchange_ms; // medians of the ticks
} rank_figures;

// Splits each size's world across each rank count (the first K ranks of the launch) and prints
// per rank and per rank count figures on rank 0.
static int scale_ranks(const scale_args* a, const scenario* sc) {
    const char* cmd = "scale";
    int me, world_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const int ticks = (int)a->ticks, threads = a->thread_count ? a->threads[0] : 1;
    const int sizes = a->file ? a->scale_count : a->agent_count;
    for (int k = 0; k < a->rank_count; ++k)
        if (a->ranks[k] > world_size) {
            if (me == 0)
                cli_error(cmd, "--ranks %d: only %d ranks were started", a->ranks[k], world_size);
            return 1;
        }
    double* col = malloc(sizeof *col * 6 * (size_t)ticks);
    rank_figures* all = malloc(sizeof *all * (size_t)world_size);
    if (!col || !all) {
        free(col);
        free(all);
        cli_error(cmd, "out of memory");
        return 1;
    }
    int rc = 0;
    if (me == 0)
        printf("scale across ranks: %s, %d ticks after %d untimed, %d thread%s per rank; medians "
               "over the ticks\n",
               sc->name, ticks, (int)a->warmup, threads, threads == 1 ? "" : "s");
    for (int s = 0; rc == 0 && s < sizes; ++s) {
        uint64_t first_hash = 0;
        bool same = true;
        for (int k = 0; rc == 0 && k < a->rank_count; ++k) {
            const int K = a->ranks[k];
            MPI_Comm comm;
            MPI_Comm_split(MPI_COMM_WORLD, me < K ? 0 : MPI_UNDEFINED, me, &comm);
            int bad = 0;
            if (comm != MPI_COMM_NULL) {
                char err[1024];
                built_world b;
                scene_def scene;
                crowd_dist* d = NULL;
                crowd_status st = CROWD_OK;
                if (!build(a, sc, s, threads, &b, &scene, err, sizeof err)) {
                    cli_error(cmd, "%s", err);
                    st = CROWD_ERR_OUT_OF_MEMORY;
                    b.world = NULL;
                } else {
                    st = crowd_dist_create(comm, b.world, &d);
                    if (st != CROWD_OK && me == 0)
                        cli_error(cmd, "cannot split the world: %s", crowd_status_string(st));
                }
                for (int t = 0; st == CROWD_OK && t < a->warmup; ++t) st = crowd_dist_step(d);
                int rebalanced = 0;
                for (int t = 0; st == CROWD_OK && t < ticks; ++t) {
                    st = crowd_dist_step(d);
                    const crowd_dist_stats x = crowd_dist_get_stats(d);
                    rebalanced += x.rebalanced;
                    col[t] = x.owned;
                    col[ticks + t] = x.ghosts;
                    col[2 * ticks + t] = x.linked;
                    col[3 * ticks + t] = (double)x.bytes_sent / 1e3;
                    col[4 * ticks + t] = x.step_ms;
                    col[5 * ticks + t] = x.exchange_ms;
                }
                uint64_t h = 0;
                if (st == CROWD_OK) st = crowd_dist_state_hash(d, &h);
                rank_figures mine = {0};
                double* f = &mine.agents;
                for (int c = 0; c < 6; ++c) {
                    qsort(col + (size_t)c * (size_t)ticks, (size_t)ticks, sizeof *col, cmp_dbl);
                    f[c] = col[(size_t)c * (size_t)ticks + (size_t)(ticks / 2)];
                }
                bad = st != CROWD_OK;
                MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
                MPI_Gather(&mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, comm);
                if (me == 0 && !bad) {
                    const int agents = crowd_dist_agent_count(d);
                    double most = 0.0, sum = 0.0, slow = 0.0, kb = 0.0;
                    printf("%d agents on %d rank%s:\n", agents, K, K == 1 ? "" : "s");
                    printf("  rank  agents  ghosts  linked  KB sent/tick  step ms  exchange ms\n");
                    for (int r = 0; r < K; ++r) {
                        const rank_figures* g = &all[r];
                        printf("  %4d  %6.0f  %6.0f  %6.0f  %12.1f  %7.3f  %11.3f\n", r, g->agents,
                               g->ghosts, g->linked, g->kb_per_tick, g->step_ms, g->exchange_ms);
                        most = g->agents > most ? g->agents : most;
                        sum += g->agents;
                        kb += g->kb_per_tick;
                        const double tick = g->step_ms + g->exchange_ms;
                        slow = tick > slow ? tick : slow;
                    }
                    if (k == 0) first_hash = h;
                    same &= h == first_hash;
                    printf("  imbalance (most agents on a rank / mean) %.3f, strips recomputed "
                           "before %d of %d ticks, KB sent per tick in all %.1f, slowest rank's "
                           "tick %.3f ms, state-hash %016llx\n",
                           sum > 0.0 ? most * K / sum : 1.0, rebalanced, ticks, kb, slow,
                           (unsigned long long)h);
                }
                if (d)
                    crowd_dist_destroy(d);
                else
                    crowd_world_destroy(b.world);
                if (a->file && b.world) { // the scenario's tables; the world went with d
                    b.world = NULL;
                    built_world_free(&b);
                }
                MPI_Comm_free(&comm);
            }
            // The ranks left out wait without taking a core from those measured.
            MPI_Request req;
            MPI_Ibcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
            for (int done = 0; MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done;)
                nanosleep(&(struct timespec){0, 1000000}, NULL);
            if (bad) rc = 1;
        }
        if (me == 0 && rc == 0)
            printf("state-hash on every rank count: %s\n", same ? "equal" : "DIFFERENT");
        if (!same) rc = 1;
    }
    free(col);
    free(all);
    return rc;
}
#endif

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
        int world_size, most = 1;
        MPI_Comm_size(MPI_COMM_WORLD, &world_size);
        for (int k = 0; k < a.rank_count; ++k) most = a.ranks[k] > most ? a.ranks[k] : most;
        if (world_size == 1 && most > 1) {
            if (a.file) scenario_free(&sc);
            const int st = relaunch(argc, argv, most);
            if (st < 0) cli_error(cmd, "cannot start mpiexec for %d ranks", most);
            return st < 0 ? 1 : st;
        }
        const int st = scale_ranks(&a, &sc);
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
            if (!build(&a, &sc, s, a.threads[t], &b, &scene, err, sizeof err)) {
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
