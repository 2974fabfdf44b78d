// The queue API: defaults, validation (every bad input its own status, nothing changed), reading
// the queue back, clearing it, and the three on-arrival policies.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "crowd/crowd.h"

static crowd_world* make_world(uint64_t seed) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.seed = seed;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_agent_id add_agent(crowd_world* w, float x, float y, uint64_t user) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    a.user_data = user;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    return id;
}

Test(queue_api, defaults) {
    crowd_queue_def d = crowd_queue_def_default();
    cr_assert_eq(d.cone_length, 2.5f);
    cr_assert_eq(d.cone_width, 0.6f);
    cr_assert_eq(d.slow_radius, 1.0f);
    cr_assert_eq(d.weight, 1.0f);
    cr_assert_eq(d.arrival_radius, 0.5f);
    cr_assert_eq(d.on_arrival, CROWD_QUEUE_STOP);
    cr_assert_str_eq(crowd_phase_name(CROWD_PHASE_ARRIVAL), "arrival");
    cr_assert_eq(crowd_world_def_default().seed, 1u);
}

Test(queue_api, set_get_clear_round_trip) {
    crowd_world* w = make_world(1);
    crowd_agent_id id = add_agent(w, 0.0f, 0.0f, 7);
    crowd_queue_def out;
    cr_assert_eq(crowd_agent_get_queue(w, id, &out), CROWD_ERR_NOT_QUEUEING);

    crowd_queue_def d = crowd_queue_def_default();
    d.cone_length = 4.0f;
    d.cone_width = 0.25f;
    d.goal = (crowd_vec2){3.0f, -2.0f};
    d.slow_radius = 2.0f;
    d.weight = 0.5f;
    d.arrival_radius = 0.75f;
    d.on_arrival = CROWD_QUEUE_RESPAWN;
    d.start_min = (crowd_vec2){-5.0f, -1.0f};
    d.start_max = (crowd_vec2){-4.0f, 1.0f};
    cr_assert_eq(crowd_agent_set_queue(w, id, &d), CROWD_OK);
    cr_assert_eq(crowd_agent_get_queue(w, id, &out), CROWD_OK);
    cr_assert_eq(memcmp(&out, &d, sizeof d), 0);

    // The queue's goal is the agent's arrive goal.
    crowd_agent_def a;
    cr_assert_eq(crowd_agent_get_def(w, id, &a), CROWD_OK);
    cr_assert_eq(a.goal.mode, CROWD_GOAL_ARRIVE);
    cr_assert_eq(a.goal.target.x, 3.0f);
    cr_assert_eq(a.goal.target.y, -2.0f);
    cr_assert_eq(a.goal.slow_radius, 2.0f);
    cr_assert_eq(a.goal.weight, 0.5f);

    cr_assert_eq(crowd_agent_clear_queue(w, id), CROWD_OK);
    cr_assert_eq(crowd_agent_get_queue(w, id, &out), CROWD_ERR_NOT_QUEUEING);
    cr_assert_eq(crowd_agent_clear_queue(w, id), CROWD_OK, "clearing twice is fine");
    cr_assert_eq(crowd_agent_get_def(w, id, &a), CROWD_OK);
    cr_assert_eq(a.goal.mode, CROWD_GOAL_ARRIVE, "clearing keeps the goal");
    crowd_world_destroy(w);
}

typedef struct bad_case {
    const char* what;
    crowd_queue_def def;
    crowd_status expect;
} bad_case;

Test(queue_api, validation_leaves_world_unchanged) {
    crowd_world* w = make_world(1);
    crowd_agent_id id = add_agent(w, 1.0f, 2.0f, 0);
    add_agent(w, 1.5f, 2.0f, 1);
    crowd_queue_def good = crowd_queue_def_default();
    good.goal = (crowd_vec2){10.0f, 0.0f};
    cr_assert_eq(crowd_agent_set_queue(w, id, &good), CROWD_OK);
    for (int t = 0; t < 3; ++t) crowd_world_step(w);

    enum { N = 14 };
    bad_case cases[N];
    for (int i = 0; i < N; ++i) cases[i].def = crowd_queue_def_default();
    int k = 0;
    cases[k].what = "policy out of range";
    cases[k].def.on_arrival = CROWD_QUEUE_POLICY_COUNT;
    cases[k++].expect = CROWD_ERR_INVALID_ENUM;
    cases[k].what = "negative policy";
    cases[k].def.on_arrival = (crowd_queue_policy)-1;
    cases[k++].expect = CROWD_ERR_INVALID_ENUM;
    cases[k].what = "NaN cone length";
    cases[k].def.cone_length = NAN;
    cases[k++].expect = CROWD_ERR_NOT_FINITE;
    cases[k].what = "infinite goal";
    cases[k].def.goal.x = INFINITY;
    cases[k++].expect = CROWD_ERR_NOT_FINITE;
    cases[k].what = "NaN start area";
    cases[k].def.start_max.y = NAN;
    cases[k++].expect = CROWD_ERR_NOT_FINITE;
    cases[k].what = "zero cone length";
    cases[k].def.cone_length = 0.0f;
    cases[k++].expect = CROWD_ERR_BAD_CONE;
    cases[k].what = "negative cone width";
    cases[k].def.cone_width = -0.1f;
    cases[k++].expect = CROWD_ERR_BAD_CONE;
    cases[k].what = "zero slow radius";
    cases[k].def.slow_radius = 0.0f;
    cases[k++].expect = CROWD_ERR_BAD_RADIUS;
    cases[k].what = "negative arrival radius";
    cases[k].def.arrival_radius = -1.0f;
    cases[k++].expect = CROWD_ERR_BAD_RADIUS;
    cases[k].what = "zero arrival radius";
    cases[k].def.arrival_radius = 0.0f;
    cases[k++].expect = CROWD_ERR_BAD_RADIUS;
    cases[k].what = "negative weight";
    cases[k].def.weight = -0.5f;
    cases[k++].expect = CROWD_ERR_BAD_WEIGHT;
    cases[k].what = "start area inverted in x";
    cases[k].def.start_min.x = 1.0f;
    cases[k++].expect = CROWD_ERR_BAD_AREA;
    cases[k].what = "start area inverted in y";
    cases[k].def.start_max.y = -1.0f;
    cases[k++].expect = CROWD_ERR_BAD_AREA;
    cases[k].what = "zero cone width is valid (a line)";
    cases[k].def.cone_width = 0.0f;
    cases[k++].expect = CROWD_OK;
    cr_assert_eq(k, N);

    crowd_agent_id other = add_agent(w, -3.0f, 0.0f, 2); // the agent the cases are tried on
    for (int i = 0; i < N; ++i) {
        const uint64_t hash = crowd_world_state_hash(w);
        crowd_agent_def before, after;
        cr_assert_eq(crowd_agent_get_def(w, other, &before), CROWD_OK);
        crowd_status st = crowd_agent_set_queue(w, other, &cases[i].def);
        cr_assert_eq(st, cases[i].expect, "%s: got %s", cases[i].what, crowd_status_string(st));
        if (st == CROWD_OK) {
            cr_assert_eq(crowd_agent_clear_queue(w, other), CROWD_OK);
            continue;
        }
        cr_assert_eq(crowd_world_state_hash(w), hash, "%s changed the world", cases[i].what);
        cr_assert_eq(crowd_agent_get_def(w, other, &after), CROWD_OK);
        cr_assert_eq(memcmp(&before, &after, sizeof before), 0, "%s changed the agent",
                     cases[i].what);
        crowd_queue_def q;
        cr_assert_eq(crowd_agent_get_queue(w, other, &q), CROWD_ERR_NOT_QUEUEING);
    }

    // Statuses are distinct per kind of error and all have their own text.
    const crowd_status mine[] = {CROWD_ERR_BAD_CONE, CROWD_ERR_BAD_AREA, CROWD_ERR_NOT_QUEUEING};
    for (int i = 0; i < 3; ++i)
        for (int s = 0; s < CROWD_STATUS_COUNT; ++s)
            if (s != (int)mine[i])
                cr_assert_str_neq(crowd_status_string(mine[i]),
                                  crowd_status_string((crowd_status)s));

    // Handle errors come first and also leave everything as it was.
    const uint64_t hash = crowd_world_state_hash(w);
    crowd_agent_id stale = add_agent(w, 50.0f, 50.0f, 3);
    cr_assert_eq(crowd_agent_remove(w, stale), CROWD_OK);
    cr_assert_eq(crowd_agent_set_queue(w, stale, &good), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_set_queue(w, (crowd_agent_id){0}, &good), CROWD_ERR_NULL_HANDLE);
    cr_assert_eq(crowd_agent_set_queue(w, other, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_set_queue(NULL, other, &good), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_agent_clear_queue(w, stale), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_get_queue(w, stale, &good), CROWD_ERR_STALE_HANDLE);
    cr_assert_eq(crowd_agent_get_queue(w, id, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_state_hash(w), hash);
    crowd_world_destroy(w);
}

Test(queue_api, arrivals_buffer) {
    crowd_world* w = make_world(1);
    crowd_agent_id a = add_agent(w, 0.0f, 0.0f, 11);
    crowd_agent_id b = add_agent(w, 0.0f, 5.0f, 22);
    crowd_queue_def d = crowd_queue_def_default();
    d.goal = (crowd_vec2){0.2f, 0.0f}; // both start within reach of their goals
    cr_assert_eq(crowd_agent_set_queue(w, a, &d), CROWD_OK);
    d.goal = (crowd_vec2){0.0f, 5.2f};
    cr_assert_eq(crowd_agent_set_queue(w, b, &d), CROWD_OK);
    int count = -1;
    cr_assert_eq(crowd_world_get_arrivals(w, NULL, 0, &count), CROWD_OK);
    cr_assert_eq(count, 0, "no step, no arrivals");
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_world_arrival_count(w), 2);

    crowd_arrival one[1];
    one[0].user_data = 99;
    cr_assert_eq(crowd_world_get_arrivals(w, one, 1, &count), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(count, 2);
    cr_assert_eq(one[0].user_data, 99u, "nothing written on a short buffer");
    cr_assert_eq(crowd_world_get_arrivals(w, NULL, 2, &count), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_get_arrivals(NULL, one, 1, &count), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_get_arrivals(w, one, 1, NULL), CROWD_ERR_NULL_ARGUMENT);

    crowd_arrival two[2];
    cr_assert_eq(crowd_world_get_arrivals(w, two, 2, &count), CROWD_OK);
    cr_assert_eq(count, 2);
    cr_assert(crowd_agent_id_equal(two[0].id, a) && two[0].user_data == 11u);
    cr_assert(crowd_agent_id_equal(two[1].id, b) && two[1].user_data == 22u);
    cr_assert_eq(two[0].action, CROWD_QUEUE_STOP);
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_get_position(w, a, &p), CROWD_OK);
    cr_assert_eq(two[0].position.x, p.x);
    cr_assert_eq(two[0].position.y, p.y);
    crowd_world_destroy(w);
}

// STOP reports an arrival once, then the agent stays at its goal; setting the queue again re-arms.
Test(queue_api, stop_reports_once_and_stays) {
    crowd_world* w = make_world(1);
    crowd_agent_id id = add_agent(w, 0.0f, 0.0f, 5);
    crowd_queue_def d = crowd_queue_def_default();
    d.goal = (crowd_vec2){4.0f, 0.0f};
    cr_assert_eq(crowd_agent_set_queue(w, id, &d), CROWD_OK);
    int arrivals = 0, first = -1;
    for (int t = 0; t < 300; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        if (crowd_world_arrival_count(w) && first < 0) first = t;
        arrivals += crowd_world_arrival_count(w);
    }
    cr_assert_eq(arrivals, 1);
    cr_assert_gt(first, 0);
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
    cr_assert_lt(hypotf(p.x - 4.0f, p.y), 0.05f, "stays at the goal: (%f, %f)", (double)p.x,
                 (double)p.y);
    cr_assert_eq(crowd_agent_set_queue(w, id, &d), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_world_arrival_count(w), 1, "set again: arrives again");

    // Cleared: no more arrivals even at the goal.
    cr_assert_eq(crowd_agent_set_queue(w, id, &d), CROWD_OK);
    cr_assert_eq(crowd_agent_clear_queue(w, id), CROWD_OK);
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    cr_assert_eq(crowd_world_arrival_count(w), 0);
    crowd_world_destroy(w);
}

// Builds a column of agents marching on a goal; `policy` for all of them.
static void fill(crowd_world* w, crowd_agent_id* ids, int n, crowd_queue_policy policy) {
    for (int i = 0; i < n; ++i) {
        ids[i] = add_agent(w, -1.0f * (float)(i % 10), 1.5f * (float)(i / 10), (uint64_t)i);
        crowd_queue_def d = crowd_queue_def_default();
        d.goal = (crowd_vec2){6.0f, 1.5f * (float)(i / 10)};
        d.on_arrival = policy;
        d.start_min = (crowd_vec2){-12.0f, -3.0f};
        d.start_max = (crowd_vec2){-10.0f, 3.0f};
        cr_assert_eq(crowd_agent_set_queue(w, ids[i], &d), CROWD_OK);
    }
}

// A REMOVE arrival is exactly crowd_agent_remove: a twin world whose agents only report (STOP)
// and whose caller removes them, in handle order, after each step stays bit-identical.
Test(queue_api, remove_is_crowd_agent_remove) {
    enum { N = 40 };
    crowd_world* a = make_world(1);
    crowd_world* b = make_world(1);
    crowd_agent_id ia[N], ib[N];
    fill(a, ia, N, CROWD_QUEUE_REMOVE);
    fill(b, ib, N, CROWD_QUEUE_STOP);
    int removed = 0;
    for (int t = 0; t < 400 && crowd_world_agent_count(a) > 0; ++t) {
        cr_assert_eq(crowd_world_step(a), CROWD_OK);
        cr_assert_eq(crowd_world_step(b), CROWD_OK);
        crowd_arrival ea[N], eb[N];
        int na, nb;
        cr_assert_eq(crowd_world_get_arrivals(a, ea, N, &na), CROWD_OK);
        cr_assert_eq(crowd_world_get_arrivals(b, eb, N, &nb), CROWD_OK);
        cr_assert_eq(na, nb, "tick %d", t);
        for (int k = 0; k < nb; ++k) {
            cr_assert_eq(ea[k].action, CROWD_QUEUE_REMOVE);
            cr_assert(ea[k].id.index1 == eb[k].id.index1 &&
                      ea[k].id.generation == eb[k].id.generation);
            cr_assert_eq(ea[k].user_data, eb[k].user_data);
            cr_assert_eq(crowd_agent_validate(a, ea[k].id), CROWD_ERR_STALE_HANDLE);
            if (k > 0) cr_assert_lt(eb[k - 1].id.index1, eb[k].id.index1, "handle order");
            cr_assert_eq(crowd_agent_remove(b, eb[k].id), CROWD_OK);
        }
        removed += na;
        // Agents bit for bit (the state hashes differ: they cover the queue records, whose
        // policies differ by construction).
        crowd_agent_id ga[N], gb[N];
        crowd_vec2 pa[N], pb[N], va[N], vb[N];
        int ca, cb;
        cr_assert_eq(crowd_world_get_agents(a, ga, pa, va, N, &ca), CROWD_OK);
        cr_assert_eq(crowd_world_get_agents(b, gb, pb, vb, N, &cb), CROWD_OK);
        cr_assert_eq(ca, cb, "tick %d", t);
        for (int k = 0; k < ca; ++k)
            cr_assert(ga[k].index1 == gb[k].index1 && ga[k].generation == gb[k].generation &&
                          memcmp(&pa[k], &pb[k], sizeof pa[k]) == 0 &&
                          memcmp(&va[k], &vb[k], sizeof va[k]) == 0,
                      "tick %d agent %d", t, k);
    }
    cr_assert_eq(removed, N, "every agent arrived and was removed");
    cr_assert_eq(crowd_world_agent_count(a), 0);
    crowd_world_destroy(a);
    crowd_world_destroy(b);
}

// RESPAWN: the agent lands in its start area at rest, drawn from the world's seeded generator.
Test(queue_api, respawn_in_area_from_seed) {
    enum { N = 30, TICKS = 300 };
    float first_x[3] = {0};
    const uint64_t seeds[3] = {9, 9, 10};
    for (int run = 0; run < 3; ++run) {
        crowd_world* w = make_world(seeds[run]);
        crowd_agent_id ids[N];
        fill(w, ids, N, CROWD_QUEUE_RESPAWN);
        int respawns = 0;
        for (int t = 0; t < TICKS; ++t) {
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            crowd_arrival ev[N];
            int n;
            cr_assert_eq(crowd_world_get_arrivals(w, ev, N, &n), CROWD_OK);
            for (int k = 0; k < n; ++k) {
                cr_assert_eq(ev[k].action, CROWD_QUEUE_RESPAWN);
                cr_assert_eq(crowd_agent_validate(w, ev[k].id), CROWD_OK);
                cr_assert_lt(hypotf(ev[k].position.x - 6.0f,
                                    ev[k].position.y - 1.5f * (float)(ev[k].user_data / 10)),
                             0.5f + 1e-5f);
                crowd_vec2 p, v;
                cr_assert_eq(crowd_agent_get_position(w, ev[k].id, &p), CROWD_OK);
                cr_assert_eq(crowd_agent_get_velocity(w, ev[k].id, &v), CROWD_OK);
                cr_assert(p.x >= -12.0f && p.x <= -10.0f && p.y >= -3.0f && p.y <= 3.0f,
                          "respawned at (%f, %f)", (double)p.x, (double)p.y);
                cr_assert(v.x == 0.0f && v.y == 0.0f);
                if (respawns == 0) first_x[run] = p.x;
                respawns++;
            }
        }
        cr_assert_gt(respawns, N, "agents cycle: %d respawns", respawns);
        cr_assert_eq(crowd_world_agent_count(w), N);
        crowd_world_destroy(w);
    }
    cr_assert_eq(first_x[0], first_x[1], "same seed, same respawn point");
    cr_assert_neq(first_x[0], first_x[2], "another seed, another point");
}
