// Writes the recording fuzz target's seed corpus: `crowd run --record` of each scenario file given
// (built at a few hundred agents, 20 ticks, a frame every 5), through the command's own writer.
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "cli.h"
#include "record.h"
#include "scenario.h"

static int seed(const char* dir, const char* file) {
    scenario sc;
    char err[512];
    if (!scenario_load(file, &sc, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const int64_t full = scenario_agent_total(&sc, 1.0);
    const build_options opt = {.threads = 1,
                               .agents_scale = full > 300 ? 300.0 / (double)full : 1.0};
    built_world b;
    int bad = 1;
    if (scenario_build(&sc, &opt, &b, err, sizeof err)) {
        rec_writer rec = {0};
        const run_options ro = {.ticks = 20, .rec = &rec, .record_every = 5};
        run_stats stats;
        const char* base = strrchr(file, '/');
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.rec", dir, base ? base + 1 : file);
        FILE* f = NULL;
        if (rec_begin(&rec, &b, 5) && run_world(&b, &ro, &stats, err, sizeof err) &&
            (f = fopen(path, "wb")) != NULL)
            bad = !rec_finish(&rec, f);
        if (f) bad |= fclose(f) != 0;
        rec_writer_free(&rec);
        built_world_free(&b);
    }
    if (bad) fprintf(stderr, "seed_recording: %s: %s\n", file, err);
    scenario_free(&sc);
    return bad;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: fuzz_recording_seeds OUT_DIR SCENARIO.json...\n");
        return 2;
    }
    int bad = 0;
    for (int i = 2; i < argc; ++i) bad |= seed(argv[1], argv[i]);
    return bad;
}
