// Scenes with the spec's behaviors: agents on paths (waypoints or tube), follow-leader groups, and
// the mixed plaza that uses every behavior at once.
#include <math.h>
#include <stdlib.h>

#include "scenes.h"

enum { PATH_SEGMENTS = 50 };

// A smooth random walk of PATH_SEGMENTS segments of about 3 m, kept inside the square.
static void random_walk(scene_rng* rng, float half, crowd_vec2* pts) {
    float x = scene_rng_float(rng, -half, half), y = scene_rng_float(rng, -half, half);
    float heading = scene_rng_float(rng, 0.0f, 6.2831853f);
    for (int i = 0; i <= PATH_SEGMENTS; ++i) {
        pts[i] = (crowd_vec2){x, y};
        heading += scene_rng_float(rng, -0.6f, 0.6f);
        float nx = x + 3.0f * crowd_cosf(heading), ny = y + 3.0f * crowd_sinf(heading);
        if (nx < -half || nx > half) heading = 3.14159265f - heading;
        if (ny < -half || ny > half) heading = -heading;
        x += 3.0f * crowd_cosf(heading);
        y += 3.0f * crowd_sinf(heading);
    }
}

typedef struct builder {
    crowd_world* w;
    const scene_def* def;
    scene_rng rng;
    float half;
    crowd_vec2* points; // paths x (PATH_SEGMENTS + 1)
    crowd_path_id* paths;
    int path_count;
} builder;

static crowd_status make_paths(builder* b, int count) {
    b->path_count = count;
    b->points = malloc(sizeof(crowd_vec2) * (size_t)count * (PATH_SEGMENTS + 1));
    b->paths = malloc(sizeof(crowd_path_id) * (size_t)count);
    if (!b->points || !b->paths) return CROWD_ERR_OUT_OF_MEMORY;
    for (int p = 0; p < count; ++p) {
        crowd_vec2* pts = b->points + (size_t)p * (PATH_SEGMENTS + 1);
        random_walk(&b->rng, b->half, pts);
        crowd_status st = crowd_path_create(b->w, pts, PATH_SEGMENTS + 1, &b->paths[p]);
        if (st != CROWD_OK) return st;
    }
    return CROWD_OK;
}

// An agent placed near a random point of path p, following it in LOOP mode.
static crowd_status add_path_agent(builder* b, int p, crowd_path_kind kind, crowd_agent_id* out) {
    const int at = (int)(scene_rng_next(&b->rng) % (PATH_SEGMENTS + 1));
    const crowd_vec2 pt = b->points[(size_t)p * (PATH_SEGMENTS + 1) + (size_t)at];
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){pt.x + scene_rng_float(&b->rng, -1.0f, 1.0f),
                              pt.y + scene_rng_float(&b->rng, -1.0f, 1.0f)};
    crowd_status st = crowd_agent_add(b->w, &a, out);
    if (st != CROWD_OK) return st;
    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.path = b->paths[p];
    f.kind = kind;
    f.mode = CROWD_PATH_LOOP;
    f.start_index = at;
    return crowd_agent_set_path(b->w, *out, &f);
}

// A group of `size` agents: a leader walking a path, the rest following it in a formation chosen
// by the group number (or behind it for shape -1).
static crowd_status add_group(builder* b, int group, int size) {
    crowd_agent_id leader;
    crowd_status st = add_path_agent(b, group % b->path_count, CROWD_PATH_WAYPOINTS, &leader);
    if (st != CROWD_OK) return st;
    const int shape = group % (CROWD_FORMATION_CIRCLE + 2) - 1; // -1: behind point
    if (shape >= 0) {
        crowd_formation_def fd = crowd_formation_def_default();
        fd.shape = (crowd_formation_shape)shape;
        if (fd.shape == CROWD_FORMATION_CIRCLE) fd.distance = 4.0f;
        st = crowd_leader_set_formation(b->w, leader, &fd);
        if (st != CROWD_OK) return st;
    }
    crowd_vec2 lp;
    crowd_agent_get_position(b->w, leader, &lp);
    crowd_follow_def follow = crowd_follow_def_default();
    follow.target = shape >= 0 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
    for (int k = 1; k < size && st == CROWD_OK; ++k) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){lp.x + scene_rng_float(&b->rng, -4.0f, 4.0f),
                                  lp.y + scene_rng_float(&b->rng, -4.0f, 4.0f)};
        crowd_agent_id id;
        st = crowd_agent_add(b->w, &a, &id);
        if (st == CROWD_OK) st = crowd_agent_follow(b->w, id, leader, &follow);
    }
    return st;
}

crowd_status scene_add_queue_agent(crowd_world* w, const scene_def* def, scene_rng* rng, int i,
                                   crowd_agent_def* a);

static crowd_status fill(builder* b) {
    const scene_def* def = b->def;
    const int n = def->agents;
    crowd_status st = CROWD_OK;
    switch (def->kind) {
    case SCENE_WAYPOINTS:
    case SCENE_TUBE: {
        const crowd_path_kind kind =
            def->kind == SCENE_TUBE ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
        st = make_paths(b, n / 100 > 0 ? n / 100 : 1);
        for (int i = 0; i < n && st == CROWD_OK; ++i) {
            crowd_agent_id id;
            st = add_path_agent(b, i % b->path_count, kind, &id);
        }
        return st;
    }
    case SCENE_GROUPS: {
        st = make_paths(b, n / 500 > 0 ? n / 500 : 1);
        for (int g = 0, i = 0; i < n && st == CROWD_OK; ++g) {
            const int size = n - i < 50 ? n - i : 50;
            st = add_group(b, g, size);
            i += size;
        }
        return st;
    }
    case SCENE_PLAZA: {
        // Blocks of 10 agents take turns: a follow-leader group, waypoint walkers, tube walkers,
        // queuers, and a plain crowd with goals.
        st = make_paths(b, n / 200 > 0 ? n / 200 : 1);
        for (int i = 0, block = 0; i < n && st == CROWD_OK; ++block) {
            const int size = n - i < 10 ? n - i : 10;
            for (int k = 0; k < size && st == CROWD_OK; ++k) {
                crowd_agent_id id;
                crowd_agent_def a = crowd_agent_def_default();
                a.position = (crowd_vec2){scene_rng_float(&b->rng, -b->half, b->half),
                                          scene_rng_float(&b->rng, -b->half, b->half)};
                switch (block % 5) {
                case 0:
                    if (k == 0) st = add_group(b, block / 5, size);
                    break;
                case 1:
                    st = add_path_agent(b, (block + k) % b->path_count, CROWD_PATH_WAYPOINTS, &id);
                    break;
                case 2:
                    st = add_path_agent(b, (block + k) % b->path_count, CROWD_PATH_TUBE, &id);
                    break;
                case 3:
                    st = scene_add_queue_agent(b->w, def, &b->rng, i + k, &a);
                    break;
                default:
                    a.goal.mode = k % 2 ? CROWD_GOAL_ARRIVE : CROWD_GOAL_SEEK;
                    a.goal.target = (crowd_vec2){scene_rng_float(&b->rng, -b->half, b->half),
                                                 scene_rng_float(&b->rng, -b->half, b->half)};
                    a.goal.slow_radius = 2.0f;
                    st = crowd_agent_add(b->w, &a, &id);
                    break;
                }
            }
            i += size;
        }
        return st;
    }
    default:
        return CROWD_ERR_INVALID_ENUM;
    }
}

crowd_status scene_create_behaviors(const scene_def* def, crowd_world* w) {
    builder b = {
        .w = w, .def = def, .rng = {def->seed ^ 0xb0a710u}, .half = scene_side(def) * 0.5f};
    crowd_status st = fill(&b);
    free(b.points);
    free(b.paths);
    return st;
}
