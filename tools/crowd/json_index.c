#include "json_index.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 256 };

typedef struct scanner {
    const char* s;
    size_t n, i;
    int line, col;
    json_index* idx;
    char* ptr; // the current JSON pointer
    size_t ptr_len, ptr_cap;
    int depth;
    bool failed;
    json_pos err_pos;
    char* err;
    size_t errlen;
} scanner;

static json_pos here(const scanner* sc) {
    return (json_pos){sc->line, sc->col};
}

static void fail_at(scanner* sc, json_pos pos, const char* fmt, ...) {
    if (sc->failed) return;
    sc->failed = true;
    sc->err_pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sc->err, sc->errlen, fmt, ap);
    va_end(ap);
}

// Columns count code points: UTF-8 continuation bytes do not advance the column.
static void advance(scanner* sc) {
    unsigned char b = (unsigned char)sc->s[sc->i++];
    if (b == '\n') {
        sc->line++;
        sc->col = 1;
    } else if ((b & 0xC0) != 0x80) {
        sc->col++;
    }
}

static int peek(const scanner* sc) {
    return sc->i < sc->n ? (unsigned char)sc->s[sc->i] : -1;
}

static void skip_ws(scanner* sc) {
    for (;;) {
        int c = peek(sc);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            advance(sc);
        else
            return;
    }
}

// What the scanner found instead of what it expected, for messages.
static void describe(const scanner* sc, char* out, size_t len) {
    int c = peek(sc);
    if (c < 0)
        snprintf(out, len, "the end of the file");
    else if (c == '/' && sc->i + 1 < sc->n && (sc->s[sc->i + 1] == '/' || sc->s[sc->i + 1] == '*'))
        snprintf(out, len, "a comment (JSON has none)");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(out, len, "'%c'", c);
    else
        snprintf(out, len, "byte 0x%02x", c);
}

static void expected(scanner* sc, const char* what) {
    char got[48];
    describe(sc, got, sizeof got);
    fail_at(sc, here(sc), "expected %s, got %s", what, got);
}

static bool push(scanner* sc, const char* seg, size_t seg_len) {
    // Worst case every character escapes to two ("~0", "~1").
    size_t need = sc->ptr_len + 1 + seg_len * 2 + 1;
    if (need > sc->ptr_cap) {
        size_t cap = sc->ptr_cap ? sc->ptr_cap : 64;
        while (cap < need) cap *= 2;
        char* p = realloc(sc->ptr, cap);
        if (!p) {
            fail_at(sc, here(sc), "out of memory");
            return false;
        }
        sc->ptr = p;
        sc->ptr_cap = cap;
    }
    sc->ptr[sc->ptr_len++] = '/';
    for (size_t k = 0; k < seg_len; ++k) {
        if (seg[k] == '~') {
            sc->ptr[sc->ptr_len++] = '~';
            sc->ptr[sc->ptr_len++] = '0';
        } else if (seg[k] == '/') {
            sc->ptr[sc->ptr_len++] = '~';
            sc->ptr[sc->ptr_len++] = '1';
        } else {
            sc->ptr[sc->ptr_len++] = seg[k];
        }
    }
    sc->ptr[sc->ptr_len] = '\0';
    return true;
}

static void record(scanner* sc, json_pos value, json_pos key) {
    json_index* idx = sc->idx;
    if (idx->count == idx->cap) {
        int cap = idx->cap ? idx->cap * 2 : 64;
        json_index_entry* e = realloc(idx->entries, sizeof *e * (size_t)cap);
        if (!e) {
            fail_at(sc, value, "out of memory");
            return;
        }
        idx->entries = e;
        idx->cap = cap;
    }
    char* p = malloc(sc->ptr_len + 1);
    if (!p) {
        fail_at(sc, value, "out of memory");
        return;
    }
    memcpy(p, sc->ptr ? sc->ptr : "", sc->ptr_len);
    p[sc->ptr_len] = '\0';
    idx->entries[idx->count++] = (json_index_entry){p, value, key};
}

static void put_utf8(char* out, size_t* len, uint32_t cp) {
    if (cp < 0x80) {
        out[(*len)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*len)++] = (char)(0xC0 | (cp >> 6));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*len)++] = (char)(0xE0 | (cp >> 12));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*len)++] = (char)(0xF0 | (cp >> 18));
        out[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static bool hex4(scanner* sc, uint32_t* out) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
        int c = peek(sc);
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) {
            expected(sc, "four hex digits after \\u");
            return false;
        }
        v = v * 16 + (uint32_t)d;
        advance(sc);
    }
    *out = v;
    return true;
}

// Scans a string starting at '"' and decodes it. When `out` is non-NULL the decoded text is
// returned in a malloc'd buffer, else it is dropped.
static bool scan_string(scanner* sc, char** out, size_t* out_len) {
    const json_pos start = here(sc);
    advance(sc); // opening quote
    size_t cap = 32, len = 0;
    char* buf = malloc(cap);
    bool ok = buf != NULL;
    if (!ok) fail_at(sc, start, "out of memory");
    while (ok) {
        const int c = peek(sc);
        if (c < 0 || c == '\n') {
            ok = false;
            fail_at(sc, start, "unterminated string");
            break;
        }
        if (c == '"') break;
        if (len + 8 > cap) { // room for the longest UTF-8 sequence and the NUL
            char* nb = realloc(buf, cap *= 2);
            if (!nb) {
                ok = false;
                fail_at(sc, start, "out of memory");
                break;
            }
            buf = nb;
        }
        if (c < 0x20) {
            ok = false;
            fail_at(sc, here(sc), "control character in a string (escape it)");
        } else if (c != '\\') {
            buf[len++] = (char)c;
            advance(sc);
        } else {
            const json_pos esc = here(sc);
            advance(sc);
            const int e = peek(sc);
            const char* simple = e > 0 ? strchr("\"\\/bfnrt", e) : NULL;
            if (simple) {
                static const char decoded[] = "\"\\/\b\f\n\r\t";
                buf[len++] = decoded[simple - "\"\\/bfnrt"];
                advance(sc);
            } else if (e == 'u') {
                advance(sc);
                uint32_t cp;
                ok = hex4(sc, &cp);
                // A high surrogate followed by a low one is one code point; a lone one is U+FFFD.
                if (ok && cp >= 0xD800 && cp < 0xDC00 && peek(sc) == '\\' && sc->i + 1 < sc->n &&
                    sc->s[sc->i + 1] == 'u') {
                    advance(sc);
                    advance(sc);
                    uint32_t lo;
                    ok = hex4(sc, &lo);
                    cp = lo >= 0xDC00 && lo < 0xE000
                             ? 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                             : 0xFFFD;
                } else if (cp >= 0xD800 && cp < 0xE000) {
                    cp = 0xFFFD;
                }
                if (ok) put_utf8(buf, &len, cp);
            } else {
                ok = false;
                fail_at(sc, esc, "invalid escape in a string");
            }
        }
    }
    if (ok) {
        advance(sc); // closing quote
        buf[len] = '\0';
    }
    if (ok && out) {
        *out = buf;
        *out_len = len;
    } else {
        free(buf);
    }
    return ok;
}

static bool is_digit(int c) {
    return c >= '0' && c <= '9';
}

static bool scan_number(scanner* sc) {
    json_pos start = here(sc);
    if (peek(sc) == '-') advance(sc);
    if (peek(sc) == '0') {
        advance(sc);
        if (is_digit(peek(sc))) {
            fail_at(sc, start, "invalid number: leading zero");
            return false;
        }
    } else if (is_digit(peek(sc))) {
        while (is_digit(peek(sc))) advance(sc);
    } else {
        fail_at(sc, start, "invalid number");
        return false;
    }
    if (peek(sc) == '.') {
        advance(sc);
        if (!is_digit(peek(sc))) {
            fail_at(sc, start, "invalid number: digits must follow '.'");
            return false;
        }
        while (is_digit(peek(sc))) advance(sc);
    }
    if (peek(sc) == 'e' || peek(sc) == 'E') {
        advance(sc);
        if (peek(sc) == '+' || peek(sc) == '-') advance(sc);
        if (!is_digit(peek(sc))) {
            fail_at(sc, start, "invalid number: digits must follow the exponent");
            return false;
        }
        while (is_digit(peek(sc))) advance(sc);
    }
    int c = peek(sc);
    if (c >= 0 && (isalnum(c) || c == '.' || c == '_')) {
        fail_at(sc, start, "invalid number");
        return false;
    }
    return true;
}

static bool scan_literal(scanner* sc, const char* word) {
    json_pos start = here(sc);
    size_t len = strlen(word);
    if (sc->n - sc->i < len || memcmp(sc->s + sc->i, word, len) != 0) {
        fail_at(sc, start, "expected a value (object, array, string, number, true, false or null)");
        return false;
    }
    for (size_t k = 0; k < len; ++k) advance(sc);
    int c = peek(sc);
    if (c >= 0 && (isalnum(c) || c == '_')) {
        fail_at(sc, start, "expected a value (object, array, string, number, true, false or null)");
        return false;
    }
    return true;
}

static bool scan_value(scanner* sc, json_pos key);

static bool scan_object(scanner* sc) {
    json_pos open = here(sc);
    advance(sc);
    skip_ws(sc);
    if (peek(sc) == '}') {
        advance(sc);
        return true;
    }
    char** keys = NULL;
    int nkeys = 0, cap = 0;
    bool ok = false;
    for (;;) {
        skip_ws(sc);
        if (peek(sc) != '"') {
            if (peek(sc) == '}' && nkeys > 0)
                fail_at(sc, here(sc), "trailing comma before '}'");
            else if (peek(sc) < 0)
                fail_at(sc, open, "unterminated object");
            else
                expected(sc, "a key in double quotes");
            break;
        }
        json_pos key_pos = here(sc);
        char* key;
        size_t key_len;
        if (!scan_string(sc, &key, &key_len)) break;
        if (strlen(key) != key_len) {
            fail_at(sc, key_pos, "a key with a NUL character");
            free(key);
            break;
        }
        bool dup = false;
        for (int k = 0; k < nkeys && !dup; ++k) dup = strcmp(keys[k], key) == 0;
        if (dup) {
            fail_at(sc, key_pos, "duplicate key \"%s\"", key);
            free(key);
            break;
        }
        if (nkeys == cap) {
            cap = cap ? cap * 2 : 8;
            char** nk = realloc(keys, sizeof *nk * (size_t)cap);
            if (!nk) {
                fail_at(sc, key_pos, "out of memory");
                free(key);
                break;
            }
            keys = nk;
        }
        keys[nkeys++] = key;
        skip_ws(sc);
        if (peek(sc) != ':') {
            expected(sc, "':' after the key");
            break;
        }
        advance(sc);
        size_t saved = sc->ptr_len;
        if (!push(sc, key, key_len)) break;
        bool v = scan_value(sc, key_pos);
        sc->ptr_len = saved;
        if (sc->ptr) sc->ptr[saved] = '\0';
        if (!v) break;
        skip_ws(sc);
        int c = peek(sc);
        if (c == ',') {
            advance(sc);
            continue;
        }
        if (c == '}') {
            advance(sc);
            ok = true;
            break;
        }
        if (c < 0)
            fail_at(sc, open, "unterminated object");
        else
            expected(sc, "',' or '}' after an object member");
        break;
    }
    for (int k = 0; k < nkeys; ++k) free(keys[k]);
    free(keys);
    return ok;
}

static bool scan_array(scanner* sc) {
    json_pos open = here(sc);
    advance(sc);
    skip_ws(sc);
    if (peek(sc) == ']') {
        advance(sc);
        return true;
    }
    for (long k = 0;; ++k) {
        skip_ws(sc);
        if (peek(sc) == ']' && k > 0) {
            fail_at(sc, here(sc), "trailing comma before ']'");
            return false;
        }
        char seg[24];
        int seg_len = snprintf(seg, sizeof seg, "%ld", k);
        size_t saved = sc->ptr_len;
        if (!push(sc, seg, (size_t)seg_len)) return false;
        bool v = scan_value(sc, (json_pos){0, 0});
        sc->ptr_len = saved;
        sc->ptr[saved] = '\0';
        if (!v) return false;
        skip_ws(sc);
        int c = peek(sc);
        if (c == ',') {
            advance(sc);
            continue;
        }
        if (c == ']') {
            advance(sc);
            return true;
        }
        if (c < 0)
            fail_at(sc, open, "unterminated array");
        else
            expected(sc, "',' or ']' after an array element");
        return false;
    }
}

static bool scan_value(scanner* sc, json_pos key) {
    skip_ws(sc);
    json_pos pos = here(sc);
    int c = peek(sc);
    if (c < 0) {
        expected(sc, "a value");
        return false;
    }
    record(sc, pos, key.line ? key : pos);
    if (sc->failed) return false;
    switch (c) {
    case '{':
    case '[': {
        if (++sc->depth > MAX_DEPTH) {
            fail_at(sc, pos, "nesting deeper than %d levels", MAX_DEPTH);
            return false;
        }
        bool ok = c == '{' ? scan_object(sc) : scan_array(sc);
        sc->depth--;
        return ok;
    }
    case '"':
        return scan_string(sc, NULL, NULL);
    case 't':
        return scan_literal(sc, "true");
    case 'f':
        return scan_literal(sc, "false");
    case 'n':
        return scan_literal(sc, "null");
    default:
        if (c == '-' || is_digit(c)) return scan_number(sc);
        expected(sc, "a value (object, array, string, number, true, false or null)");
        return false;
    }
}

bool json_index_build(json_index* idx, const char* text, size_t len, json_pos* err_pos, char* err,
                      size_t errlen) {
    *idx = (json_index){0};
    scanner sc = {
        .s = text, .n = len, .line = 1, .col = 1, .idx = idx, .err = err, .errlen = errlen};
    if (errlen) err[0] = '\0';
    // A UTF-8 byte order mark is not JSON but editors write it; skip it without counting a column.
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) sc.i = 3;
    if (memchr(text, '\0', len)) {
        json_pos p =
            json_offset_pos(text, len, (size_t)((const char*)memchr(text, '\0', len) - text));
        fail_at(&sc, p, "NUL byte in the file");
    } else if (scan_value(&sc, (json_pos){0, 0})) {
        skip_ws(&sc);
        if (peek(&sc) >= 0) {
            char got[48];
            describe(&sc, got, sizeof got);
            fail_at(&sc, here(&sc), "expected the end of the file after the document, got %s", got);
        }
    }
    free(sc.ptr);
    if (sc.failed) *err_pos = sc.err_pos;
    return !sc.failed;
}

static const json_index_entry* find(const json_index* idx, const char* pointer) {
    for (int k = 0; k < idx->count; ++k)
        if (strcmp(idx->entries[k].pointer, pointer) == 0) return &idx->entries[k];
    return NULL;
}

json_pos json_index_value(const json_index* idx, const char* pointer) {
    const json_index_entry* e = find(idx, pointer);
    return e ? e->value : (json_pos){0, 0};
}

json_pos json_index_key(const json_index* idx, const char* pointer) {
    const json_index_entry* e = find(idx, pointer);
    return e ? e->key : (json_pos){0, 0};
}

json_pos json_offset_pos(const char* text, size_t len, size_t offset) {
    json_pos p = {1, 1};
    if (offset > len) offset = len;
    for (size_t i = 0; i < offset; ++i) {
        unsigned char b = (unsigned char)text[i];
        if (b == '\n') {
            p.line++;
            p.col = 1;
        } else if ((b & 0xC0) != 0x80) {
            p.col++;
        }
    }
    return p;
}

void json_index_free(json_index* idx) {
    for (int k = 0; k < idx->count; ++k) free(idx->entries[k].pointer);
    free(idx->entries);
    *idx = (json_index){0};
}
