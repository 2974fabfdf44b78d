// The path behaviors as pure functions: thin checked wrappers over the math the engine pass uses.
#include "behaviors/path/path_internal.h"

crowd_vec2 crowd_path_project(crowd_vec2 p, crowd_vec2 a, crowd_vec2 b, float* dist) {
    const cs_path_seg s = cs_path_make_seg(a, b);
    float d;
    const crowd_vec2 proj = cs_path_project_seg(&s, p, &d);
    if (dist) *dist = d;
    return proj;
}

int crowd_path_segment_count(int count, crowd_path_mode mode) {
    if (count < 2) return 0;
    return mode == CROWD_PATH_LOOP ? count : count - 1;
}

int crowd_path_closest_segment(const crowd_vec2* points, int count, crowd_path_mode mode,
                               crowd_vec2 p, float* dist) {
    const int segs = crowd_path_segment_count(count, mode);
    if (!points || segs == 0) return -1;
    int best = 0;
    float best_d = INFINITY;
    for (int k = 0; k < segs; ++k) {
        float d;
        crowd_path_project(p, points[k], points[k + 1 == count ? 0 : k + 1], &d);
        if (d < best_d) {
            best_d = d;
            best = k;
        }
    }
    if (dist) *dist = best_d;
    return best;
}

crowd_path_cursor crowd_path_cursor_start(int count, const crowd_path_follow_def* def) {
    if (!def) return (crowd_path_cursor){.state = CROWD_PATH_STATE_NONE, .segment = -1};
    crowd_path_cursor c = {.state = CROWD_PATH_STATE_FOLLOWING,
                           .index = def->start_index,
                           .direction = def->reverse ? -1 : 1,
                           .segment = -1};
    if (def->kind == CROWD_PATH_TUBE && count >= 2) {
        const int segs = crowd_path_segment_count(count, def->mode);
        int k = c.direction > 0 ? c.index : c.index - 1;
        if (def->mode == CROWD_PATH_LOOP)
            k = (k + segs) % segs;
        else
            k = k < 0 ? 0 : (k >= segs ? segs - 1 : k);
        c.segment = k;
    }
    return c;
}

static bool usable(const crowd_vec2* points, int count, const crowd_path_follow_def* def,
                   const crowd_path_cursor* c) {
    return points && def && c && count >= 2 && c->index >= 0 && c->index < count &&
           (c->direction == 1 || c->direction == -1) && (unsigned)def->mode < CROWD_PATH_MODE_COUNT;
}

crowd_vec2 crowd_path_waypoint_step(const crowd_vec2* points, int count,
                                    const crowd_path_follow_def* def, crowd_path_cursor* cursor,
                                    crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                    float max_force) {
    if (!usable(points, count, def, cursor)) return (crowd_vec2){0.0f, 0.0f};
    return cs_path_waypoint_inline(points, count, def, cursor, pos, vel, max_speed, max_force, NULL,
                                   NULL);
}

crowd_vec2 crowd_path_tube_step(const crowd_vec2* points, int count,
                                const crowd_path_follow_def* def, crowd_path_cursor* cursor,
                                int segment, crowd_vec2 pos, crowd_vec2 vel, float max_speed,
                                float max_force) {
    if (!usable(points, count, def, cursor)) return (crowd_vec2){0.0f, 0.0f};
    // A cursor FINISHED before the call never uses the segment, whatever its value.
    const bool finished =
        def->mode == CROWD_PATH_ONE_SHOT && cursor->state == CROWD_PATH_STATE_FINISHED;
    if (finished) segment = 0;
    if (segment < 0 || segment >= crowd_path_segment_count(count, def->mode))
        return (crowd_vec2){0.0f, 0.0f};
    // The engine keeps segments precomputed; the one used is built on the spot here.
    const crowd_vec2 b = points[segment + 1 == count ? 0 : segment + 1];
    const cs_path_seg seg = cs_path_make_seg(points[segment], b);
    const crowd_vec2 predicted = {pos.x + vel.x * def->predict_ahead,
                                  pos.y + vel.y * def->predict_ahead};
    float dist;
    const crowd_vec2 proj = cs_path_project_seg(&seg, predicted, &dist);
    return cs_path_tube_inline(points, count, proj, dist, def, cursor, segment, pos, vel, max_speed,
                               max_force);
}
