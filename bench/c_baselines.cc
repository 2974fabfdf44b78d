// The plain-C baselines (kernel.c, brute.c) behind the harness.
#include "harness.h"
#include "kernel.h"
#include "meter.h"

namespace bench {
namespace {

bench_crowd_def crowd_def(const Case& c, const Crowd& crowd) {
    bench_crowd_def d = {};
    d.n = (int)crowd.px.size();
    d.px = crowd.px.data(), d.py = crowd.py.data();
    d.vx = crowd.vx.data(), d.vy = crowd.vy.data();
    d.gx = crowd.seek ? crowd.gx.data() : nullptr;
    d.gy = crowd.seek ? crowd.gy.data() : nullptr;
    const Family& f = crowd.fam;
    d.dt = f.dt, d.cell = f.cell, d.max_speed = f.max_speed, d.max_force = f.max_force;
    d.sep_radius = f.sep_radius, d.cone_length = f.cone_length, d.cone_width = f.cone_width;
    d.cone = crowd.cone;
    d.threads = c.threads;
    d.alloc = meter_alloc, d.free = meter_free;
    return d;
}

class KernelSim final : public Sim {
  public:
    explicit KernelSim(bench_kernel* k, int n) : k_(k), n_(n) {}
    ~KernelSim() override { bench_kernel_destroy(k_); }
    void step() override { bench_kernel_step(k_); }
    int phases(Phase* out, int max) const override {
        if (max < 2) return 0;
        const bench_profile p = bench_kernel_profile(k_);
        out[0] = Phase{"sort", p.sort_ms};
        out[1] = Phase{"fused", p.fused_ms};
        return 2;
    }
    int64_t candidates() const override { return (int64_t)bench_kernel_profile(k_).candidates; }
    void positions(std::vector<float>& x, std::vector<float>& y) const override {
        x.resize((size_t)n_), y.resize((size_t)n_);
        bench_kernel_positions(k_, x.data(), y.data());
    }

  private:
    bench_kernel* k_;
    int n_;
};

class BruteSim final : public Sim {
  public:
    explicit BruteSim(bench_brute* b, int n) : b_(b), n_(n) {}
    ~BruteSim() override { bench_brute_destroy(b_); }
    void step() override { bench_brute_step(b_); }
    int64_t candidates() const override { return (int64_t)bench_brute_profile(b_).candidates; }
    void positions(std::vector<float>& x, std::vector<float>& y) const override {
        x.resize((size_t)n_), y.resize((size_t)n_);
        bench_brute_positions(b_, x.data(), y.data());
    }

  private:
    bench_brute* b_;
    int n_;
};

std::unique_ptr<Sim> make_kernel(const Case& c, const Crowd* crowd) {
    const bench_crowd_def d = crowd_def(c, *crowd);
    bench_kernel* k = bench_kernel_create(&d);
    return k ? std::make_unique<KernelSim>(k, d.n) : nullptr;
}

std::unique_ptr<Sim> make_brute(const Case& c, const Crowd* crowd) {
    const bench_crowd_def d = crowd_def(c, *crowd);
    bench_brute* b = bench_brute_create(&d);
    return b ? std::make_unique<BruteSim>(b, d.n) : nullptr;
}

} // namespace

void register_kernel() {
    const Impl kernel{"kernel", make_kernel};
    add(kSeparation, kernel);
    add(kCrossing, kernel);
    add(kCrossingCone, kernel);
}

void register_brute() {
    const Impl brute{"brute", make_brute, 20000};
    add(kSeparation, brute);
    add(kCrossing, brute);
    add(kCrossingCone, brute);
}

} // namespace bench
