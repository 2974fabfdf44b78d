// The benchmark family and the harness every implementation plugs into.
//
// One scenario family (uniform density 0.25 agents/m^2 in a square of side sqrt(N / 0.25), the
// library's default agent: radius 0.3, max speed 1.5, max force 3, separation radius 1.2; queue
// cone 2.5 x 0.6; dt 0.1; cell 2.5), one starting crowd per scenario and size, shared by every
// implementation, and one timed loop that reports the same counters for all of them.
//
// Benchmarks are named "<scenario>/<implementation>/agents:<N>/threads:<T>"; tools/bench_report.py
// reads that name back. Every run steps a fixed number of ticks that depends only on N, so all
// implementations of a case do the same work from the same state.
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <vector>

#include "scenes.h"

namespace bench {

struct Scenario {
    const char* name;
    scene_kind kind; // the shared scene the starting crowd comes from
    bool cone;       // agents brake for the closest agent in their forward cone (queue)
};

// Separation only: a uniform crowd drifting with random velocities.
extern const Scenario kSeparation;
// Crossing traffic: every agent seeks the point mirrored across the centre of the square.
extern const Scenario kCrossing;
// Crossing traffic with queue braking in the forward cone (separation + cone).
extern const Scenario kCrossingCone;
// The spec's behaviors at the same density, engine only (no baseline implements them):
extern const Scenario kQueue;     // queues with respawn, one per 200 agents
extern const Scenario kWaypoints; // one looping 50-segment path per 100 agents
extern const Scenario kTube;      // the same paths, path tube
extern const Scenario kGroups;    // follow-leader groups of 50 in formations
extern const Scenario kPlaza;     // every behavior at once
// A behavior scenario is one more Scenario over a shared scene kind, registered for the engine in
// engine.cc; tools/bench_report.py evaluates the plaza targets on a scenario named "plaza".

// Parameters shared by every agent of the family.
struct Family {
    float density, radius, max_speed, max_force, sep_radius, cone_length, cone_width, dt, cell;
};
Family family();

// A starting crowd, in the engine's handle order.
struct Crowd {
    Family fam;
    float side;
    bool seek, cone;
    std::vector<float> px, py, vx, vy, gx, gy; // gx, gy empty without seek
};

struct Case {
    const Scenario* scenario;
    int agents;
    int threads;
};

struct Phase {
    const char* name;
    double ms;
};

// One implementation stepping one case.
class Sim {
  public:
    virtual ~Sim() = default;
    virtual void step() = 0;
    // Timed phases of the last step; 0 when the implementation does not split its step.
    virtual int phases(Phase* out, int max) const {
        (void)out;
        (void)max;
        return 0;
    }
    // Neighbor candidates examined in the last step; -1 when not counted.
    virtual int64_t candidates() const { return -1; }
    // Current positions, in any order (for --crowd_check).
    virtual void positions(std::vector<float>& x, std::vector<float>& y) const = 0;
};

// Builds the implementation for a case. `crowd` is the starting crowd, or null for
// implementations registered with needs_crowd = false (the engine builds its own scene).
// Returns null when the case cannot be built.
using Factory = std::unique_ptr<Sim> (*)(const Case& c, const Crowd* crowd);

struct Impl {
    const char* name;
    Factory make;
    int max_agents = INT_MAX; // larger sizes are not registered
    bool threaded = true;     // registered for every thread count, else for 1 thread only
    bool needs_crowd = true;
    // Steps the spec's formulas (the same model as the engine), so --crowd_check holds it to the
    // engine's positions; false for other libraries' models (DetourCrowd).
    bool same_model = true;
};

// Registers `impl` on `scenario` for every size and thread count of the suite.
void add(const Scenario& scenario, const Impl& impl);

// Each implementation's translation unit registers its scenarios here.
void register_engine();
void register_kernel();
void register_brute();
void register_objects();
void register_detour();

// Suite options (main.cc).
struct Options {
    std::vector<int> sizes;
    std::vector<int> threads;
    double ticks_scale = 1.0;
};
Options& options();

// Ticks a case of n agents steps after warming up: about 3 M agent-steps, 10 to 200 ticks.
int ticks_for(int agents);
constexpr int kWarmupTicks = 3;

Crowd make_crowd(const Scenario& scenario, int agents);

// Steps every registered implementation of each scenario on a small crowd, on 1 and 2 threads,
// and prints how far its positions end up from the engine's (or, where the engine does not run
// the scenario, the minimal kernel's). Returns non-zero when a same-model implementation ends
// more than `tolerance` metres away: the baselines must do the same work as the engine.
int check(int agents, int ticks, double tolerance);

// The q-quantile of v (the nearest rank; 0 for none): the benchmarks' medians and quartiles of
// per-round ratios.
inline double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (double)(v.size() - 1) + 0.5)];
}

} // namespace bench

#endif
