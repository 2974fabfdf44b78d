// Scenario files: the validated, in-memory form of a scenario JSON document.
//
// The schema is documented in tools/scenarios/README.md. Every value here has already passed
// validation: ranges hold, references resolve, and keys that do not apply were rejected.
#ifndef CROWD_CLI_SCENARIO_H
#define CROWD_CLI_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crowd/crowd.h"
#include "json_index.h"

// A per-agent parameter: a constant (lo == hi) or a uniform draw in [lo, hi].
typedef struct sc_range {
    float lo, hi;
} sc_range;

typedef enum sc_area_kind {
    SC_AREA_UNIFORM,       // uniform random in the rectangle [min, max]
    SC_AREA_GRID,          // rows of `columns` agents `spacing` apart, centred on `center`
    SC_AREA_JITTERED_GRID, // the grid, each agent moved by up to jitter * spacing per axis
    SC_AREA_CIRCLE,        // uniform random in the disc (center, radius)
    SC_AREA_KIND_COUNT
} sc_area_kind;

typedef struct sc_area {
    sc_area_kind kind;
    crowd_vec2 min, max; // uniform
    crowd_vec2 center;   // grid, jittered grid, circle
    float spacing;       // grid, jittered grid
    int columns;         // grid, jittered grid; 0 = ceil(sqrt(count))
    float jitter;        // jittered grid, fraction of spacing in [0, 0.5]
    float radius;        // circle
} sc_area;

typedef struct sc_agent {
    sc_range radius, max_speed, max_force, separation_radius, separation_weight;
    sc_range wall_weight, wall_look_ahead; // crowd_wall_def
    // max_speed given as a distribution (crowd/speed.h): each agent's is a keyed draw from it
    // (the world's seed, the crowd's index and the agent's number in it), not from max_speed.
    bool has_speed_dist;
    crowd_speed_dist speed_dist;
    bool has_heading;
    crowd_vec2 heading; // unit length
    crowd_vec2 velocity;
    float random_speed; // > 0: velocity of this speed in a random direction (velocity unused)
} sc_agent;

typedef struct sc_goal {
    crowd_goal_mode mode; // seek, arrive, flee or arrive_literal
    crowd_vec2 target;    // unused when exits >= 0
    int exits;            // index into scenario.exits, or -1: the goal is target
    crowd_route route;    // field (around walls, the default) or straight; flee: not used
    float slow_radius, weight;
    crowd_goal_form form; // pedestrian (the default) or literal (the spec's goal)
} sc_goal;

typedef enum sc_arrival {
    SC_ARRIVAL_STOP,    // stay at the target (arrive settles there)
    SC_ARRIVAL_REMOVE,  // leave the world
    SC_ARRIVAL_RESPAWN, // reappear at a random point of start_area
    SC_ARRIVAL_COUNT
} sc_arrival;

typedef struct sc_queue {
    crowd_goal_mode mode; // seek or arrive toward target
    crowd_vec2 target;
    crowd_route route; // how the agents head for the target (or the agent ahead)
    float slow_radius, weight;
    float cone_length, cone_width; // the frontal cone that brakes the agent
    float arrive_radius;           // distance to target that counts as arrived
    sc_arrival on_arrival;
    bool has_start_area;
    sc_area start_area; // uniform or circle; only with SC_ARRIVAL_RESPAWN
} sc_queue;

typedef struct sc_path {
    char* name;
    crowd_vec2* points;
    int count; // >= 2
    json_pos pos;
} sc_path;

// A named exit set: goals that name it head for its nearest point by walking distance.
typedef struct sc_exits {
    char* name;
    crowd_vec2* points;
    int count; // in [1, CROWD_EXITS_MAX_POINTS]
    json_pos pos;
} sc_exits;

// A wall (open polyline) or a solid polygon, added to the world before any agent.
typedef struct sc_obstacle {
    char* name; // may be NULL
    crowd_obstacle_kind kind;
    crowd_vec2* points;
    int count; // >= 2 for a wall, >= 3 for a polygon; no two consecutive points equal
    json_pos pos;
} sc_obstacle;

typedef enum sc_path_kind { SC_PATH_WAYPOINTS, SC_PATH_TUBE, SC_PATH_KIND_COUNT } sc_path_kind;
typedef enum sc_path_mode {
    SC_PATH_ONE_SHOT,
    SC_PATH_LOOP,
    SC_PATH_PING_PONG,
    SC_PATH_MODE_COUNT
} sc_path_mode;

typedef struct sc_path_follow {
    int path; // index into scenario.paths
    sc_path_kind kind;
    sc_path_mode mode;
    float arrive_radius, slow_radius; // waypoints
    crowd_route route;                // waypoints: each leg around walls or straight
    float tube_radius, predict_ahead; // tube
    float weight;
} sc_path_follow;

typedef enum sc_formation {
    SC_FORMATION_NONE, // every follower arrives at the one point behind the leader
    SC_FORMATION_COLUMN,
    SC_FORMATION_LINE,
    SC_FORMATION_WEDGE,
    SC_FORMATION_BLOCK,
    SC_FORMATION_CIRCLE,
    SC_FORMATION_CUSTOM,
    SC_FORMATION_COUNT
} sc_formation;

// Followers of each agent of a crowd, which makes that crowd's agents leaders.
typedef struct sc_followers {
    int count; // per leader
    sc_agent agent;
    sc_formation formation;
    float spacing;       // between formation slots (not custom)
    crowd_vec2* offsets; // custom: slot offsets in the leader's frame (x forward, y left)
    int offset_count;
    float behind_distance, ahead_distance, ahead_radius, slow_radius;
    float evade_weight, separation_weight, weight;
} sc_followers;

typedef struct sc_crowd {
    char* name; // may be NULL
    int count;
    sc_area area;
    sc_agent agent;
    bool has_goal, has_queue, has_path, has_followers;
    sc_goal goal;
    sc_queue queue;
    sc_path_follow path;
    sc_followers followers;
    json_pos pos, queue_pos, path_pos, followers_pos; // where each section starts in the file
} sc_crowd;

typedef struct scenario {
    char* file; // as given on the command line
    char* name;
    char* description;
    float dt, cell_size;
    uint64_t seed;
    int ticks;         // default length of `crowd run`
    int record_every;  // default recording interval in ticks
    crowd_nav_def nav; // the world's navigation grid (world.nav; the library's defaults)
    sc_path* paths;
    int path_count;
    sc_exits* exits;
    int exits_count;
    sc_obstacle* obstacles;
    int obstacle_count;
    sc_crowd* crowds;
    int crowd_count;
} scenario;

// Parses and validates `text` (the contents of `file`). On failure returns false and writes
// one line "file:line:col: message" (or "file: message") into err.
bool scenario_parse(const char* file, const char* text, size_t len, scenario* out, char* err,
                    size_t errlen);

// Reads `file` and parses it; a file that cannot be read is reported as "file: reason".
bool scenario_load(const char* file, scenario* out, char* err, size_t errlen);

void scenario_free(scenario* sc);

// Names used in the schema, for messages and the recording legend.
const char* sc_area_kind_name(sc_area_kind k);
const char* sc_formation_name(sc_formation f);
const char* sc_path_kind_name(sc_path_kind k);
const char* sc_path_mode_name(sc_path_mode m);
const char* sc_arrival_name(sc_arrival a);
const char* sc_obstacle_kind_name(crowd_obstacle_kind k);

#endif
