// crowd_dist_add_agents (crowd/dist.h): a split world set up from a generator, without the whole
// world on any rank, against the same agents added one by one in one process (every rank builds
// that one too: the worlds are small):
//  - from an empty split world and from one that holds agents already: the handles are the
//    one-process ones, every agent is stored on exactly one rank, an added one on the rank that
//    owns its cell (the first step, its split not cut again, moves none of them), no rank holds
//    much more than its share, and the state hash stays the one-process one for 30 steps;
//  - the bytes a rank's world holds (its allocator hooks) against the one-process world's: its
//    share of them, plus a little per agent of the whole world (every rank issues every handle);
//  - a generator that refuses agent 7: agents 0 .. 6 stay, on every rank, and the status is its;
//  - a rank's own world saved: a load bound below its indices refuses it as too large;
//  - the state hash (the whole world gathered into rank 0) leaves every rank's bytes as they were;
//  - the argument checks.
// Run under mpiexec with any rank count; exit status 1 on the first failed check.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/crowd.h"
#include "crowd/dist.h"
#include "dist_check.h"

static int rank, size;

enum { AGENTS = 4000, REFUSED_AT = 7, BIG = 60000 };

// Live bytes through a world's allocator hooks.
typedef struct counter {
    long long live;
} counter;

static void* count_alloc(size_t size, size_t align, void* user) {
    ((counter*)user)->live += (long long)size;
    size = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, size ? size : align);
}

static void count_free(void* p, size_t size, void* user) {
    ((counter*)user)->live -= (long long)size;
    free(p);
}

typedef struct gen {
    int refuse; // agent index the generator refuses, -1 for none
} gen;

// A fraction in [0, 1) from i and a salt (splitmix64's finalizer): a pure function of i.
static float unit(uint64_t i, uint64_t salt) {
    uint64_t z = i * 0x9e3779b97f4a7c15ull + salt;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 16777216.0f);
}

static crowd_status agent_at(int i, crowd_agent_def* def, void* user) {
    const gen* g = user;
    if (i == g->refuse) return CROWD_ERR_OUT_OF_RANGE;
    def->position =
        (crowd_vec2){unit((uint64_t)i, 1) * 120.0f - 60.0f, unit((uint64_t)i, 2) * 120.0f - 60.0f};
    def->velocity = (crowd_vec2){unit((uint64_t)i, 3) - 0.5f, unit((uint64_t)i, 4) - 0.5f};
    def->goal.mode = CROWD_GOAL_SEEK;
    def->goal.target = (crowd_vec2){-def->position.x, -def->position.y};
    return CROWD_OK;
}

static crowd_world* create_counted(counter* c) {
    crowd_world_def wd = crowd_world_def_default();
    if (c) {
        wd.alloc = count_alloc;
        wd.free = count_free;
        wd.alloc_user = c;
    }
    wd.threads = 1;
    wd.world_tag = 77; // one tag: the split world's handles are the one-process world's
    crowd_world* w;
    CHECK(crowd_world_create(&wd, &w) == CROWD_OK, "create");
    return w;
}

static crowd_world* create_world(void) {
    return create_counted(NULL);
}

// A rank holds about its share of the one-process world's bytes: about 110 per agent it stores
// (with room for a sixteenth more, for a step's ghosts) and 11 per agent of the whole world.
static void memory_follows_share(void) {
    gen g = {-1};
    counter one_bytes = {0}, split_bytes = {0};
    crowd_world* one = create_counted(&one_bytes);
    for (int i = 0; i < BIG; ++i) {
        crowd_agent_def def = crowd_agent_def_default();
        agent_at(i, &def, &g);
        crowd_agent_id id;
        CHECK(crowd_agent_add(one, &def, &id) == CROWD_OK, "add");
    }
    crowd_dist* d;
    CHECK(crowd_dist_create(MPI_COMM_WORLD, create_counted(&split_bytes), &d) == CROWD_OK,
          "dist create");
    CHECK(crowd_dist_add_agents(d, BIG, agent_at, &g, NULL, NULL) == CROWD_OK, "add_agents");
    long long most = split_bytes.live;
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    const double share = (double)most / (double)one_bytes.live;
    const double bound = size == 1 ? 1.25 : 1.25 / size + 0.15;
    if (rank == 0)
        printf("memory: the largest rank's world %.1f KB, one process %.1f KB (%.3f, bound %.3f)\n",
               most / 1024.0, one_bytes.live / 1024.0, share, bound);
    CHECK(share <= bound, "the largest rank holds %.3f of the one-process world's bytes", share);
    // A rank's own world saved: its slot capacity is its share, its indices the whole world's.
    // (It does not load as a world: it holds handles of agents stored elsewhere.) A load bound
    // past its slot capacity but below its indices refuses it as too large before anything is
    // allocated for the indices, which are storage too; a bound past both does not.
    const crowd_world* mine = crowd_dist_world(d);
    const size_t bytes = crowd_world_save_size(mine);
    void* buf = malloc(bytes);
    size_t written;
    CHECK(buf && crowd_world_save(mine, buf, bytes, &written) == CROWD_OK, "rank save");
    crowd_load_def ld = crowd_load_def_default();
    crowd_world* loaded = NULL;
    ld.max_capacity = BIG - 1;
    CHECK(size == 1 || crowd_world_load(buf, written, &ld, &loaded) == CROWD_ERR_SNAPSHOT_TOO_LARGE,
          "a load bound below the indices");
    ld.max_capacity = 2 * BIG;
    CHECK(crowd_world_load(buf, written, &ld, &loaded) != CROWD_ERR_SNAPSHOT_TOO_LARGE,
          "a load bound past the indices");
    crowd_world_destroy(loaded);
    free(buf);
    // The state hash gathers the whole world into rank 0 for the call only: afterwards every
    // rank holds what it held before (rank 0's slots and receive buffer go back).
    const long long before = split_bytes.live;
    uint64_t h;
    CHECK(crowd_dist_state_hash(d, &h) == CROWD_OK && h == crowd_world_state_hash(one),
          "memory: the hash differs");
    CHECK(split_bytes.live <= before + before / 50,
          "memory: %.1f KB after the state hash, %.1f KB before", split_bytes.live / 1024.0,
          before / 1024.0);
    crowd_world_destroy(one);
    crowd_dist_destroy(d);
}

// `before` agents added to both worlds ahead of the split (from the generator's far end), then
// the generator's first `count` through crowd_dist_add_agents and one by one in one process.
static void add_and_compare(int before, int count, const char* what) {
    gen g = {-1};
    crowd_world* one = create_world();
    crowd_world* split = create_world();
    for (int i = 0; i < before; ++i) {
        crowd_agent_def def = crowd_agent_def_default();
        agent_at(AGENTS - 1 - i, &def, &g);
        crowd_agent_id id;
        CHECK(crowd_agent_add(one, &def, &id) == CROWD_OK, "%s: add", what);
        CHECK(crowd_agent_add(split, &def, &id) == CROWD_OK, "%s: add", what);
    }
    crowd_dist* d;
    CHECK(crowd_dist_create(MPI_COMM_WORLD, split, &d) == CROWD_OK, "%s: dist create", what);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)count);
    CHECK(ids, "memory");
    int added = -1;
    const crowd_status st = crowd_dist_add_agents(d, count, agent_at, &g, ids, &added);
    CHECK(st == CROWD_OK && added == count, "%s: add_agents %s, %d added", what,
          crowd_status_string(st), added);
    for (int i = 0; i < count; ++i) {
        crowd_agent_def def = crowd_agent_def_default();
        agent_at(i, &def, &g);
        crowd_agent_id id;
        CHECK(crowd_agent_add(one, &def, &id) == CROWD_OK, "%s: add", what);
        CHECK(id.index1 == ids[i].index1 && id.generation == ids[i].generation &&
                  id.world == ids[i].world,
              "%s: agent %d's handle differs", what, i);
    }
    free(ids);
    const int total = before + count;
    CHECK(crowd_dist_agent_count(d) == total, "%s: %d agents", what, crowd_dist_agent_count(d));

    // Each agent on exactly one rank, and a rank's share near an even one (the split was cut for
    // the added agents: an empty split would leave them all on rank 0).
    int stored = crowd_world_agent_count(crowd_dist_world(d)), sum = stored, most = stored;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(sum == total, "%s: %d agents stored over the ranks, %d in the world", what, sum, total);
    CHECK(most * size <= total * 3 / 2, "%s: %d agents on one rank of %d, of %d", what, most, size,
          total);

    // Stored where they are owned: with the split left as it is, the first step moves none.
    CHECK(crowd_dist_set_rebalance(d, 1e9) == CROWD_OK, "rebalance");
    CHECK(crowd_world_step(one) == CROWD_OK && crowd_dist_step(d) == CROWD_OK, "%s: step", what);
    int moved = crowd_dist_get_stats(d).migrated_in;
    MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    // The added agents are where they belong; agents split before may have been left on the other
    // side of a new cut, and move now.
    CHECK(moved <= before, "%s: %d agents moved to their owner in the first step", what, moved);
    CHECK(crowd_dist_set_rebalance(d, CROWD_DIST_REBALANCE_DEFAULT) == CROWD_OK, "rebalance");
    for (int k = 0; k < 30; ++k)
        CHECK(crowd_world_step(one) == CROWD_OK && crowd_dist_step(d) == CROWD_OK, "%s: step",
              what);
    uint64_t h;
    CHECK(crowd_dist_state_hash(d, &h) == CROWD_OK, "hash");
    CHECK(h == crowd_world_state_hash(one), "%s: split hash %016llx, one process %016llx", what,
          (unsigned long long)h, (unsigned long long)crowd_world_state_hash(one));
    crowd_world_destroy(one);
    crowd_dist_destroy(d);
}

static void refused_agent(void) {
    gen g = {REFUSED_AT};
    crowd_world* one = create_world();
    crowd_dist* d;
    CHECK(crowd_dist_create(MPI_COMM_WORLD, create_world(), &d) == CROWD_OK, "dist create");
    int added = -1;
    crowd_status st = crowd_dist_add_agents(d, 100, agent_at, &g, NULL, &added);
    CHECK(st == CROWD_ERR_OUT_OF_RANGE && added == REFUSED_AT, "refused: %s, %d added",
          crowd_status_string(st), added);
    for (int i = 0; i < REFUSED_AT; ++i) {
        crowd_agent_def def = crowd_agent_def_default();
        agent_at(i, &def, &g);
        crowd_agent_id id;
        CHECK(crowd_agent_add(one, &def, &id) == CROWD_OK, "add");
    }
    uint64_t h;
    CHECK(crowd_dist_state_hash(d, &h) == CROWD_OK && h == crowd_world_state_hash(one),
          "refused: the hash differs");
    // The split world goes on.
    CHECK(crowd_dist_step(d) == CROWD_OK, "refused: step");

    CHECK(crowd_dist_add_agents(d, -1, agent_at, &g, NULL, &added) == CROWD_ERR_BAD_COUNT &&
              added == 0,
          "a negative count");
    CHECK(crowd_dist_add_agents(d, 10, NULL, &g, NULL, &added) == CROWD_ERR_NULL_ARGUMENT,
          "no generator");
    CHECK(crowd_dist_add_agents(NULL, 10, agent_at, &g, NULL, NULL) == CROWD_ERR_NULL_ARGUMENT,
          "no split world");
    CHECK(crowd_dist_add_agents(d, 0, agent_at, &g, NULL, &added) == CROWD_OK && added == 0,
          "no agents");
    CHECK(crowd_dist_agent_count(d) == REFUSED_AT, "refused: %d agents", crowd_dist_agent_count(d));
    crowd_world_destroy(one);
    crowd_dist_destroy(d);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    add_and_compare(0, AGENTS, "from an empty split");
    add_and_compare(300, AGENTS - 300, "after agents split");
    refused_agent();
    memory_follows_share();
    if (rank == 0) printf("dist_add: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
