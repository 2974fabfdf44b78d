// crowd view REC -o OUT.html: turn a recording into a self-contained HTML replay.
#include <string.h>

#include "cli.h"

static void usage(FILE* f) {
    fputs("usage: crowd view REC -o OUT.html\n"
          "\n"
          "Checks the recording REC (written by crowd run --record) and writes one self-contained\n"
          "HTML file that replays it on a canvas: play/pause (space), scrub, speed, zoom (wheel,\n"
          "+/-) and pan (drag), agents colored by behavior, paths, goals and leaders drawn, and\n"
          "the navigation field under them when the run recorded one (crowd run --field; the\n"
          "field control or the g key switches it). REPLAY.html#at=F&view=X,Y,W&field=off opens\n"
          "it paused at F (0 first frame, 1 last), centred on X,Y, W metres wide, field off.\n"
          "\n"
          "options:\n"
          "  -o, --out FILE   the HTML file to write (required)\n"
          "  --title TEXT     page title (default: the scenario's name)\n"
          "  -h, --help       show this help\n",
          f);
}

int cmd_view(int argc, char** argv) {
    const char* cmd = "view";
    const char *in = NULL, *out = NULL, *title = NULL;
    for (int i = 2; i < argc; ++i) {
        const char* a = argv[i];
        if (cli_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
            if (!(out = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (!strcmp(a, "--title")) {
            if (!(title = cli_value(cmd, argc, argv, &i))) return EXIT_USAGE;
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_error(cmd, "unknown option '%s' (try crowd view --help)", a);
            return EXIT_USAGE;
        } else if (in) {
            cli_error(cmd, "one recording at a time (got '%s' and '%s')", in, a);
            return EXIT_USAGE;
        } else {
            in = a;
        }
    }
    if (!in || !out) {
        cli_error(cmd, "%s (try crowd view --help)",
                  !in ? "missing the recording file" : "missing -o OUT.html");
        return EXIT_USAGE;
    }
    char err[512];
    recording rec;
    if (!rec_read(in, &rec, err, sizeof err)) {
        cli_error(cmd, "%s", err);
        return 1;
    }
    FILE* f = cli_open_out(cmd, out, "wb");
    if (!f) {
        rec_free(&rec);
        return 1;
    }
    bool ok = viewer_write_html(f, rec.data, rec.size, title ? title : rec.name);
    if (!ok) {
        fclose(f);
        remove(out);
        cli_error(cmd, "cannot write '%s'", out);
    } else {
        ok = cli_close_out(cmd, out, f);
    }
    int most = 0;
    for (int k = 0; k < rec.frame_count; ++k)
        if (rec.frames[k].count > most) most = rec.frames[k].count;
    if (ok)
        printf("replay: %s (%d frame%s, up to %d agents)\n", out, rec.frame_count,
               rec.frame_count == 1 ? "" : "s", most);
    rec_free(&rec);
    return ok ? 0 : 1;
}
