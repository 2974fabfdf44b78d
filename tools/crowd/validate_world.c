// What the validation cases share: the pedestrian, the world, walls and their clearance, keyed
// draws and Weidmann's fundamental diagram.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "validate.h"

void vcat(char* dst, const char* fmt, ...) {
    const size_t used = strlen(dst);
    if (used + 1 >= VTEXT) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst + used, VTEXT - used, fmt, ap);
    va_end(ap);
}

crowd_agent_def v_pedestrian(void) {
    crowd_agent_def d = crowd_agent_def_default();
    d.max_speed = V_FREE_SPEED;
    return d;
}

crowd_world* v_world(int capacity) {
    crowd_world_def def = crowd_world_def_default();
    def.threads = 1;
    def.capacity = capacity;
    crowd_world* w = NULL;
    if (crowd_world_create(&def, &w) != CROWD_OK) return NULL;
    return w;
}

bool v_wall(crowd_world* w, vwalls* keep, float ax, float ay, float bx, float by) {
    const crowd_vec2 pts[2] = {{ax, ay}, {bx, by}};
    crowd_obstacle_id id;
    if (crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, pts, 2, &id) != CROWD_OK) return false;
    if (keep && keep->n < V_MAX_WALLS) {
        keep->a[keep->n] = pts[0];
        keep->b[keep->n] = pts[1];
        keep->n++;
    }
    return true;
}

float v_wall_distance(const vwalls* walls, crowd_vec2 p) {
    float best = 1e30f;
    for (int i = 0; i < walls->n; ++i) {
        const double ax = walls->a[i].x, ay = walls->a[i].y;
        const double dx = walls->b[i].x - ax, dy = walls->b[i].y - ay;
        double t = ((p.x - ax) * dx + (p.y - ay) * dy) / (dx * dx + dy * dy);
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const double ex = p.x - (ax + t * dx), ey = p.y - (ay + t * dy);
        const float d = (float)sqrt(ex * ex + ey * ey);
        if (d < best) best = d;
    }
    return best;
}

// Rows and columns over the area, each agent moved by up to 15% of its cell on each axis.
bool v_place(crowd_world* w, crowd_agent_def d, int n, float x0, float x1, float y0, float y1,
             uint64_t seed, crowd_agent_id* ids) {
    const float aw = x1 - x0, ah = y1 - y0;
    const int cols = (int)ceil(sqrt((double)n * aw / ah)), rows = (n + cols - 1) / cols;
    const float sx = aw / (float)cols, sy = ah / (float)rows;
    for (int i = 0; i < n; ++i) {
        const int col = i % cols, row = i / cols;
        const float jx = (float)(v_draw(seed, 2 * (uint64_t)i) - 0.5) * 0.3f * sx;
        const float jy = (float)(v_draw(seed, 2 * (uint64_t)i + 1) - 0.5) * 0.3f * sy;
        d.position =
            (crowd_vec2){x0 + ((float)col + 0.5f) * sx + jx, y0 + ((float)row + 0.5f) * sy + jy};
        if (crowd_agent_add(w, &d, &ids[i]) != CROWD_OK) return false;
    }
    return true;
}

// splitmix64 of the seed and key: independent of call order, so a case's draws do not depend on
// how many agents or runs came before.
double v_draw(uint64_t seed, uint64_t key) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + key + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

double v_weidmann_speed(double rho) {
    if (rho >= 5.4) return 0.0;
    if (rho <= 0.0) return V_FREE_SPEED;
    return V_FREE_SPEED * (1.0 - exp(-1.913 * (1.0 / rho - 1.0 / 5.4)));
}
