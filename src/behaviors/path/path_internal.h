// Paths inside the library: storage, the segment index, and the behaviors' math, which the pure
// public functions (path_steer.c) and the engine pass (path.c) share so they agree bit for bit.
#ifndef CS_PATH_INTERNAL_H
#define CS_PATH_INTERNAL_H

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "steer/steer_math.h"

// A path follower lives in hot columns (behaviors/registry.h), which the path pass reads in slot
// order: the number + 1 of its profile (CS_HOT_PATH_PROFILE; 0: no path), which holds its def as
// set but for its start index (followers of a path share one), and its progress: the cursor (its
// state and direction with the start index in one column), the revision of its
// path the cursor was last synced to (a replaced path is noticed by the follower itself, see
// cs_path_sync) and, while a tube follower is lost, the distance at which it last searched the
// whole path. The profile outlives CS_FLAG_PATH when the path is destroyed: the agent reports
// DETACHED.
// path.world and start_index 0 (the world's own tag; the agent's column), padding 0.
typedef crowd_path_follow_def cs_path_profile;

// A follower's progress as the pass works on it: the columns' values, and a routed waypoint
// leg's memo of its field entry for the waypoint cursor.index (cs_nav_memo, in the hot columns
// CS_HOT_PATH_MEMO_*, which exist and ride the sort once the world counts routes).
typedef struct cs_path_agent {
    crowd_path_cursor cursor;
    uint32_t revision;
    float lost_dist;
    cs_nav_memo nav;
    int32_t start; // the def's start_index (below CROWD_PATH_MAX_POINTS, 2^24)
} cs_path_agent;

// The cursor's state and direction and the start index share a column:
// state | (direction + 1) << 3 | start << 5.
static inline uint32_t cs_path_pack_state(const crowd_path_cursor* c, int32_t start) {
    return (uint32_t)c->state | (uint32_t)(c->direction + 1) << 3 | (uint32_t)start << 5;
}
static inline int cs_path_state_direction(uint32_t packed) {
    return (int)(packed >> 3 & 3u) - 1;
}

// The def of the follower in slot s (with its path handle's world tag), NULL when it has none.
static inline const cs_path_profile* cs_path_profile_at(const crowd_world* w, int s) {
    const uint32_t* prof = cs_hot_u32(w, CS_HOT_PATH_PROFILE);
    if (!prof || !prof[s]) return NULL;
    return cs_profiles_at(&w->profiles[CS_PROF_PATH], prof[s] - 1);
}

// The def as set: profile p with the world's tag and the agent's start index.
static inline crowd_path_follow_def cs_path_def_of(const crowd_world* w, const cs_path_profile* p,
                                                   int32_t start) {
    crowd_path_follow_def d;
    memcpy(&d, p, sizeof d); // padding too: a def reads back byte for byte as it was stored
    d.path.world = w->tag;
    d.start_index = start;
    return d;
}

// Whether the memo columns exist (the world counts routes and some follower routes its legs).
static inline bool cs_path_memo_live(const crowd_world* w) {
    return cs_hot_live(w, CS_HOT_PATH_MEMO_EPOCH) != NULL;
}

static inline cs_path_agent cs_path_agent_at(const crowd_world* w, int s) {
    const uint32_t st = cs_hot_u32(w, CS_HOT_PATH_STATE)[s];
    cs_path_agent a = {
        .cursor = {.state = (crowd_path_state)(st & 7u),
                   .index = (int)cs_hot_u32(w, CS_HOT_PATH_INDEX)[s],
                   .direction = cs_path_state_direction(st),
                   .segment = (int)cs_hot_u32(w, CS_HOT_PATH_SEGMENT)[s]},
        .revision = cs_hot_u32(w, CS_HOT_PATH_REVISION)[s],
        .lost_dist = cs_hot_f32(w, CS_HOT_PATH_LOST)[s],
        .start = (int32_t)(st >> 5),
    };
    if (cs_path_memo_live(w))
        a.nav = (cs_nav_memo){cs_hot_u32(w, CS_HOT_PATH_MEMO_CELL)[s],
                              cs_hot_u32(w, CS_HOT_PATH_MEMO_ENTRY)[s],
                              cs_hot_u32(w, CS_HOT_PATH_MEMO_EPOCH)[s]};
    return a;
}

static inline void cs_path_agent_set(const crowd_world* w, int s, const cs_path_agent* a) {
    cs_hot_u32(w, CS_HOT_PATH_STATE)[s] = cs_path_pack_state(&a->cursor, a->start);
    cs_hot_u32(w, CS_HOT_PATH_INDEX)[s] = (uint32_t)a->cursor.index;
    cs_hot_u32(w, CS_HOT_PATH_SEGMENT)[s] = (uint32_t)a->cursor.segment;
    cs_hot_u32(w, CS_HOT_PATH_REVISION)[s] = a->revision;
    cs_hot_f32(w, CS_HOT_PATH_LOST)[s] = a->lost_dist;
    if (cs_path_memo_live(w)) {
        cs_hot_u32(w, CS_HOT_PATH_MEMO_CELL)[s] = a->nav.cell;
        cs_hot_u32(w, CS_HOT_PATH_MEMO_ENTRY)[s] = a->nav.entry;
        cs_hot_u32(w, CS_HOT_PATH_MEMO_EPOCH)[s] = a->nav.epoch;
    }
}

// A path's segment: it runs from point k to point (k + 1) mod count, so the last one closes the
// loop (LOOP followers only). ab = b - a and the floored |ab|^2 are exactly the values the spec's
// projection computes, stored once.
typedef struct cs_path_seg {
    float ax, ay, abx, aby, len2;
} cs_path_seg;

// The segments are stored as five float rows (ax, ay, abx, aby, len2) of CS_PATH_SEG_STRIDE(count)
// entries each: the hint window loads its segments' fields as contiguous lanes (five short rows
// rather than gathering eight records field by field). Entries count and beyond repeat segments
// 0, 1, ... cyclically, so a loop's window that runs past the closing segment reads its wrapped
// segments in place.
#define CS_PATH_SEG_STRIDE(count) ((count) + CROWD_PATH_WINDOW - 1)
enum { CS_SEG_AX, CS_SEG_AY, CS_SEG_ABX, CS_SEG_ABY, CS_SEG_LEN2, CS_SEG_ROWS };

static inline cs_path_seg cs_path_seg_at(const float* seg, int count, int k) {
    const size_t n = (size_t)CS_PATH_SEG_STRIDE(count);
    return (cs_path_seg){seg[k], seg[n + (size_t)k], seg[2 * n + (size_t)k], seg[3 * n + (size_t)k],
                         seg[4 * n + (size_t)k]};
}

// A uniform grid of the segments, for the global nearest-segment search of new and lost
// followers. Every segment is listed in each cell its (slightly widened) extent crosses.
typedef struct cs_path_grid {
    double x0, y0;        // lower corner (double so that building never overflows)
    double cell;          // cell edge
    double magnitude;     // largest coordinate magnitude, for the query's rounding tolerance
    int gx, gy;           // cells per row, rows
    uint32_t* cell_start; // gx * gy + 1 offsets into cell_segs
    int32_t* cell_segs;   // segment indices, ascending within a cell
} cs_path_grid;

typedef struct cs_path {
    int count;          // points; also the number of segments with the closing one
    crowd_vec2* points; // count
    float* seg;         // CS_SEG_ROWS rows of CS_PATH_SEG_STRIDE(count)
    cs_path_grid grid;
    size_t bytes; // of the one allocation holding all of the above
} cs_path;

// The pass reads a path's points and segments through these copies of its header's fields, so
// the table (small and hot) is all it touches besides the geometry itself.
typedef struct cs_path_entry {
    cs_path* path; // NULL when the slot is free
    // Followers whose waypoint legs are routed (crowd/nav.h); while there are any (and the world
    // counts uses of destinations), every point of the path counts as one (path_route.c)
    int32_t nav_users;
    const crowd_vec2* points;
    const float* seg;
    int count;
    uint32_t revision; // bumped by every replace
    uint16_t generation;
} cs_path_entry;

typedef struct cs_path_table {
    cs_path_entry* entries;
    int32_t* free_list;
    int used; // slots ever issued (high-water mark)
    int capacity;
    int free_count;
    int live;
} cs_path_table;

// The path behavior's world state: the table of shared polylines, NULL until the first path is
// created.
static inline cs_path_table* cs_paths(const crowd_world* w) {
    return w->state[CS_BEH_PATH];
}

// How far (in tube radii) the predicted position may be from the best segment of its hint
// window before a follower counts as lost and searches the whole path.
#define CS_PATH_LOST_TUBES 4.0f

// How many times a window may slide ahead in one step when its best segment is its front edge
// (a fast follower on short segments).
#define CS_PATH_MAX_SLIDES 8

// ---- storing a follower (path_agent.c)
// -----------------------------------------------------------

// A follower in slot s takes def (its profile) and progress a; its columns and a profile are
// reserved (crowd_agent_set_path's reserve_storage, or the snapshot's).
void cs_path_store(crowd_world* w, int s, const crowd_path_follow_def* def, const cs_path_agent* a);
// The columns of every follower (allocated; they come into use with the first cs_path_store).
crowd_status cs_path_reserve_columns(crowd_world* w);
// The memo columns come into use (may fail: CROWD_ERR_OUT_OF_MEMORY, changing nothing shown).
crowd_status cs_path_memo_use(crowd_world* w);

// ---- the pass (path.c, CROWD_PHASE_PATH) and the table hooks -----------------------------------
void cs_pass_path(crowd_world* w);
void cs_path_on_remove(crowd_world* w, uint32_t idx); // path_agent.c
uint64_t cs_path_hash(const crowd_world* w, uint32_t idx, uint64_t h);
void cs_paths_free(crowd_world* w); // path_store.c: frees every path

// ---- routed waypoint legs (path_route.c) -------------------------------------------------------

static inline bool cs_path_routes(const crowd_path_follow_def* d) {
    return d->kind == CROWD_PATH_WAYPOINTS && d->route == CROWD_ROUTE_FIELD;
}

// A follower with a routed def starts (join: may fail with the budget's CROWD_ERR_CAPACITY or
// CROWD_ERR_OUT_OF_MEMORY, changing nothing) or stops (leave) using path entry e.
crowd_status cs_path_route_join(crowd_world* w, cs_path_entry* e);
void cs_path_route_leave(crowd_world* w, cs_path_entry* e);
// Table hooks of a split world (core/behavior.h): the uses counted. (A follower keeps no handle
// with its world's tag: cs_path_profile.)
void cs_path_route_uses(const crowd_world* w, uint32_t idx, void* out);
void cs_path_route_uses_end(crowd_world* w, const void* in);
bool cs_path_route_uses_held(const crowd_world* w);
cs_sep_form cs_path_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags);
// The agent idx's record stops routing on its path, when it did (its path still live).
void cs_path_route_drop(crowd_world* w, uint32_t idx);
// Entry e's points change to pts[0, n) (a replace): the new points are counted first (may fail,
// changing nothing), then the old ones released by cs_path_route_release.
crowd_status cs_path_route_count(crowd_world* w, const cs_path_entry* e, const crowd_vec2* pts,
                                 int n);
void cs_path_route_release(crowd_world* w, const cs_path_entry* e);
// Table hooks.
crowd_status cs_path_count_routes(crowd_world* w);
bool cs_path_route(const crowd_world* w, uint32_t idx, int slot, crowd_route_info* out);

// ---- lookup (path_store.c) --------------------------------------------------------------------

// The live path behind a handle, or the error that makes the handle invalid.
crowd_status cs_path_lookup(const crowd_world* w, crowd_path_id id, const cs_path_entry** out);

// ---- snapshot restore (path_store.c) ------------------------------------------------------------

// An empty table of `used` slots (all free, generation and revision 0) on a world without one.
crowd_status cs_path_table_restore(crowd_world* w, int used);
// Builds a path into a free slot of the restored table exactly as crowd_path_create would;
// points a live world could not hold are CROWD_ERR_SNAPSHOT_CORRUPT.
crowd_status cs_path_slot_restore(crowd_world* w, int slot, const crowd_vec2* points, int count);

// The rules crowd_agent_set_path applies to a def, the path handle and start index aside
// (path_agent.c).
crowd_status cs_path_check_follow(const crowd_path_follow_def* d);

// ---- queries (path_query.c) -------------------------------------------------------------------

// Nearest of the first `segs` segments to p (count - 1 or count), lowest index on ties: the same
// answer as crowd_path_closest_segment, through the grid.
int cs_path_nearest(const cs_path* p, int segs, crowd_vec2 q, float* dist);

// Nearest segment to q in a window around `hint`, biased toward the direction of travel, sliding
// ahead while the best segment is the window's front edge. *proj and *dist get q's projection on
// it (cs_path_project_seg's).
int cs_path_track(const float* seg, int count, int segs, bool closed, int dir, int hint,
                  crowd_vec2 q, crowd_vec2* proj, float* dist);

// ---- the behaviors' math ------------------------------------------------------------------------

static inline crowd_vec2 cs_path_project_seg(const cs_path_seg* s, crowd_vec2 p, float* dist) {
    const float apx = p.x - s->ax, apy = p.y - s->ay;
    float t = (apx * s->abx + apy * s->aby) / s->len2;
    t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
    const crowd_vec2 proj = {s->ax + s->abx * t, s->ay + s->aby * t};
    const float dx = p.x - proj.x, dy = p.y - proj.y;
    *dist = sqrtf(dx * dx + dy * dy);
    return proj;
}

static inline cs_path_seg cs_path_make_seg(crowd_vec2 a, crowd_vec2 b) {
    const float abx = b.x - a.x, aby = b.y - a.y;
    const float l2 = abx * abx + aby * aby;
    return (cs_path_seg){a.x, a.y, abx, aby, l2 > 1e-4f ? l2 : 1e-4f};
}

// Grid cell of coordinate v, clamped to [0, cells) (NaN goes to 0).
static inline int cs_path_cell(double v, double origin, double cell, int cells) {
    const double c = floor((v - origin) / cell);
    if (!(c >= 0.0)) return 0;
    return c >= (double)cells ? cells - 1 : (int)c;
}

static inline int cs_path_final_point(int count, int dir) {
    return dir > 0 ? count - 1 : 0;
}

static inline float cs_path_dist(crowd_vec2 a, crowd_vec2 b) {
    const float dx = a.x - b.x, dy = a.y - b.y;
    return sqrtf(dx * dx + dy * dy);
}

// The arrive at a one-shot's final point: the form's.
static inline crowd_vec2 cs_path_arrive(const crowd_path_follow_def* d, crowd_vec2 pos,
                                        crowd_vec2 vel, float max_speed, float max_force,
                                        crowd_vec2 target) {
    if (d->form == CROWD_PATH_LITERAL)
        return cs_steer_arrive(pos, vel, max_speed, target, d->slow_radius);
    return cs_steer_arrive_stop(pos, vel, max_speed, max_force, target, d->slow_radius);
}

// `nav`: the world's navigation when the leg is routed (crowd/nav.h), else NULL (straight at the
// waypoint, the spec's form); `a` then holds the follower's memo of its field entry. The waypoint
// is reached within arrive_radius either way; a routed leg steers at its way's next corner, pushed
// out beyond where an arrive slows down.
static inline crowd_vec2 cs_path_waypoint_inline(const crowd_vec2* pts, int count,
                                                 const crowd_path_follow_def* d,
                                                 crowd_path_cursor* c, crowd_vec2 pos,
                                                 crowd_vec2 vel, float max_speed, float max_force,
                                                 const cs_nav* nav, cs_path_agent* a) {
    const int final_pt = cs_path_final_point(count, c->direction), was = c->index;
    if (cs_path_dist(pos, pts[c->index]) < d->arrive_radius) {
        switch (d->mode) {
        case CROWD_PATH_LOOP:
            c->index = (c->index + c->direction + count) % count;
            break;
        case CROWD_PATH_PING_PONG: {
            const int next = c->index + c->direction;
            if (next < 0 || next >= count) c->direction = -c->direction;
            c->index += c->direction;
            break;
        }
        case CROWD_PATH_ONE_SHOT:
        case CROWD_PATH_MODE_COUNT:
            if (c->index == final_pt)
                c->state = CROWD_PATH_STATE_FINISHED;
            else
                c->index += c->direction;
            break;
        }
    }
    crowd_vec2 target = pts[c->index];
    if (nav && nav->blocked) {
        // The memo belongs to one waypoint (and one revision of the path: cs_path_sync drops it).
        if (c->index != was) a->nav = (cs_nav_memo){0};
        const cs_nav_aim aim = cs_nav_aim_memo(nav, target, (crowd_exits_id){0}, pos, &a->nav);
        target = cs_nav_steer_point(aim, pos, d->slow_radius + max_speed * max_speed / max_force);
    }
    if (d->mode == CROWD_PATH_ONE_SHOT && c->index == final_pt)
        return cs_path_arrive(d, pos, vel, max_speed, max_force, target);
    return cs_steer_seek(pos, vel, max_speed, target);
}

// Most segments a FLOW look-ahead walks across (tiny segments end the walk early).
#define CS_PATH_LOOK_SEGMENTS 16

// Unit direction of travel along segment j (points j -> j + 1 mod count, times dir).
static inline crowd_vec2 cs_path_travel_dir(const crowd_vec2* pts, int count, int j, int dir) {
    const crowd_vec2 a = pts[j], b = pts[j + 1 == count ? 0 : j + 1];
    const crowd_vec2 u = cs_steer_normalize(cs_steer_v2(b.x - a.x, b.y - a.y));
    return cs_steer_v2(u.x * (float)dir, u.y * (float)dir);
}

// The FLOW aim: `look` metres along the path from proj on segment k in direction dir, through the
// following segments (a loop wraps; other modes stop at the path's end, *at_end then set), shifted
// by `side` metres to the left of the direction of travel there (not at the end).
static inline crowd_vec2 cs_path_look_ahead(const crowd_vec2* pts, int count, crowd_path_mode mode,
                                            int k, int dir, crowd_vec2 proj, float look, float side,
                                            bool* at_end) {
    const int segs = mode == CROWD_PATH_LOOP ? count : count - 1;
    crowd_vec2 at = proj;
    int j = k;
    *at_end = false;
    for (int step = 0; step < CS_PATH_LOOK_SEGMENTS; ++step) {
        const crowd_vec2 end = dir > 0 ? pts[j + 1 == count ? 0 : j + 1] : pts[j];
        const float left = cs_path_dist(end, at);
        if (look <= left) {
            const float t = left > 0.0f ? look / left : 0.0f;
            at = cs_steer_v2(at.x + (end.x - at.x) * t, at.y + (end.y - at.y) * t);
            break;
        }
        look -= left;
        at = end;
        const int nj = j + dir;
        if (mode == CROWD_PATH_LOOP) {
            j = (nj + segs) % segs;
        } else if (nj < 0 || nj >= segs) {
            *at_end = true;
            break;
        } else {
            j = nj;
        }
    }
    // At the path's end the aim is the end point itself, which the agent must come within
    // arrive_radius of to turn or finish.
    const crowd_vec2 u = cs_path_travel_dir(pts, count, j, dir);
    const float s = *at_end ? 0.0f : side;
    return cs_steer_v2(at.x - u.y * s, at.y + u.x * s);
}

// Tube step on segment k, given the projection of the predicted position on it (proj, at `dist`
// from it: cs_path_project_seg's). A FINISHED one-shot does not read them.
static inline crowd_vec2 cs_path_tube_inline(const crowd_vec2* pts, int count, crowd_vec2 proj,
                                             float dist, const crowd_path_follow_def* d,
                                             crowd_path_cursor* c, int k, crowd_vec2 pos,
                                             crowd_vec2 vel, float max_speed, float max_force) {
    const bool one_shot = d->mode == CROWD_PATH_ONE_SHOT;
    const int final_pt = cs_path_final_point(count, c->direction);
    if (one_shot && c->state == CROWD_PATH_STATE_FINISHED)
        return cs_path_arrive(d, pos, vel, max_speed, max_force, pts[final_pt]);

    const crowd_vec2 predicted = {pos.x + vel.x * d->predict_ahead,
                                  pos.y + vel.y * d->predict_ahead};
    const int end = k + 1 == count ? 0 : k + 1;
    int next = c->direction > 0 ? end : k;
    if (d->mode == CROWD_PATH_PING_PONG && next == final_pt &&
        cs_path_dist(pos, pts[next]) < d->arrive_radius) {
        c->direction = -c->direction;
        next = c->direction > 0 ? end : k;
    } else if (one_shot && next == final_pt && cs_path_dist(pos, pts[next]) < d->arrive_radius) {
        c->state = CROWD_PATH_STATE_FINISHED;
    }
    c->segment = k;
    c->index = next;
    if (c->state == CROWD_PATH_STATE_FINISHED)
        return cs_path_arrive(d, pos, vel, max_speed, max_force, pts[final_pt]);
    if (d->form == CROWD_PATH_LITERAL) {
        if (dist > d->tube_radius) return cs_steer_seek(pos, vel, max_speed, proj);
        if (one_shot && next == final_pt)
            return cs_steer_arrive(pos, vel, max_speed, pts[next], d->slow_radius);
        return cs_steer_seek(pos, vel, max_speed, pts[next]);
    }
    // FLOW: the predicted position's offset to the left of the direction of travel keeps the
    // agent's lane, within a band 0.25 to 0.75 tube radii to the right, so that opposite flows
    // pass (none outside the tube: back onto the path).
    const crowd_vec2 u = cs_path_travel_dir(pts, count, k, c->direction);
    const float lateral = (predicted.x - proj.x) * -u.y + (predicted.y - proj.y) * u.x;
    const float cap = 0.75f * d->tube_radius;
    float side = lateral < -cap ? -cap : (lateral > -cap / 3.0f ? -cap / 3.0f : lateral);
    side = dist > d->tube_radius ? 0.0f : side;
    bool at_end;
    const crowd_vec2 aim =
        cs_path_look_ahead(pts, count, d->mode, k, c->direction, proj,
                           CROWD_PATH_LOOK_AHEAD_TIME * max_speed, side, &at_end);
    if (one_shot && at_end) return cs_path_arrive(d, pos, vel, max_speed, max_force, pts[final_pt]);
    return cs_steer_seek(pos, vel, max_speed, aim);
}

// ---- followers ----------------------------------------------------------------------------------

// Brings a follower's cursor up to date with its path and returns the path's entry, or NULL
// (state DETACHED) when the path was destroyed. After a replace the cursor is clamped as path.h
// says.
static inline const cs_path_entry* cs_path_sync(const cs_path_table* t,
                                                const crowd_path_follow_def* d, cs_path_agent* a) {
    const uint32_t slot = d->path.index1 - 1;
    const cs_path_entry* e = t && slot < (uint32_t)t->used ? &t->entries[slot] : NULL;
    if (!e || !e->path || e->generation != d->path.generation) {
        a->cursor.state = CROWD_PATH_STATE_DETACHED;
        return NULL;
    }
    if (e->revision != a->revision) {
        const int last = e->count - 1;
        a->revision = e->revision;
        a->nav = (cs_nav_memo){0}; // the points, so the waypoints' fields, may differ
        a->cursor.index = a->cursor.index > last ? last : a->cursor.index;
        a->cursor.segment = -1;
        if (a->cursor.state == CROWD_PATH_STATE_FINISHED)
            a->cursor.state = CROWD_PATH_STATE_FOLLOWING;
        a->lost_dist = 0.0f;
    }
    return e;
}

#endif
