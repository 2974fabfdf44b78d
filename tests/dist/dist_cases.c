// The cases of a world split across MPI ranks (crowd/dist.h), each checked against the same world
// in one process (every rank steps that one too: the worlds are small) by state hash and arrivals:
//  - agents of every supported behavior (seek, file queue, cone queue with respawn, waypoints,
//  tube,
//    wall avoidance beside a wall) walk across the whole split, and each changes owner;
//  - a single-file queue whose file lies across strip borders, its members on several ranks;
//  - remove, teleport and add of agents another rank owns, and the handles that follow; a wall
//    across an agent another rank owns (refused everywhere) and one beside it;
//  - a crowd in one cell column: strips leave it on one rank, bisection cuts it among all;
//  - the split cut again only past an imbalance threshold: the same result on any threshold;
//  - a snapshot of the split world, saved from up to 4 ranks, loads on 1, on up to 3 and on all
//    and steps on as the one-process world does;
//  - followers whose leaders live on other ranks, far beyond the halo: slot assignment, a removed
//    leader's followers taking its fallback, a removed follower, a snapshot of the split groups;
//  - a world where a follower is removed on arrival is refused;
//  - one rank running out of memory in a step, at every allocation of its first steps in turn:
//    every rank leaves the step with a failure (none waits), and the split world takes no more
//    calls;
//  - navigation: routed goals, exit sets and routed waypoint legs across the split; every rank
//    counts the whole world's destinations in use through removals on other ranks (by call and
//    on arrival), exit sets made and destroyed collectively, the budget refusing the same adds
//    everywhere, and a snapshot of the split world (with its own world tag per rank) that loads.
// Run under mpiexec with any rank count; exit status 1 on the first failed check.
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "crowd/dist.h"
#include "dist_check.h"

static int rank, size;

// The same world in one process (w) and split (d).
typedef struct twin {
    crowd_world* w;
    crowd_dist* d;
} twin;

typedef void build_fn(crowd_world* w);

static twin make_def(build_fn* build, crowd_world_def wd) {
    twin t;
    crowd_world* split;
    CHECK(crowd_world_create(&wd, &t.w) == CROWD_OK, "create");
    CHECK(crowd_world_create(&wd, &split) == CROWD_OK, "create");
    build(t.w);
    build(split);
    CHECK(crowd_dist_create(MPI_COMM_WORLD, split, &t.d) == CROWD_OK, "dist create");
    return t;
}

static twin make(build_fn* build) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 77; // one tag: the split world's handles are the one-process world's
    return make_def(build, wd);
}

static void destroy(twin* t) {
    crowd_world_destroy(t->w);
    crowd_dist_destroy(t->d);
}

// Steps both; the hashes and the arrivals must be equal.
static void step(twin* t, int ticks, const char* what) {
    for (int k = 0; k < ticks; ++k) {
        CHECK(crowd_world_step(t->w) == CROWD_OK, "%s: step", what);
        CHECK(crowd_dist_step(t->d) == CROWD_OK, "%s: split step", what);
        crowd_arrival a[256], b[256];
        int na, nb;
        CHECK(crowd_world_get_arrivals(t->w, a, 256, &na) == CROWD_OK, "arrivals");
        CHECK(crowd_dist_get_arrivals(t->d, b, 256, &nb) == CROWD_OK, "split arrivals");
        CHECK(na == nb, "%s tick %d: %d arrivals in one process, %d split", what, k, na, nb);
        // The worlds' tags differ; everything else is equal.
        for (int i = 0; i < na; ++i)
            CHECK(a[i].id.index1 == b[i].id.index1 && a[i].id.generation == b[i].id.generation &&
                      a[i].user_data == b[i].user_data &&
                      !memcmp(&a[i].position, &b[i].position, sizeof a[i].position) &&
                      a[i].action == b[i].action,
                  "%s tick %d: arrival %d differs", what, k, i);
    }
    uint64_t h;
    CHECK(crowd_dist_state_hash(t->d, &h) == CROWD_OK, "hash");
    CHECK(h == crowd_world_state_hash(t->w), "%s: split hash %016llx, one process %016llx", what,
          (unsigned long long)h, (unsigned long long)crowd_world_state_hash(t->w));
}

static crowd_agent_id nth(const twin* t, int i) {
    crowd_agent_id ids[512];
    int n;
    CHECK(crowd_dist_get_agents(t->d, ids, 512, &n) == CROWD_OK && i < n, "agents");
    return ids[i];
}

// The owner of every agent (collective), in handle order.
static int owners(const twin* t, int* out) {
    const int n = crowd_dist_agent_count(t->d);
    for (int i = 0; i < n; ++i) out[i] = crowd_dist_owner(t->d, nth(t, i));
    return n;
}

// ---- every behavior across the split ------------------------------------------------------------

static crowd_agent_id add(crowd_world* w, float x, float y, float vx) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    a.velocity = (crowd_vec2){vx, 0.0f};
    crowd_agent_id id;
    CHECK(crowd_agent_add(w, &a, &id) == CROWD_OK, "add");
    return id;
}

static void build_behaviors(crowd_world* w) {
    // A wall along the walkers' way, and a path down the middle.
    const crowd_vec2 wall[2] = {{-30.0f, 9.0f}, {30.0f, 9.0f}};
    crowd_obstacle_id ob;
    CHECK(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, wall, 2, &ob) == CROWD_OK, "wall");
    const crowd_vec2 pts[3] = {{-40.0f, 0.0f}, {0.0f, 4.0f}, {40.0f, 0.0f}};
    crowd_path_id path;
    CHECK(crowd_path_create(w, pts, 3, &path) == CROWD_OK, "path");
    for (int i = 0; i < 8; ++i) {
        const float y = -8.0f + 2.0f * (float)i;
        // Left to right: seek, file queue, cone queue (respawn at the left), waypoints.
        crowd_agent_id id = add(w, -40.0f, y, 1.0f);
        crowd_goal g = crowd_goal_default();
        g.mode = CROWD_GOAL_SEEK;
        g.target = (crowd_vec2){40.0f, y};
        CHECK(crowd_agent_set_goal(w, id, &g) == CROWD_OK, "goal");

        id = add(w, -38.0f, y + 0.5f, 1.0f);
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){38.0f, 0.0f};
        q.on_arrival = CROWD_QUEUE_STOP;
        CHECK(crowd_agent_set_queue(w, id, &q) == CROWD_OK, "file queue");

        id = add(w, -36.0f, y + 1.0f, 1.0f);
        q.form = CROWD_QUEUE_LITERAL;
        q.on_arrival = CROWD_QUEUE_RESPAWN;
        q.goal = (crowd_vec2){30.0f, y};
        q.start_min = (crowd_vec2){-40.0f, -8.0f};
        q.start_max = (crowd_vec2){-38.0f, 8.0f};
        CHECK(crowd_agent_set_queue(w, id, &q) == CROWD_OK, "cone queue");

        id = add(w, -39.0f, y + 1.5f, 1.0f);
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = path;
        f.kind = i % 2 ? CROWD_PATH_TUBE : CROWD_PATH_WAYPOINTS;
        f.mode = CROWD_PATH_ONE_SHOT;
        CHECK(crowd_agent_set_path(w, id, &f) == CROWD_OK, "path follow");
    }
    // Wall avoidance: one walker just under the wall.
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){-29.0f, 8.4f};
    a.velocity = (crowd_vec2){1.0f, 0.3f};
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){29.0f, 8.6f};
    crowd_agent_id id;
    CHECK(crowd_agent_add(w, &a, &id) == CROWD_OK, "wall walker");
}

static void every_behavior_migrates(void) {
    twin t = make(build_behaviors);
    int before[64], now[64];
    bool changed[64] = {false};
    const int n = owners(&t, before);
    for (int k = 0; k < 12; ++k) {
        step(&t, 50, "every behavior");
        CHECK(owners(&t, now) == n, "no agent left the world");
        for (int i = 0; i < n; ++i) changed[i] |= now[i] != before[i];
    }
    // Handle order: per row seek, file queue, cone queue, path; the wall walker last. Agents of
    // every kind changed owner (the split follows the crowd, so not every agent need).
    int moved = 0, kinds[5] = {0};
    for (int i = 0; i < n; ++i) {
        moved += changed[i];
        kinds[i == n - 1 ? 4 : i % 4] += changed[i];
    }
    for (int k = 0; k < 5; ++k)
        CHECK(size == 1 || kinds[k] > 0, "no agent of kind %d changed owner (%d of %d did)", k,
              moved, n);
    if (rank == 0)
        printf(
            "every behavior: %d agents, %d changed owner, same hash and arrivals for 600 ticks\n",
            n, moved);
    destroy(&t);
}

// ---- a file queue across strip borders ----------------------------------------------------------

static void build_file(crowd_world* w) {
    // 24 agents in a line along x, 1.5 m apart, queueing for a point beyond its right end: the file
    // lies across the split's borders; REMOVE at the head.
    for (int i = 0; i < 24; ++i) {
        crowd_agent_id id = add(w, -18.0f + 1.5f * (float)i, 0.1f * (float)(i % 3), 0.0f);
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){22.0f, 0.0f};
        q.on_arrival = CROWD_QUEUE_REMOVE;
        CHECK(crowd_agent_set_queue(w, id, &q) == CROWD_OK, "queue");
    }
}

static void queue_across_borders(void) {
    twin t = make(build_file);
    int own[64];
    const int n = owners(&t, own);
    int ranks_held = 0;
    for (int r = 0; r < size; ++r) {
        bool held = false;
        for (int i = 0; i < n; ++i) held |= own[i] == r;
        ranks_held += held;
    }
    CHECK(size == 1 || ranks_held >= 2, "the file lies on %d rank(s)", ranks_held);
    step(&t, 500, "file queue");
    CHECK(crowd_dist_agent_count(t.d) == crowd_world_agent_count(t.w), "counts");
    CHECK(crowd_world_agent_count(t.w) < 24, "nobody reached the head");
    if (rank == 0)
        printf(
            "file queue on %d ranks: %d of 24 arrived and were removed, same hash and arrivals\n",
            ranks_held, 24 - crowd_world_agent_count(t.w));
    destroy(&t);
}

// ---- structural calls on agents another rank owns -----------------------------------------------

static void build_row(crowd_world* w) {
    for (int i = 0; i < 40; ++i) add(w, -30.0f + 1.5f * (float)i, 0.0f, 0.0f);
}

static void remote_structure(void) {
    twin t = make(build_row);
    step(&t, 1, "row");
    // The rightmost agent lives on the last occupied rank, not rank 0 (unless one rank).
    const crowd_agent_id right = nth(&t, 39), left = nth(&t, 0);
    const int owner = crowd_dist_owner(t.d, right);
    CHECK(size == 1 || owner != 0, "the rightmost agent is on rank %d", owner);
    CHECK(crowd_dist_owner(t.d, left) == 0, "the leftmost agent is on rank 0");

    // Remove it everywhere; its handle is stale on every rank.
    CHECK(crowd_agent_remove(t.w, right) == CROWD_OK, "remove");
    CHECK(crowd_dist_agent_remove(t.d, right) == CROWD_OK, "split remove");
    CHECK(crowd_dist_agent_remove(t.d, right) == CROWD_ERR_STALE_HANDLE, "removed twice");
    CHECK(crowd_dist_owner(t.d, right) == -1, "a removed agent has no owner");

    // Teleport the leftmost agent into the last strip: it moves there at the next step.
    const crowd_vec2 far = {27.0f, 0.5f};
    CHECK(crowd_agent_set_position(t.w, left, far) == CROWD_OK, "teleport");
    CHECK(crowd_dist_agent_set_position(t.d, left, far) == CROWD_OK, "split teleport");
    step(&t, 1, "teleported");
    CHECK(crowd_dist_owner(t.d, left) == crowd_dist_owner(t.d, nth(&t, 37)), "teleported owner");

    // Add: the freed index comes back with the next generation, on the right rank.
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){26.0f, -0.5f};
    crowd_agent_id one, split;
    CHECK(crowd_agent_add(t.w, &a, &one) == CROWD_OK, "add");
    CHECK(crowd_dist_agent_add(t.d, &a, &split) == CROWD_OK, "split add");
    CHECK(one.index1 == split.index1 && one.generation == split.generation &&
              split.index1 == right.index1 && split.generation == right.generation + 1,
          "the new handle");
    CHECK(crowd_dist_agent_remove(t.d, right) == CROWD_ERR_STALE_HANDLE, "the old handle");
    CHECK(crowd_dist_owner(t.d, split) == owner, "the new agent is on rank %d, expected %d",
          crowd_dist_owner(t.d, split), owner);
    // A teleport into a wall-free world with a bad value is refused everywhere.
    CHECK(crowd_dist_agent_set_position(t.d, split, (crowd_vec2){2e7f, 0.0f}) ==
              crowd_agent_set_position(t.w, one, (crowd_vec2){2e7f, 0.0f}),
          "refused teleport");
    // A wall across an agent another rank owns is refused on every rank; one beside it is added
    // on every rank with the one-process handle.
    crowd_vec2 p;
    const crowd_agent_id other = nth(&t, 36);
    CHECK(crowd_agent_get_position(t.w, other, &p) == CROWD_OK, "position");
    CHECK(size == 1 || crowd_dist_owner(t.d, other) != 0, "the agent is on rank 0");
    const crowd_vec2 across[2] = {{p.x, p.y - 1.0f}, {p.x, p.y + 1.0f}};
    const crowd_vec2 beside[2] = {{p.x - 1.0f, p.y + 3.0f}, {p.x + 1.0f, p.y + 3.0f}};
    crowd_obstacle_id o1, o2;
    CHECK(crowd_obstacle_add(t.w, CROWD_OBSTACLE_WALL, across, 2, &o1) ==
                  CROWD_ERR_INSIDE_OBSTACLE &&
              crowd_dist_obstacle_add(t.d, CROWD_OBSTACLE_WALL, across, 2, &o2) ==
                  CROWD_ERR_INSIDE_OBSTACLE,
          "a wall across an agent");
    CHECK(crowd_obstacle_add(t.w, CROWD_OBSTACLE_WALL, beside, 2, &o1) == CROWD_OK &&
              crowd_dist_obstacle_add(t.d, CROWD_OBSTACLE_WALL, beside, 2, &o2) == CROWD_OK &&
              o1.index1 == o2.index1 && o1.generation == o2.generation,
          "a wall beside it");
    step(&t, 50, "after structural calls");
    CHECK(crowd_obstacle_remove(t.w, o1) == CROWD_OK &&
              crowd_dist_obstacle_remove(t.d, o2) == CROWD_OK,
          "wall removed");
    step(&t, 10, "after the wall's removal");
    if (rank == 0)
        printf("remove, teleport, add of agents on rank %d, a wall across one refused everywhere: "
               "same handles, owners and hash\n",
               owner);
    destroy(&t);
}

// ---- a crowd in one cell column ----------------------------------------------------------------

// 60 agents in one cell column, over 17 rows of cells.
static void build_column(crowd_world* w) {
    for (int i = 0; i < 60; ++i) add(w, 0.3f + 0.05f * (float)(i % 3), 0.7f * (float)i, 0.0f);
}

// The ranks that hold agents of the twin (collective).
static int ranks_holding(const twin* t) {
    int own[64], held = 0;
    const int n = owners(t, own);
    for (int r = 0; r < size; ++r) {
        bool h = false;
        for (int i = 0; i < n; ++i) h |= own[i] == r;
        held += h;
    }
    return held;
}

// Strips cannot cut a column: the crowd, spread by separation over one or two columns, is on at
// most two ranks, and the state is the one-process state. Bisection cuts it across its rows: every
// rank holds some of it.
static void one_column(void) {
    twin t = make(build_column);
    CHECK(crowd_dist_set_split(t.d, CROWD_DIST_STRIPS) == CROWD_OK, "strips");
    step(&t, 100, "one column in strips");
    const int strips = ranks_holding(&t);
    // Separation spreads it over a column or two: strips give it at most one rank per column.
    CHECK(strips <= 2 && strips <= size, "strips: %d ranks hold agents", strips);
    CHECK(crowd_dist_set_split(t.d, CROWD_DIST_BISECTION) == CROWD_OK, "bisection");
    step(&t, 1, "one column, bisection");
    CHECK(size == 1 || crowd_dist_get_stats(t.d).rebalanced == 1, "a new kind is cut at once");
    step(&t, 99, "one column, bisection");
    const int bisection = ranks_holding(&t);
    CHECK(bisection == size, "bisection: %d of %d ranks hold agents", bisection, size);
    CHECK(crowd_dist_set_split(t.d, (crowd_dist_split)2) == CROWD_ERR_OUT_OF_RANGE, "bad kind");
    CHECK(crowd_dist_set_split(NULL, CROWD_DIST_STRIPS) == CROWD_ERR_NULL_ARGUMENT, "null");
    if (rank == 0)
        printf("one cell column on %d ranks: %d rank(s) hold agents in strips, %d in bisection, "
               "same hash\n",
               size, strips, bisection);
    destroy(&t);
}

// ---- the rebalance threshold --------------------------------------------------------------------

// Two crowds crossing each other: the agent counts per strip drift as they pass.
static void build_crossing(crowd_world* w) {
    for (int i = 0; i < 120; ++i) {
        const float y = -9.0f + 1.5f * (float)(i % 12);
        const bool right = i % 2 == 0;
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){(right ? -30.0f : 12.0f) + 1.8f * (float)(i / 12), y};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.target = (crowd_vec2){right ? 60.0f : -60.0f, y};
        crowd_agent_id id;
        CHECK(crowd_agent_add(w, &a, &id) == CROWD_OK, "crosser");
    }
}

// The split cut before every step, past the default threshold, or never past 1e9: the same
// hash and arrivals as one process each time, and fewer rebalances with a higher threshold.
static void rebalance_threshold(void) {
    const double thresholds[3] = {1.0, CROWD_DIST_REBALANCE_DEFAULT, 1e9};
    int rebalances[3] = {0};
    double worst[3] = {0};
    for (int k = 0; k < 3; ++k) {
        twin t = make(build_crossing);
        CHECK(crowd_dist_set_rebalance(t.d, thresholds[k]) == CROWD_OK, "threshold");
        for (int q = 0; q < 40; ++q) {
            step(&t, 5, "crossing");
            const crowd_dist_stats x = crowd_dist_get_stats(t.d);
            rebalances[k] += x.rebalanced;
            if (x.imbalance > worst[k]) worst[k] = x.imbalance;
        }
        destroy(&t);
    }
    crowd_dist* none = NULL;
    CHECK(crowd_dist_set_rebalance(none, 1.0) == CROWD_ERR_NULL_ARGUMENT, "null");
    CHECK(size == 1 || (rebalances[0] == 40 && rebalances[2] == 0 &&
                        rebalances[1] < rebalances[0] && worst[1] <= worst[2]),
          "rebalances %d / %d / %d", rebalances[0], rebalances[1], rebalances[2]);
    if (rank == 0)
        printf("rebalance threshold 1 / %.1f / 1e9: split cut before %d / %d / %d of 40 "
               "checked steps, worst imbalance %.3f / %.3f / %.3f, same hash each\n",
               CROWD_DIST_REBALANCE_DEFAULT, rebalances[0], rebalances[1], rebalances[2], worst[0],
               worst[1], worst[2]);
}

// ---- snapshots ----------------------------------------------------------------------------------

typedef struct bytes {
    unsigned char* data;
    size_t len, cap;
} bytes;

static bool append(const void* data, size_t size, void* user) {
    bytes* b = user;
    if (b->len + size > b->cap) {
        b->cap = (b->len + size) * 2;
        b->data = realloc(b->data, b->cap);
        if (!b->data) return false;
    }
    memcpy(b->data + b->len, data, size);
    b->len += size;
    return true;
}

// Rank 0's bytes, copied to every rank of MPI_COMM_WORLD.
static void broadcast(bytes* b, int rank) {
    unsigned long long len = b->len;
    MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        b->data = malloc(len ? len : 1);
        b->len = b->cap = len;
    }
    MPI_Bcast(b->data, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
}

// The ranks below `m` in a communicator of their own (MPI_COMM_NULL on the others).
static MPI_Comm first_ranks(int m) {
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank < m ? 0 : MPI_UNDEFINED, rank, &c);
    return c;
}

// The snapshot loaded on the ranks of `comm`, 50 ticks: its hash (on those ranks).
static uint64_t load_and_step(const bytes* snap, MPI_Comm comm) {
    crowd_world* w;
    crowd_load_def ld = crowd_load_def_default();
    ld.threads = 1;
    CHECK(crowd_world_load(snap->data, snap->len, &ld, &w) == CROWD_OK, "load");
    crowd_dist* d;
    CHECK(crowd_dist_create(comm, w, &d) == CROWD_OK, "dist create from a snapshot");
    for (int k = 0; k < 50; ++k) CHECK(crowd_dist_step(d) == CROWD_OK, "step");
    uint64_t h;
    CHECK(crowd_dist_state_hash(d, &h) == CROWD_OK, "hash");
    crowd_dist_destroy(d);
    return h;
}

static void snapshots(void) {
    // The case: written on 4 ranks, restored on 3 and on 1 (and on every rank of the run).
    const int savers = size < 4 ? size : 4, fewer = size < 3 ? size : 3;
    // One process: 150 ticks. (Its snapshot at 100 would not have the split one's bytes: agents
    // are saved in storage order.)
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 77;
    crowd_world* one;
    CHECK(crowd_world_create(&wd, &one) == CROWD_OK, "create");
    build_behaviors(one);
    for (int k = 0; k < 100; ++k) CHECK(crowd_world_step(one) == CROWD_OK, "step");
    for (int k = 0; k < 50; ++k) CHECK(crowd_world_step(one) == CROWD_OK, "step");
    const uint64_t want = crowd_world_state_hash(one);
    crowd_world_destroy(one);

    // The same world split across `savers` ranks, saved on their rank 0.
    bytes snap = {0};
    MPI_Comm save_comm = first_ranks(savers);
    if (save_comm != MPI_COMM_NULL) {
        crowd_world* w;
        CHECK(crowd_world_create(&wd, &w) == CROWD_OK, "create");
        build_behaviors(w);
        crowd_dist* d;
        CHECK(crowd_dist_create(save_comm, w, &d) == CROWD_OK, "dist create");
        for (int k = 0; k < 100; ++k) CHECK(crowd_dist_step(d) == CROWD_OK, "step");
        CHECK(crowd_dist_save_stream(d, append, &snap) == CROWD_OK, "split save");
        crowd_dist_destroy(d);
        MPI_Comm_free(&save_comm);
    }
    broadcast(&snap, rank);

    // Loaded on 1 rank, on `fewer` and on all.
    const int on[3] = {1, fewer, size};
    for (int i = 0; i < 3; ++i) {
        MPI_Comm c = first_ranks(on[i]);
        if (c == MPI_COMM_NULL) continue;
        const uint64_t h = load_and_step(&snap, c);
        CHECK(h == want, "saved on %d ranks, loaded on %d: hash %016llx, one process %016llx",
              savers, on[i], (unsigned long long)h, (unsigned long long)want);
        MPI_Comm_free(&c);
    }
    if (rank == 0)
        printf("snapshot from %d ranks (%zu bytes): loaded on 1, %d and %d ranks, 50 ticks on: the "
               "one-process hash\n",
               savers, snap.len, fewer, size);
    free(snap.data);
}

// ---- followers whose leaders live on other ranks ------------------------------------------------

static crowd_agent_id walker(crowd_world* w, float x, float y, float gx) {
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){x, y};
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){gx, y};
    crowd_agent_id id;
    CHECK(crowd_agent_add(w, &a, &id) == CROWD_OK, "walker");
    return id;
}

// Two groups, each leader 50 m from its followers at the start (far beyond any halo): leader A at
// the left walks right, its 6 slot followers (a wedge) start at the right; leader B at the right
// walks left, its 4 slot followers (a block) and one behind follower start at the left. A is B's
// fallback. Handles: A 1, B 2, A's followers 3-8, B's 9-13.
static void build_groups(crowd_world* w) {
    const crowd_agent_id a = walker(w, -30.0f, 0.0f, 40.0f), b = walker(w, 30.0f, 6.0f, -40.0f);
    crowd_formation_def fa = crowd_formation_def_default(), fb = crowd_formation_def_default();
    fa.shape = CROWD_FORMATION_WEDGE;
    fb.shape = CROWD_FORMATION_BLOCK;
    fb.columns = 2;
    CHECK(crowd_leader_set_formation(w, a, &fa) == CROWD_OK, "formation");
    CHECK(crowd_leader_set_formation(w, b, &fb) == CROWD_OK, "formation");
    CHECK(crowd_leader_set_fallback(w, b, a) == CROWD_OK, "fallback");
    crowd_follow_def slot = crowd_follow_def_default(), behind = crowd_follow_def_default();
    slot.target = CROWD_FOLLOW_SLOT;
    behind.target = CROWD_FOLLOW_BEHIND;
    for (int i = 0; i < 6; ++i) {
        const crowd_agent_id f = walker(w, 22.0f + 1.5f * (float)i, -3.0f, 22.0f);
        CHECK(crowd_agent_follow(w, f, a, &slot) == CROWD_OK, "follow");
    }
    for (int i = 0; i < 5; ++i) {
        const crowd_agent_id f = walker(w, -28.0f + 1.5f * (float)i, 9.0f, -28.0f);
        CHECK(crowd_agent_follow(w, f, b, i < 4 ? &slot : &behind) == CROWD_OK, "follow");
    }
}

static int linked_total(const twin* t) {
    int linked = crowd_dist_get_stats(t->d).linked;
    MPI_Allreduce(MPI_IN_PLACE, &linked, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return linked;
}

static void leaders_elsewhere(void) {
    twin t = make(build_groups);
    const crowd_agent_id a = nth(&t, 0), b = nth(&t, 1), fa = nth(&t, 7), fb = nth(&t, 8);
    const int oa = crowd_dist_owner(t.d, a), ob = crowd_dist_owner(t.d, b);
    CHECK(size == 1 || (oa != crowd_dist_owner(t.d, fa) && ob != crowd_dist_owner(t.d, fb)),
          "the leaders live with their followers");
    step(&t, 1, "groups");
    const int linked = linked_total(&t);
    CHECK(size == 1 || linked >= 2, "%d leaders fetched by handle", linked);
    step(&t, 60, "groups apart");
    // The followers hold slots of their leaders' formations, assigned from positions on other
    // ranks.
    crowd_follow_info info;
    CHECK(crowd_agent_get_follow(t.w, fa, &info) == CROWD_OK && info.slot >= 0, "a slot");

    // B goes (removed on every rank; its owner is one of them): its followers take A, whose slots
    // are assigned again over the whole new group.
    CHECK(crowd_agent_remove(t.w, b) == CROWD_OK, "remove");
    CHECK(crowd_dist_agent_remove(t.d, b) == CROWD_OK, "split remove of a leader");
    crowd_leader_info li;
    CHECK(crowd_leader_get_info(t.w, a, &li) == CROWD_OK && li.followers == 11, "the fallback");
    step(&t, 60, "fallback");
    // One of A's first followers goes, and so does an agent without follow records.
    CHECK(crowd_agent_remove(t.w, fa) == CROWD_OK, "remove");
    CHECK(crowd_dist_agent_remove(t.d, fa) == CROWD_OK, "split remove of a follower");
    step(&t, 100, "groups after removals");

    // Saved from the split world (the follow graph with it), loaded whole and split again: the
    // one-process world's hash, and 20 more ticks in step with it.
    bytes snap = {0};
    CHECK(crowd_dist_save_stream(t.d, append, &snap) == CROWD_OK, "split save");
    broadcast(&snap, rank);
    crowd_load_def ld = crowd_load_def_default();
    ld.threads = 1;
    crowd_world* back;
    CHECK(crowd_world_load(snap.data, snap.len, &ld, &back) == CROWD_OK, "load");
    CHECK(crowd_world_state_hash(back) == crowd_world_state_hash(t.w), "the loaded groups");
    crowd_dist_destroy(t.d);
    CHECK(crowd_dist_create(MPI_COMM_WORLD, back, &t.d) == CROWD_OK, "split the loaded groups");
    step(&t, 20, "groups loaded");
    free(snap.data);
    if (rank == 0)
        printf("followers of leaders on other ranks (leaders on ranks %d and %d): %d copies of "
               "leaders and members fetched by handle in the first step; leader and follower "
               "removed; saved and loaded; same "
               "hash\n",
               oa, ob, linked);
    destroy(&t);
}

// ---- refused ------------------------------------------------------------------------------------

// An agent that follows and has a queue that removes it on arrival.
static void removal_in_step_refused(void) {
    crowd_world_def wd = crowd_world_def_default();
    crowd_world* w;
    CHECK(crowd_world_create(&wd, &w) == CROWD_OK, "create");
    const crowd_agent_id leader = add(w, 0.0f, 0.0f, 0.0f), follower = add(w, -2.0f, 0.0f, 0.0f);
    const crowd_follow_def f = crowd_follow_def_default();
    CHECK(crowd_agent_follow(w, follower, leader, &f) == CROWD_OK, "follow");
    crowd_queue_def q = crowd_queue_def_default();
    q.on_arrival = CROWD_QUEUE_REMOVE;
    CHECK(crowd_agent_set_queue(w, follower, &q) == CROWD_OK, "queue");
    crowd_dist* d = NULL;
    CHECK(crowd_dist_create(MPI_COMM_WORLD, w, &d) == CROWD_ERR_NOT_DISTRIBUTABLE && !d,
          "a follower removed on arrival");
    // With a queue that keeps it, the same world splits.
    q.on_arrival = CROWD_QUEUE_STOP;
    CHECK(crowd_agent_set_queue(w, follower, &q) == CROWD_OK, "queue");
    CHECK(crowd_dist_create(MPI_COMM_WORLD, w, &d) == CROWD_OK, "a follower that stops");
    crowd_dist_destroy(d);
    if (rank == 0) printf("a follower removed on arrival: refused (CROWD_ERR_NOT_DISTRIBUTABLE)\n");
}

// An allocator that fails once `left` more allocations have been made, after it is armed.
typedef struct budget {
    bool armed;
    int left, failed;
} budget;

static void* budget_alloc(size_t bytes, size_t align, void* user) {
    budget* b = user;
    if (b->armed && b->left-- <= 0) {
        b->failed++;
        return NULL;
    }
    return aligned_alloc(align, (bytes + align - 1) / align * align);
}

static void budget_free(void* p, size_t bytes, void* user) {
    (void)bytes;
    (void)user;
    free(p);
}

static void out_of_memory_on_one_rank(void) {
    const int victim = size - 1;
    int failures = 0;
    for (int n = 0; n < 48; ++n) {
        budget b = {0};
        crowd_world_def wd = crowd_world_def_default();
        wd.threads = 1;
        wd.world_tag = 77;
        wd.alloc = budget_alloc;
        wd.free = budget_free;
        wd.alloc_user = &b;
        crowd_world* w;
        crowd_dist* d;
        CHECK(crowd_world_create(&wd, &w) == CROWD_OK, "create");
        build_behaviors(w);
        CHECK(crowd_dist_create(MPI_COMM_WORLD, w, &d) == CROWD_OK, "dist create");
        b.armed = rank == victim;
        b.left = n;
        bool failed = false;
        for (int k = 0; k < 4 && !failed; ++k) {
            const crowd_status st = crowd_dist_step(d);
            int all[64];
            const int mine = (int)st;
            MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
            int ok = 0;
            for (int r = 0; r < size; ++r) ok += all[r] == CROWD_OK;
            CHECK(ok == 0 || ok == size, "budget %d step %d: %d of %d ranks stepped", n, k, ok,
                  size);
            if (ok == size) continue;
            failed = true;
            CHECK(st == (b.failed ? CROWD_ERR_OUT_OF_MEMORY : CROWD_ERR_RANK_FAILED),
                  "budget %d: status %s on a rank whose allocator failed %d times", n,
                  crowd_status_string(st), b.failed);
        }
        if (failed) {
            ++failures;
            crowd_agent_def a = crowd_agent_def_default();
            crowd_agent_id id;
            CHECK(crowd_dist_step(d) == CROWD_ERR_RANK_FAILED, "a step after the failure");
            CHECK(crowd_dist_agent_add(d, &a, &id) == CROWD_ERR_RANK_FAILED,
                  "an add after the failure");
            uint64_t h;
            CHECK(crowd_dist_state_hash(d, &h) == CROWD_ERR_RANK_FAILED,
                  "a hash after the failure");
        }
        b.armed = false;
        crowd_dist_destroy(d);
    }
    // The budgets reach past the steps' allocations: some fail and the last ones do not.
    CHECK(failures > 0 && failures < 48, "%d of 48 budgets failed a step", failures);
    if (rank == 0)
        printf("out of memory on rank %d: %d of 48 budgets failed a step on every rank\n", victim,
               failures);
}

// ---- navigation ---------------------------------------------------------------------------------

// A wall along y = 0 from x = -40 to 40, agents below it spread along x (so over every rank) with
// routed goals to points above it, goals naming an exit set made before the split, straight
// goals, queues removed on arrival (routed to points of their own), and routed and straight
// waypoint followers of a loop around the wall.
static crowd_exits_id nav_exits;
static crowd_path_id nav_path;

static void build_nav(crowd_world* w) {
    const crowd_vec2 wall[2] = {{-40.0f, 0.0f}, {40.0f, 0.0f}};
    crowd_obstacle_id ob;
    CHECK(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, wall, 2, &ob) == CROWD_OK, "wall");
    const crowd_vec2 doors[2] = {{-44.0f, 6.0f}, {44.0f, 6.0f}};
    CHECK(crowd_exits_create(w, doors, 2, &nav_exits) == CROWD_OK, "exits");
    for (int i = 0; i < 16; ++i) {
        const float x = -36.0f + 4.8f * (float)i;
        const crowd_agent_id id = add(w, x, -3.0f, 0.0f);
        crowd_goal g = crowd_goal_default();
        g.mode = CROWD_GOAL_ARRIVE;
        g.target = (crowd_vec2){x, 5.0f};
        if (i % 4 == 1) g.exits = nav_exits;
        if (i % 4 == 2) g.route = CROWD_ROUTE_STRAIGHT;
        if (i % 4 != 3) {
            CHECK(crowd_agent_set_goal(w, id, &g) == CROWD_OK, "goal");
            continue;
        }
        crowd_queue_def q = crowd_queue_def_default();
        q.goal = (crowd_vec2){x + 1.0f, -7.0f};
        q.on_arrival = CROWD_QUEUE_REMOVE;
        CHECK(crowd_agent_set_queue(w, id, &q) == CROWD_OK, "queue");
    }
    const crowd_vec2 loop[4] = {{-30.0f, -6.0f}, {30.0f, -6.0f}, {30.0f, 6.0f}, {-30.0f, 6.0f}};
    CHECK(crowd_path_create(w, loop, 4, &nav_path) == CROWD_OK, "path");
    for (int i = 0; i < 5; ++i) {
        const crowd_agent_id id = add(w, -28.0f + 14.0f * (float)i, -5.0f, 0.0f);
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = nav_path;
        f.mode = CROWD_PATH_LOOP;
        f.route = i == 2 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD;
        f.start_index = i % 4;
        CHECK(crowd_agent_set_path(w, id, &f) == CROWD_OK, "path follow");
    }
}

// Every rank counts the one-process world's destinations in use.
static void expect_same_fields(const twin* t, const char* what) {
    int v[2] = {crowd_world_nav_stats(crowd_dist_world(t->d)).fields_in_use, 0};
    v[1] = -v[0];
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const int want = crowd_world_nav_stats(t->w).fields_in_use;
    CHECK(v[0] == want && -v[1] == want,
          "%s: %d to %d fields in use on the ranks, %d in one process", what, -v[1], v[0], want);
}

// The agents of the one-process world whose goal names exit set e (or, e null, with a routed goal
// toward a point), in handle order.
static int agents_with(const twin* t, crowd_exits_id e, crowd_agent_id* out) {
    crowd_agent_id ids[512];
    int n, k = 0;
    CHECK(crowd_dist_get_agents(t->d, ids, 512, &n) == CROWD_OK, "agents");
    for (int i = 0; i < n; ++i) {
        crowd_agent_def a;
        CHECK(crowd_agent_get_def(t->w, ids[i], &a) == CROWD_OK, "def");
        const bool point = a.goal.mode == CROWD_GOAL_ARRIVE && a.goal.route == CROWD_ROUTE_FIELD;
        if (e.index1 ? a.goal.exits.index1 == e.index1 : point && !a.goal.exits.index1)
            out[k++] = ids[i];
    }
    return k;
}

static void remove_both(twin* t, crowd_agent_id id) {
    CHECK(crowd_agent_remove(t->w, id) == CROWD_OK, "remove");
    CHECK(crowd_dist_agent_remove(t->d, id) == CROWD_OK, "split remove");
}

static void navigation(void) {
    twin t = make(build_nav);
    expect_same_fields(&t, "split");
    const int before = crowd_world_agent_count(t.w);
    step(&t, 10, "routed");
    expect_same_fields(&t, "routed");
    // The queues arrive and are removed on their owners in the step.
    step(&t, 80, "routed arrivals");
    CHECK(crowd_world_agent_count(t.w) == before - 4, "%d of 4 queues arrived",
          before - crowd_world_agent_count(t.w));
    expect_same_fields(&t, "after arrivals");
    // Routed agents removed by call, wherever they are.
    crowd_agent_id ids[64];
    int n = agents_with(&t, (crowd_exits_id){0}, ids);
    CHECK(n >= 3, "%d routed agents", n);
    for (int i = 0; i < n; i += 2) remove_both(&t, ids[i]);
    expect_same_fields(&t, "after removals");
    // A new exit set, made on every rank, named by agents added across the split: in use, it stays.
    const crowd_vec2 gate[1] = {{0.0f, 8.0f}};
    crowd_exits_id one, split;
    CHECK(crowd_exits_create(t.w, gate, 1, &one) == CROWD_OK, "exits");
    CHECK(crowd_dist_exits_create(t.d, gate, 1, &split) == CROWD_OK, "split exits");
    CHECK(one.index1 == split.index1 && one.generation == split.generation, "exit set handles");
    for (int i = 0; i < 6; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){-33.0f + 12.0f * (float)i, -2.0f};
        a.goal.mode = CROWD_GOAL_SEEK;
        a.goal.exits = split;
        crowd_agent_id x, y;
        CHECK(crowd_agent_add(t.w, &a, &x) == CROWD_OK, "add");
        CHECK(crowd_dist_agent_add(t.d, &a, &y) == CROWD_OK, "split add");
    }
    expect_same_fields(&t, "exit set added");
    CHECK(crowd_exits_destroy(t.w, one) == CROWD_ERR_IN_USE &&
              crowd_dist_exits_destroy(t.d, split) == CROWD_ERR_IN_USE,
          "an exit set in use");
    CHECK(crowd_dist_exits_destroy(t.d, nav_exits) == CROWD_ERR_IN_USE, "the first set in use");
    step(&t, 20, "toward the new exit set");
    n = agents_with(&t, split, ids);
    CHECK(n == 6, "%d agents name the new set", n);
    for (int i = 0; i < n; ++i) remove_both(&t, ids[i]);
    CHECK(crowd_exits_destroy(t.w, one) == CROWD_OK &&
              crowd_dist_exits_destroy(t.d, split) == CROWD_OK,
          "an exit set nobody names");
    CHECK(crowd_dist_exits_destroy(t.d, split) == CROWD_ERR_STALE_EXITS, "destroyed twice");
    expect_same_fields(&t, "exit set destroyed");
    // The routed path followers removed: the path's points go out of use everywhere.
    for (int i = crowd_dist_agent_count(t.d) - 1; i >= 0; --i) {
        const crowd_agent_id id = nth(&t, i);
        crowd_path_cursor c;
        CHECK(crowd_agent_get_path(t.w, id, NULL, &c) == CROWD_OK, "path");
        if (c.state != CROWD_PATH_STATE_NONE) remove_both(&t, id);
    }
    expect_same_fields(&t, "path followers removed");
    step(&t, 40, "routed, after the removals");
    if (rank == 0)
        printf("navigation: routed goals, exit sets and waypoint legs across %d ranks, the same "
               "destinations in use on every rank through removals, same hash\n",
               size);
    destroy(&t);
}

// Routed goals toward points above y = 0 and routed followers of a path in a world without
// obstacles (nothing counts routes yet), split; the followers are removed, then the first wall,
// added on every rank, starts the counting: every rank must count the whole world's destinations,
// also those of agents it does not store, and end them when those agents are removed (a path's
// followers are counted on every rank from the start, so their removal must reach every rank).
static crowd_path_id late_path;

static void build_routed_no_wall(crowd_world* w) {
    for (int i = 0; i < 16; ++i) {
        const float x = -36.0f + 4.8f * (float)i;
        const crowd_agent_id id = add(w, x, -3.0f, 0.0f);
        crowd_goal g = crowd_goal_default();
        g.mode = CROWD_GOAL_ARRIVE;
        g.target = (crowd_vec2){x + (float)(i % 3), 5.0f};
        CHECK(crowd_agent_set_goal(w, id, &g) == CROWD_OK, "goal");
    }
    const crowd_vec2 loop[3] = {{-30.0f, 9.0f}, {30.0f, 9.0f}, {0.0f, 12.0f}};
    CHECK(crowd_path_create(w, loop, 3, &late_path) == CROWD_OK, "path");
    for (int i = 0; i < 4; ++i) {
        const crowd_agent_id id = add(w, -30.0f + 20.0f * (float)i, -8.0f, 0.0f);
        crowd_path_follow_def f = crowd_path_follow_def_default();
        f.path = late_path;
        f.mode = CROWD_PATH_LOOP;
        f.route = CROWD_ROUTE_FIELD;
        CHECK(crowd_agent_set_path(w, id, &f) == CROWD_OK, "path follow");
    }
}

static void first_wall_after_the_split(void) {
    twin t = make(build_routed_no_wall);
    step(&t, 5, "no wall");
    for (int i = 19; i >= 16; --i) remove_both(&t, nth(&t, i)); // the path's followers
    const crowd_vec2 wall[2] = {{-40.0f, 0.0f}, {40.0f, 0.0f}};
    crowd_obstacle_id o1, o2;
    CHECK(crowd_obstacle_add(t.w, CROWD_OBSTACLE_WALL, wall, 2, &o1) == CROWD_OK &&
              crowd_dist_obstacle_add(t.d, CROWD_OBSTACLE_WALL, wall, 2, &o2) == CROWD_OK,
          "the first wall");
    expect_same_fields(&t, "the first wall");
    step(&t, 10, "routed round the first wall");
    crowd_agent_id ids[64];
    const int n = agents_with(&t, (crowd_exits_id){0}, ids);
    CHECK(n == 16, "%d routed agents", n);
    for (int i = 0; i < n; i += 2) remove_both(&t, ids[i]);
    expect_same_fields(&t, "after removals");
    step(&t, 10, "after removals");
    if (rank == 0)
        printf("the first wall after the split: every rank counts the one-process destinations, "
               "through removals, same hash\n");
    destroy(&t);
}

// The navigation budget, exactly `k` fields of the grid the wall gives: beyond it the same
// destinations are spread on every rank as in one process, also after a removal on another rank.
static int budget_fields;

static void build_budget(crowd_world* w) {
    const crowd_vec2 wall[2] = {{-40.0f, 0.0f}, {40.0f, 0.0f}};
    crowd_obstacle_id ob;
    CHECK(crowd_obstacle_add(w, CROWD_OBSTACLE_WALL, wall, 2, &ob) == CROWD_OK, "wall");
    for (int i = 0; i < budget_fields; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){-36.0f + 72.0f * (float)i / (float)(budget_fields - 1), -3.0f};
        a.goal.mode = CROWD_GOAL_ARRIVE;
        a.goal.target = (crowd_vec2){a.position.x, 5.0f};
        crowd_agent_id id;
        CHECK(crowd_agent_add(w, &a, &id) == CROWD_OK, "add");
    }
}

static void navigation_budget(void) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    wd.world_tag = 77;
    budget_fields = 8;
    crowd_world* probe;
    CHECK(crowd_world_create(&wd, &probe) == CROWD_OK, "create");
    build_budget(probe);
    CHECK(crowd_world_nav_update(probe) == CROWD_OK, "nav update");
    const crowd_nav_stats ns = crowd_world_nav_stats(probe);
    CHECK(ns.fields_in_use == budget_fields, "%d fields in use", ns.fields_in_use);
    crowd_world_destroy(probe);
    wd.nav.budget = (size_t)ns.grid_w * (size_t)ns.grid_h * 4 * (size_t)budget_fields;
    twin t = make_def(build_budget, wd);
    step(&t, 5, "budget");
    crowd_agent_def a = crowd_agent_def_default();
    a.position = (crowd_vec2){0.0f, -6.0f};
    a.goal.mode = CROWD_GOAL_SEEK;
    a.goal.target = (crowd_vec2){0.0f, 9.0f};
    crowd_agent_id x, y;
    // Beyond the budget a goal's new destination is spread (crowd/nav.h), alike on every rank:
    // the ranking reads the counts of uses, which every rank keeps for the whole world.
    CHECK(crowd_agent_add(t.w, &a, &x) == CROWD_OK, "a new destination beyond the budget");
    CHECK(crowd_dist_agent_add(t.d, &a, &y) == CROWD_OK, "split: beyond the budget");
    CHECK(x.index1 == y.index1 && x.generation == y.generation, "the same handle");
    step(&t, 5, "spread");
    {
        int v[2] = {crowd_world_nav_stats(crowd_dist_world(t.d)).spread, 0};
        v[1] = -v[0];
        MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        const int want = crowd_world_nav_stats(t.w).spread;
        CHECK(want > 0 && v[0] == want && -v[1] == want,
              "%d to %d destinations spread on the ranks, %d in one process", -v[1], v[0], want);
    }
    // The rightmost agent's destination goes out of use (it lives on the last rank).
    remove_both(&t, nth(&t, budget_fields - 1));
    expect_same_fields(&t, "budget");
    step(&t, 20, "budget");
    if (rank == 0)
        printf("navigation budget of %d fields: the same destinations spread on every rank\n",
               budget_fields);
    destroy(&t);
}

// A routed world with a world tag of its own on each rank (derived from its address): the split
// world's snapshot holds rank 0's tag in every handle of its records, loads and steps on as the
// one-process world.
static void navigation_snapshot(void) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 1;
    crowd_world* one;
    crowd_world* w;
    CHECK(crowd_world_create(&wd, &one) == CROWD_OK, "create");
    CHECK(crowd_world_create(&wd, &w) == CROWD_OK, "create");
    build_nav(one);
    build_nav(w);
    crowd_dist* d;
    CHECK(crowd_dist_create(MPI_COMM_WORLD, w, &d) == CROWD_OK, "dist create");
    for (int k = 0; k < 30; ++k) {
        CHECK(crowd_world_step(one) == CROWD_OK, "step");
        CHECK(crowd_dist_step(d) == CROWD_OK, "split step");
    }
    bytes snap = {0};
    CHECK(crowd_dist_save_stream(d, append, &snap) == CROWD_OK, "split save");
    broadcast(&snap, rank);
    crowd_world* l;
    CHECK(crowd_world_load(snap.data, snap.len, NULL, &l) == CROWD_OK, "load");
    CHECK(crowd_world_state_hash(l) == crowd_world_state_hash(one), "loaded hash");
    CHECK(crowd_world_nav_stats(l).fields_in_use == crowd_world_nav_stats(one).fields_in_use,
          "fields in use after the load");
    for (int k = 0; k < 30; ++k) {
        CHECK(crowd_world_step(one) == CROWD_OK && crowd_world_step(l) == CROWD_OK, "step");
        CHECK(crowd_world_state_hash(l) == crowd_world_state_hash(one), "tick %d", k);
    }
    if (rank == 0)
        printf("navigation snapshot from %d ranks with their own tags: loads, the one-process "
               "hash\n",
               size);
    free(snap.data);
    crowd_world_destroy(l);
    crowd_world_destroy(one);
    crowd_dist_destroy(d);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    every_behavior_migrates();
    queue_across_borders();
    remote_structure();
    one_column();
    rebalance_threshold();
    snapshots();
    leaders_elsewhere();
    removal_in_step_refused();
    out_of_memory_on_one_rank();
    navigation();
    first_wall_after_the_split();
    navigation_budget();
    navigation_snapshot();
    MPI_Finalize();
    return 0;
}
