// crowd validate: runs the validation suite (RiMEA tests that apply to a 2D engine, the
// fundamental diagram, bottleneck flow, counterflow and crossing) and writes a Markdown report
// with SVG plots. The exit status says whether every case passed, so that the same cases serve
// as tests (tests/cli/validate_test.sh).
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "validate.h"

const vcase v_cases[] = {
    {"rimea1", "RiMEA test 1: walking speed kept in a corridor", vcase_rimea1},
    {"rimea4", "RiMEA test 4: fundamental diagram", vcase_rimea4},
    {"rimea5", "RiMEA test 5: reaction times", vcase_rimea5},
    {"rimea6", "RiMEA test 6: movement around a corner", vcase_rimea6},
    {"rimea7", "RiMEA test 7: walking speeds by age group", vcase_rimea7},
    {"rimea9", "RiMEA test 9: a room of 1000 leaving by four exits or two", vcase_rimea9},
    {"rimea10", "RiMEA test 10: assigned exits", vcase_rimea10},
    {"rimea11", "RiMEA test 11: choice of escape route", vcase_rimea11},
    {"rimea12", "RiMEA test 12: effect of a bottleneck", vcase_rimea12},
    {"rimea14", "RiMEA test 14: route choice", vcase_rimea14},
    {"bottleneck", "Bottleneck flow through a door (the effect of RiMEA test 12)",
     vcase_bottleneck},
    {"door_route", "Routed goals through narrow doors", vcase_door_route},
    {"counterflow", "Counterflow: two opposite streams in a corridor", vcase_counterflow},
    {"crossing", "Crossing: two streams at right angles", vcase_crossing},
};
const int v_case_count = (int)(sizeof v_cases / sizeof v_cases[0]);

static void usage(FILE* f) {
    fputs("usage: crowd validate [options]\n"
          "\n"
          "Runs the validation suite: the RiMEA test cases that apply to a 2D engine (1, 4, 5,\n"
          "6, 7, 9, 10, 11, 12, 14), the fundamental diagram against Weidmann (1993), flow\n"
          "through doors of 0.7 to 2.5 m against bottleneck experiments, counterflow and crossing\n"
          "streams. Writes DIR/report.md (per case: set-up, measured figure, reference figure\n"
          "and its source, pass or fail) and one SVG plot per case. Exit status 0 when every\n"
          "case run passes, 1 when one fails, 2 on a usage error. CROWD_TEST_SCALE=small runs\n"
          "scaled-down cases.\n"
          "\n"
          "options:\n"
          "  -o, --out DIR   where the report goes (default build/validate)\n"
          "  --case NAME     run one case (repeatable); --list names them\n"
          "  --seeds N       seeds per door width in the bottleneck case (default 20)\n"
          "  --list          print the case names and titles\n"
          "  -h, --help      show this help\n",
          f);
}

// mkdir -p: the default output sits two levels down in a fresh clone.
static bool make_dirs(const char* path) {
    char buf[4096];
    const size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        const char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
        buf[i] = c;
    }
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const vcase* find_case(const char* name) {
    for (int i = 0; i < v_case_count; ++i)
        if (!strcmp(v_cases[i].name, name)) return &v_cases[i];
    return NULL;
}

// The first line of a field, for the summary table (the full text is in the case's section).
static void first_line(FILE* f, const char* s) {
    const char* e = strchr(s, '\n');
    fprintf(f, "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
}

typedef struct ran {
    const vcase* c;
    vresult* r;
    double seconds;
    bool svg;
} ran;

static bool write_report(const char* cmd, const char* dir, const ran* runs, int n, double total,
                         const vopts* o) {
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    FILE* f = cli_open_out(cmd, path, "w");
    if (!f) return false;
    int passed = 0;
    for (int i = 0; i < n; ++i) passed += runs[i].r->pass;
    fprintf(f, "# crowdstep validation report\n\n");
    fprintf(f,
            "Written by `crowd validate`%s. The RiMEA cases follow the RiMEA guideline version "
            "3.0.0 (2016): its test cases that apply to a 2D engine. Every case "
            "uses the library's default agent (radius 0.3 m, separation radius 1.2 m, max force "
            "3 m/s^2, routed goals) with Weidmann's free walking speed of 1.34 m/s, on "
            "dt = 0.1 s, unless its set-up says otherwise; seeds are fixed, so a rerun gives the "
            "same figures.\n\n",
            o->small ? " (scaled down: CROWD_TEST_SCALE=small)" : "");
    fprintf(f, "**%d of %d cases pass**; the suite took %.1f s.\n\n", passed, n, total);
    fprintf(f, "| case | measured | reference | result |\n|---|---|---|---|\n");
    for (int i = 0; i < n; ++i) {
        fprintf(f, "| [%s](#%s) | ", runs[i].c->name, runs[i].c->name);
        first_line(f, runs[i].r->measured);
        fputs(" | ", f);
        first_line(f, runs[i].r->reference);
        fprintf(f, " | %s |\n", runs[i].r->pass ? "PASS" : "**FAIL**");
    }
    for (int i = 0; i < n; ++i) {
        const vresult* r = runs[i].r;
        fprintf(f, "\n<a id='%s'></a>\n## %s: %s\n\n", runs[i].c->name, runs[i].c->name,
                runs[i].c->title);
        fprintf(f, "**Result: %s** (%.1f s)\n\n", r->pass ? "PASS" : "FAIL", runs[i].seconds);
        fprintf(f, "**Set-up.** %s\n\n**Measured.** %s\n\n**Reference.** %s\n\n**Source.** %s\n",
                r->setup, r->measured, r->reference, r->source);
        if (runs[i].svg) fprintf(f, "\n![%s](%s.svg)\n", runs[i].c->name, runs[i].c->name);
    }
    fputs("\n## Out of scope\n\n"
          "- RiMEA tests 2, 3 and 13 (stairs) and 8 (a 3D building): the engine steps agents on "
          "a plane and has no stairs or floors (rimea14 replaces its stairs with a level "
          "way).\n",
          f);
    return cli_close_out(cmd, path, f);
}

int cmd_validate(int argc, char** argv) {
    const char* cmd = "validate";
    const char* dir = "build/validate";
    const vcase* only[16];
    int n_only = 0;
    vopts o = {0};
    const char* scale = getenv("CROWD_TEST_SCALE");
    o.small = scale && !strcmp(scale, "small");
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        const char* v;
        long n;
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--list")) {
            for (int k = 0; k < v_case_count; ++k)
                printf("%-12s %s\n", v_cases[k].name, v_cases[k].title);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!(dir = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(a, "--seeds")) {
            if (!(v = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
            if (!cli_int(cmd, "--seeds", v, 1, 1000, &n)) return EXIT_USAGE;
            o.seeds = (int)n;
        } else if (!strcmp(a, "--case")) {
            if (!(v = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
            const vcase* c = find_case(v);
            if (!c) {
                cli_error(cmd, "--case: unknown case '%s' (try crowd validate --list)", v);
                return EXIT_USAGE;
            }
            if (n_only < 16) only[n_only++] = c;
        } else {
            cli_error(cmd, "unknown option '%s' (try crowd validate --help)", a);
            return EXIT_USAGE;
        }
    }
    if (!make_dirs(dir)) {
        cli_error(cmd, "%s: cannot create the directory (%s)", dir, strerror(errno));
        return 1;
    }
    const int n = n_only ? n_only : v_case_count;
    ran runs[16];
    bool all = true;
    const double t0 = now_s();
    for (int i = 0; i < n; ++i) {
        runs[i].c = n_only ? only[i] : &v_cases[i];
        runs[i].r = calloc(1, sizeof(vresult));
        if (!runs[i].r) {
            cli_error(cmd, "out of memory");
            return 1;
        }
        const double t = now_s();
        runs[i].c->run(&o, runs[i].r);
        runs[i].seconds = now_s() - t;
        runs[i].svg = false;
        if (runs[i].r->has_plot) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s.svg", dir, runs[i].c->name);
            runs[i].svg = vplot_write_svg(&runs[i].r->plot, runs[i].c->title, path);
            if (!runs[i].svg) cli_error(cmd, "%s: cannot write the plot", path);
        }
        all = all && runs[i].r->pass;
        printf("%s %-12s %5.1f s  ", runs[i].r->pass ? "PASS" : "FAIL", runs[i].c->name,
               runs[i].seconds);
        first_line(stdout, runs[i].r->measured);
        fputc('\n', stdout);
        fflush(stdout);
    }
    const double total = now_s() - t0;
    const bool wrote = write_report(cmd, dir, runs, n, total, &o);
    if (wrote) printf("report: %s/report.md (%.1f s)\n", dir, total);
    for (int i = 0; i < n; ++i) free(runs[i].r);
    return wrote && all ? 0 : 1;
}
