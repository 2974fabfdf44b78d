// crowd demo: the plaza scenario with a summary and an HTML replay.
//
// When this build cannot build the plaza (it uses behaviors the library may not have), the demo
// says so and runs a built-in plain crowd of the same size instead.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef CROWD_SCENARIO_DIR
#define CROWD_SCENARIO_DIR "tools/scenarios"
#endif

// 50,000 agents with separation and goals only.
static const char BUILTIN[] =
    "{\n"
    "  \"name\": \"built-in plain crowd\",\n"
    "  \"description\": \"Strollers, three streams crossing them and a group scattering.\",\n"
    "  \"world\": {\"dt\": 0.1, \"cell_size\": 2.5, \"seed\": 7, \"ticks\": 600,\n"
    "            \"record_every\": 10},\n"
    "  \"crowds\": [\n"
    "    {\"name\": \"strollers\", \"count\": 20000,\n"
    "     \"area\": {\"kind\": \"uniform\", \"min\": [-140, -140], \"max\": [140, 140]},\n"
    "     \"agent\": {\"random_speed\": 0.8, \"max_speed\": [1.0, 1.6]}},\n"
    "    {\"name\": \"eastbound\", \"count\": 7500,\n"
    "     \"area\": {\"kind\": \"jittered_grid\", \"center\": [-100, 0], \"spacing\": 1.2,\n"
    "              \"columns\": 60},\n"
    "     \"goal\": {\"mode\": \"seek\", \"target\": [160, 0]}},\n"
    "    {\"name\": \"westbound\", \"count\": 7500,\n"
    "     \"area\": {\"kind\": \"jittered_grid\", \"center\": [100, 0], \"spacing\": 1.2,\n"
    "              \"columns\": 60},\n"
    "     \"goal\": {\"mode\": \"arrive\", \"target\": [-160, 0], \"slow_radius\": 15}},\n"
    "    {\"name\": \"northbound\", \"count\": 7500,\n"
    "     \"area\": {\"kind\": \"grid\", \"center\": [0, -115], \"spacing\": 1.2, \"columns\": "
    "150},\n"
    "     \"goal\": {\"mode\": \"arrive\", \"target\": [0, 160], \"slow_radius\": 15}},\n"
    "    {\"name\": \"scatter\", \"count\": 7500,\n"
    "     \"area\": {\"kind\": \"circle\", \"center\": [0, 70], \"radius\": 45},\n"
    "     \"goal\": {\"mode\": \"flee\", \"target\": [0, 70]}}\n"
    "  ]\n"
    "}\n";

static void usage(FILE* f) {
    fputs("usage: crowd demo [options]\n"
          "\n"
          "Runs the plaza scenario (50,000 agents using every behavior), prints a summary and\n"
          "writes an HTML replay. A build that cannot build the plaza says so and runs a built-in\n"
          "plain crowd of 50,000 agents instead.\n"
          "\n"
          "options:\n"
          "  --scenario FILE    scenario to run (default: tools/scenarios/plaza.json)\n"
          "  --ticks N          ticks to step (default: the scenario's world.ticks)\n"
          "  --threads T        OpenMP threads, 0 = all cores (default 0)\n"
          "  --agents-scale K   multiply every crowd's count by K\n"
          "  --record-every K   record every K-th tick (default: the scenario's)\n"
          "  -o, --out FILE     the replay (default: crowd-demo.html next to the crowd program)\n"
          "  -h, --help         show this help\n",
          f);
}

// crowd-demo.html in the directory of the program when it was started by path, else here.
static char* default_out(const char* argv0) {
    const char* slash = strrchr(argv0, '/');
    const size_t dir = slash ? (size_t)(slash - argv0) + 1 : 0;
    static const char name[] = "crowd-demo.html";
    char* s = malloc(dir + sizeof name);
    if (s) {
        memcpy(s, argv0, dir);
        memcpy(s + dir, name, sizeof name);
    }
    return s;
}

typedef struct demo_args {
    const char* scenario;
    const char* out;
    long ticks, threads, every;
    double scale;
} demo_args;

static int parse(int argc, char** argv, demo_args* a) {
    const char* cmd = "demo";
    for (int i = 2; i < argc; ++i) {
        const char* f = argv[i];
        const char* v;
        if (cli_is_help(f)) {
            usage(stdout);
            return -1;
        } else if (!strcmp(f, "--scenario")) {
            if (!(a->scenario = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(f, "-o") || !strcmp(f, "--out")) {
            if (!(a->out = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(f, "--ticks")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, f, v, 1, 100000000, &a->ticks))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--threads")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, f, v, 0, CROWD_MAX_THREADS, &a->threads))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--record-every")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_int(cmd, f, v, 1, 100000000, &a->every))
                return EXIT_USAGE;
        } else if (!strcmp(f, "--agents-scale")) {
            if (!(v = cli_value(cmd, argc, argv, &i)) ||
                !cli_double(cmd, f, v, 0.0, 1e6, &a->scale))
                return EXIT_USAGE;
        } else {
            cli_error(cmd, "unknown argument '%s' (try crowd demo --help)", f);
            return EXIT_USAGE;
        }
    }
    return 0;
}

// Builds the demo's scenario into *b, falling back to the built-in crowd when this build cannot
// build it. False (with the message printed) when neither can be built.
static bool build_or_fall_back(const demo_args* a, scenario* sc, built_world* b) {
    char err[1024];
    build_options bo = {.threads = (int)a->threads, .agents_scale = a->scale};
    if (scenario_build(sc, &bo, b, err, sizeof err)) return true;
    printf("crowd demo: this build cannot run %s: %s\n", a->scenario, err);
    scenario_free(sc);
    if (!scenario_parse("built-in plain crowd", BUILTIN, sizeof BUILTIN - 1, sc, err, sizeof err) ||
        !scenario_build(sc, &bo, b, err, sizeof err)) {
        cli_error("demo", "%s", err);
        return false;
    }
    printf("crowd demo: running the built-in plain crowd (%" PRId64
           " agents: separation, seek, arrive and flee) instead\n",
           scenario_agent_total(sc, a->scale));
    return true;
}

// Runs the world with a recording, prints the summary and writes the replay to f (closing it).
static bool run_and_write(const demo_args* a, built_world* b, FILE* f, const char* out) {
    const scenario* sc = b->sc;
    const int every = a->every > 0 ? (int)a->every : sc->record_every;
    rec_writer rec;
    run_options ro = {.ticks = a->ticks > 0 ? (int)a->ticks : sc->ticks,
                      .progress = isatty(STDOUT_FILENO) == 1,
                      .rec = &rec,
                      .record_every = every};
    run_stats st;
    char err[512];
    bool ok = rec_begin(&rec, b, every) && run_world(b, &ro, &st, err, sizeof err) && rec_end(&rec);
    if (!ok) {
        cli_error("demo", "%s", rec.failed ? "out of memory while recording" : err);
        fclose(f);
    } else {
        printf("crowdstep demo\n");
        print_run_summary(stdout, b, &st);
        printf("state-hash: %016" PRIx64 "\n", st.hash);
        ok = viewer_write_html(f, rec.buf, rec.len, sc->name);
        if (!ok) cli_error("demo", "cannot write '%s'", out);
        ok = cli_close_out("demo", out, f) && ok;
        if (ok)
            printf("replay: %s (%d frame%s, every %d ticks; open it in a browser)\n", out,
                   rec.frames, rec.frames == 1 ? "" : "s", every);
    }
    if (!ok) remove(out);
    rec_writer_free(&rec);
    return ok;
}

int cmd_demo(int argc, char** argv) {
    demo_args a = {
        .scenario = CROWD_SCENARIO_DIR "/plaza.json", .ticks = -1, .every = -1, .scale = 1.0};
    int r = parse(argc, argv, &a);
    if (r) return r < 0 ? 0 : r;
    char* out_owned = a.out ? NULL : default_out(argv[0]);
    const char* out = a.out ? a.out : out_owned;
    char err[1024];
    scenario sc = {0};
    bool ok = out != NULL;
    if (!ok) cli_error("demo", "out of memory");
    if (ok && !(ok = scenario_load(a.scenario, &sc, err, sizeof err))) cli_error("demo", "%s", err);
    FILE* f = ok ? cli_open_out("demo", out, "wb") : NULL;
    built_world b;
    if (f && build_or_fall_back(&a, &sc, &b)) {
        ok = run_and_write(&a, &b, f, out);
        built_world_free(&b);
    } else if (f) {
        fclose(f);
        remove(out);
        ok = false;
    } else {
        ok = false;
    }
    scenario_free(&sc);
    free(out_owned);
    return ok ? 0 : 1;
}
