// crowdstep itself, through its public API only.
#include <vector>

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
    crowd_world* world() const { return w_; }
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

// Crossing traffic with queue braking: the crossing scene, every agent then queueing for its
// mirrored point (the queue's arrive, which is seek until the last metre) with the family's cone.
std::unique_ptr<Sim> make_crossing_cone(const Case& c, const Crowd* crowd) {
    std::unique_ptr<Sim> sim = make_scene_world(c, crowd);
    if (!sim) return nullptr;
    crowd_world* w = static_cast<EngineSim*>(sim.get())->world();
    const int n = crowd_world_agent_count(w);
    std::vector<crowd_agent_id> ids((size_t)n);
    std::vector<crowd_vec2> pos((size_t)n);
    int count = 0;
    if (crowd_world_get_agents(w, ids.data(), pos.data(), nullptr, n, &count) != CROWD_OK)
        return nullptr;
    const Family fam = family();
    for (int i = 0; i < count; ++i) {
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = {-pos[(size_t)i].x, -pos[(size_t)i].y};
        q.cone_length = fam.cone_length;
        q.cone_width = fam.cone_width;
        q.form = CROWD_QUEUE_LITERAL; // the spec's queue, which the reference kernels implement
        if (crowd_agent_set_queue(w, ids[(size_t)i], &q) != CROWD_OK) return nullptr;
    }
    return sim;
}

// Crossing traffic: the crossing scene with every goal in the spec's form, which the reference
// kernels implement (the default pedestrian form adds a headway query: crowd/world.h).
std::unique_ptr<Sim> make_crossing(const Case& c, const Crowd* crowd) {
    std::unique_ptr<Sim> sim = make_scene_world(c, crowd);
    if (!sim) return nullptr;
    crowd_world* w = static_cast<EngineSim*>(sim.get())->world();
    const int n = crowd_world_agent_count(w);
    std::vector<crowd_agent_id> ids((size_t)n);
    int count = 0;
    if (crowd_world_get_agents(w, ids.data(), nullptr, nullptr, n, &count) != CROWD_OK)
        return nullptr;
    for (int i = 0; i < count; ++i) {
        crowd_agent_def d;
        if (crowd_agent_get_def(w, ids[(size_t)i], &d) != CROWD_OK) return nullptr;
        if (d.goal.mode == CROWD_GOAL_NONE) continue;
        d.goal.form = CROWD_GOAL_FORM_LITERAL;
        if (crowd_agent_set_goal(w, ids[(size_t)i], &d.goal) != CROWD_OK) return nullptr;
    }
    return sim;
}

void register_engine_crossing() {
    add(kCrossing, engine_impl(make_crossing));
    add(kCrossingCone, engine_impl(make_crossing_cone));
}

} // namespace

void register_engine() {
    add(kSeparation, engine_impl(make_scene_world));
    register_engine_crossing();
    for (const Scenario* s : {&kQueue, &kWaypoints, &kTube, &kGroups, &kPlaza})
        add(*s, engine_impl(make_scene_world));
}

} // namespace bench
