// Groups as data: chains of leaders, leader removal (fallback or stop), cycles, handle reuse, input
// validation, and bit-identical results for any thread count.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "groups.h"
#include "world_helpers.h"

static float len(crowd_vec2 a) {
    return sqrtf(a.x * a.x + a.y * a.y);
}
static crowd_vec2 sub(crowd_vec2 a, crowd_vec2 b) {
    return (crowd_vec2){a.x - b.x, a.y - b.y};
}

static void follow(crowd_world* w, crowd_agent_id f, crowd_agent_id l, crowd_follow_target t) {
    crowd_follow_def d = crowd_follow_def_default();
    d.target = t;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_OK);
}

static crowd_follow_info info_of(crowd_world* w, crowd_agent_id id) {
    crowd_follow_info info;
    cr_assert_eq(crowd_agent_get_follow(w, id, &info), CROWD_OK);
    return info;
}

// Field by field: the structs have padding.
static bool def_equal(crowd_follow_def a, crowd_follow_def b) {
    return a.behind_dist == b.behind_dist && a.ahead_dist == b.ahead_dist &&
           a.ahead_radius == b.ahead_radius && a.slow_radius == b.slow_radius &&
           a.evade_weight == b.evade_weight && a.separation_weight == b.separation_weight &&
           a.weight == b.weight && a.predict == b.predict && a.target == b.target;
}

static bool vec_equal(crowd_vec2 a, crowd_vec2 b) {
    return a.x == b.x && a.y == b.y;
}

static bool info_equal(crowd_follow_info a, crowd_follow_info b) {
    return a.state == b.state && crowd_agent_id_equal(a.leader, b.leader) &&
           def_equal(a.def, b.def) && a.slot == b.slot && a.slot_pending == b.slot_pending &&
           vec_equal(a.slot_offset, b.slot_offset) && vec_equal(a.target, b.target);
}

static bool leader_info_equal(crowd_leader_info a, crowd_leader_info b) {
    return a.followers == b.followers && a.slot_followers == b.slot_followers &&
           crowd_agent_id_equal(a.fallback, b.fallback) && a.shape == b.shape &&
           a.spacing == b.spacing && a.distance == b.distance && a.columns == b.columns &&
           a.offset_count == b.offset_count;
}

static void steps(crowd_world* w, int n) {
    for (int t = 0; t < n; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
}

Test(leader_groups, chain_and_cycles) {
    crowd_world* w = world_with(1);
    const crowd_agent_id a = add_at(w, 0, 0), b = add_at(w, -4, 0), c = add_at(w, -8, 0);
    follow(w, b, a, CROWD_FOLLOW_BEHIND);
    follow(w, c, b, CROWD_FOLLOW_BEHIND);
    const uint64_t h = crowd_world_state_hash(w);
    crowd_follow_def d = crowd_follow_def_default();
    cr_assert_eq(crowd_agent_follow(w, a, a, &d), CROWD_ERR_FOLLOW_CYCLE);
    cr_assert_eq(crowd_agent_follow(w, a, b, &d), CROWD_ERR_FOLLOW_CYCLE);
    cr_assert_eq(crowd_agent_follow(w, a, c, &d), CROWD_ERR_FOLLOW_CYCLE);
    cr_assert_eq(crowd_leader_set_fallback(w, a, a), CROWD_ERR_FOLLOW_CYCLE);
    cr_assert_eq(crowd_world_state_hash(w), h, "refused calls change nothing");
    cr_assert_eq(info_of(w, a).state, CROWD_FOLLOW_NONE);
    cr_assert(crowd_agent_id_equal(info_of(w, c).leader, b));

    // The head walks east: the chain follows, each behind the one it follows.
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = (crowd_vec2){1000, 0};
    cr_assert_eq(crowd_agent_set_goal(w, a, &g), CROWD_OK);
    crowd_agent_set_limits(w, a, 0.6f, 3.0f);
    steps(w, 300);
    crowd_vec2 pa, pb, pc;
    crowd_agent_get_position(w, a, &pa);
    crowd_agent_get_position(w, b, &pb);
    crowd_agent_get_position(w, c, &pc);
    cr_assert_gt(pa.x, 15.0f);
    cr_assert(pc.x < pb.x && pb.x < pa.x);
    cr_assert_lt(pa.x - pb.x, 3.0f);
    cr_assert_lt(pb.x - pc.x, 3.0f);
    crowd_world_destroy(w);
}

// A leader with slot followers and a plain follower, removed without a fallback: every follower
// stops at the target it had, no follower refers to the removed agent, and a new agent that reuses
// its index leads only its own group.
Test(leader_groups, removed_leader_without_fallback_stops_its_followers) {
    crowd_world* w = world_with(1);
    const crowd_agent_id l = add_at(w, 0, 0);
    crowd_formation_def fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_LINE;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_OK);
    crowd_agent_id f[4];
    for (int i = 0; i < 4; ++i) {
        f[i] = add_at(w, -3, 3.0f - 2.0f * (float)i);
        crowd_follow_def d = crowd_follow_def_default();
        d.target = i < 3 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
        d.behind_dist = 5.0f; // clear of the line's middle slot
        cr_assert_eq(crowd_agent_follow(w, f[i], l, &d), CROWD_OK);
    }
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = (crowd_vec2){0, 1000};
    cr_assert_eq(crowd_agent_set_goal(w, l, &g), CROWD_OK);
    steps(w, 60);
    crowd_vec2 before[4];
    for (int i = 0; i < 4; ++i) before[i] = info_of(w, f[i]).target;
    cr_assert_eq(crowd_agent_remove(w, l), CROWD_OK);
    for (int i = 0; i < 4; ++i) {
        const crowd_follow_info fi = info_of(w, f[i]);
        cr_assert_eq(fi.state, CROWD_FOLLOW_STOPPED);
        cr_assert(crowd_agent_id_is_null(fi.leader));
        cr_assert_eq(fi.slot, -1);
        cr_assert(vec_equal(fi.target, before[i]), "the target it had");
    }
    // Index reuse: the next agent takes the removed leader's index and leads a new group.
    const crowd_agent_id nl = add_at(w, 50, 50), nf = add_at(w, 47, 50);
    cr_assert_eq(nl.index1, l.index1, "the index is reused");
    follow(w, nf, nl, CROWD_FOLLOW_BEHIND);
    crowd_leader_info li;
    cr_assert_eq(crowd_leader_get_info(w, nl, &li), CROWD_OK);
    cr_assert_eq(li.followers, 1);
    int count;
    crowd_agent_id ids[4];
    cr_assert_eq(crowd_leader_get_followers(w, nl, ids, 4, &count), CROWD_OK);
    cr_assert_eq(count, 1);
    cr_assert(crowd_agent_id_equal(ids[0], nf));
    steps(w, 300);
    // The slot followers had distinct targets and rest on them; the stopped ones are not pulled
    // toward the new agent.
    for (int i = 0; i < 3; ++i) {
        crowd_vec2 p, v;
        crowd_agent_get_position(w, f[i], &p);
        crowd_agent_get_velocity(w, f[i], &v);
        cr_assert_lt(len(sub(p, before[i])), 0.1f, "follower %d rests on its last target", i);
        cr_assert_lt(len(v), 0.02f);
    }
    cr_assert_eq(info_of(w, f[0]).state, CROWD_FOLLOW_STOPPED);
    cr_assert_eq(crowd_agent_unfollow(w, f[0]), CROWD_OK);
    cr_assert_eq(info_of(w, f[0]).state, CROWD_FOLLOW_NONE);
    crowd_world_destroy(w);
}

Test(leader_groups, removed_leader_hands_its_followers_to_the_fallback) {
    crowd_world* w = world_with(1);
    const crowd_agent_id a = add_at(w, 0, 0), l = add_at(w, 20, 0);
    crowd_agent_id f[3];
    for (int i = 0; i < 3; ++i) {
        f[i] = add_at(w, 17, (float)i - 1.0f);
        follow(w, f[i], l, i == 0 ? CROWD_FOLLOW_BEHIND : CROWD_FOLLOW_SLOT);
    }
    const crowd_agent_id sub_f = add_at(w, 14, 0); // follows f[1]: a chain under the group
    follow(w, sub_f, f[1], CROWD_FOLLOW_BEHIND);
    cr_assert_eq(crowd_leader_set_fallback(w, l, a), CROWD_OK);
    crowd_leader_info li;
    cr_assert_eq(crowd_leader_get_info(w, l, &li), CROWD_OK);
    cr_assert(crowd_agent_id_equal(li.fallback, a));
    steps(w, 5);
    const crowd_follow_def before = info_of(w, f[1]).def;
    cr_assert_eq(crowd_agent_remove(w, l), CROWD_OK);
    int count;
    crowd_agent_id ids[8];
    cr_assert_eq(crowd_leader_get_followers(w, a, ids, 8, &count), CROWD_OK);
    cr_assert_eq(count, 3, "in the order they joined the removed leader");
    for (int i = 0; i < 3; ++i) {
        cr_assert(crowd_agent_id_equal(ids[i], f[i]));
        const crowd_follow_info fi = info_of(w, f[i]);
        cr_assert_eq(fi.state, CROWD_FOLLOW_ACTIVE);
        cr_assert(crowd_agent_id_equal(fi.leader, a));
    }
    const crowd_follow_def after = info_of(w, f[1]).def;
    cr_assert(def_equal(after, before), "its def is kept");
    cr_assert(info_of(w, f[1]).slot_pending);
    cr_assert(crowd_agent_id_equal(info_of(w, sub_f).leader, f[1]), "chains below are kept");
    steps(w, 1);
    cr_assert_geq(info_of(w, f[1]).slot, 0);
    cr_assert_geq(info_of(w, f[2]).slot, 0);
    cr_assert_neq(info_of(w, f[1]).slot, info_of(w, f[2]).slot);
    cr_assert_eq(info_of(w, f[0]).slot, -1, "a behind-point follower holds no slot");
    // Removing a follower frees its slot.
    cr_assert_eq(crowd_agent_remove(w, f[2]), CROWD_OK);
    cr_assert_eq(crowd_leader_get_info(w, a, &li), CROWD_OK);
    cr_assert_eq(li.followers, 2);
    cr_assert_eq(li.slot_followers, 1);
    steps(w, 1);
    cr_assert_eq(info_of(w, f[1]).slot, 0);
    cr_assert_eq(crowd_leader_get_followers(w, a, ids, 1, &count), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(count, 2);
    crowd_world_destroy(w);
}

// The fallback is one of the leader's own followers (the lieutenant takes over): it stops where it
// was going, the others follow it. A follower below the fallback in a chain would close a loop and
// stops instead. A fallback that was removed meanwhile stops everyone.
Test(leader_groups, fallback_within_the_group_and_stale_fallback) {
    crowd_world* w = world_with(1);
    const crowd_agent_id l = add_at(w, 0, 0);
    const crowd_agent_id lt = add_at(w, -3, 1), x = add_at(w, -3, -1), y = add_at(w, -4, 0);
    follow(w, lt, l, CROWD_FOLLOW_BEHIND);
    follow(w, x, l, CROWD_FOLLOW_BEHIND);
    follow(w, y, l, CROWD_FOLLOW_BEHIND);
    const crowd_agent_id deep = add_at(w, -6, 0); // deep follows x; fallback deep would loop x
    follow(w, deep, x, CROWD_FOLLOW_BEHIND);
    cr_assert_eq(crowd_leader_set_fallback(w, l, lt), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, l), CROWD_OK);
    cr_assert_eq(info_of(w, lt).state, CROWD_FOLLOW_STOPPED);
    cr_assert(crowd_agent_id_equal(info_of(w, x).leader, lt));
    cr_assert(crowd_agent_id_equal(info_of(w, y).leader, lt));

    cr_assert_eq(crowd_leader_set_fallback(w, x, deep), CROWD_OK);
    const crowd_agent_id z = add_at(w, -8, 0);
    follow(w, z, x, CROWD_FOLLOW_BEHIND);
    cr_assert_eq(crowd_agent_remove(w, x), CROWD_OK);
    cr_assert_eq(info_of(w, deep).state, CROWD_FOLLOW_STOPPED, "the fallback itself");
    cr_assert(crowd_agent_id_equal(info_of(w, z).leader, deep));

    // deep's fallback is removed before deep is.
    const crowd_agent_id gone = add_at(w, 30, 30);
    cr_assert_eq(crowd_leader_set_fallback(w, deep, gone), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, gone), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, deep), CROWD_OK);
    cr_assert_eq(info_of(w, z).state, CROWD_FOLLOW_STOPPED);
    steps(w, 5);

    // A fallback below a follower in a chain: that follower would follow its own follower.
    const crowd_agent_id l2 = add_at(w, 40, 0), p = add_at(w, 37, 0), q = add_at(w, 34, 0);
    const crowd_agent_id r = add_at(w, 37, 2);
    follow(w, p, l2, CROWD_FOLLOW_BEHIND);
    follow(w, r, l2, CROWD_FOLLOW_BEHIND);
    follow(w, q, p, CROWD_FOLLOW_BEHIND);
    cr_assert_eq(crowd_leader_set_fallback(w, l2, q), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, l2), CROWD_OK);
    cr_assert_eq(info_of(w, p).state, CROWD_FOLLOW_STOPPED, "would have closed a loop");
    cr_assert(crowd_agent_id_equal(info_of(w, q).leader, p));
    cr_assert(crowd_agent_id_equal(info_of(w, r).leader, q));
    steps(w, 5);
    crowd_world_destroy(w);
}

Test(leader_groups, bad_input_is_refused_and_changes_nothing) {
    crowd_world* w = world_with(1);
    const crowd_agent_id l = add_at(w, 0, 0), f = add_at(w, -2, 0), gone = add_at(w, 5, 5);
    follow(w, f, l, CROWD_FOLLOW_SLOT);
    cr_assert_eq(crowd_agent_remove(w, gone), CROWD_OK);
    steps(w, 2);
    const uint64_t h = crowd_world_state_hash(w);
    const crowd_follow_info fi = info_of(w, f);
    crowd_leader_info li0;
    cr_assert_eq(crowd_leader_get_info(w, l, &li0), CROWD_OK);

    crowd_follow_def d = crowd_follow_def_default();
    cr_assert_eq(crowd_agent_follow(NULL, f, l, &d), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_follow(w, f, l, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_follow(w, f, gone, &d), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_follow(w, (crowd_agent_id){0}, l, &d), CROWD_ERR_NULL_HANDLE);
    d.slow_radius = 0.0f;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_ERR_BAD_RADIUS);
    d = crowd_follow_def_default();
    d.behind_dist = NAN;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_ERR_NOT_FINITE);
    d = crowd_follow_def_default();
    d.separation_weight = -1.0f;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_ERR_BAD_WEIGHT);
    d = crowd_follow_def_default();
    d.target = (crowd_follow_target)7;
    cr_assert_eq(crowd_agent_follow(w, f, l, &d), CROWD_ERR_INVALID_ENUM);

    crowd_formation_def fd = crowd_formation_def_default();
    cr_assert_eq(crowd_leader_set_formation(w, l, NULL), CROWD_ERR_NULL_ARGUMENT);
    fd.spacing = 0.0f;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_BAD_RADIUS);
    fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_SHAPE_COUNT;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_INVALID_ENUM);
    fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_BLOCK;
    fd.columns = 0;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_BAD_COUNT);
    fd = crowd_formation_def_default();
    fd.shape = CROWD_FORMATION_CUSTOM;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_NULL_ARGUMENT);
    const crowd_vec2 bad[2] = {{-2, 0}, {INFINITY, 0}};
    fd.offsets = bad;
    fd.offset_count = 0;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_BAD_COUNT);
    fd.offset_count = 2;
    cr_assert_eq(crowd_leader_set_formation(w, l, &fd), CROWD_ERR_NOT_FINITE);
    cr_assert_eq(crowd_leader_set_fallback(w, l, gone), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_get_follow(w, f, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_leader_get_info(w, gone, &li0), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_unfollow(w, gone), CROWD_ERR_STALE_HANDLE);

    cr_assert_eq(crowd_world_state_hash(w), h);
    const crowd_follow_info fi2 = info_of(w, f);
    cr_assert(info_equal(fi, fi2));
    crowd_leader_info li;
    cr_assert_eq(crowd_leader_get_info(w, l, &li), CROWD_OK);
    cr_assert(leader_info_equal(li, li0));
    cr_assert_str_neq(crowd_status_string(CROWD_ERR_FOLLOW_CYCLE),
                      crowd_status_string(CROWD_ERR_BAD_COUNT));
    crowd_world_destroy(w);
}

// ---- determinism
// ----------------------------------------------------------------------------------

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && strcmp(s, "small") == 0;
}

// Many groups with every shape and chains; between steps leaders are retargeted and removed (with
// and without fallbacks), followers leave, join other groups, switch between slot and behind
// point, and formations change. Returns the hash after every tick.
static void run_groups(int threads, uint64_t* hashes, int ticks) {
    scene_groups_def def = scene_groups_def_default();
    def.agents = small_scale() ? 2500 : 6000;
    def.groups = def.agents / 25;
    def.chain_every = 5;
    def.threads = threads;
    crowd_world* w;
    crowd_agent_id* leaders = malloc(sizeof *leaders * (size_t)def.groups);
    cr_assert_eq(scene_groups_create(&def, &w, leaders), CROWD_OK);
    scene_rng rng = {1234};
    const int n_all = def.agents + 1000;
    crowd_agent_id* all = malloc(sizeof *all * (size_t)n_all);
    for (int g = 0; g < def.groups; g += 3)
        cr_assert_eq(crowd_leader_set_fallback(w, leaders[g], leaders[(g + 7) % def.groups]),
                     CROWD_OK);
    for (int t = 0; t < ticks; ++t) {
        if (t % 20 == 10) {
            const int g = (int)(scene_rng_next(&rng) % (uint64_t)def.groups);
            // Removing a leader (maybe already removed: then the handle is stale).
            const crowd_status st = crowd_agent_remove(w, leaders[g]);
            cr_assert(st == CROWD_OK || st == CROWD_ERR_STALE_HANDLE);
            for (int k = 0; k < 5; ++k) {
                const int h = (int)(scene_rng_next(&rng) % (uint64_t)def.groups);
                if (crowd_agent_validate(w, leaders[h]) == CROWD_OK)
                    cr_assert_eq(scene_groups_retarget(w, &def, &rng, leaders[h]), CROWD_OK);
            }
        }
        if (t % 20 == 15) {
            int count;
            cr_assert_eq(crowd_world_get_agents(w, all, NULL, NULL, n_all, &count), CROWD_OK);
            for (int k = 0; k < 30; ++k) {
                const crowd_agent_id a = all[scene_rng_next(&rng) % (uint64_t)count];
                const crowd_agent_id l = leaders[scene_rng_next(&rng) % (uint64_t)def.groups];
                crowd_follow_def fd = crowd_follow_def_default();
                fd.target = k % 2 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND;
                fd.predict = k % 3 == 0;
                crowd_status st;
                switch (k % 5) {
                case 0:
                    st = crowd_agent_unfollow(w, a);
                    break;
                case 1:
                    st = crowd_agent_remove(w, a);
                    break;
                case 4: {
                    crowd_formation_def f = crowd_formation_def_default();
                    f.shape = (crowd_formation_shape)(scene_rng_next(&rng) % 5);
                    st = crowd_leader_set_formation(w, l, &f);
                    break;
                }
                default:
                    st = crowd_agent_follow(w, a, l, &fd);
                    break;
                }
                cr_assert(st == CROWD_OK || st == CROWD_ERR_STALE_HANDLE ||
                              st == CROWD_ERR_FOLLOW_CYCLE,
                          "%s", crowd_status_string(st));
            }
            for (int k = 0; k < 10; ++k) { // newcomers join groups
                crowd_vec2 p;
                const crowd_agent_id l = leaders[scene_rng_next(&rng) % (uint64_t)def.groups];
                if (crowd_agent_get_position(w, l, &p) != CROWD_OK) continue;
                const crowd_agent_id f = add_at(w, p.x - 5.0f, p.y + (float)k - 5.0f);
                follow(w, f, l, k % 2 ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND);
            }
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        hashes[t] = crowd_world_state_hash(w);
    }
    free(all);
    free(leaders);
    crowd_world_destroy(w);
}

Test(leader_groups, bit_identical_for_1_2_3_8_threads, .timeout = 120) {
    const int ticks = small_scale() ? 60 : 120;
    uint64_t* ref = malloc(sizeof *ref * (size_t)ticks);
    uint64_t* got = malloc(sizeof *got * (size_t)ticks);
    run_groups(1, ref, ticks);
    const int threads[] = {2, 3, 8};
    for (int k = 0; k < 3; ++k) {
        run_groups(threads[k], got, ticks);
        for (int t = 0; t < ticks; ++t)
            cr_assert_eq(got[t], ref[t], "%d threads differ from 1 at tick %d", threads[k], t);
    }
    free(ref);
    free(got);
}
