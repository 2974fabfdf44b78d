#include "harness.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "crowd/crowd.h"
#include "meter.h"

namespace bench {

const Scenario kSeparation = {"separation", SCENE_SEPARATION, false};
const Scenario kCrossing = {"crossing", SCENE_CROSSING, false};
const Scenario kCrossingCone = {"crossing_cone", SCENE_CROSSING, true};
const Scenario kQueue = {"queue", SCENE_QUEUE, true};
const Scenario kWaypoints = {"waypoints", SCENE_WAYPOINTS, false};
const Scenario kTube = {"tube", SCENE_TUBE, false};
const Scenario kGroups = {"groups", SCENE_GROUPS, false};
const Scenario kPlaza = {"plaza", SCENE_PLAZA, true};

Family family() {
    const crowd_agent_def a = crowd_agent_def_default();
    const crowd_world_def w = crowd_world_def_default();
    return Family{scene_def_default().density,
                  a.radius,
                  a.max_speed,
                  a.max_force,
                  a.separation_radius,
                  2.5f,
                  0.6f,
                  w.dt,
                  w.cell_size};
}

Options& options() {
    static Options o;
    return o;
}

int ticks_for(int agents) {
    const double base = std::clamp(std::round(3e6 / std::max(agents, 1)), 10.0, 200.0);
    return std::max(1, (int)std::lround(base * options().ticks_scale));
}

Crowd make_crowd(const Scenario& scenario, int agents) {
    Crowd c;
    c.fam = family();
    c.cone = scenario.cone;
    scene_def def = scene_def_default();
    def.kind = scenario.kind;
    def.agents = agents;
    def.threads = 1;
    c.side = scene_side(&def);
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) return c;
    std::vector<crowd_agent_id> ids((size_t)agents);
    std::vector<crowd_vec2> pos((size_t)agents), vel((size_t)agents);
    int count = 0;
    crowd_world_get_agents(w, ids.data(), pos.data(), vel.data(), agents, &count);
    c.px.resize((size_t)count), c.py.resize((size_t)count);
    c.vx.resize((size_t)count), c.vy.resize((size_t)count);
    for (int i = 0; i < count; ++i) {
        c.px[(size_t)i] = pos[(size_t)i].x, c.py[(size_t)i] = pos[(size_t)i].y;
        c.vx[(size_t)i] = vel[(size_t)i].x, c.vy[(size_t)i] = vel[(size_t)i].y;
        crowd_agent_def a;
        crowd_agent_get_def(w, ids[(size_t)i], &a);
        // The baselines take the family's uniform parameters: a scene that varies them per
        // agent is not part of this family.
        if (a.max_speed != c.fam.max_speed || a.max_force != c.fam.max_force ||
            a.separation_radius != c.fam.sep_radius || a.separation_weight != 1.0f ||
            (a.goal.mode != CROWD_GOAL_NONE && a.goal.mode != CROWD_GOAL_SEEK) ||
            (a.goal.mode == CROWD_GOAL_SEEK && a.goal.weight != 1.0f)) {
            std::fprintf(stderr, "crowd_bench: scene %s leaves the benchmark family\n",
                         scenario.name);
            std::abort();
        }
        if (a.goal.mode == CROWD_GOAL_SEEK) {
            c.gx.resize((size_t)count), c.gy.resize((size_t)count);
            c.gx[(size_t)i] = a.goal.target.x, c.gy[(size_t)i] = a.goal.target.y;
        }
    }
    c.seek = !c.gx.empty();
    crowd_world_destroy(w);
    return c;
}

namespace {

struct Entry {
    const Scenario* scenario;
    Impl impl;
};

std::vector<Entry>& registry() {
    static std::vector<Entry> r;
    return r;
}

void run(benchmark::State& st, const Scenario* scenario, const Impl& impl, int agents,
         int threads) {
    const Case c{scenario, agents, threads};
    std::unique_ptr<Crowd> crowd;
    if (impl.needs_crowd) crowd = std::make_unique<Crowd>(make_crowd(*scenario, agents));
    if (crowd && (int)crowd->px.size() != agents) {
        st.SkipWithError("cannot build the starting crowd");
        return;
    }
    meter_mark();
    const int64_t base = meter_current();
    std::unique_ptr<Sim> sim = impl.make(c, crowd.get());
    if (!sim) {
        st.SkipWithError("cannot build the case");
        return;
    }
    for (int i = 0; i < kWarmupTicks; ++i) sim->step();

    enum { MAX_PHASES = 16 };
    Phase ph[MAX_PHASES];
    const char* names[MAX_PHASES] = {};
    double phase_ms[MAX_PHASES] = {};
    int nphases = 0;
    int64_t candidates = 0;
    bool counted = true;
    // Each tick's wall time as well as the whole window's: on a shared machine a thread that loses
    // its core stalls the team at the next barrier, and a short window's mean takes every such
    // stall in, while the median tick does not (the median is what `crowd scale` reports).
    std::vector<double> tick_s;
    tick_s.reserve((size_t)st.max_iterations);
    const double t0 = omp_get_wtime();
    double last = t0;
    for (auto _ : st) {
        sim->step();
        const double now = omp_get_wtime();
        tick_s.push_back(now - last);
        nphases = sim->phases(ph, MAX_PHASES);
        for (int k = 0; k < nphases; ++k) phase_ms[k] += ph[k].ms, names[k] = ph[k].name;
        const int64_t cand = sim->candidates();
        counted = counted && cand >= 0;
        candidates += cand;
        last = omp_get_wtime();
    }
    const double seconds = omp_get_wtime() - t0;
    const int64_t bytes = meter_peak() - base;
    sim.reset();

    const double steps = (double)agents * (double)st.iterations();
    st.counters["agent_steps/s"] = seconds > 0 ? steps / seconds : 0.0;
    if (!tick_s.empty()) {
        std::sort(tick_s.begin(), tick_s.end());
        const size_t k = tick_s.size();
        const double median = k % 2 ? tick_s[k / 2] : 0.5 * (tick_s[k / 2 - 1] + tick_s[k / 2]);
        st.counters["median_agent_steps/s"] = median > 0 ? agents / median : 0.0;
    }
    st.counters["bytes/agent"] = (double)bytes / agents;
    if (counted) st.counters["candidates/agent"] = (double)candidates / steps;
    for (int k = 0; k < nphases; ++k)
        st.counters[std::string("ns/agent_") + names[k]] = phase_ms[k] * 1e6 / steps;
}

} // namespace

void add(const Scenario& scenario, const Impl& impl) {
    registry().push_back(Entry{&scenario, impl});
    for (int agents : options().sizes) {
        if (agents > impl.max_agents) continue;
        for (int threads : options().threads) {
            if (!impl.threaded && threads != 1) continue;
            const std::string name = std::string(scenario.name) + "/" + impl.name +
                                     "/agents:" + std::to_string(agents) +
                                     "/threads:" + std::to_string(threads);
            benchmark::RegisterBenchmark(name.c_str(),
                                         [&scenario, impl, agents, threads](benchmark::State& st) {
                                             run(st, &scenario, impl, agents, threads);
                                         })
                ->Iterations(ticks_for(agents))
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
}

namespace {

// Largest difference between the sorted x (and y) coordinates of two crowds: zero when both
// crowds end in the same places, whatever order each keeps its agents in.
double sorted_gap(std::vector<float> a, std::vector<float> b) {
    if (a.size() != b.size()) return INFINITY;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    double gap = 0;
    for (size_t i = 0; i < a.size(); ++i) gap = std::max(gap, (double)std::fabs(a[i] - b[i]));
    return gap;
}

} // namespace

int check(int agents, int ticks, double tolerance) {
    std::printf("positions after %d ticks of %d agents against the reference implementation "
                "(largest gap between sorted coordinates, metres)\n",
                ticks, agents);
    std::vector<const Scenario*> scenarios;
    for (const Entry& e : registry())
        if (std::find(scenarios.begin(), scenarios.end(), e.scenario) == scenarios.end())
            scenarios.push_back(e.scenario);
    int failures = 0;
    for (const Scenario* sc : scenarios) {
        const Entry* ref = nullptr;
        for (const char* name : {"crowdstep", "kernel"})
            for (const Entry& e : registry())
                if (!ref && e.scenario == sc && std::string(e.impl.name) == name) ref = &e;
        // Engine-only scenarios (behaviors the baselines do not implement) have nothing to
        // compare, and their scenes may leave the baselines' family.
        const bool compared =
            std::any_of(registry().begin(), registry().end(),
                        [&](const Entry& e) { return e.scenario == sc && &e != ref; });
        if (!ref || !compared) continue;
        const Crowd crowd = make_crowd(*sc, agents);
        auto final_positions = [&](const Impl& impl, int threads, std::vector<float>& x,
                                   std::vector<float>& y) {
            std::unique_ptr<Sim> sim = impl.make(Case{sc, agents, threads}, &crowd);
            if (!sim) return false;
            for (int t = 0; t < ticks; ++t) sim->step();
            sim->positions(x, y);
            return true;
        };
        std::vector<float> rx, ry;
        if (!final_positions(ref->impl, 1, rx, ry)) return 1;
        std::printf("  %-14s %-12s   moved from the start %.3g\n", sc->name, ref->impl.name,
                    std::max(sorted_gap(crowd.px, rx), sorted_gap(crowd.py, ry)));
        for (const Entry& e : registry()) {
            if (e.scenario != sc || agents > e.impl.max_agents) continue;
            for (int threads : {1, 2}) {
                if ((&e == ref && threads == 1) || (!e.impl.threaded && threads != 1)) continue;
                std::vector<float> x, y;
                if (!final_positions(e.impl, threads, x, y)) return 1;
                const double gap = std::max(sorted_gap(rx, x), sorted_gap(ry, y));
                const bool bad = e.impl.same_model && !(gap <= tolerance);
                failures += bad;
                std::printf("  %-14s %-12s %d thr  vs %-10s %.3g%s\n", sc->name, e.impl.name,
                            threads, ref->impl.name, gap,
                            bad ? "  FAILED" : (e.impl.same_model ? "" : "  (another model)"));
            }
        }
    }
    std::printf("check: %d failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace bench
