#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

// The frame and table views point straight into the file's bytes.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "recording views assume a little-endian host"
#endif

static uint32_t rd_u32(const uint8_t* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rd_f32(const uint8_t* p) {
    uint32_t u = rd_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static size_t pad4(size_t n) {
    return (n + 3u) & ~(size_t)3u;
}

static bool fail(char* err, size_t errlen, const char* name, const char* fmt, ...) {
    int n = snprintf(err, errlen, "%s: ", name);
    if (n >= 0 && (size_t)n < errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

static bool push(void** arr, int* count, size_t elem, const void* v) {
    void* a = realloc(*arr, elem * (size_t)(*count + 1));
    if (!a) return false;
    memcpy((uint8_t*)a + elem * (size_t)*count, v, elem);
    *arr = a;
    (*count)++;
    return true;
}

static bool parse_chunks(recording* r, const char* name, char* err, size_t errlen) {
    const uint8_t* d = r->data;
    const size_t end = r->size - 24; // the END chunk
    size_t off = 16;
    bool meta = false;
    while (off < end) {
        if (end - off < 8)
            return fail(err, errlen, name, "chunk header past the end at byte %zu", off);
        const uint8_t* tagp = d + off;
        const uint32_t size = rd_u32(d + off + 4);
        const uint8_t* p = d + off + 8;
        if ((size & 3u) || size > end - off - 8)
            return fail(err, errlen, name, "bad chunk size %u at byte %zu", size, off);
        if (!meta && memcmp(tagp, "META", 4) != 0)
            return fail(err, errlen, name, "the first chunk is not META");
        if (memcmp(tagp, "META", 4) == 0) {
            if (size < 16) return fail(err, errlen, name, "short META chunk");
            r->dt = rd_f32(p);
            r->record_every = (int)rd_u32(p + 4);
            r->world_tag = rd_u32(p + 8);
            const uint32_t len = rd_u32(p + 12);
            if (len > size - 16) return fail(err, errlen, name, "bad name length in META");
            free(r->name);
            r->name = malloc(len + 1);
            if (!r->name) return fail(err, errlen, name, "out of memory");
            memcpy(r->name, p + 16, len);
            r->name[len] = '\0';
            meta = true;
        } else if (memcmp(tagp, "PATH", 4) == 0) {
            if (size < 12) return fail(err, errlen, name, "short PATH chunk");
            rec_path path = {.uses = rd_u32(p),
                             .tube_radius = rd_f32(p + 4),
                             .count = (int)rd_u32(p + 8),
                             .xy = (const float*)(p + 12)};
            if (path.count < 0 || (size_t)path.count * 8 != size - 12)
                return fail(err, errlen, name, "bad PATH chunk at byte %zu", off);
            if (!push((void**)&r->paths, &r->path_count, sizeof path, &path))
                return fail(err, errlen, name, "out of memory");
        } else if (memcmp(tagp, "GOAL", 4) == 0) {
            if (size != 16) return fail(err, errlen, name, "bad GOAL chunk at byte %zu", off);
            rec_goal g = {rd_u32(p), rd_f32(p + 4), rd_f32(p + 8), rd_f32(p + 12)};
            if (!push((void**)&r->goals, &r->goal_count, sizeof g, &g))
                return fail(err, errlen, name, "out of memory");
        } else if (memcmp(tagp, "AREA", 4) == 0) {
            if (size != 20) return fail(err, errlen, name, "bad AREA chunk at byte %zu", off);
            rec_area a = {rd_u32(p),
                          {rd_f32(p + 4), rd_f32(p + 8), rd_f32(p + 12), rd_f32(p + 16)}};
            if (!push((void**)&r->areas, &r->area_count, sizeof a, &a))
                return fail(err, errlen, name, "out of memory");
        } else if (memcmp(tagp, "OBST", 4) == 0) {
            if (size < 8) return fail(err, errlen, name, "short OBST chunk");
            rec_obstacle o = {
                .kind = rd_u32(p), .count = (int)rd_u32(p + 4), .xy = (const float*)(p + 8)};
            if (o.kind >= CROWD_OBSTACLE_KIND_COUNT || o.count < 2 ||
                (size_t)o.count * 8 != size - 8)
                return fail(err, errlen, name, "bad OBST chunk at byte %zu", off);
            if (!push((void**)&r->obstacles, &r->obstacle_count, sizeof o, &o))
                return fail(err, errlen, name, "out of memory");
        } else if (memcmp(tagp, "FELD", 4) == 0) {
            if (size < 24) return fail(err, errlen, name, "short FELD chunk");
            const float x0 = rd_f32(p), y0 = rd_f32(p + 4), step = rd_f32(p + 8);
            const size_t cols = rd_u32(p + 12), rows = rd_u32(p + 16), len = rd_u32(p + 20);
            const size_t n = cols * rows;
            if (!isfinite(x0) || !isfinite(y0) || !(step > 0.0f) || !isfinite(step) || cols == 0 ||
                rows == 0 || cols > REC_FIELD_MAX_SAMPLES || rows > REC_FIELD_MAX_SAMPLES ||
                n > REC_FIELD_MAX_SAMPLES || len > size ||
                24 + pad4(len) + 4 * n + pad4(n) + pad4(n) != size)
                return fail(err, errlen, name, "bad FELD chunk at byte %zu", off);
            const uint8_t* data = p + 24 + pad4(len);
            rec_field_view f = {.x0 = x0,
                                .y0 = y0,
                                .step = step,
                                .cols = (int)cols,
                                .rows = (int)rows,
                                .distance = (const float*)data,
                                .state = data + 4 * n,
                                .angle = data + 4 * n + pad4(n)};
            for (size_t i = 0; i < n; ++i)
                if (f.state[i] > CROWD_ROUTE_STATE_UNREACHABLE)
                    return fail(err, errlen, name, "unknown route state %u in FELD", f.state[i]);
            f.label = malloc(len + 1);
            if (!f.label) return fail(err, errlen, name, "out of memory");
            memcpy(f.label, p + 24, len);
            f.label[len] = '\0';
            if (!push((void**)&r->fields, &r->field_count, sizeof f, &f)) {
                free(f.label);
                return fail(err, errlen, name, "out of memory");
            }
        } else if (memcmp(tagp, "HNDL", 4) == 0) {
            if (size < 4) return fail(err, errlen, name, "short HNDL chunk");
            const size_t n = rd_u32(p);
            const size_t radii = r->version >= 2 ? pad4(n * 2) : 0;
            if (n > size || 4 + n * 4 + pad4(n * 2) + pad4(n) + radii != size)
                return fail(err, errlen, name, "bad HNDL chunk at byte %zu", off);
            rec_table t = {.count = (int)n,
                           .index1 = (const uint32_t*)(p + 4),
                           .generation = (const uint16_t*)(p + 4 + n * 4),
                           .kind = p + 4 + n * 4 + pad4(n * 2),
                           .radius_mm =
                               radii ? (const uint16_t*)(p + 4 + n * 4 + pad4(n * 2) + pad4(n))
                                     : NULL};
            for (size_t i = 0; i < n; ++i)
                if (t.kind[i] >= AGENT_KIND_COUNT)
                    return fail(err, errlen, name, "unknown agent kind %u in HNDL", t.kind[i]);
            if (!push((void**)&r->tables, &r->table_count, sizeof t, &t))
                return fail(err, errlen, name, "out of memory");
        } else if (memcmp(tagp, "FRAM", 4) == 0) {
            if (size < 28) return fail(err, errlen, name, "short FRAM chunk");
            const size_t n = rd_u32(p + 8);
            if (r->table_count == 0)
                return fail(err, errlen, name, "frame before any handle table at byte %zu", off);
            if ((int)n != r->tables[r->table_count - 1].count ||
                28 + pad4(n * 2) * 2 + pad4(n) != size)
                return fail(err, errlen, name, "bad FRAM chunk at byte %zu", off);
            rec_frame_view f = {.tick = rd_u32(p) | (uint64_t)rd_u32(p + 4) << 32,
                                .count = (int)n,
                                .table = r->table_count - 1,
                                .min_x = rd_f32(p + 12),
                                .min_y = rd_f32(p + 16),
                                .max_x = rd_f32(p + 20),
                                .max_y = rd_f32(p + 24),
                                .qx = (const uint16_t*)(p + 28),
                                .qy = (const uint16_t*)(p + 28 + pad4(n * 2)),
                                .heading = p + 28 + 2 * pad4(n * 2)};
            if (!push((void**)&r->frames, &r->frame_count, sizeof f, &f))
                return fail(err, errlen, name, "out of memory");
        }
        // Chunks of other tags are skipped: later versions may add some.
        off += 8 + size;
    }
    if (!meta) return fail(err, errlen, name, "no META chunk");
    if (rd_u32(d + end + 8) != (uint32_t)r->frame_count)
        return fail(err, errlen, name, "END counts %u frames, the file has %d", rd_u32(d + end + 8),
                    r->frame_count);
    return true;
}

bool rec_parse(uint8_t* data, size_t size, const char* name, recording* out, char* err,
               size_t errlen) {
    *out = (recording){.data = data, .size = size};
    if (size < 8 || memcmp(data, REC_MAGIC, 8) != 0) {
        rec_free(out);
        return fail(err, errlen, name, "not a crowd recording (bad magic number)");
    }
    bool ok = true;
    if (size < 16 + 24 || (size & 3u)) {
        ok = fail(err, errlen, name, "truncated recording (%zu bytes)", size);
    } else if (rd_u32(data + 8) < REC_VERSION_OLDEST || rd_u32(data + 8) > REC_VERSION) {
        ok = fail(err, errlen, name,
                  "recording version %u is not supported (this crowd reads %u to %u)",
                  rd_u32(data + 8), REC_VERSION_OLDEST, REC_VERSION);
    } else if (memcmp(data + size - 24, "END ", 4) != 0 || rd_u32(data + size - 20) != 16) {
        ok = fail(err, errlen, name, "truncated recording (no END chunk)");
    } else {
        const uint64_t want = rd_u32(data + size - 8) | (uint64_t)rd_u32(data + size - 4) << 32;
        if (rec_checksum(data, size - 8) != want) {
            ok = fail(err, errlen, name, "checksum mismatch: the recording is corrupt");
        } else {
            out->version = rd_u32(data + 8);
            ok = parse_chunks(out, name, err, errlen);
        }
    }
    if (!ok) rec_free(out);
    return ok;
}

bool rec_read(const char* file, recording* out, char* err, size_t errlen) {
    *out = (recording){0};
    FILE* f = fopen(file, "rb");
    if (!f) return fail(err, errlen, file, "%s", strerror(errno));
    uint8_t* data = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            uint8_t* d = realloc(data, cap);
            if (!d) {
                ok = fail(err, errlen, file, "out of memory");
                break;
            }
            data = d;
        }
        size_t n = fread(data + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    if (ok && ferror(f)) ok = fail(err, errlen, file, "read error");
    fclose(f);
    if (!ok) {
        free(data);
        return false;
    }
    return rec_parse(data, len, file, out, err, errlen);
}

void rec_free(recording* r) {
    free(r->data);
    free(r->name);
    free(r->paths);
    free(r->goals);
    free(r->areas);
    free(r->obstacles);
    for (int k = 0; k < r->field_count; ++k) free(r->fields[k].label);
    free(r->fields);
    free(r->tables);
    free(r->frames);
    *r = (recording){0};
}

void rec_decode(const rec_frame_view* f, int i, float* x, float* y, float* heading) {
    const double ex = (double)f->max_x - (double)f->min_x;
    const double ey = (double)f->max_y - (double)f->min_y;
    *x = (float)((double)f->min_x + ex * (double)f->qx[i] / 65535.0);
    *y = (float)((double)f->min_y + ey * (double)f->qy[i] / 65535.0);
    *heading = (float)((double)(int8_t)f->heading[i] * (6.283185307179586 / 256.0));
}
