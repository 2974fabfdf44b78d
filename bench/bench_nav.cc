// Navigation at scale (crowd/nav.h): what a field costs to build and to repair, and what routing
// adds to a town's tick.
//
// The towns are the walled town of bench_town.cc (tools/scenes/town.c): solid square blocks of
// side scene_town_block() centred in the cells of a 20 m street grid, streets on the lines
// x = k * 20 and y = k * 20 between them. The scene itself is not used: its agents follow
// waypoint paths over every street crossing of the town, one destination per crossing, and here
// the destinations in use are chosen (16 or 64 crossings, or one at a time).
//
//  - BM_NavFieldBuild: one field built from scratch over a town of 500 x 500 m at the default
//    cell of 0.5 m (about a million cells), and over BM_NavMillion's town of 2 x 2 km (16M
//    cells): each iteration retargets one agent to a destination no field exists for and times
//    crowd_world_nav_update. field_ms is the median of the builds, grid_ms the median time to lay
//    the grid (timed apart: the update after an obstacle's add and remove with no destination in
//    use lays the grid and builds nothing), bytes/cell the fields' memory over their cells.
//  - BM_NavRepair: the 500 m town with 16 destinations in use; each iteration adds one 10 m wall
//    across a street, times the update after it (repair_ms: the grid laid again where the wall
//    reaches and every field repaired, src/nav/nav_repair.c), then removes the wall and updates
//    again (remove_ms, untimed).
//  - BM_NavTownRouted: a town crowd at density 0.25 routed to 16 destinations (goals, or waypoint
//    paths through them) against the same crowd on looping waypoint paths along the streets
//    without routing (CROWD_ROUTE_STRAIGHT), as BM_TownPair measures walls against open ground:
//    see the comment above it.
//  - BM_NavMillion: 1M agents in the 2 km town routed to 64 destinations: ticks/s and the route
//    phase's share. Its 64 fields take 4 GB (the world raises the budget) and some minutes to
//    build, so it runs once per run (one repetition, the median over its ticks).
//
// The agent counts of BM_NavTownRouted and BM_NavMillion (and the 2 km town of BM_NavFieldBuild,
// BM_NavMillion's) follow --crowd_sizes: a case larger than the largest size of the run is
// skipped (tools/bench.sh --quick runs 10k agents only).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "crowd/crowd.h"
#include "harness.h"
#include "scenes.h"

namespace {

constexpr float kPitch = 20.0f; // the town's street grid (town.c)

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The CPU time of the whole process so far (every thread), in ms.
double process_cpu_ms() {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-3;
}

using bench::quantile;

// Whether a case of n agents belongs to this run (--crowd_sizes): up to its largest size.
bool size_in_run(int agents) {
    const std::vector<int>& s = bench::options().sizes;
    return !s.empty() && agents <= *std::max_element(s.begin(), s.end());
}

// A square town of town.c's layout: blocks x blocks solid square blocks of side
// scene_town_block() centred in the cells of the 20 m street grid that starts at (origin, origin),
// streets on the lines origin + k * 20 between and around them.
struct Town {
    float origin;
    int blocks;

    crowd_vec2 crossing(int a, int b) const {
        return {origin + (float)a * kPitch, origin + (float)b * kPitch};
    }
    // The centre of block (i, j).
    crowd_vec2 block(int i, int j) const {
        return {origin + ((float)i + 0.5f) * kPitch, origin + ((float)j + 0.5f) * kPitch};
    }
    crowd_status add(crowd_world* w) const {
        const float h = scene_town_block() * 0.5f;
        for (int i = 0; i < blocks; ++i) {
            for (int j = 0; j < blocks; ++j) {
                const crowd_vec2 c = block(i, j);
                const crowd_vec2 pts[4] = {
                    {c.x - h, c.y - h}, {c.x + h, c.y - h}, {c.x + h, c.y + h}, {c.x - h, c.y + h}};
                crowd_obstacle_id id;
                const crowd_status st = crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, pts, 4, &id);
                if (st != CROWD_OK) return st;
            }
        }
        return CROWD_OK;
    }
};

// The town of side `side` metres centred on the origin.
Town town_of_side(float side) {
    const int blocks = (int)std::lround(side / kPitch);
    return {-(float)blocks * kPitch * 0.5f, blocks};
}

crowd_world* make_world(int threads, int capacity, size_t budget) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = threads;
    wd.capacity = capacity;
    if (budget) wd.nav.budget = budget;
    crowd_world* w = nullptr;
    return crowd_world_create(&wd, &w) == CROWD_OK ? w : nullptr;
}

// ---- one field, and its repair -----------------------------------------------------------------

// The k-th destination of a sequence that never repeats a grid cell: the town's street crossings
// in a scrambled order, then again half a metre along the street per round.
crowd_vec2 fresh_destination(const Town& t, int k) {
    const int side = t.blocks + 1, n = side * side, r = k / n;
    const int i = (int)((int64_t)(k % n) * 263 % n); // 263: a prime that divides no n here
    crowd_vec2 p = t.crossing(i % side, i / side);
    p.x += 0.5f * (float)r;
    return p;
}

crowd_goal seek(crowd_vec2 target) {
    crowd_goal g = crowd_goal_default();
    g.mode = CROWD_GOAL_SEEK;
    g.target = target;
    return g;
}

// Lays the whole grid again (no field in use) `times` times and returns the median grid time.
double grid_ms(crowd_world* w, const Town& t, int times) {
    std::vector<double> ms;
    const crowd_vec2 sq[4] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 1.0f}, {0.0f, 1.0f}};
    for (int k = 0; k < times; ++k) {
        crowd_obstacle_id id;
        // A square outside the town, added and removed with an update after each: the grid's box
        // grows and shrinks again, so both updates lay it whole (a change that keeps the box is
        // laid again only where it reaches); the second lays the town's grid as it was.
        const crowd_vec2 at = t.crossing(0, 0);
        crowd_vec2 p[4];
        for (int i = 0; i < 4; ++i) p[i] = {at.x - 30.0f + sq[i].x, at.y + sq[i].y};
        if (crowd_obstacle_add(w, CROWD_OBSTACLE_POLYGON, p, 4, &id) != CROWD_OK ||
            crowd_world_nav_update(w) != CROWD_OK || crowd_obstacle_remove(w, id) != CROWD_OK ||
            crowd_world_nav_update(w) != CROWD_OK)
            return -1.0;
        ms.push_back(crowd_world_nav_stats(w).last_grid_ms);
    }
    return quantile(ms, 0.5);
}

void BM_NavFieldBuild(benchmark::State& state) {
    const float side = (float)state.range(0);
    if (side > 500.0f && !size_in_run(1000000)) {
        state.SkipWithError("left out: the town of 1M agents, beyond this run's --crowd_sizes");
        return;
    }
    const Town town = town_of_side(side);
    crowd_world* w = make_world((int)state.range(1), 16, 0);
    if (!w || town.add(w) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        crowd_world_destroy(w);
        return;
    }
    const double grid = grid_ms(w, town, 5);
    crowd_agent_def a = crowd_agent_def_default();
    a.position = town.crossing(town.blocks / 2, town.blocks / 2);
    crowd_agent_id agent;
    if (grid < 0.0 || crowd_agent_add(w, &a, &agent) != CROWD_OK) {
        state.SkipWithError("cannot lay the grid or add the agent");
        crowd_world_destroy(w);
        return;
    }
    std::vector<double> build_ms;
    const uint64_t builds0 = crowd_world_nav_stats(w).builds;
    int k = 0;
    for (auto _ : state) {
        state.PauseTiming();
        const crowd_goal g = seek(fresh_destination(town, k++));
        const crowd_status st = crowd_agent_set_goal(w, agent, &g);
        state.ResumeTiming();
        if (st != CROWD_OK || crowd_world_nav_update(w) != CROWD_OK) {
            state.SkipWithError("the update failed");
            break;
        }
        build_ms.push_back(crowd_world_nav_stats(w).last_build_ms);
    }
    const crowd_nav_stats s = crowd_world_nav_stats(w);
    const double cells = (double)s.grid_w * (double)s.grid_h;
    state.counters["field_ms"] = quantile(build_ms, 0.5);
    state.counters["grid_ms"] = grid;
    state.counters["cells"] = cells;
    state.counters["blocked_frac"] = (double)s.blocked_cells / cells;
    state.counters["bytes/cell"] = s.fields ? (double)s.field_bytes / s.fields / cells : 0.0;
    state.counters["fields_cached"] = s.fields;
    // 1 when every iteration built one field (the check that each destination was new).
    state.counters["builds/iter"] = (double)(s.builds - builds0) / (double)state.iterations();
    crowd_world_destroy(w);
}

void BM_NavRepair(benchmark::State& state) {
    const int dests = (int)state.range(0);
    const Town town = town_of_side(500.0f);
    crowd_world* w = make_world((int)state.range(1), 64, 0);
    if (!w || town.add(w) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        crowd_world_destroy(w);
        return;
    }
    // One agent per destination, each standing on a crossing of the town's bottom street and
    // heading for a crossing of a 4 x 4 (or larger) lattice over the town.
    const int side = (int)std::lround(std::sqrt((double)dests));
    for (int d = 0; d < dests; ++d) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = town.crossing(d % (town.blocks + 1), 0);
        a.position.y += (float)(d / (town.blocks + 1)) * 2.0f;
        const int span = town.blocks - 4, step = std::max(side - 1, 1);
        a.goal = seek(town.crossing(2 + (d % side) * span / step, 2 + (d / side) * span / step));
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) != CROWD_OK) {
            state.SkipWithError("cannot add the agents");
            crowd_world_destroy(w);
            return;
        }
    }
    if (crowd_world_nav_update(w) != CROWD_OK) {
        state.SkipWithError("cannot build the fields");
        crowd_world_destroy(w);
        return;
    }
    // A 10 m wall across the street x = -10 between the crossings at y = -10 and y = 10: it closes
    // that street (8.45 m wide) and ends inside the blocks either side.
    const crowd_vec2 mid = town.block(town.blocks / 2, town.blocks / 2); // (0, 0)
    const float street = mid.x - kPitch * 0.5f;
    const crowd_vec2 wall[2] = {{street - 5.0f, mid.y}, {street + 5.0f, mid.y}};
    std::vector<double> repair, grid, cells, removal, cpu;
    const uint64_t repairs0 = crowd_world_nav_stats(w).repairs;
    for (auto _ : state) {
        crowd_obstacle_id id;
        if (crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, wall, 2, &id) != CROWD_OK) {
            state.SkipWithError("the wall was refused");
            break;
        }
        const auto t0 = Clock::now();
        const double c0 = process_cpu_ms();
        crowd_status st = crowd_world_nav_update(w);
        repair.push_back(ms_since(t0));
        cpu.push_back(process_cpu_ms() - c0);
        state.SetIterationTime(repair.back() * 1e-3);
        const crowd_nav_stats s = crowd_world_nav_stats(w);
        grid.push_back(s.last_grid_ms);
        cells.push_back((double)s.last_repair_cells);
        // The removal's repair, untimed by the benchmark (reported as remove_ms), so that each
        // timed update repairs after the one wall added.
        if (st == CROWD_OK && crowd_obstacle_remove(w, id) == CROWD_OK) {
            const auto t1 = Clock::now();
            st = crowd_world_nav_update(w);
            removal.push_back(ms_since(t1));
        }
        if (st != CROWD_OK) {
            state.SkipWithError("the update failed");
            break;
        }
    }
    const crowd_nav_stats s = crowd_world_nav_stats(w);
    const int fields = std::max(s.fields_in_use, 1);
    state.counters["repair_ms"] = quantile(repair, 0.5);
    state.counters["remove_ms"] = quantile(removal, 0.5);
    // CPU time of the repair over every thread (with OMP_WAIT_POLICY=passive, idle workers take
    // none): what the wall time is at most times the threads on a machine with nothing else on.
    state.counters["cpu_ms"] = quantile(cpu, 0.5);
    state.counters["grid_ms"] = quantile(grid, 0.5);
    state.counters["fields_in_use"] = s.fields_in_use;
    state.counters["ms/field"] = quantile(repair, 0.5) / fields;
    // Cells each field solved again on adding the wall, and that as a share of the grid.
    state.counters["cells/field"] = quantile(cells, 0.5) / fields;
    state.counters["grid_frac"] =
        quantile(cells, 0.5) / fields / ((double)s.grid_w * (double)s.grid_h);
    // 1 when every field was repaired at each update (2 per iteration: the add and the removal),
    // not built whole.
    state.counters["repaired/field"] =
        (double)(s.repairs - repairs0) / (2.0 * (double)state.iterations() * fields);
    crowd_world_destroy(w);
}

// ---- town crowds --------------------------------------------------------------------------------

// The crowd of town.c at density 0.25: streets on the lines k * 20 for k in [-m, m], blocks
// between them, and every 100 agents sharing a looping rectangle of 1 to 4 blocks by 1 to 4
// blocks with its corners on street crossings, every other one walked backwards; each agent
// starts on a random side of its rectangle, across the street by up to what leaves its disc clear
// of the blocks. The same random draws as town.c, so the straight variant is BM_Town's walled
// crowd.
struct TownCrowd {
    int n = 0, m = 1, paths = 1;
    std::vector<crowd_vec2> corners; // 4 per path
    std::vector<crowd_vec2> pos;
    std::vector<float> speed;
    std::vector<int> side; // the side of its path each agent starts on
};

TownCrowd town_crowd(int n) {
    scene_def def = scene_def_default();
    def.kind = SCENE_TOWN;
    def.agents = n;
    TownCrowd c;
    c.n = n;
    c.m = std::max(1, (int)std::floor(scene_side(&def) * 0.5f / kPitch));
    c.paths = std::max(1, n / 100);
    scene_rng rng{def.seed ^ 0x70a4u};
    const int m = c.m;
    for (int p = 0; p < c.paths; ++p) {
        const int wx = 1 + (int)(scene_rng_next(&rng) % 4),
                  wy = 1 + (int)(scene_rng_next(&rng) % 4);
        const int spanx = std::max(0, 2 * m - wx), spany = std::max(0, 2 * m - wy);
        const int i0 = -m + (int)(scene_rng_next(&rng) % (uint64_t)(spanx + 1));
        const int j0 = -m + (int)(scene_rng_next(&rng) % (uint64_t)(spany + 1));
        const int i1 = i0 + std::min(wx, 2 * m), j1 = j0 + std::min(wy, 2 * m);
        c.corners.push_back({(float)i0 * kPitch, (float)j0 * kPitch});
        c.corners.push_back({(float)i1 * kPitch, (float)j0 * kPitch});
        c.corners.push_back({(float)i1 * kPitch, (float)j1 * kPitch});
        c.corners.push_back({(float)i0 * kPitch, (float)j1 * kPitch});
    }
    const float radius = crowd_agent_def_default().radius;
    const float lane = (kPitch - scene_town_block()) * 0.5f - radius - 0.2f;
    for (int i = 0; i < n; ++i) {
        const crowd_vec2* k = &c.corners[(size_t)(i % c.paths) * 4];
        const int side = (int)(scene_rng_next(&rng) % 4);
        const crowd_vec2 a = k[side], b = k[(side + 1) % 4];
        const float t = scene_rng_float(&rng, 0.0f, 1.0f);
        const float off = scene_rng_float(&rng, -lane, lane);
        c.pos.push_back({a.x + (b.x - a.x) * t + (a.x == b.x ? off : 0.0f),
                         a.y + (b.y - a.y) * t + (a.y == b.y ? off : 0.0f)});
        c.speed.push_back(scene_rng_float(&rng, 1.2f, 1.6f));
        c.side.push_back(side);
    }
    return c;
}

// `count` destinations: the street crossings of a lattice of s x s (s * s = count) spread evenly
// over the town, at the crossings nearest the centres of its s x s tiles.
std::vector<crowd_vec2> lattice(int m, int count) {
    const int s = (int)std::lround(std::sqrt((double)count));
    std::vector<crowd_vec2> d;
    for (int b = 0; b < s; ++b) {
        for (int a = 0; a < s; ++a) {
            const auto at = [&](int k) {
                return (float)std::lround(((k + 0.5) / s - 0.5) * 2.0 * m) * kPitch;
            };
            d.push_back({at(a), at(b)});
        }
    }
    return d;
}

// The destination number of an agent's leg `leg`, from a hash of both; `prev` is the last leg's
// (-1 for none), which it never repeats.
int destination_of(int agent, int leg, int prev, int count) {
    uint64_t x = (uint64_t)agent * 0x9e3779b97f4a7c15u + (uint64_t)leg * 0xbf58476d1ce4e5b9u;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebu;
    x ^= x >> 29;
    const int d = (int)(x % (uint64_t)count);
    return d == prev ? (d + 1) % count : d;
}

constexpr float kReached = 3.0f; // a destination within this is reached (town.c's arrive_radius)

// An agent's own destination for its leg `leg`: a point of a street of the town of half-side m
// blocks (on the line x = k * 20 or y = k * 20, anywhere along it and across its lane), from a hash
// of both, so that no two agents share one (a field cell of its own each).
crowd_vec2 own_destination(int agent, int leg, int m) {
    uint64_t x = (uint64_t)agent * 0xd1b54a32d192ed03u + (uint64_t)leg * 0x9e3779b97f4a7c15u + 1;
    const auto next = [&x]() {
        x ^= x >> 31;
        x *= 0x94d049bb133111ebu;
        x ^= x >> 29;
        return x;
    };
    const float span = (float)m * kPitch;
    const float along = -span + 2.0f * span * (float)(next() % 1000000) / 1e6f;
    const float lane = (kPitch - scene_town_block()) * 0.5f - 0.8f;
    const float across = -lane + 2.0f * lane * (float)(next() % 1000000) / 1e6f;
    const float street = (float)((int)(next() % (uint64_t)(2 * m + 1)) - m) * kPitch + across;
    return next() % 2 ? crowd_vec2{street, along} : crowd_vec2{along, street};
}

// How a town world's agents walk.
enum class Walk {
    kStraight, // town.c's rectangles along the streets, CROWD_ROUTE_STRAIGHT
    kGoals,    // a routed SEEK goal at one of the destinations, the next once within kReached
    kPaths,    // a looping waypoint path through 4 of the destinations, its legs routed
    kOwn,      // a routed SEEK goal of its own (own_destination), the next once within kReached
};

// One town world of a TownCrowd.
struct TownWorld {
    crowd_world* w = nullptr;
    Walk walk = Walk::kStraight;
    std::vector<crowd_vec2> dests;
    std::vector<int> leg, dest; // by agent index: legs walked, destination number (kGoals)
    int m = 1;                  // the town's half-side in blocks (kOwn)
    std::vector<crowd_agent_id> ids;
    std::vector<crowd_vec2> pos;
    long arrivals = 0;
    double setup_nav_ms = 0.0;

    TownWorld() = default;
    TownWorld(const TownWorld&) = delete;
    TownWorld& operator=(const TownWorld&) = delete;
    ~TownWorld() { crowd_world_destroy(w); }

    crowd_status build(const TownCrowd& c, int threads, Walk how, int ndest, size_t budget) {
        walk = how;
        m = c.m;
        w = make_world(threads, c.n, budget);
        if (!w) return CROWD_ERR_OUT_OF_MEMORY;
        crowd_status st = crowd_world_reserve(w, c.n);
        if (st == CROWD_OK) st = Town{-(float)c.m * kPitch, 2 * c.m}.add(w);
        dests = lattice(c.m, ndest);
        // kPaths: path p visits 4 different destinations, drawn like a goal's legs.
        std::vector<crowd_path_id> paths;
        const bool goals = walk == Walk::kGoals || walk == Walk::kOwn;
        for (int p = 0; p < c.paths && st == CROWD_OK && !goals; ++p) {
            crowd_vec2 pts[4];
            const crowd_vec2* at = &c.corners[(size_t)p * 4];
            if (walk == Walk::kPaths) {
                int used = 0, d = -1;
                for (int k = 0; used < 4; ++k) {
                    d = destination_of(p, k, d, ndest);
                    bool seen = false;
                    for (int q = 0; q < used; ++q)
                        seen = seen ||
                               (pts[q].x == dests[(size_t)d].x && pts[q].y == dests[(size_t)d].y);
                    if (!seen) pts[used++] = dests[(size_t)d];
                }
                at = pts;
            }
            crowd_path_id id;
            st = crowd_path_create(w, at, 4, &id);
            paths.push_back(id);
        }
        leg.assign((size_t)c.n, 0);
        dest.assign((size_t)c.n, 0);
        for (int i = 0; i < c.n && st == CROWD_OK; ++i) {
            crowd_agent_def a = crowd_agent_def_default();
            a.position = c.pos[(size_t)i];
            a.max_speed = c.speed[(size_t)i];
            dest[(size_t)i] = destination_of(i, 0, -1, ndest);
            if (walk == Walk::kGoals) a.goal = seek(dests[(size_t)dest[(size_t)i]]);
            if (walk == Walk::kOwn) a.goal = seek(own_destination(i, 0, m));
            crowd_agent_id id;
            st = crowd_agent_add(w, &a, &id);
            if (st != CROWD_OK || goals) continue;
            const int p = i % c.paths;
            const bool reverse = p % 2 == 1;
            crowd_path_follow_def f = crowd_path_follow_def_default();
            f.path = paths[(size_t)p];
            f.kind = CROWD_PATH_WAYPOINTS;
            f.mode = CROWD_PATH_LOOP;
            f.arrive_radius = kReached;
            f.reverse = reverse;
            // Straight: the next corner of the side it stands on; paths: any of the four.
            const int side = walk == Walk::kStraight ? c.side[(size_t)i] : i / c.paths % 4;
            f.start_index = reverse ? side : (side + 1) % 4;
            f.route = walk == Walk::kStraight ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
            st = crowd_agent_set_path(w, id, &f);
        }
        const auto t0 = Clock::now();
        if (st == CROWD_OK) st = crowd_world_nav_update(w); // the fields, outside the ticks
        setup_nav_ms = ms_since(t0);
        return st;
    }

    // After a step, untimed: routed agents that reached their destination get the next one. The
    // straight worlds read every agent too, so that both start their steps from alike caches.
    crowd_status after_step() {
        const int n = crowd_world_agent_count(w);
        ids.resize((size_t)n);
        pos.resize((size_t)n);
        int count = 0;
        crowd_world_get_agents(w, ids.data(), pos.data(), nullptr, n, &count);
        const int nd = (int)dests.size();
        for (int k = 0; k < count; ++k) {
            const int i = (int)ids[(size_t)k].index1 - 1;
            const bool own = walk == Walk::kOwn;
            const crowd_vec2 d =
                own ? own_destination(i, leg[(size_t)i], m) : dests[(size_t)dest[(size_t)i]];
            const float dx = pos[(size_t)k].x - d.x, dy = pos[(size_t)k].y - d.y;
            if ((walk != Walk::kGoals && !own) || dx * dx + dy * dy > kReached * kReached) continue;
            if (!own) dest[(size_t)i] = destination_of(i, ++leg[(size_t)i], dest[(size_t)i], nd);
            const crowd_goal g = seek(own ? own_destination(i, ++leg[(size_t)i], m)
                                          : dests[(size_t)dest[(size_t)i]]);
            const crowd_status st = crowd_agent_set_goal(w, ids[(size_t)k], &g);
            if (st != CROWD_OK) return st;
            ++arrivals;
        }
        return CROWD_OK;
    }

    // Of every 97th agent, the share whose route state is ROUTED (a check that routing is on).
    double routed_share() {
        const int n = crowd_world_agent_count(w);
        ids.resize((size_t)n);
        int count = 0, seen = 0, on = 0;
        crowd_world_get_agents(w, ids.data(), nullptr, nullptr, n, &count);
        for (int k = 0; k < count; k += 97) {
            crowd_route_info r;
            if (crowd_agent_get_route(w, ids[(size_t)k], &r) != CROWD_OK) continue;
            ++seen;
            on += r.state == CROWD_ROUTE_STATE_ROUTED;
        }
        return seen ? (double)on / seen : 0.0;
    }
};

constexpr int kNavWarmupTicks = 20; // agents leave their start spots (bench_town.cc)
constexpr int kRoundTicks = 5;

// Routed against straight, as BM_TownPair measures walled against open: two routed and two
// straight town worlds of the same crowd (straight, routed, routed, straight), each iteration a
// round that steps every world kRoundTicks ticks in a shuffled order. x_straight is the median of
// the per-round ratios of the routed and straight tick times (the means of each pair), q1 / q3
// its quartiles; routed_ms / straight_ms the medians of the per-round ticks.
//
// The straight worlds are BM_Town's walled town (the same agents on the same rectangles along the
// streets, CROWD_ROUTE_STRAIGHT). The routed worlds start with the same agents at the same spots
// and head for `destinations` street crossings spread over the town: paths:0 with routed SEEK
// goals, each agent taking another destination once within 3 m of its own (untimed, after each
// step), paths:1 on looping waypoint paths through 4 of the destinations each, their legs routed
// (100 agents a path, as in the town). So the two crowds do not walk alike: the straight one
// keeps to its rectangles on every street of the town, the routed one crosses the town towards
// a few crossings and gathers on the ways there. candidates/agent (the neighbor candidates each
// agent examined per tick) shows how far their neighborhoods differ, and the ns/agent counters
// split both ticks by phase (route: building fields; goal and path: reading them).
void BM_NavTownRouted(benchmark::State& state) {
    const int n = (int)state.range(0), threads = (int)state.range(1), ndest = (int)state.range(2);
    const Walk routed_walk = state.range(3) ? Walk::kPaths : Walk::kGoals;
    if (!size_in_run(n)) {
        state.SkipWithError("left out: more agents than this run's largest --crowd_sizes");
        return;
    }
    const TownCrowd crowd = town_crowd(n);
    const bool routed_of[4] = {false, true, true, false};
    TownWorld tw[4];
    for (int i = 0; i < 4; ++i) {
        if (tw[i].build(crowd, threads, routed_of[i] ? routed_walk : Walk::kStraight, ndest, 0) !=
            CROWD_OK) {
            state.SkipWithError("cannot build the town");
            return;
        }
    }
    if (crowd_world_nav_stats(tw[1].w).fields_in_use != ndest) {
        state.SkipWithError("the routed town does not use one field per destination (are waypoint "
                            "legs routed in this build?)");
        return;
    }
    for (int t = 0; t < kNavWarmupTicks; ++t)
        for (TownWorld& x : tw) crowd_world_step(x.w), x.after_step();
    std::vector<double> ratio, routed, straight;
    double phase[2][CROWD_PHASE_COUNT] = {}, cand[2] = {}; // straight, routed: summed over ticks
    uint64_t seed = 0x9e3779b97f4a7c15u;
    for (auto _ : state) {
        int order[4] = {0, 1, 2, 3};
        for (int i = 3; i > 0; --i) { // a shuffle, from a fixed seed
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            std::swap(order[i], order[(int)((seed >> 33) % (uint64_t)(i + 1))]);
        }
        double ms[2] = {0.0, 0.0}; // straight, routed: summed over the pair
        bool ok = true;
        for (int i : order) {
            const int r = routed_of[i] ? 1 : 0;
            for (int t = 0; t < kRoundTicks; ++t) {
                const auto t0 = Clock::now();
                ok = ok && crowd_world_step(tw[i].w) == CROWD_OK;
                ms[r] += ms_since(t0) / kRoundTicks;
                const crowd_profile p = crowd_world_get_profile(tw[i].w);
                for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[r][k] += p.phase_ms[k];
                cand[r] += (double)p.candidates;
                ok = ok && tw[i].after_step() == CROWD_OK;
            }
        }
        if (!ok) {
            state.SkipWithError("a step or a retarget failed");
            break;
        }
        state.SetIterationTime((ms[0] + ms[1]) * kRoundTicks * 1e-3);
        ratio.push_back(ms[1] / ms[0]);
        straight.push_back(ms[0] / 2.0);
        routed.push_back(ms[1] / 2.0);
    }
    state.counters["x_straight"] = quantile(ratio, 0.5);
    state.counters["q1"] = quantile(ratio, 0.25);
    state.counters["q3"] = quantile(ratio, 0.75);
    state.counters["routed_ms"] = quantile(routed, 0.5);
    state.counters["straight_ms"] = quantile(straight, 0.5);
    const double per = 1e6 / (2.0 * n * kRoundTicks * (double)state.iterations());
    for (int r = 0; r < 2; ++r) {
        const std::string v = r ? "routed_" : "straight_";
        for (crowd_phase k : {CROWD_PHASE_ROUTE, CROWD_PHASE_NEIGHBOR, CROWD_PHASE_PATH,
                              CROWD_PHASE_GOAL, CROWD_PHASE_WALLS, CROWD_PHASE_CLAMP})
            state.counters["ns/agent_" + v + crowd_phase_name(k)] = phase[r][k] * per;
        state.counters["candidates/agent_" + v] = cand[r] * per * 1e-6;
    }
    state.counters["routed_share"] = tw[1].routed_share();
    state.counters["arrivals"] = (double)(tw[1].arrivals + tw[2].arrivals);
    state.counters["setup_fields_ms"] = tw[1].setup_nav_ms;
    state.counters["fields_MB"] = (double)crowd_world_nav_stats(tw[1].w).field_bytes / 1048576.0;
}

// 1M agents routed to 64 destinations: each iteration one tick (the step alone is timed; the
// retargets after it are not). ticks/s is 1000 over the median tick, route_share the route
// phase's part of the steps (fields are built in the set-up, so a tick builds none unless the
// budget dropped one). The world is built once per run: one repetition (its median is over the
// ticks).
void BM_NavMillion(benchmark::State& state) {
    const int n = (int)state.range(0), threads = (int)state.range(1), ndest = (int)state.range(2);
    if (!size_in_run(n)) {
        state.SkipWithError("left out: more agents than this run's largest --crowd_sizes");
        return;
    }
    const auto t0 = Clock::now();
    const TownCrowd crowd = town_crowd(n);
    TownWorld tw;
    // 64 fields of the 2 km town's 16M cells take 4 GiB: beyond the default budget of 1 GiB.
    if (tw.build(crowd, threads, Walk::kGoals, ndest, (size_t)8 << 30) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        return;
    }
    const double setup_s = ms_since(t0) * 1e-3;
    for (int t = 0; t < 3; ++t) crowd_world_step(tw.w), tw.after_step();
    std::vector<double> tick;
    double phase[CROWD_PHASE_COUNT] = {}, step = 0.0;
    for (auto _ : state) {
        const auto s0 = Clock::now();
        const crowd_status st = crowd_world_step(tw.w);
        tick.push_back(ms_since(s0));
        state.SetIterationTime(tick.back() * 1e-3);
        const crowd_profile p = crowd_world_get_profile(tw.w);
        for (int k = 0; k < CROWD_PHASE_COUNT; ++k) phase[k] += p.phase_ms[k];
        step += p.step_ms;
        if (st != CROWD_OK || tw.after_step() != CROWD_OK) {
            state.SkipWithError("a step or a retarget failed");
            break;
        }
    }
    const crowd_nav_stats s = crowd_world_nav_stats(tw.w);
    const double med = quantile(tick, 0.5);
    state.counters["ticks/s"] = med > 0.0 ? 1e3 / med : 0.0;
    state.counters["tick_ms"] = med;
    state.counters["route_share"] = step > 0.0 ? phase[CROWD_PHASE_ROUTE] / step : 0.0;
    const double per = 1e6 / ((double)n * (double)state.iterations());
    for (int k = 0; k < CROWD_PHASE_COUNT; ++k)
        state.counters[std::string("ns/agent_") + crowd_phase_name((crowd_phase)k)] =
            phase[k] * per;
    state.counters["routed_share"] = tw.routed_share();
    state.counters["arrivals"] = (double)tw.arrivals;
    state.counters["setup_s"] = setup_s;
    state.counters["setup_fields_s"] = tw.setup_nav_ms * 1e-3;
    state.counters["fields_MB"] = (double)s.field_bytes / 1048576.0;
    state.counters["cells"] = (double)s.grid_w * (double)s.grid_h;
}

// Destinations spread out (crowd/nav.h, the spread strategy): the town crowd of BM_NavTownRouted,
// each agent with a routed SEEK goal of its own (own:1; own_destination, a street point, the next
// once within 3 m), against the same crowd routed to 16 shared destinations (own:0), at the
// default budget of 1 GiB. Each iteration one tick (the step alone timed; the retargets after it
// are not). ticks/s is 1000 over the median tick; route_ms the route phase's median (the
// ranking of destinations after retargets, the spread graph and fields), goal_ms the goal
// phase's (it plans the spread agents that entered another tile region); setup_ms the first
// update (the fields that fit and the spread graph); spread the destinations spread; bytes the
// fields' and the strategy's memory together, MB.
void BM_NavSpread(benchmark::State& state) {
    const int n = (int)state.range(0), threads = (int)state.range(1);
    const bool own = state.range(2) != 0;
    if (!size_in_run(n)) {
        state.SkipWithError("left out: more agents than this run's largest --crowd_sizes");
        return;
    }
    const TownCrowd crowd = town_crowd(n);
    TownWorld tw;
    if (tw.build(crowd, threads, own ? Walk::kOwn : Walk::kGoals, 16, 0) != CROWD_OK) {
        state.SkipWithError("cannot build the town");
        return;
    }
    for (int t = 0; t < kNavWarmupTicks; ++t) crowd_world_step(tw.w), tw.after_step();
    std::vector<double> tick, route, goal;
    for (auto _ : state) {
        const auto s0 = Clock::now();
        const crowd_status st = crowd_world_step(tw.w);
        tick.push_back(ms_since(s0));
        state.SetIterationTime(tick.back() * 1e-3);
        const crowd_profile p = crowd_world_get_profile(tw.w);
        route.push_back(p.phase_ms[CROWD_PHASE_ROUTE]);
        goal.push_back(p.phase_ms[CROWD_PHASE_GOAL]);
        if (st != CROWD_OK || tw.after_step() != CROWD_OK) {
            state.SkipWithError("a step or a retarget failed");
            break;
        }
    }
    const crowd_nav_stats s = crowd_world_nav_stats(tw.w);
    const double med = quantile(tick, 0.5);
    state.counters["ticks/s"] = med > 0.0 ? 1e3 / med : 0.0;
    state.counters["tick_ms"] = med;
    state.counters["route_ms"] = quantile(route, 0.5);
    state.counters["goal_ms"] = quantile(goal, 0.5);
    state.counters["setup_ms"] = tw.setup_nav_ms;
    state.counters["spread"] = s.spread;
    state.counters["fields_in_use"] = s.fields_in_use;
    state.counters["fields_built"] = (double)s.field_bytes / (4.0 * s.grid_w * s.grid_h);
    state.counters["MB"] = (double)(s.field_bytes + s.spread_bytes) / 1048576.0;
    state.counters["spread_MB"] = (double)s.spread_bytes / 1048576.0;
    state.counters["routed_share"] = tw.routed_share();
    state.counters["arrivals"] = (double)tw.arrivals;
    state.counters["cells"] = (double)s.grid_w * (double)s.grid_h;
}

} // namespace

BENCHMARK(BM_NavFieldBuild)
    ->ArgNames({"town_m", "threads"})
    ->Args({500, 2})
    ->Iterations(15)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// The town of BM_NavMillion (16M cells): a few builds, once per run.
BENCHMARK(BM_NavFieldBuild)
    ->ArgNames({"town_m", "threads"})
    ->Args({2000, 2})
    ->Iterations(3)
    ->Repetitions(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_NavRepair)
    ->ArgNames({"destinations", "threads"})
    ->Args({16, 2})
    ->MinTime(1.0)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_NavTownRouted)
    ->ArgNames({"agents", "threads", "destinations", "paths"})
    ->ArgsProduct({{10000}, {2}, {16}, {0, 1}})
    ->Iterations(40)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NavTownRouted)
    ->ArgNames({"agents", "threads", "destinations", "paths"})
    ->ArgsProduct({{100000}, {1, 2}, {16}, {0, 1}})
    ->Iterations(40)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_NavSpread)
    ->ArgNames({"agents", "threads", "own"})
    ->ArgsProduct({{20000, 100000}, {2}, {0, 1}})
    ->Iterations(60)
    ->Repetitions(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK(BM_NavMillion)
    ->ArgNames({"agents", "threads", "destinations"})
    ->Args({1000000, 2, 64})
    ->Iterations(30)
    ->Repetitions(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
