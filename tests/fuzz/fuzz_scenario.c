// libFuzzer target: the crowd command's scenario parser on untrusted bytes.
//
// A document that parses is built into a world at a small scale (the parser accepts counts in the
// hundreds of thousands; the fuzzer needs milliseconds per input), stepped a few ticks while
// being recorded, and the recording must read back. Whatever fails must leave nothing allocated
// (LeakSanitizer checks that) and must say why.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cli.h"
#include "record.h"
#include "scenario.h"

enum { AIM_AGENTS = 200, MAX_AGENTS = 2000 };

// A failed check names itself, so a crash report says which property broke.
#define check(ok) ((ok) ? (void)0 : fail_check(#ok, __LINE__))
static void fail_check(const char* what, int line) {
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, line, what);
    abort();
}

static void run(const scenario* sc) {
    // Every crowd's count is scaled down together; followers per leader do not scale, so the
    // total can still be large and such documents are only parsed.
    const int64_t full = scenario_agent_total(sc, 1.0);
    const double scale = full > AIM_AGENTS ? (double)AIM_AGENTS / (double)full : 1.0;
    if (scenario_agent_total(sc, scale) > MAX_AGENTS) return;
    // Navigation bounded too: a grid of at most 2^14 cells (a larger one is not laid: everybody
    // heads straight) and fields of at most 8 destinations (a scenario with more is refused
    // with CROWD_ERR_CAPACITY, which the builder reports).
    const build_options opt = {.threads = 1,
                               .agents_scale = scale,
                               .nav_max_cells = 1 << 14,
                               .nav_budget = (size_t)8 * 4 << 14};
    built_world b;
    char err[512] = "";
    if (!scenario_build(sc, &opt, &b, err, sizeof err)) {
        check(err[0] != '\0');
        return;
    }
    rec_writer rec = {0};
    check(rec_begin(&rec, &b, 1));
    const run_options ro = {.ticks = 3, .rec = &rec, .record_every = 1};
    run_stats stats;
    if (run_world(&b, &ro, &stats, err, sizeof err)) {
        check(rec_end(&rec) && !rec.failed);
        // What the writer wrote, the reader reads, frame for frame.
        uint8_t* copy = malloc(rec.len);
        check(copy != NULL);
        memcpy(copy, rec.buf, rec.len);
        recording r;
        check(rec_parse(copy, rec.len, "fuzz.rec", &r, err, sizeof err));
        check(r.frame_count == 4);
        check(r.frames[3].count == crowd_world_agent_count(b.world));
        rec_free(&r);
    } else {
        check(err[0] != '\0');
    }
    rec_writer_free(&rec);
    built_world_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    scenario sc;
    char err[512] = "";
    if (!scenario_parse("fuzz.json", (const char*)data, size, &sc, err, sizeof err)) {
        check(err[0] != '\0');
        return 0;
    }
    run(&sc);
    scenario_free(&sc);
    return 0;
}
