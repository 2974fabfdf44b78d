// The snapshot's sections after the world settings, in file order: the core's, listed here, then
// the behaviors' from the behavior table (see snapshot_internal.h).
#include "snapshot/snapshot_internal.h"

static const cs_snap_section core_sections[] = {
    {CS_SNAP_ID('I', 'N', 'D', 'X'), cs_snap_index_size, cs_snap_save_index, cs_snap_load_index},
    {CS_SNAP_ID('A', 'G', 'N', 'T'), cs_snap_agents_size, cs_snap_save_agents, cs_snap_load_agents},
};

enum { CORE_SECTIONS = sizeof core_sections / sizeof core_sections[0] };

int cs_snap_section_count(void) {
    int n = CORE_SECTIONS;
    for (int b = 0; b < CS_BEH_COUNT; ++b) n += cs_behaviors[b].snapshot != NULL;
    return n;
}

const cs_snap_section* cs_snap_section_at(int k) {
    if (k < CORE_SECTIONS) return &core_sections[k];
    k -= CORE_SECTIONS;
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        if (!cs_behaviors[b].snapshot) continue;
        if (k-- == 0) return cs_behaviors[b].snapshot;
    }
    return NULL;
}
