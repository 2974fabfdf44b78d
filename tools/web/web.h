// The state behind the exported functions of the WebAssembly build (tools/web/).
#ifndef CROWD_WEB_H
#define CROWD_WEB_H

#include <stdbool.h>

#include "build.h"
#include "crowd/crowd.h"
#include "scenario.h"
#include "scenes.h"

#define WEB_EXPORT(name) __attribute__((export_name(#name)))

typedef struct web_state {
    crowd_world* world;
    bool has_built; // world belongs to built (a scenario)
    scenario sc;
    built_world built;
    bool churn;
    scene_rng rng;
    float half;
    long ticks;
    float* radius; // by row, for cw_columns
    int radius_cap;
    float* radius_of; // radius by agent index, cached with...
    uint32_t* gen_of; // ...the generation + 1 of the agent it belongs to (0: none)
    int radius_of_cap;
    char err[1024];
    char hash[24];
} web_state;

extern web_state web;

// Forgets web_demo.c's path, obstacle and exit set slots (a new world).
void web_demo_reset(void);

// A path the scenario created, given a slot of web_demo.c's (the slot), and a slot's path.
int web_demo_adopt_path(crowd_path_id id);
crowd_path_id web_demo_path(int slot);

// The radius of agent index `index` (its def's, cached).
float web_radius_of(uint32_t index);

#endif
