// The part of cJSON's API the scenario loader calls (tools/crowd/scenario_*.c), for the
// WebAssembly build: Debian ships cJSON as a native library and headers only, not as source to
// compile for another target. This file implements those calls on the struct of Debian's
// cJSON.h (tools/web.sh puts a copy of the header on the include path).
//
// The loader runs its own strict RFC 8259 scanner (json_index.c) before it parses, so this parser
// only ever sees valid JSON and reports no positions. What a scenario can depend on is as
// cJSON 1.7 does it: numbers are read by strtod from at most 63 characters, valueint saturates
// at the int range, strings decode \u escapes (surrogate pairs included) to UTF-8, members stay
// in document order, nesting is limited to CJSON_NESTING_LIMIT.
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const char* p;
    const char* end;
    int depth;
} reader;

static void skip_ws(reader* r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        ++r->p;
}

static cJSON* new_item(int type) {
    cJSON* item = calloc(1, sizeof *item);
    if (item) item->type = type;
    return item;
}

static int hex4(const char* s, unsigned* out) {
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
        const char c = s[k];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static char* utf8(char* o, unsigned cp) {
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

// A string starting at the opening quote; NULL on a malformed one.
static char* read_string(reader* r) {
    const char* s = ++r->p;
    while (r->p < r->end && *r->p != '"') r->p += *r->p == '\\' ? 2 : 1;
    if (r->p >= r->end) return NULL;
    char* out = malloc((size_t)(r->p - s) + 1);
    if (!out) return NULL;
    char* o = out;
    for (const char* c = s; c < r->p; ++c) {
        if (*c != '\\') {
            *o++ = *c;
            continue;
        }
        switch (*++c) {
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u': {
            unsigned cp, lo;
            if (r->p - c < 5 || !hex4(c + 1, &cp)) goto bad;
            c += 4;
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (r->p - c < 7 || c[1] != '\\' || c[2] != 'u' || !hex4(c + 3, &lo) ||
                    lo < 0xdc00 || lo > 0xdfff)
                    goto bad;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                c += 6;
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                goto bad;
            }
            o = utf8(o, cp);
            break;
        }
        default:
            *o++ = *c;
            break; // " \ /
        }
    }
    *o = '\0';
    ++r->p;
    return out;
bad:
    free(out);
    return NULL;
}

static cJSON* read_value(reader* r);

// Members or elements up to `close`; keys for objects.
static cJSON* read_container(reader* r, int type, char close) {
    if (++r->depth > CJSON_NESTING_LIMIT) return NULL;
    cJSON* item = new_item(type);
    if (!item) return NULL;
    ++r->p;
    skip_ws(r);
    cJSON* last = NULL;
    if (r->p < r->end && *r->p == close) {
        ++r->p;
        --r->depth;
        return item;
    }
    for (;;) {
        char* key = NULL;
        skip_ws(r);
        if (type == cJSON_Object) {
            if (r->p >= r->end || *r->p != '"' || !(key = read_string(r))) goto bad;
            skip_ws(r);
            if (r->p >= r->end || *r->p != ':') {
                free(key);
                goto bad;
            }
            ++r->p;
        }
        cJSON* child = read_value(r);
        if (!child) {
            free(key);
            goto bad;
        }
        child->string = key;
        if (last) {
            last->next = child;
            child->prev = last;
        } else {
            item->child = child;
        }
        item->child->prev = child; // cJSON keeps the last element in the first one's prev
        last = child;
        skip_ws(r);
        if (r->p < r->end && *r->p == ',') {
            ++r->p;
            continue;
        }
        if (r->p < r->end && *r->p == close) {
            ++r->p;
            --r->depth;
            return item;
        }
        goto bad;
    }
bad:
    cJSON_Delete(item);
    return NULL;
}

static cJSON* read_number(reader* r) {
    char buf[64];
    size_t n = 0;
    while (r->p + n < r->end && n < sizeof buf - 1 && strchr("0123456789+-eE.", r->p[n]) &&
           r->p[n] != '\0')
        ++n;
    memcpy(buf, r->p, n);
    buf[n] = '\0';
    char* stop;
    const double v = strtod(buf, &stop);
    if (stop == buf) return NULL;
    r->p += stop - buf;
    cJSON* item = new_item(cJSON_Number);
    if (!item) return NULL;
    item->valuedouble = v;
    item->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
    return item;
}

static int word(reader* r, const char* w) {
    const size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || strncmp(r->p, w, n) != 0) return 0;
    r->p += n;
    return 1;
}

static cJSON* read_value(reader* r) {
    skip_ws(r);
    if (r->p >= r->end) return NULL;
    switch (*r->p) {
    case '{':
        return read_container(r, cJSON_Object, '}');
    case '[':
        return read_container(r, cJSON_Array, ']');
    case '"': {
        char* s = read_string(r);
        cJSON* item = s ? new_item(cJSON_String) : NULL;
        if (item)
            item->valuestring = s;
        else
            free(s);
        return item;
    }
    case 't':
        return word(r, "true") ? new_item(cJSON_True) : NULL;
    case 'f':
        return word(r, "false") ? new_item(cJSON_False) : NULL;
    case 'n':
        return word(r, "null") ? new_item(cJSON_NULL) : NULL;
    default:
        return read_number(r);
    }
}

cJSON* cJSON_ParseWithLengthOpts(const char* value, size_t buffer_length,
                                 const char** return_parse_end,
                                 cJSON_bool require_null_terminated) {
    if (!value || buffer_length == 0) return NULL;
    reader r = {value, value + buffer_length, 0};
    cJSON* root = read_value(&r);
    if (root) {
        skip_ws(&r);
        if (require_null_terminated && r.p < r.end && *r.p != '\0') {
            cJSON_Delete(root);
            root = NULL;
        }
    }
    if (return_parse_end) *return_parse_end = r.p;
    return root;
}

void cJSON_Delete(cJSON* item) {
    while (item) {
        cJSON* next = item->next;
        cJSON_Delete(item->child);
        free(item->valuestring);
        free(item->string);
        free(item);
        item = next;
    }
}

int cJSON_GetArraySize(const cJSON* array) {
    int n = 0;
    for (const cJSON* c = array ? array->child : NULL; c; c = c->next) ++n;
    return n;
}

cJSON* cJSON_GetArrayItem(const cJSON* array, int index) {
    if (!array || index < 0) return NULL;
    cJSON* c = array->child;
    while (c && index-- > 0) c = c->next;
    return c;
}

cJSON* cJSON_GetObjectItemCaseSensitive(const cJSON* const object, const char* const string) {
    if (!object || !string) return NULL;
    for (cJSON* c = object->child; c; c = c->next)
        if (c->string && strcmp(c->string, string) == 0) return c;
    return NULL;
}

static int type_of(const cJSON* item) {
    return item ? item->type & 0xff : 0;
}

cJSON_bool cJSON_IsTrue(const cJSON* const item) {
    return type_of(item) == cJSON_True;
}
cJSON_bool cJSON_IsBool(const cJSON* const item) {
    return type_of(item) == cJSON_True || type_of(item) == cJSON_False;
}
cJSON_bool cJSON_IsNull(const cJSON* const item) {
    return type_of(item) == cJSON_NULL;
}
cJSON_bool cJSON_IsNumber(const cJSON* const item) {
    return type_of(item) == cJSON_Number;
}
cJSON_bool cJSON_IsString(const cJSON* const item) {
    return type_of(item) == cJSON_String;
}
cJSON_bool cJSON_IsArray(const cJSON* const item) {
    return type_of(item) == cJSON_Array;
}
cJSON_bool cJSON_IsObject(const cJSON* const item) {
    return type_of(item) == cJSON_Object;
}
