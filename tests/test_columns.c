// crowd_world_columns: the zero-copy view of the current columns, its epoch, the handle of a row,
// and crowd_agent_check (the add's checks without the add).
#include <criterion/criterion.h>

#include "crowd/crowd.h"
#include "world_helpers.h"

Test(columns, null_arguments) {
    crowd_world* w = world_with(1);
    crowd_columns_view v;
    crowd_agent_id id;
    cr_assert_eq(crowd_world_columns(NULL, &v), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_columns(w, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_columns_handle(NULL, 0, &id), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_columns_handle(w, 0, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_columns_epoch(NULL), 0);
    crowd_agent_def a = crowd_agent_def_default();
    cr_assert_eq(crowd_agent_check(NULL, &a, 0), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_check(w, NULL, 0), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_check(w, &a, -1), CROWD_ERR_BAD_COUNT);
    crowd_world_destroy(w);
}

// Every row of the view is the agent its id names, with the state the per-agent getters give.
static void expect_rows(const crowd_world* w) {
    crowd_columns_view v;
    cr_assert_eq(crowd_world_columns(w, &v), CROWD_OK);
    cr_assert_eq(v.count, crowd_world_agent_count(w));
    for (int r = 0; r < v.count; ++r) {
        crowd_agent_id id;
        cr_assert_eq(crowd_world_columns_handle(w, v.id[r], &id), CROWD_OK);
        cr_assert_eq(id.index1, v.id[r] + 1);
        crowd_vec2 p, vel, h;
        cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
        cr_assert_eq(crowd_agent_get_velocity(w, id, &vel), CROWD_OK);
        cr_assert_eq(crowd_agent_get_heading(w, id, &h), CROWD_OK);
        cr_assert(p.x == v.x[r] && p.y == v.y[r]);
        cr_assert(vel.x == v.vx[r] && vel.y == v.vy[r]);
        cr_assert(h.x == v.hx[r] && h.y == v.hy[r]);
    }
}

Test(columns, rows_and_epoch) {
    crowd_world* w = world_with(2);
    crowd_columns_view v;
    cr_assert_eq(crowd_world_columns(w, &v), CROWD_OK);
    cr_assert_eq(v.count, 0);
    uint64_t epoch = v.epoch;

    uint64_t rng = 7;
    crowd_agent_id ids[300];
    for (int i = 0; i < 300; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){frand(&rng, -20, 20), frand(&rng, -20, 20)};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){frand(&rng, -20, 20), frand(&rng, -20, 20)};
        cr_assert_eq(crowd_agent_add(w, &a, &ids[i]), CROWD_OK);
        const uint64_t e = crowd_world_columns_epoch(w);
        cr_assert_neq(e, epoch, "an add changes the epoch");
        epoch = e;
    }
    expect_rows(w);

    // A step moves the rows (cell order) and rotates the buffers: a new epoch.
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_neq(crowd_world_columns_epoch(w), epoch);
    epoch = crowd_world_columns_epoch(w);
    expect_rows(w);

    // A position set writes into the same buffers: the epoch stays, the view shows it.
    cr_assert_eq(crowd_world_columns(w, &v), CROWD_OK);
    cr_assert_eq(crowd_agent_set_position(w, ids[5], (crowd_vec2){1.5f, -2.5f}), CROWD_OK);
    cr_assert_eq(crowd_world_columns_epoch(w), epoch);
    bool seen = false;
    for (int r = 0; r < v.count; ++r)
        if (v.id[r] == ids[5].index1 - 1) seen = v.x[r] == 1.5f && v.y[r] == -2.5f;
    cr_assert(seen);

    // A removal fills its row from the end: a new epoch, and the removed index is stale.
    cr_assert_eq(crowd_agent_remove(w, ids[7]), CROWD_OK);
    cr_assert_neq(crowd_world_columns_epoch(w), epoch);
    crowd_agent_id id;
    cr_assert_eq(crowd_world_columns_handle(w, ids[7].index1 - 1, &id), CROWD_ERR_STALE_HANDLE);
    cr_assert(crowd_agent_id_is_null(id));
    cr_assert_eq(crowd_world_columns_handle(w, 100000, &id), CROWD_ERR_FOREIGN_HANDLE);
    expect_rows(w);

    // Growth moves the buffers.
    epoch = crowd_world_columns_epoch(w);
    cr_assert_eq(crowd_world_reserve(w, 100000), CROWD_OK);
    cr_assert_neq(crowd_world_columns_epoch(w), epoch);
    expect_rows(w);
    crowd_world_destroy(w);
}

Test(columns, check_agrees_with_add) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.max_agents = 3;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    const crowd_vec2 block[] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}};
    crowd_obstacle_id ob;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, block, 4, &ob), CROWD_OK);

    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){10, 10};
    crowd_agent_def bad = a;
    bad.radius = -1.0f;
    crowd_agent_def inside = a;
    inside.position = (crowd_vec2){2, 2};
    cr_assert_eq(crowd_agent_check(w, &a, 0), CROWD_OK);
    cr_assert_eq(crowd_agent_check(w, &bad, 0), CROWD_ERR_BAD_RADIUS);
    cr_assert_eq(crowd_agent_check(w, &inside, 0), CROWD_ERR_INSIDE_OBSTACLE);
    // max_agents 3: the third of a batch fits, a fourth does not.
    cr_assert_eq(crowd_agent_check(w, &a, 2), CROWD_OK);
    cr_assert_eq(crowd_agent_check(w, &a, 3), CROWD_ERR_CAPACITY);

    const uint64_t hash = crowd_world_state_hash(w);
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &bad, &id), CROWD_ERR_BAD_RADIUS);
    cr_assert_eq(crowd_agent_add(w, &inside, &id), CROWD_ERR_INSIDE_OBSTACLE);
    cr_assert_eq(crowd_world_state_hash(w), hash);
    for (int i = 0; i < 3; ++i) {
        cr_assert_eq(crowd_agent_check(w, &a, 0), CROWD_OK);
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    cr_assert_eq(crowd_agent_check(w, &a, 0), CROWD_ERR_CAPACITY);
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_ERR_CAPACITY);
    // A removal frees an index for reuse: one more fits again.
    cr_assert_eq(crowd_agent_remove(w, id), CROWD_OK);
    cr_assert_eq(crowd_agent_check(w, &a, 0), CROWD_OK);
    cr_assert_eq(crowd_agent_check(w, &a, 1), CROWD_ERR_CAPACITY);
    crowd_world_destroy(w);
}
