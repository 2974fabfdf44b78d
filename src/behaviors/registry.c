// The behavior table: one entry per behavior (see core/behavior.h for what each field means).
// Adding a behavior is a folder under src/behaviors/, its flag and record kinds in registry.h and
// one entry here.
#include "behaviors/registry.h"

#include <stddef.h>

#include "behaviors/follow/follow_internal.h"
#include "behaviors/goal/goal_internal.h"
#include "behaviors/path/path_internal.h"
#include "behaviors/queue/queue_internal.h"
#include "behaviors/separation.h"
#include "behaviors/walls/walls_internal.h"
#include "core/behavior.h"
#include "core/dist_hooks.h"
#include "snapshot/snapshot_internal.h"

// What a split world keeps per agent of the uses counted in navigation: the goal's, then the
// path follower's (the route_use_bytes below, in table order).
_Static_assert(sizeof(crowd_goal) + sizeof(crowd_path_id) <= CS_DIST_ROUTE_BYTES,
               "route uses fit in cs_dist_routes");

static const cs_snap_section goal_section = {CS_SNAP_ID('G', 'O', 'A', 'L'), cs_snap_goal_size,
                                             cs_snap_save_goal, cs_snap_load_goal, 7};
static const cs_snap_section queue_section = {CS_SNAP_ID('Q', 'U', 'E', 'U'), cs_snap_queue_size,
                                              cs_snap_save_queue, cs_snap_load_queue, 0};
static const cs_snap_section path_section = {CS_SNAP_ID('P', 'A', 'T', 'H'), cs_snap_path_size,
                                             cs_snap_save_path, cs_snap_load_path, 0};
static const cs_snap_section walls_section = {CS_SNAP_ID('W', 'A', 'L', 'L'), cs_snap_walls_size,
                                              cs_snap_save_walls, cs_snap_load_walls, 4};
static const cs_snap_section follow_section = {CS_SNAP_ID('F', 'L', 'L', 'W'), cs_snap_follow_size,
                                               cs_snap_save_follow, cs_snap_load_follow, 0};

const cs_behavior cs_behaviors[CS_BEH_COUNT] =
    {
        [CS_BEH_GOAL] =
            {
                .name = "goal",
                .flags = CS_FLAG_GOAL | CS_FLAG_HEADWAY,
                // Hot: the target, the profile, while the world counts routes a routed goal's
                // field memo, and a pedestrian goal's aim (0 for every other agent, so the sort
                // gathers it only while some agent walks the pedestrian model). No records.
                .hot = {{CS_HOT_GOAL_X, 0, 0, 0},
                        {CS_HOT_GOAL_Y, 0, 0, 0},
                        {CS_HOT_GOAL_PROFILE, CS_PROF_GOAL + 1, CS_FLAG_GOAL, 0},
                        {CS_HOT_GOAL_MEMO_CELL, 0, 0, 0},
                        {CS_HOT_GOAL_MEMO_ENTRY, 0, 0, 0},
                        {CS_HOT_GOAL_MEMO_EPOCH, 0, 0, 0},
                        {CS_HOT_GOAL_AIM_X, 0, 0, CS_FLAG_HEADWAY},
                        {CS_HOT_GOAL_AIM_Y, 0, 0, CS_FLAG_HEADWAY}},
                .hot_count = 8,
                .profile_kind = CS_PROF_GOAL,
                .profile_size = sizeof(cs_goal_profile),
                .passes = {{CROWD_PHASE_GOAL, cs_pass_goal}},
                // The headway of a pedestrian goal (CROWD_GOAL_PEDESTRIAN): along its last aim
                // (hot columns; of unit length, or zero: none yet), its shape from the profile.
                // No record: it runs once some agent has a goal other than the default.
                .neighbor =
                    {
                        [CS_NB_HEADWAY] = {.flag = CS_FLAG_HEADWAY,
                                           .kind = -1,
                                           .profile = CS_PROF_GOAL + 1,
                                           .col = CS_HOT_GOAL_PROFILE,
                                           .in_col = {CS_HOT_GOAL_AIM_X + 1, CS_HOT_GOAL_AIM_Y + 1},
                                           .in = {0, 0, offsetof(cs_goal_profile, hw_len),
                                                  offsetof(cs_goal_profile, hw_width2)},
                                           .min_len = 0.5f,
                                           .align = CROWD_GOAL_HEADWAY_ALIGN},
                    },
                .sep_form = cs_goal_sep_form,
                .headway = cs_goal_headway,
                .check_def = cs_goal_check_def,
                .add_reserve = cs_goal_add_reserve,
                .add = cs_goal_add,
                .get_def = cs_goal_get_def,
                .reserve = cs_goal_world_reserve,
                .on_remove = cs_goal_on_remove,
                .hash = cs_goal_hash,
                .count_routes = cs_goal_count_routes,
                .route = cs_goal_route,
                .def_default = cs_goal_def_default,
                .route_use_bytes = sizeof(crowd_goal),
                .route_uses = cs_goal_route_uses,
                .route_uses_end = cs_goal_route_uses_end,
                .route_uses_begin = cs_goal_route_uses_begin,
                // Saved with the agent itself (the snapshot's 'AGNT' section), as part of its
                // def; the aims in a section of its own.
                .snapshot = &goal_section, // 'GOAL', since format version 7
            },
        [CS_BEH_QUEUE] =
            {
                .name = "queue",
                .flags = CS_FLAG_QUEUE | CS_FLAG_QUEUE_CONE | CS_FLAG_QUEUE_FILE,
                // aux: the last step's arrivals, one per queueing agent at most
                .records = {{CS_REC_QUEUE, sizeof(cs_queue_rec), sizeof(cs_arrival), false, false}},
                .state_bytes = sizeof(cs_queue_world),
                .passes = {{CROWD_PHASE_ARRIVAL, cs_pass_arrival}},
                // Hot: its profile. The cone the goal pass brakes with (CROWD_QUEUE_LITERAL),
                // and the one ahead in the file (CROWD_QUEUE_FILE), from the profile.
                .hot = {{CS_HOT_QUEUE_PROFILE, CS_PROF_QUEUE + 1, CS_FLAG_QUEUE, 0},
                        {CS_HOT_QUEUE_X, 0, 0, 0},
                        {CS_HOT_QUEUE_Y, 0, 0, 0}},
                .hot_count = 3,
                .profile_kind = CS_PROF_QUEUE,
                .profile_size = sizeof(cs_queue_profile),
                .neighbor =
                    {
                        [CS_NB_CONE] = {.flag = CS_FLAG_QUEUE_CONE,
                                        .kind = CS_REC_QUEUE,
                                        .profile = CS_PROF_QUEUE + 1,
                                        .col = CS_HOT_QUEUE_PROFILE,
                                        .in = {offsetof(cs_queue_profile, def.cone_length),
                                               offsetof(cs_queue_profile, def.cone_width),
                                               offsetof(cs_queue_profile, width2)},
                                        .min_len = CROWD_QUEUE_MIN_SPEED},
                        [CS_NB_FILE] = {.flag = CS_FLAG_QUEUE_FILE,
                                        .kind = CS_REC_QUEUE,
                                        .profile = CS_PROF_QUEUE + 1,
                                        .col = CS_HOT_QUEUE_PROFILE,
                                        .in = {0, 0, offsetof(cs_queue_profile, def.cone_length),
                                               offsetof(cs_queue_profile, def.cone_width)},
                                        .in_col = {CS_HOT_QUEUE_X + 1, CS_HOT_QUEUE_Y + 1, 0, 0},
                                        .min_len = CROWD_QUEUE_MIN_SPEED,
                                        .reach_scale = CROWD_QUEUE_FILE_REACH}},
                .on_remove = cs_queue_on_remove,
                .removes_in_step = cs_queue_removes_in_step,
                .sep_form = cs_queue_sep_form,
                .hash = cs_queue_hash,
                .snapshot = &queue_section,
            },
        [CS_BEH_PATH] =
            {
                .name = "path",
                .flags = CS_FLAG_PATH,
                // Hot: the profile and the progress (cursor, revision, lost distance) and, while
                // the world counts routes, a routed leg's field memo. No records.
                .hot = {{CS_HOT_PATH_PROFILE, CS_PROF_PATH + 1, CS_FLAG_PATH, 0},
                        {CS_HOT_PATH_INDEX, 0, 0, 0},
                        {CS_HOT_PATH_SEGMENT, 0, 0, 0},
                        {CS_HOT_PATH_STATE, 0, 0, 0},
                        {CS_HOT_PATH_REVISION, 0, 0, 0},
                        {CS_HOT_PATH_LOST, 0, 0, 0},
                        {CS_HOT_PATH_MEMO_CELL, 0, 0, 0},
                        {CS_HOT_PATH_MEMO_ENTRY, 0, 0, 0},
                        {CS_HOT_PATH_MEMO_EPOCH, 0, 0, 0}},
                .hot_count = 9,
                .profile_kind = CS_PROF_PATH,
                .profile_size = sizeof(cs_path_profile),
                .passes = {{CROWD_PHASE_PATH, cs_pass_path}},
                .on_remove = cs_path_on_remove,
                .count_routes = cs_path_count_routes,
                .route = cs_path_route,
                .sep_form = cs_path_sep_form,
                .route_use_bytes = sizeof(crowd_path_id),
                .route_uses = cs_path_route_uses,
                .route_uses_end = cs_path_route_uses_end,
                .route_uses_held = cs_path_route_uses_held,
                .hash = cs_path_hash,
                .destroy = cs_paths_free,
                .snapshot = &path_section,
            },
        [CS_BEH_FOLLOW] =
            {
                .name = "follow",
                .flags = CS_FLAG_FOLLOW | CS_FLAG_LEADER,
                // leaders' aux: the dirty list, leader indices waiting for a slot reassignment
                // Replicated in a split world: the follow graph spans the world.
                .records = {{CS_REC_FOLLOWER, sizeof(cs_follower), 0, true, true},
                            {CS_REC_LEADER, sizeof(cs_leader), sizeof(uint32_t), true, true}},
                .state_bytes = sizeof(cs_follow_world),
                .passes = {{CROWD_PHASE_LEADER, cs_pass_leader}},
                // The group separation the leader pass weighs in (no inputs).
                .neighbor = {[CS_NB_GROUP] = {.flag = CS_FLAG_FOLLOW, .kind = CS_REC_FOLLOWER}},
                .on_remove = cs_follow_on_remove,
                .dist_linked = cs_follow_dist_linked,
                .sep_form = cs_follow_sep_form,
                .dist_unlink = cs_follow_on_remove,
                .hash = cs_follow_hash,
                .destroy = cs_follow_destroy,
                .snapshot = &follow_section,
            },
        [CS_BEH_WALLS] =
            {
                .name = "walls",
                // Every agent is kept out of the walls; only a def other than the default has a
                // record. The obstacles are world geometry (src/walls/), saved in the walls
                // section.
                .hot = {{CS_HOT_WALL_PROFILE, CS_PROF_WALL + 1, 0, 0}},
                .hot_count = 1,
                .profile_kind = CS_PROF_WALL,
                .profile_size = sizeof(crowd_wall_def),
                .state_bytes = sizeof(cs_walls_world),
                .passes = {{CROWD_PHASE_WALLS, cs_pass_walls}, {CROWD_PHASE_CLAMP, cs_pass_clamp}},
                .check_def = cs_walls_check_def,
                .add_reserve = cs_walls_add_reserve,
                .add = cs_walls_add,
                .get_def = cs_walls_get_def,
                .def_default = cs_walls_def_default,
                .reserve = cs_walls_world_reserve,
                .hash = cs_walls_hash,
                .snapshot = &walls_section,
            },
        [CS_BEH_SEPARATION] =
            {
                // No records: which separation an agent uses follows from its other behaviors.
                .name = "separation",
                .flags = CS_FLAG_SEP_PUSH,
                .loaded = cs_sep_loaded, // the flags it derives, checked after a snapshot load
            },
};
