#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

static uint32_t tag(const char t[4]) {
    return (uint32_t)(unsigned char)t[0] | (uint32_t)(unsigned char)t[1] << 8 |
           (uint32_t)(unsigned char)t[2] << 16 | (uint32_t)(unsigned char)t[3] << 24;
}

uint64_t rec_checksum(const uint8_t* data, size_t len) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; ++i) {
        h ^= data[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint8_t* reserve(rec_writer* w, size_t n) {
    if (w->failed) return NULL;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 1 << 16;
        while (cap < w->len + n) cap *= 2;
        uint8_t* b = realloc(w->buf, cap);
        if (!b) {
            w->failed = true;
            return NULL;
        }
        w->buf = b;
        w->cap = cap;
    }
    uint8_t* p = w->buf + w->len;
    w->len += n;
    return p;
}

// Little-endian stores; the host order is not assumed.
static void put(rec_writer* w, const void* src, size_t n) {
    uint8_t* p = reserve(w, n);
    if (p) memcpy(p, src, n);
}
static void put_u8(rec_writer* w, uint8_t v) {
    put(w, &v, 1);
}
static void put_u16(rec_writer* w, uint16_t v) {
    const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(w, b, 2);
}
static void put_u32(rec_writer* w, uint32_t v) {
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}
static void put_f32(rec_writer* w, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(w, u);
}
static void pad4(rec_writer* w) {
    while (!w->failed && (w->len & 3u)) put_u8(w, 0);
}

// Chunks are written with a zero size and patched when they end.
static size_t chunk_begin(rec_writer* w, const char t[4]) {
    put_u32(w, tag(t));
    put_u32(w, 0);
    return w->len;
}
static void chunk_end(rec_writer* w, size_t start) {
    pad4(w);
    if (w->failed) return;
    const uint32_t size = (uint32_t)(w->len - start);
    uint8_t* p = w->buf + start - 4;
    p[0] = (uint8_t)size;
    p[1] = (uint8_t)(size >> 8);
    p[2] = (uint8_t)(size >> 16);
    p[3] = (uint8_t)(size >> 24);
}

static void put_area(rec_writer* w, const sc_area* a) {
    size_t c = chunk_begin(w, "AREA");
    if (a->kind == SC_AREA_CIRCLE) {
        put_u32(w, 1);
        put_f32(w, a->center.x);
        put_f32(w, a->center.y);
        put_f32(w, a->radius);
        put_f32(w, 0.0f);
    } else {
        put_u32(w, 0);
        put_f32(w, a->min.x);
        put_f32(w, a->min.y);
        put_f32(w, a->max.x);
        put_f32(w, a->max.y);
    }
    chunk_end(w, c);
}

static void put_goal(rec_writer* w, agent_kind kind, crowd_vec2 p, float radius) {
    size_t c = chunk_begin(w, "GOAL");
    put_u32(w, (uint32_t)kind);
    put_f32(w, p.x);
    put_f32(w, p.y);
    put_f32(w, radius);
    chunk_end(w, c);
}

// The world's obstacles as they are now, in handle order.
static void put_obstacles(rec_writer* w, const crowd_world* world) {
    int n = crowd_world_obstacle_count(world);
    crowd_obstacle_id* ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
    crowd_vec2* pts = NULL;
    int cap = 0;
    if (!ids || (n && crowd_world_get_obstacles(world, ids, n, &n) != CROWD_OK)) w->failed = true;
    for (int k = 0; k < n && !w->failed; ++k) {
        crowd_obstacle_kind kind;
        int count = 0;
        crowd_status st = crowd_obstacle_get_points(world, ids[k], &kind, pts, cap, &count);
        if (st == CROWD_ERR_BUFFER_TOO_SMALL) {
            crowd_vec2* p = realloc(pts, sizeof *p * (size_t)count);
            if (!p) {
                w->failed = true;
                break;
            }
            pts = p;
            cap = count;
            st = crowd_obstacle_get_points(world, ids[k], &kind, pts, cap, &count);
        }
        if (st != CROWD_OK) {
            w->failed = true;
            break;
        }
        size_t c = chunk_begin(w, "OBST");
        put_u32(w, (uint32_t)kind);
        put_u32(w, (uint32_t)count);
        for (int i = 0; i < count; ++i) {
            put_f32(w, pts[i].x);
            put_f32(w, pts[i].y);
        }
        chunk_end(w, c);
    }
    free(pts);
    free(ids);
}

bool rec_put_field(rec_writer* w, float x0, float y0, float step, int cols, int rows,
                   const char* label, const float* distance, const uint8_t* state,
                   const uint8_t* angle) {
    const size_t n = (size_t)cols * (size_t)rows, label_len = strlen(label);
    size_t c = chunk_begin(w, "FELD");
    put_f32(w, x0);
    put_f32(w, y0);
    put_f32(w, step);
    put_u32(w, (uint32_t)cols);
    put_u32(w, (uint32_t)rows);
    put_u32(w, (uint32_t)label_len);
    put(w, label, label_len);
    pad4(w);
    for (size_t i = 0; i < n; ++i) put_f32(w, distance[i]);
    put(w, state, n);
    pad4(w);
    put(w, angle, n);
    chunk_end(w, c);
    return !w->failed;
}

// Whether a crowd before crowd k names the same exit set in its goal (its points are drawn once).
static bool exits_written(const scenario* sc, int k) {
    for (int j = 0; j < k; ++j)
        if (sc->crowds[j].has_goal && sc->crowds[j].goal.exits == sc->crowds[k].goal.exits)
            return true;
    return false;
}

bool rec_begin(rec_writer* w, const built_world* b, int record_every) {
    *w = (rec_writer){0};
    const scenario* sc = b->sc;
    put(w, REC_MAGIC, 8);
    put_u32(w, REC_VERSION);
    put_u32(w, 0);

    size_t c = chunk_begin(w, "META");
    put_f32(w, sc->dt);
    put_u32(w, (uint32_t)record_every);
    put_u32(w, 1);
    const size_t name_len = strlen(sc->name);
    put_u32(w, (uint32_t)name_len);
    put(w, sc->name, name_len);
    chunk_end(w, c);

    for (int p = 0; p < sc->path_count; ++p) {
        uint32_t uses = 0;
        float tube = 0.0f;
        for (int k = 0; k < sc->crowd_count; ++k) {
            const sc_crowd* cr = &sc->crowds[k];
            if (!cr->has_path || cr->path.path != p) continue;
            if (cr->path.kind == SC_PATH_TUBE) {
                uses |= 2;
                if (cr->path.tube_radius > tube) tube = cr->path.tube_radius;
            } else {
                uses |= 1;
            }
        }
        c = chunk_begin(w, "PATH");
        put_u32(w, uses);
        put_f32(w, tube);
        put_u32(w, (uint32_t)sc->paths[p].count);
        for (int i = 0; i < sc->paths[p].count; ++i) {
            put_f32(w, sc->paths[p].points[i].x);
            put_f32(w, sc->paths[p].points[i].y);
        }
        chunk_end(w, c);
    }
    put_obstacles(w, b->world);
    for (int k = 0; k < sc->crowd_count; ++k) {
        const sc_crowd* cr = &sc->crowds[k];
        if (cr->has_goal) {
            const agent_kind kind =
                cr->goal.mode == CROWD_GOAL_SEEK ? AGENT_SEEK
                : cr->goal.mode == CROWD_GOAL_ARRIVE || cr->goal.mode == CROWD_GOAL_ARRIVE_LITERAL
                    ? AGENT_ARRIVE
                    : AGENT_FLEE;
            if (cr->goal.exits < 0) {
                put_goal(w, kind, cr->goal.target, cr->goal.slow_radius);
            } else if (!exits_written(sc, k)) {
                const sc_exits* x = &sc->exits[cr->goal.exits];
                for (int i = 0; i < x->count; ++i)
                    put_goal(w, kind, x->points[i], cr->goal.slow_radius);
            }
        }
        if (cr->has_queue) {
            put_goal(w, AGENT_QUEUE, cr->queue.target, cr->queue.arrive_radius);
            if (cr->queue.has_start_area) put_area(w, &cr->queue.start_area);
        }
    }
    return !w->failed;
}

static bool grow_agents(rec_writer* w, int n) {
    if (n <= w->cap_agents) return true;
    int cap = w->cap_agents ? w->cap_agents : 1024;
    while (cap < n) cap *= 2;
    crowd_agent_id* ids = realloc(w->ids, sizeof *ids * (size_t)cap);
    if (ids) w->ids = ids;
    crowd_vec2* pos = realloc(w->pos, sizeof *pos * (size_t)cap);
    if (pos) w->pos = pos;
    uint8_t* kinds = realloc(w->kinds, (size_t)cap);
    if (kinds) w->kinds = kinds;
    uint8_t* pk = realloc(w->prev_kinds, (size_t)cap);
    if (pk) w->prev_kinds = pk;
    uint16_t* rad = realloc(w->radius_mm, sizeof *rad * (size_t)cap);
    if (rad) w->radius_mm = rad;
    uint16_t* prad = realloc(w->prev_radius_mm, sizeof *prad * (size_t)cap);
    if (prad) w->prev_radius_mm = prad;
    crowd_agent_id* pids = realloc(w->prev_ids, sizeof *pids * (size_t)cap);
    if (pids) w->prev_ids = pids;
    if (!ids || !pos || !kinds || !pk || !rad || !prad || !pids) return false;
    w->cap_agents = cap;
    return true;
}

static uint16_t quantize(float v, float lo, float ext) {
    if (!(ext > 0.0f)) return 0;
    double q = floor(((double)v - (double)lo) / (double)ext * 65535.0 + 0.5);
    return (uint16_t)(q < 0.0 ? 0.0 : (q > 65535.0 ? 65535.0 : q));
}

typedef struct agent_at {
    crowd_agent_id id;
    crowd_vec2 pos;
} agent_at;

static int cmp_agent_at(const void* a, const void* b) {
    const uint32_t x = ((const agent_at*)a)->id.index1, y = ((const agent_at*)b)->id.index1;
    return (x > y) - (x < y);
}

// The world's agents in handle order: a frame does not depend on the world's storage order (which
// changes as agents change cells, and differs in a world split across processes and gathered).
static bool agents_in_handle_order(rec_writer* w, const crowd_world* world, int* count) {
    if (crowd_world_get_agents(world, w->ids, w->pos, NULL, w->cap_agents, count) != CROWD_OK)
        return false;
    agent_at* all = malloc(sizeof *all * (size_t)(*count > 0 ? *count : 1));
    if (!all) return false;
    for (int i = 0; i < *count; ++i) all[i] = (agent_at){w->ids[i], w->pos[i]};
    qsort(all, (size_t)*count, sizeof *all, cmp_agent_at);
    for (int i = 0; i < *count; ++i) w->ids[i] = all[i].id, w->pos[i] = all[i].pos;
    free(all);
    return true;
}

bool rec_frame(rec_writer* w, const built_world* b) {
    if (w->failed) return false;
    const int n = crowd_world_agent_count(b->world);
    if (!grow_agents(w, n)) {
        w->failed = true;
        return false;
    }
    int count = 0;
    if (!agents_in_handle_order(w, b->world, &count)) {
        w->failed = true;
        return false;
    }
    for (int i = 0; i < count; ++i) {
        const int idx = (int)w->ids[i].index1 - 1;
        w->kinds[i] = idx < b->kind_cap ? b->kind[idx] : (uint8_t)AGENT_PLAIN;
        crowd_agent_def d;
        crowd_agent_get_def(b->world, w->ids[i], &d);
        const double mm = floor((double)d.radius * 1000.0 + 0.5);
        w->radius_mm[i] = (uint16_t)(mm > 65535.0 ? 65535.0 : mm);
    }
    const bool same =
        w->frames > 0 && count == w->prev_count &&
        memcmp(w->ids, w->prev_ids, sizeof *w->ids * (size_t)count) == 0 &&
        memcmp(w->kinds, w->prev_kinds, (size_t)count) == 0 &&
        memcmp(w->radius_mm, w->prev_radius_mm, sizeof *w->radius_mm * (size_t)count) == 0;
    if (!same) {
        size_t c = chunk_begin(w, "HNDL");
        put_u32(w, (uint32_t)count);
        for (int i = 0; i < count; ++i) put_u32(w, w->ids[i].index1);
        for (int i = 0; i < count; ++i) put_u16(w, w->ids[i].generation);
        pad4(w);
        put(w, w->kinds, (size_t)count);
        pad4(w);
        for (int i = 0; i < count; ++i) put_u16(w, w->radius_mm[i]);
        chunk_end(w, c);
        memcpy(w->prev_ids, w->ids, sizeof *w->ids * (size_t)count);
        memcpy(w->prev_kinds, w->kinds, (size_t)count);
        memcpy(w->prev_radius_mm, w->radius_mm, sizeof *w->radius_mm * (size_t)count);
        w->prev_count = count;
    }
    float min_x = 0.0f, min_y = 0.0f, max_x = 0.0f, max_y = 0.0f;
    for (int i = 0; i < count; ++i) {
        const crowd_vec2 p = w->pos[i];
        if (i == 0 || p.x < min_x) min_x = p.x;
        if (i == 0 || p.y < min_y) min_y = p.y;
        if (i == 0 || p.x > max_x) max_x = p.x;
        if (i == 0 || p.y > max_y) max_y = p.y;
    }
    const float ex = max_x - min_x, ey = max_y - min_y;
    const uint64_t tick = crowd_world_tick(b->world);
    size_t c = chunk_begin(w, "FRAM");
    put_u32(w, (uint32_t)tick);
    put_u32(w, (uint32_t)(tick >> 32));
    put_u32(w, (uint32_t)count);
    put_f32(w, min_x);
    put_f32(w, min_y);
    put_f32(w, max_x);
    put_f32(w, max_y);
    for (int i = 0; i < count; ++i) put_u16(w, quantize(w->pos[i].x, min_x, ex));
    pad4(w);
    for (int i = 0; i < count; ++i) put_u16(w, quantize(w->pos[i].y, min_y, ey));
    pad4(w);
    uint8_t* hd = reserve(w, (size_t)count);
    for (int i = 0; hd && i < count; ++i) {
        crowd_vec2 h = {1.0f, 0.0f};
        crowd_agent_get_heading(b->world, w->ids[i], &h);
        const double a = atan2((double)h.y, (double)h.x) * (256.0 / 6.283185307179586);
        hd[i] = (uint8_t)((int)floor(a + 0.5) & 255);
    }
    chunk_end(w, c);
    w->frames++;
    return !w->failed;
}

bool rec_end(rec_writer* w) {
    // The END chunk's size is written up front: the checksum covers it.
    put_u32(w, tag("END "));
    put_u32(w, 16);
    put_u32(w, (uint32_t)w->frames);
    put_u32(w, 0);
    if (w->failed) return false;
    const uint64_t h = rec_checksum(w->buf, w->len);
    put_u32(w, (uint32_t)h);
    put_u32(w, (uint32_t)(h >> 32));
    return !w->failed;
}

bool rec_finish(rec_writer* w, FILE* f) {
    if (!rec_end(w)) return false;
    return fwrite(w->buf, 1, w->len, f) == w->len && fflush(f) == 0 && !ferror(f);
}

void rec_writer_free(rec_writer* w) {
    free(w->buf);
    free(w->ids);
    free(w->pos);
    free(w->kinds);
    free(w->prev_kinds);
    free(w->radius_mm);
    free(w->prev_radius_mm);
    free(w->prev_ids);
    *w = (rec_writer){0};
}
