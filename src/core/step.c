// The tick: passes in a fixed order, each timed.
//
//   sort -> [halo exchange] -> neighbor -> leader -> path -> goal -> walls -> integrate -> clamp
//   -> arrival
//
// Every pass is parallel over agents and writes only its own agents' slots, so the order of the
// passes is the only order there is. A distributed build exchanges halo agents between the sort
// (which fixes each rank's cell ranges) and the neighbor pass (the first reader of neighbors).
// The arrival phase tests in parallel but applies removals and respawns serially, in handle order.
#include <omp.h>

#include "core/internal.h"

crowd_status crowd_world_step(crowd_world* w) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    double t[CROWD_PHASE_COUNT + 1];
    crowd_profile* p = &w->profile;
    const int stepped = w->count; // arrivals may remove agents

    t[0] = omp_get_wtime();
    cs_pass_sort(w);
    t[1] = omp_get_wtime();
    p->candidates = cs_pass_neighbor(w);
    t[2] = omp_get_wtime();
    // Follow-leader forces, after the neighbor pass because they consume the group separation.
    cs_pass_leader(w);
    t[3] = omp_get_wtime();
    // Path pass (CROWD_PHASE_PATH): waypoint and tube forces.
    cs_pass_path(w);
    t[4] = omp_get_wtime();
    cs_pass_goal(w);
    t[5] = omp_get_wtime();
    cs_pass_walls(w);
    t[6] = omp_get_wtime();
    cs_pass_integrate(w);
    t[7] = omp_get_wtime();
    cs_pass_clamp(w);
    t[8] = omp_get_wtime();
    cs_pass_arrival(w);
    t[9] = omp_get_wtime();

    for (int i = 0; i < CROWD_PHASE_COUNT; ++i) p->phase_ms[i] = (t[i + 1] - t[i]) * 1e3;
    p->step_ms = (t[CROWD_PHASE_COUNT] - t[0]) * 1e3;
    p->agents = stepped;
    p->threads = w->threads;
    w->tick++;
    return CROWD_OK;
}
