// Queues on real scenarios: a single file, a cloud funnelling into one goal, self-healing after
// removals and additions, a respawning queue that runs forever, and determinism across threads.
// The first three are the spec's queue (CROWD_QUEUE_LITERAL), whose brake they measure; the
// others, and tests/test_bound_queue.c, the default CROWD_QUEUE_FILE.
//
// The agents are the engine's defaults (radius 0.3, max speed 1.5, max force 3, separation radius
// 1.2) with the default cone (2.5 x 0.6). Separation weight is 1.5: at the default 1 a funnelling
// cloud comes within a few centimetres of the overlap bound, at 1.5 it keeps a clear margin.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "scenes.h"

#define RADIUS 0.3f
#define OVERLAP (1.8f * RADIUS)
#define SEP_WEIGHT 1.5f
#define MAX_AGENTS 64

static bool small_scale(void) {
    const char* s = getenv("CROWD_TEST_SCALE");
    return s && !strcmp(s, "small");
}

static crowd_world* make_world(int threads) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.seed = 3;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    return w;
}

static crowd_agent_id add_queuer(crowd_world* w, crowd_vec2 pos, float max_speed,
                                 const crowd_queue_def* q, uint64_t user) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = pos;
    a.max_speed = max_speed;
    a.separation_weight = SEP_WEIGHT;
    a.user_data = user;
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
    cr_assert_eq(crowd_agent_set_queue(w, id, q), CROWD_OK);
    return id;
}

typedef struct snapshot {
    int n;
    crowd_agent_id id[MAX_AGENTS];
    crowd_vec2 p[MAX_AGENTS], v[MAX_AGENTS];
} snapshot;

static void snap(const crowd_world* w, snapshot* s) {
    cr_assert_eq(crowd_world_get_agents(w, s->id, s->p, s->v, MAX_AGENTS, &s->n), CROWD_OK);
}

static float min_distance(const snapshot* s) {
    float m = INFINITY;
    for (int i = 0; i < s->n; ++i)
        for (int j = i + 1; j < s->n; ++j)
            m = fminf(m, hypotf(s->p[i].x - s->p[j].x, s->p[i].y - s->p[j].y));
    return m;
}

// ---- a single file ---------------------------------------------------------------------------

// Ten agents released from rest one behind the other, 0.8 m apart with a little sideways jitter,
// toward a goal 30 m ahead; each is removed on arrival. Handle order is file order.
Test(queue_scenarios, single_file) {
    enum { N = 10 };
    const float jitter[N] = {0.0f, 0.12f, -0.1f, 0.15f, -0.14f, 0.08f, -0.12f, 0.1f, -0.06f, 0.13f};
    crowd_world* w = make_world(1);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){30.0f, 0.0f};
    q.on_arrival = CROWD_QUEUE_REMOVE;
    q.form = CROWD_QUEUE_LITERAL; // the spec's brake spreading a file (figures below)
    for (int k = 0; k < N; ++k)
        add_queuer(w, (crowd_vec2){-0.8f * (float)k, jitter[k]}, 1.5f, &q, (uint64_t)k);

    uint64_t order[N];
    int arrival_tick[N], arrived = 0;
    snapshot s;
    for (int t = 0; t < 2000 && crowd_world_agent_count(w) > 0; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        crowd_arrival ev[N];
        int n;
        cr_assert_eq(crowd_world_get_arrivals(w, ev, N, &n), CROWD_OK);
        for (int k = 0; k < n; ++k) {
            order[arrived] = ev[k].user_data;
            arrival_tick[arrived++] = t;
        }
        snap(w, &s);
        cr_assert_gt(min_distance(&s), OVERLAP, "tick %d: overlap", t);
        for (int i = 0; i < s.n; ++i) {
            cr_assert_lt(fabsf(s.p[i].y), q.cone_width, "tick %d: agent %d left the file", t, i);
            if (i > 0)
                cr_assert_gt(s.p[i - 1].x - s.p[i].x, 0.0f,
                             "tick %d: agent %u passed the one ahead", t, s.id[i].index1);
        }
    }
    cr_assert_eq(arrived, N, "all arrive: %d", arrived);
    for (int k = 0; k < N; ++k) {
        cr_assert_eq(order[k], (uint64_t)k, "arrival %d was agent %llu", k,
                     (unsigned long long)order[k]);
        // Released 0.8 m apart, the file is spread by the brake (a follower closer than the cone
        // length goes slower than the one ahead): arrivals come at least 1.2 s apart. Without
        // the brake this file arrives 0.8 to 1.3 s apart.
        if (k > 0)
            cr_assert_geq(arrival_tick[k] - arrival_tick[k - 1], 12, "arrivals %d and %d: %d ticks",
                          k - 1, k, arrival_tick[k] - arrival_tick[k - 1]);
    }
    crowd_world_destroy(w);
}

// ---- a cloud into one goal ------------------------------------------------------------------

// 50 agents scattered at least 1 m apart over a 10 x 10 m square, 20 m from one goal, released
// from rest; each is removed on arrival. No overlap at any tick, every agent arrives, and the
// queue never stalls: arrivals keep coming.
static void cloud(uint64_t seed) {
    enum { N = 50 };
    crowd_world* w = make_world(1);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){0.0f, 0.0f};
    q.on_arrival = CROWD_QUEUE_REMOVE;
    q.form = CROWD_QUEUE_LITERAL; // the spec's queue (tests/test_bound_queue.c: the default)
    scene_rng rng = {seed};
    crowd_vec2 pos[N];
    for (int placed = 0; placed < N;) {
        const crowd_vec2 p = {scene_rng_float(&rng, -25.0f, -15.0f),
                              scene_rng_float(&rng, -5.0f, 5.0f)};
        bool ok = true;
        for (int j = 0; j < placed; ++j) ok &= hypotf(p.x - pos[j].x, p.y - pos[j].y) >= 1.0f;
        if (ok) pos[placed++] = p;
    }
    for (int i = 0; i < N; ++i) add_queuer(w, pos[i], 1.5f, &q, (uint64_t)i);

    int arrived = 0, last = 0, longest_wait = 0, t = 0;
    bool seen[N] = {false};
    snapshot s;
    for (; t < 3000 && crowd_world_agent_count(w) > 0; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        crowd_arrival ev[N];
        int n;
        cr_assert_eq(crowd_world_get_arrivals(w, ev, N, &n), CROWD_OK);
        for (int k = 0; k < n; ++k) {
            cr_assert(!seen[ev[k].user_data]);
            seen[ev[k].user_data] = true;
        }
        if (n > 0) {
            if (arrived > 0 && t - last > longest_wait) longest_wait = t - last;
            last = t;
        }
        arrived += n;
        snap(w, &s);
        cr_assert_gt(min_distance(&s), OVERLAP, "seed %llu tick %d: overlap",
                     (unsigned long long)seed, t);
    }
    cr_assert_eq(arrived, N, "seed %llu: %d of %d arrived in %d ticks", (unsigned long long)seed,
                 arrived, N, t);
    cr_assert_lt(longest_wait, 200, "seed %llu: the queue stalled for %d ticks",
                 (unsigned long long)seed, longest_wait);
    crowd_world_destroy(w);
}

Test(queue_scenarios, cloud_funnels_into_one_goal) {
    for (uint64_t seed = 1; seed <= 3; ++seed) cloud(seed);
}

// ---- self-healing -----------------------------------------------------------------------------

// A file behind a slow walker. Every follower settles where its braked desired speed equals the
// head's speed, max_speed * gap / cone_length = head_speed, so the gap is cone_length * head_speed
// / max_speed = 1.25 m: beyond the separation radius, so separation is silent and the gap is the
// brake's alone.
//
// Behind a head that stands still (a STOP goal) the spec's brake never reaches zero while the gap
// is positive, every follower keeps pushing, the pushes add up along the file and a file longer
// than a few agents buckles into a compact cluster at the goal; a moving head is what holds a
// file open.
#define HEAD_SPEED 0.75f

// The agents front to back (handle order is not file order once an index is reused).
static void file_order(snapshot* s) {
    for (int i = 1; i < s->n; ++i)
        for (int j = i; j > 0 && s->p[j - 1].x < s->p[j].x; --j) {
            const crowd_vec2 p = s->p[j - 1];
            const crowd_agent_id id = s->id[j - 1];
            s->p[j - 1] = s->p[j];
            s->id[j - 1] = s->id[j];
            s->p[j] = p;
            s->id[j] = id;
        }
}

// Gaps along the lane equal `want`, and everyone is within a cone width of the lane.
static void check_gaps(snapshot* s, float want, const char* when) {
    file_order(s);
    for (int i = 1; i < s->n; ++i) {
        const float gap = s->p[i - 1].x - s->p[i].x;
        cr_assert_lt(fabsf(gap - want), 0.05f, "%s: gap before agent %u is %f, want %f", when,
                     s->id[i].index1, (double)gap, (double)want);
        cr_assert_lt(fabsf(s->p[i].y), 0.6f, "%s: agent %u left the lane", when, s->id[i].index1);
    }
}

static void run_checked(crowd_world* w, int ticks, const char* when) {
    snapshot s;
    for (int t = 0; t < ticks; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        snap(w, &s);
        cr_assert_gt(min_distance(&s), OVERLAP, "%s, tick %d: overlap", when, t);
    }
}

Test(queue_scenarios, self_healing) {
    enum { N = 8 };
    crowd_world* w = make_world(1);
    crowd_queue_def q = crowd_queue_def_default();
    q.form = CROWD_QUEUE_LITERAL;         // the spec's brake sets the gaps (figures above)
    q.goal = (crowd_vec2){1000.0f, 0.0f}; // far: nobody arrives during the test
    crowd_agent_id ids[N];
    for (int k = 0; k < N; ++k)
        ids[k] = add_queuer(w, (crowd_vec2){-1.0f * (float)k, 0.05f * (float)((k * 37) % 5 - 2)},
                            k == 0 ? HEAD_SPEED : 1.5f, &q, (uint64_t)k);
    const float want = q.cone_length * HEAD_SPEED / 1.5f;
    snapshot s;
    run_checked(w, 400, "forming");
    snap(w, &s);
    check_gaps(&s, want, "formed");

    // Remove the middle agent: a gap of two spacings opens, the ones behind close it.
    cr_assert_eq(crowd_agent_remove(w, ids[N / 2]), CROWD_OK);
    snap(w, &s);
    file_order(&s);
    cr_assert_gt(s.p[N / 2 - 1].x - s.p[N / 2].x, 1.8f * want, "the gap opened");
    run_checked(w, 400, "after the removal");
    snap(w, &s);
    cr_assert_eq(s.n, N - 1);
    check_gaps(&s, want, "gap closed");

    // A newcomer on the lane 4 m behind the tail catches up and joins the end of the file.
    const crowd_vec2 tail = s.p[s.n - 1]; // check_gaps left the snapshot front to back
    crowd_agent_id late = add_queuer(w, (crowd_vec2){tail.x - 4.0f, tail.y}, 1.5f, &q, (uint64_t)N);
    run_checked(w, 400, "after the addition");
    snap(w, &s);
    cr_assert_eq(s.n, N);
    check_gaps(&s, want, "joined");
    cr_assert(crowd_agent_id_equal(s.id[s.n - 1], late), "the newcomer is last in the file");
    crowd_world_destroy(w);
}

// ---- a queue that runs forever ----------------------------------------------------------------

// Twenty agents walk a 20 m lane and respawn in a 2 x 2 m start area on arrival. Counted over
// windows of 1,000 ticks, arrivals stay within 20% of their mean: no jam builds up.
Test(queue_scenarios, respawn_throughput_is_steady) {
    enum { N = 20, TICKS = 20000, WINDOW = 1000 };
    crowd_world* w = make_world(1);
    crowd_queue_def q = crowd_queue_def_default();
    q.goal = (crowd_vec2){0.0f, 0.0f};
    q.on_arrival = CROWD_QUEUE_RESPAWN;
    q.start_min = (crowd_vec2){-22.0f, -1.0f};
    q.start_max = (crowd_vec2){-20.0f, 1.0f};
    for (int k = 0; k < N; ++k)
        add_queuer(w, (crowd_vec2){-20.0f + 0.9f * (float)k, 0.15f * (float)((k * 7) % 5 - 2)},
                   1.5f, &q, (uint64_t)k);
    int windows[TICKS / WINDOW] = {0};
    for (int t = 0; t < TICKS; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        windows[t / WINDOW] += crowd_world_arrival_count(w);
    }
    cr_assert_eq(crowd_world_agent_count(w), N);
    double mean = 0.0;
    for (int i = 0; i < TICKS / WINDOW; ++i) mean += windows[i];
    mean /= TICKS / WINDOW;
    cr_assert_gt(mean, 10.0, "the queue flows: %f arrivals per window", mean);
    for (int i = 0; i < TICKS / WINDOW; ++i)
        cr_assert(fabs(windows[i] - mean) <= 0.2 * mean, "window %d: %d arrivals, mean %.1f", i,
                  windows[i], mean);
    crowd_world_destroy(w);
}

// ---- determinism --------------------------------------------------------------------------------

// The shared queue scene with all three policies, agents added and removed between steps: the
// state hash and the arrival lists are identical at 1, 2, 3 and 8 threads.
typedef struct trace {
    uint64_t hash[200];
    int arrivals[200];
    uint64_t arrival_hash;
} trace;

static void run_trace(int threads, int agents, trace* out) {
    scene_def def = scene_def_default();
    def.kind = SCENE_QUEUE;
    def.agents = agents;
    def.queues = 12;
    def.threads = threads;
    def.density = 0.5f;
    crowd_world* w;
    cr_assert_eq(scene_create(&def, &w), CROWD_OK);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)agents * 2);
    crowd_arrival* ev = malloc(sizeof *ev * (size_t)agents * 2);
    cr_assert(ids && ev);
    int n;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, agents, &n), CROWD_OK);
    for (int i = 0; i < n; ++i) {
        crowd_queue_def q;
        cr_assert_eq(crowd_agent_get_queue(w, ids[i], &q), CROWD_OK);
        q.on_arrival =
            i % 5 == 0 ? CROWD_QUEUE_REMOVE : (i % 7 == 0 ? CROWD_QUEUE_STOP : CROWD_QUEUE_RESPAWN);
        cr_assert_eq(crowd_agent_set_queue(w, ids[i], &q), CROWD_OK);
    }
    scene_rng rng = {77};
    out->arrival_hash = 1469598103934665603ull;
    for (int t = 0; t < 200; ++t) {
        if (t % 20 == 10) { // churn: a removal and an addition that reuses the index
            cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, agents * 2, &n), CROWD_OK);
            crowd_agent_id victim = ids[scene_rng_next(&rng) % (uint64_t)n];
            crowd_queue_def q;
            cr_assert_eq(crowd_agent_get_queue(w, victim, &q), CROWD_OK);
            cr_assert_eq(crowd_agent_remove(w, victim), CROWD_OK);
            crowd_agent_def a = crowd_agent_def_default();
            a.position = (crowd_vec2){scene_rng_float(&rng, q.start_min.x, q.start_max.x),
                                      scene_rng_float(&rng, q.start_min.y, q.start_max.y)};
            crowd_agent_id id;
            cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
            cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
        }
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        out->hash[t] = crowd_world_state_hash(w);
        cr_assert_eq(crowd_world_get_arrivals(w, ev, agents * 2, &out->arrivals[t]), CROWD_OK);
        for (int k = 0; k < out->arrivals[t]; ++k) {
            uint32_t words[6];
            memcpy(&words[0], &ev[k].position.x, 4);
            memcpy(&words[1], &ev[k].position.y, 4);
            words[2] = ev[k].id.index1;
            words[3] = ev[k].id.generation;
            words[4] = (uint32_t)ev[k].user_data;
            words[5] = (uint32_t)ev[k].action;
            for (int j = 0; j < 6; ++j)
                out->arrival_hash = (out->arrival_hash ^ words[j]) * 1099511628211ull;
        }
    }
    free(ids);
    free(ev);
    crowd_world_destroy(w);
}

Test(queue_scenarios, bit_identical_across_threads) {
    const int agents = small_scale() ? 600 : 3000;
    trace ref, got;
    run_trace(1, agents, &ref);
    int total = 0;
    for (int t = 0; t < 200; ++t) total += ref.arrivals[t];
    cr_assert_gt(total, 20, "the scene has arrivals to compare: %d", total);
    const int threads[] = {2, 3, 8};
    for (int i = 0; i < 3; ++i) {
        run_trace(threads[i], agents, &got);
        for (int t = 0; t < 200; ++t) {
            cr_assert_eq(got.hash[t], ref.hash[t], "threads %d, tick %d", threads[i], t);
            cr_assert_eq(got.arrivals[t], ref.arrivals[t], "threads %d, tick %d", threads[i], t);
        }
        cr_assert_eq(got.arrival_hash, ref.arrival_hash, "threads %d: arrival lists", threads[i]);
    }
}
