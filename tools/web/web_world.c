// The world a page steps: a built-in scene (as `crowd hash` builds and churns it), a scenario
// file (as `crowd run` builds it) or an empty world the demos fill (web_demo.c). One world per
// WebAssembly instance. Every function is exported to JavaScript (tools/web/crowd.js wraps them).
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "churn.h"
#include "scenario.h"
#include "scenes.h"
#include "web.h"

web_state web = {0};

static void clear(void) {
    if (web.has_built) {
        built_world_free(&web.built);
        scenario_free(&web.sc);
    } else {
        crowd_world_destroy(web.world);
    }
    free(web.radius);
    free(web.radius_of);
    free(web.gen_of);
    web = (web_state){0};
    web_demo_reset();
}

WEB_EXPORT(cw_alloc) void* cw_alloc(int bytes) {
    return malloc(bytes > 0 ? (size_t)bytes : 1);
}

WEB_EXPORT(cw_free) void cw_free(void* p) {
    free(p);
}

WEB_EXPORT(cw_error) const char* cw_error(void) {
    return web.err;
}

WEB_EXPORT(cw_status_string) const char* cw_status_string(int status) {
    return crowd_status_string((crowd_status)status);
}

// A built-in scene by name; churn: the mutations of `crowd hash --churn` between steps.
WEB_EXPORT(cw_scene) int cw_scene(const char* name, int agents, int seed, int churn) {
    clear();
    const int kind = scene_kind_of(name);
    if (kind < 0) {
        snprintf(web.err, sizeof web.err, "unknown scene '%s'", name);
        return -1;
    }
    scene_def def = scene_def_default();
    def.kind = (scene_kind)kind;
    def.agents = agents;
    def.seed = (uint64_t)seed;
    def.threads = 1;
    const crowd_status st = scene_create(&def, &web.world);
    if (st != CROWD_OK) {
        snprintf(web.err, sizeof web.err, "%s", crowd_status_string(st));
        return (int)st;
    }
    web.churn = churn != 0;
    web.rng = (scene_rng){def.seed ^ 0xc0ffee};
    web.half = scene_side(&def) * 0.5f;
    return 0;
}

// A scenario document (the text of a tools/scenarios file); `file` names it in messages.
WEB_EXPORT(cw_scenario)
int cw_scenario(const char* file, const char* text, int len, double agents_scale) {
    clear();
    if (!scenario_parse(file, text, (size_t)len, &web.sc, web.err, sizeof web.err)) return -1;
    build_options bo = {.threads = 1, .agents_scale = agents_scale > 0.0 ? agents_scale : 1.0};
    if (!scenario_build(&web.sc, &bo, &web.built, web.err, sizeof web.err)) {
        scenario_free(&web.sc);
        return -1;
    }
    web.has_built = true;
    web.world = web.built.world;
    // As `crowd run` does before its ticks: the fields in use built now.
    const crowd_status st = crowd_world_nav_update(web.world);
    if (st != CROWD_OK) snprintf(web.err, sizeof web.err, "%s", crowd_status_string(st));
    return (int)st;
}

// An empty world for the demos.
WEB_EXPORT(cw_empty) int cw_empty(float dt, float cell_size) {
    clear();
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    if (dt > 0.0f) wd.dt = dt;
    if (cell_size > 0.0f) wd.cell_size = cell_size;
    const crowd_status st = crowd_world_create(&wd, &web.world);
    if (st != CROWD_OK) snprintf(web.err, sizeof web.err, "%s", crowd_status_string(st));
    return (int)st;
}

// Steps `ticks` ticks (a scene with churn churns as `crowd hash --churn` does); the status.
WEB_EXPORT(cw_step) int cw_step(int ticks) {
    if (!web.world) return (int)CROWD_ERR_NULL_ARGUMENT;
    crowd_status st = CROWD_OK;
    for (int t = 0; t < ticks && st == CROWD_OK; ++t, ++web.ticks) {
        if (web.churn && web.ticks % 50 == 25) {
            const scene_calls calls = scene_calls_world(web.world);
            st = scene_churn(&calls, &web.rng, web.half);
        }
        if (st == CROWD_OK) st = crowd_world_step(web.world);
    }
    if (st != CROWD_OK) snprintf(web.err, sizeof web.err, "%s", crowd_status_string(st));
    return (int)st;
}

float web_radius_of(uint32_t index) {
    crowd_agent_id id;
    if (crowd_world_columns_handle(web.world, index, &id) != CROWD_OK) return 0.3f;
    if ((int)index >= web.radius_of_cap) {
        const int cap = (int)index * 2 + 64;
        float* r = realloc(web.radius_of, sizeof *r * (size_t)cap);
        if (r) web.radius_of = r;
        uint32_t* g = realloc(web.gen_of, sizeof *g * (size_t)cap);
        if (g) web.gen_of = g;
        if (!r || !g) return 0.3f;
        memset(g + web.radius_of_cap, 0, sizeof *g * (size_t)(cap - web.radius_of_cap));
        web.radius_of_cap = cap;
    }
    if (web.gen_of[index] != (uint32_t)id.generation + 1) {
        crowd_agent_def d;
        if (crowd_agent_get_def(web.world, id, &d) != CROWD_OK) return 0.3f;
        web.radius_of[index] = d.radius;
        web.gen_of[index] = (uint32_t)id.generation + 1;
    }
    return web.radius_of[index];
}

// The state hash as 16 hex digits, as `crowd hash` and `crowd run --hash` print it.
WEB_EXPORT(cw_hash) const char* cw_hash(void) {
    snprintf(web.hash, sizeof web.hash, "%016" PRIx64,
             web.world ? crowd_world_state_hash(web.world) : (uint64_t)0);
    return web.hash;
}

WEB_EXPORT(cw_step_ms) double cw_step_ms(void) {
    return web.world ? crowd_world_get_profile(web.world).step_ms : 0.0;
}

WEB_EXPORT(cw_agent_count) int cw_agent_count(void) {
    return web.world ? crowd_world_agent_count(web.world) : 0;
}

// The columns to draw: web.view's count and pointers (x, y, hx, hy, id), and each row's agent
// radius in web.radius (by row, refreshed here).
WEB_EXPORT(cw_columns) const int32_t* cw_columns(void) {
    static int32_t out[8];
    memset(out, 0, sizeof out);
    crowd_columns_view v;
    if (!web.world || crowd_world_columns(web.world, &v) != CROWD_OK) return out;
    if (v.count > web.radius_cap) {
        float* r = realloc(web.radius, sizeof *r * (size_t)v.count);
        if (!r) return out;
        web.radius = r;
        web.radius_cap = v.count;
    }
    for (int i = 0; i < v.count; ++i) web.radius[i] = web_radius_of(v.id[i]);
    out[0] = v.count;
    out[1] = (int32_t)(intptr_t)v.x;
    out[2] = (int32_t)(intptr_t)v.y;
    out[3] = (int32_t)(intptr_t)v.hx;
    out[4] = (int32_t)(intptr_t)v.hy;
    out[5] = (int32_t)(intptr_t)v.id;
    out[6] = (int32_t)(intptr_t)web.radius;
    return out;
}
