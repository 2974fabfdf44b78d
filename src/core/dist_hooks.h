// What a world split across processes (src/dist/) needs from the core, in one place: an agent's
// whole state packed into bytes and put back into another world at the same agent index, the
// storage of an agent taken out while its handle stays issued, and the handle half of a removal.
//
// A split world keeps the same handle table on every process (generations, free list): a handle
// names the same agent everywhere, but only the process that owns the agent stores it, plus copies
// (ghosts) of the agents near its region during a step. These functions move storage only; they
// run no behavior hook, so links between agents are not touched.
#ifndef CS_DIST_HOOKS_H
#define CS_DIST_HOOKS_H

#include "core/internal.h"

// The record kinds every process keeps for every agent, stored there or not (the behavior table's
// replicated records: the follow graph spans the world, so every process holds all of it and
// applies every change to it in the same order); packed agents carry the other kinds only.
uint32_t cs_dist_replicated(void);

// A ghost: a copy of an agent another process owns, held for one step so that the owner's
// neighbors see it. The arrival phase skips ghosts (their owner applies their arrivals).
#define CS_FLAG_GHOST (1u << 31)

// Bytes of agent idx's packed state (idx stored here).
size_t cs_dist_packed_size(const crowd_world* w, uint32_t idx);

// Packs agent idx (stored here) into out (cs_dist_packed_size bytes): its index, every sorted
// column, radius, user data and one record of each kind it has, as the behavior table sizes them.
void cs_dist_pack(const crowd_world* w, uint32_t idx, unsigned char* out);

// The agent index and the bytes of the packed agent at `in`.
uint32_t cs_dist_packed_index(const unsigned char* in);
size_t cs_dist_packed_bytes(const crowd_world* w, const unsigned char* in);

// Makes room for the `n` packed agents at `in` (back to back) to be put without failing.
crowd_status cs_dist_reserve(crowd_world* w, const unsigned char* in, int n);

// Stores the packed agent at `in` in the next slot, at its own index (not stored here; its handle
// is issued), with `flags_or` added to its flags. Room was reserved.
void cs_dist_put(crowd_world* w, const unsigned char* in, uint32_t flags_or);

// Takes agent idx's storage out (its records released, its slot freed); its handle stays issued.
void cs_dist_drop(crowd_world* w, uint32_t idx);

// The handle half of a removal of an agent whose handle had `generation`: the generation moves on
// and the index goes on the free list (or is retired), as cs_agent_remove_now does.
void cs_dist_free_handle(crowd_world* w, uint32_t idx, uint16_t generation);

// The free list's length, and cutting it back to an earlier length.
int cs_dist_free_count(const crowd_world* w);
void cs_dist_free_truncate(crowd_world* w, int count);

// The farthest any stored agent's neighbor query reaches from it (separation disc, forward cone,
// the one ahead in a file, the headway), read through the behaviors' neighbor subscriptions: a
// bound of the box the neighbor pass queries around each agent.
float cs_dist_reach(const crowd_world* w);

// Agent idx has a replicated record (it follows, or leads or is named a fallback).
bool cs_dist_has_links(const crowd_world* w, uint32_t idx);

// The agent in sorted slot s is read by the next step's passes on every process (the behaviors'
// dist_linked hooks: a leader with followers, a slot follower whose slots are reassigned).
bool cs_dist_linked(const crowd_world* w, int s);

// The replicated part of agent idx's removal (stored here for the call, its handle still issued),
// on a process that does not own it, as the owner's removal leaves it (the dist_unlink hooks).
void cs_dist_unlink(crowd_world* w, uint32_t idx);

// Some agent with a replicated record may be removed inside a step (the removes_in_step hooks),
// which changes the replicated records on the owner only.
bool cs_dist_links_removed_in_step(const crowd_world* w);

// The split world's per-index liveness (crowd_world's split_live), NULL to clear it.
void cs_dist_set_live(crowd_world* w, const uint8_t* live);

// A split world's obstacle add, in two halves (src/walls/walls_api.c): the input checks of
// crowd_obstacle_add and whether the obstacle covers an agent stored here (*covered; false when a
// check fails, whose status is returned); then the add itself with `covered` the answer over
// every process, in place of the test of the agents stored here.
crowd_status cs_dist_obstacle_covers(crowd_world* w, crowd_obstacle_kind kind,
                                     const crowd_vec2* points, int count, bool* covered);
crowd_status cs_dist_obstacle_add(crowd_world* w, crowd_obstacle_kind kind,
                                  const crowd_vec2* points, int count, bool covered,
                                  crowd_obstacle_id* out);

// Gives the world another tag (the tag every process of a split world shares). The handles of
// world objects an agent holds (a goal's exit set, a follower's path) are kept without a tag in
// their profiles and read back with the world's, so they follow.
void cs_dist_set_tag(crowd_world* w, uint16_t tag);
uint16_t cs_dist_tag(const crowd_world* w);

// ---- navigation (crowd/nav.h) -------------------------------------------------------------------
//
// Every process counts every agent's uses of destinations and exit sets, stored there or not, as
// one process holding the whole world does: each holds the whole world's destinations in use (and
// builds their fields), so a budget check or an exit set's users give the same answer everywhere
// and a call they refuse is refused on every process alike. The counts start whole (every process
// holds every agent at the split, and every process adds every agent); moving storage changes no
// count (cs_dist_put, cs_dist_drop); a removal ends the agent's uses on its owner through the
// behaviors' hooks and on every other process from cs_dist_routes, kept per agent.

// What an agent counts: the behaviors' route_uses, one after the other in table order.
#define CS_DIST_ROUTE_BYTES 48
typedef struct cs_dist_routes {
    _Alignas(8) unsigned char use[CS_DIST_ROUTE_BYTES];
} cs_dist_routes;

// Whether an agent's removal can end anything it counts: in a world that counts routes (navigation
// on and an obstacle: its routed goals and waypoint legs count their destinations), has an exit set
// (goals that name one are its users) or has routed path followers (each path counts its followers,
// counting routes or not: route_uses_held). In any other world an agent added counts nothing (and
// no call of a split world makes a path follower), and it keeps no routes until the counting may
// start (an obstacle added with navigation on: cs_dist_routes_may_start) or its first exit set.
// When the counting starts, every process counts its own agents (count_routes) and then, from the
// routes their owners send, the others' (cs_dist_routes_begin).
bool cs_dist_routes_needed(const crowd_world* w);
bool cs_dist_routes_may_start(const crowd_world* w);
// Whether the world counts routes now (navigation on and an obstacle).
bool cs_dist_routes_counting(const crowd_world* w);

// Agent idx's (stored here).
cs_dist_routes cs_dist_routes_of(const crowd_world* w, uint32_t idx);

// Ends the uses `r` counted, on a process that does not store the agent, as the agent's removal
// ends them on its owner.
void cs_dist_routes_end(crowd_world* w, const cs_dist_routes* r);

// Counts the uses `r` holds, on a process that does not store the agent, as the start of the
// counting (the first obstacle) counted them on its owner. May fail (out of memory).
crowd_status cs_dist_routes_begin(crowd_world* w, const cs_dist_routes* r);

// Takes back exit set `id`, just made here, when another process could not make it: its slot is
// left as it was before (free, at the same generation; unissued again when it was new).
void cs_dist_exits_take_back(crowd_world* w, crowd_exits_id id);

#endif
