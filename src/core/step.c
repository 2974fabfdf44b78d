// The tick: one ordered list of passes, resolved and checked when a world is created.
//
//   sort -> route -> neighbor -> leader -> path -> goal -> walls -> integrate -> clamp -> arrival
//
// Each phase (crowd/world.h's crowd_phase, in that order) runs the core's own pass for it, if it
// has one (core_passes below), then the passes the behavior table (core/behavior.h) registers for
// it, in table order: leader (follow), path, goal, walls (the wall force), clamp (walls: moves cut
// at the walls, after the integration), arrival (queue). cs_tick_build lays that out once per
// world as w->tick, so the step is a loop over a list and the order lives here alone.
//
// What the buffers hold through a step: the sort gathers every column into cell order (w->cur);
// the neighbor pass writes each agent's force (w->force_x / force_y: it sets them, which is the
// step's force clear) and every later force pass adds to them; the integration reads cur and
// writes the new positions and headings into the back buffers (the old ones stay readable as
// w->alt until the step ends, for the clamp). Every pass is parallel over agents and writes only
// its own agents' slots, so the order of the passes is the only order there is. The arrival phase
// tests in parallel but applies removals and respawns serially, in handle order.
#include <omp.h>

#include "core/internal.h"

// The neighbor phase: the capped pass when the world has a neighbor cap. With obstacles, the
// agents' wall clearances come first (line of sight in the neighbor pass, the walls behavior's
// passes): the uncapped pass works them out chunk by chunk itself, the capped one after a pass of
// their own.
static void pass_neighbor(crowd_world* w) {
    if (w->max_neighbors > 0) {
        if (w->walls.live > 0) cs_pass_clearance(w);
        cs_pass_neighbor_capped(w);
    } else {
        cs_pass_neighbor(w);
    }
}

// Navigation (src/nav/): the fields the goal and path passes read, built if missing. It allocates
// them; when that fails it sets w->step_status and the step ends there, before any pass has
// changed the world (the sort only reorders storage).
static void pass_route(crowd_world* w) {
    cs_pass_route(w);
    w->step_status = w->nav.status;
}

// The core's own pass of each phase (NULL: the behaviors' passes only). The follow-leader forces
// come after the neighbor pass because they consume the group separation it computes.
static void (*const core_passes[CROWD_PHASE_COUNT])(crowd_world* w) = {
    [CROWD_PHASE_SORT] = cs_pass_sort,
    [CROWD_PHASE_ROUTE] = pass_route,
    [CROWD_PHASE_NEIGHBOR] = pass_neighbor,
    [CROWD_PHASE_INTEGRATE] = cs_pass_integrate,
};

crowd_status cs_tick_build(crowd_world* w) {
    int n = 0;
    for (int p = 0; p < CROWD_PHASE_COUNT; ++p) {
        if (core_passes[p]) w->tick_passes[n++] = (cs_tick_pass){(crowd_phase)p, core_passes[p]};
        for (int b = 0; b < CS_BEH_COUNT; ++b)
            for (int k = 0; k < CS_BEHAVIOR_MAX_PASSES && cs_behaviors[b].passes[k].run; ++k)
                if (cs_behaviors[b].passes[k].phase == (crowd_phase)p)
                    w->tick_passes[n++] =
                        (cs_tick_pass){(crowd_phase)p, cs_behaviors[b].passes[k].run};
    }
    w->tick_len = n;
    // Every behavior pass must have found its phase, and the force-setting neighbor pass must come
    // before any pass that adds a force (the first behavior phase).
    int passes = 0;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < CS_BEHAVIOR_MAX_PASSES && cs_behaviors[b].passes[k].run; ++k) {
            const crowd_phase p = cs_behaviors[b].passes[k].phase;
            if (p <= CROWD_PHASE_NEIGHBOR) return CROWD_ERR_INVALID_ENUM;
            ++passes;
        }
    return n == passes + 4 ? CROWD_OK : CROWD_ERR_INVALID_ENUM;
}

crowd_status crowd_world_step(crowd_world* w) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    crowd_profile* p = &w->profile;
    const int stepped = w->count; // arrivals may remove agents

    for (int i = 0; i < CROWD_PHASE_COUNT; ++i) p->phase_ms[i] = 0.0;
    const double start = omp_get_wtime();
    double t = start;
    w->step_status = CROWD_OK;
    w->columns_epoch++; // the sort moves every agent, the integration rotates the buffers
    for (int i = 0; i < w->tick_len; ++i) {
        const cs_tick_pass* e = &w->tick_passes[i];
        e->run(w);
        if (w->step_status != CROWD_OK) return w->step_status;
        const double now = omp_get_wtime();
        p->phase_ms[e->phase] += (now - t) * 1e3;
        t = now;
    }
    p->step_ms = (t - start) * 1e3;
    p->agents = stepped;
    p->threads = w->threads;
    w->tick++;
    return CROWD_OK;
}
