// Typed, positioned access to a cJSON tree for the scenario parser.
//
// The parser walks the tree with a context that tracks the JSON pointer of the current node (to
// look its position up in the json_index) and a dotted path for messages ("crowds[2].area").
// Every helper that fails writes one message "file:line:col: path: what was expected, got what"
// and returns false; absent optional members leave the output unchanged (the caller's default).
#ifndef CROWD_CLI_SCENARIO_FIELDS_H
#define CROWD_CLI_SCENARIO_FIELDS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_index.h"
#include "scenario.h"

typedef struct pctx {
    const char* file;
    const json_index* idx;
    char ptr[1024]; // JSON pointer of the current node
    size_t ptr_len;
    char path[1024]; // the same, dotted, for messages
    size_t path_len;
    char* err;
    size_t errlen;
} pctx;

typedef struct pc_mark {
    size_t ptr_len, path_len;
} pc_mark;

pc_mark pc_push_key(pctx* c, const char* key);
pc_mark pc_push_index(pctx* c, int index);
void pc_pop(pctx* c, pc_mark m);

json_pos pc_pos(const pctx* c);     // where the current node's value starts
json_pos pc_key_pos(const pctx* c); // where the current member's key starts

// Rewrites s (of capacity cap) with control characters escaped ("\n", "\u001f"), so that a
// message quoting the document stays on one line.
void pc_one_line(char* s, size_t cap);

// Writes the message at `pos` (with the current path) and returns false.
bool pc_fail(pctx* c, json_pos pos, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// The current node must be an object whose keys are all in `keys` (NULL-terminated).
bool pc_object(pctx* c, const cJSON* node, const char* what, const char* const* keys);
// The current node must be an array; *count receives its length.
bool pc_array(pctx* c, const cJSON* node, const char* what, int* count);

// Allowed range of a number.
typedef struct pc_rule {
    double lo, hi;
    bool lo_open;
} pc_rule;
extern const pc_rule PC_ANY, PC_POSITIVE, PC_NON_NEGATIVE;

bool pc_has(const cJSON* obj, const char* key);
// Fails with "missing key" at the object when a required member is absent.
bool pc_require(pctx* c, const cJSON* obj, const char* key);

bool pc_float(pctx* c, const cJSON* obj, const char* key, pc_rule rule, float* out);
bool pc_int(pctx* c, const cJSON* obj, const char* key, long lo, long hi, int* out);
bool pc_u64(pctx* c, const cJSON* obj, const char* key, uint64_t* out);
bool pc_string(pctx* c, const cJSON* obj, const char* key, char** out);
bool pc_enum(pctx* c, const cJSON* obj, const char* key, const char* const* names, int count,
             int* out);
bool pc_vec2(pctx* c, const cJSON* obj, const char* key, bool nonzero, crowd_vec2* out);
// A number or [lo, hi] with lo <= hi, both within `rule`.
bool pc_range(pctx* c, const cJSON* obj, const char* key, pc_rule rule, sc_range* out);
// An array of at least `min` [x, y] points; *out is malloc'd.
bool pc_points(pctx* c, const cJSON* obj, const char* key, int min, crowd_vec2** out, int* count);

// scenario_obstacles.c: the document's `obstacles` array (the current node).
bool sc_parse_obstacles(pctx* c, const cJSON* node, scenario* sc);

#endif
