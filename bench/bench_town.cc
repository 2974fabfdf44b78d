// Walls at scale: the town scene (tools/scenes/town.c), solid blocks over a third of the square
// and agents on looping waypoint paths along the streets, at density 0.25 over the whole square,
// with its blocks (walls:1) and the same crowd without them (walls:0), per size and thread count.
// The whole step is timed; ns/agent_<phase> splits it by phase (ns/agent_walls is the wall phase
// when the engine has one). After every timed step, untimed, each agent's disc is measured
// against its block: a disc that reaches into a block by more than kTolerance fails the run, and
// max_penetration_mm reports the deepest reach of all (0 when no disc touched a block). The open
// town runs the same check, untimed and unreported, so that both variants' steps follow the same
// work. BM_TownPair measures the walled/open ratio itself, BM_ObstacleAddRemove what one
// obstacle's add and remove cost in a town.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "crowd/crowd.h"
#include "harness.h"
#include "scenes.h"

namespace {

constexpr float kPitch = 20.0f;     // the town's street grid (town.c)
constexpr float kTolerance = 1e-4f; // metres of float rounding allowed at a wall
constexpr int kWarmupTicks = 20;    // agents leave their start spots and meet at corners

// How far the disc at (x, y) reaches into the block of its street-grid cell (<= 0: it does not).
// Every block is the square of side scene_town_block() centred in its cell; a disc narrower than
// the street reaches at most the block of the cell it stands in or one beside it, so the nearest
// block's centre is the nearest cell centre.
float penetration(float x, float y, float r, float half_block, int m) {
    const float ci = std::floor(x / kPitch), cj = std::floor(y / kPitch);
    if (ci < (float)-m || ci >= (float)m || cj < (float)-m || cj >= (float)m) return 0.0f;
    const float cx = (ci + 0.5f) * kPitch, cy = (cj + 0.5f) * kPitch;
    const float dx = std::fabs(x - cx) - half_block, dy = std::fabs(y - cy) - half_block;
    if (dx <= 0.0f && dy <= 0.0f) return r + std::min(-dx, -dy); // centre inside the block
    const float ox = std::max(dx, 0.0f), oy = std::max(dy, 0.0f);
    return r - std::sqrt(ox * ox + oy * oy);
}

// Deepest reach of any agent into a block, and how many agents reach deeper than kTolerance.
void measure(crowd_world* w, int m, std::vector<crowd_agent_id>& ids, std::vector<crowd_vec2>& pos,
             double* deepest, long* overlaps) {
    const int n = crowd_world_agent_count(w);
    ids.resize((size_t)n);
    pos.resize((size_t)n);
    int count = 0;
    crowd_world_get_agents(w, ids.data(), pos.data(), nullptr, n, &count);
    const float half_block = scene_town_block() * 0.5f;
    for (int i = 0; i < count; ++i) {
        crowd_agent_def d;
        crowd_agent_get_def(w, ids[(size_t)i], &d);
        const float p = penetration(pos[(size_t)i].x, pos[(size_t)i].y, d.radius, half_block, m);
        *deepest = std::max(*deepest, (double)p);
        if (p > kTolerance) ++*overlaps;
    }
}

void BM_Town(benchmark::State& state) {
    scene_def def = scene_def_default();
    def.kind = SCENE_TOWN;
    def.agents = (int)state.range(0);
    def.open_town = state.range(1) == 0;
    def.threads = (int)state.range(2);
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        return;
    }
    const int m = std::max(1, (int)std::floor(scene_side(&def) * 0.5f / kPitch));
    for (int t = 0; t < kWarmupTicks; ++t) crowd_world_step(w);
    std::vector<crowd_agent_id> ids;
    std::vector<crowd_vec2> pos;
    double phase[CROWD_PHASE_COUNT] = {}, deepest = 0.0;
    long overlaps = 0;
    for (auto _ : state) {
        crowd_world_step(w);
        state.PauseTiming();
        const crowd_profile p = crowd_world_get_profile(w);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[k] += p.phase_ms[k];
        // Both variants run the same untimed check, so that each timed step starts from the same
        // state of the caches: the check reads every agent, and run after the walled steps alone
        // it slowed them (about 3 ns/agent at 100k) against the open town's. Only the walled
        // town's result counts (the open town's agents may cross where the blocks would be).
        measure(w, m, ids, pos, &deepest, &overlaps);
        state.ResumeTiming();
    }
    const double n = def.agents, iters = (double)state.iterations();
    state.counters["agent_steps/s"] = benchmark::Counter(n * iters, benchmark::Counter::kIsRate);
    state.counters["obstacles"] = crowd_world_obstacle_count(w);
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        state.counters[std::string("ns/agent_") + crowd_phase_name((crowd_phase)k)] =
            phase[k] * 1e6 / (n * iters);
    if (!def.open_town) {
        state.counters["max_penetration_mm"] = std::max(deepest, 0.0) * 1e3;
        state.counters["overlaps"] = (double)overlaps;
        if (overlaps > 0) state.SkipWithError("an agent's disc overlapped a block");
    }
    crowd_world_destroy(w);
}

// The ratio itself, as steadily as a shared host allows: two walled and two open towns built in
// one process (open, walled, walled, open: where a world's memory lands moves its tick by a
// percent or two, and this order evens that out), each iteration a round that steps every town
// kRoundTicks ticks, in an order that changes from round to round. The ratio of each round's
// walled and open tick times (the means of the pair) is taken, and x_no_walls is the median of
// those ratios, q1 / q3 its quartiles: the host changes speed within seconds, and a round is
// short enough to run in one speed. The iteration time is the round's; walled_ms / open_ms are
// the medians of the per-round ticks. ns/agent_walls, ns/agent_clamp and ns/agent_neighbor_added
// are the walls' phases in the walled towns and what they add to the neighbor phase, means over
// every tick of the rounds. After each round every town runs the block check of BM_Town,
// untimed; the walled towns' results count.
constexpr int kRoundTicks = 5;

using bench::quantile;

void BM_TownPair(benchmark::State& state) {
    const bool open_of[4] = {true, false, false, true};
    crowd_world* w[4] = {};
    scene_def def = scene_def_default();
    def.kind = SCENE_TOWN;
    def.agents = (int)state.range(0);
    def.threads = (int)state.range(1);
    for (int i = 0; i < 4; ++i) {
        def.open_town = open_of[i];
        if (scene_create(&def, &w[i]) != CROWD_OK) {
            state.SkipWithError("cannot build the town");
            for (crowd_world* x : w) crowd_world_destroy(x);
            return;
        }
    }
    const int m = std::max(1, (int)std::floor(scene_side(&def) * 0.5f / kPitch));
    for (int t = 0; t < kWarmupTicks; ++t)
        for (crowd_world* x : w) crowd_world_step(x);
    std::vector<crowd_agent_id> ids;
    std::vector<crowd_vec2> pos;
    std::vector<double> ratio, walled, open;
    double deepest = 0.0, phase[2][CROWD_PHASE_COUNT] = {}; // walled, open: summed over ticks
    long overlaps = 0;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (auto _ : state) {
        int order[4] = {0, 1, 2, 3};
        for (int i = 3; i > 0; --i) { // a shuffle, from a fixed seed
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            std::swap(order[i], order[(int)((seed >> 33) % (uint64_t)(i + 1))]);
        }
        double ms[2] = {0.0, 0.0}; // walled, open: summed over the pair
        for (int i : order) {
            const auto t0 = std::chrono::steady_clock::now();
            for (int t = 0; t < kRoundTicks; ++t) {
                crowd_world_step(w[i]);
                const crowd_profile p = crowd_world_get_profile(w[i]);
                for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[open_of[i]][k] += p.phase_ms[k];
            }
            const std::chrono::duration<double, std::milli> d =
                std::chrono::steady_clock::now() - t0;
            ms[open_of[i] ? 1 : 0] += d.count() / kRoundTicks;
        }
        state.PauseTiming();
        for (int i = 0; i < 4; ++i) { // every town, as in BM_Town; only the walled ones count
            double d = 0.0;
            long o = 0;
            measure(w[i], m, ids, pos, &d, &o);
            if (!open_of[i]) deepest = std::max(deepest, d), overlaps += o;
        }
        state.ResumeTiming();
        ratio.push_back(ms[0] / ms[1]);
        walled.push_back(ms[0] / 2.0);
        open.push_back(ms[1] / 2.0);
    }
    state.counters["x_no_walls"] = quantile(ratio, 0.5);
    state.counters["q1"] = quantile(ratio, 0.25);
    state.counters["q3"] = quantile(ratio, 0.75);
    state.counters["walled_ms"] = quantile(walled, 0.5);
    state.counters["open_ms"] = quantile(open, 0.5);
    // The walls' share by phase, per agent and tick over all rounds: the wall force and the move
    // clamp (phases of their own) and what they add to the neighbor phase (each agent's wall
    // clearances, line of sight).
    const double per = 1e6 / (2.0 * def.agents * kRoundTicks * (double)state.iterations());
    state.counters["ns/agent_walls"] = phase[0][CROWD_PHASE_WALLS] * per;
    state.counters["ns/agent_clamp"] = phase[0][CROWD_PHASE_CLAMP] * per;
    state.counters["ns/agent_neighbor_added"] =
        (phase[0][CROWD_PHASE_NEIGHBOR] - phase[1][CROWD_PHASE_NEIGHBOR]) * per;
    state.counters["max_penetration_mm"] = std::max(deepest, 0.0) * 1e3;
    state.counters["overlaps"] = (double)overlaps;
    if (overlaps > 0) state.SkipWithError("an agent's disc overlapped a block");
    for (crowd_world* x : w) crowd_world_destroy(x);
}

// The cost of one obstacle's add and remove in a town: in proportion to the cells the obstacle
// touches, not to the world. Each iteration adds a square of side side_dm decimetres inside the
// block nearest the origin (where no agent can be) and removes it; the town's size changes the
// world around it (agents, blocks, the index) and the side changes the cells it touches. The town
// has stepped, as a running world has: the add finds the agents near the square through the last
// sort's grid.
void BM_ObstacleAddRemove(benchmark::State& state) {
    scene_def def = scene_def_default();
    def.kind = SCENE_TOWN;
    def.agents = (int)state.range(0);
    def.threads = 1;
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        return;
    }
    for (int t = 0; t < 3; ++t) crowd_world_step(w);
    const float c = kPitch * 0.5f, h = (float)state.range(1) * 0.05f;
    const crowd_vec2 pts[4] = {{c - h, c - h}, {c + h, c - h}, {c + h, c + h}, {c - h, c + h}};
    for (auto _ : state) {
        crowd_obstacle_id id;
        if (crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, pts, 4, &id) != CROWD_OK ||
            crowd_obstacle_remove(w, id) != CROWD_OK) {
            state.SkipWithError("the square was refused");
            break;
        }
    }
    state.counters["obstacles"] = crowd_world_obstacle_count(w);
    crowd_world_destroy(w);
}

} // namespace

BENCHMARK(BM_TownPair)
    ->ArgNames({"agents", "threads"})
    ->ArgsProduct({{10000, 100000, 1000000}, {1, 2}})
    ->MinTime(10.0)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_Town)
    ->ArgNames({"agents", "walls", "threads"})
    ->ArgsProduct({{10000, 100000, 1000000}, {0, 1}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_ObstacleAddRemove)
    ->ArgNames({"agents", "side_dm"})
    ->ArgsProduct({{10000, 100000, 1000000}, {20, 80}})
    ->Unit(benchmark::kMicrosecond);
