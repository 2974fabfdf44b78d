// The tick: phases in a fixed order, each timed.
//
//   sort -> route -> neighbor -> leader -> path -> goal -> walls -> integrate -> clamp -> arrival
//
// A phase runs the core's own pass for it (sort, route, neighbor, integrate), then the passes the
// behavior table (core/behavior.h) registers for it, in table order: leader (follow), path, goal,
// walls (the wall force), clamp (walls: moves cut at the walls, after the integration), arrival
// (queue). Every pass is parallel over agents and writes only its own agents' slots, so
// the order of the passes is the only order there is. The arrival phase tests in parallel but
// applies removals and respawns serially, in handle order.
#include <omp.h>

#include "core/internal.h"

typedef struct phase_entry {
    crowd_phase phase;
    void (*core)(crowd_world* w); // NULL: only the behaviors' passes
} phase_entry;

// In tick order. The follow-leader forces come after the neighbor pass because they consume the
// group separation it computes.
// The neighbor phase: the capped pass when the world has a neighbor cap.
// With obstacles, the agents' wall clearances come first (line of sight in the neighbor pass, the
// walls behavior's passes): the uncapped pass works them out chunk by chunk itself, the capped one
// after a pass of their own.
static void pass_neighbor(crowd_world* w) {
    if (w->max_neighbors > 0) {
        if (w->walls.live > 0) cs_pass_clearance(w);
        cs_pass_neighbor_capped(w);
    } else {
        cs_pass_neighbor(w);
    }
}

static const phase_entry phases[CROWD_PHASE_COUNT] = {
    {CROWD_PHASE_SORT, cs_pass_sort},
    // Navigation (src/nav/): the fields the goal and path passes read, built if missing. It
    // allocates them; when that fails the step ends there and returns the failure, before any
    // pass has changed the world (the sort only reorders storage).
    {CROWD_PHASE_ROUTE, cs_pass_route},
    {CROWD_PHASE_NEIGHBOR, pass_neighbor},
    {CROWD_PHASE_LEADER, NULL},
    {CROWD_PHASE_PATH, NULL},
    {CROWD_PHASE_GOAL, NULL},
    {CROWD_PHASE_WALLS, NULL},
    {CROWD_PHASE_INTEGRATE, cs_pass_integrate},
    {CROWD_PHASE_CLAMP, NULL},
    {CROWD_PHASE_ARRIVAL, NULL},
};

static void run_phase(crowd_world* w, const phase_entry* e) {
    if (e->core) e->core(w);
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        for (int k = 0; k < CS_BEHAVIOR_MAX_PASSES && cs_behaviors[b].passes[k].run; ++k)
            if (cs_behaviors[b].passes[k].phase == e->phase) cs_behaviors[b].passes[k].run(w);
}

crowd_status crowd_world_step(crowd_world* w) {
    if (!w) return CROWD_ERR_NULL_ARGUMENT;
    crowd_profile* p = &w->profile;
    const int stepped = w->count; // arrivals may remove agents

    const double start = omp_get_wtime();
    double t = start;
    for (int i = 0; i < CROWD_PHASE_COUNT; ++i) {
        run_phase(w, &phases[i]);
        if (phases[i].phase == CROWD_PHASE_ROUTE && w->nav.status != CROWD_OK) return w->nav.status;
        const double now = omp_get_wtime();
        p->phase_ms[phases[i].phase] = (now - t) * 1e3;
        t = now;
    }
    p->step_ms = (t - start) * 1e3;
    p->agents = stepped;
    p->threads = w->threads;
    w->tick++;
    return CROWD_OK;
}
