// The engine's path pass against the pure functions, on short and 10,000-segment paths, and its
// independence from the thread count.
#include "core/internal.h"
#include "path_helpers.h"

typedef struct scene_path {
    crowd_vec2* pts;
    int n;
    crowd_path_id id;
} scene_path;

static void make_circle(scene_path* p, int n, float cx, float cy, float r) {
    p->pts = malloc(sizeof(crowd_vec2) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        const double a = 2.0 * 3.14159265358979323846 * i / n;
        p->pts[i] = (crowd_vec2){(float)(cx + r * cos(a)), (float)(cy + r * sin(a))};
    }
    p->n = n;
}

static void make_zig_zag(scene_path* p, int n, float x0, float y0) {
    p->pts = malloc(sizeof(crowd_vec2) * (size_t)n);
    for (int i = 0; i < n; ++i) p->pts[i] = (crowd_vec2){x0 + i * 3.0f, y0 + (i % 2) * 4.0f};
    p->n = n;
}

// An Archimedean spiral with arms 12 m apart and segments of about 0.5 m: long, and never near
// itself, so the nearest segment overall is the one near the follower's hint.
static void make_spiral(scene_path* p, int n, float cx, float cy) {
    p->pts = malloc(sizeof(crowd_vec2) * (size_t)n);
    double theta = 0.0;
    for (int i = 0; i < n; ++i) {
        const double r = 8.0 + 12.0 * theta / (2.0 * 3.14159265358979323846);
        p->pts[i] = (crowd_vec2){(float)(cx + r * cos(theta)), (float)(cy + r * sin(theta))};
        theta += 0.5 / r;
    }
    p->n = n;
}

typedef struct follower {
    crowd_agent_id id;
    int path;
} follower;

// Puts a follower `off` metres to the side of point `at` (along the normal of the segment that
// leaves it), starting there, so its nearest segment lies in the engine's first hint window.
static follower put(crowd_world* w, const scene_path* paths, int path, int at, float off,
                    crowd_path_kind kind, crowd_path_mode mode, bool reverse, float weight) {
    const scene_path* p = &paths[path];
    crowd_agent_def a = crowd_agent_def_default();
    const crowd_vec2 u = p->pts[at], v = p->pts[(at + 1) % p->n];
    const double len = hypot((double)v.x - u.x, (double)v.y - u.y);
    a.position = (crowd_vec2){(float)(u.x - (v.y - u.y) / len * off),
                              (float)(u.y + (v.x - u.x) / len * off)};
    a.separation_weight = 0.0f; // path forces only, so the pure functions predict everything
    a.max_speed = 1.2f + 0.1f * (float)(at % 5);
    follower f = {.path = path};
    cr_assert_eq(crowd_agent_add(w, &a, &f.id), CROWD_OK);
    crowd_path_follow_def d = crowd_path_follow_def_default();
    d.path = p->id;
    d.kind = kind;
    d.mode = mode;
    d.reverse = reverse;
    d.start_index = at;
    d.weight = weight;
    d.tube_radius = kind == CROWD_PATH_TUBE ? 0.6f + 0.1f * (float)(at % 4) : d.tube_radius;
    cr_assert_eq(crowd_agent_set_path(w, f.id, &d), CROWD_OK);
    return f;
}

Test(path_engine, pass_equals_the_pure_functions) {
    crowd_world* w = make_world(1);
    const float dt = crowd_world_get_dt(w);
    scene_path paths[4];
    make_circle(&paths[0], 64, 0, 0, 10);
    make_zig_zag(&paths[1], 30, -40, 40);
    make_spiral(&paths[2], 10001, 400, 0);
    make_circle(&paths[3], 5, -60, -60, 6); // a pentagon: few segments, wide corners
    for (int i = 0; i < 4; ++i) paths[i].id = make_path(w, paths[i].pts, paths[i].n);

    follower fs[400];
    int nf = 0;
    const crowd_path_kind kinds[2] = {CROWD_PATH_WAYPOINTS, CROWD_PATH_TUBE};
    for (int k = 0; k < 2; ++k) {
        for (int m = 0; m < CROWD_PATH_MODE_COUNT; ++m) {
            for (int r = 0; r < 2; ++r) {
                const crowd_path_mode mode = (crowd_path_mode)m;
                for (int i = 0; i < 6; ++i)
                    fs[nf++] =
                        put(w, paths, 0, (i * 11) % 64, 0.3f * i - 0.8f, kinds[k], mode, r, 1.0f);
                // Closing the zig-zag or the spiral would cross them: no loops there.
                const crowd_path_mode open = m == CROWD_PATH_LOOP ? CROWD_PATH_PING_PONG : mode;
                for (int i = 0; i < 4; ++i)
                    fs[nf++] = put(w, paths, 1, (i * 7 + 3) % 30, 0.5f, kinds[k], open, r, 0.75f);
                for (int i = 0; i < 5; ++i)
                    fs[nf++] = put(w, paths, 2, 37 + i * 1999, 0.4f * i, kinds[k], open, r, 1.0f);
                for (int i = 0; i < 3; ++i)
                    fs[nf++] = put(w, paths, 3, i, 1.5f, kinds[k], mode, r, 2.0f);
            }
        }
    }

    const int ticks = small_scale() ? 40 : 160;
    for (int t = 0; t < ticks; ++t) {
        crowd_vec2 pos[400], vel[400], head[400];
        crowd_path_cursor cur[400];
        for (int i = 0; i < nf; ++i) {
            crowd_agent_def a;
            crowd_path_follow_def d;
            cr_assert_eq(crowd_agent_get_def(w, fs[i].id, &a), CROWD_OK);
            cr_assert_eq(crowd_agent_get_path(w, fs[i].id, &d, &cur[i]), CROWD_OK);
            const scene_path* p = &paths[fs[i].path];
            crowd_vec2 f;
            if (d.kind == CROWD_PATH_WAYPOINTS) {
                f = crowd_path_waypoint_step(p->pts, p->n, &d, &cur[i], a.position, a.velocity,
                                             a.max_speed, a.max_force);
            } else {
                int seg = cur[i].segment;
                if (!(d.mode == CROWD_PATH_ONE_SHOT && cur[i].state == CROWD_PATH_STATE_FINISHED)) {
                    const crowd_vec2 pred = {a.position.x + a.velocity.x * d.predict_ahead,
                                             a.position.y + a.velocity.y * d.predict_ahead};
                    seg = crowd_path_closest_segment(p->pts, p->n, d.mode, pred, NULL);
                }
                f = crowd_path_tube_step(p->pts, p->n, &d, &cur[i], seg, a.position, a.velocity,
                                         a.max_speed, a.max_force);
            }
            pos[i] = a.position, vel[i] = a.velocity, head[i] = a.heading;
            crowd_steer_integrate(&pos[i], &vel[i], &head[i],
                                  (crowd_vec2){f.x * d.weight, f.y * d.weight}, a.max_speed,
                                  a.max_force, dt);
        }
        crowd_world_step(w);
        for (int i = 0; i < nf; ++i) {
            crowd_agent_def a;
            crowd_path_cursor c;
            cr_assert_eq(crowd_agent_get_def(w, fs[i].id, &a), CROWD_OK);
            cr_assert_eq(crowd_agent_get_path(w, fs[i].id, NULL, &c), CROWD_OK);
            cr_assert_eq(c.state, cur[i].state, "tick %d agent %d", t, i);
            cr_assert_eq(c.index, cur[i].index, "tick %d agent %d", t, i);
            cr_assert_eq(c.direction, cur[i].direction, "tick %d agent %d", t, i);
            cr_assert_eq(c.segment, cur[i].segment, "tick %d agent %d", t, i);
            cr_assert_eq(a.position.x, pos[i].x, "tick %d agent %d", t, i);
            cr_assert_eq(a.position.y, pos[i].y, "tick %d agent %d", t, i);
            cr_assert_eq(a.velocity.x, vel[i].x, "tick %d agent %d", t, i);
            cr_assert_eq(a.velocity.y, vel[i].y, "tick %d agent %d", t, i);
            cr_assert_eq(a.heading.x, head[i].x, "tick %d agent %d", t, i);
            cr_assert_eq(a.heading.y, head[i].y, "tick %d agent %d", t, i);
        }
    }
    for (int i = 0; i < 4; ++i) free(paths[i].pts);
    crowd_world_destroy(w);
}

// ---- thread-count independence -----------------------------------------------------------------

typedef struct run_result {
    uint64_t hash;
    crowd_path_cursor* cursors;
    int count;
} run_result;

static float frand(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

// Many followers with separation on, on random-walk paths and circles; mid-run one path is
// replaced, one destroyed and one created.
static run_result run_crowd(int threads) {
    crowd_world* w = make_world(threads);
    unsigned seed = 2024u;
    const int n_paths = 40, n_agents = small_scale() ? 600 : 3000, ticks = small_scale() ? 60 : 150;
    static crowd_vec2 pts[400];
    crowd_path_id ids[41];
    for (int p = 0; p < n_paths; ++p) {
        const int n = 2 + (int)frand(&seed, 0, 300);
        float x = frand(&seed, -80, 80), y = frand(&seed, -80, 80);
        for (int i = 0; i < n; ++i) {
            if (p % 3 == 0) {
                const double a = 2.0 * 3.14159265358979323846 * i / n;
                pts[i] = (crowd_vec2){x + (float)(15 * cos(a)), y + (float)(15 * sin(a))};
            } else {
                x += frand(&seed, -2.5f, 2.5f), y += frand(&seed, -2.5f, 2.5f);
                pts[i] = (crowd_vec2){x, y};
            }
        }
        ids[p] = make_path(w, pts, n);
    }
    crowd_agent_id* agents = malloc(sizeof(crowd_agent_id) * (size_t)n_agents);
    for (int i = 0; i < n_agents; ++i) {
        const int p = i % n_paths;
        int count;
        crowd_path_get_points(w, ids[p], pts, 400, &count);
        crowd_path_follow_def d = crowd_path_follow_def_default();
        d.path = ids[p];
        d.kind = (crowd_path_kind)(i % 2);
        d.mode = (crowd_path_mode)((i / 2) % 3);
        d.reverse = (i / 6) % 2;
        d.start_index = (int)frand(&seed, 0, (float)count - 0.01f);
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){pts[d.start_index].x + frand(&seed, -3, 3),
                                  pts[d.start_index].y + frand(&seed, -3, 3)};
        cr_assert_eq(crowd_agent_add(w, &a, &agents[i]), CROWD_OK);
        cr_assert_eq(crowd_agent_set_path(w, agents[i], &d), CROWD_OK);
    }
    for (int t = 0; t < ticks; ++t) {
        if (t == ticks / 3) {
            const crowd_vec2 rep[3] = {{0, 0}, {30, 5}, {-20, 40}};
            cr_assert_eq(crowd_path_replace(w, ids[3], rep, 3), CROWD_OK);
            cr_assert_eq(crowd_path_destroy(w, ids[5]), CROWD_OK);
        }
        if (t == 2 * ticks / 3) {
            const crowd_vec2 fresh[4] = {{-50, -50}, {50, -50}, {50, 50}, {-50, 50}};
            ids[40] = make_path(w, fresh, 4);
            for (int i = 7; i < n_agents; i += n_paths) {
                crowd_path_follow_def d = crowd_path_follow_def_default();
                d.path = ids[40];
                d.kind = CROWD_PATH_TUBE;
                cr_assert_eq(crowd_agent_set_path(w, agents[i], &d), CROWD_OK);
            }
        }
        crowd_world_step(w);
    }
    run_result r = {.hash = crowd_world_state_hash(w), .count = n_agents};
    r.cursors = malloc(sizeof(crowd_path_cursor) * (size_t)n_agents);
    for (int i = 0; i < n_agents; ++i) r.cursors[i] = cursor_of(w, agents[i]);
    free(agents);
    crowd_world_destroy(w);
    return r;
}

Test(path_engine, bit_identical_across_thread_counts) {
    const int threads[4] = {1, 2, 3, 8};
    run_result ref = run_crowd(1);
    int detached = 0, finished = 0;
    for (int i = 0; i < ref.count; ++i) {
        detached += ref.cursors[i].state == CROWD_PATH_STATE_DETACHED;
        finished += ref.cursors[i].state == CROWD_PATH_STATE_FINISHED;
    }
    cr_assert_gt(detached, 0, "the scenario destroys a path under its followers");
    cr_assert_gt(finished, 0, "the scenario has finished one-shot followers");
    for (int k = 1; k < 4; ++k) {
        run_result r = run_crowd(threads[k]);
        cr_assert_eq(r.hash, ref.hash, "%d threads", threads[k]);
        for (int i = 0; i < ref.count; ++i) {
            cr_assert_eq(r.cursors[i].state, ref.cursors[i].state);
            cr_assert_eq(r.cursors[i].index, ref.cursors[i].index);
            cr_assert_eq(r.cursors[i].direction, ref.cursors[i].direction);
            cr_assert_eq(r.cursors[i].segment, ref.cursors[i].segment);
        }
        free(r.cursors);
    }
    free(ref.cursors);
}

// The pass itself clears the behavior bit of a follower whose path is gone, so later steps skip it.
Test(path_engine, detached_followers_lose_the_path_flag) {
    crowd_world* w = make_world(2);
    const crowd_vec2 pts[3] = {{0, 0}, {5, 0}, {5, 5}};
    crowd_path_id p = make_path(w, pts, 3);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 1});
    follow(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_LOOP);
    crowd_world_step(w);
    cr_assert(w->cur.flags[w->slot_of[a.index1 - 1]] & CS_FLAG_PATH);
    crowd_path_destroy(w, p);
    crowd_world_step(w);
    cr_assert_not(w->cur.flags[w->slot_of[a.index1 - 1]] & CS_FLAG_PATH);
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_DETACHED);
    crowd_world_destroy(w);
}
