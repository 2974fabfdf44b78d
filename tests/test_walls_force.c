// The wall force of a stepped world against the documented rule computed here, independently of
// the engine's grid, bounds and candidate lists: each agent's probe runs from its centre along
// velocity * look_ahead; the segment nearest that probe, over every segment of every obstacle,
// pushes once it is within 2 radii, along the direction from its closest point to the probe's (the
// wall's normal on the agent's side where the probe crosses it), by max_force * weight *
// -dot(heading, n) * min(1, (2 r - d) / r) (for an agent slower than 0.2 m/s at most what stops
// its approach within the step, a bound that grows with the speed beyond), and only while the
// agent heads toward it. The agents
// do not separate and follow nothing, so after one step each one's velocity is the reference force
// integrated by crowd_steer_integrate. Radii, look-aheads and weights vary per agent, so the
// engine's bounds for the largest probe and radius are exercised against agents with smaller
// ones; the world is stepped on 1 and 2 threads.
#include "walls_helpers.h"
#include "world_helpers.h"

enum { AGENTS = 1500, MAX_SEGS = 64 };

typedef struct seg {
    double ax, ay, bx, by;
} seg;

// The closest points of segment p0-p1 (the probe) and segment s, and their squared distance.
static double seg_seg(double p0x, double p0y, double p1x, double p1y, const seg* s, double* ux,
                      double* uy, double* wx, double* wy) {
    const double dx = p1x - p0x, dy = p1y - p0y, ex = s->bx - s->ax, ey = s->by - s->ay;
    const double den = dx * ey - dy * ex;
    if (den != 0.0) { // a proper crossing: distance 0 at the crossing point
        const double t = ((s->ax - p0x) * ey - (s->ay - p0y) * ex) / den;
        const double u = ((s->ax - p0x) * dy - (s->ay - p0y) * dx) / den;
        if (t >= 0.0 && t <= 1.0 && u >= 0.0 && u <= 1.0) {
            *ux = *wx = p0x + t * dx;
            *uy = *wy = p0y + t * dy;
            return 0.0;
        }
    }
    // Else the least of the four end-point-to-segment distances.
    double best = INFINITY;
    const double ends[4][2] = {{p0x, p0y}, {p1x, p1y}, {s->ax, s->ay}, {s->bx, s->by}};
    for (int k = 0; k < 4; ++k) {
        const bool on_probe = k < 2;
        const double ox = on_probe ? s->ax : p0x, oy = on_probe ? s->ay : p0y;
        const double vx = on_probe ? ex : dx, vy = on_probe ? ey : dy, l2 = vx * vx + vy * vy;
        double u = l2 > 0.0 ? ((ends[k][0] - ox) * vx + (ends[k][1] - oy) * vy) / l2 : 0.0;
        u = u < 0.0 ? 0.0 : (u > 1.0 ? 1.0 : u);
        const double cx = ox + u * vx, cy = oy + u * vy;
        const double d2 =
            (ends[k][0] - cx) * (ends[k][0] - cx) + (ends[k][1] - cy) * (ends[k][1] - cy);
        if (d2 < best) {
            best = d2;
            *ux = on_probe ? ends[k][0] : cx, *uy = on_probe ? ends[k][1] : cy;
            *wx = on_probe ? cx : ends[k][0], *wy = on_probe ? cy : ends[k][1];
        }
    }
    return best;
}

typedef struct expect {
    bool checked; // false: too close to a decision's edge to call, or the clamp may act
    bool pushed;
    crowd_vec2 vel;
} expect;

// The reference velocity after one step of agent `a` (its def before the step), or unchecked when
// a rounding could flip one of the rule's decisions or the move may meet a wall.
static expect reference(const crowd_agent_def* a, const seg* segs, int n, float dt) {
    expect e = {.checked = false};
    const double px = a->position.x, py = a->position.y, vx = a->velocity.x, vy = a->velocity.y;
    const double r = a->radius, sp = sqrt(vx * vx + vy * vy);
    const double qx = px + vx * a->walls.look_ahead, qy = py + vy * a->walls.look_ahead;
    double best = INFINITY, second = INFINITY, ux = 0, uy = 0, wx = 0, wy = 0;
    int at = -1;
    for (int i = 0; i < n; ++i) {
        double cux = 0, cuy = 0, cwx = 0, cwy = 0;
        const double d2 = seg_seg(px, py, qx, qy, &segs[i], &cux, &cuy, &cwx, &cwy);
        if (d2 < best) {
            second = best, best = d2, at = i;
            ux = cux, uy = cuy, wx = cwx, wy = cwy;
        } else if (d2 < second) {
            second = d2;
        }
    }
    crowd_vec2 f = {0.0f, 0.0f};
    const double d = sqrt(best);
    if (fabs(d - 2.0 * r) < 1e-4 || sqrt(second) - d < 1e-4) return e; // a near tie
    if (d < 2.0 * r) {
        double nx, ny;
        if (d > 1e-9) {
            nx = (ux - wx) / d, ny = (uy - wy) / d;
        } else { // the probe crosses the wall: its normal on the agent's side
            const seg* s = &segs[at];
            const double ex = s->bx - s->ax, ey = s->by - s->ay, l = sqrt(ex * ex + ey * ey);
            nx = -ey / l, ny = ex / l;
            if ((px - s->ax) * nx + (py - s->ay) * ny < 0.0) nx = -nx, ny = -ny;
        }
        const double along = (nx * vx + ny * vy) / sp;
        if (fabs(along) < 1e-4) return e;
        if (along < 0.0) {
            const double k = fmin(1.0, (2.0 * r - d) / r);
            // A slow agent's push stops its approach within the step at most; the bound grows
            // with the speed beyond 0.2 m/s.
            const double stop = -along * sp / dt * fmax(1.0, sp / 0.2);
            const double mag = -along * fmin(k * a->max_force * a->walls.weight, stop);
            f = (crowd_vec2){(float)(nx * mag), (float)(ny * mag)};
            e.pushed = true;
        }
    }
    crowd_vec2 pos = a->position, vel = a->velocity;
    crowd_steer_integrate(&pos, &vel, NULL, f, a->max_speed, a->max_force, dt);
    // The clamp may change a move that ends near a wall: such agents are left out.
    for (int i = 0; i < n; ++i)
        if (ref_seg_dist(pos.x, pos.y, segs[i].ax, segs[i].ay, segs[i].bx, segs[i].by) < r + 0.05)
            return e;
    e.checked = true;
    e.vel = vel;
    return e;
}

// The obstacles: three blocks, a thin wall at an angle and a bent wall, with their segments.
static int add_obstacles(crowd_world* w, seg* segs) {
    const crowd_vec2 b1[4] = {{0, 0}, {6, 0}, {6, 6}, {0, 6}};
    const crowd_vec2 b2[4] = {{10, 1}, {14, -1}, {16, 3}, {12, 5}};
    const crowd_vec2 b3[5] = {{3, 10}, {8, 10}, {9, 13}, {5.5f, 15}, {2, 13}};
    const crowd_vec2 w1[2] = {{-6, -4}, {-1, 9}};
    const crowd_vec2 w2[3] = {{11, 8}, {17, 9}, {18, 15}};
    const struct {
        crowd_obstacle_kind kind;
        const crowd_vec2* p;
        int n;
    } obs[] = {{CROWD_OBSTACLE_POLYGON, b1, 4},
               {CROWD_OBSTACLE_POLYGON, b2, 4},
               {CROWD_OBSTACLE_POLYGON, b3, 5},
               {CROWD_OBSTACLE_WALL, w1, 2},
               {CROWD_OBSTACLE_WALL, w2, 3}};
    int n = 0;
    for (size_t o = 0; o < sizeof obs / sizeof obs[0]; ++o) {
        wall_add(w, obs[o].kind, obs[o].p, obs[o].n);
        const int count = obs[o].kind == CROWD_OBSTACLE_POLYGON ? obs[o].n : obs[o].n - 1;
        for (int k = 0; k < count; ++k) {
            const crowd_vec2 a = obs[o].p[k], b = obs[o].p[(k + 1) % obs[o].n];
            segs[n++] = (seg){a.x, a.y, b.x, b.y};
        }
    }
    return n;
}

static void check(int threads) {
    const float dt = 0.1f;
    crowd_world* w = walls_world(threads, dt);
    seg segs[MAX_SEGS];
    const int nseg = add_obstacles(w, segs);
    crowd_agent_id ids[AGENTS];
    crowd_agent_def defs[AGENTS];
    uint64_t rng = 77;
    for (int i = 0; i < AGENTS;) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){frand(&rng, -8, 20), frand(&rng, -4, 18)};
        const float angle = frand(&rng, 0, 6.2831853f), speed = frand(&rng, 0.3f, 2.0f);
        a.velocity = (crowd_vec2){speed * cosf(angle), speed * sinf(angle)};
        a.max_speed = 2.5f;
        a.radius = frand(&rng, 0.15f, 0.45f);
        a.separation_weight = 0.0f;
        a.walls.look_ahead = frand(&rng, 0.4f, 1.6f);
        a.walls.weight = frand(&rng, 0.5f, 2.0f);
        if (crowd_agent_add(w, &a, &ids[i]) != CROWD_OK) continue; // inside an obstacle
        defs[i++] = a;
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    int checked = 0, pushed = 0;
    for (int i = 0; i < AGENTS; ++i) {
        const expect e = reference(&defs[i], segs, nseg, dt);
        if (!e.checked) continue;
        crowd_vec2 v;
        cr_assert_eq(crowd_agent_get_velocity(w, ids[i], &v), CROWD_OK);
        const float tol = 1e-4f * (1.0f + fabsf(e.vel.x) + fabsf(e.vel.y));
        cr_assert(fabsf(v.x - e.vel.x) <= tol && fabsf(v.y - e.vel.y) <= tol,
                  "agent %d (%d threads): velocity (%g, %g), the rule gives (%g, %g)%s", i, threads,
                  v.x, v.y, e.vel.x, e.vel.y, e.pushed ? " with a push" : "");
        ++checked;
        pushed += e.pushed;
    }
    // Enough agents to mean something, and enough of them pushed.
    cr_assert_gt(checked, AGENTS / 2, "only %d agents checked", checked);
    cr_assert_gt(pushed, 60, "only %d agents pushed", pushed);
    crowd_world_destroy(w);
}

Test(walls_force, a_stepped_world_pushes_as_the_rule_computed_over_every_segment) {
    check(1);
    check(2);
}
