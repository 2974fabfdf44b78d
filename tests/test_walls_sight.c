// Line of sight: separation and the queue's cone ignore an agent on the other side of a wall.
// Each case compares the agent's step with the neighbor behind the wall against the same step with
// that neighbor absent (bit for bit: a lone contribution is summed exactly in any lane) and
// against the step without the wall (where the neighbor does count).
#include "walls_helpers.h"

typedef struct scene {
    bool wall, other;
    bool queue;
    // Two short walls by the centre of A's cell and within its separation disc, hiding no one:
    // they are the cell's key segments (cs_wall_sum), the wall that hides B is not.
    bool decoys;
} scene;

// Agent A at the origin; B behind the wall y = 0.35 (or where the wall would be); C on A's side.
// Returns A's velocity after one step.
static crowd_vec2 step_a(scene sc, int threads) {
    crowd_world* w = walls_world_straight(threads, 0.1f);
    if (sc.wall) {
        const crowd_vec2 wall[2] = {{-6, 0.35f}, {6, 0.35f}};
        wall_add(w, CROWD_OBSTACLE_WALL, wall, 2);
        if (sc.decoys) {
            const crowd_vec2 d0[2] = {{1.1f, 1.2f}, {1.4f, 1.2f}},
                             d1[2] = {{1.1f, 1.3f}, {1.4f, 1.3f}};
            wall_add(w, CROWD_OBSTACLE_WALL, d0, 2);
            wall_add(w, CROWD_OBSTACLE_WALL, d1, 2);
        }
    }
    crowd_agent_def a = crowd_agent_def_default();
    a.velocity = (crowd_vec2){1.0f, 0.0f};
    crowd_agent_id ida, id;
    cr_assert_eq(crowd_agent_add(w, &a, &ida), CROWD_OK);
    if (sc.queue) {
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){20.0f, 0.0f};
        q.cone_width = 1.0f;
        q.form = CROWD_QUEUE_LITERAL; // the spec's cone, which brakes for any agent in it
        cr_assert_eq(crowd_agent_set_queue(w, ida, &q), CROWD_OK);
    }
    crowd_agent_def c = crowd_agent_def_default();
    c.position = (crowd_vec2){-0.5f, -0.7f}; // A's side, within separation range
    cr_assert_eq(crowd_agent_add(w, &c, &id), CROWD_OK);
    if (sc.other) {
        crowd_agent_def b = crowd_agent_def_default();
        b.position = (crowd_vec2){sc.queue ? 1.5f : 0.3f, 0.8f}; // within A's cone / separation
        cr_assert_eq(crowd_agent_add(w, &b, &id), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_vec2 v;
    cr_assert_eq(crowd_agent_get_velocity(w, ida, &v), CROWD_OK);
    crowd_world_destroy(w);
    return v;
}

static void check(bool queue, bool decoys) {
    for (int threads = 1; threads <= 2; ++threads) {
        const crowd_vec2 hidden = step_a((scene){true, true, queue, decoys}, threads);
        const crowd_vec2 alone = step_a((scene){true, false, queue, decoys}, threads);
        const crowd_vec2 seen = step_a((scene){false, true, queue, false}, threads);
        const crowd_vec2 open = step_a((scene){false, false, queue, false}, threads);
        cr_assert(hidden.x == alone.x && hidden.y == alone.y, "the hidden neighbor counted");
        // Without the wall the neighbor counts, and the wall itself changes nothing else.
        cr_assert(seen.x != open.x || seen.y != open.y, "the visible neighbor did not count");
        cr_assert(alone.x == open.x && alone.y == open.y);
    }
}

Test(walls_sight, separation_ignores_an_agent_behind_a_wall) {
    check(false, false);
}

// The same behind a wall that is not one of its cell's two key segments: a separation agent near
// a wall tests line of sight against the keys alone only when no other wall is within its
// separation disc (cs_sight_cell), else against the whole list.
Test(walls_sight, separation_ignores_an_agent_behind_a_wall_that_is_not_a_key) {
    check(false, true);
}

Test(walls_sight, the_queue_does_not_brake_for_an_agent_behind_a_wall) {
    check(true, false);
}
