// One world stepped by several MPI processes, bit-identical to the same world stepped by one.
// Built only with -DCROWD_MPI=ON (library crowd_dist); the plain library has no MPI dependency.
//
// Each process (rank) holds an ordinary crowd_world with the agents it owns: those whose hash cell
// lies in its rectangle of the plane. The rectangles (a recursive bisection of the cells, or strips
// of columns; crowd_dist_set_split) are cut again so each holds about the same number of agents
// whenever the imbalance passes a threshold. For the step, each rank also holds copies (ghosts) of
// every agent whose cell lies within the interaction range of its rectangle, over as many
// rectangles as that range crosses; after it, the ghosts are dropped and agents
// that left a strip move to its owner with their behavior records. Every rank keeps the same handle
// table, so a handle names the same agent on every rank, and the tick's result does not depend on
// the number of ranks (docs/distributed.md says which rules make that so).
//
// The contract (SPMD, as lockstep servers run): every call below is collective. Every rank of the
// communicator makes the same calls in the same order with the same arguments, and gets the same
// status back. A structural call (add, remove, teleport) updates the handle table on every rank;
// only the owner stores or changes the agent. Between steps the rank's world (crowd_dist_world)
// holds only the agents the rank owns: read them there with the ordinary API, never change it.
//
// Supported: separation, goals, queues (every arrival rule), path following, follow leader with
// formations and fallbacks, obstacles and wall avoidance, navigation (crowd/nav.h: routed goals
// and waypoint legs, exit sets). Paths, obstacles and exit sets are replicated: every rank builds
// them identically before crowd_dist_create; afterwards no path is added, obstacles are added and
// removed with crowd_dist_obstacle_add and crowd_dist_obstacle_remove, and exit sets made and
// destroyed with crowd_dist_exits_create and crowd_dist_exits_destroy. Every rank counts the whole
// world's destinations in use and builds the field of each (a field depends only on the obstacles,
// the navigation def and its destination), so the navigation budget and an exit set's users give
// every rank the whole world's answer: a call they refuse is refused on every rank, as in one
// process.
// So is the follow graph (who follows whom, formations, slot assignments): every rank keeps it
// whole, and a leader on another rank is fetched by handle for each step, whatever the distance.
// A neighbor cap (crowd_world_set_max_neighbors) is split like the rest: the candidates its scan
// examines are those of the agent's query box, in the same order on every rank. crowd_dist_create
// refuses with CROWD_ERR_NOT_DISTRIBUTABLE a world where an agent that follows, leads or is a
// fallback has a queue that removes it on arrival (a removal inside the step would change the
// follow graph on its owner alone).
#ifndef CROWD_DIST_H
#define CROWD_DIST_H

#include <mpi.h>

#include "crowd/nav.h"
#include "crowd/obstacle.h"
#include "crowd/queue.h"
#include "crowd/snapshot.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct crowd_dist crowd_dist;

// Figures of this rank for the last step.
typedef struct crowd_dist_stats {
    int owned;  // agents this rank owns (after the step)
    int ghosts; // copies of other ranks' agents it held for the step
    int linked; // more copies, fetched by handle: leaders and group members linked to its agents
    int migrated_in;    // agents that moved to this rank before the step
    int64_t bytes_sent; // bytes this rank sent for the step (migration, ghosts, arrivals)
    // Its rectangle of hash cells: columns floor(x / cell) in [col_first, col_last], rows
    // floor(y / cell) in [row_first, row_last] (INT64_MIN, INT64_MAX: open; empty when a first
    // exceeds its last).
    int64_t col_first, col_last, row_first, row_last;
    int halo_cells;        // cells of ghosts around the rectangle, on each side
    double imbalance;      // before the step: the most agents on a rank over the mean (1 = even)
    double load_imbalance; // the same for the agents the ranks stepped (after migration)
    int rebalanced;        // 1 when the split was cut again for the step (the imbalance reached the
                    // threshold of crowd_dist_set_rebalance, or crowd_dist_set_split changed it)
    double step_ms;     // wall time of the rank's crowd_world_step
    double exchange_ms; // wall time of the rest: strips, migration, ghosts, arrivals (waits too)
} crowd_dist_stats;

// Splits `world` across the ranks of `comm`. Every rank passes the same world (built by the same
// calls); the call takes it over: each rank keeps the agents of its strip, and every rank gets
// rank 0's world tag, so handles are equal everywhere (handles read from the world before the
// call carry the old tag on the other ranks: take them from crowd_dist_get_agents; for paths,
// obstacles and exit sets, give the worlds one crowd_world_def.world_tag, or make exit sets with
// crowd_dist_exits_create). The handles the agents' goals and path followers hold take the new
// tag. On failure the world is left as it was and still belongs to the caller.
CROWD_API crowd_status crowd_dist_create(MPI_Comm comm, crowd_world* world, crowd_dist** out);
// Destroys the rank's world too.
CROWD_API void crowd_dist_destroy(crowd_dist* d);

// This rank's world: between steps, exactly the agents it owns.
CROWD_API const crowd_world* crowd_dist_world(const crowd_dist* d);

// One step of the whole world. When it runs out of memory on some rank, every rank returns a
// failure from the same collective (that rank its own status, the others CROWD_ERR_RANK_FAILED):
// no rank is left waiting. The split world's state is then lost: every later call but reading,
// crowd_dist_get_stats and crowd_dist_destroy returns CROWD_ERR_RANK_FAILED. The same holds for
// crowd_dist_agent_add when one rank runs out of memory (the ranks' handle tables would differ).
CROWD_API crowd_status crowd_dist_step(crowd_dist* d);

// Structural calls, as crowd_agent_add, crowd_agent_remove and crowd_agent_set_position.
CROWD_API crowd_status crowd_dist_agent_add(crowd_dist* d, const crowd_agent_def* def,
                                            crowd_agent_id* out);
CROWD_API crowd_status crowd_dist_agent_remove(crowd_dist* d, crowd_agent_id id);

// Agent i of a set added by crowd_dist_add_agents: fills *def, which starts as
// crowd_agent_def_default(). It is called more than once for some i (and on every rank), so it
// must describe agent i the same way each time: a function of i and `user`, as a scene generator
// is. A status other than CROWD_OK stops the add at agent i with that status.
typedef crowd_status crowd_dist_agent_fn(int i, crowd_agent_def* def, void* user);

// Adds `count` agents, agent i as fn describes it, in the order i = 0, 1, ..., so their handles
// are those one process adding the same defs in that order would issue: the split world's set-up
// without building the whole world on every rank. First the split is cut again for the agents
// stored and the ones to come (each rank describes a share of them), then every rank calls fn for
// every i, issues the handle and stores the agent only when it owns its cell: a rank's memory
// follows its share, its set-up time the whole count. Agents stored before the call may then lie
// outside their rank's new rectangle: the next step moves them, as after a rebalance. Pass a world
// with no agents (or some) to crowd_dist_create and the agents here; agents that follow, queue or
// walk paths are set up with the ordinary calls afterwards, or in one world before
// crowd_dist_create. `ids`: NULL, or room for `count` handles, agent i's at ids[i]. `added` (may be
// NULL): the agents added. When agent i is refused (fn's status, or crowd_agent_add's, such as
// CROWD_ERR_CAPACITY or CROWD_ERR_INSIDE_OBSTACLE, the same on every rank), agents 0 .. i-1 stay
// added and that status is returned. Out of memory is agreed once per call: when the split cannot
// be cut (a rank lacks memory for its share) nothing changes and every rank returns
// CROWD_ERR_OUT_OF_MEMORY; when a rank runs out while adding, the ranks' handle tables differ and
// the split world is given up as in crowd_dist_step (that rank returns CROWD_ERR_OUT_OF_MEMORY, the
// others CROWD_ERR_RANK_FAILED). CROWD_ERR_BAD_COUNT for a negative count.
CROWD_API crowd_status crowd_dist_add_agents(crowd_dist* d, int count, crowd_dist_agent_fn* fn,
                                             void* user, crowd_agent_id* ids, int* added);
CROWD_API crowd_status crowd_dist_agent_set_position(crowd_dist* d, crowd_agent_id id,
                                                     crowd_vec2 position);

// Obstacles, as crowd_obstacle_add and crowd_obstacle_remove: every rank keeps every obstacle, so
// each holds the same obstacle handles. An add is refused with CROWD_ERR_INSIDE_OBSTACLE on every
// rank when the obstacle covers an agent on any rank.
CROWD_API crowd_status crowd_dist_obstacle_add(crowd_dist* d, crowd_obstacle_kind kind,
                                               const crowd_vec2* points, int count,
                                               crowd_obstacle_id* out);
CROWD_API crowd_status crowd_dist_obstacle_remove(crowd_dist* d, crowd_obstacle_id id);

// Exit sets, as crowd_exits_create and crowd_exits_destroy: every rank keeps every exit set, with
// the same handles. A destroy is refused with CROWD_ERR_IN_USE on every rank while a goal anywhere
// names the set.
CROWD_API crowd_status crowd_dist_exits_create(crowd_dist* d, const crowd_vec2* points, int count,
                                               crowd_exits_id* out);
CROWD_API crowd_status crowd_dist_exits_destroy(crowd_dist* d, crowd_exits_id id);

// Agents in the whole world, and their handles in handle order (no communication).
CROWD_API int crowd_dist_agent_count(const crowd_dist* d);
CROWD_API crowd_status crowd_dist_get_agents(const crowd_dist* d, crowd_agent_id* ids, int capacity,
                                             int* count);
// The rank that owns the agent, or -1 when the handle is not live.
CROWD_API int crowd_dist_owner(const crowd_dist* d, crowd_agent_id id);

// The last step's arrivals over all ranks, in handle order (as crowd_world_get_arrivals).
CROWD_API crowd_status crowd_dist_get_arrivals(const crowd_dist* d, crowd_arrival* out,
                                               int capacity, int* count);

// Runs `fn` on rank 0 with the whole world: every other rank's agents are gathered into rank 0's
// world for the call (in rank 0's storage order) and taken out after it; fn only reads it. Every
// rank returns fn's status. What a tool does with the whole world (a recording's frame) goes
// through it.
typedef crowd_status crowd_dist_whole_fn(const crowd_world* world, void* user);
CROWD_API crowd_status crowd_dist_with_whole_world(crowd_dist* d, crowd_dist_whole_fn* fn,
                                                   void* user);

// crowd_world_state_hash of the whole world, on every rank: the agents are gathered to rank 0.
CROWD_API crowd_status crowd_dist_state_hash(crowd_dist* d, uint64_t* out);

// A snapshot of the whole world, written on rank 0 through `write` (as crowd_world_save_stream;
// the other ranks' `write` is not called): the agents are gathered to rank 0 and saved as one
// world (in rank 0's storage order, so the bytes may differ from a one-process save; the world
// they hold does not). It loads on any rank count: every rank loads it with crowd_world_load and
// passes the world to crowd_dist_create, or one process keeps it.
CROWD_API crowd_status crowd_dist_save_stream(crowd_dist* d, crowd_write_fn* write, void* user);

CROWD_API crowd_dist_stats crowd_dist_get_stats(const crowd_dist* d);

// The split is cut again (agents counted per cell over all ranks) before a step when the
// imbalance (the most agents on one rank over the mean) reaches `threshold`: 1 cuts it before
// every step. Where the borders lie changes no result. CROWD_ERR_OUT_OF_RANGE below 1.
#define CROWD_DIST_REBALANCE_DEFAULT 1.1
CROWD_API crowd_status crowd_dist_set_rebalance(crowd_dist* d, double threshold);

// How the plane is cut among the ranks. Bisection (the default): recursive coordinate bisection
// of the hash cells, each cut across the longer side of its agents' box at the count that gives
// each side its share of the ranks, so every rank holds a rectangle of about the same number of
// agents. Strips: every cut across columns (the crowd cannot be split along y). Changing it cuts
// the split again before the next step; it changes no result. CROWD_ERR_OUT_OF_RANGE for another
// value.
typedef enum crowd_dist_split {
    CROWD_DIST_BISECTION = 0,
    CROWD_DIST_STRIPS = 1,
} crowd_dist_split;
CROWD_API crowd_status crowd_dist_set_split(crowd_dist* d, crowd_dist_split kind);

#ifdef __cplusplus
}
#endif

#endif
