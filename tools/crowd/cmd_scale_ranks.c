// crowd scale --ranks (MPI build): each size's world split across each rank count, with per rank
// agents, ghosts, linked copies, bytes sent and step and exchange times, the imbalance and the
// state hash of every rank count, as a table on rank 0 and as JSON.
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scale.h"
#include "scenes_dist.h"

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
    double rss_kb, peak_kb; // the process's resident memory after the ticks, and its peak so far
} rank_figures;

// A "Name:  N kB" line of /proc/self/status (Linux), 0 where there is none.
static double status_kb(const char* name) {
    FILE* f = fopen("/proc/self/status", "r");
    if (!f) return 0.0;
    char line[256];
    double kb = 0.0;
    const size_t n = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, n)) kb = strtod(line + n, NULL);
    fclose(f);
    return kb;
}

static cJSON* num(double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return cJSON_CreateNumber(strtod(buf, NULL));
}

// The JSON document's head (schema in tools/scenarios/README.md).
static cJSON* json_head(const scale_args* a, const scenario* sc, int threads) {
    cJSON* root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON_AddStringToObject(root, "schema", "crowdstep-scale-ranks/2");
    cJSON* src = cJSON_AddObjectToObject(root, "source");
    cJSON_AddStringToObject(src, "kind", a->file ? "scenario" : "scene");
    cJSON_AddStringToObject(src, "name", sc->name);
    if (a->file) cJSON_AddStringToObject(src, "file", a->file);
    cJSON_AddNumberToObject(root, "ticks", (double)a->ticks);
    cJSON_AddNumberToObject(root, "warmup", (double)a->warmup);
    cJSON_AddNumberToObject(root, "threads_per_rank", threads);
    cJSON_AddArrayToObject(root, "sizes");
    return root;
}

// Splits each size's world across each rank count (the first K ranks of the launch) and prints
// per rank and per rank count figures on rank 0, and writes them as JSON with --json.
static int measure(const scale_args* a, const scenario* sc) {
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
    double* load = malloc(sizeof *load * 2 * (size_t)ticks); // per tick: imbalance, then agents
    rank_figures* all = malloc(sizeof *all * (size_t)world_size);
    if (!col || !all || !load) {
        free(col);
        free(load);
        free(all);
        cli_error(cmd, "out of memory");
        return 1;
    }
    int rc = 0;
    FILE* json = NULL;
    cJSON* doc = NULL;
    if (me == 0 && a->json) {
        json = cli_open_out(cmd, a->json, "w");
        doc = json ? json_head(a, sc, threads) : NULL;
        if (!doc) rc = 1;
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (me == 0 && rc == 0)
        printf("scale across ranks: %s, %d ticks after %d untimed, %d thread%s per rank; medians "
               "over the ticks\n",
               sc->name, ticks, (int)a->warmup, threads, threads == 1 ? "" : "s");
    for (int s = 0; rc == 0 && s < sizes; ++s) {
        uint64_t first_hash = 0;
        bool same = true;
        cJSON* size_doc = NULL; // this size's entry, made on rank 0 with its first rank count
        cJSON* counts = NULL;
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
                if (!a->file && scene_is_plain(a->scene)) {
                    // Set up split (scenes_dist.h): no rank builds the whole world.
                    b = (built_world){.sc = sc};
                    scene = scene_def_default();
                    scene.kind = a->scene;
                    scene.agents = a->agents[s];
                    scene.threads = threads;
                    st = scene_create_dist(comm, &scene, 0, &d);
                    if (st != CROWD_OK && me == 0)
                        cli_error(cmd, "cannot create the split scene: %s",
                                  crowd_status_string(st));
                } else if (!scale_build(a, sc, s, threads, &b, &scene, err, sizeof err)) {
                    cli_error(cmd, "%s", err);
                    st = CROWD_ERR_OUT_OF_MEMORY;
                    b.world = NULL;
                } else {
                    st = crowd_dist_create(comm, b.world, &d);
                    if (st != CROWD_OK && me == 0)
                        cli_error(cmd, "cannot split the world: %s", crowd_status_string(st));
                }
                if (st == CROWD_OK)
                    st = crowd_dist_set_split(d,
                                              a->strips ? CROWD_DIST_STRIPS : CROWD_DIST_BISECTION);
                if (st == CROWD_OK && a->rebalance > 0.0)
                    st = crowd_dist_set_rebalance(d, a->rebalance);
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
                    load[t] = K > 1 ? x.load_imbalance : 1.0;
                    load[ticks + t] = crowd_dist_agent_count(d);
                }
                uint64_t h = 0;
                // Memory before the hash, which gathers the whole world into rank 0's.
                rank_figures mine = {0};
                mine.rss_kb = status_kb("VmRSS:");
                mine.peak_kb = status_kb("VmHWM:");
                if (st == CROWD_OK) st = crowd_dist_state_hash(d, &h);
                double* f = &mine.agents;
                for (int c = 0; c < 6; ++c) {
                    qsort(col + (size_t)c * (size_t)ticks, (size_t)ticks, sizeof *col, cmp_dbl);
                    f[c] = col[(size_t)c * (size_t)ticks + (size_t)(ticks / 2)];
                }
                bad = st != CROWD_OK;
                MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
                MPI_Gather(&mine, 8, MPI_DOUBLE, all, 8, MPI_DOUBLE, 0, comm);
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
                    // The load imbalance of every tick (the same on every rank): median, most.
                    double li_most = 0.0;
                    for (int t = 0; t < ticks; ++t) li_most = load[t] > li_most ? load[t] : li_most;
                    memcpy(col, load, sizeof *col * (size_t)ticks);
                    qsort(col, (size_t)ticks, sizeof *col, cmp_dbl);
                    const double li_median = col[ticks / 2];
                    if (k == 0) first_hash = h;
                    same &= h == first_hash;
                    char hex[17];
                    snprintf(hex, sizeof hex, "%016" PRIx64, h);
                    if (doc && !size_doc) {
                        size_doc = cJSON_CreateObject();
                        cJSON_AddItemToArray(cJSON_GetObjectItem(doc, "sizes"), size_doc);
                        cJSON_AddNumberToObject(size_doc, "agents", agents);
                        if (a->file)
                            cJSON_AddItemToObject(size_doc, "agents_scale", num(a->scales[s]));
                        counts = cJSON_AddArrayToObject(size_doc, "rank_counts");
                    }
                    if (counts) {
                        cJSON* c = cJSON_CreateObject();
                        cJSON_AddItemToArray(counts, c);
                        cJSON_AddNumberToObject(c, "ranks", K);
                        cJSON_AddItemToObject(c, "imbalance",
                                              num(sum > 0.0 ? most * K / sum : 1.0));
                        cJSON_AddNumberToObject(c, "split_cut", rebalanced);
                        cJSON_AddStringToObject(c, "split", a->strips ? "strips" : "bisection");
                        cJSON_AddItemToObject(c, "load_imbalance_median", num(li_median));
                        cJSON_AddItemToObject(c, "load_imbalance_most", num(li_most));
                        cJSON* li = cJSON_AddArrayToObject(c, "load_imbalance_by_tick");
                        cJSON* ag = cJSON_AddArrayToObject(c, "agents_by_tick");
                        for (int t = 0; t < ticks; ++t) {
                            cJSON_AddItemToArray(li, num(load[t]));
                            cJSON_AddItemToArray(ag, num(load[ticks + t]));
                        }
                        cJSON_AddItemToObject(c, "kb_sent_per_tick", num(kb));
                        cJSON_AddItemToObject(c, "slowest_tick_ms", num(slow));
                        cJSON_AddStringToObject(c, "state_hash", hex);
                        cJSON* per = cJSON_AddArrayToObject(c, "per_rank");
                        for (int r = 0; r < K; ++r) {
                            const rank_figures* g = &all[r];
                            cJSON* o = cJSON_CreateObject();
                            cJSON_AddItemToArray(per, o);
                            cJSON_AddNumberToObject(o, "rank", r);
                            cJSON_AddItemToObject(o, "agents", num(g->agents));
                            cJSON_AddItemToObject(o, "ghosts", num(g->ghosts));
                            cJSON_AddItemToObject(o, "linked", num(g->linked));
                            cJSON_AddItemToObject(o, "kb_sent_per_tick", num(g->kb_per_tick));
                            cJSON_AddItemToObject(o, "step_ms", num(g->step_ms));
                            cJSON_AddItemToObject(o, "exchange_ms", num(g->exchange_ms));
                            cJSON_AddItemToObject(o, "rss_kb", num(g->rss_kb));
                            cJSON_AddItemToObject(o, "peak_rss_kb", num(g->peak_kb));
                        }
                    }
                    double rss = 0.0, peak = 0.0;
                    for (int r = 0; r < K; ++r) {
                        rss = all[r].rss_kb > rss ? all[r].rss_kb : rss;
                        peak = all[r].peak_kb > peak ? all[r].peak_kb : peak;
                    }
                    printf(
                        "  memory of the largest rank: %.1f MB resident after the ticks, %.1f MB "
                        "at its peak (set-up included)\n",
                        rss / 1024.0, peak / 1024.0);
                    printf("  imbalance (most agents on a rank / mean) %.3f, %s cut again before "
                           "%d of %d ticks, load imbalance of the stepped agents median %.3f, "
                           "most %.3f, KB sent per tick in all %.1f, slowest rank's tick %.3f ms, "
                           "state-hash %s\n",
                           sum > 0.0 ? most * K / sum : 1.0, a->strips ? "strips" : "bisection",
                           rebalanced, ticks, li_median, li_most, kb, slow, hex);
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
        if (size_doc) cJSON_AddBoolToObject(size_doc, "hashes_equal", same);
        if (!same) rc = 1;
    }
    if (json) {
        char* text = rc == 0 ? cJSON_Print(doc) : NULL;
        bool ok = text && fputs(text, json) >= 0 && fputc('\n', json) != EOF;
        cJSON_free(text);
        if (!cli_close_out(cmd, a->json, json)) ok = false;
        if (rc == 0 && !ok) cli_error(cmd, "cannot write '%s'", a->json);
        if (rc == 0 && ok)
            printf("json: %s\n", a->json);
        else
            remove(a->json);
        if (!ok) rc = 1;
    }
    cJSON_Delete(doc);
    free(col);
    free(load);
    free(all);
    return rc;
}

int scale_ranks(const scale_args* a, const scenario* sc, int argc, char** argv) {
    int world_size, most = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    for (int k = 0; k < a->rank_count; ++k) most = a->ranks[k] > most ? a->ranks[k] : most;
    if (world_size == 1 && most > 1) {
        const int st = relaunch(argc, argv, most);
        if (st < 0) cli_error("scale", "cannot start mpiexec for %d ranks", most);
        return st < 0 ? 1 : st;
    }
    return measure(a, sc);
}
