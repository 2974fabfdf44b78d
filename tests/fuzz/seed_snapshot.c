// Writes the snapshot fuzz target's seed corpus: snapshots of real worlds of a few shapes (empty,
// one agent, removals and re-additions, every goal mode, reserved capacity, many agents, queues).
#include <stdio.h>
#include <stdlib.h>

#include "crowd/crowd.h"
#include "scenes.h"

static int write_seed(const char* dir, const char* name, const crowd_world* w) {
    size_t n = crowd_world_save_size(w);
    void* buf = malloc(n);
    if (!buf || crowd_world_save(w, buf, n, &n) != CROWD_OK) return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "wb");
    int bad = !f || fwrite(buf, 1, n, f) != n;
    if (f) bad |= fclose(f) != 0;
    free(buf);
    return bad;
}

static crowd_world* scene(scene_kind kind, int agents, int ticks) {
    scene_def def = scene_def_default();
    def.kind = kind;
    def.agents = agents;
    def.threads = 1;
    crowd_world* w;
    if (scene_create(&def, &w) != CROWD_OK) return NULL;
    for (int t = 0; t < ticks; ++t) crowd_world_step(w);
    return w;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fputs("usage: seed_snapshot DIR\n", stderr);
        return 2;
    }
    const char* dir = argv[1];
    int bad = 0;
    crowd_world* w = scene(SCENE_SEPARATION, 0, 0);
    bad |= !w || write_seed(dir, "empty", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 1, 3);
    bad |= !w || write_seed(dir, "one", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 24, 10);
    if (w) {
        crowd_agent_id ids[24];
        int n;
        bad |= crowd_world_get_agents(w, ids, NULL, NULL, 24, &n) != CROWD_OK;
        for (int i = 0; !bad && i < n; i += 3) bad |= crowd_agent_remove(w, ids[i]) != CROWD_OK;
        crowd_agent_def a = crowd_agent_def_default();
        a.goal.mode = CROWD_GOAL_FLEE;
        a.user_data = 77;
        bad |= crowd_agent_add(w, &a, &ids[0]) != CROWD_OK;
        crowd_world_step(w);
        bad |= write_seed(dir, "churned", w);
        bad |= crowd_world_reserve(w, 300) != CROWD_OK;
        bad |= write_seed(dir, "reserved", w);
    }
    crowd_world_destroy(w);

    w = scene(SCENE_CROSSING, 60, 20);
    bad |= !w || write_seed(dir, "crossing", w);
    crowd_world_destroy(w);

    w = scene(SCENE_MIXED, 200, 5);
    bad |= !w || write_seed(dir, "mixed", w);
    crowd_world_destroy(w);

    w = scene(SCENE_QUEUE, 80, 60); // queues (respawning) and the world's random stream
    bad |= !w || write_seed(dir, "queues", w);
    crowd_world_destroy(w);
    if (bad) fputs("seed_snapshot: failed\n", stderr);
    return bad;
}
