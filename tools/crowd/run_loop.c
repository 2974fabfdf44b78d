// Stepping a built world with timing, an optional recording and a progress bar.
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

double cli_median(double* v, int n) {
    return cli_percentile(v, n, 0.5);
}

// Nearest-rank percentile of v (sorted in place).
double cli_percentile(double* v, int n, double p) {
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int k = (int)((double)(n - 1) * p + 0.5);
    return v[k < 0 ? 0 : (k >= n ? n - 1 : k)];
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(int done, int total, double ms) {
    enum { WIDTH = 30 };
    const int filled = total ? (int)((long long)done * WIDTH / total) : WIDTH;
    char bar[WIDTH + 1];
    for (int k = 0; k < WIDTH; ++k) bar[k] = k < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    printf("\r  [%s] %3d%%  tick %d/%d  %.2f ms/tick", bar, total ? done * 100 / total : 100, done,
           total, ms);
    fflush(stdout);
}

bool run_world(built_world* b, const run_options* o, run_stats* out, char* err, size_t errlen) {
    const int ticks = o->ticks;
    // One row of step times and one per phase.
    double* ms = malloc(sizeof *ms * (size_t)(ticks > 0 ? ticks : 1) * (CROWD_PHASE_COUNT + 1));
    if (!ms) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = true;
    crowd_status st = CROWD_OK;
    for (int t = 0; t < o->warmup && st == CROWD_OK; ++t) st = crowd_world_step(b->world);
    const int agents_start = crowd_world_agent_count(b->world);
    if (o->rec && !rec_frame(o->rec, b)) ok = false;
    double last_draw = 0.0;
    for (int t = 0; t < ticks && st == CROWD_OK && ok; ++t) {
        st = crowd_world_step(b->world);
        const crowd_profile p = crowd_world_get_profile(b->world);
        ms[t] = p.step_ms;
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
            ms[(size_t)(k + 1) * (size_t)ticks + (size_t)t] = p.phase_ms[k];
        if (o->rec && (t + 1) % o->record_every == 0 && !rec_frame(o->rec, b)) ok = false;
        if (o->progress) {
            const double now = now_s();
            if (now - last_draw > 0.1 || t + 1 == ticks) {
                progress(t + 1, ticks, p.step_ms);
                last_draw = now;
            }
        }
    }
    if (o->progress) {
        printf("\r\033[K");
        fflush(stdout);
    }
    if (st != CROWD_OK) {
        snprintf(err, errlen, "step failed: %s", crowd_status_string(st));
        ok = false;
    } else if (!ok) {
        snprintf(err, errlen, "out of memory while recording");
    }
    if (ok) {
        *out = (run_stats){.agents_start = agents_start,
                           .agents = crowd_world_agent_count(b->world),
                           .threads = crowd_world_get_threads(b->world),
                           .ticks = ticks,
                           .hash = crowd_world_state_hash(b->world)};
        double sum = 0.0;
        for (int t = 0; t < ticks; ++t) sum += ms[t];
        out->mean_ms = ticks ? sum / ticks : 0.0;
        out->median_ms = cli_median(ms, ticks);
        out->p95_ms = cli_percentile(ms, ticks, 0.95);
        out->p99_ms = cli_percentile(ms, ticks, 0.99);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
            out->phase_ms[k] = cli_median(ms + (size_t)(k + 1) * (size_t)ticks, ticks);
    }
    free(ms);
    return ok;
}

void print_run_summary(FILE* f, const built_world* b, const run_stats* s) {
    const scenario* sc = b->sc;
    fprintf(f, "scenario: %s (%s)\n", sc->name, sc->file);
    if (s->agents == s->agents_start)
        fprintf(f, "agents: %d\n", s->agents);
    else
        fprintf(f, "agents: %d at the start, %d at the end\n", s->agents_start, s->agents);
    const int obstacles = crowd_world_obstacle_count(b->world);
    if (obstacles > 0) fprintf(f, "obstacles: %d\n", obstacles);
    fprintf(f, "threads: %d\n", s->threads);
    fprintf(f, "ticks: %d (dt %g s, %g s simulated)\n", s->ticks, (double)sc->dt,
            (double)sc->dt * s->ticks);
    fprintf(f, "ms/tick: median %.3f, p95 %.3f, p99 %.3f\n", s->median_ms, s->p95_ms, s->p99_ms);
    // Agents stepped per second at the median tick, counting the agents the run started with.
    const double rate = s->median_ms > 0.0 ? (double)s->agents_start / (s->median_ms * 1e-3) : 0.0;
    fprintf(f, "agent-steps/s: %.2f M\n", rate * 1e-6);
    fprintf(f, "phases (median ms):");
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        fprintf(f, " %s %.3f%s", crowd_phase_name((crowd_phase)k), s->phase_ms[k],
                k + 1 < CROWD_PHASE_COUNT ? "," : "");
    fputc('\n', f);
}
