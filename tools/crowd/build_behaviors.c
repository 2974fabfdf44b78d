// Building the queue, path-following and follow-leader sections of a scenario.
//
// These are the only places where the command touches the behavior APIs. This build of the
// library has none of them, so a scenario that uses one is refused with a message that names the
// behavior and where the scenario uses it.
#include <stdio.h>

#include "build.h"

static bool unsupported(const built_world* b, json_pos pos, const char* behavior, char* err,
                        size_t errlen) {
    snprintf(err, errlen,
             "%s:%d:%d: scenario uses %s, which this build of crowd does not support yet",
             b->sc->file, pos.line, pos.col, behavior);
    return false;
}

bool build_queue(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                 char* err, size_t errlen) {
    (void)ids;
    (void)count;
    return unsupported(b, crowd->queue_pos, "queue", err, errlen);
}

bool build_path(built_world* b, const sc_crowd* crowd, const crowd_agent_id* ids, int count,
                char* err, size_t errlen) {
    (void)ids;
    (void)count;
    return unsupported(b, crowd->path_pos, "path following", err, errlen);
}

bool build_leader(built_world* b, const sc_crowd* crowd, const crowd_agent_id* leaders,
                  int leader_count, const crowd_agent_id* followers, char* err, size_t errlen) {
    (void)leaders;
    (void)leader_count;
    (void)followers;
    return unsupported(b, crowd->followers_pos, "follow leader", err, errlen);
}
