// Follow-leader benchmarks: 100,000 agents in 2,000 groups (49 followers each), per thread count.
#include <benchmark/benchmark.h>

#include <string>

#include "crowd/crowd.h"
#include "groups.h"

static void BM_FollowLeader(benchmark::State& state) {
    scene_groups_def def = scene_groups_def_default();
    def.agents = (int)state.range(0);
    def.groups = (int)state.range(1);
    def.threads = (int)state.range(2);
    crowd_world* w = nullptr;
    if (scene_groups_create(&def, &w, nullptr) != CROWD_OK) {
        state.SkipWithError("cannot create world");
        return;
    }
    for (int i = 0; i < 5; ++i) crowd_world_step(w); // first slot assignment and sorts
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
BENCHMARK(BM_FollowLeader)
    ->ArgNames({"agents", "groups", "threads"})
    ->ArgsProduct({{100000}, {2000, 10000}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
