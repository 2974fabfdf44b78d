// The behavior table: what the core knows of a behavior, one entry each (the entries are in
// behaviors/registry.c). Storage, reserve, removal, the record layout of the sort phase, the
// passes of the step, the state hash, teardown and the snapshot's behavior sections are loops over
// this table; the core names no behavior.
//
// Everything here is walked once per call or per phase, never per agent: a behavior's pass loops
// over its own agents, and the core's hot loops make no indirect calls.
#ifndef CS_BEHAVIOR_H
#define CS_BEHAVIOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/crowd.h"

struct cs_snap_section;

// A behavior owns at most this many record kinds (follow has two: followers and leaders).
#define CS_BEHAVIOR_MAX_RECORDS 2

// One record kind of a behavior: pool w->pools[kind] of `size`-byte records with `aux_size`-byte
// aux elements (see core/pool.h), and record numbers w->rec_of[kind]. size 0 ends the list.
typedef struct cs_record_def {
    int kind; // cs_record_kind
    uint32_t size, aux_size;
    // In a world split across processes (src/dist/), every process keeps these records for every
    // agent, stored there or not, and applies every change to them in the same order: they link
    // agents across the whole world (the follow graph). Packed agents carry the other kinds only.
    bool replicated;
    // A pass reads these records every tick: the sort lays them out in slot order every few ticks
    // (CS_RECORD_PERIOD). Records read only on events (an API call, an arrival) stay where they
    // are.
    bool slot_order;
} cs_record_def;

// A pass of the step: runs once per step in `phase`, after the core's own pass of that phase (if
// any) and after the passes of earlier entries.
typedef struct cs_behavior_pass {
    crowd_phase phase;
    void (*run)(crowd_world* w);
} cs_behavior_pass;

#define CS_BEHAVIOR_MAX_PASSES 2

// The queries of the neighbor pass besides separation, which every agent with a separation weight
// gets. The pass is one fused kernel over the cell-sorted agents (core/neighbor.c) with this fixed
// menu; a behavior subscribes its agents to a query in its table entry, at most one behavior per
// query. A new kind of neighbor test (a line-of-sight filter, say) is a new query here and in the
// kernel, which then stays free of per-candidate calls.
typedef enum cs_neighbor_query {
    // The spec's forward cone: the distance along the agent's heading to the closest agent in the
    // cone (+inf when none or when the agent is slower than the subscription's min_len).
    // in: cone length, cone width, the squared-width bound (cs_steer_width2); out: that distance
    // over the cone's length, which is what the spec's brake clamps (cs_steer_brake).
    CS_NB_CONE,
    // Separation among the agents of the same group (the group column; 0 = none), unweighted.
    // out: its x and y.
    CS_NB_GROUP,
    // The one ahead in a file toward a target point: among the agents subscribed with the same
    // target, the closest by distance `along` the direction to the target that is strictly closer
    // to the target, with 0 < along <= reach * reach_scale and at most width or along / 2 off
    // that line (ties by offset; none when the target is nearer than min_len). in: target x,
    // target y, reach, width; out: its sorted slot as a uint32 (CS_NB_NONE when there is none),
    // whose offset from the agent its reader takes from the positions, unchanged until the
    // integration.
    CS_NB_FILE,
    // The headway: the cone's test along a direction of the agent's (in: its x and y, the length
    // and the squared-width bound, whose square root is the width) and a candidate counts only
    // when its own direction (the same inputs, per candidate: they come from hot columns) has a
    // dot product with the agent's above the subscription's `align`; out: the distance along the
    // direction to the closest agent in it (+inf when none or when the direction is shorter than
    // min_len), not divided by the length. Its output shares the cone's buffer (cs_nb_first): no
    // agent takes both, the headway's subscriber (the goal) leaves out the agents that queue.
    CS_NB_HEADWAY,
    CS_NB_COUNT
} cs_neighbor_query;

#define CS_NB_NONE UINT32_MAX

// How many per-slot outputs each query writes (core/internal.h, cs_nb_out): together no more than
// the free column buffers that hold them.
static const int cs_nb_outputs[CS_NB_COUNT] = {
    [CS_NB_CONE] = 1, [CS_NB_GROUP] = 2, [CS_NB_FILE] = 1, [CS_NB_HEADWAY] = 1};
// The free column buffer each query's outputs start at: the headway writes the cone's.
static const int cs_nb_first[CS_NB_COUNT] = {
    [CS_NB_CONE] = 0, [CS_NB_GROUP] = 1, [CS_NB_FILE] = 3, [CS_NB_HEADWAY] = 0};

// A subscription: agents with `flag` (0: none) take part. Their inputs are float fields at byte
// offsets `in` of their parameter profile (or, with in_col, their own hot columns) of kind
// `profile` (a cs_profile_kind + 1; 0: the query has no inputs), whose number + 1 is in hot column
// `col`; the outputs go to the world's per-slot arrays of the query (crowd_world.nb_out,
// cs_world_nb_out), which the subscriber reads later in the same step. The subscriber's constants
// of the cone's shape (steer/steer_math.h) come with it, so the kernel names no behavior.
typedef struct cs_neighbor_use {
    uint32_t flag;
    // A record kind every subscriber holds: with none live, nobody subscribes. -1: the
    // subscribers hold no record; the query runs once hot column `col` is in use.
    int kind;
    int profile;
    int col;
    uint16_t in[4];
    // An input that differs from agent to agent is a float hot column instead: in_col[k] = its
    // cs_hot_col + 1 (0: input k is the profile's field at in[k]).
    uint8_t in_col[4];
    // CS_NB_CONE, CS_NB_FILE: the cone has a heading only when the direction it looks along (the
    // velocity, or the way to the target) is at least this long; else it finds no one.
    float min_len;
    // CS_NB_FILE: the sector reaches this many times its reach input.
    float reach_scale;
    // CS_NB_HEADWAY: the smallest dot product (exclusive) of a candidate's direction with the
    // agent's.
    float align;
} cs_neighbor_use;

// What a behavior says of the separation form of one of its agents (behaviors/separation.h):
// nothing, push (no velocity drag) unless a behavior decides, or the form it decides on.
typedef enum cs_sep_form {
    CS_SEP_ANY,
    CS_SEP_PUSH,
    CS_SEP_DECIDE_DRAG,
    CS_SEP_DECIDE_PUSH,
} cs_sep_form;

// A hot column of a behavior (behaviors/registry.h): plain 4-byte values, or, with `profile`
// (a cs_profile_kind + 1), the number + 1 of a profile of that kind (0: none), which a split
// world's packed agent carries as the profile's value and which the core releases when the
// agent leaves.
typedef struct cs_hot_def {
    int col; // cs_hot_col
    int profile;
    uint32_t flag; // agents with any of these flags hold a value other than 0 here (0: none)
    // Agents without any of these flags hold 0 here (0: no such rule). The behavior keeps that
    // true (behaviors/separation.h zeroes the column when an agent loses the flag), so while no
    // agent has the flag the column is 0 in every slot and the sort does not gather it.
    uint32_t gate;
} cs_hot_def;

#define CS_BEHAVIOR_MAX_HOT 10

typedef struct cs_behavior {
    const char* name;
    uint32_t flags; // the agent flag bits it owns (a loaded snapshot may carry only known bits)
    cs_record_def records[CS_BEHAVIOR_MAX_RECORDS];
    // Its hot columns (the first hot_count entries), and the byte size of its parameter profiles
    // (0: it has none), of kind `profile_kind`.
    cs_hot_def hot[CS_BEHAVIOR_MAX_HOT];
    int hot_count;
    int profile_kind; // cs_profile_kind, when profile_size > 0
    uint32_t profile_size;
    // World-level state: `state_bytes` zeroed bytes at w->state[id] from creation to destruction,
    // or, with 0, a pointer the behavior manages itself (NULL at creation).
    size_t state_bytes;
    cs_behavior_pass passes[CS_BEHAVIOR_MAX_PASSES]; // run == NULL ends the list
    cs_neighbor_use neighbor[CS_NB_COUNT];           // its queries of the neighbor pass

    // Settings that are part of crowd_agent_def (the goal), handled with the agent's own: checked
    // by crowd_agent_add (in table order, after the core's checks), reserved before the agent
    // exists (may fail, changing nothing), stored on the new agent (cannot fail) and read back by
    // crowd_agent_get_def.
    crowd_status (*check_def)(const crowd_agent_def* def);
    crowd_status (*add_reserve)(crowd_world* w, const crowd_agent_def* def);
    void (*add)(crowd_world* w, uint32_t idx, int slot, const crowd_agent_def* def);
    void (*get_def)(const crowd_world* w, uint32_t idx, crowd_agent_def* out);

    // crowd_world_reserve(w, agents): room so that `agents` agents can use the behavior without
    // allocating. May fail; the world must then be as it was.
    crowd_status (*reserve)(crowd_world* w, int agents);
    // The agent `idx` leaves the world: release its records and undo its links. Cannot fail and
    // allocates nothing: whatever a removal could need was reserved when the behavior was set.
    // Runs while the agent is still in storage, before any later entry's hook.
    void (*on_remove)(crowd_world* w, uint32_t idx);
    // The world gets its first obstacle: count every use the behavior's agents make of a
    // destination (cs_nav_reserve, then cs_nav_ref). May fail; src/nav/ then forgets every count.
    crowd_status (*count_routes)(crowd_world* w);
    // The route (crowd/nav.h) of live agent `idx` in `slot` toward what the behavior heads it for;
    // false when it heads it for nothing. crowd_agent_get_route asks the entries in table order.
    bool (*route)(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out);
    // Its say in agent idx's separation form (`flags`: the agent's flags); NULL: none.
    cs_sep_form (*sep_form)(const crowd_world* w, uint32_t idx, uint32_t flags);
    // Whether agent idx brakes for the one ahead (CS_FLAG_HEADWAY, set when any entry says so);
    // NULL: never.
    bool (*headway)(const crowd_world* w, uint32_t idx, uint32_t flags);
    // Writes its part of crowd_agent_def_default() (NULL: the def has no field of its own).
    void (*def_default)(crowd_agent_def* def);

    // ---- a world split across processes (src/dist/, core/dist_hooks.h) ----
    // The agent in sorted slot s is read by the next step's passes on every process whatever the
    // distance (a leader read by its followers): the process that stores it sends it to all.
    bool (*dist_linked)(const crowd_world* w, int s);
    // On a process that does not store agent idx (put there for the call), the part of its
    // removal that changes replicated records, as the owner's removal changes them.
    void (*dist_unlink)(crowd_world* w, uint32_t idx);
    // Agent idx may be removed inside a step (an arrival policy), which changes the replicated
    // records on its owner only.
    bool (*removes_in_step)(const crowd_world* w, uint32_t idx);
    // What agent idx counts in navigation (crowd/nav.h: destinations, exit sets), as
    // `route_use_bytes` bytes at `out` (all zero: nothing), kept by every process whether it
    // stores the agent or not; and ending those uses on a process that does not store the agent,
    // as its removal ends them on its owner. The bytes of every entry fit in cs_dist_routes.
    uint32_t route_use_bytes;
    void (*route_uses)(const crowd_world* w, uint32_t idx, void* out);
    void (*route_uses_end)(crowd_world* w, const void* in);
    // When the first obstacle starts the counting, count_routes counts the agents a process
    // stores: on a process that does not store agent idx, count what count_routes counted for it
    // on its owner (NULL: the behavior counts from records every process holds). May fail (out of
    // memory reserving a destination).
    crowd_status (*route_uses_begin)(crowd_world* w, const void* in);
    // Whether an agent's removal may end a use that every process counts although the world
    // counts no route yet (NULL: none): then a split world keeps every agent's route uses.
    bool (*route_uses_held)(const crowd_world* w);

    // After a snapshot load, with every section in: whether what the behavior derives from the
    // agents' behaviors (flags it keeps) is what the snapshot holds (false: refused as corrupt).
    bool (*loaded)(crowd_world* w);
    // Adds the behavior's state of live agent `idx` (record kinds it owns) to the state hash h.
    uint64_t (*hash)(const crowd_world* w, uint32_t idx, uint64_t h);
    // Frees what its records and state own besides the pools and the state block, which the
    // world frees itself.
    void (*destroy)(crowd_world* w);
    // Its snapshot section, or NULL when its state is saved elsewhere.
    const struct cs_snap_section* snapshot;
} cs_behavior;

extern const cs_behavior cs_behaviors[];

#endif
