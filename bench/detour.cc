// DetourCrowd (Recast/Detour as packaged by Debian) on the same crowd: one flat square polygon
// covering the scenario's square plus a margin, the family's agents (radius 0.3, max speed 1.5,
// max acceleration = max force 3, neighbor range = separation radius 1.2), separation on, and
// in the "detour_avoid" rows its velocity-sampling obstacle avoidance too (the library's default
// avoidance parameters). Separation scenario: each agent asks for its starting velocity; crossing:
// each agent is sent to the mirrored point. Single-threaded: dtCrowd has no parallel update.
//
// Registered up to 20,000 agents: the packaged version hangs in its first update from about
// 24,000 agents on (16-bit indices in its proximity grid).
#include <DetourAlloc.h>
#include <DetourCrowd.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <DetourNavMeshQuery.h>

#include <cmath>

#include "harness.h"
#include "meter.h"

namespace bench {
namespace {

void* detour_alloc(size_t size, dtAllocHint) {
    return meter_malloc(size);
}
void detour_free(void* p) {
    meter_release(p);
}

dtNavMesh* flat_navmesh(float half) {
    const float cs = 0.5f, ch = 0.2f;
    const unsigned short q = (unsigned short)std::ceil(2.0f * half / cs);
    // Wound so that dtTriArea2D(inside point, edge) >= 0: DetourCrowd then keeps the border
    // edges as walls for obstacle avoidance.
    const unsigned short verts[4 * 3] = {0, 0, 0, 0, 0, q, q, 0, q, q, 0, 0};
    const int nvp = DT_VERTS_PER_POLYGON;
    unsigned short polys[2 * DT_VERTS_PER_POLYGON];
    for (int i = 0; i < 2 * nvp; ++i) polys[i] = 0xffff; // unused vertex / border edge
    for (int i = 0; i < 4; ++i) polys[i] = (unsigned short)i;
    unsigned short flags = 1;
    unsigned char area = 0;

    dtNavMeshCreateParams p = {};
    p.verts = verts;
    p.vertCount = 4;
    p.polys = polys;
    p.polyFlags = &flags;
    p.polyAreas = &area;
    p.polyCount = 1;
    p.nvp = nvp;
    p.walkableHeight = 2.0f;
    p.walkableRadius = 0.3f;
    p.walkableClimb = 0.5f;
    p.bmin[0] = -half, p.bmin[1] = 0.0f, p.bmin[2] = -half;
    p.bmax[0] = -half + q * cs, p.bmax[1] = 1.0f, p.bmax[2] = -half + q * cs;
    p.cs = cs;
    p.ch = ch;
    p.buildBvTree = true;
    unsigned char* data = nullptr;
    int size = 0;
    if (!dtCreateNavMeshData(&p, &data, &size)) return nullptr;
    dtNavMesh* nav = dtAllocNavMesh();
    if (!nav || dtStatusFailed(nav->init(data, size, DT_TILE_FREE_DATA))) {
        dtFree(data);
        dtFreeNavMesh(nav);
        return nullptr;
    }
    return nav;
}

class DetourSim final : public Sim {
  public:
    DetourSim(const Crowd& c, bool avoid) : dt_(c.fam.dt), n_((int)c.px.size()) {
        const Family& f = c.fam;
        // The separation crowd drifts outward; the margin keeps the mesh edge out of its way.
        nav_ = flat_navmesh(c.side * 0.5f + 40.0f);
        crowd_ = dtAllocCrowd();
        ok_ = nav_ && crowd_ && crowd_->init(n_, f.radius, nav_);
        if (!ok_) return;
        dtCrowdAgentParams ap = {};
        ap.radius = f.radius;
        ap.height = 2.0f;
        ap.maxAcceleration = f.max_force; // unit mass
        ap.maxSpeed = f.max_speed;
        ap.collisionQueryRange = f.sep_radius;
        ap.pathOptimizationRange = 30.0f * f.radius;
        ap.separationWeight = 1.0f;
        ap.updateFlags = DT_CROWD_SEPARATION | (avoid ? DT_CROWD_OBSTACLE_AVOIDANCE : 0);
        ap.obstacleAvoidanceType = 0;
        const float ext[3] = {2.0f, 2.0f, 2.0f};
        dtPolyRef ref = 0;
        float nearest[3];
        const float centre[3] = {0.0f, 0.0f, 0.0f};
        crowd_->getNavMeshQuery()->findNearestPoly(centre, ext, crowd_->getFilter(0), &ref,
                                                   nearest);
        for (int i = 0; i < n_ && ok_; ++i) {
            const float pos[3] = {c.px[(size_t)i], 0.0f, c.py[(size_t)i]};
            const float vel[3] = {c.vx[(size_t)i], 0.0f, c.vy[(size_t)i]};
            const int idx = crowd_->addAgent(pos, &ap);
            ok_ = idx >= 0;
            if (!ok_) break;
            dtCrowdAgent* a = crowd_->getEditableAgent(idx);
            for (int k = 0; k < 3; ++k) a->vel[k] = vel[k];
            if (c.seek) {
                const float target[3] = {c.gx[(size_t)i], 0.0f, c.gy[(size_t)i]};
                ok_ = crowd_->requestMoveTarget(idx, ref, target);
            } else {
                ok_ = crowd_->requestMoveVelocity(idx, vel);
            }
        }
    }
    ~DetourSim() override {
        dtFreeCrowd(crowd_);
        dtFreeNavMesh(nav_);
    }
    bool ok() const { return ok_; }
    void step() override { crowd_->update(dt_, nullptr); }
    void positions(std::vector<float>& x, std::vector<float>& y) const override {
        x.resize((size_t)n_), y.resize((size_t)n_);
        for (int i = 0; i < n_; ++i) {
            const dtCrowdAgent* a = crowd_->getAgent(i);
            x[(size_t)i] = a->npos[0], y[(size_t)i] = a->npos[2];
        }
    }

  private:
    float dt_;
    int n_;
    bool ok_ = false;
    dtNavMesh* nav_ = nullptr;
    dtCrowd* crowd_ = nullptr;
};

template <bool Avoid> std::unique_ptr<Sim> make_detour(const Case&, const Crowd* crowd) {
    auto sim = std::make_unique<DetourSim>(*crowd, Avoid);
    if (!sim->ok()) return nullptr;
    return sim;
}

} // namespace

void register_detour() {
    dtAllocSetCustom(detour_alloc, detour_free);
    const Impl separation{"detour", make_detour<false>, 20000, false, true, false};
    const Impl avoidance{"detour_avoid", make_detour<true>, 20000, false, true, false};
    add(kSeparation, separation);
    add(kSeparation, avoidance);
    add(kCrossing, separation);
    add(kCrossing, avoidance);
}

} // namespace bench
