// The goal snapshot section: the aims of the pedestrian goals (CROWD_GOAL_PEDESTRIAN), which the
// next step's headway looks along. The goals themselves are part of each agent's def, saved in
// the core's 'AGNT' section.
//
//  'GOAL' (since version 7): u32 count (0 when no agent has had a goal other than the default,
//         else the agent count), then count x (f32 aim x, f32 aim y) in the 'AGNT' section's slot
//         order. An aim is of unit length or (0, 0), and (0, 0) for an agent without
//         CS_FLAG_HEADWAY (one that does not walk the pedestrian model). Older snapshots have no
//         aims: their goals walk the spec's form, which has none.
#include <math.h>

#include "behaviors/goal/goal_internal.h"
#include "snapshot/snapshot_internal.h"

static uint32_t saved(const crowd_world* w) {
    return cs_hot_live(w, CS_HOT_GOAL_AIM_X) ? (uint32_t)w->count : 0u;
}

uint64_t cs_snap_goal_size(const crowd_world* w) {
    return 4 + 8 * (uint64_t)saved(w);
}

void cs_snap_save_goal(const crowd_world* w, cs_snap_writer* out) {
    const uint32_t n = saved(w);
    cs_snap_put_u32(out, n);
    for (uint32_t s = 0; s < n; ++s) {
        cs_snap_put_f32(out, cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s]);
        cs_snap_put_f32(out, cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s]);
    }
}

crowd_status cs_snap_load_goal(crowd_world* w, cs_snap_reader* in) {
    const uint32_t n = cs_snap_get_u32(in);
    if (in->bad || (n != 0 && n != (uint32_t)w->count) || in->left != 8 * (size_t)n)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // None saved: no agent had a goal other than the default, so none has one now (each such
    // goal the agents' section stored brought the aims' columns).
    if (n == 0) return saved(w) == 0 ? CROWD_OK : CROWD_ERR_SNAPSHOT_CORRUPT;
    for (int k = CS_HOT_GOAL_AIM_X; k <= CS_HOT_GOAL_AIM_Y; ++k)
        if (cs_world_hot_column(w, k) != CROWD_OK) return CROWD_ERR_OUT_OF_MEMORY;
    for (int k = CS_HOT_GOAL_AIM_X; k <= CS_HOT_GOAL_AIM_Y; ++k) cs_hot_use(w, k);
    for (uint32_t s = 0; s < n; ++s) {
        const float x = cs_snap_get_f32(in), y = cs_snap_get_f32(in);
        // Unit length give or take rounding, or none (NaN fails the test); none for an agent
        // that does not walk the pedestrian model (the column is gated on CS_FLAG_HEADWAY).
        const float len2 = x * x + y * y;
        if (!(len2 == 0.0f || (len2 > 0.999f && len2 < 1.001f))) return CROWD_ERR_SNAPSHOT_CORRUPT;
        if (len2 != 0.0f && !(w->cur.flags[s] & CS_FLAG_HEADWAY)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        cs_hot_f32(w, CS_HOT_GOAL_AIM_X)[s] = x;
        cs_hot_f32(w, CS_HOT_GOAL_AIM_Y)[s] = y;
    }
    return in->bad ? CROWD_ERR_SNAPSHOT_CORRUPT : CROWD_OK;
}
