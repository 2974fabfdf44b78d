// The scenario parser and builder of the crowd command.
//
// Bad documents: every case states the message and the text the error must point at; the test
// finds that text itself and computes the expected line and column, so positions are checked
// independently of the parser's position index.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "scenario.h"
#include "scenes.h"

// Line and column (code points) of the nth occurrence of `at` in text; at == NULL: end of text.
static void position_of(const char* text, const char* at, int nth, int* line, int* col) {
    const char* p = text + strlen(text);
    if (at) {
        p = text;
        for (int k = 0; k <= nth; ++k) {
            p = strstr(k ? p + 1 : p, at);
            cr_assert(p, "test error: marker '%s' #%d not in the text", at, nth);
        }
    }
    *line = 1;
    *col = 1;
    for (const char* q = text; q < p; ++q) {
        if (*q == '\n') {
            (*line)++;
            *col = 1;
        } else if ((*q & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

typedef struct bad_case {
    const char* text;
    const char* at; // the error points at the start of this text (NULL: the end of the file)
    int nth;        // which occurrence of `at`
    const char* message;
} bad_case;

#define AREA "\"area\": {\"kind\": \"grid\", \"center\": [0, 0]}"

static const bad_case BAD[] = {
    // syntax
    {"", NULL, 0, "expected a value, got the end of the file"},
    {"{\"crowds\": [1,]}", "]", 0, "trailing comma before ']'"},
    {"{\"crowds\": [1], }", "}", 0, "trailing comma before '}'"},
    {"{\"crowds\" []}", "[", 0, "expected ':' after the key, got '['"},
    {"{\n  // a comment\n  \"crowds\": []\n}", "//", 0,
     "expected a key in double quotes, got a comment (JSON has none)"},
    {"{\"crowds\": \"abc", "\"abc", 0, "unterminated string"},
    {"{\"world\": {\"seed\": 01}}", "01", 0, "invalid number: leading zero"},
    {"{\"world\": {\"dt\": 1.}}", "1.", 0, "invalid number: digits must follow '.'"},
    {"{\"crowds\": [],\n \"crowds\": []}", "\"crowds\"", 1, "duplicate key \"crowds\""},
    {"{} x", "x", 0, "expected the end of the file after the document, got 'x'"},
    {"{\"name\": \"a\\q\"}", "\\q", 0, "invalid escape in a string"},
    {"{\"name\": \"\xc3\xb1"
     "and\xc3\xba\", \"x\": }",
     "}", 0, "expected a value (object, array, string, number, true, false or null), got '}'"},
    {"{\"crowds\": [tru]}", "tru", 0,
     "expected a value (object, array, string, number, true, false or null)"},
    {"{\"crowds\": [1 2]}", "2", 0, "expected ',' or ']' after an array element, got '2'"},
    {"{\"crowds\": [1]", "{", 0, "unterminated object"},
    {"{\"crowds\": [1", "[", 0, "unterminated array"},
    // the document
    {"[]", "[", 0, "expected an object (a scenario), got an array of 0 elements"},
    {"{\"crowds\": [], \"wrold\": {}}", "\"wrold\"", 0,
     "unknown key \"wrold\" in a scenario (expected one of: name, description, world, obstacles, "
     "paths, exits, crowds)"},
    {"{\"name\": \"x\"}", "{", 0, "missing key \"crowds\""},
    {"{\"name\": null, \"crowds\": []}", "null", 0, "name: expected a string, got null"},
    {"{\"crowds\": {}}", "{}", 0, "crowds: expected an array (crowds), got an object"},
    {"{\"crowds\": []}", "[]", 0, "crowds: expected at least one crowd, got an empty array"},
    {"{\"a\\nb\": 1, \"crowds\": []}", "\"a", 0,
     "unknown key \"a\\nb\" in a scenario (expected one of: name, description, world, obstacles, "
     "paths, exits, crowds)"},
    // world
    {"{\"world\": {\"dt\": -0.1}, \"crowds\": []}", "-0.1", 0,
     "world.dt: expected a number in (0, 10], got -0.1"},
    {"{\"world\": {\"dt\": 11}, \"crowds\": []}", "11", 0,
     "world.dt: expected a number in (0, 10], got 11"},
    {"{\"world\": {\"cell_size\": 0.001}, \"crowds\": []}", "0.001", 0,
     "world.cell_size: expected a number in [0.01, 10000], got 0.001"},
    // invalid UTF-8 anywhere, in a string or not, is refused where it starts
    {"{\"name\": \"ab\xff\", \"crowds\": []}", "\xff", 0, "invalid UTF-8 (byte 0xff)"},
    {"{\"name\": \"\xc3\xb1\xc0\xaf\", \"crowds\": []}", "\xc0", 0, "invalid UTF-8 (byte 0xc0)"},
    {"{\"name\": \"\xed\xa0\x80\", \"crowds\": []}", "\xed", 0, "invalid UTF-8 (byte 0xed)"},
    {"{\"name\": \"x\xe2\x82\", \"crowds\": []}", "\xe2", 0, "invalid UTF-8 (byte 0xe2)"},
    {"{\"crowds\": []}\xf5", "\xf5", 0, "invalid UTF-8 (byte 0xf5)"},
    {"{\"world\": {\"dt\": 1e39}, \"crowds\": []}", "1e39", 0,
     "world.dt: 1e+39 is out of the float range"},
    {"{\"world\": {\"dt\": 1e-50}, \"crowds\": []}", "1e-50", 0,
     "world.dt: expected a number in (0, 10], got 1e-50"},
    {"{\"world\": {\"dtt\": 0.1}, \"crowds\": []}", "\"dtt\"", 0,
     "world: unknown key \"dtt\" in world settings (expected one of: dt, cell_size, seed, ticks, "
     "record_every, nav)"},
    {"{\"world\": {\"seed\": 1.5}, \"crowds\": []}", "1.5", 0,
     "world.seed: expected an integer in [0, 2^53], got 1.5"},
    {"{\"world\": {\"ticks\": 0}, \"crowds\": []}", "0}", 0,
     "world.ticks: expected an integer in [1, 100000000], got 0"},
    {"{\"world\": {\"cell_size\": \"big\"}, \"crowds\": []}", "\"big\"", 0,
     "world.cell_size: expected a number in [0.01, 10000], got \"big\""},
    // crowds and areas
    {"{\"crowds\": [{\"count\": 5}]}", "{\"count\"", 0, "crowds[0]: missing key \"area\""},
    {"{\"crowds\": [{\"count\": 2.5, " AREA "}]}", "2.5", 0,
     "crowds[0].count: expected an integer in [1, 16777216], got 2.5"},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"square\"}}]}", "\"square\"", 0,
     "crowds[0].area.kind: expected one of \"uniform\", \"grid\", \"jittered_grid\", \"circle\", "
     "got \"square\""},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"center\": [0, 0]}}]}", "{\"center\"", 0,
     "crowds[0].area: missing key \"kind\""},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], "
     "\"radius\": 2, \"spacing\": 1}}]}",
     "\"spacing\"", 0,
     "crowds[0].area: unknown key \"spacing\" in a circle area (expected one of: kind, center, "
     "radius)"},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"uniform\", \"min\": [0, 0], "
     "\"max\": [-1, 5]}}]}",
     "[-1, 5]", 0, "crowds[0].area: expected max >= min on both axes, got min [0, 0], max [-1, 5]"},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"grid\", \"center\": [1]}}]}", "[1]", 0,
     "crowds[0].area.center: expected [x, y] (an array of two numbers), got an array of 1 "
     "element"},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"grid\", \"center\": [1, \"a\"]}}]}",
     "\"a\"", 0, "crowds[0].area.center[1]: expected a number, got \"a\""},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"jittered_grid\", \"center\": [0, 0], "
     "\"jitter\": 0.7}}]}",
     "0.7", 0, "crowds[0].area.jitter: expected a number in [0, 0.5], got 0.7"},
    {"{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"grid\", \"center\": [0, 0], "
     "\"jitter\": 0.2}}]}",
     "\"jitter\"", 0,
     "crowds[0].area: unknown key \"jitter\" in a grid area (expected one of: kind, center, "
     "spacing, columns)"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"a/b~c\": 1}]}", "\"a/b~c\"", 0,
     "crowds[0]: unknown key \"a/b~c\" in a crowd (expected one of: name, count, area, agent, "
     "goal, queue, path, followers)"},
    // agents
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"max_speed\": [2, 1]}}]}", "[2, 1]", 0,
     "crowds[0].agent.max_speed: expected a range [lo, hi] with lo <= hi, got [2, 1]"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"max_speed\": {\"kind\": \"normal\", "
     "\"mean\": 1, \"sd\": 0.1, \"min\": 2, \"max\": 1}}}]}",
     "{\"kind\": \"normal\"", 0,
     "crowds[0].agent.max_speed: expected min <= max, got min 2 and max 1"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"max_speed\": {\"kind\": \"age\", "
     "\"group\": \"old\"}}}]}",
     "\"old\"", 0,
     "crowds[0].agent.max_speed.group: expected one of \"under_30\", \"30_to_50\", \"over_50\", "
     "\"limited_mobility\", got \"old\""},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"max_speed\": {\"kind\": \"uniform\", "
     "\"min\": 1}}}]}",
     "{\"kind\": \"uniform\"", 0, "crowds[0].agent.max_speed: missing key \"max\""},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"radius\": \"big\"}}]}", "\"big\"", 0,
     "crowds[0].agent.radius: expected a number > 0 or a range [lo, hi], got \"big\""},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"separation_weight\": [0, -1]}}]}", "-1",
     0, "crowds[0].agent.separation_weight[1]: expected a number >= 0, got -1"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"heading\": [0, 0]}}]}", "[0, 0]}}", 0,
     "crowds[0].agent.heading: expected a direction of non-zero length, got [0, 0]"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"velocity\": [1, 0], "
     "\"random_speed\": 1}}]}",
     "\"random_speed\"", 0, "crowds[0].agent: random_speed and velocity exclude each other"},
    // goals
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"goal\": {\"mode\": \"seek\", \"target\": [0, 0]}, "
     "\"queue\": {\"target\": [0, 0]}}]}",
     "\"queue\"", 0, "crowds[0]: a crowd has at most one of goal, queue and path (it has goal)"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"wander\", \"target\": [0, 0]}}]}",
     "\"wander\"", 0,
     "crowds[0].goal.mode: expected one of \"seek\", \"arrive\", \"flee\", \"arrive_literal\", got "
     "\"wander\""},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"goal\": {\"mode\": \"seek\"}}]}", "{\"mode\"", 0,
     "crowds[0].goal: missing key \"target\" (or \"exits\", an exit set's name)"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"arrive\", \"target\": [0, 0], \"slow_radius\": 0}}]}",
     "0}", 0, "crowds[0].goal.slow_radius: expected a number > 0, got 0"},
    // queues
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"mode\": \"flee\"}}]}",
     "\"flee\"", 0, "crowds[0].queue.mode: expected one of \"seek\", \"arrive\", got \"flee\""},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"on_arrival\": \"respawn\"}}]}",
     "{\"target\"", 0,
     "crowds[0].queue: missing key \"start_area\" (on_arrival \"respawn\" needs it)"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"start_area\": {\"kind\": \"circle\", \"center\": [0, 0], "
     "\"radius\": 1}}}]}",
     "\"start_area\"", 0, "crowds[0].queue: start_area is only used with on_arrival \"respawn\""},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"on_arrival\": \"respawn\", \"start_area\": "
     "{\"kind\": \"grid\", \"center\": [0, 0]}}}]}",
     "\"grid\"", 1,
     "crowds[0].queue.start_area: expected a start area of kind \"uniform\" or \"circle\", got "
     "\"grid\""},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"on_arrival\": \"leave\"}}]}",
     "\"leave\"", 0,
     "crowds[0].queue.on_arrival: expected one of \"stop\", \"remove\", \"respawn\", got "
     "\"leave\""},
    // paths
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"b\"}}]}",
     "\"b\"", 0, "crowds[0].path.name: unknown path \"b\" (defined: a)"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"path\": {\"name\": \"b\"}}]}", "\"b\"", 0,
     "crowds[0].path.name: unknown path \"b\" (the scenario defines no paths)"},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"a\", \"tube_radius\": 2}}]}",
     "\"tube_radius\"", 0,
     "crowds[0].path: unknown key \"tube_radius\" in a waypoints path (expected one of: name, "
     "kind, mode, route, arrive_radius, slow_radius, weight)"},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"a\", \"kind\": \"tube\", \"arrive_radius\": 2}}]}",
     "\"arrive_radius\"", 0,
     "crowds[0].path: unknown key \"arrive_radius\" in a tube path (expected one of: name, kind, "
     "mode, tube_radius, predict_ahead, weight)"},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"a\", \"mode\": \"once\"}}]}",
     "\"once\"", 0,
     "crowds[0].path.mode: expected one of \"one_shot\", \"loop\", \"ping_pong\", got \"once\""},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]},\n {\"name\": \"a\", "
     "\"points\": [[0, 0], [1, 1]]}], \"crowds\": []}",
     "\"a\"", 1, "paths[1].name: duplicate path name \"a\" (paths[0] has it)"},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0]]}], \"crowds\": []}", "[[0, 0]]", 0,
     "paths[0].points: expected an array of at least 2 [x, y] points, got an array of 1 "
     "element"},
    {"{\"paths\": [{\"points\": [[0, 0], [1, 1]]}], \"crowds\": []}", "{\"points\"", 0,
     "paths[0]: missing key \"name\""},
    // obstacles
    {"{\"obstacles\": {}, \"crowds\": []}", "{}", 0,
     "obstacles: expected an array (obstacles), got an object"},
    {"{\"obstacles\": [{\"points\": [[0, 0], [1, 0]]}], \"crowds\": []}", "{\"points\"", 0,
     "obstacles[0]: missing key \"kind\""},
    {"{\"obstacles\": [{\"kind\": \"fence\", \"points\": [[0, 0], [1, 0]]}], \"crowds\": []}",
     "\"fence\"", 0, "obstacles[0].kind: expected one of \"wall\", \"polygon\", got \"fence\""},
    {"{\"obstacles\": [{\"kind\": \"wall\", \"points\": [[0, 0]]}], \"crowds\": []}", "[[0, 0]]", 0,
     "obstacles[0].points: expected an array of at least 2 [x, y] points, got an array of 1 "
     "element"},
    {"{\"obstacles\": [{\"kind\": \"polygon\", \"points\": [[0, 0], [1, 0]]}], \"crowds\": "
     "[]}",
     "[[0, 0]", 0,
     "obstacles[0].points: expected an array of at least 3 [x, y] points, got an array of 2 "
     "elements"},
    {"{\"obstacles\": [{\"kind\": \"wall\", \"points\": [[0, 0], [1, 0], [1, 0]]}], "
     "\"crowds\": []}",
     "[1, 0]", 1, "obstacles[0]: point 2 [1, 0] equals the point before it"},
    {"{\"obstacles\": [{\"kind\": \"polygon\", \"points\": [[0, 0], [1, 0], [1, 1], [0, "
     "0]]}], \"crowds\": []}",
     "[0, 0]", 1,
     "obstacles[0]: the polygon's last point [0, 0] equals its first (a polygon closes itself: "
     "leave the first point out at the end)"},
    {"{\"obstacles\": [{\"kind\": \"wall\", \"points\": [[0, 0], [1e39, 0]]}], \"crowds\": []}",
     "1e39", 0, "obstacles[0].points[1][0]: 1e+39 is out of the float range"},
    {"{\"obstacles\": [{\"kind\": \"wall\", \"points\": [[0, 0], [1, 0]], \"height\": 3}], "
     "\"crowds\": []}",
     "\"height\"", 0,
     "obstacles[0]: unknown key \"height\" in an obstacle (expected one of: name, kind, points)"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"agent\": {\"wall_look_ahead\": -1}}]}", "-1", 0,
     "crowds[0].agent.wall_look_ahead: expected a number >= 0, got -1"},
    // goal forms
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"seek\", \"target\": [0, 0], \"form\": \"spec\"}}]}",
     "\"spec\"", 0,
     "crowds[0].goal.form: expected one of \"pedestrian\", \"literal\", got \"spec\""},
    // routes, exit sets and navigation settings
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"seek\", \"target\": [0, 0], \"route\": \"around\"}}]}",
     "\"around\"", 0,
     "crowds[0].goal.route: expected one of \"field\", \"straight\", got \"around\""},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"flee\", \"target\": [0, 0], \"route\": \"straight\"}}]}",
     "\"route\"", 0, "crowds[0].goal: route is not used by a flee goal (it is never routed)"},
    {"{\"exits\": {\"doors\": [[1, 1]]}, \"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"seek\", \"target\": [0, 0], \"exits\": \"doors\"}}]}",
     "\"exits\"", 1,
     "crowds[0].goal: target and exits exclude each other (a goal is a point or an exit set)"},
    {"{\"exits\": {\"doors\": [[1, 1]]}, \"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"flee\", \"exits\": \"doors\"}}]}",
     "\"exits\"", 1,
     "crowds[0].goal: a flee goal flees a point (exits are for seek, arrive and arrive_literal)"},
    {"{\"exits\": {\"doors\": [[1, 1]], \"gates\": [[2, 2]]},\n \"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"arrive\", \"exits\": \"door\"}}]}",
     "\"door\"", 0, "crowds[0].goal.exits: unknown exit set \"door\" (defined: doors, gates)"},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"goal\": {\"mode\": \"arrive\", \"exits\": \"a\"}}]}",
     "\"a\"", 0,
     "crowds[0].goal.exits: unknown exit set \"a\" (the scenario defines no exit sets)"},
    {"{\"exits\": {\"a\": [[1, 1]]}, \"crowds\": [{\"count\": 1, " AREA
     ", \"goal\": {\"mode\": \"arrive\", \"exits\": [[1, 1]]}}]}",
     "[[1, 1]]", 1, "crowds[0].goal.exits: expected the name of an exit set (a string)"},
    {"{\"exits\": [[1, 1]], \"crowds\": []}", "[[1, 1]]", 0,
     "exits: expected an object (exit sets by name), got an array of 1 element"},
    {"{\"exits\": {\"a\": []}, \"crowds\": []}", "[]", 0,
     "exits.a: expected an array of at least 1 [x, y] points, got an array of 0 elements"},
    {"{\"exits\": {\"a\": [[1, 1], [2]]}, \"crowds\": []}", "[2]", 0,
     "exits.a[1]: expected [x, y] (an array of two numbers), got an array of 1 element"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"queue\": {\"target\": [0, 0], \"route\": \"field \"}}]}",
     "\"field \"", 0,
     "crowds[0].queue.route: expected one of \"field\", \"straight\", got \"field \""},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"a\", \"route\": 1}}]}",
     "1}", 0, "crowds[0].path.route: expected one of \"field\", \"straight\", got 1"},
    {"{\"paths\": [{\"name\": \"a\", \"points\": [[0, 0], [1, 1]]}],\n \"crowds\": [{\"count\": "
     "1, " AREA ", \"path\": {\"name\": \"a\", \"kind\": \"tube\", \"route\": \"field\"}}]}",
     "\"route\"", 0,
     "crowds[0].path: unknown key \"route\" in a tube path (expected one of: name, kind, mode, "
     "tube_radius, predict_ahead, weight)"},
    {"{\"world\": {\"nav\": []}, \"crowds\": []}", "[]", 0,
     "world.nav: expected an object (navigation settings), got an array of 0 elements"},
    {"{\"world\": {\"nav\": {\"cell\": 1}}, \"crowds\": []}", "\"cell\"", 0,
     "world.nav: unknown key \"cell\" in navigation settings (expected one of: cell_size, "
     "clearance, budget_mb)"},
    {"{\"world\": {\"nav\": {\"cell_size\": 0.005}}, \"crowds\": []}", "0.005", 0,
     "world.nav.cell_size: expected a number in [0.01, 10000], got 0.005"},
    {"{\"world\": {\"nav\": {\"clearance\": 0}}, \"crowds\": []}", "0}", 0,
     "world.nav.clearance: expected a number in (0, 10000], got 0"},
    {"{\"world\": {\"nav\": {\"cell_size\": 0.5, \"clearance\": 0.25}}, \"crowds\": []}", "0.25", 0,
     "world.nav: expected a clearance above half the cell size (0.25), got 0.25 (no wall may pass "
     "between two walkable cells)"},
    {"{\"world\": {\"nav\": {\"cell_size\": 1}}, \"crowds\": []}", "1}", 0,
     "world.nav: expected a cell size below twice the clearance (0.6), got 1 (set a larger "
     "clearance too)"},
    {"{\"world\": {\"nav\": {\"budget_mb\": -1}}, \"crowds\": []}", "-1", 0,
     "world.nav.budget_mb: expected a number in (0, 1e+06], got -1"},
    // followers
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"followers\": {\"count\": 0}}]}", "0}", 0,
     "crowds[0].followers.count: expected an integer in [1, 4096], got 0"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"followers\": {\"count\": 3, \"formation\": {\"shape\": \"custom\", \"offsets\": "
     "[[-1, 0], [-2, 0]]}}}]}",
     "3,", 0,
     "crowds[0].followers: expected at most 2 followers (the custom formation has 2 offsets), got "
     "3"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"followers\": {\"count\": 3, \"formation\": {\"shape\": \"v\"}}}]}",
     "\"v\"", 0,
     "crowds[0].followers.formation.shape: expected one of \"none\", \"column\", \"line\", "
     "\"wedge\", \"block\", \"circle\", \"custom\", got \"v\""},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"followers\": {\"count\": 2, \"formation\": {\"shape\": \"custom\", \"spacing\": 1, "
     "\"offsets\": [[-1, 0]]}}}]}",
     "\"spacing\"", 0,
     "crowds[0].followers.formation: unknown key \"spacing\" in a custom formation (expected one "
     "of: shape, offsets)"},
    {"{\"crowds\": [{\"count\": 1, " AREA
     ", \"followers\": {\"count\": 2, \"formation\": {\"shape\": \"none\", \"spacing\": 1}}}]}",
     "\"spacing\"", 0,
     "crowds[0].followers.formation: spacing is not used by the formation \"none\""},
    {"{\"crowds\": [{\"count\": 1, " AREA ", \"followers\": {\"count\": 2, \"lead\": 1}}]}",
     "\"lead\"", 0,
     "crowds[0].followers: unknown key \"lead\" in followers (expected one of: count, agent, "
     "formation, behind_distance, ahead_distance, ahead_radius, slow_radius, evade_weight, "
     "separation_weight, weight)"},
};

Test(scenario, bad_documents_name_file_line_column_and_what_was_expected) {
    for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; ++k) {
        const bad_case* c = &BAD[k];
        int line, col;
        position_of(c->text, c->at, c->nth, &line, &col);
        char want[1024], err[1024] = "";
        snprintf(want, sizeof want, "t.json:%d:%d: %s", line, col, c->message);
        scenario sc;
        bool ok = scenario_parse("t.json", c->text, strlen(c->text), &sc, err, sizeof err);
        cr_expect(!ok, "case %zu parsed: %s", k, c->text);
        if (ok) {
            scenario_free(&sc);
            continue;
        }
        cr_expect_str_eq(err, want, "case %zu:\n got  %s\n want %s", k, err, want);
    }
}

Test(scenario, nesting_limit_is_an_error_at_the_deep_bracket) {
    char text[700];
    size_t n = 0;
    for (int k = 0; k < 300; ++k) text[n++] = '[';
    for (int k = 0; k < 300; ++k) text[n++] = ']';
    text[n] = '\0';
    char err[256];
    scenario sc;
    cr_assert(!scenario_parse("deep.json", text, n, &sc, err, sizeof err));
    cr_assert_str_eq(err, "deep.json:1:257: nesting deeper than 256 levels");
}

Test(scenario, unreadable_file_names_the_file_and_the_reason) {
    char err[256];
    scenario sc;
    cr_assert(!scenario_load("/nonexistent/x.json", &sc, err, sizeof err));
    cr_assert_str_eq(err, "/nonexistent/x.json: No such file or directory");
}

static const char GOOD[] =
    "{\n"
    "  \"name\": \"good\",\n"
    "  \"description\": \"every key\",\n"
    "  \"world\": {\"dt\": 0.05, \"cell_size\": 3, \"seed\": 42, \"ticks\": 7, \"record_every\": "
    "2, \"nav\": {\"cell_size\": 0.4, \"clearance\": 0.25, \"budget_mb\": 64}},\n"
    "  \"paths\": [{\"name\": \"p\", \"points\": [[0, 0], [10, 0], [10, 10]]}], \"exits\": "
    "{\"doors\": [[1, 1], [2, 3]], \"gates\": [[-9, 9]]},\n"
    "  \"crowds\": [\n"
    "    {\"name\": \"a\", \"count\": 10,\n"
    "     \"area\": {\"kind\": \"uniform\", \"min\": [-5, -2], \"max\": [5, 2]},\n"
    "     \"agent\": {\"radius\": 0.25, \"max_speed\": [1, 2], \"max_force\": 4,\n"
    "               \"separation_radius\": 1.5, \"separation_weight\": [0.5, 1],\n"
    "               \"heading\": [0, 2], \"velocity\": [0.5, 0]},\n"
    "     \"goal\": {\"mode\": \"flee\", \"target\": [1, 2], \"slow_radius\": 3, \"weight\": "
    "0.5}},\n"
    "    {\"count\": 9, \"area\": {\"kind\": \"grid\", \"center\": [20, 0], \"spacing\": 2, "
    "\"columns\": 3},\n"
    "     \"queue\": {\"target\": [30, 0], \"mode\": \"seek\", \"route\": \"straight\", "
    "\"slow_radius\": 2, \"weight\": 2,\n"
    "               \"cone_length\": 3, \"cone_width\": 0.7, \"arrive_radius\": 0.4,\n"
    "               \"on_arrival\": \"respawn\",\n"
    "               \"start_area\": {\"kind\": \"circle\", \"center\": [15, 0], \"radius\": 2}}},\n"
    "    {\"count\": 4, \"area\": {\"kind\": \"jittered_grid\", \"center\": [0, 20], \"jitter\": "
    "0.5},\n"
    "     \"agent\": {\"random_speed\": 1.2},\n"
    "     \"path\": {\"name\": \"p\", \"kind\": \"tube\", \"mode\": \"ping_pong\", "
    "\"tube_radius\": 2,\n"
    "              \"predict_ahead\": 0.7, \"weight\": 1.5}},\n"
    "    {\"count\": 2, \"area\": {\"kind\": \"circle\", \"center\": [0, -20], \"radius\": 3},\n"
    "     \"path\": {\"name\": \"p\", \"mode\": \"one_shot\", \"route\": \"straight\", "
    "\"arrive_radius\": 1, \"slow_radius\": 2},\n"
    "     \"followers\": {\"count\": 3, \"agent\": {\"max_speed\": 2},\n"
    "                   \"formation\": {\"shape\": \"custom\", \"offsets\": [[-1, 0], [-2, 1], "
    "[-2, -1]]},\n"
    "                   \"behind_distance\": 3, \"ahead_distance\": 2, \"ahead_radius\": 1,\n"
    "                   \"slow_radius\": 1.5, \"evade_weight\": 3, \"separation_weight\": 0.5,\n"
    "                   \"weight\": 0.9}},\n"
    "    {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [0, 40]},\n"
    "     \"goal\": {\"mode\": \"arrive\", \"exits\": \"gates\", \"route\": \"field\"}}\n"
    "  ]\n"
    "}\n";

Test(scenario, a_document_with_every_key_lands_in_the_model) {
    scenario sc;
    char err[512];
    cr_assert(scenario_parse("good.json", GOOD, sizeof GOOD - 1, &sc, err, sizeof err), "%s", err);
    cr_assert_str_eq(sc.name, "good");
    cr_assert_str_eq(sc.description, "every key");
    cr_assert_float_eq(sc.dt, 0.05f, 0.0f);
    cr_assert_float_eq(sc.cell_size, 3.0f, 0.0f);
    cr_assert_eq(sc.seed, 42u);
    cr_assert_eq(sc.ticks, 7);
    cr_assert_eq(sc.record_every, 2);
    cr_assert_eq(sc.path_count, 1);
    cr_assert_eq(sc.paths[0].count, 3);
    cr_assert_float_eq(sc.paths[0].points[2].y, 10.0f, 0.0f);
    cr_assert_eq(sc.crowd_count, 5);
    // Navigation settings and exit sets.
    cr_assert_float_eq(sc.nav.cell_size, 0.4f, 0.0f);
    cr_assert_float_eq(sc.nav.clearance, 0.25f, 0.0f);
    cr_assert_eq(sc.nav.budget, (size_t)64 << 20);
    cr_assert_eq(sc.nav.max_cells, crowd_nav_def_default().max_cells, "not in the schema: default");
    cr_assert_eq(sc.exits_count, 2);
    cr_assert_str_eq(sc.exits[0].name, "doors");
    cr_assert_eq(sc.exits[0].count, 2);
    cr_assert_float_eq(sc.exits[0].points[1].y, 3.0f, 0.0f);
    cr_assert_str_eq(sc.exits[1].name, "gates");
    cr_assert_eq(sc.exits[1].pos.line, 5, "an exit set's position is its name's");

    const sc_crowd* a = &sc.crowds[0];
    cr_assert_str_eq(a->name, "a");
    cr_assert_eq(a->area.kind, SC_AREA_UNIFORM);
    cr_assert_float_eq(a->agent.max_speed.lo, 1.0f, 0.0f);
    cr_assert_float_eq(a->agent.max_speed.hi, 2.0f, 0.0f);
    cr_assert_float_eq(a->agent.radius.lo, 0.25f, 0.0f);
    cr_assert_float_eq(a->agent.radius.hi, 0.25f, 0.0f);
    cr_assert(a->agent.has_heading);
    cr_assert_float_eq(a->agent.heading.y, 1.0f, 0.0f, "heading normalized");
    cr_assert(a->has_goal && !a->has_queue && !a->has_path && !a->has_followers);
    cr_assert_eq(a->goal.mode, CROWD_GOAL_FLEE);
    cr_assert_float_eq(a->goal.weight, 0.5f, 0.0f);
    cr_assert_eq(a->goal.exits, -1, "a goal without exits is its target");
    cr_assert_eq(a->goal.route, CROWD_ROUTE_FIELD);

    const sc_crowd* q = &sc.crowds[1];
    cr_assert_null(q->name);
    cr_assert_eq(q->area.columns, 3);
    cr_assert(q->has_queue);
    cr_assert_eq(q->queue.mode, CROWD_GOAL_SEEK);
    cr_assert_eq(q->queue.route, CROWD_ROUTE_STRAIGHT);
    cr_assert_eq(q->queue.on_arrival, SC_ARRIVAL_RESPAWN);
    cr_assert(q->queue.has_start_area);
    cr_assert_eq(q->queue.start_area.kind, SC_AREA_CIRCLE);
    cr_assert_float_eq(q->queue.cone_width, 0.7f, 0.0f);
    // The defaults come from the library's def defaults.
    const crowd_agent_def d = crowd_agent_def_default();
    cr_assert_float_eq(q->agent.max_speed.lo, d.max_speed, 0.0f);
    cr_assert_float_eq(q->agent.separation_radius.hi, d.separation_radius, 0.0f);

    const sc_crowd* t = &sc.crowds[2];
    cr_assert(t->has_path);
    cr_assert_eq(t->path.path, 0);
    cr_assert_eq(t->path.kind, SC_PATH_TUBE);
    cr_assert_eq(t->path.mode, SC_PATH_PING_PONG);
    cr_assert_float_eq(t->path.predict_ahead, 0.7f, 0.0f);
    cr_assert_float_eq(t->agent.random_speed, 1.2f, 0.0f);
    cr_assert_float_eq(t->area.jitter, 0.5f, 0.0f);

    const sc_crowd* l = &sc.crowds[3];
    cr_assert(l->has_path && l->has_followers);
    cr_assert_eq(l->path.kind, SC_PATH_WAYPOINTS);
    cr_assert_eq(l->path.route, CROWD_ROUTE_STRAIGHT);
    cr_assert_eq(l->followers.formation, SC_FORMATION_CUSTOM);
    cr_assert_eq(l->followers.offset_count, 3);
    cr_assert_float_eq(l->followers.offsets[1].y, 1.0f, 0.0f);
    cr_assert_float_eq(l->followers.evade_weight, 3.0f, 0.0f);
    cr_assert_float_eq(l->followers.agent.max_speed.lo, 2.0f, 0.0f);
    // Positions of each section, for the build errors.
    cr_assert_eq(l->path_pos.line, 23);
    cr_assert_eq(l->followers_pos.line, 24);

    const sc_crowd* e = &sc.crowds[4];
    cr_assert(e->has_goal);
    cr_assert_eq(e->goal.mode, CROWD_GOAL_ARRIVE);
    cr_assert_eq(e->goal.exits, 1, "the exit set named \"gates\"");
    cr_assert_eq(e->goal.route, CROWD_ROUTE_FIELD);
    scenario_free(&sc);
}

Test(scenario, file_name_gives_the_default_name) {
    const char text[] = "{\"crowds\": [{\"count\": 1, " AREA "}]}";
    scenario sc;
    char err[256];
    cr_assert(scenario_parse("dir/my-scene.json", text, sizeof text - 1, &sc, err, sizeof err));
    cr_assert_str_eq(sc.name, "my-scene");
    scenario_free(&sc);
}

// ---- building ---------------------------------------------------------------------------------

static scenario parse_ok(const char* text) {
    scenario sc;
    char err[512];
    cr_assert(scenario_parse("b.json", text, strlen(text), &sc, err, sizeof err), "%s", err);
    return sc;
}

static crowd_agent_def agent_def(const built_world* b, int k) {
    int n = crowd_world_agent_count(b->world);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)n);
    int count;
    cr_assert_eq(crowd_world_get_agents(b->world, ids, NULL, NULL, n, &count), CROWD_OK);
    crowd_agent_def d;
    cr_assert_eq(crowd_agent_get_def(b->world, ids[k], &d), CROWD_OK);
    free(ids);
    return d;
}

Test(build, areas_place_agents_where_the_schema_says) {
    scenario sc = parse_ok(
        "{\"world\": {\"seed\": 9}, \"crowds\": [\n"
        " {\"count\": 200, \"area\": {\"kind\": \"uniform\", \"min\": [10, -4], \"max\": [14, "
        "4]}},\n"
        " {\"count\": 7, \"area\": {\"kind\": \"grid\", \"center\": [0, 50], \"spacing\": 2, "
        "\"columns\": 3}},\n"
        " {\"count\": 9, \"area\": {\"kind\": \"jittered_grid\", \"center\": [0, -50], "
        "\"spacing\": 4, \"jitter\": 0.25}},\n"
        " {\"count\": 300, \"area\": {\"kind\": \"circle\", \"center\": [-30, 0], \"radius\": "
        "5}}]}");
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(&sc, &o, &b, err, sizeof err), "%s", err);
    cr_assert_eq(crowd_world_agent_count(b.world), 200 + 7 + 9 + 300);
    cr_assert_eq(b.agents, 516);
    int k = 0;
    for (; k < 200; ++k) {
        crowd_vec2 p = agent_def(&b, k).position;
        cr_assert(p.x >= 10.0f && p.x <= 14.0f && p.y >= -4.0f && p.y <= 4.0f, "uniform %d", k);
    }
    // 7 agents in 3 columns: 3 rows, centred; slot (col, row) at ((col - 1) * 2, (row - 1) * 2).
    for (int j = 0; j < 7; ++j, ++k) {
        crowd_vec2 p = agent_def(&b, k).position;
        cr_assert_float_eq(p.x, (float)(j % 3 - 1) * 2.0f, 1e-6f, "grid %d", j);
        cr_assert_float_eq(p.y, 50.0f + (float)(j / 3 - 1) * 2.0f, 1e-6f, "grid %d", j);
    }
    // Jitter of 0.25 spacing moves a slot by at most 1 m per axis.
    for (int j = 0; j < 9; ++j, ++k) {
        crowd_vec2 p = agent_def(&b, k).position;
        const float sx = (float)(j % 3 - 1) * 4.0f, sy = -50.0f + (float)(j / 3 - 1) * 4.0f;
        cr_assert(fabsf(p.x - sx) <= 1.0f && fabsf(p.y - sy) <= 1.0f, "jittered %d", j);
    }
    int inner = 0;
    for (int j = 0; j < 300; ++j, ++k) {
        crowd_vec2 p = agent_def(&b, k).position;
        const float r = sqrtf((p.x + 30.0f) * (p.x + 30.0f) + p.y * p.y);
        cr_assert_leq(r, 5.0f + 1e-4f, "circle %d", j);
        inner += r < 5.0f / sqrtf(2.0f);
    }
    // Uniform over the disc: half of the agents lie within radius R / sqrt(2).
    cr_assert(inner > 110 && inner < 190, "inner half-area holds %d of 300", inner);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(build, agent_parameters_goals_and_headings) {
    scenario sc = parse_ok(
        "{\"crowds\": [\n"
        " {\"count\": 50, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], \"radius\": 3},\n"
        "  \"agent\": {\"radius\": 0.2, \"max_speed\": [1, 2], \"max_force\": 5,\n"
        "             \"separation_radius\": 1.4, \"separation_weight\": 0.3},\n"
        "  \"goal\": {\"mode\": \"arrive\", \"target\": [40, 0], \"slow_radius\": 4, \"weight\": "
        "2}},\n"
        " {\"count\": 5, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], \"radius\": 3},\n"
        "  \"goal\": {\"mode\": \"flee\", \"target\": [0, 10]}},\n"
        " {\"count\": 5, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], \"radius\": 3},\n"
        "  \"agent\": {\"random_speed\": 0.8}}]}");
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(&sc, &o, &b, err, sizeof err), "%s", err);
    bool spread = false;
    for (int k = 0; k < 50; ++k) {
        crowd_agent_def d = agent_def(&b, k);
        cr_assert_float_eq(d.radius, 0.2f, 0.0f);
        cr_assert(d.max_speed >= 1.0f && d.max_speed <= 2.0f);
        spread |= fabsf(d.max_speed - agent_def(&b, 0).max_speed) > 0.01f;
        cr_assert_float_eq(d.max_force, 5.0f, 0.0f);
        cr_assert_float_eq(d.separation_radius, 1.4f, 0.0f);
        cr_assert_float_eq(d.separation_weight, 0.3f, 0.0f);
        cr_assert_eq(d.goal.mode, CROWD_GOAL_ARRIVE);
        cr_assert_float_eq(d.goal.target.x, 40.0f, 0.0f);
        cr_assert_float_eq(d.goal.slow_radius, 4.0f, 0.0f);
        cr_assert_float_eq(d.goal.weight, 2.0f, 0.0f);
        // At rest, an agent faces its target.
        const crowd_vec2 to = {40.0f - d.position.x, -d.position.y};
        const float len = sqrtf(to.x * to.x + to.y * to.y);
        cr_assert_float_eq(d.heading.x, to.x / len, 1e-5f);
        cr_assert_float_eq(d.heading.y, to.y / len, 1e-5f);
    }
    cr_assert(spread, "max_speed drawn from its range, not constant");
    for (int k = 50; k < 55; ++k) {
        crowd_agent_def d = agent_def(&b, k);
        cr_assert_eq(d.goal.mode, CROWD_GOAL_FLEE);
        // A fleeing agent faces away from the threat.
        const float dot =
            d.heading.x * (0.0f - d.position.x) + d.heading.y * (10.0f - d.position.y);
        cr_assert_lt(dot, 0.0f);
    }
    for (int k = 55; k < 60; ++k) {
        crowd_agent_def d = agent_def(&b, k);
        const float speed = sqrtf(d.velocity.x * d.velocity.x + d.velocity.y * d.velocity.y);
        cr_assert_float_eq(speed, 0.8f, 1e-5f);
        cr_assert_float_eq(d.heading.x, d.velocity.x / speed, 1e-5f);
        cr_assert_eq(d.goal.mode, CROWD_GOAL_NONE);
    }
    built_world_free(&b);
    scenario_free(&sc);
}

// A speed distribution gives each agent the library's keyed draw for (world seed, crowd index
// << 32 | its number in the crowd), whatever else the crowd draws.
Test(build, speed_distributions_are_keyed_draws) {
    scenario sc = parse_ok(
        "{\"world\": {\"seed\": 42}, \"crowds\": [\n"
        " {\"count\": 3, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], \"radius\": 3}},\n"
        " {\"count\": 300, \"area\": {\"kind\": \"circle\", \"center\": [0, 0], \"radius\": 30},\n"
        "  \"agent\": {\"max_speed\": {\"kind\": \"weidmann\"}}},\n"
        " {\"count\": 40, \"area\": {\"kind\": \"grid\", \"center\": [0, 80]},\n"
        "  \"agent\": {\"max_speed\": {\"kind\": \"age\", \"group\": \"limited_mobility\"}}}]}");
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(&sc, &o, &b, err, sizeof err), "%s", err);
    const crowd_speed_dist weidmann = crowd_speed_dist_default();
    const crowd_speed_dist limited = crowd_speed_dist_age(CROWD_AGE_LIMITED_MOBILITY);
    double sum = 0;
    for (int k = 0; k < 300; ++k) {
        float want;
        cr_assert_eq(crowd_speed_draw(&weidmann, 42, (uint64_t)1 << 32 | (uint64_t)k, &want),
                     CROWD_OK);
        const float got = agent_def(&b, 3 + k).max_speed;
        cr_assert_eq(got, want, "agent %d: %g, the draw %g", k, (double)got, (double)want);
        sum += got;
    }
    cr_assert(fabs(sum / 300 - 1.34) < 0.05, "mean %g", sum / 300);
    for (int k = 0; k < 40; ++k) {
        float want;
        cr_assert_eq(crowd_speed_draw(&limited, 42, (uint64_t)2 << 32 | (uint64_t)k, &want),
                     CROWD_OK);
        const float got = agent_def(&b, 303 + k).max_speed;
        cr_assert_eq(got, want);
        cr_assert(got >= 0.46f && got <= 0.76f);
    }
    built_world_free(&b);
    scenario_free(&sc);
}

static uint64_t build_hash(const char* text, double scale, int* agents) {
    scenario sc = parse_ok(text);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = scale};
    char err[512];
    cr_assert(scenario_build(&sc, &o, &b, err, sizeof err), "%s", err);
    const uint64_t h = crowd_world_state_hash(b.world);
    *agents = crowd_world_agent_count(b.world);
    built_world_free(&b);
    scenario_free(&sc);
    return h;
}

Test(build, deterministic_and_crowds_draw_from_their_own_streams) {
    const char* one = "{\"world\": {\"seed\": 4}, \"crowds\": [\n"
                      " {\"count\": 100, \"area\": {\"kind\": \"uniform\", \"min\": [0, 0], "
                      "\"max\": [20, 20]}, \"agent\": {\"random_speed\": 1}}]}";
    const char* two = "{\"world\": {\"seed\": 4}, \"crowds\": [\n"
                      " {\"count\": 100, \"area\": {\"kind\": \"uniform\", \"min\": [0, 0], "
                      "\"max\": [20, 20]}, \"agent\": {\"random_speed\": 1}},\n"
                      " {\"count\": 30, \"area\": {\"kind\": \"circle\", \"center\": [50, 0], "
                      "\"radius\": 4}}]}";
    int n1, n2, n3;
    cr_assert_eq(build_hash(one, 1.0, &n1), build_hash(one, 1.0, &n2));
    // The first crowd of `two` is the whole of `one`: compare its agents one by one.
    scenario a = parse_ok(one), b = parse_ok(two);
    built_world wa, wb;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(&a, &o, &wa, err, sizeof err));
    cr_assert(scenario_build(&b, &o, &wb, err, sizeof err));
    for (int k = 0; k < 100; ++k) {
        crowd_agent_def da = agent_def(&wa, k), db = agent_def(&wb, k);
        cr_assert(da.position.x == db.position.x && da.position.y == db.position.y);
        cr_assert(da.velocity.x == db.velocity.x && da.velocity.y == db.velocity.y);
    }
    built_world_free(&wa);
    built_world_free(&wb);
    scenario_free(&a);
    scenario_free(&b);
    // A different seed moves them.
    const char* other = "{\"world\": {\"seed\": 5}, \"crowds\": [\n"
                        " {\"count\": 100, \"area\": {\"kind\": \"uniform\", \"min\": [0, 0], "
                        "\"max\": [20, 20]}, \"agent\": {\"random_speed\": 1}}]}";
    cr_assert_neq(build_hash(one, 1.0, &n1), build_hash(other, 1.0, &n3));
}

Test(build, agents_scale_multiplies_counts_and_rounds) {
    const char* text = "{\"crowds\": [\n"
                       " {\"count\": 100, \"area\": {\"kind\": \"grid\", \"center\": [0, 0]}},\n"
                       " {\"count\": 3, \"area\": {\"kind\": \"grid\", \"center\": [0, 40]}}]}";
    int n;
    build_hash(text, 0.5, &n);
    cr_assert_eq(n, 50 + 2); // 1.5 rounds to 2
    build_hash(text, 0.001, &n);
    cr_assert_eq(n, 1 + 1); // a crowd keeps at least one agent
    build_hash(text, 2.0, &n);
    cr_assert_eq(n, 206);
    scenario sc = parse_ok(text);
    cr_assert_eq(scenario_agent_total(&sc, 2.0), 206);
    scenario_free(&sc);
}

Test(build, too_many_agents_is_refused_before_allocating) {
    scenario sc = parse_ok("{\"crowds\": [{\"count\": 16777216, \"area\": {\"kind\": \"grid\", "
                           "\"center\": [0, 0]}}]}");
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 2.0};
    char err[512];
    cr_assert(!scenario_build(&sc, &o, &b, err, sizeof err));
    cr_assert_str_eq(err, "b.json:1:13: crowds[0]: the scenario has 33554432 agents at this "
                          "scale, more than 16777216");
    cr_assert_null(b.world);
    scenario_free(&sc);
    // 16777216 leaders with 4096 followers each: named at the followers that multiply the count.
    const char* text = "{\"crowds\": [{\"count\": 1, \"area\": {\"kind\": \"grid\", "
                       "\"center\": [0, 0]}},\n {\"count\": 16777216, \"area\": {\"kind\": "
                       "\"grid\", \"center\": [0, 0]}, \"followers\": {\"count\": 4096}}]}";
    sc = parse_ok(text);
    o.agents_scale = 1.0;
    cr_assert(!scenario_build(&sc, &o, &b, err, sizeof err));
    int line, col;
    position_of(text, "\"followers\"", 0, &line, &col);
    char want[256];
    snprintf(want, sizeof want,
             "b.json:%d:%d: crowds[1]: the scenario has 68736253953 agents at this scale, more "
             "than 16777216",
             line, col);
    cr_assert_str_eq(err, want);
    cr_assert_null(b.world);
    scenario_free(&sc);
}

// Followers start in their formation slots: the slot offsets rotated into the leader's frame.
Test(build, formation_offsets_follow_the_spec_shapes) {
    sc_followers f = {.formation = SC_FORMATION_COLUMN, .spacing = 1.5f, .behind_distance = 2.0f};
    for (int k = 0; k < 4; ++k) {
        crowd_vec2 o = formation_offset(&f, k, 4);
        cr_assert_float_eq(o.x, -(2.0f + 1.5f * (float)k), 1e-6f);
        cr_assert_float_eq(o.y, 0.0f, 0.0f);
    }
    f.formation = SC_FORMATION_LINE;
    float sum = 0.0f;
    for (int k = 0; k < 5; ++k) {
        crowd_vec2 o = formation_offset(&f, k, 5);
        cr_assert_float_eq(o.x, -2.0f, 0.0f);
        sum += o.y;
        if (k) cr_assert_float_eq(o.y - formation_offset(&f, k - 1, 5).y, 1.5f, 1e-6f);
    }
    cr_assert_float_eq(sum, 0.0f, 1e-5f, "a line is centred behind the leader");
    f.formation = SC_FORMATION_WEDGE;
    for (int k = 0; k + 1 < 6; k += 2) {
        crowd_vec2 l = formation_offset(&f, k, 6), r = formation_offset(&f, k + 1, 6);
        cr_assert_float_eq(l.x, r.x, 0.0f);
        cr_assert_float_eq(l.y, -r.y, 0.0f, "wedge slots come in mirrored pairs");
        cr_assert_lt(l.x, 0.0f);
    }
    f.formation = SC_FORMATION_CIRCLE;
    for (int k = 0; k < 8; ++k) {
        crowd_vec2 o = formation_offset(&f, k, 8);
        cr_assert_float_eq(sqrtf(o.x * o.x + o.y * o.y), 2.0f, 1e-5f,
                           "8 slots 1.5 apart fit on radius 2 (the behind distance)");
    }
    crowd_vec2 offs[2] = {{-1.0f, 0.5f}, {-3.0f, -0.5f}};
    f.formation = SC_FORMATION_CUSTOM;
    f.offsets = offs;
    f.offset_count = 2;
    cr_assert_float_eq(formation_offset(&f, 1, 2).x, -3.0f, 0.0f);
    cr_assert_float_eq(formation_offset(&f, 1, 2).y, -0.5f, 0.0f);
}

// The behavior sections reach the library: every agent of a queue crowd queues for the section's
// target, a path crowd follows its path with the section's kind, and each leader gets its
// followers in the section's formation.
static crowd_agent_id* all_agents(const built_world* b, int* count) {
    const int n = crowd_world_agent_count(b->world);
    crowd_agent_id* ids = malloc(sizeof *ids * (size_t)(n ? n : 1));
    cr_assert_eq(crowd_world_get_agents(b->world, ids, NULL, NULL, n, count), CROWD_OK);
    return ids;
}

static built_world build_ok(const scenario* sc) {
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(sc, &o, &b, err, sizeof err), "build failed: %s", err);
    return b;
}

Test(build, queue_section_sets_every_agents_queue) {
    scenario sc =
        parse_ok("{\"crowds\": [{\"count\": 4, " AREA ",\n \"queue\": {\"target\": [5, 1], "
                 "\"cone_length\": 2, \"cone_width\": 0.4, \"mode\": \"seek\", "
                 "\"on_arrival\": \"remove\"}}]}");
    built_world b = build_ok(&sc);
    int n;
    crowd_agent_id* ids = all_agents(&b, &n);
    cr_assert_eq(n, 4);
    for (int k = 0; k < n; ++k) {
        crowd_queue_def q;
        cr_assert_eq(crowd_agent_get_queue(b.world, ids[k], &q), CROWD_OK);
        cr_assert(q.goal.x == 5.0f && q.goal.y == 1.0f && q.cone_length == 2.0f &&
                  q.cone_width == 0.4f && q.on_arrival == CROWD_QUEUE_REMOVE);
        crowd_agent_def a;
        cr_assert_eq(crowd_agent_get_def(b.world, ids[k], &a), CROWD_OK);
        cr_assert_eq(a.goal.mode, CROWD_GOAL_SEEK, "a seeking queue seeks its target");
    }
    free(ids);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(build, circle_respawn_area_is_refused_with_its_position) {
    const char* text = "{\"crowds\": [{\"count\": 2, " AREA ",\n \"queue\": {\"target\": [5, 0], "
                       "\"on_arrival\": \"respawn\", \"start_area\": {\"kind\": \"circle\", "
                       "\"center\": [0, 0], \"radius\": 2}}}]}";
    scenario sc = parse_ok(text);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert_not(scenario_build(&sc, &o, &b, err, sizeof err));
    int line, col;
    position_of(text, "\"queue\"", 0, &line, &col);
    char want[512];
    snprintf(want, sizeof want,
             "b.json:%d:%d: queue.start_area: respawn areas are rectangles (kind \"uniform\")",
             line, col);
    cr_assert_str_eq(err, want);
    cr_assert_null(b.world);
    scenario_free(&sc);
}

Test(build, path_section_sets_every_agents_path) {
    scenario sc =
        parse_ok("{\"paths\": [{\"name\": \"p\", \"points\": [[0, 0], [9, 0], [9, 9]]}],\n "
                 "\"crowds\": [{\"count\": 3, " AREA ",\n \"path\": {\"name\": \"p\", "
                 "\"kind\": \"tube\", \"mode\": \"ping_pong\", \"tube_radius\": 0.7}}]}");
    built_world b = build_ok(&sc);
    int n;
    crowd_agent_id* ids = all_agents(&b, &n);
    cr_assert_eq(n, 3);
    for (int k = 0; k < n; ++k) {
        crowd_path_follow_def f;
        crowd_path_cursor cur;
        cr_assert_eq(crowd_agent_get_path(b.world, ids[k], &f, &cur), CROWD_OK);
        cr_assert_eq(cur.state, CROWD_PATH_STATE_FOLLOWING);
        cr_assert(f.kind == CROWD_PATH_TUBE && f.mode == CROWD_PATH_PING_PONG &&
                  f.tube_radius == 0.7f);
    }
    cr_assert_eq(crowd_world_path_count(b.world), 1);
    free(ids);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(build, followers_section_follows_each_leader_in_formation) {
    scenario sc =
        parse_ok("{\"crowds\": [{\"count\": 2, " AREA ",\n  \"followers\": {\"count\": 3, "
                 "\"formation\": {\"shape\": \"wedge\", \"spacing\": 1.1}}}]}");
    built_world b = build_ok(&sc);
    int n;
    crowd_agent_id* ids = all_agents(&b, &n);
    cr_assert_eq(n, 8);
    int leaders = 0, followers = 0;
    for (int k = 0; k < n; ++k) {
        crowd_leader_info li;
        if (crowd_leader_get_info(b.world, ids[k], &li) == CROWD_OK && li.followers > 0) {
            leaders++;
            cr_assert_eq(li.followers, 3);
            cr_assert_eq(li.shape, CROWD_FORMATION_WEDGE);
        }
        crowd_follow_info fi;
        cr_assert_eq(crowd_agent_get_follow(b.world, ids[k], &fi), CROWD_OK);
        if (fi.state == CROWD_FOLLOW_ACTIVE) {
            followers++;
            cr_assert_eq(fi.def.target, CROWD_FOLLOW_SLOT);
        }
    }
    cr_assert_eq(leaders, 2);
    cr_assert_eq(followers, 6);
    free(ids);
    built_world_free(&b);
    scenario_free(&sc);
}

// Mutations of a valid document: whatever the parser says, it says it on one line that starts
// with the file and a position inside the text, and it never crashes (the suite also runs under
// AddressSanitizer).
Test(scenario, mutated_documents_fail_on_one_positioned_line) {
    static const char alphabet[] = "{}[]:,\"\\-.0123456789eEtrufalsn \n\x01\xc3\xa9xyz/";
    const size_t n = sizeof GOOD - 1;
    int lines = 1;
    for (size_t i = 0; i < n; ++i) lines += GOOD[i] == '\n';
    char* text = malloc(n + 2);
    scene_rng rng = {77};
    int rejected = 0;
    const int rounds = getenv("CROWD_TEST_SCALE") ? 400 : 3000;
    for (int r = 0; r < rounds; ++r) {
        memcpy(text, GOOD, n);
        size_t len = n;
        const size_t at = (size_t)(scene_rng_next(&rng) % n);
        const char c = alphabet[scene_rng_next(&rng) % (sizeof alphabet - 1)];
        switch (scene_rng_next(&rng) % 3) {
        case 0: // delete a byte
            memmove(text + at, text + at + 1, len - at - 1);
            len--;
            break;
        case 1: // insert one
            memmove(text + at + 1, text + at, len - at);
            text[at] = c;
            len++;
            break;
        default: // replace one
            text[at] = c;
            break;
        }
        text[len] = '\0';
        scenario sc;
        char err[1024];
        if (scenario_parse("m.json", text, len, &sc, err, sizeof err)) {
            scenario_free(&sc);
            continue;
        }
        rejected++;
        int line = 0, col = 0;
        cr_assert(sscanf(err, "m.json:%d:%d: ", &line, &col) == 2, "no position: %s", err);
        cr_assert(line >= 1 && line <= lines + 1 && col >= 1, "position out of the text: %s", err);
        cr_assert_null(strchr(err, '\n'), "more than one line: %s", err);
    }
    cr_assert_gt(rejected, rounds / 2, "most single-byte mutations break a dense document");
    free(text);
}

// ---- obstacles --------------------------------------------------------------------------------

static bool point_in_square(crowd_vec2 p, float lo, float hi) {
    return p.x > lo && p.x < hi && p.y > lo && p.y < hi;
}

Test(build, obstacles_land_in_the_world_and_random_areas_avoid_them) {
    // A solid square in the middle of a uniform area and a wall across a circle area: every
    // agent is drawn again until its disc is clear of both.
    scenario sc = parse_ok(
        "{\"world\": {\"seed\": 4},\n"
        " \"obstacles\": [{\"name\": \"block\", \"kind\": \"polygon\",\n"
        "                 \"points\": [[-5, -5], [5, -5], [5, 5], [-5, 5]]},\n"
        "                {\"kind\": \"wall\", \"points\": [[20, -10], [20, 10]]}],\n"
        " \"crowds\": [{\"count\": 400, \"area\": {\"kind\": \"uniform\", \"min\": [-8, -8], "
        "\"max\": [8, 8]},\n"
        "              \"agent\": {\"wall_weight\": 2.5, \"wall_look_ahead\": [0.5, 1.5]}},\n"
        "             {\"count\": 200, \"area\": {\"kind\": \"circle\", \"center\": [20, 0], "
        "\"radius\": 4}}]}");
    cr_assert_eq(sc.obstacle_count, 2);
    cr_assert_str_eq(sc.obstacles[0].name, "block");
    cr_assert_null(sc.obstacles[1].name);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512];
    cr_assert(scenario_build(&sc, &o, &b, err, sizeof err), "%s", err);
    cr_assert_eq(crowd_world_obstacle_count(b.world), 2);
    crowd_obstacle_id ids[2];
    int n = 0;
    cr_assert_eq(crowd_world_get_obstacles(b.world, ids, 2, &n), CROWD_OK);
    for (int k = 0; k < 2; ++k) {
        crowd_obstacle_kind kind;
        crowd_vec2 pts[4];
        int count = 0;
        cr_assert_eq(crowd_obstacle_get_points(b.world, ids[k], &kind, pts, 4, &count), CROWD_OK);
        cr_assert_eq(kind, sc.obstacles[k].kind);
        cr_assert_eq(count, sc.obstacles[k].count);
        cr_assert_eq(memcmp(pts, sc.obstacles[k].points, sizeof *pts * (size_t)count), 0);
    }
    cr_assert_eq(crowd_world_agent_count(b.world), 600, "no agent is given up");
    crowd_agent_id* agents = all_agents(&b, &n);
    for (int k = 0; k < n; ++k) {
        crowd_agent_def a;
        cr_assert_eq(crowd_agent_get_def(b.world, agents[k], &a), CROWD_OK);
        // Clear of the block (by its radius) and of the wall's line x = 20.
        cr_assert_not(point_in_square(a.position, -5.0f - a.radius, 5.0f + a.radius),
                      "agent %d at [%g, %g] overlaps the block", k, (double)a.position.x,
                      (double)a.position.y);
        if (k >= 400)
            cr_assert_geq(fabsf(a.position.x - 20.0f), a.radius, "agent %d overlaps the wall", k);
        crowd_wall_def w;
        cr_assert_eq(crowd_agent_get_walls(b.world, agents[k], &w), CROWD_OK);
        if (k < 400) {
            cr_assert_float_eq(w.weight, 2.5f, 0.0f);
            cr_assert(w.look_ahead >= 0.5f && w.look_ahead <= 1.5f);
        } else {
            const crowd_wall_def d = crowd_wall_def_default();
            cr_assert(w.weight == d.weight && w.look_ahead == d.look_ahead);
        }
    }
    free(agents);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(build, obstacle_and_grid_slot_errors_name_their_position) {
    // A polygon whose edges cross: the library refuses it, at the obstacle's position.
    const char* bow = "{\"obstacles\": [{\"kind\": \"polygon\",\n"
                      "  \"points\": [[0, 0], [4, 4], [4, 0], [0, 4]]}],\n"
                      " \"crowds\": [{\"count\": 1, " AREA "}]}";
    scenario sc = parse_ok(bow);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    char err[512], want[512];
    int line, col;
    cr_assert_not(scenario_build(&sc, &o, &b, err, sizeof err));
    position_of(bow, "{\"kind\"", 0, &line, &col);
    snprintf(want, sizeof want, "b.json:%d:%d: obstacles[0]: cannot add the polygon: %s", line, col,
             crowd_status_string(CROWD_ERR_OBSTACLE_SELF_INTERSECTING));
    cr_assert_str_eq(err, want);
    cr_assert_null(b.world);
    scenario_free(&sc);
    // A grid slot inside a solid: grids are not drawn again.
    const char* grid = "{\"obstacles\": [{\"kind\": \"polygon\", \"points\": [[-1, -1], [1, -1], "
                       "[1, 1], [-1, 1]]}],\n"
                       " \"crowds\": [{\"count\": 1, " AREA "}]}";
    sc = parse_ok(grid);
    cr_assert_not(scenario_build(&sc, &o, &b, err, sizeof err));
    position_of(grid, "{\"count\"", 0, &line, &col);
    snprintf(want, sizeof want, "b.json:%d:%d: crowds[0]: cannot add an agent at [0, 0]: %s", line,
             col, crowd_status_string(CROWD_ERR_INSIDE_OBSTACLE));
    cr_assert_str_eq(err, want);
    scenario_free(&sc);
    // A random area with no free place at all.
    const char* full = "{\"obstacles\": [{\"kind\": \"polygon\", \"points\": [[-9, -9], [9, -9], "
                       "[9, 9], [-9, 9]]}],\n"
                       " \"crowds\": [{\"count\": 3, \"area\": {\"kind\": \"circle\", \"center\": "
                       "[0, 0], \"radius\": 5}}]}";
    sc = parse_ok(full);
    cr_assert_not(scenario_build(&sc, &o, &b, err, sizeof err));
    position_of(full, "{\"count\"", 0, &line, &col);
    snprintf(want, sizeof want,
             "b.json:%d:%d: crowds[0]: agent 0 found no place free of obstacles in 64 draws of "
             "its area",
             line, col);
    cr_assert_str_eq(err, want);
    scenario_free(&sc);
}

// ---- navigation: routes, exit sets, the nav grid ------------------------------------------------

Test(build, routes_exit_sets_and_nav_settings_reach_the_library) {
    scenario sc = parse_ok(
        "{\"world\": {\"nav\": {\"cell_size\": 0.25, \"clearance\": 0.2, \"budget_mb\": 8}},\n"
        " \"obstacles\": [{\"kind\": \"wall\", \"points\": [[5, -10], [5, 10]]}],\n"
        " \"exits\": {\"doors\": [[9, 0], [-9, 3]]},\n"
        " \"paths\": [{\"name\": \"p\", \"points\": [[0, 0], [9, 0], [9, 9]]}],\n"
        " \"crowds\": [\n"
        "  {\"count\": 2, " AREA ", \"goal\": {\"mode\": \"arrive\", \"exits\": \"doors\"}},\n"
        "  {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [0, 20]},\n"
        "   \"goal\": {\"mode\": \"seek\", \"target\": [9, 1], \"route\": \"straight\",\n"
        "    \"form\": \"literal\"}},\n"
        "  {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [0, -20]},\n"
        "   \"queue\": {\"target\": [9, 2], \"route\": \"straight\"}},\n"
        "  {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [20, 0]},\n"
        "   \"queue\": {\"target\": [9, 2], \"mode\": \"seek\"}},\n"
        "  {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [-20, 0]},\n"
        "   \"path\": {\"name\": \"p\", \"route\": \"straight\"}},\n"
        "  {\"count\": 2, \"area\": {\"kind\": \"grid\", \"center\": [-20, 20]},\n"
        "   \"path\": {\"name\": \"p\"}}]}");
    built_world b = build_ok(&sc);
    const crowd_nav_stats ns = crowd_world_nav_stats(b.world);
    cr_assert_float_eq(ns.cell_size, 0.25f, 0.0f);
    cr_assert_not_null(b.exits);
    crowd_vec2 pts[4];
    int np = 0;
    cr_assert_eq(crowd_exits_get_points(b.world, b.exits[0], pts, 4, &np), CROWD_OK);
    cr_assert_eq(np, 2);
    cr_assert(pts[1].x == -9.0f && pts[1].y == 3.0f);
    int n;
    crowd_agent_id* ids = all_agents(&b, &n);
    cr_assert_eq(n, 12);
    for (int k = 0; k < n; ++k) {
        crowd_agent_def a;
        cr_assert_eq(crowd_agent_get_def(b.world, ids[k], &a), CROWD_OK);
        const int crowd = k / 2;
        if (crowd == 0) {
            cr_assert_eq(a.goal.exits.index1, b.exits[0].index1, "agent %d names the exit set", k);
            cr_assert_eq(a.goal.route, CROWD_ROUTE_FIELD);
            cr_assert_eq(a.goal.form, CROWD_GOAL_PEDESTRIAN, "the default goal form");
        } else if (crowd == 1 || crowd == 2) {
            cr_assert_eq(a.goal.route, CROWD_ROUTE_STRAIGHT, "agent %d heads straight", k);
            cr_assert(crowd_exits_id_is_null(a.goal.exits));
            if (crowd == 1) cr_assert_eq(a.goal.form, CROWD_GOAL_FORM_LITERAL);
        } else if (crowd == 3) {
            cr_assert_eq(a.goal.mode, CROWD_GOAL_SEEK);
            cr_assert_eq(a.goal.route, CROWD_ROUTE_FIELD, "a queue routes by default");
        } else {
            crowd_path_follow_def f;
            crowd_path_cursor cur;
            cr_assert_eq(crowd_agent_get_path(b.world, ids[k], &f, &cur), CROWD_OK);
            cr_assert_eq(f.route, crowd == 4 ? CROWD_ROUTE_STRAIGHT : CROWD_ROUTE_FIELD,
                         "agent %d's waypoint legs", k);
        }
    }
    // After a step the exit set's agents are routed: both exits lie across the wall from the
    // first crowd (centred on [0, 0]) but the one at [-9, 3] is on its side.
    cr_assert_eq(crowd_world_step(b.world), CROWD_OK);
    crowd_route_info r;
    cr_assert_eq(crowd_agent_get_route(b.world, ids[0], &r), CROWD_OK);
    cr_assert_float_eq(r.destination.x, -9.0f, 0.0f, "the exit nearest by walking distance");
    free(ids);
    built_world_free(&b);
    scenario_free(&sc);
}

Test(build, exit_sets_the_library_refuses_name_their_position) {
    // At most CROWD_EXITS_MAX_POINTS points: a parse error at the set.
    char* text = malloc(16 * (CROWD_EXITS_MAX_POINTS + 1) + 200);
    size_t len = (size_t)sprintf(text, "{\"exits\": {\"many\": [");
    for (int k = 0; k <= CROWD_EXITS_MAX_POINTS; ++k)
        len += (size_t)sprintf(text + len, "%s[%d, 0]", k ? ", " : "", k);
    sprintf(text + len, "]}, \"crowds\": []}");
    scenario sc;
    char err[512], want[512];
    cr_assert_not(scenario_parse("b.json", text, strlen(text), &sc, err, sizeof err));
    int line, col;
    position_of(text, "[[0, 0]", 0, &line, &col);
    snprintf(want, sizeof want, "b.json:%d:%d: exits.many: expected at most %d points, got %d",
             line, col, CROWD_EXITS_MAX_POINTS, CROWD_EXITS_MAX_POINTS + 1);
    cr_assert_str_eq(err, want);
    free(text);
    // A point beyond the library's range: refused when the world is built, at the set's name.
    const char* far = "{\"exits\": {\"a\": [[0, 0]],\n  \"far\": [[2e6, 0]]},\n"
                      " \"crowds\": [{\"count\": 1, " AREA "}]}";
    sc = parse_ok(far);
    built_world b;
    build_options o = {.threads = 1, .agents_scale = 1.0};
    cr_assert_not(scenario_build(&sc, &o, &b, err, sizeof err));
    position_of(far, "\"far\"", 0, &line, &col);
    snprintf(want, sizeof want, "b.json:%d:%d: exits.far: cannot create the exit set: %s", line,
             col, crowd_status_string(CROWD_ERR_OUT_OF_RANGE));
    cr_assert_str_eq(err, want);
    cr_assert_null(b.world);
    scenario_free(&sc);
}
