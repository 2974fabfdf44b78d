// Obstacles as world data: input checks, handles, reading back, the per-agent wall def, and what
// is refused because it would put an agent inside a wall.
#include "path_helpers.h"
#include "walls_helpers.h"
#include "world_helpers.h"

static const crowd_vec2 box4[4] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}};

static crowd_obstacle_id add_obstacle(crowd_world* w, crowd_obstacle_kind kind,
                                      const crowd_vec2* pts, int n) {
    crowd_obstacle_id id;
    cr_assert_eq(crowd_obstacle_add(w, kind, pts, n, &id), CROWD_OK);
    return id;
}

Test(walls_api, add_read_remove_and_handles) {
    crowd_world* w = make_world(1);
    const crowd_vec2 wall[3] = {{-5, 0}, {-5, 10}, {-8, 12}};
    crowd_obstacle_id a = add_obstacle(w, CROWD_OBSTACLE_POLYGON, box4, 4);
    crowd_obstacle_id b = add_obstacle(w, CROWD_OBSTACLE_WALL, wall, 3);
    cr_assert_eq(crowd_world_obstacle_count(w), 2);
    cr_assert_eq(crowd_obstacle_validate(w, a), CROWD_OK);
    cr_assert_eq(crowd_obstacle_validate(w, b), CROWD_OK);

    crowd_vec2 got[8];
    int n = -1;
    crowd_obstacle_kind kind = CROWD_OBSTACLE_KIND_COUNT;
    cr_assert_eq(crowd_obstacle_get_points(w, b, &kind, got, 8, &n), CROWD_OK);
    cr_assert_eq(kind, CROWD_OBSTACLE_WALL);
    cr_assert_eq(n, 3);
    for (int i = 0; i < 3; ++i) cr_assert(got[i].x == wall[i].x && got[i].y == wall[i].y);
    n = -1;
    cr_assert_eq(crowd_obstacle_get_points(w, a, &kind, NULL, 0, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, 4);
    cr_assert_eq(kind, CROWD_OBSTACLE_POLYGON);

    crowd_obstacle_id ids[4];
    cr_assert_eq(crowd_world_get_obstacles(w, ids, 1, &n), CROWD_ERR_BUFFER_TOO_SMALL);
    cr_assert_eq(n, 2);
    cr_assert_eq(crowd_world_get_obstacles(w, ids, 4, &n), CROWD_OK);
    cr_assert_eq(n, 2);
    cr_assert(crowd_obstacle_id_equal(ids[0], a) && crowd_obstacle_id_equal(ids[1], b));

    cr_assert_eq(crowd_obstacle_remove(w, a), CROWD_OK);
    cr_assert_eq(crowd_obstacle_remove(w, a), CROWD_ERR_STALE_OBSTACLE);
    cr_assert_eq(crowd_obstacle_validate(w, a), CROWD_ERR_STALE_OBSTACLE);
    cr_assert_eq(crowd_obstacle_get_points(w, a, NULL, got, 8, &n), CROWD_ERR_STALE_OBSTACLE);
    cr_assert_eq(crowd_world_obstacle_count(w), 1);
    cr_assert_eq(crowd_obstacle_validate(w, (crowd_obstacle_id){0}), CROWD_ERR_NULL_OBSTACLE);
    crowd_obstacle_id foreign = b;
    foreign.world ^= 1;
    cr_assert_eq(crowd_obstacle_validate(w, foreign), CROWD_ERR_FOREIGN_OBSTACLE);
    cr_assert_eq(crowd_obstacle_validate(w, (crowd_obstacle_id){.index1 = 99, .world = b.world}),
                 CROWD_ERR_FOREIGN_OBSTACLE);

    // The freed index comes back with a new generation; the old handle stays stale.
    crowd_obstacle_id c = add_obstacle(w, CROWD_OBSTACLE_POLYGON, box4, 4);
    cr_assert_eq(c.index1, a.index1);
    cr_assert_neq(c.generation, a.generation);
    cr_assert_eq(crowd_obstacle_validate(w, a), CROWD_ERR_STALE_OBSTACLE);
    cr_assert_eq(crowd_world_get_obstacles(w, ids, 4, &n), CROWD_OK);
    cr_assert(n == 2 && crowd_obstacle_id_equal(ids[0], c) && crowd_obstacle_id_equal(ids[1], b));
    crowd_world_destroy(w);
}

Test(walls_api, bad_input_has_its_status_and_changes_nothing) {
    crowd_world* w = make_world(1);
    add_agent(w, (crowd_vec2){20, 20});
    const crowd_vec2 keep[2] = {{-10, -10}, {-10, -5}};
    add_obstacle(w, CROWD_OBSTACLE_WALL, keep, 2);
    const uint64_t hash = crowd_world_state_hash(w);
    const crowd_obstacle_id sentinel = {.index1 = 77, .generation = 5, .world = 9};
    const float nan = NAN, inf = INFINITY;
    struct {
        crowd_obstacle_kind kind;
        crowd_vec2 pts[5];
        int count;
        crowd_status want;
    } cases[] = {
        {CROWD_OBSTACLE_WALL, {{0, 0}}, 1, CROWD_ERR_OBSTACLE_TOO_SHORT},
        {CROWD_OBSTACLE_WALL, {{0, 0}}, -1, CROWD_ERR_OBSTACLE_TOO_SHORT},
        {CROWD_OBSTACLE_POLYGON, {{0, 0}, {1, 0}}, 2, CROWD_ERR_OBSTACLE_TOO_SHORT},
        {CROWD_OBSTACLE_WALL,
         {{0, 0}, {1, 0}},
         CROWD_OBSTACLE_MAX_POINTS + 1,
         CROWD_ERR_OBSTACLE_TOO_LONG},
        {CROWD_OBSTACLE_WALL, {{0, 0}, {nan, 0}}, 2, CROWD_ERR_NOT_FINITE},
        {CROWD_OBSTACLE_POLYGON, {{0, 0}, {1, 0}, {1, -inf}}, 3, CROWD_ERR_NOT_FINITE},
        {CROWD_OBSTACLE_WALL, {{0, 0}, {2e6f, 0}}, 2, CROWD_ERR_OUT_OF_RANGE},
        {CROWD_OBSTACLE_WALL, {{0, 0}, {1, 0}, {1, 0}}, 3, CROWD_ERR_OBSTACLE_REPEATED_POINT},
        // A segment 1e-30 m long: its squared length underflows, so no kernel could measure it.
        {CROWD_OBSTACLE_WALL, {{5, 0}, {5, 1e-30f}}, 2, CROWD_ERR_OBSTACLE_REPEATED_POINT},
        {CROWD_OBSTACLE_POLYGON,
         {{0, 0}, {1e-20f, 0}, {1, 1}},
         3,
         CROWD_ERR_OBSTACLE_REPEATED_POINT},
        // A polygon's closing edge counts: its last point may not repeat its first.
        {CROWD_OBSTACLE_POLYGON,
         {{0, 0}, {1, 0}, {1, 1}, {0, 0}},
         4,
         CROWD_ERR_OBSTACLE_REPEATED_POINT},
        // A bow tie, and a polygon whose edges fold back over each other.
        {CROWD_OBSTACLE_POLYGON,
         {{0, 0}, {2, 2}, {2, 0}, {0, 2}},
         4,
         CROWD_ERR_OBSTACLE_SELF_INTERSECTING},
        {CROWD_OBSTACLE_POLYGON, {{0, 0}, {2, 0}, {1, 0}}, 3, CROWD_ERR_OBSTACLE_SELF_INTERSECTING},
        // Edges that touch at a point other than their shared corner.
        {CROWD_OBSTACLE_POLYGON,
         {{0, 0}, {4, 0}, {4, 4}, {2, 0}, {0, 4}},
         5,
         CROWD_ERR_OBSTACLE_SELF_INTERSECTING},
        {CROWD_OBSTACLE_KIND_COUNT, {{0, 0}, {1, 0}}, 2, CROWD_ERR_INVALID_ENUM},
        // Over the agent at (20, 20): through it, and around it.
        {CROWD_OBSTACLE_WALL, {{19, 20.2f}, {21, 20.2f}}, 2, CROWD_ERR_INSIDE_OBSTACLE},
        {CROWD_OBSTACLE_POLYGON,
         {{10, 10}, {30, 10}, {30, 30}, {10, 30}},
         4,
         CROWD_ERR_INSIDE_OBSTACLE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        crowd_obstacle_id out = sentinel;
        cr_assert_eq(crowd_obstacle_add(w, cases[i].kind, cases[i].pts, cases[i].count, &out),
                     cases[i].want, "case %zu", i);
        cr_assert(crowd_obstacle_id_equal(out, sentinel), "case %zu wrote the handle", i);
        cr_assert_eq(crowd_world_obstacle_count(w), 1);
        cr_assert_eq(crowd_world_state_hash(w), hash, "case %zu", i);
    }
    crowd_obstacle_id out = sentinel;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, NULL, 2, &out),
                 CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, keep, 2, NULL),
                 CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_obstacle_add(NULL, CROWD_OBSTACLE_WALL, keep, 2, &out),
                 CROWD_ERR_NULL_ARGUMENT);
    // A wall may cross itself; a concave polygon is fine; a wall just clear of the agent is too.
    const crowd_vec2 zigzag[4] = {{0, 0}, {2, 2}, {2, 0}, {0, 2}};
    const crowd_vec2 ell[6] = {{0, 0}, {4, 0}, {4, 1}, {1, 1}, {1, 4}, {0, 4}};
    const crowd_vec2 clear[2] = {{19, 20.31f}, {21, 20.31f}};
    add_obstacle(w, CROWD_OBSTACLE_WALL, zigzag, 4);
    add_obstacle(w, CROWD_OBSTACLE_POLYGON, ell, 6);
    add_obstacle(w, CROWD_OBSTACLE_WALL, clear, 2);
    cr_assert_eq(crowd_world_obstacle_count(w), 4);
    crowd_world_destroy(w);
}

Test(walls_api, agents_are_never_placed_in_a_wall) {
    crowd_world* w = make_world(1);
    const crowd_vec2 wall[2] = {{0, 0}, {10, 0}};
    add_obstacle(w, CROWD_OBSTACLE_WALL, wall, 2);
    add_obstacle(w, CROWD_OBSTACLE_POLYGON, (crowd_vec2[4]){{20, 0}, {30, 0}, {30, 10}, {20, 10}},
                 4);
    crowd_agent_def a = crowd_agent_def_default(); // radius 0.3
    crowd_agent_id id;
    const struct {
        crowd_vec2 p;
        crowd_status want;
    } cases[] = {
        {{5, 0.29f}, CROWD_ERR_INSIDE_OBSTACLE},    // overlaps the wall
        {{5, -0.1f}, CROWD_ERR_INSIDE_OBSTACLE},    // other side, overlapping
        {{10.2f, 0.1f}, CROWD_ERR_INSIDE_OBSTACLE}, // past the end point, still overlapping
        {{25, 5}, CROWD_ERR_INSIDE_OBSTACLE},       // inside the solid
        {{20.2f, 5}, CROWD_ERR_INSIDE_OBSTACLE},    // overlapping the solid's edge from inside
        {{19.8f, 5}, CROWD_ERR_INSIDE_OBSTACLE},    // overlapping it from outside
        {{5, 0.31f}, CROWD_OK},
        {{5, -0.31f}, CROWD_OK},
        {{10.31f, 0}, CROWD_OK},
        {{19.69f, 5}, CROWD_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        a.position = cases[i].p;
        cr_assert_eq(crowd_agent_add(w, &a, &id), cases[i].want, "case %zu", i);
    }
    cr_assert_eq(crowd_world_agent_count(w), 4);

    // Teleports: into a wall or a solid refused (the agent stays), across a wall allowed.
    crowd_vec2 p;
    cr_assert_eq(crowd_agent_set_position(w, id, (crowd_vec2){25, 5}), CROWD_ERR_INSIDE_OBSTACLE);
    cr_assert_eq(crowd_agent_set_position(w, id, (crowd_vec2){3, 0.2f}), CROWD_ERR_INSIDE_OBSTACLE);
    cr_assert_eq(crowd_agent_get_position(w, id, &p), CROWD_OK);
    cr_assert(p.x == 19.69f && p.y == 5.0f);
    cr_assert_eq(crowd_agent_set_position(w, id, (crowd_vec2){3, -2}), CROWD_OK);
    // Growing into the wall is refused; a radius that still fits is not.
    cr_assert_eq(crowd_agent_set_radius(w, id, 2.5f), CROWD_ERR_INSIDE_OBSTACLE);
    cr_assert_eq(crowd_agent_set_radius(w, id, 1.9f), CROWD_OK);
    crowd_world_destroy(w);
}

Test(walls_api, wall_def_per_agent) {
    crowd_world* w = make_world(1);
    const crowd_wall_def d = crowd_wall_def_default();
    cr_assert(d.weight > 0.0f && d.look_ahead > 0.0f);
    crowd_agent_def a = crowd_agent_def_default();
    cr_assert(a.walls.weight == d.weight && a.walls.look_ahead == d.look_ahead);
    a.walls = (crowd_wall_def){.weight = 2.5f, .look_ahead = 0.25f};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    crowd_wall_def got;
    cr_assert_eq(crowd_agent_get_walls(w, id, &got), CROWD_OK);
    cr_assert(got.weight == 2.5f && got.look_ahead == 0.25f);
    crowd_agent_def back;
    cr_assert_eq(crowd_agent_get_def(w, id, &back), CROWD_OK);
    cr_assert(back.walls.weight == 2.5f && back.walls.look_ahead == 0.25f);

    const uint64_t hash = crowd_world_state_hash(w);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){-1, 1}), CROWD_ERR_BAD_WEIGHT);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){1, -1}), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){2e3f, 1}), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){1, 2e4f}), CROWD_ERR_OUT_OF_RANGE);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){NAN, 1}), CROWD_ERR_NOT_FINITE);
    cr_assert_eq(crowd_agent_set_walls(w, id, &(crowd_wall_def){1, INFINITY}),
                 CROWD_ERR_NOT_FINITE);
    cr_assert_eq(crowd_agent_set_walls(w, id, NULL), CROWD_ERR_NULL_ARGUMENT);
    cr_assert_eq(crowd_world_state_hash(w), hash);
    cr_assert_eq(crowd_agent_get_walls(w, id, &got), CROWD_OK);
    cr_assert(got.weight == 2.5f && got.look_ahead == 0.25f);

    cr_assert_eq(crowd_agent_set_walls(w, id, &d), CROWD_OK);
    cr_assert_eq(crowd_agent_get_walls(w, id, &got), CROWD_OK);
    cr_assert(got.weight == d.weight && got.look_ahead == d.look_ahead);
    a.walls.weight = -1.0f;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_ERR_BAD_WEIGHT);
    crowd_world_destroy(w);
}

Test(walls_api, the_obstacle_count_is_capped) {
    crowd_world* w = make_world(1);
    crowd_obstacle_id id;
    for (int i = 0; i < CROWD_OBSTACLE_MAX_COUNT; ++i) {
        const crowd_vec2 p[2] = {{(float)(i % 256) * 3.0f, (float)(i / 256) * 3.0f},
                                 {(float)(i % 256) * 3.0f + 1.0f, (float)(i / 256) * 3.0f}};
        cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, p, 2, &id), CROWD_OK);
    }
    const crowd_vec2 p[2] = {{-5, -5}, {-4, -5}};
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, p, 2, &id), CROWD_ERR_CAPACITY);
    cr_assert_eq(crowd_obstacle_remove(w, id), CROWD_OK); // the last one added
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, p, 2, &id), CROWD_OK);
    cr_assert_eq(crowd_world_obstacle_count(w), CROWD_OBSTACLE_MAX_COUNT);
    crowd_world_destroy(w);
}

// An allocator whose allocation number `fail_at` (and every later one) fails, -1 = never.
typedef struct failing {
    long allocs, fail_at;
    long long live;
} failing;

static void* fail_alloc(size_t size, size_t align, void* user) {
    failing* f = user;
    if (f->fail_at >= 0 && f->allocs >= f->fail_at) return NULL;
    void* p = aligned_alloc(align, (size + align - 1) & ~(align - 1));
    if (p) f->allocs++, f->live += (long long)size;
    return p;
}

static void fail_free(void* p, size_t size, void* user) {
    failing* f = user;
    f->live -= (long long)size;
    free(p);
}

// Every allocation of adding and removing obstacles, failed one at a time: out of memory
// reported, the world as it was (count, every obstacle's points, the refusals of agents), nothing
// leaked.
Test(walls_api, every_failed_allocation_is_clean) {
    for (long fail = 0;; ++fail) {
        failing f = {.fail_at = -1};
        crowd_world_def wd = crowd_world_def_default();
        wd.threads = 1;
        wd.alloc = fail_alloc;
        wd.free = fail_free;
        wd.alloc_user = &f;
        crowd_world* w = NULL;
        cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
        f.fail_at = f.allocs + fail;
        bool failed = false;
        crowd_obstacle_id ids[64];
        int live = 0;
        for (int i = 0; i < 64 && !failed; ++i) {
            const float x = (float)(i % 8) * 7.0f, y = (float)(i / 8) * 7.0f;
            const crowd_vec2 poly[5] = {
                {x, y}, {x + 5, y}, {x + 5, y + 5}, {x + 2, y + 3}, {x, y + 5}};
            if (i % 5 == 4) { // removal never allocates
                cr_assert_eq(crowd_obstacle_remove(w, ids[--live]), CROWD_OK);
                continue;
            }
            crowd_status st = crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, poly, 5, &ids[live]);
            if (st != CROWD_OK) {
                cr_assert_eq(st, CROWD_ERR_OUT_OF_MEMORY);
                failed = true;
            } else {
                ++live;
            }
            cr_assert_eq(crowd_world_obstacle_count(w), live);
        }
        // Whatever happened, the live obstacles are exactly the ones that were added: each blocks
        // an agent at its centre, removed or never-added ones do not.
        f.fail_at = -1;
        crowd_agent_def a = crowd_agent_def_default();
        crowd_agent_id id;
        for (int i = 0; i < live; ++i) {
            crowd_vec2 pts[5];
            int n;
            cr_assert_eq(crowd_obstacle_get_points(w, ids[i], NULL, pts, 5, &n), CROWD_OK);
            a.position = (crowd_vec2){pts[0].x + 1.0f, pts[0].y + 1.0f};
            cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_ERR_INSIDE_OBSTACLE);
        }
        a.position = (crowd_vec2){-3.0f, -3.0f}; // clear of every obstacle
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        crowd_world_destroy(w);
        cr_assert_eq(f.live, 0);
        if (!failed) break;
    }
}

// Adds `tries` obstacles and expects each refused with CROWD_ERR_INSIDE_OBSTACLE exactly when it
// would overlap an agent's disc or hold its centre (brute force over every agent, in double, from
// the positions read now); an accepted one is removed again. Squares and open polylines of three
// points, of half-size 0.1 to 3 m, centred anywhere in [-span, span]^2 or, for `near` of them in
// four, on an agent with an offset of up to 4 m, so that many refusals and near misses are tested.
// Counts the refusals and acceptances into `counts`.
static void expect_adds_as_brute_force(crowd_world* w, uint64_t* rng, int tries, float span,
                                       int counts[2]) {
    const int na = crowd_world_agent_count(w);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)(na + 1));
    crowd_vec2* pos = malloc(sizeof *pos * (size_t)(na + 1));
    double* radius = malloc(sizeof *radius * (size_t)(na + 1));
    int count = 0;
    cr_assert_eq(crowd_world_get_agents(w, ids, pos, NULL, na, &count), CROWD_OK);
    cr_assert_eq(count, na);
    for (int i = 0; i < na; ++i) {
        crowd_agent_def d;
        cr_assert_eq(crowd_agent_get_def(w, ids[i], &d), CROWD_OK);
        radius[i] = d.radius;
    }
    for (int t = 0; t < tries; ++t) {
        float cx = frand(rng, -span, span), cy = frand(rng, -span, span);
        if (na > 0 && t % 4 != 0) {
            const crowd_vec2 on = pos[(int)frand(rng, 0.0f, (float)na - 0.01f)];
            cx = on.x + frand(rng, -4.0f, 4.0f), cy = on.y + frand(rng, -4.0f, 4.0f);
        }
        const float h = frand(rng, 0.1f, 3.0f);
        const bool wall = t % 2 == 1; // an open polyline of three points, else a square
        const crowd_vec2 p[4] = {
            {cx - h, cy - h}, {cx + h, cy - h}, {cx + h, cy + h}, {cx - h, cy + h}};
        const int n = wall ? 3 : 4, segs = wall ? 2 : 4;
        bool covers = false;
        for (int i = 0; i < na && !covers; ++i) {
            for (int k = 0; k < segs; ++k) {
                const crowd_vec2 e0 = p[k], e1 = p[(k + 1) % n];
                covers |= ref_seg_dist(pos[i].x, pos[i].y, e0.x, e0.y, e1.x, e1.y) < radius[i];
            }
            covers |= !wall && ref_in_polygon(p, 4, pos[i].x, pos[i].y);
        }
        crowd_obstacle_id id;
        const crowd_status st =
            crowd_obstacle_add(w, wall ? CROWD_OBSTACLE_WALL : CROWD_OBSTACLE_POLYGON, p, n, &id);
        cr_assert_eq(st, covers ? CROWD_ERR_INSIDE_OBSTACLE : CROWD_OK, "obstacle %d", t);
        if (st == CROWD_OK) {
            ++counts[1];
            cr_assert_eq(crowd_obstacle_remove(w, id), CROWD_OK);
        } else {
            ++counts[0];
        }
    }
    free(ids), free(pos), free(radius);
}

// In a crowd of 1,500 agents of three radii that has never stepped, so that the agents an add
// covers sit anywhere in its scan of the positions.
Test(walls_api, adds_over_agents_are_refused_as_brute_force_says) {
    crowd_world* w = make_world(1);
    enum { N = 1500 };
    uint64_t rng = 41;
    crowd_agent_def a = crowd_agent_def_default();
    const float radii[3] = {0.2f, 0.3f, 0.6f};
    for (int i = 0; i < N; ++i) {
        a.position = (crowd_vec2){frand(&rng, -60, 60), frand(&rng, -60, 60)};
        a.radius = radii[i % 3];
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    }
    int counts[2] = {0, 0};
    expect_adds_as_brute_force(w, &rng, 400, 60.0f, counts);
    cr_assert_gt(counts[0], 50);
    cr_assert_gt(counts[1], 50);
    crowd_world_destroy(w);
}

// Adds n agents like `a` at random points of [-50, 50]^2; those a wall would overlap are refused.
static void add_scattered(crowd_world* w, crowd_agent_def* a, uint64_t* rng, int n) {
    for (int i = 0; i < n; ++i) {
        a->position = (crowd_vec2){frand(rng, -50, 50), frand(rng, -50, 50)};
        crowd_agent_id id;
        (void)crowd_agent_add(w, a, &id);
    }
}

// After steps the add looks for covered agents through the last sort's grid, widened by the
// step's longest move (crowd_world.since_sort); every way an agent can be somewhere else than
// that allows must still be seen. A crowd moving up to 24 m/s with dt 0.5 s (moves of up to 4.8
// cells), sliding along standing walls, is checked after a step in which queueing agents arrived
// and respawned in a far area, after a plain step, after agents are added, removed (then as many
// added) and moved by hand, on 1 and 2 threads.
Test(walls_api, adds_after_steps_are_refused_as_brute_force_says) {
    for (int threads = 1; threads <= 2; ++threads) {
        crowd_world* w = walls_world(threads, 0.5f);
        uint64_t rng = 97 + (uint64_t)threads;
        // Standing walls across the crowd's way (the clamp slides agents along them).
        for (int k = -2; k <= 2; ++k) {
            const crowd_vec2 wall[2] = {{(float)k * 20.0f, -40.0f},
                                        {(float)k * 20.0f + 6.0f, 40.0f}};
            add_obstacle(w, CROWD_OBSTACLE_WALL, wall, 2);
        }
        crowd_agent_def a = crowd_agent_def_default();
        const float radii[3] = {0.2f, 0.3f, 0.6f};
        crowd_agent_id ids[1200];
        int added = 0;
        for (int i = 0; added < 1200; ++i) {
            a.position = (crowd_vec2){frand(&rng, -50, 50), frand(&rng, -50, 50)};
            a.max_speed = frand(&rng, 1.0f, 24.0f);
            a.velocity = (crowd_vec2){frand(&rng, -24, 24), frand(&rng, -24, 24)};
            a.radius = radii[i % 3];
            if (crowd_agent_add(w, &a, &ids[added]) == CROWD_OK) ++added;
        }
        // Queueing agents, put on their goal at rest before a step: they arrive and respawn 125 m
        // away.
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){0.0f, 60.0f};
        q.arrival_radius = 3.0f;
        q.on_arrival = CROWD_QUEUE_RESPAWN;
        q.start_min = (crowd_vec2){-70.0f, -70.0f};
        q.start_max = (crowd_vec2){70.0f, -65.0f};
        // At 1.5 m/s they come nowhere near the goal again on their own.
        for (int i = 0; i < 100; ++i) {
            cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
            cr_assert_eq(crowd_agent_set_limits(w, ids[i], 1.5f, 3.0f), CROWD_OK);
        }
        int counts[2] = {0, 0};
        for (int round = 0; round < 4; ++round) {
            for (int i = 0; i < 100; ++i) {
                const crowd_vec2 at = {frand(&rng, -2.0f, 2.0f), 60.0f + frand(&rng, -2.0f, 2.0f)};
                (void)crowd_agent_set_position(w, ids[i], at);
                cr_assert_eq(crowd_agent_set_velocity(w, ids[i], (crowd_vec2){0.0f, 0.0f}),
                             CROWD_OK);
            }
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            cr_assert_gt(crowd_world_arrival_count(w), 50);
            expect_adds_as_brute_force(w, &rng, 150, 70.0f, counts);
            // Those still near the goal go to the start area by hand: no arrivals from here on.
            for (int i = 0; i < 100; ++i) {
                const crowd_vec2 at = {frand(&rng, -70.0f, 70.0f), -67.0f};
                (void)crowd_agent_set_position(w, ids[i], at);
            }
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            expect_adds_as_brute_force(w, &rng, 100, 70.0f, counts);
            // Agents added since the step.
            add_scattered(w, &a, &rng, 50);
            expect_adds_as_brute_force(w, &rng, 100, 70.0f, counts);
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            // Agents removed (the last slots fill the holes), then as many added.
            for (int i = 0; i < 50; ++i)
                cr_assert_eq(crowd_agent_remove(w, ids[100 + round * 50 + i]), CROWD_OK);
            add_scattered(w, &a, &rng, 50);
            expect_adds_as_brute_force(w, &rng, 300, 70.0f, counts);
            cr_assert_eq(crowd_world_step(w), CROWD_OK);
            // Agents moved by hand.
            for (int i = 0; i < 100; ++i) {
                const crowd_vec2 far = {frand(&rng, -60, 60), frand(&rng, -60, 60)};
                (void)crowd_agent_set_position(w, ids[400 + round * 100 + i], far);
            }
            expect_adds_as_brute_force(w, &rng, 100, 70.0f, counts);
        }
        cr_assert_gt(counts[0], 300, "refused %d", counts[0]);
        cr_assert_gt(counts[1], 300, "accepted %d", counts[1]);
        crowd_world_destroy(w);
    }
}
