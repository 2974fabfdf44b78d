// Reynolds' path tube (pathFollowTube): followers stay in the tube and keep making progress, the
// segment hint keeps them on their own leg of a U, the grid search equals a brute force, and the
// pure function equals the spec's formulas written out here.
#include "behaviors/path/path_internal.h"
#include "path_helpers.h"

// Follows one tube agent and checks, once it has entered the tube, that it stays within
// tube_radius + margin of the polyline and that its arc length never goes back and keeps growing.
// Returns the arc length travelled.
static double ride(crowd_world* w, crowd_agent_id a, const crowd_vec2* pts, int n, bool closed,
                   int dir, int ticks, double stop_before_end) {
    const double total = polyline_length(pts, n, closed);
    double last = -1.0, unwrapped = 0.0, start = 0.0, window_start = 0.0;
    bool converged = false;
    int since = 0;
    for (int t = 0; t < ticks; ++t) {
        crowd_world_step(w);
        const crowd_vec2 p = position_of(w, a);
        double s = 0.0;
        const double d = path_locate(pts, n, closed, p, 1, 0, &s);
        if (dir < 0) s = total - s;
        if (!converged) {
            if (d > 1.0) continue;
            converged = true;
            last = s;
            start = window_start = unwrapped = s;
            continue;
        }
        double ds = s - last;
        if (closed && ds < -total / 2) ds += total; // a lap completed
        last = s;
        unwrapped += ds;
        cr_assert_leq(d, 1.0 + 0.25, "tick %d: %f from the path", t, d);
        cr_assert_geq(ds, -1e-3, "tick %d: went back %f m", t, -ds);
        if (!closed && s > total - stop_before_end) break;
        if (++since == 20) { // 2 s at 1.5 m/s: at least a metre of progress
            cr_assert_gt(unwrapped - window_start, 1.0, "tick %d: stalled", t);
            window_start = unwrapped;
            since = 0;
        }
    }
    cr_assert(converged, "never entered the tube");
    return unwrapped - start;
}

// `slack`: metres of the path's length the ride may miss (it starts counting when the agent first
// enters the tube). The FLOW form's aim 2.25 m ahead rounds the zig-zag's sharp corners inside
// the tube, so it enters the tube a little later than the literal form.
static void zig_zag(crowd_path_form form, double slack) {
    crowd_vec2 zz[12];
    for (int i = 0; i < 12; ++i) zz[i] = (crowd_vec2){i * 3.0f, (i % 2) * 4.0f};
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, zz, 12);
    crowd_agent_id a = add_agent(w, (crowd_vec2){-1, 2});
    follow_form(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_ONE_SHOT, form);
    const double travelled = ride(w, a, zz, 12, false, 1, 600, 1.0);
    cr_assert_gt(travelled, polyline_length(zz, 12, false) - slack);
    for (int t = 0; t < 300; ++t) crowd_world_step(w);
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_FINISHED);
    const crowd_vec2 end = position_of(w, a);
    cr_assert_lt(hypot(end.x - zz[11].x, end.y - zz[11].y), 0.05);
    crowd_world_destroy(w);
}

Test(path_tube, zig_zag_stays_in_the_tube_and_progresses) {
    zig_zag(CROWD_PATH_FLOW, 4.0);
}
Test(path_tube, zig_zag_stays_in_the_tube_and_progresses_literal) {
    zig_zag(CROWD_PATH_LITERAL, 3.0);
}

static void circle(crowd_vec2* pts, int n, float r) {
    for (int i = 0; i < n; ++i) {
        const double a = 2.0 * 3.14159265358979323846 * i / n;
        pts[i] = (crowd_vec2){(float)(r * cos(a)), (float)(r * sin(a))};
    }
}

Test(path_tube, circle_of_64_points_loops_in_the_tube) {
    crowd_vec2 c[64];
    circle(c, 64, 10.0f);
    for (int reverse = 0; reverse < 2; ++reverse) {
        crowd_world* w = make_world(1);
        crowd_path_id p = make_path(w, c, 64);
        crowd_agent_id a = add_agent(w, (crowd_vec2){12.5f, 0.5f});
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = p;
        f.kind = CROWD_PATH_TUBE;
        f.mode = CROWD_PATH_LOOP;
        f.reverse = reverse;
        cr_assert_eq(crowd_agent_set_path(w, a, &f), CROWD_OK);
        const double laps =
            ride(w, a, c, 64, true, reverse ? -1 : 1, 1400, 0.0) / polyline_length(c, 64, true);
        cr_assert_gt(laps, 3.0, "%f laps", laps);
        crowd_world_destroy(w);
    }
}

// Two legs 1.5 m apart, closer than the tube's 2 m diameter, joined at x = 20. The agent starts
// nearer the far leg; a global nearest-segment search would send it there, the hint keeps it on
// its own leg, and it goes round the bend instead of jumping.
// `min_x`: how far along the first leg the agent must get before its hint moves to the bend; the
// FLOW form aims 2.25 m ahead along the path, so it rounds the bend earlier.
static void u_turn(crowd_path_form form, double min_x) {
    crowd_vec2 u[42];
    int n = 0;
    for (int i = 0; i <= 20; ++i) u[n++] = (crowd_vec2){(float)i, 0.0f};
    for (int i = 20; i >= 0; --i) u[n++] = (crowd_vec2){(float)i, 1.5f};
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, u, n);
    crowd_agent_id a = add_agent(w, (crowd_vec2){0.0f, 1.0f});
    follow_form(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_ONE_SHOT, form);
    int seg = 0, brute_elsewhere = 0;
    double max_x_first_leg = 0.0;
    for (int t = 0; t < 500; ++t) {
        crowd_vec2 pos = position_of(w, a), vel;
        crowd_agent_get_velocity(w, a, &vel);
        const crowd_vec2 pred = {pos.x + vel.x * 0.5f, pos.y + vel.y * 0.5f};
        const int brute = crowd_path_closest_segment(u, n, CROWD_PATH_ONE_SHOT, pred, NULL);
        crowd_world_step(w);
        const crowd_path_cursor c = cursor_of(w, a);
        cr_assert_geq(c.segment, seg, "tick %d: hint went back %d -> %d", t, seg, c.segment);
        cr_assert_leq(c.segment, seg + 1, "tick %d: hint jumped %d -> %d", t, seg, c.segment);
        if ((brute < 20) != (c.segment < 20)) brute_elsewhere++;
        seg = c.segment;
        if (seg < 20) max_x_first_leg = fmax(max_x_first_leg, position_of(w, a).x);
    }
    cr_assert_eq(seg, n - 2);
    cr_assert_gt(max_x_first_leg, min_x, "left the first leg at x = %f", max_x_first_leg);
    cr_assert_gt(brute_elsewhere, 0, "the scenario never tempted a jump");
    cr_assert_eq(cursor_of(w, a).state, CROWD_PATH_STATE_FINISHED);
    crowd_world_destroy(w);
}

Test(path_tube, u_turn_closer_than_the_tube_does_not_jump_legs) {
    u_turn(CROWD_PATH_FLOW, 18.0);
}
Test(path_tube, u_turn_closer_than_the_tube_does_not_jump_legs_literal) {
    u_turn(CROWD_PATH_LITERAL, 19.0);
}

Test(path_tube, ping_pong_turns_at_both_ends) {
    const crowd_vec2 line[5] = {{0, 0}, {5, 0}, {10, 0}, {15, 0}, {20, 0}};
    crowd_world* w = make_world(1);
    crowd_path_id p = make_path(w, line, 5);
    crowd_agent_id a = add_agent(w, (crowd_vec2){1, 0.5f});
    follow(w, a, p, CROWD_PATH_TUBE, CROWD_PATH_PING_PONG);
    int dir = 1, flips = 0;
    for (int t = 0; t < 1200; ++t) {
        const crowd_vec2 before = position_of(w, a);
        crowd_world_step(w);
        const crowd_path_cursor c = cursor_of(w, a);
        if (c.direction != dir) {
            // Flipped on a step that started within arrive_radius of the end it was heading to.
            const float end_x = dir > 0 ? 20.0f : 0.0f;
            cr_assert_lt(hypot(before.x - end_x, before.y), 0.8, "tick %d", t);
            cr_assert_eq(c.segment, dir > 0 ? 3 : 0);
            dir = c.direction;
            flips++;
        }
        cr_assert_eq(c.index, dir > 0 ? c.segment + 1 : c.segment);
        cr_assert_eq(c.state, CROWD_PATH_STATE_FOLLOWING);
    }
    // 20 m each way at 1.5 m/s is about 140 ticks a leg.
    cr_assert_geq(flips, 7, "%d flips", flips);
    crowd_world_destroy(w);
}

// ---- the grid and the window against brute force ----------------------------------------------

static float frand(unsigned* s, float lo, float hi) {
    *s = *s * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(*s >> 8) / 16777216.0f;
}

static const cs_path* internal_path(const crowd_world* w, crowd_path_id id) {
    const cs_path_entry* e;
    cr_assert_eq(cs_path_lookup(w, id, &e), CROWD_OK);
    return e->path;
}

// The test's own findClosestSegment: the C# loop, strict < over segments in order.
static int brute_closest(const crowd_vec2* pts, int n, int segs, crowd_vec2 q, float* dist) {
    float best = INFINITY;
    int k_best = -1;
    for (int k = 0; k < segs; ++k) {
        const crowd_vec2 a = pts[k], b = pts[(k + 1) % n];
        const float abx = b.x - a.x, aby = b.y - a.y, apx = q.x - a.x, apy = q.y - a.y;
        const float l2 = fmaxf(abx * abx + aby * aby, 0.0001f);
        float t = (apx * abx + apy * aby) / l2;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        const float px = a.x + abx * t, py = a.y + aby * t;
        const float d = sqrtf((q.x - px) * (q.x - px) + (q.y - py) * (q.y - py));
        if (d < best) best = d, k_best = k;
    }
    *dist = best;
    return k_best;
}

Test(path_tube, grid_search_equals_brute_force) {
    crowd_world* w = make_world(1);
    unsigned seed = 99u;
    const int paths = small_scale() ? 20 : 60;
    static crowd_vec2 pts[3000];
    for (int trial = 0; trial < paths; ++trial) {
        const int n = 2 + (int)frand(&seed, 0, trial % 3 == 0 ? 2998.0f : 200.0f);
        const int shape = trial % 4;
        float x = 0, y = 0;
        for (int i = 0; i < n; ++i) {
            if (shape == 0) { // random walk
                x += frand(&seed, -2, 2), y += frand(&seed, -2, 2);
            } else if (shape == 1) { // scattered, crossing itself everywhere
                x = frand(&seed, -50, 50), y = frand(&seed, -50, 50);
            } else if (shape == 2) { // long thin line with uneven steps
                x += frand(&seed, 0.01f, 5.0f), y = frand(&seed, -0.1f, 0.1f);
            } else { // far from the origin, tiny steps and one huge one
                x = 1e5f + (i == n / 2 ? 500.0f : 0.0f) + frand(&seed, 0, 3);
                y = -3e4f + (float)i * 0.05f;
            }
            pts[i] = (crowd_vec2){x, y};
            if (i > 0 && pts[i].x == pts[i - 1].x && pts[i].y == pts[i - 1].y) pts[i].x += 1.0f;
        }
        crowd_path_id id = make_path(w, pts, n);
        const cs_path* p = internal_path(w, id);
        float x0 = pts[0].x, x1 = x0, y0 = pts[0].y, y1 = y0;
        for (int i = 0; i < n; ++i) {
            x0 = fminf(x0, pts[i].x), x1 = fmaxf(x1, pts[i].x);
            y0 = fminf(y0, pts[i].y), y1 = fmaxf(y1, pts[i].y);
        }
        const float mx = (x1 - x0) * 0.5f + 10.0f, my = (y1 - y0) * 0.5f + 10.0f;
        for (int q = 0; q < 300; ++q) {
            crowd_vec2 at = {frand(&seed, x0 - mx, x1 + mx), frand(&seed, y0 - my, y1 + my)};
            if (q % 10 == 0) at = pts[(int)frand(&seed, 0, (float)n - 0.01f)]; // on a vertex
            for (int closed = 0; closed < 2; ++closed) {
                const int segs = closed ? n : n - 1;
                float bd, gd, pd;
                const int bk = brute_closest(pts, n, segs, at, &bd);
                const int gk = cs_path_nearest(p, segs, at, &gd);
                const int pk = crowd_path_closest_segment(
                    pts, n, closed ? CROWD_PATH_LOOP : CROWD_PATH_ONE_SHOT, at, &pd);
                cr_assert_eq(gd, bd, "path %d query %d: grid %f, brute %f", trial, q, gd, bd);
                cr_assert_eq(gk, bk, "path %d query %d", trial, q);
                cr_assert_eq(pk, bk, "path %d query %d", trial, q);
                cr_assert_eq(pd, bd);
            }
        }
        crowd_path_destroy(w, id);
    }
    crowd_world_destroy(w);
}

// A follower whose predicted position is far ahead of its hint on a path of short segments: the
// window slides along until it reaches the nearest segment.
Test(path_tube, hint_window_slides_ahead) {
    enum { N = 1001 };
    static crowd_vec2 line[N];
    for (int i = 0; i < N; ++i) line[i] = (crowd_vec2){(float)i * 0.5f, (i % 2) * 0.01f};
    crowd_world* w = make_world(1);
    crowd_path_id id = make_path(w, line, N);
    const cs_path* p = internal_path(w, id);
    for (int hint = 0; hint < 900; hint += 37) {
        for (int ahead = -1; ahead < 40; ++ahead) {
            const crowd_vec2 q = {line[hint].x + ahead * 0.5f + 0.2f, 0.3f};
            float td, bd;
            crowd_vec2 tp;
            const int tk = cs_path_track(p->seg, N, N - 1, false, 1, hint, q, &tp, &td);
            const int bk = brute_closest(line, N, N - 1, q, &bd);
            cr_assert_eq(tk, bk, "hint %d ahead %d", hint, ahead);
            cr_assert_eq(td, bd);
            // And backwards along the path.
            const int rk = cs_path_track(p->seg, N, N - 1, false, -1, hint + 45, q, &tp, &td);
            cr_assert_eq(rk, bk, "reverse: hint %d ahead %d", hint + 45, ahead);
        }
    }
    crowd_world_destroy(w);
}

// The hint window as a loop over its segments, written out with the public projection: from the
// window's first segment, keep a strictly nearer or an equally near lower-indexed one; slide while
// the best is the front edge.
static int reference_track(const crowd_vec2* pts, int n, int segs, bool closed, int dir, int hint,
                           crowd_vec2 q, crowd_vec2* proj, float* dist) {
    const int width = segs < CROWD_PATH_WINDOW ? segs : CROWD_PATH_WINDOW;
    int lo = dir > 0 ? hint - 1 : hint - (width - 2);
    for (int slide = 0;; ++slide) {
        if (closed)
            lo = ((lo % segs) + segs) % segs;
        else
            lo = lo > segs - width ? segs - width : (lo < 0 ? 0 : lo);
        int best_j = 0, best_k = -1;
        for (int j = 0; j < width; ++j) {
            const int k = (lo + j) % segs;
            float d;
            const crowd_vec2 pr = crowd_path_project(q, pts[k], pts[(k + 1) % n], &d);
            if (best_k < 0 || d < *dist || (d == *dist && k < best_k)) {
                *dist = d, *proj = pr;
                best_k = k, best_j = j;
            }
        }
        const bool at_front = dir > 0 ? best_j == width - 1 : best_j == 0;
        const bool can_slide = closed ? width < segs : (dir > 0 ? lo + width < segs : lo > 0);
        if (!at_front || !can_slide || slide == CS_PATH_MAX_SLIDES) return best_k;
        lo += dir > 0 ? (width > 2 ? width - 2 : 1) : -(width > 2 ? width - 2 : 1);
    }
}

// Every hint of short loops and open paths, both directions, queries near and far: the window
// (which reads a loop's segments past the closing one in place) gives the loop's segment,
// distance and projection bit for bit. Ties come from queries on the path's own points.
Test(path_tube, hint_window_equals_the_loop_over_its_segments) {
    crowd_world* w = make_world(1);
    unsigned seed = 4242u;
    static crowd_vec2 pts[40];
    int wrapped = 0, slid = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const int n = 2 + trial % 38;
        for (int i = 0; i < n; ++i) {
            pts[i] = (crowd_vec2){frand(&seed, -10, 10), frand(&seed, -10, 10)};
            if (i > 0 && pts[i].x == pts[i - 1].x && pts[i].y == pts[i - 1].y) pts[i].x += 1.0f;
        }
        crowd_path_id id = make_path(w, pts, n);
        const cs_path* p = internal_path(w, id);
        for (int closed = 0; closed < 2; ++closed) {
            const int segs = closed ? n : n - 1;
            for (int hint = 0; hint < segs; ++hint) {
                for (int q = 0; q < 12; ++q) {
                    const crowd_vec2 at =
                        q < 3 ? pts[(hint + q) % n]
                              : (crowd_vec2){frand(&seed, -14, 14), frand(&seed, -14, 14)};
                    for (int dir = -1; dir <= 1; dir += 2) {
                        crowd_vec2 tp, rp;
                        float td, rd;
                        const int tk =
                            cs_path_track(p->seg, n, segs, closed, dir, hint, at, &tp, &td);
                        const int rk =
                            reference_track(pts, n, segs, closed, dir, hint, at, &rp, &rd);
                        cr_assert_eq(tk, rk, "n %d closed %d hint %d dir %d", n, closed, hint, dir);
                        cr_assert(td == rd && tp.x == rp.x && tp.y == rp.y);
                        wrapped += closed && hint + CROWD_PATH_WINDOW > segs && tk < hint;
                        slid += tk != hint && tk != (hint + segs - 1) % segs;
                    }
                }
            }
        }
        crowd_path_destroy(w, id);
    }
    cr_assert_gt(wrapped, 100, "windows past a loop's closing segment: %d", wrapped);
    cr_assert_gt(slid, 100, "answers away from the hint: %d", slid);
    crowd_world_destroy(w);
}

// ---- the pure function against the spec, computed independently -------------------------------

static crowd_vec2 spec_steer(crowd_vec2 pos, crowd_vec2 vel, crowd_vec2 target, float speed) {
    const double dx = (double)target.x - pos.x, dy = (double)target.y - pos.y;
    const double len = hypot(dx, dy);
    if (len == 0.0) return (crowd_vec2){-vel.x, -vel.y};
    return (crowd_vec2){(float)(dx / len * speed - vel.x), (float)(dy / len * speed - vel.y)};
}

Test(path_tube, pure_step_equals_the_spec) {
    unsigned seed = 777u;
    crowd_vec2 pts[9];
    int flips = 0, finishes = 0, outside = 0;
    for (int trial = 0; trial < 30000; ++trial) {
        const int n = 2 + trial % 8;
        for (int i = 0; i < n; ++i) pts[i] = (crowd_vec2){frand(&seed, -6, 6), frand(&seed, -6, 6)};
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.kind = CROWD_PATH_TUBE;
        f.form = CROWD_PATH_LITERAL;
        f.mode = (crowd_path_mode)(trial % 3);
        f.tube_radius = frand(&seed, 0.2f, 2.0f);
        f.predict_ahead = frand(&seed, 0.0f, 1.0f);
        f.arrive_radius = frand(&seed, 0.3f, 3.0f);
        f.slow_radius = frand(&seed, 0.5f, 3.0f);
        const bool closed = f.mode == CROWD_PATH_LOOP;
        const int segs = closed ? n : n - 1;
        const int dir = trial % 7 < 3 ? -1 : 1;
        crowd_vec2 pos = {frand(&seed, -7, 7), frand(&seed, -7, 7)};
        if (trial % 3 == 0) pos = pts[dir > 0 ? n - 1 : 0], pos.x += frand(&seed, -1, 1);
        const crowd_vec2 vel = {frand(&seed, -2, 2), frand(&seed, -2, 2)};
        const float ms = frand(&seed, 0.5f, 3.0f);
        const crowd_vec2 pred = {pos.x + vel.x * f.predict_ahead, pos.y + vel.y * f.predict_ahead};
        float dist;
        const int k = brute_closest(pts, n, segs, pred, &dist);

        crowd_path_cursor c = {CROWD_PATH_STATE_FOLLOWING, 0, dir, -1};
        const crowd_vec2 got = crowd_path_tube_step(pts, n, &f, &c, k, pos, vel, ms, 3.0f);

        // The spec written out, with the modes of path.h.
        const crowd_vec2 a = pts[k], b = pts[(k + 1) % n];
        const float abx = b.x - a.x, aby = b.y - a.y;
        const float l2 = fmaxf(abx * abx + aby * aby, 0.0001f);
        float t = ((pred.x - a.x) * abx + (pred.y - a.y) * aby) / l2;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        const crowd_vec2 proj = {a.x + abx * t, a.y + aby * t};
        int wdir = dir;
        const int final_pt = dir > 0 ? n - 1 : 0;
        int next = dir > 0 ? (k + 1) % n : k;
        const double to_next = hypot((double)pos.x - pts[next].x, (double)pos.y - pts[next].y);
        crowd_path_state state = CROWD_PATH_STATE_FOLLOWING;
        if (f.mode == CROWD_PATH_PING_PONG && next == final_pt && to_next < f.arrive_radius) {
            wdir = -dir;
            next = wdir > 0 ? (k + 1) % n : k;
            flips++;
        } else if (f.mode == CROWD_PATH_ONE_SHOT && next == final_pt && to_next < f.arrive_radius) {
            state = CROWD_PATH_STATE_FINISHED;
            finishes++;
        }
        crowd_vec2 target = pts[next];
        float speed = ms;
        if (state == CROWD_PATH_STATE_FINISHED) {
            target = pts[final_pt];
        } else if (dist > f.tube_radius) {
            target = proj;
            outside++;
        }
        if (state == CROWD_PATH_STATE_FINISHED ||
            (dist <= f.tube_radius && f.mode == CROWD_PATH_ONE_SHOT && next == final_pt)) {
            const double d = hypot((double)target.x - pos.x, (double)target.y - pos.y);
            speed = (float)(ms * fmin(1.0, d / f.slow_radius));
        }
        const crowd_vec2 want = spec_steer(pos, vel, target, speed);
        cr_assert_eq(c.segment, k, "trial %d", trial);
        cr_assert_eq(c.index, next, "trial %d", trial);
        cr_assert_eq(c.direction, wdir, "trial %d", trial);
        cr_assert_eq(c.state, state, "trial %d", trial);
        cr_assert_float_eq(got.x, want.x, 1e-5f * (1.0f + fabsf(want.x)), "trial %d", trial);
        cr_assert_float_eq(got.y, want.y, 1e-5f * (1.0f + fabsf(want.y)), "trial %d", trial);

        // A finished one-shot keeps arriving at its final point whatever the segment.
        if (state == CROWD_PATH_STATE_FINISHED) {
            const crowd_vec2 again = crowd_path_tube_step(pts, n, &f, &c, 0, pos, vel, ms, 3.0f);
            cr_assert_eq(again.x, got.x);
            cr_assert_eq(again.y, got.y);
        }
    }
    cr_assert_gt(flips, 100);
    cr_assert_gt(finishes, 100);
    cr_assert_gt(outside, 1000);
}

Test(path_tube, projection_and_cursor_start_follow_the_definitions) {
    float d;
    crowd_vec2 q =
        crowd_path_project((crowd_vec2){1, 5}, (crowd_vec2){0, 0}, (crowd_vec2){4, 0}, &d);
    cr_assert(q.x == 1.0f && q.y == 0.0f && d == 5.0f);
    q = crowd_path_project((crowd_vec2){-3, 4}, (crowd_vec2){0, 0}, (crowd_vec2){4, 0}, &d);
    cr_assert(q.x == 0.0f && q.y == 0.0f && d == 5.0f);
    q = crowd_path_project((crowd_vec2){9, 0}, (crowd_vec2){0, 0}, (crowd_vec2){4, 0}, NULL);
    cr_assert(q.x == 4.0f && q.y == 0.0f);
    // |ab|^2 floored at 1e-4: a 1e-3 m segment projects as if it were 1e-2 m long squared.
    q = crowd_path_project((crowd_vec2){1, 0}, (crowd_vec2){0, 0}, (crowd_vec2){1e-3f, 0}, &d);
    cr_assert_float_eq(q.x, 1e-3f * fminf(1.0f, (1.0f * 1e-3f) / 1e-4f), 1e-9f);

    cr_assert_eq(crowd_path_segment_count(5, CROWD_PATH_LOOP), 5);
    cr_assert_eq(crowd_path_segment_count(5, CROWD_PATH_ONE_SHOT), 4);
    cr_assert_eq(crowd_path_segment_count(1, CROWD_PATH_LOOP), 0);

    crowd_path_follow_def f = crowd_path_follow_def_default();
    f.kind = CROWD_PATH_TUBE;
    struct {
        crowd_path_mode mode;
        int start;
        bool reverse;
        int segment;
    } cases[] = {
        {CROWD_PATH_ONE_SHOT, 0, false, 0}, {CROWD_PATH_ONE_SHOT, 4, false, 3},
        {CROWD_PATH_ONE_SHOT, 0, true, 0},  {CROWD_PATH_ONE_SHOT, 3, true, 2},
        {CROWD_PATH_LOOP, 4, false, 4},     {CROWD_PATH_LOOP, 0, true, 4},
        {CROWD_PATH_PING_PONG, 2, true, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        f.mode = cases[i].mode;
        f.start_index = cases[i].start;
        f.reverse = cases[i].reverse;
        const crowd_path_cursor c = crowd_path_cursor_start(5, &f);
        cr_assert_eq(c.segment, cases[i].segment, "case %zu", i);
        cr_assert_eq(c.index, cases[i].start);
        cr_assert_eq(c.direction, cases[i].reverse ? -1 : 1);
        cr_assert_eq(c.state, CROWD_PATH_STATE_FOLLOWING);
    }
}
