// Snapshot internals: the byte writer and reader every section uses, and the section table.
//
// A behavior that keeps state of its own (paths, cursors, queues, leaders, random generators)
// adds one section: a cs_snap_section with an id, a size function, a save function and a load
// function, named by its entry in the behavior table (behaviors/registry.c), bumps
// CROWD_SNAPSHOT_VERSION and sets the section's `since` to the new version: a snapshot of an
// older version (down to CROWD_SNAPSHOT_MIN_VERSION) has no such section and still loads, the
// behavior's state then being what a world without it holds. A section whose records grew in a
// version reads the file's version from its reader (cs_snap_reader.version) and the older layout
// for older files; save always writes the current one.
//  - size(w) returns the exact payload length save(w, out) writes.
//  - load(w, in) runs on a world that already holds every agent (the core sections come first,
//    sections load in table order) and must read exactly its payload, validate every value it
//    reads (a snapshot is untrusted input: indices in range, floats finite, counts consistent
//    with the payload length, state present for every agent whose flags need it) and return
//    CROWD_ERR_SNAPSHOT_CORRUPT for anything a live world could not hold. On any error the loader
//    destroys the half-built world, so load need not undo its writes; whatever it allocates must
//    be reachable from the world so crowd_world_destroy frees it.
//  - After a successful load, save must reproduce the payload byte for byte (the fuzz target
//    checks this): store values in a canonical form and reject any other form on load.
#ifndef CS_SNAPSHOT_INTERNAL_H
#define CS_SNAPSHOT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

#define CS_SNAP_ID(a, b, c, d)                                                                     \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

// ---- CRC-64/XZ (ECMA-182 polynomial, reflected, initial value and final xor all ones) -----------
typedef struct cs_crc64_table {
    uint64_t table[256];
} cs_crc64_table;

void cs_crc64_init(cs_crc64_table* c);
uint64_t cs_crc64_update(const cs_crc64_table* c, uint64_t state, const void* data, size_t size);
// Whole-buffer convenience: cs_crc64("123456789", 9) == 0x995dc9bbdf1939fa.
uint64_t cs_crc64(const void* data, size_t size);

// ---- writer: little-endian values into a caller buffer or a write callback ----------------------
typedef struct cs_snap_writer {
    uint8_t stage[4096];
    size_t staged;
    const cs_crc64_table* crc;
    uint64_t crc_state;
    crowd_write_fn* write; // stream mode, with its user pointer, or
    void* user;
    uint8_t* dst; // buffer mode: the next byte of the caller's buffer
    size_t dst_left;
    uint64_t written;
    bool failed;
} cs_snap_writer;

void cs_snap_put_bytes(cs_snap_writer* w, const void* data, size_t size);
void cs_snap_put_u16(cs_snap_writer* w, uint16_t v);
void cs_snap_put_u32(cs_snap_writer* w, uint32_t v);
void cs_snap_put_u64(cs_snap_writer* w, uint64_t v);
void cs_snap_put_f32(cs_snap_writer* w, float v);

// ---- reader: bounds-checked little-endian values from one section's payload --------------------
// Reading past the end returns zeros and sets `bad`; the loader treats a bad reader, or one with
// bytes left after the section's load function, as a corrupt section. `version` is the file's
// format version, for the sections whose layout changed with it.
typedef struct cs_snap_reader {
    const uint8_t* p;
    size_t left;
    bool bad;
    uint32_t version;
    // The load's bound on the agents' storage (crowd_load_def.max_capacity; 0: none), which the
    // sections whose counts size storage check.
    int64_t max_capacity;
} cs_snap_reader;

uint16_t cs_snap_get_u16(cs_snap_reader* r);
uint32_t cs_snap_get_u32(cs_snap_reader* r);
uint64_t cs_snap_get_u64(cs_snap_reader* r);
float cs_snap_get_f32(cs_snap_reader* r);

// ---- sections -----------------------------------------------------------------------------------
typedef struct cs_snap_section {
    uint32_t id; // CS_SNAP_ID of four ASCII characters
    uint64_t (*size)(const crowd_world* w);
    void (*save)(const crowd_world* w, cs_snap_writer* out);
    crowd_status (*load)(crowd_world* w, cs_snap_reader* in);
    uint32_t since; // the first format version with this section (0: every version)
} cs_snap_section;

// Every section of format `version` after the world settings, in file order: the core's
// (snapshot_sections.c, each with its own `since`), then each behavior's, in behavior table order.
int cs_snap_section_count(uint32_t version);
const cs_snap_section* cs_snap_section_at(uint32_t version, int k);

// The world settings section, which comes first and creates the world (snapshot_core.c): 60 bytes
// since version 5 (the navigation def), 32 before.
#define CS_SNAP_WORLD CS_SNAP_ID('W', 'R', 'L', 'D')
#define CS_SNAP_WORLD_SIZE 60u
void cs_snap_save_world(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_world(cs_snap_reader* in, const crowd_load_def* def, crowd_world** out);

// Core sections (snapshot_core.c).
uint64_t cs_snap_index_size(const crowd_world* w);
void cs_snap_save_index(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_index(crowd_world* w, cs_snap_reader* in);
// The exit sets (crowd/nav.h), since version 5: before the agents, whose goals name them.
uint64_t cs_snap_exits_size(const crowd_world* w);
void cs_snap_save_exits(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_exits(crowd_world* w, cs_snap_reader* in);
uint64_t cs_snap_agents_size(const crowd_world* w);
void cs_snap_save_agents(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_agents(crowd_world* w, cs_snap_reader* in);

// The navigation fields a whole build would not give again (snapshot_nav.c), since version 6.
uint64_t cs_snap_navf_size(const crowd_world* w);
void cs_snap_save_navf(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_navf(crowd_world* w, cs_snap_reader* in);
// Installs them, checked against the loaded world (from cs_snap_check_loaded).
crowd_status cs_snap_install_navf(crowd_world* w);

// The checks of a loaded world as a whole, after every section: the navigation its first step
// would lay and build against the load def's limit (snapshot_core.c).
crowd_status cs_snap_check_loaded(crowd_world* w, const crowd_load_def* def);

// The behaviors' sections, named by their table entries (behaviors/registry.c).

// The pedestrian goals' aims, since version 7 (behaviors/goal/goal_snapshot.c).
uint64_t cs_snap_goal_size(const crowd_world* w);
void cs_snap_save_goal(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_goal(crowd_world* w, cs_snap_reader* in);

// Queues and the world's random stream (behaviors/queue/queue_snapshot.c).
uint64_t cs_snap_queue_size(const crowd_world* w);
void cs_snap_save_queue(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_queue(crowd_world* w, cs_snap_reader* in);

// Paths and path followers (behaviors/path/path_snapshot.c).
uint64_t cs_snap_path_size(const crowd_world* w);
void cs_snap_save_path(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_path(crowd_world* w, cs_snap_reader* in);

// Obstacles and wall defs (behaviors/walls/walls_snapshot.c).
uint64_t cs_snap_walls_size(const crowd_world* w);
void cs_snap_save_walls(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_walls(crowd_world* w, cs_snap_reader* in);

// Follow-leader groups (behaviors/follow/follow_snapshot.c).
uint64_t cs_snap_follow_size(const crowd_world* w);
void cs_snap_save_follow(const crowd_world* w, cs_snap_writer* out);
crowd_status cs_snap_load_follow(crowd_world* w, cs_snap_reader* in);

#endif
