#include "scenes.h"

#include <math.h>
#include <string.h>

static const char* const kind_names[SCENE_KIND_COUNT] = {
    "separation", "crossing", "mixed", "queue", "waypoints", "tube", "groups", "plaza", "town"};

const char* scene_kind_name(scene_kind kind) {
    return (unsigned)kind < SCENE_KIND_COUNT ? kind_names[kind] : "unknown";
}

int scene_kind_of(const char* name) {
    for (int k = 0; k < SCENE_KIND_COUNT; ++k)
        if (!strcmp(name, kind_names[k])) return k;
    return -1;
}

crowd_status scene_create_behaviors(const scene_def* def, crowd_world* w);
crowd_status scene_create_town(const scene_def* def, crowd_world* w);

uint64_t scene_rng_next(scene_rng* r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float scene_rng_float(scene_rng* r, float lo, float hi) {
    float u = (float)(scene_rng_next(r) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

scene_def scene_def_default(void) {
    return (scene_def){.kind = SCENE_SEPARATION, .agents = 10000, .density = 0.25f, .seed = 1};
}

float scene_side(const scene_def* def) {
    return sqrtf((float)def->agents / def->density);
}

static int queue_count(const scene_def* def) {
    return def->queues > 0 ? def->queues : (def->agents + 199) / 200;
}

// A queueing agent in a uniform point of its queue's tile: the square cut into cols x rows tiles.
crowd_status scene_add_queue_agent(crowd_world* w, const scene_def* def, scene_rng* rng, int i,
                                   crowd_agent_def* a) {
    const int queues = queue_count(def), q = i % queues;
    const int cols = (int)ceilf(sqrtf((float)queues));
    const int rows = (queues + cols - 1) / cols;
    const float side = scene_side(def), half = side * 0.5f;
    const float tw = side / (float)cols, th = side / (float)rows;
    const float x0 = -half + tw * (float)(q % cols), y0 = -half + th * (float)(q / cols);
    a->position =
        (crowd_vec2){scene_rng_float(rng, x0, x0 + tw), scene_rng_float(rng, y0, y0 + th)};
    crowd_agent_id id;
    crowd_status st = crowd_agent_add(w, a, &id);
    if (st != CROWD_OK) return st;
    crowd_queue_def qd = crowd_queue_def_default();
    qd.goal = (crowd_vec2){x0 + tw * 0.9f, y0 + th * 0.5f};
    qd.on_arrival = CROWD_QUEUE_RESPAWN;
    qd.start_min = (crowd_vec2){x0, y0 + th * 0.25f};
    qd.start_max = (crowd_vec2){x0 + tw * 0.1f, y0 + th * 0.75f};
    return crowd_agent_set_queue(w, id, &qd);
}

bool scene_is_plain(scene_kind kind) {
    return kind == SCENE_SEPARATION || kind == SCENE_CROSSING || kind == SCENE_MIXED;
}

// The random draws a plain scene's agent takes from the scene's stream: position, heading, then
// the mixed scene's target and speed.
static int plain_draws(scene_kind kind) {
    return kind == SCENE_MIXED ? 6 : 3;
}

// Agent i's def and draws of a plain scene or of the queue scene (its queue comes after the add).
static void agent_def_at(const scene_def* def, int i, scene_rng* rng, crowd_agent_def* out) {
    const float side = scene_side(def), half = side * 0.5f;
    crowd_agent_def a = crowd_agent_def_default();
    a.position.x = scene_rng_float(rng, -half, half);
    a.position.y = scene_rng_float(rng, -half, half);
    float ang = scene_rng_float(rng, 0.0f, 6.2831853f);
    a.velocity = (crowd_vec2){crowd_cosf(ang) * 1.2f, crowd_sinf(ang) * 1.2f};
    switch (def->kind) {
    case SCENE_SEPARATION:
        break;
    case SCENE_CROSSING:
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){-a.position.x, -a.position.y};
        break;
    case SCENE_MIXED: {
        int m = i % 4;
        a.goal.mode =
            m == 0 ? CROWD_GOAL_NONE
                   : (m == 1 ? CROWD_GOAL_SEEK : (m == 2 ? CROWD_GOAL_ARRIVE : CROWD_GOAL_FLEE));
        a.goal.target =
            (crowd_vec2){scene_rng_float(rng, -half, half), scene_rng_float(rng, -half, half)};
        a.goal.slow_radius = 2.0f;
        a.max_speed = scene_rng_float(rng, 1.0f, 2.0f);
        break;
    }
    default:
        break;
    }
    *out = a;
}

crowd_status scene_agent_def(const scene_def* def, int i, crowd_agent_def* out) {
    if (!scene_is_plain(def->kind)) return CROWD_ERR_OUT_OF_RANGE;
    if (i < 0 || i >= def->agents) return CROWD_ERR_BAD_COUNT;
    // splitmix64's state moves by one constant per draw: agent i's first draw is the one after
    // i x draws of them.
    scene_rng rng = {def->seed +
                     0x9e3779b97f4a7c15ull * (uint64_t)plain_draws(def->kind) * (uint64_t)i};
    agent_def_at(def, i, &rng, out);
    return CROWD_OK;
}

crowd_world_def scene_world_def(const scene_def* def) {
    crowd_world_def wd = crowd_world_def_default();
    wd.capacity = def->agents;
    wd.threads = def->threads;
    wd.world_tag = 1;
    wd.seed = def->seed;
    wd.alloc = def->alloc;
    wd.free = def->free;
    wd.alloc_user = def->alloc_user;
    return wd;
}

crowd_status scene_create(const scene_def* def, crowd_world** out) {
    const crowd_world_def wd = scene_world_def(def);
    crowd_status st = crowd_world_create(&wd, out);
    if (st != CROWD_OK) return st;
    crowd_world* w = *out;
    if (def->kind >= SCENE_WAYPOINTS) {
        st = def->kind == SCENE_TOWN ? scene_create_town(def, w) : scene_create_behaviors(def, w);
        if (st != CROWD_OK) {
            crowd_world_destroy(w);
            *out = NULL;
        }
        return st;
    }
    scene_rng rng = {def->seed};
    for (int i = 0; i < def->agents; ++i) {
        crowd_agent_def a;
        agent_def_at(def, i, &rng, &a);
        if (def->kind == SCENE_QUEUE) {
            st = scene_add_queue_agent(w, def, &rng, i, &a);
        } else {
            crowd_agent_id id;
            st = crowd_agent_add(w, &a, &id);
        }
        if (st != CROWD_OK) {
            crowd_world_destroy(w);
            *out = NULL;
            return st;
        }
    }
    return CROWD_OK;
}
