// The behaviors the world runs, named once: their agent flag bits, their record kinds, hot columns
// and parameter profile kinds, and their places in the behavior table (registry.c). The core
// includes this header and nothing else of the behaviors; it reaches them only through
// cs_behaviors[] (core/behavior.h).
#ifndef CS_REGISTRY_H
#define CS_REGISTRY_H

// Per-agent behavior bits, kept in the sorted `flags` column so passes can skip agents cheaply.
enum {
    CS_FLAG_GOAL = 1u << 0,   // has a seek / arrive / flee goal
    CS_FLAG_QUEUE = 1u << 1,  // brakes for agents in its forward cone
    CS_FLAG_FOLLOW = 1u << 2, // follows a leader (group separation in the neighbor pass)
    CS_FLAG_PATH = 1u << 3,   // follows a path
    CS_FLAG_LEADER = 1u << 4, // has followers (the leader pass caches its state per step)
    // Separates (its own separation and its group's) without the spec's velocity term
    // (crowd_steer_separation_push); derived from the other behaviors (behaviors/separation.h).
    CS_FLAG_SEP_PUSH = 1u << 5,
    CS_FLAG_QUEUE_CONE = 1u << 6, // queues in CROWD_QUEUE_LITERAL: the spec's forward cone
    CS_FLAG_QUEUE_FILE = 1u << 7, // queues in CROWD_QUEUE_FILE: the one ahead in the file
    // Walks at most the headway speed of the one ahead (a CROWD_GOAL_PEDESTRIAN goal that does
    // not queue); derived like CS_FLAG_SEP_PUSH (behaviors/separation.h).
    CS_FLAG_HEADWAY = 1u << 8,
};

// Record kinds: one pool of fixed-size records each, and one record number per agent index.
typedef enum cs_record_kind {

    CS_REC_QUEUE,    // cs_queue_rec (behaviors/queue)
    CS_REC_FOLLOWER, // cs_follower (behaviors/follow)
    CS_REC_LEADER,   // cs_leader (behaviors/follow)
    CS_REC_COUNT
} cs_record_kind;

// Hot columns: per-agent fields a behavior's passes read every tick, kept as 4-byte sorted columns
// that ride the sort with their agents (core/internal.h, cs_columns.hot). A column is allocated
// when its behavior first needs it (cs_world_hot_column) and gathered by the sort from then on.
typedef enum cs_hot_col {
    CS_HOT_GOAL_X, // the goal's target (behaviors/goal)
    CS_HOT_GOAL_Y,
    CS_HOT_GOAL_PROFILE, // its profile (CS_PROF_GOAL) + 1; 0: the default goal
    // A routed goal's memo of its field entry (cs_nav_memo), while the world counts routes.
    CS_HOT_GOAL_MEMO_CELL,
    CS_HOT_GOAL_MEMO_ENTRY,
    CS_HOT_GOAL_MEMO_EPOCH,
    // The unit direction a pedestrian goal (CROWD_GOAL_PEDESTRIAN) steered along in the last step
    // (0, 0: none): where its headway looks, and what it is compared with as someone else's one
    // ahead.
    CS_HOT_GOAL_AIM_X,
    CS_HOT_GOAL_AIM_Y,
    CS_HOT_QUEUE_PROFILE, // the queue's profile (CS_PROF_QUEUE) + 1; 0: not queueing
    CS_HOT_QUEUE_X,       // the queue's goal point (behaviors/queue): each agent its own
    CS_HOT_QUEUE_Y,
    // A path follower (behaviors/path): its profile (CS_PROF_PATH) + 1 (0: no path), its cursor
    // (the target or next point, the tube's segment hint, the state with the direction), the
    // revision of its path the cursor is synced to and, for a tube, where it last searched the
    // whole path while lost.
    CS_HOT_PATH_PROFILE,
    CS_HOT_PATH_INDEX,
    CS_HOT_PATH_SEGMENT,
    CS_HOT_PATH_STATE,
    CS_HOT_PATH_REVISION,
    CS_HOT_PATH_LOST,
    // A routed waypoint leg's memo of its field entry (cs_nav_memo), while the world counts routes.
    CS_HOT_PATH_MEMO_CELL,
    CS_HOT_PATH_MEMO_ENTRY,
    CS_HOT_PATH_MEMO_EPOCH,
    CS_HOT_WALL_PROFILE, // the agent's wall def (CS_PROF_WALL) + 1; 0: the default
    CS_HOT_COUNT
} cs_hot_col;

// Parameter profiles (core/profile.h): the settings many agents share, one table per kind.
typedef enum cs_profile_kind {
    CS_PROF_GOAL,  // cs_goal_profile (behaviors/goal)
    CS_PROF_QUEUE, // cs_queue_profile (behaviors/queue)
    CS_PROF_PATH,  // cs_path_profile (behaviors/path)
    CS_PROF_WALL,  // crowd_wall_def (behaviors/walls)
    CS_PROF_COUNT
} cs_profile_kind;

// Entries of cs_behaviors[], in table order: the order of the passes within a phase, of the
// removal hooks, of the state hash and of the snapshot sections.
typedef enum cs_behavior_id {
    CS_BEH_GOAL,
    CS_BEH_QUEUE,
    CS_BEH_PATH,
    CS_BEH_FOLLOW,
    CS_BEH_WALLS,
    CS_BEH_SEPARATION,
    CS_BEH_COUNT
} cs_behavior_id;

#endif
