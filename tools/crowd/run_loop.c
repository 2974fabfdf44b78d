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

#ifdef CROWD_CLI_MPI
#define SPLIT_CALL(o, split, plain) ((o)->dist ? (split) : (plain))

typedef struct frame_ctx {
    rec_writer* rec;
    const built_world* b;
} frame_ctx;

// On rank 0, with the whole world gathered into its world.
static crowd_status frame_whole(const crowd_world* whole, void* user) {
    const frame_ctx* f = user;
    built_world one = *f->b;
    one.world = (crowd_world*)whole; // rec_frame only reads it
    return rec_frame(f->rec, &one) ? CROWD_OK : CROWD_ERR_OUT_OF_MEMORY;
}

static bool frame(const run_options* o, built_world* b) {
    if (!o->dist) return rec_frame(o->rec, b);
    frame_ctx f = {o->rec, b};
    return crowd_dist_with_whole_world(o->dist, frame_whole, &f) == CROWD_OK;
}

// The step's wall time: in a split world the rank's step and its exchanges.
static double step_ms(const run_options* o, const crowd_profile* p) {
    if (!o->dist) return p->step_ms;
    const crowd_dist_stats s = crowd_dist_get_stats(o->dist);
    return s.step_ms + s.exchange_ms;
}
#else
#define SPLIT_CALL(o, split, plain) (plain)

static bool frame(const run_options* o, built_world* b) {
    return rec_frame(o->rec, b);
}

static double step_ms(const run_options* o, const crowd_profile* p) {
    (void)o;
    return p->step_ms;
}
#endif

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
    for (int t = 0; t < o->warmup && st == CROWD_OK; ++t)
        st = SPLIT_CALL(o, crowd_dist_step(o->dist), crowd_world_step(b->world));
    // The fields the first ticks would build, built now and reported apart, so that the tick
    // figures are the steady ones. (A split world builds them in its first step.)
    double nav_ms = 0.0;
    if (st == CROWD_OK && SPLIT_CALL(o, false, true)) {
        const double t0 = now_s();
        st = crowd_world_nav_update(b->world);
        nav_ms = (now_s() - t0) * 1e3;
    }
    const int agents_start =
        SPLIT_CALL(o, crowd_dist_agent_count(o->dist), crowd_world_agent_count(b->world));
    if (o->rec && !frame(o, b)) ok = false;
    double last_draw = 0.0;
    for (int t = 0; t < ticks && st == CROWD_OK && ok; ++t) {
        st = SPLIT_CALL(o, crowd_dist_step(o->dist), crowd_world_step(b->world));
        const crowd_profile p = crowd_world_get_profile(b->world);
        ms[t] = step_ms(o, &p);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
            ms[(size_t)(k + 1) * (size_t)ticks + (size_t)t] = p.phase_ms[k];
        if (o->rec && (t + 1) % o->record_every == 0 && !frame(o, b)) ok = false;
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
    uint64_t hash = 0;
    if (ok && SPLIT_CALL(o, crowd_dist_state_hash(o->dist, &hash),
                         (hash = crowd_world_state_hash(b->world), CROWD_OK)) != CROWD_OK) {
        snprintf(err, errlen, "out of memory while hashing");
        ok = false;
    }
    if (ok) {
        *out = (run_stats){.agents_start = agents_start,
                           .agents = SPLIT_CALL(o, crowd_dist_agent_count(o->dist),
                                                crowd_world_agent_count(b->world)),
                           .threads = crowd_world_get_threads(b->world),
                           .ticks = ticks,
                           .hash = hash,
                           .nav_fields = crowd_world_nav_stats(b->world).fields_in_use,
                           .nav_ms = nav_ms};
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
    if (s->nav_fields > 0)
        fprintf(f, "navigation: %d field%s in use, %.1f ms to build before the first tick\n",
                s->nav_fields, s->nav_fields == 1 ? "" : "s", s->nav_ms);
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
