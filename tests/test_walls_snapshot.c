// Snapshots with walls: obstacles (handles, generations, free list) and wall defs survive a save
// and load bit for bit and the loaded world steps exactly like the original; a version 3 snapshot
// (before obstacles and navigation) still loads; a snapshot that puts an agent in a wall or holds a
// bad polygon is refused.
#include "fuzz/snapshot_downgrade.h"
#include "walls_helpers.h"

typedef struct blob {
    uint8_t* p;
    size_t n;
} blob;

static blob save(const crowd_world* w) {
    blob b = {0};
    cr_assert_eq(crowd_world_save(w, NULL, 0, &b.n), CROWD_ERR_BUFFER_TOO_SMALL);
    b.p = malloc(b.n);
    cr_assert_eq(crowd_world_save(w, b.p, b.n, &b.n), CROWD_OK);
    return b;
}

static uint32_t rd32(const uint8_t* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t* p) {
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static void wr32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t* p, uint64_t v) {
    wr32(p, (uint32_t)v);
    wr32(p + 4, (uint32_t)(v >> 32));
}

// CRC-64/XZ, written out here.
static uint64_t crc64(const uint8_t* p, size_t n) {
    uint64_t c = ~0ull;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xc96c5795d7870f42ull & (0 - (c & 1)));
    }
    return ~c;
}

static void seal(blob* b) {
    wr64(b->p + 16, b->n);
    wr64(b->p + b->n - 8, crc64(b->p, b->n - 8));
}

// The payload offset of section `id` (four characters), or 0.
static size_t section(const blob* b, const char* id, size_t* len) {
    const uint32_t n = rd32(b->p + 12);
    for (uint32_t k = 0; k < n; ++k) {
        const uint8_t* e = b->p + 24 + 24 * k;
        if (memcmp(e, id, 4) == 0) {
            *len = (size_t)rd64(e + 16);
            return (size_t)rd64(e + 8);
        }
    }
    return 0;
}

static crowd_world* build(void) {
    crowd_world* w = walls_world(2, 0.1f);
    const crowd_vec2 a[3] = {{-10, -10}, {10, -10}, {10, 10}};
    const crowd_vec2 b[4] = {{-3, -3}, {3, -3}, {3, 3}, {-3, 3}};
    const crowd_vec2 c[2] = {{20, 0}, {20, 5}};
    const crowd_vec2 d[5] = {{-8, 2}, {-5, 2}, {-5, 6}, {-6.5f, 4}, {-8, 6}};
    crowd_obstacle_id ids[4];
    ids[0] = wall_add(w, CROWD_OBSTACLE_WALL, a, 3);
    ids[1] = wall_add(w, CROWD_OBSTACLE_POLYGON, b, 4);
    ids[2] = wall_add(w, CROWD_OBSTACLE_WALL, c, 2);
    ids[3] = wall_add(w, CROWD_OBSTACLE_POLYGON, d, 5);
    cr_assert_eq(crowd_obstacle_remove(w, ids[2]), CROWD_OK); // a free slot, a new generation
    for (int i = 0; i < 40; ++i) {
        crowd_agent_def ag = crowd_agent_def_default();
        ag.position = (crowd_vec2){-9.0f + (float)(i % 8) * 1.1f, -9.0f + (float)(i / 8) * 1.0f};
        ag.goal = (crowd_goal){
            .mode = CROWD_GOAL_SEEK, .target = {9.0f, 9.0f}, .slow_radius = 1.0f, .weight = 1.0f};
        if (i % 3 == 0) ag.walls = (crowd_wall_def){0.5f + (float)i * 0.1f, 0.5f};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &ag, &id), CROWD_OK);
    }
    for (int t = 0; t < 30; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);
    return w;
}

Test(walls_snapshot, round_trip_continues_bit_for_bit) {
    crowd_world* w = build();
    blob b = save(w);
    crowd_world* v = NULL;
    cr_assert_eq(crowd_world_load(b.p, b.n, NULL, &v), CROWD_OK);
    cr_assert_eq(crowd_world_state_hash(v), crowd_world_state_hash(w));
    cr_assert_eq(crowd_world_obstacle_count(v), 3);
    blob again = save(v);
    cr_assert(again.n == b.n && memcmp(again.p, b.p, b.n) == 0, "the loaded world saves the same");
    crowd_obstacle_id ids[4], lids[4];
    int n, m;
    cr_assert_eq(crowd_world_get_obstacles(w, ids, 4, &n), CROWD_OK);
    cr_assert_eq(crowd_world_get_obstacles(v, lids, 4, &m), CROWD_OK);
    cr_assert_eq(n, m);
    for (int i = 0; i < n; ++i) {
        cr_assert(ids[i].index1 == lids[i].index1 && ids[i].generation == lids[i].generation);
        cr_assert_eq(crowd_obstacle_validate(v, lids[i]), CROWD_OK);
    }
    // The next obstacle added reuses the same slot in both worlds.
    const crowd_vec2 e[2] = {{30, 0}, {30, 5}};
    crowd_obstacle_id x, y;
    cr_assert_eq(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, e, 2, &x), CROWD_OK);
    cr_assert_eq(crowd_obstacle_add(v, CROWD_OBSTACLE_WALL, e, 2, &y), CROWD_OK);
    cr_assert(x.index1 == y.index1 && x.generation == y.generation);
    for (int t = 0; t < 60; ++t) {
        cr_assert_eq(crowd_world_step(w), CROWD_OK);
        cr_assert_eq(crowd_world_step(v), CROWD_OK);
        cr_assert_eq(crowd_world_state_hash(v), crowd_world_state_hash(w), "tick %d", t);
    }
    free(b.p), free(again.p);
    crowd_world_destroy(w), crowd_world_destroy(v);
}

// A version 3 file (before obstacles and navigation), written from the save of a world without
// obstacles or wall defs by tests/fuzz/snapshot_downgrade.h, loads as that world with navigation
// off.
Test(walls_snapshot, version_3_snapshots_still_load) {
    crowd_world* w = walls_world(1, 0.1f);
    for (int i = 0; i < 10; ++i) {
        crowd_agent_def ag = crowd_agent_def_default();
        ag.position = (crowd_vec2){(float)i, 0.0f};
        crowd_agent_id id;
        cr_assert_eq(crowd_agent_add(w, &ag, &id), CROWD_OK);
    }
    cr_assert_eq(crowd_world_step(w), CROWD_OK);
    blob b = save(w);
    blob old = {0};
    cr_assert(snapshot_downgrade(b.p, b.n, 3, &old.p, &old.n));
    cr_assert_eq(rd32(old.p + 8), 3);
    crowd_world* v = NULL;
    cr_assert_eq(crowd_world_load(old.p, old.n, NULL, &v), CROWD_OK);
    cr_assert_eq(crowd_world_state_hash(v), crowd_world_state_hash(w));
    cr_assert_eq(crowd_world_obstacle_count(v), 0);
    // It saves in the current format: the original world's bytes with navigation off.
    blob again = save(v);
    size_t len, at = section(&b, "WRLD", &len);
    wr32(b.p + at + 32, 0);
    seal(&b);
    cr_assert(again.n == b.n && memcmp(again.p, b.p, b.n) == 0);
    // A version below 3 is not read.
    wr32(old.p + 8, 2);
    seal(&old);
    crowd_world* u = NULL;
    cr_assert_eq(crowd_world_load(old.p, old.n, NULL, &u), CROWD_ERR_SNAPSHOT_VERSION);
    free(b.p), free(old.p), free(again.p);
    crowd_world_destroy(w), crowd_world_destroy(v);
}

// Edits of the walls section behind a valid checksum: each is refused as corrupt.
Test(walls_snapshot, bad_walls_sections_are_refused) {
    crowd_world* w = walls_world(1, 0.1f);
    const crowd_vec2 sq[4] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}};
    wall_add(w, CROWD_OBSTACLE_POLYGON, sq, 4);
    crowd_agent_def ag = crowd_agent_def_default();
    ag.position = (crowd_vec2){6.0f, 2.0f};
    crowd_agent_id id;
    cr_assert_eq(crowd_agent_add(w, &ag, &id), CROWD_OK);
    blob b = save(w);
    size_t len, off = section(&b, "WALL", &len);
    // Payload: u32 slots, u16 generation, u16 state, u32 count, then the points.
    const size_t pts = off + 12;
    struct {
        size_t at;
        float value;
    } edits[] = {
        {pts + 16, 8.0f}, // (4, 4) -> (8, 4): the edge to it passes through the agent
        {pts + 16, 0.0f}, // (4, 4) -> (0, 4): a repeated point
        {pts + 8, 0.0f},  // (4, 0) -> (0, 0): repeated as well
        {pts + 20, -2.f}, // (4, 4) -> (4, -2): edges cross
        {pts + 0, NAN},   // not finite
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; ++i) {
        blob c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        uint32_t u;
        memcpy(&u, &edits[i].value, 4);
        wr32(c.p + edits[i].at, u);
        seal(&c);
        crowd_world* v = NULL;
        cr_assert_eq(crowd_world_load(c.p, c.n, NULL, &v), CROWD_ERR_SNAPSHOT_CORRUPT, "edit %zu",
                     i);
        free(c.p);
    }
    // The state field: an unknown kind, a live bit of 2.
    for (uint32_t state = 0x102; state <= 0x200; state += 0xfe) {
        blob c = {malloc(b.n), b.n};
        memcpy(c.p, b.p, b.n);
        c.p[off + 6] = (uint8_t)state, c.p[off + 7] = (uint8_t)(state >> 8);
        seal(&c);
        crowd_world* v = NULL;
        cr_assert_eq(crowd_world_load(c.p, c.n, NULL, &v), CROWD_ERR_SNAPSHOT_CORRUPT);
        free(c.p);
    }
    free(b.p);
    crowd_world_destroy(w);
}
