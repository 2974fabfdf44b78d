// Rewrites a snapshot of the current format (version 7) in an older one, as an older build would
// have written the same world: for the tests of old snapshots (tests/test_nav_snapshot.c,
// tests/test_nav_repair.c, tests/test_walls_snapshot.c) and the fuzz seeds of old versions
// (seed_snapshot.c). Header-only, for tests.
//
//   version 6: no 'GOAL' section, 96-byte agent records (no goal form);
//   version 5: version 6 with no 'NAVF' section (no navigation field saved: none repaired, no
//              repair pending);
//   version 4: version 5 with no navigation def in 'WRLD' (32 bytes), no 'EXIT' section, 84-byte
//              agent records (no route or exit set), 72-byte path follower records (no route);
//   version 3: version 4 without the 'WALL' section.
//
// Only a world an older build could hold has such a snapshot: every goal of the spec's form
// (CROWD_GOAL_FORM_LITERAL; the default form for a goal of mode NONE) with no aim; for version 5
// and older no saved field; for versions 3 and 4 also no exit sets, every goal and path follower
// CROWD_ROUTE_FIELD with no exit set (what an older snapshot loads as), and for version 3 no
// obstacle and no wall def. snapshot_downgrade returns false (writing nothing) otherwise.
#ifndef CROWD_TESTS_SNAPSHOT_DOWNGRADE_H
#define CROWD_TESTS_SNAPSHOT_DOWNGRADE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crowd/snapshot.h"
#include "snapshot/snapshot_internal.h"

static inline uint64_t snapshot_downgrade_rd(const uint8_t* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void snapshot_downgrade_wr(uint8_t* p, int bytes, uint64_t v) {
    for (int i = 0; i < bytes; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

// Copies n records of `from` bytes at src to `to` bytes each at dst, keeping each one's first `to`
// bytes; false when a dropped tail is not the version 5 default (route FIELD, no exit set).
static inline bool snapshot_downgrade_records(uint8_t* dst, const uint8_t* src, uint64_t n,
                                              size_t from, size_t to) {
    for (uint64_t k = 0; k < n; ++k, src += from, dst += to) {
        for (size_t b = to; b < from; ++b)
            if (src[b] != 0) return false;
        memcpy(dst, src, to);
    }
    return true;
}

// Copies n version 7 agent records (100 bytes) at src to version 6 ones (96 bytes) at dst; false
// when a goal's form is not the one an older record loads as (the spec's, or the default for a
// goal of mode NONE).
static inline bool snapshot_downgrade_agents_v6(uint8_t* dst, const uint8_t* src, uint64_t n) {
    for (uint64_t k = 0; k < n; ++k, src += 100, dst += 96) {
        const uint64_t mode = snapshot_downgrade_rd(src + 56, 4);
        const uint64_t form = snapshot_downgrade_rd(src + 96, 4);
        if (form != (mode == 0 ? 0u : 1u)) return false;
        memcpy(dst, src, 96);
    }
    return true;
}

// Writes the version `version` (3 to 6) form of the version 7 snapshot `in` (n bytes) into a new
// malloc'd buffer *out of *out_n bytes.
static inline bool snapshot_downgrade(const uint8_t* in, size_t n, uint32_t version, uint8_t** out,
                                      size_t* out_n) {
    if (version < 3 || version > 6 || n < 32 || snapshot_downgrade_rd(in + 8, 4) != 7) return false;
    const uint32_t sections = (uint32_t)snapshot_downgrade_rd(in + 12, 4);
    uint8_t* o = malloc(n);
    if (!o) return false;
    memcpy(o, in, 24);
    snapshot_downgrade_wr(o + 8, 4, version);
    size_t table = 24, at = 24 + 24 * (size_t)sections; // payloads start later: shifted below
    uint32_t kept = 0;
    bool ok = true;
    // First pass: payloads back to back after a table of `sections` entries; the table shrinks
    // afterwards, moving every payload by the same amount.
    for (uint32_t k = 0; ok && k < sections; ++k) {
        const uint8_t* e = in + 24 + 24 * (size_t)k;
        const uint32_t id = (uint32_t)snapshot_downgrade_rd(e, 4);
        const uint8_t* p = in + snapshot_downgrade_rd(e + 8, 8);
        const uint64_t len = snapshot_downgrade_rd(e + 16, 8);
        uint64_t wrote = len;
        if (id == CS_SNAP_ID('G', 'O', 'A', 'L')) {
            // No aim: goals of the spec's form have none.
            for (uint64_t b = 4; ok && b < len; ++b) ok = p[b] == 0;
            continue;
        }
        if (id == CS_SNAP_ID('N', 'A', 'V', 'F') && version < 6) {
            ok = len == 4 && snapshot_downgrade_rd(p, 4) == 0; // no field saved
            continue;
        }
        if (id == CS_SNAP_ID('A', 'G', 'N', 'T') && version >= 5) { // no goal form
            const uint64_t count = snapshot_downgrade_rd(p, 4);
            ok = len == 4 + 100 * count;
            memcpy(o + at, p, 4);
            ok = ok && snapshot_downgrade_agents_v6(o + at + 4, p + 4, count);
            wrote = 4 + 96 * count;
        } else if (version >= 5) { // everything else as it is
            memcpy(o + at, p, len);
        } else {
            if (id == CS_SNAP_ID('E', 'X', 'I', 'T')) {
                ok = len == 4 && snapshot_downgrade_rd(p, 4) == 0; // no exit set was ever made
                continue;
            }
            if (id == CS_SNAP_ID('W', 'A', 'L', 'L') && version == 3) {
                // No obstacle slot, no free slot, no wall def.
                ok = len == 12 && snapshot_downgrade_rd(p, 4) == 0 &&
                     snapshot_downgrade_rd(p + 8, 4) == 0;
                continue;
            }
            if (id == CS_SNAP_WORLD) {
                // The navigation def goes; the world loads with navigation off.
                ok = len == 60;
                wrote = 32;
                memcpy(o + at, p, 32);
            } else if (id == CS_SNAP_ID('A', 'G', 'N', 'T')) {
                // No goal form, then no route or exit set.
                const uint64_t count = snapshot_downgrade_rd(p, 4);
                ok = len == 4 + 100 * count;
                uint8_t* mid = ok ? malloc(96 * count + 1) : NULL;
                ok = mid && snapshot_downgrade_agents_v6(mid, p + 4, count);
                memcpy(o + at, p, 4);
                ok = ok && snapshot_downgrade_records(o + at + 4, mid, count, 96, 84);
                free(mid);
                wrote = 4 + 84 * count;
            } else if (id == CS_SNAP_ID('P', 'A', 'T', 'H')) {
                // The table, then u32 followers and their records.
                const uint64_t used = snapshot_downgrade_rd(p, 4),
                               free_count = snapshot_downgrade_rd(p + 4, 4);
                uint64_t head = 8 + 4 * free_count;
                for (uint64_t i = 0; i < used; ++i)
                    head += 12 + 8 * snapshot_downgrade_rd(p + head + 8, 4);
                const uint64_t count = snapshot_downgrade_rd(p + head, 4);
                ok = len == head + 4 + 76 * count;
                memcpy(o + at, p, head + 4);
                ok = ok &&
                     snapshot_downgrade_records(o + at + head + 4, p + head + 4, count, 76, 72);
                wrote = head + 4 + 72 * count;
            } else {
                memcpy(o + at, p, len);
            }
        }
        memcpy(o + table, e, 8); // id, reserved
        snapshot_downgrade_wr(o + table + 8, 8, at);
        snapshot_downgrade_wr(o + table + 16, 8, wrote);
        table += 24;
        at += wrote;
        ++kept;
    }
    if (!ok) {
        free(o);
        return false;
    }
    // The table has `kept` entries: payloads move up by what the dropped entries took.
    const size_t shift = 24 * (size_t)(sections - kept);
    memmove(o + 24 + 24 * (size_t)kept, o + 24 + 24 * (size_t)sections,
            at - 24 - 24 * (size_t)sections);
    for (uint32_t k = 0; k < kept; ++k) {
        uint8_t* e = o + 24 + 24 * (size_t)k;
        snapshot_downgrade_wr(e + 8, 8, snapshot_downgrade_rd(e + 8, 8) - shift);
    }
    const size_t total = at - shift + 8;
    snapshot_downgrade_wr(o + 12, 4, kept);
    snapshot_downgrade_wr(o + 16, 8, total);
    snapshot_downgrade_wr(o + total - 8, 8, cs_crc64(o, total - 8));
    *out = o;
    *out_n = total;
    return true;
}

#endif
