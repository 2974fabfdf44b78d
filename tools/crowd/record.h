// Recordings: a compact binary log of a run that `crowd view` turns into an HTML replay.
//
// Layout (little-endian, every chunk 4-byte aligned):
//
//   "CROWDREC"  u32 version (3)  u32 flags (0)
//   chunks: u32 tag, u32 size (payload bytes, a multiple of 4), payload
//     META  f32 dt, u32 record_every, u32 world_tag, u32 name_len, name (padded)
//     PATH  u32 uses (bit 0 waypoints, bit 1 tube), f32 tube_radius, u32 count, f32 xy[2 count]
//     GOAL  u32 agent_kind, f32 x, f32 y, f32 radius        (goal and queue targets, and each
//           point of the exit sets goals name)
//     AREA  u32 shape (0 rectangle, 1 circle), f32 a, b, c, d (queue respawn areas)
//     OBST  u32 kind (crowd_obstacle_kind), u32 count, f32 xy[2 count] (the world's obstacles
//           when the recording starts, in handle order)
//     HNDL  u32 count, u32 index1[count], u16 generation[count], u8 agent_kind[count],
//           u16 radius_mm[count] (each array padded to 4 bytes); the handle table of the frames
//           that follow, written again when the agents, their kinds or their radii change
//     FRAM  u32 tick_lo, u32 tick_hi, u32 count, f32 min_x, min_y, max_x, max_y,
//           u16 qx[count], u16 qy[count], u8 heading[count] (each array padded to 4 bytes)
//     FELD  f32 x0, f32 y0, f32 step, u32 cols, u32 rows, u32 label_len, label (padded),
//           f32 distance[n], u8 state[n], u8 angle[n] (n = cols * rows, each u8 array padded):
//           one navigation field sampled at the points (x0 + i step, y0 + j step), row j = 0
//           first; per sample the walking distance to the destination (-1: none), the route
//           state (crowd_route_state) and the direction to where an agent there steers (8 bits
//           of angle, as headings). Written only when asked (crowd run --field).
//     END   u32 frame_count, u32 0, u64 checksum
//
// Positions are quantized to 16 bits per axis inside each frame's bounding box (error at most
// extent / 131070, 3 mm across a 400 m plaza); headings to 8 bits of angle (1.4 degrees).
// Agent i of a frame is entry i of the latest HNDL. Radii are in millimetres (at most 65.535 m).
// The checksum is FNV-1a (64 bit) over every byte of the file before the checksum field.
//
// Version 1 had no OBST chunk and no radius_mm array in HNDL; the reader still reads it (its
// tables have radius_mm NULL). Version 2 had no FELD chunk; it reads as it is. Chunks of unknown
// tags are skipped.
#ifndef CROWD_CLI_RECORD_H
#define CROWD_CLI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "build.h"

#define REC_MAGIC "CROWDREC"
#define REC_VERSION 3u
#define REC_VERSION_OLDEST 1u

uint64_t rec_checksum(const uint8_t* data, size_t len);

// ---- writing ----------------------------------------------------------------------------------

typedef struct rec_writer {
    uint8_t* buf;
    size_t len, cap;
    bool failed; // out of memory at some point
    int frames;
    // The agents of the last frame and their table, to write HNDL only when it changes.
    crowd_agent_id* ids;
    crowd_vec2* pos;
    uint8_t* kinds;
    uint8_t* prev_kinds;
    uint16_t* radius_mm;
    uint16_t* prev_radius_mm;
    crowd_agent_id* prev_ids;
    int prev_count, cap_agents;
} rec_writer;

// Starts a recording of `b` (header, META, the scenario's paths, goals and areas, and the world's
// obstacles).
bool rec_begin(rec_writer* w, const built_world* b, int record_every);
// ---- the navigation field (record_field.c) ----------------------------------------------------

#define REC_FIELD_MAX_SAMPLES (1 << 20)

// Which field to record: toward a point, or toward one of the scenario's exit sets.
typedef struct rec_field_spec {
    int exits;        // index into scenario.exits, or -1: toward `point`
    crowd_vec2 point; // exits < 0
    float step;       // metres between samples; 0: the nav cell size, or coarser so that the
                      // long side has at most a few hundred samples
    char label[128];  // shown by the replay ("goal [8, 0]", "exits doors")
} rec_field_spec;

// The field `crowd run --field auto` records: the first crowd's routed goal (a point or an exit
// set), else the first routed queue's target, else the first point of the first routed waypoint
// path. False when the scenario has none of these.
bool rec_field_auto(const scenario* sc, rec_field_spec* out);
// Samples the field over the obstacles, the agents, the goals and the paths, with a margin, and
// appends it as a FELD chunk. The run's world is only read. False with a message ("--field: ...")
// when the field cannot be built or sampled.
bool rec_field(rec_writer* w, const built_world* b, const rec_field_spec* spec, char* err,
               size_t errlen);
// Appends a FELD chunk (record_write.c).
bool rec_put_field(rec_writer* w, float x0, float y0, float step, int cols, int rows,
                   const char* label, const float* distance, const uint8_t* state,
                   const uint8_t* angle);

// Appends the world's current state as a frame.
bool rec_frame(rec_writer* w, const built_world* b);
// Appends END; the complete recording is then w->buf[0, w->len).
bool rec_end(rec_writer* w);
// rec_end, then writes the whole recording to f; false on a write error.
bool rec_finish(rec_writer* w, FILE* f);
void rec_writer_free(rec_writer* w);

// ---- reading ----------------------------------------------------------------------------------

typedef struct rec_path {
    uint32_t uses;
    float tube_radius;
    int count;
    const float* xy;
} rec_path;

typedef struct rec_goal {
    uint32_t kind;
    float x, y, radius;
} rec_goal;

typedef struct rec_area {
    uint32_t shape;
    float v[4];
} rec_area;

typedef struct rec_obstacle {
    uint32_t kind; // crowd_obstacle_kind
    int count;
    const float* xy;
} rec_obstacle;

typedef struct rec_field_view {
    float x0, y0, step;
    int cols, rows;
    char* label;
    const float* distance; // cols * rows, row by row from y0 up
    const uint8_t* state;  // crowd_route_state
    const uint8_t* angle;  // 256 steps of a turn, as headings
} rec_field_view;

typedef struct rec_table {
    int count;
    const uint32_t* index1;
    const uint16_t* generation;
    const uint8_t* kind;
    const uint16_t* radius_mm; // NULL in a version 1 recording
} rec_table;

typedef struct rec_frame_view {
    uint64_t tick;
    int count;
    int table; // index into recording.tables
    float min_x, min_y, max_x, max_y;
    const uint16_t* qx;
    const uint16_t* qy;
    const uint8_t* heading;
} rec_frame_view;

typedef struct recording {
    uint8_t* data; // the whole file; the views below point into it
    size_t size;
    uint32_t version;
    float dt;
    int record_every;
    uint32_t world_tag;
    char* name;
    rec_path* paths;
    int path_count;
    rec_goal* goals;
    int goal_count;
    rec_area* areas;
    int area_count;
    rec_obstacle* obstacles;
    int obstacle_count;
    rec_field_view* fields;
    int field_count;
    rec_table* tables;
    int table_count;
    rec_frame_view* frames;
    int frame_count;
} recording;

// Reads and checks a recording (magic, version, structure, checksum). On failure returns false
// with "file: reason" in err.
bool rec_read(const char* file, recording* out, char* err, size_t errlen);
// The same over bytes in memory; takes ownership of `data` (malloc'd) in every case.
bool rec_parse(uint8_t* data, size_t size, const char* name, recording* out, char* err,
               size_t errlen);
void rec_free(recording* r);

// Decoded position and heading (radians) of agent i of frame f.
void rec_decode(const rec_frame_view* f, int i, float* x, float* y, float* heading);

#endif
