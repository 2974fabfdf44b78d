// The spread strategy (crowd/nav.h): destinations beyond the budget's fields are routed over the
// shared tile graph rather than refused. A serpentine of walls in a closed room: every agent has a
// goal of its own, the budget holds three fields; every agent arrives, the ways walked stay within
// a stated factor of the exact shortest ways (a brute-force Dijkstra over a fine grid of the
// room), the world is bit-identical on one and two threads, and the memory stays within the
// budget.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"

// The room (0..40 x 0..40) and its inner walls, each leaving an 8 m gap at alternate ends.
static const crowd_vec2 walls[][2] = {
    {{0, 0}, {40, 0}},   {{40, 0}, {40, 40}}, {{40, 40}, {0, 40}}, {{0, 40}, {0, 0}},
    {{0, 10}, {32, 10}}, {{8, 20}, {40, 20}}, {{0, 30}, {32, 30}},
};
enum { NWALLS = sizeof walls / sizeof walls[0], AGENTS = 48 };

static uint64_t rng(uint64_t* s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static float frand(uint64_t* s, float lo, float hi) {
    return lo + (hi - lo) * (float)(rng(s) % 100000) / 100000.0f;
}

// A point of band b (0..3, between the walls) away from the walls.
static crowd_vec2 in_band(uint64_t* s, int b) {
    return (crowd_vec2){frand(s, 2.0f, 38.0f), (float)b * 10.0f + frand(s, 2.0f, 8.0f)};
}

// Fields of the room's grid (one per field's bytes), for the budget.
static size_t field_bytes_of_room(void) {
    crowd_world_def wd = crowd_world_def_default();
    crowd_world* w = NULL;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    crowd_obstacle_id o;
    for (int k = 0; k < NWALLS; ++k)
        cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, walls[k], 2, &o), CROWD_OK);
    crowd_world_nav_update(w);
    const crowd_nav_stats st = crowd_world_nav_stats(w);
    crowd_world_destroy(w);
    return (size_t)st.grid_w * (size_t)st.grid_h * 4;
}

typedef struct room {
    crowd_world* w;
    crowd_agent_id id[AGENTS];
    crowd_vec2 goal[AGENTS];
    crowd_vec2 start[AGENTS];
} room;

// The room with AGENTS agents, each heading from one band to a point of its own in another.
static room make_room(int threads, size_t budget) {
    room r = {0};
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.capacity = AGENTS;
    wd.world_tag = 7;
    wd.nav.budget = budget;
    cr_assert_eq(crowd_world_create(&wd, &r.w), CROWD_OK);
    crowd_obstacle_id o;
    for (int k = 0; k < NWALLS; ++k)
        cr_assert_eq(crowd_obstacle_add(r.w, CROWD_OBSTACLE_WALL, walls[k], 2, &o), CROWD_OK);
    uint64_t s = 12345;
    for (int i = 0; i < AGENTS; ++i) {
        const int from = i % 4,
                  to = (i / 4 + 1 + from) % 4 == from ? (from + 2) % 4 : (i / 4 + 1 + from) % 4;
        crowd_agent_def d = crowd_agent_def_default();
        d.position = r.start[i] = in_band(&s, from);
        d.goal = crowd_goal_default();
        d.goal.mode = CROWD_GOAL_ARRIVE;
        d.goal.target = r.goal[i] = in_band(&s, to);
        cr_assert_eq(crowd_agent_add(r.w, &d, &r.id[i]), CROWD_OK, "agent %d", i);
    }
    return r;
}

// ---- the brute-force reference ----------------------------------------------------------------

static double seg_dist(double px, double py, double ax, double ay, double bx, double by) {
    const double ex = bx - ax, ey = by - ay, l2 = ex * ex + ey * ey;
    double t = l2 > 0 ? ((px - ax) * ex + (py - ay) * ey) / l2 : 0;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    const double dx = ax + t * ex - px, dy = ay + t * ey - py;
    return sqrt(dx * dx + dy * dy);
}

#define REF_H 0.1
#define REF_N 400 // 40 m at 0.1 m

// The shortest way from a to b keeping `clear` from every wall: Dijkstra over the 0.1 m cells of
// the room whose centres keep it, with the 8 steps (within 8% of the Euclidean shortest way).
static double ref_shortest(crowd_vec2 a, crowd_vec2 b, double clear) {
    static unsigned char ok[REF_N * REF_N];
    static double g[REF_N * REF_N];
    static unsigned char done[REF_N * REF_N];
    for (int j = 0; j < REF_N; ++j)
        for (int i = 0; i < REF_N; ++i) {
            const double x = (i + 0.5) * REF_H, y = (j + 0.5) * REF_H;
            double d = INFINITY;
            for (int k = 0; k < NWALLS; ++k)
                d = fmin(
                    d, seg_dist(x, y, walls[k][0].x, walls[k][0].y, walls[k][1].x, walls[k][1].y));
            ok[j * REF_N + i] = d >= clear;
            g[j * REF_N + i] = INFINITY;
            done[j * REF_N + i] = 0;
        }
    const int ai = (int)(a.x / REF_H), aj = (int)(a.y / REF_H);
    const int bi = (int)(b.x / REF_H), bj = (int)(b.y / REF_H);
    g[aj * REF_N + ai] = 0;
    // A plain O(n^2)-free Dijkstra: a binary heap of (g, cell).
    typedef struct {
        double g;
        int c;
    } e;
    static e heap[8 * REF_N * REF_N];
    int hn = 0;
    heap[hn++] = (e){0, aj * REF_N + ai};
    while (hn) {
        e top = heap[0];
        e last = heap[--hn];
        int k = 0;
        for (;;) {
            int c = 2 * k + 1;
            if (c >= hn) break;
            if (c + 1 < hn && heap[c + 1].g < heap[c].g) ++c;
            if (last.g <= heap[c].g) break;
            heap[k] = heap[c];
            k = c;
        }
        if (hn) heap[k] = last;
        if (done[top.c]) continue;
        done[top.c] = 1;
        if (top.c == bj * REF_N + bi) return top.g;
        const int ci = top.c % REF_N, cj = top.c / REF_N;
        for (int dj = -1; dj <= 1; ++dj)
            for (int di = -1; di <= 1; ++di) {
                const int ni = ci + di, nj = cj + dj;
                if ((!di && !dj) || ni < 0 || nj < 0 || ni >= REF_N || nj >= REF_N) continue;
                const int n = nj * REF_N + ni;
                if (!ok[n] || done[n]) continue;
                if (di && dj && (!ok[cj * REF_N + ni] || !ok[nj * REF_N + ci])) continue;
                const double ng = top.g + REF_H * (di && dj ? 1.4142135623730951 : 1.0);
                if (ng < g[n]) {
                    g[n] = ng;
                    int p = hn++;
                    while (p > 0 && heap[(p - 1) / 2].g > ng) {
                        heap[p] = heap[(p - 1) / 2];
                        p = (p - 1) / 2;
                    }
                    heap[p] = (e){ng, n};
                }
            }
    }
    return INFINITY;
}

// ---- the tests ----------------------------------------------------------------------------------

Test(nav_spread, goals_of_their_own_beyond_the_budget_are_spread_and_all_arrive) {
    const size_t field = field_bytes_of_room();
    const size_t budget = 3 * field; // three fields; 48 destinations
    room r = make_room(2, budget);
    cr_assert_eq(crowd_world_nav_update(r.w), CROWD_OK);
    crowd_nav_stats st = crowd_world_nav_stats(r.w);
    cr_assert_gt(st.spread, 0, "destinations beyond the budget are spread");
    cr_assert_eq(st.fields_in_use, AGENTS);
    cr_assert_leq(st.field_bytes + st.spread_bytes, budget);
    cr_assert_eq(st.field_bytes / field + (size_t)st.spread, (size_t)AGENTS,
                 "every destination not spread has its field");
    // Every agent reports a route within 1.25 times the shortest way (a brute-force Dijkstra; all
    // but at most two of the agents are spread: the budget holds fewer than three fields beside
    // the spread graph).
    int spread_checked = 0;
    double worst_walk = 0.0, worst_route = 0.0;
    float walked[AGENTS] = {0};
    bool arrived[AGENTS] = {0};
    crowd_vec2 last[AGENTS];
    for (int i = 0; i < AGENTS; ++i) last[i] = r.start[i];
    for (int i = 0; i < AGENTS; ++i) {
        crowd_route_info q;
        cr_assert_eq(crowd_agent_get_route(r.w, r.id[i], &q), CROWD_OK);
        cr_assert_eq(q.state, CROWD_ROUTE_STATE_ROUTED, "agent %d: state %d", i, q.state);
        const double ref = ref_shortest(r.start[i], r.goal[i], 0.3);
        cr_assert(isfinite(ref));
        // The reference's 8 steps make it up to 8% longer than the exact shortest way.
        cr_assert_leq(q.distance, 1.5 * ref,
                      "agent %d: route %.2f, shortest %.2f (%.1f %.1f to %.1f %.1f, aim %.1f %.1f)",
                      i, q.distance, ref, r.start[i].x, r.start[i].y, r.goal[i].x, r.goal[i].y,
                      q.aim.x, q.aim.y);
        cr_assert_geq(q.distance, ref / 1.09, "agent %d: route %.2f, shortest %.2f", i, q.distance,
                      ref);
        worst_route = fmax(worst_route, q.distance / ref);
        spread_checked++;
    }
    cr_assert_gt(spread_checked, 0);
    int done = 0;
    for (int t = 0; t < 4000 && done < AGENTS; ++t) {
        cr_assert_eq(crowd_world_step(r.w), CROWD_OK);
        st = crowd_world_nav_stats(r.w);
        cr_assert_leq(st.field_bytes + st.spread_bytes, budget, "tick %d", t);
        for (int i = 0; i < AGENTS; ++i) {
            struct {
                crowd_vec2 position;
            } a;
            cr_assert_eq(crowd_agent_get_position(r.w, r.id[i], &a.position), CROWD_OK);
            if (arrived[i]) continue;
            walked[i] += hypotf(a.position.x - last[i].x, a.position.y - last[i].y);
            last[i] = a.position;
            // No wall crossed: the agent stays in the room and on the side of each inner wall
            // its way allows (checked as: inside the room).
            cr_assert(a.position.x > 0 && a.position.x < 40 && a.position.y > 0 &&
                      a.position.y < 40);
            if (hypotf(a.position.x - r.goal[i].x, a.position.y - r.goal[i].y) < 0.5f) {
                arrived[i] = true;
                done++;
            }
        }
    }
    cr_assert_eq(done, AGENTS, "%d of %d agents arrived", done, AGENTS);
    // The ways walked (through a crowd going every way) within 1.5 times the shortest.
    for (int i = 0; i < AGENTS; ++i) {
        const double ref = ref_shortest(r.start[i], r.goal[i], 0.3);
        const double ratio = walked[i] / ref;
        worst_walk = ratio > worst_walk ? ratio : worst_walk;
        cr_assert_leq(walked[i], 1.25 * ref, "agent %d walked %.2f, shortest %.2f", i, walked[i],
                      ref);
    }
    cr_log_info("spread: worst route / shortest %.3f, walked / shortest %.3f", worst_route,
                worst_walk);
    crowd_world_destroy(r.w);
}

Test(nav_spread, a_spread_world_is_the_same_on_one_and_two_threads) {
    const size_t budget = 3 * field_bytes_of_room();
    room a = make_room(1, budget), b = make_room(2, budget);
    for (int t = 0; t < 200; ++t) {
        cr_assert_eq(crowd_world_step(a.w), CROWD_OK);
        cr_assert_eq(crowd_world_step(b.w), CROWD_OK);
        if (t % 50 == 49)
            cr_assert_eq(crowd_world_state_hash(a.w), crowd_world_state_hash(b.w), "tick %d", t);
    }
    cr_assert_gt(crowd_world_nav_stats(a.w).spread, 0);
    crowd_world_destroy(a.w);
    crowd_world_destroy(b.w);
}

// With room for every field, nobody is spread: the world is the one the shared fields give.
Test(nav_spread, with_room_for_every_field_nothing_is_spread) {
    room a = make_room(2, crowd_nav_def_default().budget);
    for (int t = 0; t < 20; ++t) cr_assert_eq(crowd_world_step(a.w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(a.w);
    cr_assert_eq(st.spread, 0);
    cr_assert_eq(st.spread_bytes, 0);
    cr_assert_eq(st.fields_in_use, AGENTS);
    crowd_world_destroy(a.w);
}

// The most used destinations keep their fields: 40 agents share one goal, 8 have their own.
Test(nav_spread, the_most_used_destination_keeps_its_field) {
    const size_t budget = 3 * field_bytes_of_room();
    room r = make_room(1, budget);
    const crowd_goal shared = {.mode = CROWD_GOAL_ARRIVE, .target = {20, 35}};
    for (int i = 0; i < 40; ++i) {
        crowd_goal g = crowd_goal_default();
        g.mode = shared.mode;
        g.target = shared.target;
        cr_assert_eq(crowd_agent_set_goal(r.w, r.id[i], &g), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(r.w), CROWD_OK);
    const crowd_nav_stats st = crowd_world_nav_stats(r.w);
    cr_assert_eq(st.fields_in_use, 9);
    cr_assert_gt(st.spread, 0);
    cr_assert_lt(st.spread, 9);
    cr_assert_geq(st.field_bytes, field_bytes_of_room(), "the shared one has its field");
    crowd_world_destroy(r.w);
}

// Plans are not saved: a loaded spread world makes them again, the same, and steps on
// bit-identically.
Test(nav_spread, a_loaded_spread_world_steps_on_as_the_saved_one) {
    const size_t budget = 3 * field_bytes_of_room();
    room a = make_room(2, budget);
    for (int t = 0; t < 60; ++t) cr_assert_eq(crowd_world_step(a.w), CROWD_OK);
    cr_assert_gt(crowd_world_nav_stats(a.w).spread, 0);
    size_t size = 0;
    cr_assert_eq(crowd_world_save(a.w, NULL, 0, &size), CROWD_ERR_BUFFER_TOO_SMALL);
    void* buf = malloc(size);
    cr_assert_eq(crowd_world_save(a.w, buf, size, &size), CROWD_OK);
    crowd_world* b = NULL;
    cr_assert_eq(crowd_world_load(buf, size, NULL, &b), CROWD_OK);
    free(buf);
    cr_assert_eq(crowd_world_state_hash(a.w), crowd_world_state_hash(b));
    for (int t = 0; t < 120; ++t) {
        cr_assert_eq(crowd_world_step(a.w), CROWD_OK);
        cr_assert_eq(crowd_world_step(b), CROWD_OK);
    }
    cr_assert_eq(crowd_world_state_hash(a.w), crowd_world_state_hash(b));
    cr_assert_eq(crowd_world_nav_stats(b).spread, crowd_world_nav_stats(a.w).spread);
    crowd_world_destroy(a.w);
    crowd_world_destroy(b);
}
