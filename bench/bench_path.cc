// Path following at scale: many agents on many short paths, and on one long path, for both
// kinds, per thread count. The whole step is timed; ns/agent_path is the path pass alone.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "crowd/crowd.h"
#include "scenes.h"

namespace {

constexpr int kAgents = 100000;
constexpr float kDensity = 0.25f;

// Smooth random walks of `segments` segments of about 3 m, starting anywhere in the square.
std::vector<std::vector<crowd_vec2>> short_paths(scene_rng* rng, int paths, int segments,
                                                 float side) {
    std::vector<std::vector<crowd_vec2>> out(paths);
    for (auto& p : out) {
        float x = scene_rng_float(rng, 0.0f, side), y = scene_rng_float(rng, 0.0f, side);
        float heading = scene_rng_float(rng, 0.0f, 6.2831853f);
        for (int i = 0; i <= segments; ++i) {
            p.push_back({x, y});
            heading += scene_rng_float(rng, -0.6f, 0.6f);
            x += 3.0f * std::cos(heading);
            y += 3.0f * std::sin(heading);
        }
    }
    return out;
}

// One lawnmower path of exactly `segments` segments covering the square in 100 rows.
std::vector<crowd_vec2> long_path(int segments, float side) {
    const int rows = 100, points = segments + 1, per_row = (points + rows - 1) / rows;
    std::vector<crowd_vec2> p;
    for (int j = 0; j < points; ++j) {
        const int r = j / per_row, i = j % per_row;
        const float t = (float)i / (float)(per_row - 1);
        p.push_back({(r % 2 ? 1.0f - t : t) * side, side * (float)r / rows + (i % 2) * 0.5f});
    }
    return p;
}

crowd_world* build(int kind, int threads, int paths, int segments) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.capacity = kAgents;
    crowd_world* w = nullptr;
    if (crowd_world_create(&wd, &w) != CROWD_OK) return nullptr;
    const float side = std::sqrt((float)kAgents / kDensity);
    scene_rng rng{0x5eed0000u + (uint64_t)paths};
    std::vector<std::vector<crowd_vec2>> pts =
        paths == 1 ? std::vector<std::vector<crowd_vec2>>{long_path(segments, side)}
                   : short_paths(&rng, paths, segments, side);
    std::vector<crowd_path_id> ids(pts.size());
    for (size_t i = 0; i < pts.size(); ++i)
        if (crowd_path_create(w, pts[i].data(), (int)pts[i].size(), &ids[i]) != CROWD_OK)
            return crowd_world_destroy(w), nullptr;
    for (int i = 0; i < kAgents; ++i) {
        const size_t p = (size_t)i % pts.size();
        const int at = (int)(scene_rng_next(&rng) % pts[p].size());
        crowd_agent_def a = crowd_agent_def_default();
        a.position = {pts[p][at].x + scene_rng_float(&rng, -1.0f, 1.0f),
                      pts[p][at].y + scene_rng_float(&rng, -1.0f, 1.0f)};
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = ids[p];
        f.kind = (crowd_path_kind)kind;
        f.mode = CROWD_PATH_LOOP;
        f.start_index = at;
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) != CROWD_OK || crowd_agent_set_path(w, id, &f) != CROWD_OK)
            return crowd_world_destroy(w), nullptr;
    }
    return w;
}

void run(benchmark::State& state, int paths, int segments) {
    const int kind = (int)state.range(0), threads = (int)state.range(1);
    crowd_world* w = build(kind, threads, paths, segments);
    if (!w) {
        state.SkipWithError("cannot build the scene");
        return;
    }
    for (int i = 0; i < 5; ++i) crowd_world_step(w); // first sorts and first segment searches
    double phase[CROWD_PHASE_COUNT] = {};
    for (auto _ : state) {
        crowd_world_step(w);
        const crowd_profile p = crowd_world_get_profile(w);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[k] += p.phase_ms[k];
    }
    const double n = kAgents, iters = (double)state.iterations();
    state.counters["agent_steps/s"] = benchmark::Counter(n * iters, benchmark::Counter::kIsRate);
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        state.counters[std::string("ns/agent_") + crowd_phase_name((crowd_phase)k)] =
            phase[k] * 1e6 / (n * iters);
    crowd_world_destroy(w);
}

// 100,000 agents on 1,000 paths of 50 segments.
void BM_PathShort(benchmark::State& state) {
    run(state, 1000, 50);
}
// 100,000 agents on one path of 10,000 segments.
void BM_PathLong(benchmark::State& state) {
    run(state, 1, 10000);
}

} // namespace

BENCHMARK(BM_PathShort)
    ->ArgNames({"tube", "threads"})
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PathLong)
    ->ArgNames({"tube", "threads"})
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
