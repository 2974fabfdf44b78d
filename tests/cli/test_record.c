// Recordings: what a run writes is what the reader (and the replay page) get back.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "cli.h"
#include "record.h"
#include "scenario.h"

static const char SCENE[] =
    "{\"name\": \"rec test\", \"world\": {\"seed\": 3, \"dt\": 0.1},\n"
    " \"obstacles\": [{\"kind\": \"wall\", \"points\": [[-40, -40], [40, -40], [40, -30.5]]},\n"
    "                {\"kind\": \"polygon\", \"points\": [[50, 50], [60, 50], [55, 58.25]]}],\n"
    " \"crowds\": [\n"
    "  {\"count\": 300, \"area\": {\"kind\": \"uniform\", \"min\": [-20, -20], \"max\": [20, "
    "20]},\n"
    "   \"agent\": {\"random_speed\": 1.0, \"radius\": [0.2, 0.45]}},\n"
    "  {\"count\": 100, \"area\": {\"kind\": \"circle\", \"center\": [30, 0], \"radius\": 5},\n"
    "   \"goal\": {\"mode\": \"seek\", \"target\": [-30, 0]}},\n"
    "  {\"count\": 50, \"area\": {\"kind\": \"grid\", \"center\": [0, 30]},\n"
    "   \"goal\": {\"mode\": \"flee\", \"target\": [0, 25], \"slow_radius\": 2}}]}";

typedef struct truth {
    int count;
    crowd_agent_id* ids;
    crowd_vec2* pos;
    crowd_vec2* heading;
    float* radius;
    uint64_t tick;
} truth;

static void capture(const built_world* b, truth* t) {
    int n = crowd_world_agent_count(b->world);
    t->ids = malloc(sizeof *t->ids * (size_t)n);
    t->pos = malloc(sizeof *t->pos * (size_t)n);
    t->heading = malloc(sizeof *t->heading * (size_t)n);
    t->radius = malloc(sizeof *t->radius * (size_t)n);
    cr_assert_eq(crowd_world_get_agents(b->world, t->ids, t->pos, NULL, n, &t->count), CROWD_OK);
    for (int i = 0; i < t->count; ++i) {
        cr_assert_eq(crowd_agent_get_heading(b->world, t->ids[i], &t->heading[i]), CROWD_OK);
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(b->world, t->ids[i], &d), CROWD_OK);
        t->radius[i] = d.radius;
    }
    t->tick = crowd_world_tick(b->world);
}

static void free_truth(truth* t) {
    free(t->ids);
    free(t->pos);
    free(t->heading);
    free(t->radius);
}

static float angle_diff(float a, float b) {
    float d = fmodf(a - b, 6.2831853f);
    if (d > 3.14159265f) d -= 6.2831853f;
    if (d < -3.14159265f) d += 6.2831853f;
    return fabsf(d);
}

// Runs SCENE, recording frames at ticks 0, 4, 8 and 12 and removing agents after tick 8 so that
// the handle table changes; returns the bytes and the true states.
static void record_scene(rec_writer* w, truth tr[4], scenario* sc) {
    char err[512];
    cr_assert(scenario_parse("rec.json", SCENE, sizeof SCENE - 1, sc, err, sizeof err), "%s", err);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    cr_assert(scenario_build(sc, &o, &b, err, sizeof err), "%s", err);
    cr_assert(rec_begin(w, &b, 4));
    for (int f = 0; f < 4; ++f) {
        if (f == 3) {
            truth now;
            capture(&b, &now);
            for (int k = 0; k < 20; ++k) crowd_agent_remove(b.world, now.ids[k * 7]);
            free_truth(&now);
        }
        if (f > 0)
            for (int t = 0; t < 4; ++t) cr_assert_eq(crowd_world_step(b.world), CROWD_OK);
        cr_assert(rec_frame(w, &b));
        capture(&b, &tr[f]);
    }
    cr_assert(rec_end(w));
    built_world_free(&b);
}

Test(record, round_trip_within_the_quantization_bound) {
    rec_writer w;
    truth tr[4];
    scenario sc;
    record_scene(&w, tr, &sc);
    uint8_t* copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    recording r;
    char err[256];
    cr_assert(rec_parse(copy, w.len, "mem", &r, err, sizeof err), "%s", err);
    cr_assert_str_eq(r.name, "rec test");
    cr_assert_float_eq(r.dt, 0.1f, 0.0f);
    cr_assert_eq(r.record_every, 4);
    cr_assert_eq(r.frame_count, 4);
    cr_assert_eq(r.table_count, 2, "one table, then a new one after the removals");
    // Goals: seek at (-30, 0), flee at (0, 25) with its slow radius.
    cr_assert_eq(r.goal_count, 2);
    cr_assert_eq(r.goals[0].kind, AGENT_SEEK);
    cr_assert_float_eq(r.goals[0].x, -30.0f, 0.0f);
    cr_assert_eq(r.goals[1].kind, AGENT_FLEE);
    cr_assert_float_eq(r.goals[1].radius, 2.0f, 0.0f);
    for (int f = 0; f < 4; ++f) {
        const rec_frame_view* fv = &r.frames[f];
        const rec_table* t = &r.tables[fv->table];
        cr_assert_eq(fv->tick, tr[f].tick);
        cr_assert_eq(fv->count, tr[f].count);
        cr_assert_eq(fv->count, f < 3 ? 450 : 430);
        const float bound_x = (fv->max_x - fv->min_x) / 131070.0f * 1.001f + 1e-5f;
        const float bound_y = (fv->max_y - fv->min_y) / 131070.0f * 1.001f + 1e-5f;
        for (int i = 0; i < fv->count; ++i) {
            cr_assert_eq(t->index1[i], tr[f].ids[i].index1);
            cr_assert_eq(t->generation[i], tr[f].ids[i].generation);
            float x, y, h;
            rec_decode(fv, i, &x, &y, &h);
            cr_assert_leq(fabsf(x - tr[f].pos[i].x), bound_x, "frame %d agent %d x", f, i);
            cr_assert_leq(fabsf(y - tr[f].pos[i].y), bound_y, "frame %d agent %d y", f, i);
            const float want = atan2f(tr[f].heading[i].y, tr[f].heading[i].x);
            cr_assert_leq(angle_diff(h, want), 3.14159265f / 256.0f + 1e-5f,
                          "frame %d agent %d heading", f, i);
            // The crowd order gives the kinds: 300 plain, 100 seek, 50 flee (by handle index).
            const uint32_t idx = t->index1[i] - 1;
            const int want_kind = idx < 300 ? AGENT_PLAIN : (idx < 400 ? AGENT_SEEK : AGENT_FLEE);
            cr_assert_eq(t->kind[i], want_kind);
            // Radii to the millimetre.
            cr_assert_not_null(t->radius_mm);
            cr_assert_leq(fabsf((float)t->radius_mm[i] / 1000.0f - tr[f].radius[i]), 0.0005f,
                          "frame %d agent %d radius", f, i);
        }
    }
    // The scenario's obstacles, as the world holds them.
    cr_assert_eq(r.version, REC_VERSION);
    cr_assert_eq(r.field_count, 0, "a field only when asked");
    cr_assert_eq(r.obstacle_count, 2);
    cr_assert_eq(r.obstacles[0].kind, (uint32_t)CROWD_OBSTACLE_WALL);
    cr_assert_eq(r.obstacles[0].count, 3);
    cr_assert_float_eq(r.obstacles[0].xy[5], -30.5f, 0.0f);
    cr_assert_eq(r.obstacles[1].kind, (uint32_t)CROWD_OBSTACLE_POLYGON);
    cr_assert_eq(r.obstacles[1].count, 3);
    cr_assert_float_eq(r.obstacles[1].xy[5], 58.25f, 0.0f);
    // Agents move between frames.
    cr_assert_neq(memcmp(r.frames[0].qx, r.frames[1].qx, 2 * 450), 0);
    rec_free(&r);
    for (int f = 0; f < 4; ++f) free_truth(&tr[f]);
    rec_writer_free(&w);
    scenario_free(&sc);
}

static bool parse_copy(const rec_writer* w, size_t len, void (*edit)(uint8_t*, size_t), char* err,
                       size_t errlen) {
    uint8_t* copy = malloc(len);
    memcpy(copy, w->buf, len < w->len ? len : w->len);
    if (edit) edit(copy, len);
    recording r;
    bool ok = rec_parse(copy, len, "x.rec", &r, err, errlen);
    if (ok) rec_free(&r);
    return ok;
}

static void flip_middle(uint8_t* d, size_t len) {
    d[len / 2] ^= 0x10;
}
static void bad_magic(uint8_t* d, size_t len) {
    (void)len;
    d[0] = 'X';
}
// Version 4 with a correct checksum: the version check must speak, not the checksum.
static void version_four(uint8_t* d, size_t len) {
    d[8] = 4;
    const uint64_t h = rec_checksum(d, len - 8);
    for (int k = 0; k < 8; ++k) d[len - 8 + (size_t)k] = (uint8_t)(h >> (8 * k));
}

Test(record, corrupt_truncated_and_foreign_files_are_refused) {
    rec_writer w;
    truth tr[4];
    scenario sc;
    record_scene(&w, tr, &sc);
    char err[256];
    cr_assert(parse_copy(&w, w.len, NULL, err, sizeof err), "%s", err);
    cr_assert(!parse_copy(&w, w.len, flip_middle, err, sizeof err));
    cr_assert_str_eq(err, "x.rec: checksum mismatch: the recording is corrupt");
    cr_assert(!parse_copy(&w, w.len - 24, NULL, err, sizeof err));
    cr_assert_str_eq(err, "x.rec: truncated recording (no END chunk)");
    cr_assert(!parse_copy(&w, 20, NULL, err, sizeof err));
    cr_assert_str_eq(err, "x.rec: truncated recording (20 bytes)");
    cr_assert(!parse_copy(&w, w.len, bad_magic, err, sizeof err));
    cr_assert_str_eq(err, "x.rec: not a crowd recording (bad magic number)");
    cr_assert(!parse_copy(&w, w.len, version_four, err, sizeof err));
    cr_assert_str_eq(err, "x.rec: recording version 4 is not supported (this crowd reads 1 to 3)");
    for (int f = 0; f < 4; ++f) free_truth(&tr[f]);
    rec_writer_free(&w);
    scenario_free(&sc);
}

static uint32_t le32(const uint8_t* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put_le32(uint8_t* p, uint32_t v) {
    for (int k = 0; k < 4; ++k) p[k] = (uint8_t)(v >> (8 * k));
}

// The same recording as version 1 wrote it: no OBST chunks, HNDL without the radius array.
static uint8_t* as_version_one(const uint8_t* in, size_t len, size_t* out_len) {
    uint8_t* out = malloc(len);
    memcpy(out, in, 16);
    put_le32(out + 8, 1);
    size_t o = 16, i = 16;
    while (i < len - 24) {
        const uint32_t size = le32(in + i + 4);
        if (memcmp(in + i, "OBST", 4) != 0) {
            uint32_t keep = size;
            if (memcmp(in + i, "HNDL", 4) == 0) {
                const uint32_t n = le32(in + i + 8);
                keep = 4 + 4 * n + ((2 * n + 3) & ~3u) + ((n + 3) & ~3u);
            }
            memcpy(out + o, in + i, 8 + keep);
            put_le32(out + o + 4, keep);
            o += 8 + keep;
        }
        i += 8 + size;
    }
    memcpy(out + o, in + len - 24, 16); // END without its checksum
    o += 16;
    const uint64_t h = rec_checksum(out, o);
    put_le32(out + o, (uint32_t)h);
    put_le32(out + o + 4, (uint32_t)(h >> 32));
    *out_len = o + 8;
    return out;
}

Test(record, version_one_recordings_still_read) {
    rec_writer w;
    truth tr[4];
    scenario sc;
    record_scene(&w, tr, &sc);
    size_t len1 = 0;
    uint8_t* v1 = as_version_one(w.buf, w.len, &len1);
    cr_assert_lt(len1, w.len);
    recording r1, r2;
    char err[256];
    cr_assert(rec_parse(v1, len1, "v1", &r1, err, sizeof err), "%s", err);
    uint8_t* copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    cr_assert(rec_parse(copy, w.len, "v2", &r2, err, sizeof err), "%s", err);
    cr_assert_eq(r1.version, 1u);
    cr_assert_eq(r1.obstacle_count, 0);
    cr_assert_eq(r1.frame_count, r2.frame_count);
    cr_assert_eq(r1.table_count, r2.table_count);
    for (int t = 0; t < r1.table_count; ++t) {
        cr_assert_null(r1.tables[t].radius_mm);
        cr_assert_eq(r1.tables[t].count, r2.tables[t].count);
        cr_assert_eq(memcmp(r1.tables[t].kind, r2.tables[t].kind, (size_t)r1.tables[t].count), 0);
    }
    for (int f = 0; f < r1.frame_count; ++f) {
        cr_assert_eq(r1.frames[f].count, r2.frames[f].count);
        cr_assert_eq(memcmp(r1.frames[f].qx, r2.frames[f].qx, 2 * (size_t)r1.frames[f].count), 0);
        cr_assert_eq(memcmp(r1.frames[f].heading, r2.frames[f].heading, (size_t)r1.frames[f].count),
                     0);
    }
    rec_free(&r1);
    rec_free(&r2);
    for (int f = 0; f < 4; ++f) free_truth(&tr[f]);
    rec_writer_free(&w);
    scenario_free(&sc);
}

static uint8_t b64_value(char c) {
    if (c >= 'A' && c <= 'Z') return (uint8_t)(c - 'A');
    if (c >= 'a' && c <= 'z') return (uint8_t)(c - 'a' + 26);
    if (c >= '0' && c <= '9') return (uint8_t)(c - '0' + 52);
    return c == '+' ? 62 : 63;
}

Test(record, html_replay_embeds_the_exact_bytes_and_loads_nothing) {
    rec_writer w;
    truth tr[4];
    scenario sc;
    record_scene(&w, tr, &sc);
    char* html = NULL;
    size_t len = 0;
    FILE* f = open_memstream(&html, &len);
    cr_assert(viewer_write_html(f, w.buf, w.len, "a <b> & c"));
    fclose(f);
    cr_assert(strstr(html, "<title>a &lt;b&gt; &amp; c - crowdstep replay</title>"));
    const char* open = "<script id=\"recording\" type=\"application/octet-stream\">";
    const char* p = strstr(html, open);
    cr_assert(p);
    p += strlen(open);
    const char* end = strstr(p, "</script>");
    cr_assert(end);
    // Decode the embedded base64 independently and compare with the recording.
    size_t n = 0;
    uint8_t* out = malloc((size_t)(end - p));
    for (const char* q = p; q + 3 < end; q += 4) {
        const uint32_t v = (uint32_t)b64_value(q[0]) << 18 | (uint32_t)b64_value(q[1]) << 12 |
                           (uint32_t)(q[2] == '=' ? 0 : b64_value(q[2])) << 6 |
                           (uint32_t)(q[3] == '=' ? 0 : b64_value(q[3]));
        out[n++] = (uint8_t)(v >> 16);
        if (q[2] != '=') out[n++] = (uint8_t)(v >> 8);
        if (q[3] != '=') out[n++] = (uint8_t)v;
    }
    cr_assert_eq(n, w.len);
    cr_assert_eq(memcmp(out, w.buf, n), 0);
    // Self-contained: no external scripts, styles, images or fetches.
    cr_assert_null(strstr(html, "http:"));
    cr_assert_null(strstr(html, "https:"));
    cr_assert_null(strstr(html, " src="));
    cr_assert_null(strstr(html, "<link"));
    cr_assert_null(strstr(html, "fetch("));
    cr_assert_null(strstr(html, "@@"), "every placeholder replaced");
    free(out);
    free(html);
    for (int k = 0; k < 4; ++k) free_truth(&tr[k]);
    rec_writer_free(&w);
    scenario_free(&sc);
}

// Paths, queue targets and respawn areas come from the scenario, behavior kinds from the world.
// The world here is built from a plain scenario and given the rich one's description, so the
// chunks are checked whether or not this build can build the behaviors.
static const char RICH[] =
    "{\"paths\": [{\"name\": \"ring\", \"points\": [[0, 0], [10, 0], [10, 10], [0, 0]]},\n"
    "            {\"name\": \"line\", \"points\": [[-5, -5], [5, -5]]}],\n"
    " \"crowds\": [\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"path\": {\"name\": \"ring\", \"kind\": \"tube\", \"tube_radius\": 2}},\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"path\": {\"name\": \"ring\", \"kind\": \"tube\", \"tube_radius\": 3}},\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"path\": {\"name\": \"line\", \"mode\": \"ping_pong\"},\n"
    "   \"followers\": {\"count\": 2}},\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"queue\": {\"target\": [7, 8], \"arrive_radius\": 0.9, \"on_arrival\": \"respawn\",\n"
    "             \"start_area\": {\"kind\": \"uniform\", \"min\": [-9, -9], \"max\": [-8, "
    "-7]}}},\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"queue\": {\"target\": [1, 2], \"on_arrival\": \"respawn\",\n"
    "             \"start_area\": {\"kind\": \"circle\", \"center\": [4, 5], \"radius\": 6}}},\n"
    "  {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]},\n"
    "   \"goal\": {\"mode\": \"arrive\", \"target\": [3, 3], \"slow_radius\": 5}}]}";

Test(record, scenario_paths_goals_areas_and_kinds) {
    scenario rich, plain;
    char err[512];
    cr_assert(scenario_parse("rich.json", RICH, sizeof RICH - 1, &rich, err, sizeof err), "%s",
              err);
    const char text[] = "{\"crowds\": [{\"count\": 5, \"area\": {\"kind\": \"grid\", "
                        "\"center\": [0, 0]}}]}";
    cr_assert(scenario_parse("plain.json", text, sizeof text - 1, &plain, err, sizeof err));
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    cr_assert(scenario_build(&plain, &o, &b, err, sizeof err), "%s", err);
    crowd_agent_id ids[5];
    int n;
    cr_assert_eq(crowd_world_get_agents(b.world, ids, NULL, NULL, 5, &n), CROWD_OK);
    const agent_kind kinds[5] = {AGENT_LEADER, AGENT_FOLLOWER, AGENT_TUBE, AGENT_QUEUE,
                                 AGENT_WAYPOINTS};
    for (int k = 0; k < 5; ++k) cr_assert(built_world_set_kind(&b, ids[k], kinds[k]));
    b.sc = &rich;
    rec_writer w;
    cr_assert(rec_begin(&w, &b, 1));
    cr_assert(rec_frame(&w, &b));
    cr_assert(rec_end(&w));
    uint8_t* copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    recording r;
    cr_assert(rec_parse(copy, w.len, "mem", &r, err, sizeof err), "%s", err);
    cr_assert_eq(r.path_count, 2);
    cr_assert_eq(r.paths[0].uses, 2u, "ring: tube only");
    cr_assert_float_eq(r.paths[0].tube_radius, 3.0f, 0.0f, "the widest tube on the path");
    cr_assert_eq(r.paths[0].count, 4);
    cr_assert_float_eq(r.paths[0].xy[5], 10.0f, 0.0f);
    cr_assert_eq(r.paths[1].uses, 1u, "line: waypoints only");
    cr_assert_float_eq(r.paths[1].tube_radius, 0.0f, 0.0f);
    cr_assert_eq(r.goal_count, 3);
    cr_assert_eq(r.goals[0].kind, AGENT_QUEUE);
    cr_assert_float_eq(r.goals[0].x, 7.0f, 0.0f);
    cr_assert_float_eq(r.goals[0].radius, 0.9f, 0.0f);
    cr_assert_eq(r.goals[2].kind, AGENT_ARRIVE);
    cr_assert_float_eq(r.goals[2].radius, 5.0f, 0.0f);
    cr_assert_eq(r.area_count, 2);
    cr_assert_eq(r.areas[0].shape, 0u);
    cr_assert_float_eq(r.areas[0].v[3], -7.0f, 0.0f);
    cr_assert_eq(r.areas[1].shape, 1u);
    cr_assert_float_eq(r.areas[1].v[2], 6.0f, 0.0f);
    for (int k = 0; k < 5; ++k) cr_assert_eq(r.tables[0].kind[k], kinds[k]);
    rec_free(&r);
    rec_writer_free(&w);
    b.sc = &plain;
    built_world_free(&b);
    scenario_free(&rich);
    scenario_free(&plain);
}

// ---- the navigation field (FELD)
// ------------------------------------------------------------------

// A wall between a crowd and its goal, and an exit set: the field recorded is the one the run's
// agents read, sampled at the nav cells' centres.
static const char NAV_SCENE[] =
    "{\"name\": \"field test\",\n"
    " \"obstacles\": [{\"kind\": \"wall\", \"points\": [[0, -10], [0, 10]]},\n"
    "               {\"kind\": \"polygon\", \"points\": [[-8, -8], [-6, -8], [-6, -6], [-8, "
    "-6]]}],\n"
    " \"exits\": {\"doors\": [[3, 0], [-4, 9]]},\n"
    " \"crowds\": [\n"
    "  {\"count\": 20, \"area\": {\"kind\": \"uniform\", \"min\": [-5, -3], \"max\": [-2, 3]},\n"
    "   \"goal\": {\"mode\": \"arrive\", \"target\": [3, 0]}},\n"
    "  {\"count\": 5, \"area\": {\"kind\": \"uniform\", \"min\": [-5, -3], \"max\": [-2, 3]},\n"
    "   \"goal\": {\"mode\": \"seek\", \"exits\": \"doors\", \"slow_radius\": 2}}]}";

static recording record_field(const char* spec_exits, float step, built_world* b, scenario* sc) {
    char err[512];
    cr_assert(scenario_parse("nav.json", NAV_SCENE, sizeof NAV_SCENE - 1, sc, err, sizeof err),
              "%s", err);
    build_options o = {.threads = 1, .agents_scale = 1.0};
    cr_assert(scenario_build(sc, &o, b, err, sizeof err), "%s", err);
    rec_field_spec spec;
    if (spec_exits) {
        spec = (rec_field_spec){.exits = 0, .step = step};
        snprintf(spec.label, sizeof spec.label, "exits %s", spec_exits);
    } else {
        cr_assert(rec_field_auto(sc, &spec));
        cr_assert_str_eq(spec.label, "goal [3, 0]");
        spec.step = step;
    }
    rec_writer w;
    cr_assert(rec_begin(&w, b, 1));
    const uint64_t before = crowd_world_state_hash(b->world);
    cr_assert(rec_field(&w, b, &spec, err, sizeof err), "%s", err);
    cr_assert_eq(crowd_world_state_hash(b->world), before, "sampling the field changes nothing");
    cr_assert(rec_frame(&w, b));
    cr_assert(rec_end(&w));
    uint8_t* copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    recording r;
    cr_assert(rec_parse(copy, w.len, "mem", &r, err, sizeof err), "%s", err);
    rec_writer_free(&w);
    return r;
}

static const rec_field_view* sample_near(const recording* r, float x, float y, size_t* k) {
    const rec_field_view* f = &r->fields[0];
    const long i = lroundf((x - f->x0) / f->step), j = lroundf((y - f->y0) / f->step);
    cr_assert(i >= 0 && j >= 0 && i < f->cols && j < f->rows, "[%g, %g] outside the samples",
              (double)x, (double)y);
    *k = (size_t)j * (size_t)f->cols + (size_t)i;
    return f;
}

Test(record, the_navigation_field_round_trips_as_the_agents_read_it) {
    built_world b;
    scenario sc;
    recording r = record_field(NULL, 0.0f, &b, &sc);
    cr_assert_eq(r.version, 3u);
    cr_assert_eq(r.field_count, 1);
    const rec_field_view* f = &r.fields[0];
    cr_assert_str_eq(f->label, "goal [3, 0]");
    const float cell = crowd_nav_def_default().cell_size;
    cr_assert_float_eq(f->step, cell, 0.0f, "the default step is the nav cell");
    cr_assert_float_eq(fmodf(f->x0 / cell + 1000.0f, 1.0f), 0.5f, 1e-4f, "at the cells' centres");
    // The samples cover the obstacles and the agents with a margin.
    cr_assert_leq(f->x0, -9.5f);
    cr_assert_geq(f->x0 + f->step * (float)(f->cols - 1), 4.75f);
    cr_assert_geq(f->y0 + f->step * (float)(f->rows - 1), 11.75f);
    // Every sample reads as crowd_nav_route_from reads the run's own field after a step.
    cr_assert_eq(crowd_world_step(b.world), CROWD_OK);
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_ARRIVE;
    g.target = (crowd_vec2){3.0f, 0.0f};
    int routed = 0;
    for (int j = 0; j < f->rows; j += 3)
        for (int i = 0; i < f->cols; i += 3) {
            const size_t k = (size_t)j * (size_t)f->cols + (size_t)i;
            const crowd_vec2 p = {f->x0 + (float)i * f->step, f->y0 + (float)j * f->step};
            crowd_route_info ri;
            cr_assert_eq(crowd_nav_route_from(b.world, &g, p, &ri), CROWD_OK);
            cr_assert_eq(f->state[k], (uint8_t)ri.state, "state at [%g, %g]", (double)p.x,
                         (double)p.y);
            const bool has = ri.state == CROWD_ROUTE_STATE_ROUTED ||
                             ri.state == CROWD_ROUTE_STATE_STRAIGHT ||
                             ri.state == CROWD_ROUTE_STATE_UNREACHABLE;
            cr_assert_float_eq(f->distance[k], has ? ri.distance : -1.0f, 0.0f);
            const float a = atan2f(ri.aim.y - p.y, ri.aim.x - p.x);
            const float d = (float)(int8_t)f->angle[k] * (6.2831853f / 256.0f) - a;
            cr_assert_leq(fabsf(remainderf(d, 6.2831853f)), 3.2f / 256.0f + 1e-4f,
                          "angle at [%g, %g]", (double)p.x, (double)p.y);
            routed += ri.state == CROWD_ROUTE_STATE_ROUTED;
        }
    cr_assert_gt(routed, 100);
    // Behind the wall the way is longer than the straight line, and points round the wall's end.
    size_t k;
    f = sample_near(&r, -3.0f, 0.0f, &k);
    cr_assert_eq(f->state[k], CROWD_ROUTE_STATE_ROUTED);
    cr_assert_gt(f->distance[k], 2.0f * 10.0f - 1.0f, "round an end of the 20 m wall");
    const float a = (float)(int8_t)f->angle[k] * (6.2831853f / 256.0f);
    cr_assert_gt(fabsf(sinf(a)), 0.9f, "toward an end of the wall, not through it");
    // In sight of the goal the way is the straight line.
    f = sample_near(&r, 3.0f, 5.0f, &k);
    cr_assert_float_eq(f->distance[k], 5.0f, 0.3f);
    rec_free(&r);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(record, an_exit_sets_field_and_its_goal_markers) {
    built_world b;
    scenario sc;
    recording r = record_field("doors", 1.0f, &b, &sc);
    cr_assert_eq(r.field_count, 1);
    const rec_field_view* f = &r.fields[0];
    cr_assert_str_eq(f->label, "exits doors");
    cr_assert_float_eq(f->step, 1.0f, 0.0f);
    // West of the wall the exit on the near side ([-4, 9]) is nearer by walking than [3, 0].
    size_t k;
    f = sample_near(&r, -3.0f, 0.0f, &k);
    cr_assert_eq(f->state[k], CROWD_ROUTE_STATE_ROUTED);
    cr_assert_float_eq(f->distance[k], sqrtf(1.0f + 81.0f), 0.6f);
    // The goal markers: the point goal, then each exit of the set once.
    cr_assert_eq(r.goal_count, 3);
    cr_assert_eq(r.goals[0].kind, AGENT_ARRIVE);
    cr_assert_eq(r.goals[1].kind, AGENT_SEEK);
    cr_assert_float_eq(r.goals[2].x, -4.0f, 0.0f);
    cr_assert_float_eq(r.goals[2].radius, 2.0f, 0.0f);
    rec_free(&r);
    built_world_free(&b);
    scenario_free(&sc);
}

// A FELD chunk that does not add up is refused, like every other chunk.
Test(record, a_bad_field_chunk_is_refused) {
    built_world b;
    scenario sc;
    recording r = record_field(NULL, 2.0f, &b, &sc);
    rec_free(&r);
    char err[512];
    rec_field_spec spec = {.exits = -1, .point = {1.0f, 1.0f}, .step = 2.0f};
    strcpy(spec.label, "x");
    rec_writer w;
    cr_assert(rec_begin(&w, &b, 1));
    cr_assert(rec_field(&w, &b, &spec, err, sizeof err), "%s", err);
    cr_assert(rec_frame(&w, &b));
    cr_assert(rec_end(&w));
    // Find the chunk and make its rows disagree with its size, then seal the checksum again.
    size_t at = 16;
    while (memcmp(w.buf + at, "FELD", 4) != 0) at += 8 + le32(w.buf + at + 4);
    put_le32(w.buf + at + 8 + 16, le32(w.buf + at + 8 + 16) + 1);
    const uint64_t h = rec_checksum(w.buf, w.len - 8);
    put_le32(w.buf + w.len - 8, (uint32_t)h);
    put_le32(w.buf + w.len - 4, (uint32_t)(h >> 32));
    uint8_t* copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    cr_assert_not(rec_parse(copy, w.len, "f.rec", &r, err, sizeof err));
    char want[64];
    snprintf(want, sizeof want, "f.rec: bad FELD chunk at byte %zu", at);
    cr_assert_str_eq(err, want);
    // A route state the library does not have.
    put_le32(w.buf + at + 8 + 16, le32(w.buf + at + 8 + 16) - 1);
    const uint32_t n = le32(w.buf + at + 8 + 12) * le32(w.buf + at + 8 + 16);
    const size_t states = at + 8 + 24 + ((le32(w.buf + at + 8 + 20) + 3) & ~3u) + 4 * (size_t)n;
    w.buf[states + n / 2] = 9;
    const uint64_t h2 = rec_checksum(w.buf, w.len - 8);
    put_le32(w.buf + w.len - 8, (uint32_t)h2);
    put_le32(w.buf + w.len - 4, (uint32_t)(h2 >> 32));
    copy = malloc(w.len);
    memcpy(copy, w.buf, w.len);
    cr_assert_not(rec_parse(copy, w.len, "f.rec", &r, err, sizeof err));
    cr_assert_str_eq(err, "f.rec: unknown route state 9 in FELD");
    rec_writer_free(&w);
    built_world_free(&b);
    scenario_free(&sc);
}
