// The walled scene: a town of square blocks on a regular street grid.
//
// The square is cut into cells of TOWN_PITCH metres; each cell holds one solid block (a closed
// polygon) of side TOWN_PITCH / sqrt(3), centred in the cell, so blocks cover a third of the
// area and streets of TOWN_PITCH - block metres run between them on the lines x = k TOWN_PITCH,
// y = k TOWN_PITCH. Every 100 agents share one looping waypoint path around a rectangle of 1 to
// 4 blocks by 1 to 4 blocks, with its corners on street crossings, so a path never crosses a
// block; every other path is walked backwards, so the streets carry traffic both ways. Each agent
// starts on its path's streets (a random point of a random side, moved across the street by up
// to what leaves its disc clear of the blocks) heading for the next corner.
//
// With def->open_town the agents, paths and random draws are exactly the same and only the
// blocks are left out: the benchmark's crowd without walls.
#include <math.h>
#include <stdlib.h>

#include "scenes.h"

#define TOWN_PITCH 20.0f
enum { TOWN_CORNERS = 4, TOWN_AGENTS_PER_PATH = 100 };

float scene_town_block(void) {
    return TOWN_PITCH / sqrtf(3.0f);
}

// Streets on the lines k * TOWN_PITCH for k in [-m, m]; blocks between them.
static int town_half_streets(const scene_def* def) {
    const int m = (int)floorf(scene_side(def) * 0.5f / TOWN_PITCH);
    return m > 1 ? m : 1;
}

static crowd_status add_blocks(crowd_world* w, int m) {
    const float half_block = scene_town_block() * 0.5f;
    for (int i = -m; i < m; ++i) {
        for (int j = -m; j < m; ++j) {
            const float cx = ((float)i + 0.5f) * TOWN_PITCH, cy = ((float)j + 0.5f) * TOWN_PITCH;
            const crowd_vec2 pts[4] = {{cx - half_block, cy - half_block},
                                       {cx + half_block, cy - half_block},
                                       {cx + half_block, cy + half_block},
                                       {cx - half_block, cy + half_block}};
            crowd_obstacle_id id;
            crowd_status st = crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, pts, 4, &id);
            if (st != CROWD_OK) return st;
        }
    }
    return CROWD_OK;
}

// A rectangle of street crossings inside [-m, m]^2, counter-clockwise.
static void town_loop(scene_rng* rng, int m, crowd_vec2* pts) {
    const int wx = 1 + (int)(scene_rng_next(rng) % 4), wy = 1 + (int)(scene_rng_next(rng) % 4);
    const int spanx = 2 * m - wx < 0 ? 0 : 2 * m - wx, spany = 2 * m - wy < 0 ? 0 : 2 * m - wy;
    const int i0 = -m + (int)(scene_rng_next(rng) % (uint64_t)(spanx + 1));
    const int j0 = -m + (int)(scene_rng_next(rng) % (uint64_t)(spany + 1));
    const int i1 = i0 + (wx < 2 * m ? wx : 2 * m), j1 = j0 + (wy < 2 * m ? wy : 2 * m);
    pts[0] = (crowd_vec2){(float)i0 * TOWN_PITCH, (float)j0 * TOWN_PITCH};
    pts[1] = (crowd_vec2){(float)i1 * TOWN_PITCH, (float)j0 * TOWN_PITCH};
    pts[2] = (crowd_vec2){(float)i1 * TOWN_PITCH, (float)j1 * TOWN_PITCH};
    pts[3] = (crowd_vec2){(float)i0 * TOWN_PITCH, (float)j1 * TOWN_PITCH};
}

crowd_status scene_create_town(const scene_def* def, crowd_world* w) {
    scene_rng rng = {def->seed ^ 0x70a4u};
    const int m = town_half_streets(def);
    crowd_status st = def->open_town ? CROWD_OK : add_blocks(w, m);
    const int n = def->agents, paths = n / TOWN_AGENTS_PER_PATH > 0 ? n / TOWN_AGENTS_PER_PATH : 1;
    crowd_vec2* corners = malloc(sizeof *corners * (size_t)paths * TOWN_CORNERS);
    crowd_path_id* ids = malloc(sizeof *ids * (size_t)paths);
    if (!corners || !ids) st = CROWD_ERR_OUT_OF_MEMORY;
    for (int p = 0; p < paths && st == CROWD_OK; ++p) {
        town_loop(&rng, m, corners + (size_t)p * TOWN_CORNERS);
        st = crowd_path_create(w, corners + (size_t)p * TOWN_CORNERS, TOWN_CORNERS, &ids[p]);
    }
    const crowd_agent_def proto = crowd_agent_def_default();
    // Half the street's width, less the agent's radius and a margin, is free of every block.
    const float lane = (TOWN_PITCH - scene_town_block()) * 0.5f - proto.radius - 0.2f;
    for (int i = 0; i < n && st == CROWD_OK; ++i) {
        const int p = i % paths;
        const bool reverse = p % 2 == 1;
        const crowd_vec2* c = corners + (size_t)p * TOWN_CORNERS;
        const int side = (int)(scene_rng_next(&rng) % TOWN_CORNERS);
        const crowd_vec2 a = c[side], b = c[(side + 1) % TOWN_CORNERS];
        const float t = scene_rng_float(&rng, 0.0f, 1.0f);
        const float off = scene_rng_float(&rng, -lane, lane);
        crowd_agent_def ad = proto;
        // Sides run along x or along y; the offset is across the street.
        ad.position = (crowd_vec2){a.x + (b.x - a.x) * t + (a.x == b.x ? off : 0.0f),
                                   a.y + (b.y - a.y) * t + (a.y == b.y ? off : 0.0f)};
        ad.max_speed = scene_rng_float(&rng, 1.2f, 1.6f);
        crowd_agent_id id;
        st = crowd_agent_add(w, &ad, &id);
        if (st != CROWD_OK) break;
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = ids[p];
        f.kind = CROWD_PATH_WAYPOINTS;
        f.mode = CROWD_PATH_LOOP;
        f.arrive_radius = 3.0f;
        f.reverse = reverse;
        f.start_index = reverse ? side : (side + 1) % TOWN_CORNERS;
        // The paths run along the streets, so no leg needs routing around a block: straight legs
        // keep the walled town the walls' benchmark it was (bench/bench_nav.cc routes it).
        f.route = CROWD_ROUTE_STRAIGHT;
        st = crowd_agent_set_path(w, id, &f);
    }
    free(corners);
    free(ids);
    return st;
}
