// The conventional way: one heap object per agent with a list of virtual behavior objects, and a
// proximity database of unsorted buckets (one std::vector of agent pointers per cell, agents moved
// between buckets when they cross a cell edge), as OpenSteer-style libraries are written.
//
// A tick: every agent gathers its neighbors into a vector and asks each behavior for a force
// (parallel, reading the other agents' current state), then every agent integrates (parallel),
// then the buckets are updated (serial). The formulas are the spec's, as in include/crowd/steer.h.
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "harness.h"

namespace bench {
namespace {

struct Vec2 {
    float x = 0, y = 0;
    Vec2 operator+(Vec2 o) const { return {x + o.x, y + o.y}; }
    Vec2 operator-(Vec2 o) const { return {x - o.x, y - o.y}; }
    Vec2 operator*(float s) const { return {x * s, y * s}; }
    Vec2& operator+=(Vec2 o) { return x += o.x, y += o.y, *this; }
    float dot(Vec2 o) const { return x * o.x + y * o.y; }
    float length() const { return std::sqrt(x * x + y * y); }
    Vec2 normalized() const {
        const float l = length();
        return l > 0 ? Vec2{x / l, y / l} : Vec2{};
    }
    Vec2 truncated(float max) const {
        const float l2 = dot(*this);
        return l2 > max * max ? *this * (max / std::sqrt(l2)) : *this;
    }
};

class Agent;
using Neighbors = std::vector<const Agent*>;

class Behavior {
  public:
    virtual ~Behavior() = default;
    virtual Vec2 steer(Agent& self, const Neighbors& near) const = 0;
};

class Agent {
  public:
    Agent(Vec2 p, Vec2 v, const Family& f, float query_radius)
        : position(p), velocity(v), heading{1, 0}, max_speed(f.max_speed), max_force(f.max_force),
          radius(f.radius), query_radius(query_radius) {}
    virtual ~Agent() = default;

    virtual void plan(const Neighbors& near) {
        brake = 1.0f;
        force = Vec2{};
        for (const auto& b : behaviors) force += b->steer(*this, near);
    }

    virtual void update(float dt) {
        velocity = (velocity + force.truncated(max_force) * dt).truncated(max_speed);
        position += velocity * dt;
        if (velocity.dot(velocity) > 0.01f) heading = velocity.normalized();
    }

    Vec2 position, velocity, heading, force;
    float max_speed, max_force, radius, query_radius;
    float brake = 1.0f; // queue braking of this tick, set by QueueCone before Seek reads it
    int bucket = -1;
    std::vector<std::unique_ptr<Behavior>> behaviors;
};

class Separation final : public Behavior {
  public:
    Separation(float radius, float weight) : radius_(radius), weight_(weight) {}
    Vec2 steer(Agent& self, const Neighbors& near) const override {
        Vec2 f;
        for (const Agent* o : near) {
            const Vec2 off = self.position - o->position;
            const float d = off.length();
            if (!(d > 0.01f && d < radius_)) continue;
            const float push = self.max_speed * (1.0f - d / radius_);
            f += (off * (1.0f / d) * push - self.velocity) * weight_;
        }
        return f;
    }

  private:
    float radius_, weight_;
};

// Finds the closest agent ahead in the forward cone and sets the agent's brake; adds no force.
class QueueCone final : public Behavior {
  public:
    QueueCone(float length, float width) : length_(length), width_(width) {}
    Vec2 steer(Agent& self, const Neighbors& near) const override {
        const float speed = self.velocity.length();
        if (speed < 1e-3f) return {};
        const Vec2 h = self.velocity * (1.0f / speed);
        float closest = INFINITY;
        for (const Agent* o : near) {
            const Vec2 off = o->position - self.position;
            const float along = off.dot(h);
            if (along < 0.0f || along > length_) continue;
            if ((off - h * along).length() > width_) continue;
            closest = std::min(closest, along);
        }
        if (closest < INFINITY) self.brake = std::clamp(closest / length_, 0.0f, 1.0f);
        return {};
    }

  private:
    float length_, width_;
};

class Seek final : public Behavior {
  public:
    explicit Seek(Vec2 target) : target_(target) {}
    Vec2 steer(Agent& self, const Neighbors&) const override {
        return (target_ - self.position).normalized() * (self.max_speed * self.brake) -
               self.velocity;
    }

  private:
    Vec2 target_;
};

// Fixed grid over the starting square plus a margin; agents beyond it share the border buckets.
class ProximityGrid {
  public:
    ProximityGrid(float half, float cell) : cell_(cell) {
        origin_ = -half;
        n_ = std::max(1, (int)std::ceil(2 * half / cell));
        buckets_.resize((size_t)n_ * (size_t)n_);
    }
    int coord(float v) const {
        return std::clamp((int)std::floor((v - origin_) / cell_), 0, n_ - 1);
    }
    int bucket_of(Vec2 p) const { return coord(p.y) * n_ + coord(p.x); }

    void place(Agent* a) {
        const int b = bucket_of(a->position);
        if (b == a->bucket) return;
        if (a->bucket >= 0) {
            auto& old = buckets_[(size_t)a->bucket];
            auto it = std::find(old.begin(), old.end(), a);
            *it = old.back();
            old.pop_back();
        }
        buckets_[(size_t)b].push_back(a);
        a->bucket = b;
    }

    // Agents within `r` of `self` (itself excluded) into `out`; returns the candidates examined.
    int64_t neighbors(const Agent* self, float r, Neighbors& out) const {
        out.clear();
        const Vec2 p = self->position;
        const int x0 = coord(p.x - r), x1 = coord(p.x + r), y0 = coord(p.y - r),
                  y1 = coord(p.y + r);
        int64_t examined = 0;
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const auto& b = buckets_[(size_t)(y * n_ + x)];
                examined += (int64_t)b.size();
                for (const Agent* o : b)
                    if (o != self && (o->position - p).dot(o->position - p) < r * r)
                        out.push_back(o);
            }
        return examined;
    }

  private:
    float origin_, cell_;
    int n_;
    std::vector<std::vector<Agent*>> buckets_;
};

class ObjectsSim final : public Sim {
  public:
    ObjectsSim(const Case& c, const Crowd& crowd)
        : threads_(c.threads), dt_(crowd.fam.dt), grid_(crowd.side * 0.5f + 50.0f, crowd.fam.cell) {
        const Family& f = crowd.fam;
        const float reach = std::sqrt(f.cone_length * f.cone_length + f.cone_width * f.cone_width);
        const float query = crowd.cone ? std::max(f.sep_radius, reach) : f.sep_radius;
        agents_.reserve(crowd.px.size());
        for (size_t i = 0; i < crowd.px.size(); ++i) {
            auto a = std::make_unique<Agent>(Vec2{crowd.px[i], crowd.py[i]},
                                             Vec2{crowd.vx[i], crowd.vy[i]}, f, query);
            a->behaviors.push_back(std::make_unique<Separation>(f.sep_radius, 1.0f));
            if (crowd.cone)
                a->behaviors.push_back(std::make_unique<QueueCone>(f.cone_length, f.cone_width));
            if (crowd.seek)
                a->behaviors.push_back(std::make_unique<Seek>(Vec2{crowd.gx[i], crowd.gy[i]}));
            grid_.place(a.get());
            agents_.push_back(std::move(a));
        }
        scratch_.resize((size_t)std::max(threads_, 1));
    }

    void step() override {
        const int n = (int)agents_.size();
        const double t0 = omp_get_wtime();
        int64_t examined = 0;
#pragma omp parallel num_threads(threads_) if (threads_ > 1) reduction(+ : examined)
        {
            Neighbors& near = scratch_[(size_t)omp_get_thread_num()];
#pragma omp for schedule(static)
            for (int i = 0; i < n; ++i) {
                Agent* a = agents_[(size_t)i].get();
                examined += grid_.neighbors(a, a->query_radius, near);
                a->plan(near);
            }
        }
        const double t1 = omp_get_wtime();
#pragma omp parallel for num_threads(threads_) if (threads_ > 1) schedule(static)
        for (int i = 0; i < n; ++i) agents_[(size_t)i]->update(dt_);
        const double t2 = omp_get_wtime();
        for (auto& a : agents_) grid_.place(a.get());
        const double t3 = omp_get_wtime();
        ms_[0] = (t1 - t0) * 1e3, ms_[1] = (t2 - t1) * 1e3, ms_[2] = (t3 - t2) * 1e3;
        candidates_ = examined;
    }

    int phases(Phase* out, int max) const override {
        if (max < 3) return 0;
        out[0] = Phase{"plan", ms_[0]};
        out[1] = Phase{"integrate", ms_[1]};
        out[2] = Phase{"rebucket", ms_[2]};
        return 3;
    }
    int64_t candidates() const override {
        return candidates_;
    }
    void positions(std::vector<float>& x, std::vector<float>& y) const override {
        x.clear(), y.clear();
        for (const auto& a : agents_) x.push_back(a->position.x), y.push_back(a->position.y);
    }

  private:
    int threads_;
    float dt_;
    ProximityGrid grid_;
    std::vector<std::unique_ptr<Agent>> agents_;
    std::vector<Neighbors> scratch_;
    double ms_[3] = {};
    int64_t candidates_ = 0;
};

std::unique_ptr<Sim> make_objects(const Case& c, const Crowd* crowd) {
    return std::make_unique<ObjectsSim>(c, *crowd);
}

} // namespace

void register_objects() {
    const Impl objects{"objects", make_objects};
    add(kSeparation, objects);
    add(kCrossing, objects);
    add(kCrossingCone, objects);
}

} // namespace bench
