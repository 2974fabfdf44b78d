// A position index over JSON source text: for every value, its JSON pointer (RFC 6901) and the
// line and column where it starts, and for object members where the key starts.
//
// cJSON parses the document but keeps no positions; the scenario parser looks positions up here
// by pointer so that every error can name file:line:column. The scanner is a strict RFC 8259
// recognizer, so it also reports syntax errors (with their position) before cJSON runs.
#ifndef CROWD_CLI_JSON_INDEX_H
#define CROWD_CLI_JSON_INDEX_H

#include <stdbool.h>
#include <stddef.h>

typedef struct json_pos {
    int line, col; // 1-based; col counts characters (UTF-8 code points), a tab counts as one
} json_pos;

typedef struct json_index_entry {
    char* pointer;  // "" for the root, "/crowds/0/area" below it
    json_pos value; // first character of the value
    json_pos key;   // first character of the member's key (the value's position for non-members)
} json_index_entry;

typedef struct json_index {
    json_index_entry* entries;
    int count, cap;
} json_index;

// Scans `text`. On a syntax error returns false with *err_pos and `err` (a message without
// position) filled; `idx` must still be freed. Duplicate keys in one object are syntax errors.
bool json_index_build(json_index* idx, const char* text, size_t len, json_pos* err_pos, char* err,
                      size_t errlen);

// Positions by pointer; {0, 0} when the pointer names no value.
json_pos json_index_value(const json_index* idx, const char* pointer);
json_pos json_index_key(const json_index* idx, const char* pointer);

// Position of byte `offset` of `text` (used for errors reported by cJSON itself).
json_pos json_offset_pos(const char* text, size_t len, size_t offset);

void json_index_free(json_index* idx);

#endif
