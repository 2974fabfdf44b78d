// libFuzzer target: the snapshot loader on untrusted bytes.
//
// Every input is loaded twice: as it is (exercising the container checks) and with its length
// field and checksum rewritten to match (so mutations reach the section parsers behind the
// checksum). Whatever loads must save back to exactly the bytes it was loaded from (an input of an
// older format version saves in the current one, which must load back to the same state and save
// to the same bytes again) and must step without fault; whatever fails must leave no allocation
// behind.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../counting_alloc.h"
#include "crowd/crowd.h"
#include "snapshot/snapshot_internal.h"

static void check(bool ok) {
    if (!ok) abort();
}

static void load_one(const uint8_t* data, size_t size) {
    counter c = {0};
    crowd_load_def def = crowd_load_def_default();
    def.alloc = count_alloc;
    def.free = count_free;
    def.alloc_user = &c;
    def.max_capacity = 1 << 12;  // keeps each input cheap; larger worlds are refused cleanly
    def.max_nav_cells = 1 << 16; // and so do the navigation grid and fields its steps build
    crowd_world* w = (crowd_world*)&c;
    const crowd_status st = crowd_world_load(data, size, &def, &w);
    check(st >= CROWD_OK && st < CROWD_STATUS_COUNT);
    if (st != CROWD_OK) {
        check(w == NULL);
    } else {
        check(w != NULL);
        size_t n = 0;
        check(crowd_world_save(w, NULL, 0, &n) == CROWD_ERR_BUFFER_TOO_SMALL);
        uint8_t* again = malloc(n);
        check(again && crowd_world_save(w, again, n, &n) == CROWD_OK);
        const uint32_t version = (uint32_t)data[8] | (uint32_t)data[9] << 8 |
                                 (uint32_t)data[10] << 16 | (uint32_t)data[11] << 24;
        if (version == CROWD_SNAPSHOT_VERSION) {
            check(n == size && memcmp(again, data, size) == 0);
        } else {
            crowd_world* up = NULL;
            check(crowd_world_load(again, n, &def, &up) == CROWD_OK);
            check(crowd_world_state_hash(up) == crowd_world_state_hash(w));
            size_t m = 0;
            check(crowd_world_save(up, NULL, 0, &m) == CROWD_ERR_BUFFER_TOO_SMALL && m == n);
            uint8_t* third = malloc(m);
            check(third && crowd_world_save(up, third, m, &m) == CROWD_OK);
            check(memcmp(third, again, n) == 0);
            free(third);
            crowd_world_destroy(up);
        }
        free(again);
        check(crowd_world_set_threads(w, 1) == CROWD_OK);
        for (int t = 0; t < 3; ++t) check(crowd_world_step(w) == CROWD_OK);
        crowd_world_destroy(w);
    }
    check(c.allocs == c.frees && c.live == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    load_one(data, size);
    if (size < 32) return 0;
    uint8_t* sealed = malloc(size);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    for (int i = 0; i < 8; ++i) sealed[16 + i] = (uint8_t)((uint64_t)size >> (8 * i));
    const uint64_t sum = cs_crc64(sealed, size - 8);
    for (int i = 0; i < 8; ++i) sealed[size - 8 + i] = (uint8_t)(sum >> (8 * i));
    load_one(sealed, size);
    free(sealed);
    return 0;
}
