// crowdstep itself, through its public API only.
#include "crowd/crowd.h"
#include "harness.h"
#include "meter.h"

namespace bench {
namespace {

class EngineSim final : public Sim {
  public:
    explicit EngineSim(crowd_world* w) : w_(w) {}
    ~EngineSim() override { crowd_world_destroy(w_); }
    void step() override { crowd_world_step(w_); }
    int phases(Phase* out, int max) const override {
        const crowd_profile p = crowd_world_get_profile(w_);
        int n = 0;
        for (int k = 0; k < CROWD_PHASE_COUNT && n < max; ++k)
            out[n++] = Phase{crowd_phase_name((crowd_phase)k), p.phase_ms[k]};
        return n;
    }
    int64_t candidates() const override { return (int64_t)crowd_world_get_profile(w_).candidates; }
    void positions(std::vector<float>& x, std::vector<float>& y) const override {
        const int n = crowd_world_agent_count(w_);
        std::vector<crowd_vec2> p((size_t)n);
        int count = 0;
        crowd_world_get_agents(w_, nullptr, p.data(), nullptr, n, &count);
        x.resize((size_t)count), y.resize((size_t)count);
        for (int i = 0; i < count; ++i)
            x[(size_t)i] = p[(size_t)i].x, y[(size_t)i] = p[(size_t)i].y;
    }

  private:
    crowd_world* w_;
};

// The engine builds each scenario from the shared scene of the same kind, with its memory counted.
std::unique_ptr<Sim> make_scene_world(const Case& c, const Crowd*) {
    scene_def def = scene_def_default();
    def.kind = c.scenario->kind;
    def.agents = c.agents;
    def.threads = c.threads;
    def.alloc = meter_alloc;
    def.free = meter_free;
    crowd_world* w = nullptr;
    if (scene_create(&def, &w) != CROWD_OK) return nullptr;
    return std::make_unique<EngineSim>(w);
}

Impl engine_impl(Factory make) {
    return Impl{"crowdstep", make, INT_MAX, true, false};
}

// Crossing traffic. The family's crossing scenario also brakes in the queue cone: this is where
// the engine's agents get their cone (length 2.5, width 0.6) once queue braking is part of the
// public API, and register under kCrossingCone; until then the engine runs the crossing with seek
// goals and separation, and the baselines' crossing_cone rows show what the cone adds.
void register_engine_crossing() {
    add(kCrossing, engine_impl(make_scene_world));
}

} // namespace

void register_engine() {
    add(kSeparation, engine_impl(make_scene_world));
    register_engine_crossing();
}

} // namespace bench
