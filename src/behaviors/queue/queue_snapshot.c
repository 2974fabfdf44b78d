// The queue snapshot section: every queueing agent's queue and the world's random stream.
//
//  'QUEU': u64 random state (respawn points are drawn from it), u32 count, then one 56-byte
//         record per agent with CS_FLAG_QUEUE, in ascending agent index: u32 agent index,
//         f32 cone length, cone width, goal x, goal y, slow radius, weight, arrival radius,
//         u32 on_arrival | form << 8, f32 start_min x, y, start_max x, y, u32 done (1: a STOP
//         arrival was reported). The closest-along of the cone is not state: every step recomputes
//         it before it is read. The queue's profile is made again from the def.
#include <math.h>

#include "behaviors/queue/queue_internal.h"
#include "snapshot/snapshot_internal.h"

enum { QUEUE_RECORD_SIZE = 56 };

static int queueing(const crowd_world* w) {
    return w->pools[CS_REC_QUEUE].live;
}

uint64_t cs_snap_queue_size(const crowd_world* w) {
    return 12 + (uint64_t)QUEUE_RECORD_SIZE * (uint64_t)queueing(w);
}

void cs_snap_save_queue(const crowd_world* w, cs_snap_writer* out) {
    cs_snap_put_u64(out, w->seed);
    cs_snap_put_u32(out, (uint32_t)queueing(w));
    for (int i = 0; i < w->index_count; ++i) {
        const cs_queue_rec* q = cs_queue_of(w, (uint32_t)i);
        if (!q) continue;
        const crowd_queue_def def = cs_queue_def_at(w, w->slot_of[i]);
        const crowd_queue_def* d = &def;
        cs_snap_put_u32(out, (uint32_t)i);
        cs_snap_put_f32(out, d->cone_length);
        cs_snap_put_f32(out, d->cone_width);
        cs_snap_put_f32(out, d->goal.x);
        cs_snap_put_f32(out, d->goal.y);
        cs_snap_put_f32(out, d->slow_radius);
        cs_snap_put_f32(out, d->weight);
        cs_snap_put_f32(out, d->arrival_radius);
        cs_snap_put_u32(out, (uint32_t)d->on_arrival | (uint32_t)d->form << 8);
        cs_snap_put_f32(out, d->start_min.x);
        cs_snap_put_f32(out, d->start_min.y);
        cs_snap_put_f32(out, d->start_max.x);
        cs_snap_put_f32(out, d->start_max.y);
        cs_snap_put_u32(out, q->done);
    }
}

crowd_status cs_snap_load_queue(crowd_world* w, cs_snap_reader* in) {
    w->seed = cs_snap_get_u64(in);
    const uint32_t count = cs_snap_get_u32(in);
    int flagged = 0;
    for (int s = 0; s < w->count; ++s) flagged += (w->cur.flags[s] & CS_FLAG_QUEUE) != 0;
    if (in->bad || count != (uint32_t)flagged || in->left != (size_t)count * QUEUE_RECORD_SIZE)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    crowd_status st = cs_pool_reserve(w, &w->pools[CS_REC_QUEUE], (int)count);
    if (st == CROWD_OK && count) st = cs_queue_reserve_hot(w, count);
    if (st != CROWD_OK) return st;
    int64_t last = -1;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t idx = cs_snap_get_u32(in);
        crowd_queue_def d;
        d.cone_length = cs_snap_get_f32(in);
        d.cone_width = cs_snap_get_f32(in);
        d.goal.x = cs_snap_get_f32(in);
        d.goal.y = cs_snap_get_f32(in);
        d.slow_radius = cs_snap_get_f32(in);
        d.weight = cs_snap_get_f32(in);
        d.arrival_radius = cs_snap_get_f32(in);
        const uint32_t word = cs_snap_get_u32(in), policy = word & 0xffu, form = word >> 8;
        d.on_arrival = policy < CROWD_QUEUE_POLICY_COUNT ? (crowd_queue_policy)policy
                                                         : CROWD_QUEUE_POLICY_COUNT;
        d.form = form < CROWD_QUEUE_FORM_COUNT ? (crowd_queue_form)form : CROWD_QUEUE_FORM_COUNT;
        d.start_min.x = cs_snap_get_f32(in);
        d.start_min.y = cs_snap_get_f32(in);
        d.start_max.x = cs_snap_get_f32(in);
        d.start_max.y = cs_snap_get_f32(in);
        const uint32_t done = cs_snap_get_u32(in);
        // Ascending indices of live queueing agents (so each has one record) whose form bit
        // matches the def's form, a def the API would accept, and a 0 / 1 flag: the one encoding
        // save writes back.
        const uint32_t form_bit =
            d.form == CROWD_QUEUE_FILE ? CS_FLAG_QUEUE_FILE : CS_FLAG_QUEUE_CONE;
        const uint32_t fl = idx < (uint32_t)w->index_count && w->slot_of[idx] >= 0
                                ? w->cur.flags[w->slot_of[idx]]
                                : 0;
        if (in->bad || (int64_t)idx <= last || idx >= (uint32_t)w->index_count ||
            w->slot_of[idx] < 0 || !(fl & CS_FLAG_QUEUE) ||
            (fl & (CS_FLAG_QUEUE_CONE | CS_FLAG_QUEUE_FILE)) != form_bit ||
            cs_queue_check_def(&d) != CROWD_OK || done > 1)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        last = idx;
        w->rec_of[CS_REC_QUEUE][idx] = cs_pool_acquire(&w->pools[CS_REC_QUEUE]);
        cs_queue_store(w, idx, w->slot_of[idx], &d, done == 1);
    }
    return CROWD_OK;
}
