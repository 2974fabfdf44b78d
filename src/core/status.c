// Human-readable names of statuses and phases.
#include "crowd/crowd.h"

const char* crowd_status_string(crowd_status status) {
    switch (status) {
    case CROWD_OK:
        return "ok";
    case CROWD_ERR_NULL_ARGUMENT:
        return "a required pointer argument is NULL";
    case CROWD_ERR_INVALID_ENUM:
        return "enumeration value out of range";
    case CROWD_ERR_NOT_FINITE:
        return "NaN or infinite value";
    case CROWD_ERR_BAD_RADIUS:
        return "radius or distance out of range";
    case CROWD_ERR_BAD_SPEED:
        return "max speed or max force is not positive";
    case CROWD_ERR_BAD_WEIGHT:
        return "negative behavior weight";
    case CROWD_ERR_BAD_HEADING:
        return "zero-length heading or direction";
    case CROWD_ERR_BAD_DT:
        return "time step is not positive";
    case CROWD_ERR_BAD_CELL_SIZE:
        return "cell size is not positive";
    case CROWD_ERR_BAD_THREADS:
        return "negative thread count";
    case CROWD_ERR_BAD_CAPACITY:
        return "capacity out of range";
    case CROWD_ERR_CAPACITY:
        return "world is full (max_agents reached)";
    case CROWD_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case CROWD_ERR_NULL_HANDLE:
        return "null agent handle";
    case CROWD_ERR_STALE_HANDLE:
        return "stale agent handle (agent was removed)";
    case CROWD_ERR_FOREIGN_HANDLE:
        return "agent handle from another world";
    case CROWD_ERR_BUFFER_TOO_SMALL:
        return "output buffer too small";
    case CROWD_ERR_BAD_CONE:
        return "queue cone length is not positive or width is negative";
    case CROWD_ERR_BAD_AREA:
        return "rectangle with min greater than max";
    case CROWD_ERR_NOT_QUEUEING:
        return "agent does not queue";
    case CROWD_ERR_PATH_TOO_SHORT:
        return "path has fewer than 2 points";
    case CROWD_ERR_PATH_TOO_LONG:
        return "path has more than CROWD_PATH_MAX_POINTS points";
    case CROWD_ERR_PATH_REPEATED_POINT:
        return "path has two equal consecutive points";
    case CROWD_ERR_NULL_PATH:
        return "null path handle";
    case CROWD_ERR_STALE_PATH:
        return "stale path handle (path was destroyed)";
    case CROWD_ERR_FOREIGN_PATH:
        return "path handle from another world";
    case CROWD_ERR_BAD_PATH_INDEX:
        return "path point index out of range";
    case CROWD_ERR_FOLLOW_CYCLE:
        return "an agent would follow itself through a chain of leaders";
    case CROWD_ERR_BAD_COUNT:
        return "count or size out of range";
    case CROWD_ERR_WRITE_FAILED:
        return "write callback failed";
    case CROWD_ERR_SNAPSHOT_MAGIC:
        return "not a crowdstep snapshot (bad magic number)";
    case CROWD_ERR_SNAPSHOT_VERSION:
        return "unsupported snapshot format version";
    case CROWD_ERR_SNAPSHOT_TRUNCATED:
        return "snapshot truncated";
    case CROWD_ERR_SNAPSHOT_OVERSIZED:
        return "input longer than the snapshot it holds";
    case CROWD_ERR_SNAPSHOT_CHECKSUM:
        return "snapshot checksum mismatch";
    case CROWD_ERR_SNAPSHOT_SECTION:
        return "snapshot section unknown, missing, repeated or out of place";
    case CROWD_ERR_SNAPSHOT_CORRUPT:
        return "snapshot content malformed or inconsistent";
    case CROWD_ERR_SNAPSHOT_TOO_LARGE:
        return "snapshot world larger than allowed";
    case CROWD_ERR_OUT_OF_RANGE:
        return "value outside its documented valid range";
    case CROWD_ERR_NULL_OBSTACLE:
        return "null obstacle handle";
    case CROWD_ERR_STALE_OBSTACLE:
        return "stale obstacle handle";
    case CROWD_ERR_FOREIGN_OBSTACLE:
        return "obstacle handle from another world";
    case CROWD_ERR_OBSTACLE_TOO_SHORT:
        return "obstacle has too few points";
    case CROWD_ERR_OBSTACLE_TOO_LONG:
        return "obstacle has more than CROWD_OBSTACLE_MAX_POINTS points";
    case CROWD_ERR_OBSTACLE_REPEATED_POINT:
        return "two consecutive obstacle points are equal or too close to measure";
    case CROWD_ERR_OBSTACLE_SELF_INTERSECTING:
        return "polygon edges cross each other";
    case CROWD_ERR_INSIDE_OBSTACLE:
        return "agent would overlap a wall or stand inside an obstacle";
    case CROWD_ERR_NOT_DISTRIBUTABLE:
        return "a world split across processes cannot hold this (a neighbor cap, a follower "
               "removed on arrival)";
    case CROWD_ERR_RANK_FAILED:
        return "another rank of the split world failed; the split world takes no more calls";
    case CROWD_ERR_NULL_EXITS:
        return "null exit set handle";
    case CROWD_ERR_STALE_EXITS:
        return "stale exit set handle";
    case CROWD_ERR_FOREIGN_EXITS:
        return "exit set handle of another world";
    case CROWD_ERR_IN_USE:
        return "still in use by agents";
    case CROWD_STATUS_COUNT:
        break;
    }
    return "unknown status";
}

const char* crowd_phase_name(crowd_phase phase) {
    switch (phase) {
    case CROWD_PHASE_SORT:
        return "sort";
    case CROWD_PHASE_ROUTE:
        return "route";
    case CROWD_PHASE_NEIGHBOR:
        return "neighbor";
    case CROWD_PHASE_LEADER:
        return "leader";
    case CROWD_PHASE_PATH:
        return "path";
    case CROWD_PHASE_GOAL:
        return "goal";
    case CROWD_PHASE_WALLS:
        return "walls";
    case CROWD_PHASE_INTEGRATE:
        return "integrate";
    case CROWD_PHASE_CLAMP:
        return "clamp";
    case CROWD_PHASE_ARRIVAL:
        return "arrival";
    case CROWD_PHASE_COUNT:
        break;
    }
    return "unknown";
}
