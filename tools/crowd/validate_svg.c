// The report's plots: axes, ticks, lines, markers and bands written as plain SVG, so that the
// report needs no plotting library and opens in any browser.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "validate.h"

vseries* vplot_add(vplot* p, vseries_kind kind, const char* label, const char* color) {
    if (p->series >= VPLOT_MAX_SERIES) return NULL;
    vseries* s = &p->s[p->series++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->label = label;
    s->color = color;
    return s;
}

void vseries_push(vseries* s, double x, double y, double y2) {
    if (!s || s->n >= VPLOT_MAX_POINTS) return;
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->y2[s->n] = y2;
    s->n++;
}

enum { W = 640, H = 400, ML = 64, MR = 16, MT = 36, MB = 48 };

typedef struct frame {
    double x0, x1, y0, y1;
} frame;

static double px(const frame* f, double x) {
    return ML + (x - f->x0) / (f->x1 - f->x0) * (W - ML - MR);
}
static double py(const frame* f, double y) {
    return H - MB - (y - f->y0) / (f->y1 - f->y0) * (H - MT - MB);
}

// A tick step of 1, 2 or 5 times a power of ten giving about five ticks.
static double tick_step(double span) {
    const double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0) * p;
}

static void axes(FILE* f, const frame* fr, const vplot* p, const char* title) {
    fprintf(f, "<rect width='%d' height='%d' fill='white'/>\n", W, H);
    fprintf(f, "<text x='%d' y='20' font-size='14' font-weight='bold'>%s</text>\n", ML, title);
    fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='none' stroke='#444'/>\n", ML, MT,
            W - ML - MR, H - MT - MB);
    const double sx = tick_step(fr->x1 - fr->x0), sy = tick_step(fr->y1 - fr->y0);
    for (double t = ceil(fr->x0 / sx) * sx; t <= fr->x1 + 1e-9; t += sx) {
        const double x = px(fr, t);
        fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#ddd'/>\n", x, MT, x, H - MB);
        fprintf(f, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%g</text>\n", x,
                H - MB + 14, fabs(t) < 1e-12 ? 0.0 : t);
    }
    for (double t = ceil(fr->y0 / sy) * sy; t <= fr->y1 + 1e-9; t += sy) {
        const double y = py(fr, t);
        fprintf(f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#ddd'/>\n", ML, y, W - MR, y);
        fprintf(f, "<text x='%d' y='%.1f' font-size='11' text-anchor='end'>%g</text>\n", ML - 4,
                y + 4, fabs(t) < 1e-12 ? 0.0 : t);
    }
    fprintf(f, "<text x='%d' y='%d' font-size='12' text-anchor='middle'>%s</text>\n",
            (ML + W - MR) / 2, H - 12, p->xlabel);
    fprintf(f,
            "<text x='14' y='%d' font-size='12' text-anchor='middle' "
            "transform='rotate(-90 14 %d)'>%s</text>\n",
            (MT + H - MB) / 2, (MT + H - MB) / 2, p->ylabel);
}

static void series(FILE* f, const frame* fr, const vseries* s) {
    if (s->n == 0) return;
    if (s->kind == VSERIES_BAND) {
        fprintf(f, "<polygon fill='%s' fill-opacity='0.25' stroke='none' points='", s->color);
        for (int i = 0; i < s->n; ++i) fprintf(f, "%.1f,%.1f ", px(fr, s->x[i]), py(fr, s->y2[i]));
        for (int i = s->n - 1; i >= 0; --i)
            fprintf(f, "%.1f,%.1f ", px(fr, s->x[i]), py(fr, s->y[i]));
        fputs("'/>\n", f);
    } else if (s->kind == VSERIES_LINE) {
        fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", s->color);
        for (int i = 0; i < s->n; ++i) fprintf(f, "%.1f,%.1f ", px(fr, s->x[i]), py(fr, s->y[i]));
        fputs("'/>\n", f);
    } else {
        for (int i = 0; i < s->n; ++i)
            fprintf(f, "<circle cx='%.1f' cy='%.1f' r='3.5' fill='%s'/>\n", px(fr, s->x[i]),
                    py(fr, s->y[i]), s->color);
    }
}

static void legend(FILE* f, const vplot* p) {
    for (int i = 0; i < p->series; ++i) {
        const vseries* s = &p->s[i];
        const int y = MT + 14 + 16 * i, x = W - MR - 230;
        if (s->kind == VSERIES_POINTS)
            fprintf(f, "<circle cx='%d' cy='%d' r='4' fill='%s'/>\n", x + 8, y - 4, s->color);
        else
            fprintf(f, "<rect x='%d' y='%d' width='16' height='%d' fill='%s' %s/>\n", x, y - 8,
                    s->kind == VSERIES_BAND ? 8 : 3, s->color,
                    s->kind == VSERIES_BAND ? "fill-opacity='0.25'" : "");
        fprintf(f, "<text x='%d' y='%d' font-size='11'>%s</text>\n", x + 22, y, s->label);
    }
}

bool vplot_write_svg(const vplot* p, const char* title, const char* path) {
    FILE* f = fopen(path, "w");
    if (!f) return false;
    const frame fr = {p->xmin, p->xmax, p->ymin, p->ymax};
    fprintf(f,
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
            "font-family='sans-serif'>\n",
            W, H);
    axes(f, &fr, p, title);
    for (int i = 0; i < p->series; ++i) series(f, &fr, &p->s[i]);
    legend(f, p);
    fputs("</svg>\n", f);
    const bool ok = !ferror(f);
    return fclose(f) == 0 && ok;
}
