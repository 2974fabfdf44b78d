// Queue benchmarks: the shared queue scene (one queue per 200 agents at density 0.25, every agent
// respawning in its queue's start strip on arrival), per thread count.
#include <benchmark/benchmark.h>

#include <string>

#include "crowd/crowd.h"
#include "scenes.h"

// Ticks stepped before timing: long enough for the agents, released uniformly, to walk into their
// queues (a tile is about 28 m wide at 1.5 m/s).
static const int kWarmupTicks = 200;

static void BM_Queue(benchmark::State& state) {
    scene_def def = scene_def_default();
    def.kind = SCENE_QUEUE;
    def.agents = (int)state.range(0);
    def.queues = def.agents / 200;
    def.threads = (int)state.range(1);
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) {
        state.SkipWithError("cannot create world");
        return;
    }
    for (int i = 0; i < kWarmupTicks; ++i) crowd_world_step(w);
    double phase[CROWD_PHASE_COUNT] = {};
    double candidates = 0.0, arrivals = 0.0, agent_steps = 0.0;
    for (auto _ : state) {
        crowd_world_step(w);
        const crowd_profile p = crowd_world_get_profile(w);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[k] += p.phase_ms[k];
        candidates += (double)p.candidates;
        agent_steps += p.agents;
        arrivals += crowd_world_arrival_count(w);
    }
    const double iters = (double)state.iterations();
    state.counters["queues"] = def.queues;
    state.counters["agent_steps/s"] = benchmark::Counter(agent_steps, benchmark::Counter::kIsRate);
    state.counters["candidates/agent"] = candidates / agent_steps;
    state.counters["arrivals/tick"] = arrivals / iters;
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        state.counters[std::string("ns/agent_") + crowd_phase_name((crowd_phase)k)] =
            phase[k] * 1e6 / agent_steps;
    crowd_world_destroy(w);
}
BENCHMARK(BM_Queue)
    ->ArgNames({"agents", "threads"})
    ->ArgsProduct({{10000, 100000}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
