// libFuzzer target: the recording reader on untrusted bytes.
//
// Every input is read twice: as it is (exercising the header, END and checksum checks) and with
// its checksum rewritten to match (so mutations reach the chunk parser behind it). A recording
// that reads has every agent of every frame decoded and is rendered into the HTML replay, in
// memory, as `crowd view` would.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record.h"

// A failed check names itself, so a crash report says which property broke.
#define check(ok) ((ok) ? (void)0 : fail_check(#ok, __LINE__))
static void fail_check(const char* what, int line) {
    fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, line, what);
    abort();
}

// A decoded coordinate stays in its frame's box, up to the rounding of the float result (the
// box's extent is taken in double, so min + extent may land an ulp past max).
static bool inside(float v, float lo, float hi) {
    if (!isfinite(lo) || !isfinite(hi) || lo > hi) return true;
    const float tol = 0x1p-22f * fmaxf(fabsf(lo), fabsf(hi));
    return v >= lo - tol && v <= hi + tol;
}

static void read_one(const uint8_t* data, size_t size) {
    uint8_t* copy = malloc(size ? size : 1);
    if (!copy) return;
    memcpy(copy, data, size);
    recording r;
    char err[512] = "";
    if (!rec_parse(copy, size, "fuzz.rec", &r, err, sizeof err)) {
        check(err[0] != '\0' && r.data == NULL);
        return;
    }
    check(r.name != NULL);
    volatile float sink = 0.0f;
    for (int f = 0; f < r.frame_count; ++f) {
        const rec_frame_view* v = &r.frames[f];
        check(v->table >= 0 && v->table < r.table_count && v->count == r.tables[v->table].count);
        for (int i = 0; i < v->count; ++i) {
            float x, y, h;
            rec_decode(v, i, &x, &y, &h);
            check(isnan(h) == 0 && fabsf(h) <= 3.2f);
            check(inside(x, v->min_x, v->max_x) && inside(y, v->min_y, v->max_y));
            sink += x + y + (float)r.tables[v->table].index1[i] + r.tables[v->table].generation[i];
        }
    }
    for (int p = 0; p < r.path_count; ++p)
        for (int k = 0; k < 2 * r.paths[p].count; ++k) sink += r.paths[p].xy[k];
    for (int o = 0; o < r.obstacle_count; ++o) {
        check(r.obstacles[o].kind < CROWD_OBSTACLE_KIND_COUNT && r.obstacles[o].count >= 2);
        for (int k = 0; k < 2 * r.obstacles[o].count; ++k) sink += r.obstacles[o].xy[k];
    }
    for (int t = 0; t < r.table_count; ++t) {
        check((r.tables[t].radius_mm != NULL) == (r.version >= 2));
        for (int i = 0; r.tables[t].radius_mm && i < r.tables[t].count; ++i)
            sink += r.tables[t].radius_mm[i];
    }
    (void)sink;
    char* html = NULL;
    size_t html_len = 0;
    FILE* f = open_memstream(&html, &html_len);
    check(f != NULL);
    check(viewer_write_html(f, r.data, r.size, r.name));
    check(fclose(f) == 0 && html_len > r.size);
    free(html);
    rec_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    read_one(data, size);
    if (size < 40) return 0;
    uint8_t* sealed = malloc(size);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    const uint64_t sum = rec_checksum(sealed, size - 8);
    for (int i = 0; i < 8; ++i) sealed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
    read_one(sealed, size);
    free(sealed);
    return 0;
}
