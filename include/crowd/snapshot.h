// crowdstep: saving a world to bytes and loading it back.
//
// A snapshot holds everything a world needs to continue bit-identically: its settings (the
// navigation def among them), every live agent in its current storage order with all parameters
// and state, every handle generation and the free list (so saved handles stay valid and stale ones
// stay stale in the loaded world), the tick count, and the behaviors' state: queues, paths (with
// their handle generations) and path cursors, follow-leader groups and formations, the obstacles
// (with their handle generations), the agents' wall defs, the exit sets (with their handle
// generations) and each goal's and path follower's route. The format is versioned and
// little-endian, with a magic number, a section table and a CRC-64 checksum; see
// src/snapshot/snapshot.c for the layout.
//
// Navigation fields (crowd/nav.h) are not saved: they follow from the obstacles, the navigation
// def and the destinations in use, so the loaded world counts the destinations its goals and paths
// use as it loads them and builds their fields again in its first step (or in
// crowd_world_nav_update), as it would after the obstacles changed. That first step takes longer
// than the saved world's next one would have; its result is the same, bit for bit.
#ifndef CROWD_SNAPSHOT_H
#define CROWD_SNAPSHOT_H

#include <stddef.h>

#include "crowd/base.h"
#include "crowd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

// The format version this build writes, and the oldest it reads. Version 4 added the obstacles and
// the agents' wall defs; a version 3 snapshot loads as a world without obstacles, every agent with
// crowd_wall_def_default(). Version 5 added navigation (the navigation def, the exit sets, each
// goal's route and exit set, each path follower's route): a version 3 or 4 snapshot loads with
// crowd_nav_def_default() but navigation off (crowd_nav_def.enable false), no exit sets, and every
// goal and path follower with the default route, so its agents go on heading straight, as they did
// when it was saved, and its state hash is the one the older build gave. Version 6 added the
// navigation fields a whole build would not give again (fields repaired after obstacle changes,
// and every field built when a repair is pending, with the grid they belong to): a version 5
// snapshot has none, and its fields are built whole as before. Version 7 added each goal's form
// (crowd_goal_form) and the pedestrian goals' aims: an older snapshot's goals load with
// CROWD_GOAL_FORM_LITERAL, the only form there was, so they go on walking as they did.
#define CROWD_SNAPSHOT_VERSION 7
#define CROWD_SNAPSHOT_MIN_VERSION 3

// Receives the snapshot in pieces, in order; returns false to abort the save.
typedef bool crowd_write_fn(const void* data, size_t size, void* user);

// Bytes crowd_world_save needs for the world as it is now (0 for NULL).
CROWD_API size_t crowd_world_save_size(const crowd_world* world);

// Writes the snapshot into buffer[0, capacity) and its length to *size. When capacity is too
// small nothing is written, *size is set to the length needed and CROWD_ERR_BUFFER_TOO_SMALL is
// returned (buffer may be NULL then: a size query).
CROWD_API crowd_status crowd_world_save(const crowd_world* world, void* buffer, size_t capacity,
                                        size_t* size);

// Writes the snapshot through `write` (in pieces of at most a few KiB). A false return stops the
// save with CROWD_ERR_WRITE_FAILED; the bytes written until then are not a valid snapshot.
CROWD_API crowd_status crowd_world_save_stream(const crowd_world* world, crowd_write_fn* write,
                                               void* user);

typedef struct crowd_load_def {
    crowd_alloc_fn* alloc; // allocator hooks of the new world; NULL = the C library's
    crowd_free_fn* free;
    void* alloc_user;
    int threads;      // thread count of the new world; < 0 = the saved world's (default -1)
    int max_capacity; // agent capacity beyond which CROWD_ERR_SNAPSHOT_TOO_LARGE is returned
                      // instead of allocating (default 1 << 24); lower it for untrusted input
    // Navigation cells beyond which CROWD_ERR_SNAPSHOT_TOO_LARGE is returned: the cells of the
    // grid its obstacles need (when within the world's own crowd_nav_def.max_cells, so that its
    // steps lay it) times one plus its destinations in use (a field of as many cells each, which
    // its first step builds by a search over the grid). Such a world is refused rather than loaded
    // into a step that allocates and searches that much. Default INT64_MAX (the world's own limits
    // only); >= 0 (else CROWD_ERR_BAD_COUNT), lower it for untrusted input.
    int64_t max_nav_cells;
} crowd_load_def;

CROWD_API crowd_load_def crowd_load_def_default(void);

// Creates a world from a snapshot (def may be NULL for the defaults). Any damage to the input,
// including a single flipped bit, returns a CROWD_ERR_SNAPSHOT_* status; on any failure *out is
// set to NULL and nothing stays allocated.
CROWD_API crowd_status crowd_world_load(const void* data, size_t size, const crowd_load_def* def,
                                        crowd_world** out);

#ifdef __cplusplus
}
#endif

#endif
