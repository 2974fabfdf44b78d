// The file query (who is ahead in a file toward a target): the engine's search over the spatial
// hash against a brute-force search over every agent, written out from the query's definition
// (core/behavior.h, CS_NB_FILE). The arithmetic is the same, so equality is exact.
#include <criterion/criterion.h>
#include <math.h>

#include "behaviors/queue/queue_internal.h"
#include "scenes.h"

// One random world: `n` agents in `clusters` clusters `spread` metres apart, queueing in file for
// one of four targets per cluster. Every fourth agent does not queue; some have no separation
// weight (the query alone) and some stand on their target (no direction to look in).
static crowd_world* file_world(int n, int clusters, float spread, int threads, uint64_t seed) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.capacity = n;
    crowd_world* w;
    cr_assert_eq(crowd_world_create(&wd, &w), CROWD_OK);
    scene_rng rng = {seed};
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        const float cx = spread * (float)(i % clusters);
        a.position = (crowd_vec2){cx + scene_rng_float(&rng, -12.0f, 12.0f),
                                  scene_rng_float(&rng, -12.0f, 12.0f)};
        if (i % 19 == 0) a.separation_weight = 0.0f;
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &a, &id), CROWD_OK);
        if (i % 4 == 3) continue;
        crowd_queue_def q = crowd_queue_def_default();
        q.form = CROWD_QUEUE_FILE;
        q.cone_length = scene_rng_float(&rng, 0.5f, 3.0f); // a reach of up to 9 m, four cells
        q.cone_width = scene_rng_float(&rng, 0.1f, 1.2f);
        const int k = i % 4;
        q.goal = (crowd_vec2){cx + (k & 1 ? 14.0f : -14.0f), k & 2 ? 14.0f : -14.0f};
        if (i % 29 == 0) q.goal = a.position;
        cr_assert_eq(crowd_agent_set_queue(w, id, &q), CROWD_OK);
    }
    return w;
}

// After the sort and the neighbor pass, each file agent's offset to the one ahead must equal the
// brute force's; returns how many have one.
static int check_file_pass(crowd_world* w) {
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    const int n = w->count;
    const cs_columns* c = &w->cur;
    int found = 0;
    for (int s = 0; s < n; ++s) {
        if (!(c->flags[s] & CS_FLAG_QUEUE_FILE)) continue;
        const crowd_queue_def q = cs_queue_def_at(w, s);
        const crowd_vec2 g = q.goal;
        const float px = c->px[s], py = c->py[s];
        const float tx = g.x - px, ty = g.y - py, gd2 = tx * tx + ty * ty, d = sqrtf(gd2);
        crowd_vec2 want = {INFINITY, 0.0f};
        if (d >= CROWD_QUEUE_MIN_SPEED) {
            const float hx = tx / d, hy = ty / d;
            const float reach = q.cone_length * CROWD_QUEUE_FILE_REACH;
            const float w2 = q.cone_width * q.cone_width;
            float best = INFINITY, bx = INFINITY, by = INFINITY;
            int bo = -1;
            for (int o = 0; o < n; ++o) {
                if (o == s) continue;
                const float ox = c->px[o] - px, oy = c->py[o] - py;
                const float along = ox * hx + oy * hy;
                if (!(along > 0.0f && along <= reach)) continue;
                const float lx = ox - hx * along, ly = oy - hy * along, lat2 = lx * lx + ly * ly;
                if (!(lat2 <= w2 || 4.0f * lat2 <= along * along)) continue;
                const float ex = c->px[o] - g.x, ey = c->py[o] - g.y;
                if (!(ex * ex + ey * ey < gd2)) continue;
                if (along < best || (along == best && (ox < bx || (ox == bx && oy < by))))
                    best = along, bx = ox, by = oy, bo = o;
            }
            if (bo >= 0 && (c->flags[bo] & CS_FLAG_QUEUE_FILE)) {
                const crowd_vec2 og = cs_queue_def_at(w, bo).goal;
                if (og.x == g.x && og.y == g.y) want = (crowd_vec2){bx, by};
            }
        }
        // The neighbor pass's output for the slot: the slot of the one ahead.
        const uint32_t j = ((const uint32_t*)(const void*)cs_nb_out(w, CS_NB_FILE, 0))[s];
        const float ax = j != CS_NB_NONE ? c->px[j] - c->px[s] : INFINITY;
        const float ay = j != CS_NB_NONE ? c->py[j] - c->py[s] : 0.0f;
        cr_assert_eq(ax, want.x, "slot %d: engine x %.9g, brute force %.9g", s, (double)ax,
                     (double)want.x);
        cr_assert_eq(ay, want.y, "slot %d: engine y %.9g, brute force %.9g", s, (double)ay,
                     (double)want.y);
        found += want.x < INFINITY;
    }
    return found;
}

static void engine_matches_brute_force(int n, int clusters, float spread, bool dense) {
    const int threads[] = {1, 3};
    for (int ti = 0; ti < 2; ++ti) {
        crowd_world* w = file_world(n, clusters, spread, threads[ti], 11);
        int found = 0;
        for (int round = 0; round < 4; ++round) {
            found += check_file_pass(w);
            cr_assert_eq(w->grid.dense, dense, "the grid layout under test");
            for (int t = 0; t < 5; ++t) crowd_world_step(w); // move them, then look again
        }
        cr_assert_gt(found, n / 2, "file agents with one ahead: %d", found);
        crowd_world_destroy(w);
    }
}

Test(queue_file, engine_matches_brute_force_dense) {
    engine_matches_brute_force(1500, 1, 0, true);
}

Test(queue_file, engine_matches_brute_force_sparse) {
    engine_matches_brute_force(1500, 5, 20000.0f, false);
}
