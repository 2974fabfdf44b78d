// Snapshot container: header, section table, checksum, and the save / load entry points.
//
// Layout (all integers little-endian, floats as their IEEE-754 bit patterns):
//
//   offset     size    field
//   0          8       magic "CRWDSNAP"
//   8          4       u32 format version (CROWD_SNAPSHOT_VERSION; CROWD_SNAPSHOT_MIN_VERSION and
//                      later load)
//   12         4       u32 section count S, the world settings section included
//   16         8       u64 total length in bytes, this header and the checksum included
//   24         24 * S  section table, per section: u32 id, u32 reserved (0), u64 offset,
//                      u64 length
//   24 + 24 S  ...     payloads in table order, back to back
//   total - 8  8       u64 CRC-64/XZ of bytes [0, total - 8)
//
// The sections are the world settings ('WRLD') followed by the sections of cs_snap_section_at() for
// the file's version, in order; each must appear exactly once and in that order. There is one valid
// encoding of a world in the current version, so a loaded world saves back to the same bytes; a
// world loaded from an older version saves in the current one.
//
// Versions: 3 the agents, queues, paths and groups; 4 added the obstacles and wall defs ('WALL');
// 5 added navigation (crowd/nav.h): the navigation def in 'WRLD', the exit sets ('EXIT', before
// the agents), each goal's route and exit set in 'AGNT' and each path follower's route in 'PATH';
// 6 added the navigation fields a whole build would not give again ('NAVF', after the agents,
// snapshot_nav.c). A field built whole is not saved: it is a function of the obstacles, the
// navigation def and the destination, and the first step after a load builds it again. A field
// repaired after obstacle changes is saved, with the grid, and with a repair pending so are the
// changes and every field built.
#include "snapshot/snapshot_internal.h"

#include <string.h>

static const uint8_t magic[8] = {'C', 'R', 'W', 'D', 'S', 'N', 'A', 'P'};

enum { HEADER_SIZE = 24, ENTRY_SIZE = 24, CHECKSUM_SIZE = 8 };

// ---- CRC-64/XZ ---------------------------------------------------------------------------------

void cs_crc64_init(cs_crc64_table* c) {
    for (uint32_t i = 0; i < 256; ++i) {
        uint64_t r = i;
        for (int k = 0; k < 8; ++k) r = (r >> 1) ^ (0xc96c5795d7870f42ull & (0 - (r & 1)));
        c->table[i] = r;
    }
}

uint64_t cs_crc64_update(const cs_crc64_table* c, uint64_t state, const void* data, size_t size) {
    const uint8_t* p = data;
    for (size_t i = 0; i < size; ++i) state = c->table[(state ^ p[i]) & 0xff] ^ (state >> 8);
    return state;
}

uint64_t cs_crc64(const void* data, size_t size) {
    cs_crc64_table c;
    cs_crc64_init(&c);
    return ~cs_crc64_update(&c, ~0ull, data, size);
}

// ---- writer -------------------------------------------------------------------------------------

static void flush(cs_snap_writer* w) {
    if (w->failed || w->staged == 0) return;
    w->crc_state = cs_crc64_update(w->crc, w->crc_state, w->stage, w->staged);
    if (w->write) {
        if (!w->write(w->stage, w->staged, w->user)) w->failed = true;
    } else if (w->staged > w->dst_left) {
        w->failed = true;
    } else {
        memcpy(w->dst, w->stage, w->staged);
        w->dst += w->staged;
        w->dst_left -= w->staged;
    }
    w->written += w->staged;
    w->staged = 0;
}

void cs_snap_put_bytes(cs_snap_writer* w, const void* data, size_t size) {
    const uint8_t* p = data;
    while (size > 0 && !w->failed) {
        size_t n = sizeof w->stage - w->staged;
        n = n < size ? n : size;
        memcpy(w->stage + w->staged, p, n);
        w->staged += n;
        p += n;
        size -= n;
        if (w->staged == sizeof w->stage) flush(w);
    }
}

void cs_snap_put_u16(cs_snap_writer* w, uint16_t v) {
    const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    cs_snap_put_bytes(w, b, sizeof b);
}

void cs_snap_put_u32(cs_snap_writer* w, uint32_t v) {
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    cs_snap_put_bytes(w, b, sizeof b);
}

void cs_snap_put_u64(cs_snap_writer* w, uint64_t v) {
    cs_snap_put_u32(w, (uint32_t)v);
    cs_snap_put_u32(w, (uint32_t)(v >> 32));
}

void cs_snap_put_f32(cs_snap_writer* w, float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    cs_snap_put_u32(w, u);
}

// ---- reader -------------------------------------------------------------------------------------

static uint64_t get_le(cs_snap_reader* r, int bytes) {
    if (r->bad || r->left < (size_t)bytes) {
        r->bad = true;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= (uint64_t)r->p[i] << (8 * i);
    r->p += bytes;
    r->left -= (size_t)bytes;
    return v;
}

uint16_t cs_snap_get_u16(cs_snap_reader* r) {
    return (uint16_t)get_le(r, 2);
}
uint32_t cs_snap_get_u32(cs_snap_reader* r) {
    return (uint32_t)get_le(r, 4);
}
uint64_t cs_snap_get_u64(cs_snap_reader* r) {
    return get_le(r, 8);
}
float cs_snap_get_f32(cs_snap_reader* r) {
    uint32_t u = cs_snap_get_u32(r);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

// ---- save ---------------------------------------------------------------------------------------

static uint64_t section_size(const crowd_world* w, int k) {
    return k == 0 ? CS_SNAP_WORLD_SIZE : cs_snap_section_at(CROWD_SNAPSHOT_VERSION, k - 1)->size(w);
}

static uint64_t total_size(const crowd_world* w) {
    const int sections = 1 + cs_snap_section_count(CROWD_SNAPSHOT_VERSION);
    uint64_t total = HEADER_SIZE + (uint64_t)ENTRY_SIZE * sections + CHECKSUM_SIZE;
    for (int k = 0; k < sections; ++k) total += section_size(w, k);
    return total;
}

static crowd_status save(const crowd_world* w, cs_snap_writer* out) {
    cs_crc64_table crc;
    cs_crc64_init(&crc);
    out->crc = &crc;
    out->crc_state = ~0ull;

    const int sections = 1 + cs_snap_section_count(CROWD_SNAPSHOT_VERSION);
    cs_snap_put_bytes(out, magic, sizeof magic);
    cs_snap_put_u32(out, CROWD_SNAPSHOT_VERSION);
    cs_snap_put_u32(out, (uint32_t)sections);
    cs_snap_put_u64(out, total_size(w));
    uint64_t offset = HEADER_SIZE + (uint64_t)ENTRY_SIZE * sections;
    for (int k = 0; k < sections; ++k) {
        const uint64_t size = section_size(w, k);
        cs_snap_put_u32(out, k == 0 ? CS_SNAP_WORLD
                                    : cs_snap_section_at(CROWD_SNAPSHOT_VERSION, k - 1)->id);
        cs_snap_put_u32(out, 0);
        cs_snap_put_u64(out, offset);
        cs_snap_put_u64(out, size);
        offset += size;
    }
    cs_snap_save_world(w, out);
    for (int k = 0; k < cs_snap_section_count(CROWD_SNAPSHOT_VERSION); ++k)
        cs_snap_section_at(CROWD_SNAPSHOT_VERSION, k)->save(w, out);
    flush(out);
    // The checksum covers everything flushed so far and is not part of itself.
    const uint64_t sum = ~out->crc_state;
    cs_snap_put_u64(out, sum);
    flush(out);
    return out->failed ? (out->write ? CROWD_ERR_WRITE_FAILED : CROWD_ERR_BUFFER_TOO_SMALL)
                       : CROWD_OK;
}

size_t crowd_world_save_size(const crowd_world* w) {
    return w ? (size_t)total_size(w) : 0;
}

crowd_status crowd_world_save(const crowd_world* w, void* buffer, size_t capacity, size_t* size) {
    if (!w || !size) return CROWD_ERR_NULL_ARGUMENT;
    const size_t need = (size_t)total_size(w);
    *size = need;
    if (capacity < need) return CROWD_ERR_BUFFER_TOO_SMALL;
    if (!buffer) return CROWD_ERR_NULL_ARGUMENT;
    cs_snap_writer out = {.dst = buffer, .dst_left = capacity};
    return save(w, &out);
}

crowd_status crowd_world_save_stream(const crowd_world* w, crowd_write_fn* write, void* user) {
    if (!w || !write) return CROWD_ERR_NULL_ARGUMENT;
    cs_snap_writer out = {.write = write, .user = user};
    return save(w, &out);
}

// ---- load ---------------------------------------------------------------------------------------

crowd_load_def crowd_load_def_default(void) {
    return (crowd_load_def){.threads = -1, .max_capacity = 1 << 24, .max_nav_cells = INT64_MAX};
}

// Header, length and checksum: everything that can be checked before trusting any field.
static crowd_status check_container(const uint8_t* p, size_t size, uint32_t* version,
                                    uint32_t* sections) {
    const size_t m = size < sizeof magic ? size : sizeof magic;
    if (memcmp(p, magic, m) != 0) return CROWD_ERR_SNAPSHOT_MAGIC;
    cs_snap_reader r = {p + m, size - m, false, 0, 0};
    *version = cs_snap_get_u32(&r);
    if (r.bad) return CROWD_ERR_SNAPSHOT_TRUNCATED;
    if (*version < CROWD_SNAPSHOT_MIN_VERSION || *version > CROWD_SNAPSHOT_VERSION)
        return CROWD_ERR_SNAPSHOT_VERSION;
    *sections = cs_snap_get_u32(&r);
    const uint64_t total = cs_snap_get_u64(&r);
    if (r.bad) return CROWD_ERR_SNAPSHOT_TRUNCATED;
    if (total < HEADER_SIZE + CHECKSUM_SIZE) return CROWD_ERR_SNAPSHOT_CORRUPT;
    if (size < total) return CROWD_ERR_SNAPSHOT_TRUNCATED;
    if (size > total) return CROWD_ERR_SNAPSHOT_OVERSIZED;
    cs_snap_reader tail = {p + size - CHECKSUM_SIZE, CHECKSUM_SIZE, false, 0, 0};
    if (cs_crc64(p, size - CHECKSUM_SIZE) != cs_snap_get_u64(&tail))
        return CROWD_ERR_SNAPSHOT_CHECKSUM;
    return CROWD_OK;
}

// The payload of table entry k, after checking the entry's id and place.
static crowd_status section_at(const uint8_t* p, size_t size, uint32_t version, uint32_t sections,
                               uint32_t k, uint64_t* expect_offset, cs_snap_reader* payload) {
    cs_snap_reader e = {p + HEADER_SIZE + (size_t)k * ENTRY_SIZE, ENTRY_SIZE, false, 0, 0};
    const uint32_t id = cs_snap_get_u32(&e), reserved = cs_snap_get_u32(&e);
    const uint64_t offset = cs_snap_get_u64(&e), length = cs_snap_get_u64(&e);
    const uint32_t want = k == 0 ? CS_SNAP_WORLD : cs_snap_section_at(version, (int)k - 1)->id;
    if (id != want) return CROWD_ERR_SNAPSHOT_SECTION;
    const uint64_t end = size - CHECKSUM_SIZE;
    if (reserved != 0 || offset != *expect_offset || length > end - offset)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    // The last payload must end where the checksum begins.
    if (k + 1 == sections && offset + length != end) return CROWD_ERR_SNAPSHOT_CORRUPT;
    *expect_offset = offset + length;
    *payload = (cs_snap_reader){p + offset, (size_t)length, false, version, 0};
    return CROWD_OK;
}

static crowd_status check_def(const crowd_load_def* def) {
    if ((def->alloc == NULL) != (def->free == NULL)) return CROWD_ERR_NULL_ARGUMENT;
    if (def->max_capacity < 1) return CROWD_ERR_BAD_CAPACITY;
    if (def->max_nav_cells < 0) return CROWD_ERR_BAD_COUNT;
    return CROWD_OK;
}

crowd_status crowd_world_load(const void* data, size_t size, const crowd_load_def* def,
                              crowd_world** out) {
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    *out = NULL;
    if (!data && size > 0) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_load_def defaults = crowd_load_def_default();
    if (!def) def = &defaults;
    crowd_status st = check_def(def);
    if (st != CROWD_OK) return st;

    const uint8_t* p = data ? data : magic; // an empty input is a truncated one
    uint32_t version = 0, sections = 0;
    st = check_container(p, size, &version, &sections);
    if (st != CROWD_OK) return st;
    const uint32_t want = 1 + (uint32_t)cs_snap_section_count(version);
    if (sections != want) return CROWD_ERR_SNAPSHOT_SECTION;
    if ((size - HEADER_SIZE - CHECKSUM_SIZE) / ENTRY_SIZE < sections)
        return CROWD_ERR_SNAPSHOT_CORRUPT;

    uint64_t offset = HEADER_SIZE + (uint64_t)ENTRY_SIZE * sections;
    cs_snap_reader in;
    st = section_at(p, size, version, sections, 0, &offset, &in);
    if (st != CROWD_OK) return st;
    crowd_world* w = NULL;
    st = cs_snap_load_world(&in, def, &w);
    if (st == CROWD_OK && (in.bad || in.left != 0)) st = CROWD_ERR_SNAPSHOT_CORRUPT;
    for (uint32_t k = 1; st == CROWD_OK && k < sections; ++k) {
        st = section_at(p, size, version, sections, k, &offset, &in);
        in.max_capacity = def->max_capacity;
        if (st == CROWD_OK) st = cs_snap_section_at(version, (int)k - 1)->load(w, &in);
        if (st == CROWD_OK && (in.bad || in.left != 0)) st = CROWD_ERR_SNAPSHOT_CORRUPT;
    }
    if (st == CROWD_OK) st = cs_snap_check_loaded(w, def);
    if (st != CROWD_OK) {
        crowd_world_destroy(w);
        return st;
    }
    *out = w;
    return CROWD_OK;
}
