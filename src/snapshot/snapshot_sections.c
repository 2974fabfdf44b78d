// The snapshot's sections after the world settings, in file order: the core's, listed here, then
// the behaviors' from the behavior table (see snapshot_internal.h).
#include "snapshot/snapshot_internal.h"

// The exit sets come before the agents: a goal that names one is counted as its user when the
// agent is loaded, and must find it. The navigation fields come after the agents (whose goals
// count the destinations in use); they are installed once every section is loaded (the obstacles
// come with the behaviors' sections).
static const cs_snap_section core_sections[] = {
    {CS_SNAP_ID('I', 'N', 'D', 'X'), cs_snap_index_size, cs_snap_save_index, cs_snap_load_index, 0},
    {CS_SNAP_ID('E', 'X', 'I', 'T'), cs_snap_exits_size, cs_snap_save_exits, cs_snap_load_exits, 5},
    {CS_SNAP_ID('A', 'G', 'N', 'T'), cs_snap_agents_size, cs_snap_save_agents, cs_snap_load_agents,
     0},
    {CS_SNAP_ID('N', 'A', 'V', 'F'), cs_snap_navf_size, cs_snap_save_navf, cs_snap_load_navf, 6},
};

enum { CORE_SECTIONS = sizeof core_sections / sizeof core_sections[0] };

static bool in_version(const cs_snap_section* s, uint32_t version) {
    return s->since <= version;
}

int cs_snap_section_count(uint32_t version) {
    int n = 0;
    for (int k = 0; k < CORE_SECTIONS; ++k) n += in_version(&core_sections[k], version);
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        n += cs_behaviors[b].snapshot != NULL && in_version(cs_behaviors[b].snapshot, version);
    return n;
}

const cs_snap_section* cs_snap_section_at(uint32_t version, int k) {
    for (int c = 0; c < CORE_SECTIONS; ++c) {
        if (!in_version(&core_sections[c], version)) continue;
        if (k-- == 0) return &core_sections[c];
    }
    for (int b = 0; b < CS_BEH_COUNT; ++b) {
        const cs_snap_section* s = cs_behaviors[b].snapshot;
        if (!s || !in_version(s, version)) continue;
        if (k-- == 0) return s;
    }
    return NULL;
}
