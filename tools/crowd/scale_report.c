// Reports of the scaling profiler: the table, the JSON document and the SVG chart.
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scale.h"

void scale_finish(scale_report* r) {
    for (int s = 0; s < r->size_count; ++s) {
        scale_size* z = &r->sizes[s];
        const scale_run* base = NULL;
        for (int k = 0; k < z->run_count; ++k)
            if (!base || z->runs[k].threads < base->threads) base = &z->runs[k];
        z->baseline_threads = base ? base->threads : 1;
        z->hashes_equal = true;
        for (int k = 0; k < z->run_count; ++k) {
            scale_run* run = &z->runs[k];
            const double ms = run->stats.median_ms;
            run->speedup = ms > 0.0 ? base->stats.median_ms / ms : 0.0;
            run->efficiency = run->speedup * (double)base->threads / (double)run->threads;
            if (run->stats.hash != base->stats.hash) z->hashes_equal = false;
        }
    }
}

void scale_print_table(FILE* f, const scale_report* r) {
    fprintf(f, "crowd scale: %s %s, %d ticks after %d warm-up, %d core%s\n", r->source_kind,
            r->name, r->ticks, r->warmup, r->cores, r->cores == 1 ? "" : "s");
    fprintf(f, "%9s %8s %9s %9s %9s %8s %6s", "agents", "threads", "ms/tick", "p95", "p99",
            "speedup", "eff");
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        fprintf(f, " %9s", crowd_phase_name((crowd_phase)k));
    fputc('\n', f);
    bool over = false;
    for (int s = 0; s < r->size_count; ++s) {
        const scale_size* z = &r->sizes[s];
        for (int k = 0; k < z->run_count; ++k) {
            const scale_run* run = &z->runs[k];
            over |= run->oversubscribed;
            fprintf(f, "%9d %7d%c %9.3f %9.3f %9.3f %7.2fx %5.0f%%", z->agents, run->threads,
                    run->oversubscribed ? '*' : ' ', run->stats.median_ms, run->stats.p95_ms,
                    run->stats.p99_ms, run->speedup, run->efficiency * 100.0);
            for (int p = 0; p < CROWD_PHASE_COUNT; ++p)
                fprintf(f, " %9.3f", run->stats.phase_ms[p]);
            fputc('\n', f);
        }
        fprintf(f, "%9s state hashes %s across thread counts\n", "",
                z->hashes_equal ? "equal" : "DIFFER");
    }
    fprintf(f, "speedup and efficiency against the smallest thread count; phases are medians "
               "in ms\n");
    if (over)
        fprintf(f, "* oversubscribed: more threads than the %d core%s\n", r->cores,
                r->cores == 1 ? "" : "s");
}

static cJSON* num(double v) {
    // Six significant digits: more than a timing carries, and the ratios stay exact enough to
    // recompute from the document.
    char buf[32];
    snprintf(buf, sizeof buf, "%.6g", v);
    return cJSON_CreateNumber(strtod(buf, NULL));
}

bool scale_write_json(FILE* f, const scale_report* r) {
    cJSON* root = cJSON_CreateObject();
    bool ok = root != NULL;
    if (ok) {
        cJSON_AddStringToObject(root, "schema", "crowdstep-scale/1");
        cJSON* src = cJSON_AddObjectToObject(root, "source");
        cJSON_AddStringToObject(src, "kind", r->source_kind);
        cJSON_AddStringToObject(src, "name", r->name);
        if (!strcmp(r->source_kind, "scenario")) cJSON_AddStringToObject(src, "file", r->source);
        cJSON_AddNumberToObject(root, "ticks", r->ticks);
        cJSON_AddNumberToObject(root, "warmup", r->warmup);
        cJSON_AddNumberToObject(root, "cores", r->cores);
        cJSON* phases = cJSON_AddArrayToObject(root, "phases");
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
            cJSON_AddItemToArray(phases, cJSON_CreateString(crowd_phase_name((crowd_phase)k)));
        cJSON* sizes = cJSON_AddArrayToObject(root, "sizes");
        for (int s = 0; s < r->size_count; ++s) {
            const scale_size* z = &r->sizes[s];
            cJSON* zs = cJSON_CreateObject();
            cJSON_AddItemToArray(sizes, zs);
            cJSON_AddNumberToObject(zs, "agents", z->agents);
            if (z->agents_scale > 0.0) cJSON_AddNumberToObject(zs, "agents_scale", z->agents_scale);
            cJSON_AddNumberToObject(zs, "baseline_threads", z->baseline_threads);
            cJSON_AddBoolToObject(zs, "hashes_equal", z->hashes_equal);
            cJSON* runs = cJSON_AddArrayToObject(zs, "runs");
            for (int k = 0; k < z->run_count; ++k) {
                const scale_run* run = &z->runs[k];
                cJSON* o = cJSON_CreateObject();
                cJSON_AddItemToArray(runs, o);
                cJSON_AddNumberToObject(o, "threads", run->threads);
                cJSON_AddBoolToObject(o, "oversubscribed", run->oversubscribed);
                cJSON* ms = cJSON_AddObjectToObject(o, "ms_per_tick");
                cJSON_AddItemToObject(ms, "median", num(run->stats.median_ms));
                cJSON_AddItemToObject(ms, "p95", num(run->stats.p95_ms));
                cJSON_AddItemToObject(ms, "p99", num(run->stats.p99_ms));
                cJSON_AddItemToObject(ms, "mean", num(run->stats.mean_ms));
                const double rate =
                    run->stats.median_ms > 0.0 ? z->agents / (run->stats.median_ms * 1e-3) : 0.0;
                cJSON_AddNumberToObject(o, "agent_steps_per_s", round(rate));
                cJSON_AddItemToObject(o, "speedup", num(run->speedup));
                cJSON_AddItemToObject(o, "efficiency", num(run->efficiency));
                cJSON* ph = cJSON_AddObjectToObject(o, "phase_ms");
                for (int p = 0; p < CROWD_PHASE_COUNT; ++p)
                    cJSON_AddItemToObject(ph, crowd_phase_name((crowd_phase)p),
                                          num(run->stats.phase_ms[p]));
                char hex[17];
                snprintf(hex, sizeof hex, "%016" PRIx64, run->stats.hash);
                cJSON_AddStringToObject(o, "state_hash", hex);
            }
        }
    }
    char* text = ok ? cJSON_Print(root) : NULL;
    ok = text && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    cJSON_free(text);
    cJSON_Delete(root);
    return ok;
}

// ---- SVG --------------------------------------------------------------------------------------

static const char* const SIZE_COLORS[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b",
                                          "#b07aa1", "#76b7b2", "#edc948", "#ff9da7"};
// One color per phase, taken in turn (the palette outlasts the phase list).
static const char* const PHASE_COLORS[] = {"#4e79a7", "#f28e2b", "#edc948", "#b07aa1", "#59a14f",
                                           "#76b7b2", "#e15759", "#9c755f", "#ff9da7", "#bab0ac"};
enum { PHASE_COLOR_COUNT = sizeof PHASE_COLORS / sizeof PHASE_COLORS[0] };

static void xml_escape(const char* s, char* out, size_t len) {
    size_t n = 0;
    for (; *s && n + 6 < len; ++s) {
        const char* e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : NULL;
        if (e) {
            memcpy(out + n, e, strlen(e));
            n += strlen(e);
        } else {
            out[n++] = *s;
        }
    }
    out[n] = '\0';
}

// A "nice" axis maximum at or above v: 1, 2 or 5 times a power of ten.
static double nice_max(double v) {
    if (!(v > 0.0)) return 1.0;
    const double p = pow(10.0, floor(log10(v)));
    const double m = v / p;
    return (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0) * p;
}

bool scale_write_svg(FILE* f, const scale_report* r) {
    enum { W = 980, H = 460, TOP = 50, BOTTOM = 390 };
    // Left panel: speedup against threads. Right panel: stacked phase times per run.
    const double lx0 = 60, lx1 = 420, rx0 = 500, rx1 = 960;
    int threads[SCALE_MAX_THREADS * SCALE_MAX_SIZES], nt = 0;
    double max_speedup = 1.0, max_ms = 0.0;
    int bars = 0;
    for (int s = 0; s < r->size_count; ++s) {
        for (int k = 0; k < r->sizes[s].run_count; ++k) {
            const scale_run* run = &r->sizes[s].runs[k];
            bool seen = false;
            for (int j = 0; j < nt; ++j) seen |= threads[j] == run->threads;
            if (!seen) threads[nt++] = run->threads;
            const double ideal = (double)run->threads / r->sizes[s].baseline_threads;
            if (run->speedup > max_speedup) max_speedup = run->speedup;
            if (ideal > max_speedup) max_speedup = ideal;
            double sum = 0.0;
            for (int p = 0; p < CROWD_PHASE_COUNT; ++p) sum += run->stats.phase_ms[p];
            if (sum > max_ms) max_ms = sum;
            bars++;
        }
    }
    for (int a = 1; a < nt; ++a) // sort thread counts for the x axis
        for (int b = a; b > 0 && threads[b] < threads[b - 1]; --b) {
            int t = threads[b];
            threads[b] = threads[b - 1];
            threads[b - 1] = t;
        }
    const double ymax = nice_max(max_speedup), msmax = nice_max(max_ms);
    const double dx = nt > 1 ? (lx1 - lx0) / (nt - 1) : 0.0;
#define X_OF(i) (nt > 1 ? lx0 + dx * (i) : (lx0 + lx1) / 2)
#define Y_OF(v) (BOTTOM - (BOTTOM - TOP) * (v) / ymax)
    char name[256];
    xml_escape(r->name, name, sizeof name);
    int n = fprintf(f,
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                    "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
                    "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">crowd scale: "
                    "%s %s, %d ticks, %d cores</text>\n",
                    W, H, W, H, W / 2, r->source_kind, name, r->ticks, r->cores);
    if (n < 0) return false;
    // Oversubscribed region: thread counts above the cores.
    for (int i = 0; i < nt; ++i) {
        if (threads[i] <= r->cores) continue;
        const double x = i > 0 ? (X_OF(i - 1) + X_OF(i)) / 2 : lx0;
        fprintf(f,
                "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f2f2f2\"/>\n"
                "<text x=\"%.1f\" y=\"%d\" fill=\"#888\" font-size=\"11\">oversubscribed</text>\n",
                x, TOP, lx1 + 10 - x, BOTTOM - TOP, x + 4, TOP + 14);
        break;
    }
    // Axes and grid.
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">speedup</text>\n", (lx0 + lx1) / 2,
            TOP - 8);
    for (int g = 0; g <= 4; ++g) {
        const double v = ymax * g / 4, y = Y_OF(v);
        fprintf(f,
                "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                lx0, y, lx1, y, lx0 - 6, y + 4, v);
    }
    for (int i = 0; i < nt; ++i)
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", X_OF(i),
                BOTTOM + 16, threads[i]);
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">threads</text>\n", (lx0 + lx1) / 2,
            BOTTOM + 34);
    // Ideal speedup against the first size's baseline.
    if (r->size_count > 0) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"#999\" stroke-dasharray=\"5,4\" points=\"");
        for (int i = 0; i < nt; ++i)
            fprintf(f, "%.1f,%.1f ", X_OF(i),
                    Y_OF((double)threads[i] / r->sizes[0].baseline_threads));
        const double last = (double)threads[nt - 1] / r->sizes[0].baseline_threads;
        fprintf(
            f, "\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#999\" text-anchor=\"end\">ideal</text>\n",
            X_OF(nt - 1) - 6, Y_OF(last) - 6);
    }
    for (int s = 0; s < r->size_count; ++s) {
        const scale_size* z = &r->sizes[s];
        const char* color = SIZE_COLORS[s % 8];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", color);
        for (int k = 0; k < z->run_count; ++k) {
            int i = 0;
            while (i < nt && threads[i] != z->runs[k].threads) ++i;
            fprintf(f, "%.1f,%.1f ", X_OF(i), Y_OF(z->runs[k].speedup));
        }
        fprintf(f, "\"/>\n");
        for (int k = 0; k < z->run_count; ++k) {
            int i = 0;
            while (i < nt && threads[i] != z->runs[k].threads) ++i;
            const bool o = z->runs[k].oversubscribed;
            fprintf(f,
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" "
                    "stroke-width=\"2\"><title>%d agents, %d threads: %.2fx, %.0f%% efficiency%s"
                    "</title></circle>\n",
                    X_OF(i), Y_OF(z->runs[k].speedup), o ? "#fff" : color, color, z->agents,
                    z->runs[k].threads, z->runs[k].speedup, z->runs[k].efficiency * 100,
                    o ? " (oversubscribed)" : "");
        }
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%d\">%d agents</text>\n",
                lx0 + 10, TOP + 44 + 16 * s, color, lx0 + 24, TOP + 53 + 16 * s, z->agents);
    }
    // Right panel: stacked phase bars.
    fprintf(f,
            "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">phase times (median ms/tick)"
            "</text>\n",
            (rx0 + rx1) / 2, TOP - 8);
    for (int g = 0; g <= 4; ++g) {
        const double v = msmax * g / 4, y = BOTTOM - (BOTTOM - TOP) * v / msmax;
        fprintf(f,
                "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
                rx0, y, rx1 - 90, y, rx0 - 6, y + 4, v);
    }
    const double slot = bars ? (rx1 - 100 - rx0) / bars : 0.0, bw = slot * 0.7;
    int bar = 0;
    for (int s = 0; s < r->size_count; ++s) {
        const scale_size* z = &r->sizes[s];
        for (int k = 0; k < z->run_count; ++k, ++bar) {
            const scale_run* run = &z->runs[k];
            const double x = rx0 + slot * bar + (slot - bw) / 2;
            double y = BOTTOM;
            for (int p = 0; p < CROWD_PHASE_COUNT; ++p) {
                const double h = (BOTTOM - TOP) * run->stats.phase_ms[p] / msmax;
                y -= h;
                fprintf(f,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.2f\" fill=\"%s\">"
                        "<title>%s %.3f ms</title></rect>\n",
                        x, y, bw, h, PHASE_COLORS[p % PHASE_COLOR_COUNT],
                        crowd_phase_name((crowd_phase)p), run->stats.phase_ms[p]);
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%s</text>\n", x + bw / 2,
                    BOTTOM + 16, run->threads, run->oversubscribed ? "*" : "");
        }
        const double gx = rx0 + slot * (bar - z->run_count / 2.0);
        fprintf(f,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d agents"
                "</text>\n",
                gx, BOTTOM + 34, z->agents);
    }
    for (int p = 0; p < CROWD_PHASE_COUNT; ++p)
        fprintf(f,
                "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                "<text x=\"%.0f\" y=\"%d\">%s</text>\n",
                rx1 - 80, TOP + 16 * p, PHASE_COLORS[p % PHASE_COLOR_COUNT], rx1 - 66,
                TOP + 9 + 16 * p, crowd_phase_name((crowd_phase)p));
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" fill=\"#555\">speedup and efficiency against the smallest "
            "thread count; * oversubscribed (more threads than cores)</text>\n",
            20, H - 14);
    return fprintf(f, "</svg>\n") > 0 && !ferror(f);
#undef X_OF
#undef Y_OF
}
