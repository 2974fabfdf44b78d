// The public API end to end on a small world: create, add, step, read back, destroy.
#include <criterion/criterion.h>

#include "crowd/crowd.h"

Test(smoke, two_agents_push_apart) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_agent_def a = crowd_agent_def_default();
    crowd_agent_id ids[2];
    a.position = (crowd_vec2){0.0f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &a, &ids[0]), CROWD_OK);
    a.position = (crowd_vec2){0.5f, 0.0f};
    cr_assert_eq(crowd_agent_add(w, &a, &ids[1]), CROWD_OK);
    for (int t = 0; t < 10; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    crowd_vec2 p0, p1;
    cr_assert_eq(crowd_agent_get_position(w, ids[0], &p0), CROWD_OK);
    cr_assert_eq(crowd_agent_get_position(w, ids[1], &p1), CROWD_OK);
    cr_assert_lt(p0.x, 0.0f, "left agent moved left: %f", (double)p0.x);
    cr_assert_gt(p1.x, 0.5f, "right agent moved right: %f", (double)p1.x);
    cr_assert_float_eq(p0.y, 0.0f, 1e-6f);
    crowd_world_destroy(w);
}
