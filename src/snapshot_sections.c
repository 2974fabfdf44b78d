// The snapshot's sections after the world settings, in file order. A behavior module with state
// of its own adds its line here (see snapshot.h) and bumps CROWD_SNAPSHOT_VERSION.
#include "snapshot.h"

const crowd_snap_section crowd_snap_sections[] = {
    {CROWD_SNAP_ID('I', 'N', 'D', 'X'), crowd_snap_index_size, crowd_snap_save_index,
     crowd_snap_load_index},
    {CROWD_SNAP_ID('A', 'G', 'N', 'T'), crowd_snap_agents_size, crowd_snap_save_agents,
     crowd_snap_load_agents},
    {CROWD_SNAP_ID('Q', 'U', 'E', 'U'), crowd_snap_queue_size, crowd_snap_save_queue,
     crowd_snap_load_queue},
    {CROWD_SNAP_ID('P', 'A', 'T', 'H'), crowd_snap_path_size, crowd_snap_save_path,
     crowd_snap_load_path},
    {CROWD_SNAP_ID('F', 'L', 'L', 'W'), crowd_snap_follow_size, crowd_snap_save_follow,
     crowd_snap_load_follow},
};

const int crowd_snap_section_count = sizeof crowd_snap_sections / sizeof crowd_snap_sections[0];
