// Where people go: RiMEA test 10 (assigned exits: everyone leaves by the exit their room was
// given, through the rooms' doors and a 1 m corridor) and RiMEA test 11 (choice of escape route:
// a crowd heading for the nearer of two exits by walking distance, where the jam at the nearer
// one sends some to the other). Both use routed goals; agents are removed once outside.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

#define DT 0.1

// ---- RiMEA test 10 -----------------------------------------------------------------------------

// The floor (metres): a corridor along x in [0, 8.7] between y = 5 and y = 6; rooms 1-6 north of
// it (y in [6, 11]) and 7-12 south of it (y in [0, 5]), in six columns of these widths from the
// west. Each room opens onto the corridor through a 0.9 m door in the middle of its side; room 3
// is the 1.2 m passage up to the main exit (its whole north end), and the corridor's east end is
// the secondary exit.
enum { R10_ROOMS = 12, R10_COLS = 6, R10_PEOPLE = 23 };
static const float R10_WIDTH[R10_COLS] = {1.5f, 1.5f, 1.2f, 1.5f, 1.5f, 1.5f};
#define R10_LEN 8.7f
#define R10_DOOR 0.9f
// Rooms whose people are given the main exit (the rest: the secondary one).
static bool r10_main(int room) {
    return room != 5 && room != 6 && room != 11 && room != 12;
}

// The west edge of column c (c = R10_COLS: the east end).
static float r10_left(int c) {
    float x = 0.0f;
    for (int k = 0; k < c; ++k) x += R10_WIDTH[k];
    return x;
}

// A wall along y over the whole floor, with a door of door[c] metres (0: none) in the middle of
// column c (a door as wide as its column opens all of it).
static bool r10_row_wall(crowd_world* w, vwalls* keep, float y, const float door[R10_COLS]) {
    float x = 0.0f;
    for (int c = 0; c < R10_COLS; ++c) {
        if (!(door[c] > 0.0f)) continue;
        const float mid = r10_left(c) + 0.5f * R10_WIDTH[c], half = 0.5f * door[c];
        if (mid - half > x && !v_wall(w, keep, x, y, mid - half, y)) return false;
        x = mid + half;
    }
    return x >= R10_LEN || v_wall(w, keep, x, y, R10_LEN, y);
}

static bool r10_floor(crowd_world* w, vwalls* keep) {
    const float d = R10_DOOR, p = R10_WIDTH[2];
    static const float none[R10_COLS] = {0};
    const float south_side[R10_COLS] = {d, d, d, d, d, d};  // rooms 7-12
    const float north_side[R10_COLS] = {d, d, p, d, d, d};  // rooms 1-6, room 3 open
    const float outer_north[R10_COLS] = {0, 0, p, 0, 0, 0}; // the main exit
    bool ok = r10_row_wall(w, keep, 5.0f, south_side) && r10_row_wall(w, keep, 6.0f, north_side) &&
              r10_row_wall(w, keep, 0.0f, none) && r10_row_wall(w, keep, 11.0f, outer_north) &&
              v_wall(w, keep, 0.0f, 0.0f, 0.0f, 11.0f) &&
              v_wall(w, keep, R10_LEN, 0.0f, R10_LEN, 5.0f) &&
              v_wall(w, keep, R10_LEN, 6.0f, R10_LEN, 11.0f);
    for (int c = 1; ok && c < R10_COLS; ++c) {
        const float x = r10_left(c);
        ok = v_wall(w, keep, x, 0.0f, x, 5.0f) && v_wall(w, keep, x, 6.0f, x, 11.0f);
    }
    return ok;
}

void vcase_rimea10(const vopts* o, vresult* r) {
    (void)o;
    snprintf(r->setup, VTEXT,
             "A floor of twelve rooms 5 m deep, six on each side of a corridor 8.7 m long and "
             "1 m wide, in columns 1.5, 1.5, 1.2, 1.5, 1.5 and 1.5 m wide; each room opens onto "
             "the corridor through a 0.9 m door, except room 3 (north, third column), the 1.2 m "
             "passage to the main exit at its north end. The secondary exit is the corridor's "
             "east end. %d people, two a room (room 3: one); rooms 1-4 and 7-10 are given the "
             "main exit, rooms 5, 6, 11 and 12 the secondary one, as a routed SEEK goal 1.5 m "
             "outside it (so rooms 4 and 10 walk west along the corridor and rooms 5 and 11 "
             "east, each to its own exit). Measured: which exit each agent leaves by, the time "
             "the last one leaves, and the least clearance between an agent's body and a wall.",
             R10_PEOPLE);
    snprintf(r->reference, VTEXT,
             "every person leaves by the exit assigned to their room; everyone leaves (within "
             "120 s); no body overlaps a wall by more than 0.05 m");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 10 (allocation of escape routes): the floor plan of its "
             "figure, 23 persons, rooms 1, 2, 3, 4, 7, 8, 9, 10 to the main exit and 5, 6, 11, 12 "
             "to the secondary exit; all allocated persons must use their exit.");
    crowd_world* w = v_world(32);
    vwalls walls = {0};
    bool ok = w && r10_floor(w, &walls);
    crowd_agent_id ids[R10_PEOPLE];
    int room_of[R10_PEOPLE], exit_of[R10_PEOPLE];
    int n = 0;
    for (int room = 1; ok && room <= R10_ROOMS; ++room) {
        const int c = (room - 1) % R10_COLS;
        const bool north = room <= R10_COLS;
        const float cx = r10_left(c) + 0.5f * R10_WIDTH[c], cy = north ? 8.5f : 2.5f;
        const int people = room == 3 ? 1 : 2;
        for (int k = 0; k < people && ok; ++k) {
            crowd_agent_def d = v_pedestrian();
            d.position = (crowd_vec2){cx, people == 1 ? cy : cy + (k ? 0.6f : -0.6f)};
            d.goal = crowd_goal_default();
            d.goal.mode = CROWD_GOAL_SEEK;
            d.goal.target = r10_main(room) ? (crowd_vec2){r10_left(2) + 0.5f * R10_WIDTH[2], 12.5f}
                                           : (crowd_vec2){R10_LEN + 1.5f, 5.5f};
            room_of[n] = room;
            exit_of[n] = 0;
            ok = crowd_agent_add(w, &d, &ids[n]) == CROWD_OK;
            ++n;
        }
    }
    int left = 0, wrong = 0, tick = 0;
    float min_clear = INFINITY;
    const int limit = (int)(120.0 / DT);
    for (; ok && tick < limit && left < n; ++tick) {
        ok = crowd_world_step(w) == CROWD_OK;
        for (int i = 0; ok && i < n; ++i) {
            if (exit_of[i]) continue;
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            min_clear = fminf(min_clear, v_wall_distance(&walls, q) - 0.3f);
            const int e = q.y > 11.3f ? 1 : q.x > R10_LEN + 0.3f ? 2 : 0;
            if (!e) continue;
            exit_of[i] = e;
            wrong += (e == 1) != r10_main(room_of[i]);
            left++;
            crowd_agent_remove(w, ids[i]);
        }
    }
    crowd_world_destroy(w);
    if (!ok) {
        snprintf(r->measured, VTEXT, "the engine refused the set-up or a step");
        return;
    }
    snprintf(r->measured, VTEXT,
             "%d of %d left, the last after %.1f s; %d by the wrong exit; least clearance "
             "between a body and a wall %.3f m",
             left, n, tick * DT, wrong, min_clear);
    vcat(r->measured, "\n\n| room | exit given | exits taken |\n|---|---|---|\n");
    for (int room = 1; room <= R10_ROOMS; ++room) {
        vcat(r->measured, "| %d | %s |", room, r10_main(room) ? "main" : "secondary");
        for (int i = 0; i < n; ++i)
            if (room_of[i] == room)
                vcat(r->measured, " %s",
                     exit_of[i] == 1   ? "main"
                     : exit_of[i] == 2 ? "secondary"
                                       : "none");
        vcat(r->measured, " |\n");
    }
    r->pass = left == n && wrong == 0 && min_clear >= -0.05f;
}

// ---- RiMEA test 11 -----------------------------------------------------------------------------

// The room: x in [0, 30], y in [0, 20]; exits of 1 m in the north wall, centred at x = 22 (exit 1,
// the nearer) and x = 28 (exit 2); the crowd fills the room's west part.
#define R11_EXIT1 22.0f
#define R11_EXIT2 28.0f

void vcase_rimea11(const vopts* o, vresult* r) {
    const int n = o->small ? 300 : 1000;
    const float x1 = o->small ? 8.0f : 20.0f; // the crowd's east edge
    snprintf(r->setup, VTEXT,
             "A room 30 m x 20 m with two 1 m exits in its north wall, centred 22 m (exit 1) "
             "and 28 m (exit 2) from its west wall. %d agents fill its west part (x from 0.5 to "
             "%.1f m, %.1f persons/m^2) on a jittered grid. Each has a SEEK goal naming an exit "
             "set of the two exits' points 1.5 m outside (crowd_exits_create), so it heads for "
             "the nearer by walking distance from where it stands, and is removed once out. "
             "Measured: how many leave by each exit, and the time the last one leaves.",
             n, x1, n / ((x1 - 0.5) * 19.0));
    snprintf(r->reference, VTEXT,
             "exit 1 (the nearer) takes most people and a jam forms before it; some use exit 2; "
             "everyone leaves");
    snprintf(r->source, VTEXT,
             "RiMEA 3.0.0 (2016), test 11 (choice of escape route): the persons are expected to "
             "prefer the nearer exit, where congestion forms, while individual persons also use "
             "the other one. The guideline sets no numbers; the test checks that both happen.");
    crowd_world* w = v_world(n + 16);
    const float h = 0.5f;
    bool ok = w && v_wall(w, NULL, 0, 0, 30, 0) && v_wall(w, NULL, 0, 0, 0, 20) &&
              v_wall(w, NULL, 30, 0, 30, 20) && v_wall(w, NULL, 0, 20, R11_EXIT1 - h, 20) &&
              v_wall(w, NULL, R11_EXIT1 + h, 20, R11_EXIT2 - h, 20) &&
              v_wall(w, NULL, R11_EXIT2 + h, 20, 30, 20);
    const crowd_vec2 exits[2] = {{R11_EXIT1, 21.5f}, {R11_EXIT2, 21.5f}};
    crowd_exits_id set = {0};
    ok = ok && crowd_exits_create(w, exits, 2, &set) == CROWD_OK;
    crowd_agent_id* ids = calloc((size_t)n, sizeof *ids);
    bool* in = calloc((size_t)n, sizeof *in);
    crowd_agent_def d = v_pedestrian();
    d.goal = crowd_goal_default();
    d.goal.mode = CROWD_GOAL_SEEK;
    d.goal.exits = set;
    ok = ok && ids && in && v_place(w, d, n, 0.5f, x1, 0.5f, 19.5f, 1111, ids);
    for (int i = 0; ok && i < n; ++i) in[i] = true;
    int by[2] = {0, 0}, left = 0, tick = 0;
    const int limit = 12000;
    r->has_plot = true;
    vplot* p = &r->plot;
    p->xlabel = "time (s)";
    p->ylabel = "agents out";
    p->xmin = 0, p->ymin = 0, p->ymax = n;
    vseries* s1 = vplot_add(p, VSERIES_LINE, "by exit 1 (nearer)", "#e76f51");
    vseries* s2 = vplot_add(p, VSERIES_LINE, "by exit 2", "#2a9d8f");
    for (; ok && tick < limit && left < n; ++tick) {
        ok = crowd_world_step(w) == CROWD_OK;
        for (int i = 0; ok && i < n; ++i) {
            if (!in[i]) continue;
            crowd_vec2 q;
            crowd_agent_get_position(w, ids[i], &q);
            if (q.y <= 20.3f) continue;
            by[q.x < 0.5f * (R11_EXIT1 + R11_EXIT2) ? 0 : 1]++;
            in[i] = false;
            left++;
            crowd_agent_remove(w, ids[i]);
        }
        if (tick % 50 == 0 && s1->n < VPLOT_MAX_POINTS - 1) {
            vseries_push(s1, (tick + 1) * DT, by[0], 0);
            vseries_push(s2, (tick + 1) * DT, by[1], 0);
        }
    }
    vseries_push(s1, tick * DT, by[0], 0);
    vseries_push(s2, tick * DT, by[1], 0);
    p->xmax = tick * DT;
    crowd_world_destroy(w);
    free(ids), free(in);
    if (!ok) {
        snprintf(r->measured, VTEXT, "the engine refused the set-up or a step");
        return;
    }
    snprintf(r->measured, VTEXT,
             "exit 1: %d, exit 2: %d (%.1f%%); %d of %d left, the last after %.1f s", by[0], by[1],
             100.0 * by[1] / (double)n, left, n, tick * DT);
    r->pass = left == n && by[0] > by[1] && by[1] > 0;
}
