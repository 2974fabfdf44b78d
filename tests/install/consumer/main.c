// A program that uses crowdstep only through its installed headers and libraries: a small crowd,
// a snapshot round trip, and the state hash printed for the test to compare across link modes.
#include <crowd/crowd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    crowd_world_def wd = crowd_world_def_default();
    wd.threads = 2;
    wd.world_tag = 1;
    crowd_world* w;
    if (crowd_world_create(&wd, &w) != CROWD_OK) return 1;
    for (int i = 0; i < 100; ++i) {
        crowd_agent_def a = crowd_agent_def_default();
        a.position = (crowd_vec2){(float)(i % 10), (float)(i / 10)};
        a.goal.mode = CROWD_GOAL_ARRIVE;
        a.goal.target = (crowd_vec2){(float)(9 - i % 10), (float)(9 - i / 10)};
        crowd_agent_id id;
        if (crowd_agent_add(w, &a, &id) != CROWD_OK) return 1;
    }
    for (int t = 0; t < 50; ++t) crowd_world_step(w);
    size_t n = crowd_world_save_size(w);
    void* buf = malloc(n);
    crowd_world* copy;
    if (!buf || crowd_world_save(w, buf, n, &n) != CROWD_OK ||
        crowd_world_load(buf, n, NULL, &copy) != CROWD_OK)
        return 1;
    for (int t = 0; t < 50; ++t) crowd_world_step(w), crowd_world_step(copy);
    const uint64_t h = crowd_world_state_hash(w);
    if (crowd_world_state_hash(copy) != h) return 1;
    printf("%016" PRIx64 " %s\n", h, crowd_status_string(CROWD_ERR_SNAPSHOT_CHECKSUM));
    crowd_world_destroy(copy);
    crowd_world_destroy(w);
    free(buf);
    return 0;
}
