#include "scenario_fields.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const pc_rule PC_ANY = {-INFINITY, INFINITY, false};
const pc_rule PC_POSITIVE = {0.0, INFINITY, true};
const pc_rule PC_NON_NEGATIVE = {0.0, INFINITY, false};

static pc_mark mark_of(const pctx* c) {
    return (pc_mark){c->ptr_len, c->path_len};
}

static void append(char* buf, size_t cap, size_t* len, const char* s) {
    size_t n = strlen(s);
    if (*len + n >= cap) n = *len < cap - 1 ? cap - 1 - *len : 0;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

pc_mark pc_push_key(pctx* c, const char* key) {
    pc_mark m = mark_of(c);
    append(c->ptr, sizeof c->ptr, &c->ptr_len, "/");
    for (const char* k = key; *k; ++k) {
        const char one[2] = {*k, '\0'};
        append(c->ptr, sizeof c->ptr, &c->ptr_len, *k == '~' ? "~0" : (*k == '/' ? "~1" : one));
    }
    if (c->path_len) append(c->path, sizeof c->path, &c->path_len, ".");
    append(c->path, sizeof c->path, &c->path_len, key);
    return m;
}

pc_mark pc_push_index(pctx* c, int index) {
    pc_mark m = mark_of(c);
    char seg[32];
    snprintf(seg, sizeof seg, "/%d", index);
    append(c->ptr, sizeof c->ptr, &c->ptr_len, seg);
    snprintf(seg, sizeof seg, "[%d]", index);
    append(c->path, sizeof c->path, &c->path_len, seg);
    return m;
}

void pc_pop(pctx* c, pc_mark m) {
    c->ptr_len = m.ptr_len;
    c->ptr[m.ptr_len] = '\0';
    c->path_len = m.path_len;
    c->path[m.path_len] = '\0';
}

json_pos pc_pos(const pctx* c) {
    return json_index_value(c->idx, c->ptr);
}

json_pos pc_key_pos(const pctx* c) {
    return json_index_key(c->idx, c->ptr);
}

void pc_one_line(char* s, size_t cap) {
    char tmp[2048];
    size_t n = 0;
    for (const unsigned char* p = (const unsigned char*)s; *p && n + 7 < sizeof tmp; ++p) {
        if (*p >= 0x20 && *p != 0x7f) {
            tmp[n++] = (char)*p;
        } else if (*p == '\n' || *p == '\t' || *p == '\r') {
            tmp[n++] = '\\';
            tmp[n++] = *p == '\n' ? 'n' : (*p == '\t' ? 't' : 'r');
        } else {
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "\\u%04x", *p);
        }
    }
    tmp[n] = '\0';
    snprintf(s, cap, "%s", tmp);
}

bool pc_fail(pctx* c, json_pos pos, const char* fmt, ...) {
    int n;
    if (pos.line > 0)
        n = snprintf(c->err, c->errlen, "%s:%d:%d: ", c->file, pos.line, pos.col);
    else
        n = snprintf(c->err, c->errlen, "%s: ", c->file);
    if (n < 0 || (size_t)n >= c->errlen) return false;
    if (c->path_len) {
        int m = snprintf(c->err + n, c->errlen - (size_t)n, "%s: ", c->path);
        if (m < 0 || (size_t)(n + m) >= c->errlen) return false;
        n += m;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    pc_one_line(c->err, c->errlen);
    return false;
}

// "got ..." for messages.
static void describe(const cJSON* v, char* out, size_t len) {
    if (cJSON_IsNumber(v)) {
        snprintf(out, len, "%.9g", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        const char* s = v->valuestring;
        if (strlen(s) > 40)
            snprintf(out, len, "\"%.37s...\"", s);
        else
            snprintf(out, len, "\"%s\"", s);
    } else if (cJSON_IsBool(v)) {
        snprintf(out, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
    } else if (cJSON_IsNull(v)) {
        snprintf(out, len, "null");
    } else if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v);
        snprintf(out, len, "an array of %d element%s", n, n == 1 ? "" : "s");
    } else {
        snprintf(out, len, "an object");
    }
}

static bool expected(pctx* c, const cJSON* v, const char* what) {
    char got[64];
    describe(v, got, sizeof got);
    return pc_fail(c, pc_pos(c), "expected %s, got %s", what, got);
}

bool pc_object(pctx* c, const cJSON* node, const char* what, const char* const* keys) {
    if (!cJSON_IsObject(node)) {
        char buf[96];
        snprintf(buf, sizeof buf, "an object (%s)", what);
        return expected(c, node, buf);
    }
    for (const cJSON* m = node->child; m; m = m->next) {
        bool known = false;
        for (const char* const* k = keys; *k && !known; ++k) known = strcmp(*k, m->string) == 0;
        if (known) continue;
        char list[512] = "";
        size_t len = 0;
        for (const char* const* k = keys; *k; ++k) {
            if (k != keys) append(list, sizeof list, &len, ", ");
            append(list, sizeof list, &len, *k);
        }
        pc_mark mk = pc_push_key(c, m->string);
        json_pos pos = pc_key_pos(c);
        pc_pop(c, mk);
        return pc_fail(c, pos, "unknown key \"%s\" in %s (expected one of: %s)", m->string, what,
                       list);
    }
    return true;
}

bool pc_array(pctx* c, const cJSON* node, const char* what, int* count) {
    if (!cJSON_IsArray(node)) {
        char buf[96];
        snprintf(buf, sizeof buf, "an array (%s)", what);
        return expected(c, node, buf);
    }
    *count = cJSON_GetArraySize(node);
    return true;
}

bool pc_has(const cJSON* obj, const char* key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

bool pc_require(pctx* c, const cJSON* obj, const char* key) {
    if (pc_has(obj, key)) return true;
    return pc_fail(c, pc_pos(c), "missing key \"%s\"", key);
}

static void rule_text(pc_rule r, char* out, size_t len) {
    if (isinf(r.lo) && isinf(r.hi))
        snprintf(out, len, "a number");
    else if (isinf(r.hi))
        snprintf(out, len, "a number %s %g", r.lo_open ? ">" : ">=", r.lo);
    else
        snprintf(out, len, "a number in %s%g, %g]", r.lo_open ? "(" : "[", r.lo, r.hi);
}

static bool in_rule(pc_rule r, double v) {
    return (r.lo_open ? v > r.lo : v >= r.lo) && v <= r.hi;
}

// The current node as a float within `rule`.
static bool float_here(pctx* c, const cJSON* v, pc_rule rule, float* out) {
    char want[64];
    rule_text(rule, want, sizeof want);
    if (!cJSON_IsNumber(v)) return expected(c, v, want);
    const float f = (float)v->valuedouble;
    if (!isfinite(f)) return pc_fail(c, pc_pos(c), "%g is out of the float range", v->valuedouble);
    // The rule holds for the float that is used, not only for the double that was written
    // (1e-50 is > 0, its float is not).
    if (!in_rule(rule, v->valuedouble) || !in_rule(rule, (double)f)) return expected(c, v, want);
    *out = f;
    return true;
}

bool pc_float(pctx* c, const cJSON* obj, const char* key, pc_rule rule, float* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok = float_here(c, v, rule, out);
    pc_pop(c, m);
    return ok;
}

bool pc_int(pctx* c, const cJSON* obj, const char* key, long lo, long hi, int* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    char want[64];
    if (hi == INT32_MAX)
        snprintf(want, sizeof want, "an integer >= %ld", lo);
    else
        snprintf(want, sizeof want, "an integer in [%ld, %ld]", lo, hi);
    bool ok = cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
              v->valuedouble >= (double)lo && v->valuedouble <= (double)hi;
    if (ok)
        *out = (int)v->valuedouble;
    else
        expected(c, v, want);
    pc_pop(c, m);
    return ok;
}

bool pc_u64(pctx* c, const cJSON* obj, const char* key, uint64_t* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    // Doubles hold integers exactly up to 2^53; beyond that the seed would silently change.
    const double max = 9007199254740992.0;
    bool ok = cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
              v->valuedouble >= 0.0 && v->valuedouble <= max;
    if (ok)
        *out = (uint64_t)v->valuedouble;
    else
        expected(c, v, "an integer in [0, 2^53]");
    pc_pop(c, m);
    return ok;
}

bool pc_string(pctx* c, const cJSON* obj, const char* key, char** out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok = cJSON_IsString(v);
    if (ok) {
        char* s = strdup(v->valuestring);
        if (!s) {
            ok = pc_fail(c, pc_pos(c), "out of memory");
        } else {
            free(*out);
            *out = s;
        }
    } else {
        expected(c, v, "a string");
    }
    pc_pop(c, m);
    return ok;
}

bool pc_enum(pctx* c, const cJSON* obj, const char* key, const char* const* names, int count,
             int* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok = false;
    if (cJSON_IsString(v)) {
        for (int k = 0; k < count && !ok; ++k) {
            if (names[k] && strcmp(names[k], v->valuestring) == 0) {
                *out = k;
                ok = true;
            }
        }
    }
    if (!ok) {
        char want[256] = "one of ";
        size_t len = strlen(want);
        bool first = true;
        for (int k = 0; k < count; ++k) {
            if (!names[k]) continue;
            if (!first) append(want, sizeof want, &len, ", ");
            append(want, sizeof want, &len, "\"");
            append(want, sizeof want, &len, names[k]);
            append(want, sizeof want, &len, "\"");
            first = false;
        }
        expected(c, v, want);
    }
    pc_pop(c, m);
    return ok;
}

static bool vec2_here(pctx* c, const cJSON* v, bool nonzero, crowd_vec2* out) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return expected(c, v, "[x, y] (an array of two numbers)");
    float xy[2];
    for (int k = 0; k < 2; ++k) {
        pc_mark m = pc_push_index(c, k);
        bool ok = float_here(c, cJSON_GetArrayItem(v, k), PC_ANY, &xy[k]);
        pc_pop(c, m);
        if (!ok) return false;
    }
    if (nonzero && xy[0] == 0.0f && xy[1] == 0.0f)
        return pc_fail(c, pc_pos(c), "expected a direction of non-zero length, got [0, 0]");
    *out = (crowd_vec2){xy[0], xy[1]};
    return true;
}

bool pc_vec2(pctx* c, const cJSON* obj, const char* key, bool nonzero, crowd_vec2* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok = vec2_here(c, v, nonzero, out);
    pc_pop(c, m);
    return ok;
}

bool pc_range(pctx* c, const cJSON* obj, const char* key, pc_rule rule, sc_range* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok;
    if (cJSON_IsNumber(v)) {
        float f = 0.0f;
        ok = float_here(c, v, rule, &f);
        if (ok) *out = (sc_range){f, f};
    } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
        float lh[2] = {0.0f, 0.0f};
        ok = true;
        for (int k = 0; k < 2 && ok; ++k) {
            pc_mark mk = pc_push_index(c, k);
            ok = float_here(c, cJSON_GetArrayItem(v, k), rule, &lh[k]);
            pc_pop(c, mk);
        }
        if (ok && lh[0] > lh[1])
            ok = pc_fail(c, pc_pos(c), "expected a range [lo, hi] with lo <= hi, got [%g, %g]",
                         (double)lh[0], (double)lh[1]);
        if (ok) *out = (sc_range){lh[0], lh[1]};
    } else {
        char want[96], r[64];
        rule_text(rule, r, sizeof r);
        snprintf(want, sizeof want, "%s or a range [lo, hi]", r);
        ok = expected(c, v, want);
    }
    pc_pop(c, m);
    return ok;
}

bool pc_points(pctx* c, const cJSON* obj, const char* key, int min, crowd_vec2** out, int* count) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return true;
    pc_mark m = pc_push_key(c, key);
    bool ok = true;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < min) {
        char want[96];
        snprintf(want, sizeof want, "an array of at least %d [x, y] points", min);
        ok = expected(c, v, want);
    }
    int n = ok ? cJSON_GetArraySize(v) : 0;
    crowd_vec2* pts = ok ? malloc(sizeof *pts * (size_t)n) : NULL;
    if (ok && !pts) ok = pc_fail(c, pc_pos(c), "out of memory");
    int k = 0;
    for (const cJSON* e = ok ? v->child : NULL; e && ok; e = e->next, ++k) {
        pc_mark mk = pc_push_index(c, k);
        ok = vec2_here(c, e, false, &pts[k]);
        pc_pop(c, mk);
    }
    if (ok) {
        free(*out);
        *out = pts;
        *count = n;
    } else {
        free(pts);
    }
    pc_pop(c, m);
    return ok;
}
