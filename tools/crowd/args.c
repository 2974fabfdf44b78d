#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_error(const char* cmd, const char* fmt, ...) {
    if (cmd)
        fprintf(stderr, "crowd %s: ", cmd);
    else
        fputs("crowd: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

bool cli_is_help(const char* arg) {
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

const char* cli_value(const char* cmd, int argc, char** argv, int* i) {
    if (*i + 1 >= argc) {
        cli_error(cmd, "%s needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

bool cli_int(const char* cmd, const char* flag, const char* s, long lo, long hi, long* out) {
    char* end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi) {
        cli_error(cmd, "%s: expected an integer in [%ld, %ld], got '%s'", flag, lo, hi, s);
        return false;
    }
    *out = v;
    return true;
}

bool cli_double(const char* cmd, const char* flag, const char* s, double lo_open, double hi,
                double* out) {
    char* end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno || !isfinite(v) || !(v > lo_open) || v > hi) {
        cli_error(cmd, "%s: expected a number > %g and <= %g, got '%s'", flag, lo_open, hi, s);
        return false;
    }
    *out = v;
    return true;
}

// Splits on commas into a bounded copy; false on an empty item.
static int split(const char* s, char items[][32], int max) {
    int n = 0;
    const char* p = s;
    for (;;) {
        const char* c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (len == 0 || len >= 32 || n == max) return -1;
        memcpy(items[n], p, len);
        items[n][len] = '\0';
        n++;
        if (!c) return n;
        p = c + 1;
    }
}

bool cli_int_list(const char* cmd, const char* flag, const char* s, long lo, long hi, int* out,
                  int max, int* count) {
    char items[64][32];
    int n = split(s, items, max < 64 ? max : 64);
    if (n < 0) {
        cli_error(cmd, "%s: expected a comma-separated list of at most %d integers, got '%s'", flag,
                  max, s);
        return false;
    }
    for (int k = 0; k < n; ++k) {
        long v;
        if (!cli_int(cmd, flag, items[k], lo, hi, &v)) return false;
        out[k] = (int)v;
    }
    *count = n;
    return true;
}

bool cli_double_list(const char* cmd, const char* flag, const char* s, double* out, int max,
                     int* count) {
    char items[64][32];
    int n = split(s, items, max < 64 ? max : 64);
    if (n < 0) {
        cli_error(cmd, "%s: expected a comma-separated list of at most %d numbers, got '%s'", flag,
                  max, s);
        return false;
    }
    for (int k = 0; k < n; ++k)
        if (!cli_double(cmd, flag, items[k], 0.0, 1e6, &out[k])) return false;
    *count = n;
    return true;
}

FILE* cli_open_out(const char* cmd, const char* path, const char* mode) {
    FILE* f = fopen(path, mode);
    if (!f) cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
    return f;
}

bool cli_close_out(const char* cmd, const char* path, FILE* f) {
    bool ok = !ferror(f);
    if (fclose(f) != 0) ok = false;
    if (!ok) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
        remove(path);
    }
    return ok;
}
