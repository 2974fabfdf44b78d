// Core engine benchmarks: the separating crowd at fixed density, per thread count.
#include <benchmark/benchmark.h>

#include "crowd/crowd.h"
#include "scenes.h"

static void BM_Separation(benchmark::State& state) {
    scene_def def = scene_def_default();
    def.kind = SCENE_SEPARATION;
    def.agents = (int)state.range(0);
    def.threads = (int)state.range(1);
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) {
        state.SkipWithError("cannot create world");
        return;
    }
    for (int i = 0; i < 5; ++i) crowd_world_step(w); // settle the first sorts
    double phase[CROWD_PHASE_COUNT] = {};
    for (auto _ : state) {
        crowd_world_step(w);
        crowd_profile p = crowd_world_get_profile(w);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[k] += p.phase_ms[k];
    }
    const double n = (double)def.agents, iters = (double)state.iterations();
    state.counters["agent_steps/s"] = benchmark::Counter(n * iters, benchmark::Counter::kIsRate);
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        state.counters[std::string("ns/agent_") + crowd_phase_name((crowd_phase)k)] =
            phase[k] * 1e6 / (n * iters);
    crowd_world_destroy(w);
}
BENCHMARK(BM_Separation)
    ->ArgNames({"agents", "threads"})
    ->ArgsProduct({{10000, 100000, 1000000}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
