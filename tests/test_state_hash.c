// The state hash covers every behavior's state: one field of each record kind, changed by one
// unit in the last place (or by one), changes the hash, and changing it back restores it. The
// determinism checks (test_determinism, tools/test.sh) compare this hash, so they see those
// records too.
#include <criterion/criterion.h>
#include <math.h>

#include "behaviors/follow/follow_internal.h"
#include "behaviors/goal/goal_internal.h"
#include "behaviors/path/path_internal.h"
#include "behaviors/queue/queue_internal.h"
#include "crowd/crowd.h"
#include "world_helpers.h"

typedef struct scene {
    crowd_world* w;
    crowd_agent_id goal, queue, path, leader, follower;
} scene;

// One agent per behavior, stepped a few times so every record holds values of its own.
static scene build(void) {
    scene s;
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 5;
    cr_assert_eq(crowd_world_create(&wd, &s.w), CROWD_OK);
    crowd_world* w = s.w;

    s.goal = add_at(w, 0, 0);
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = (crowd_vec2){20, 3};
    cr_assert_eq(crowd_agent_set_goal(w, s.goal, &g), CROWD_OK);

    s.queue = add_at(w, 0, 10);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){30, 10};
    cr_assert_eq(crowd_agent_set_queue(w, s.queue, &q), CROWD_OK);

    const crowd_vec2 pts[] = {{0, 20}, {10, 20}, {10, 30}, {0, 30}};
    crowd_path_id p;
    cr_assert_eq(crowd_path_create(w, pts, 4, &p), CROWD_OK);
    s.path = add_at(w, 1, 21);
    crowd_path_follow_def pd = crowd_path_follow_def_default();
    pd.path = p;
    pd.kind = CROWD_PATH_TUBE;
    cr_assert_eq(crowd_agent_set_path(w, s.path, &pd), CROWD_OK);

    s.leader = add_at(w, 0, -10);
    cr_assert_eq(crowd_agent_set_goal(w, s.leader,
                                      &(crowd_goal){.mode = CROWD_GOAL_SEEK,
                                                    .target = {40, -10},
                                                    .slow_radius = 1.0f,
                                                    .weight = 1.0f}),
                 CROWD_OK);
    crowd_formation_def fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_LINE;
    cr_assert_eq(crowd_leader_set_formation(w, s.leader, &fd), CROWD_OK);
    crowd_follow_def f = crowd_follow_def_default();
    f.target = CROWD_FOLLOW_SLOT;
    s.follower = add_at(w, -2, -10);
    cr_assert_eq(crowd_agent_follow(w, s.follower, s.leader, &f), CROWD_OK);
    cr_assert_eq(crowd_agent_follow(w, add_at(w, -2, -12), s.leader, &f), CROWD_OK);

    for (int t = 0; t < 5; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    return s;
}

static uint32_t idx(crowd_agent_id id) {
    return id.index1 - 1;
}

static float up(float v) {
    return nextafterf(v, INFINITY);
}

// Applies `change`, checks the hash moved, undoes it with `undo`, checks the hash is back.
#define CHECK_FIELD(field, change, undo)                                                           \
    do {                                                                                           \
        const uint64_t before = crowd_world_state_hash(s.w);                                       \
        const __typeof__(field) old = (field);                                                     \
        (void)old;                                                                                 \
        change;                                                                                    \
        cr_assert_neq(crowd_world_state_hash(s.w), before, "%s is not hashed", #field);            \
        undo;                                                                                      \
        cr_assert_eq(crowd_world_state_hash(s.w), before, "%s", #field);                           \
    } while (0)

Test(state_hash, covers_every_record_kind) {
    scene s = build();
    // The same build hashes the same: only the change below can move it.
    scene t = build();
    cr_assert_eq(crowd_world_state_hash(s.w), crowd_world_state_hash(t.w));
    crowd_world_destroy(t.w);

    // The goal's target is its hot column (behaviors/goal/goal_internal.h).
    float* gx = &cs_hot_f32(s.w, CS_HOT_GOAL_X)[s.w->slot_of[idx(s.goal)]];
    CHECK_FIELD(*gx, *gx = up(old), *gx = old);

    // The queue's settings are its profile, its goal point hot columns, and the record holds
    // whether its STOP arrival was reported (behaviors/queue/queue_internal.h).
    cs_queue_rec* q = cs_queue_of(s.w, idx(s.queue));
    cr_assert_not_null(q);
    const int qs = s.w->slot_of[idx(s.queue)];
    cs_queue_profile* qp = (cs_queue_profile*)cs_queue_profile_at(s.w, qs);
    CHECK_FIELD(qp->def.cone_length, qp->def.cone_length = up(old), qp->def.cone_length = old);
    CHECK_FIELD(qp->def.cone_width, qp->def.cone_width = up(old), qp->def.cone_width = old);
    float* qx = &cs_hot_f32(s.w, CS_HOT_QUEUE_X)[qs];
    CHECK_FIELD(*qx, *qx = up(old), *qx = old);
    CHECK_FIELD(q->done, q->done = !old, q->done = old);

    // The path cursor is in hot columns (behaviors/path/path_internal.h).
    const int ps = s.w->slot_of[idx(s.path)];
    cr_assert_not_null(cs_path_profile_at(s.w, ps));
    uint32_t* pi = &cs_hot_u32(s.w, CS_HOT_PATH_INDEX)[ps];
    CHECK_FIELD(*pi, *pi = old + 1, *pi = old);
    uint32_t* pg = &cs_hot_u32(s.w, CS_HOT_PATH_SEGMENT)[ps];
    CHECK_FIELD(*pg, *pg = old + 1, *pg = old);

    cs_follower* f = cs_follower_of(s.w, idx(s.follower));
    cr_assert_not_null(f);
    cr_assert_geq(f->slot_index, 0, "the follower holds a slot");
    CHECK_FIELD(f->slot_index, f->slot_index = old ^ 1, f->slot_index = old);
    CHECK_FIELD(f->slot.y, f->slot.y = up(old), f->slot.y = old);
    CHECK_FIELD(f->behind_dist, f->behind_dist = up(old), f->behind_dist = old);

    cs_leader* l = cs_leader_of(s.w, idx(s.leader));
    cr_assert_not_null(l);
    CHECK_FIELD(l->spacing, l->spacing = up(old), l->spacing = old);
    CHECK_FIELD(l->shape, l->shape = (uint8_t)(old + 1), l->shape = old);
    CHECK_FIELD(l->distance, l->distance = up(old), l->distance = old);

    // And through the public API: a new cone on the queue, a new formation on the leader.
    const uint64_t h = crowd_world_state_hash(s.w);
    crowd_queue_def qd;
    cr_assert_eq(crowd_agent_get_queue(s.w, s.queue, &qd), CROWD_OK);
    qd.cone_length += 1.0f;
    cr_assert_eq(crowd_agent_set_queue(s.w, s.queue, &qd), CROWD_OK);
    const uint64_t h2 = crowd_world_state_hash(s.w);
    cr_assert_neq(h2, h);
    crowd_formation_def fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_WEDGE;
    cr_assert_eq(crowd_leader_set_formation(s.w, s.leader, &fd), CROWD_OK);
    cr_assert_neq(crowd_world_state_hash(s.w), h2);
    crowd_world_destroy(s.w);
}
