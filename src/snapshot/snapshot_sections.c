// The snapshot's sections after the world settings, in file order. A behavior module with state
// of its own adds its line here (see snapshot_internal.h) and bumps CROWD_SNAPSHOT_VERSION.
#include "snapshot/snapshot_internal.h"

const cs_snap_section cs_snap_sections[] = {
    {CS_SNAP_ID('I', 'N', 'D', 'X'), cs_snap_index_size, cs_snap_save_index, cs_snap_load_index},
    {CS_SNAP_ID('A', 'G', 'N', 'T'), cs_snap_agents_size, cs_snap_save_agents, cs_snap_load_agents},
    {CS_SNAP_ID('Q', 'U', 'E', 'U'), cs_snap_queue_size, cs_snap_save_queue, cs_snap_load_queue},
    {CS_SNAP_ID('P', 'A', 'T', 'H'), cs_snap_path_size, cs_snap_save_path, cs_snap_load_path},
    {CS_SNAP_ID('F', 'L', 'L', 'W'), cs_snap_follow_size, cs_snap_save_follow, cs_snap_load_follow},
};

const int cs_snap_section_count = sizeof cs_snap_sections / sizeof cs_snap_sections[0];
