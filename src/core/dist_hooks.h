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
// the one ahead in a file), read through the behaviors' neighbor subscriptions: a bound of the box
// the neighbor pass queries around each agent.
float cs_dist_reach(const crowd_world* w);

// Gives the world another tag (the tag every process of a split world shares).
void cs_dist_set_tag(crowd_world* w, uint16_t tag);
uint16_t cs_dist_tag(const crowd_world* w);

#endif
