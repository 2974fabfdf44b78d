// The follow-leader snapshot section: follower records, leader records with their groups in join
// order, and the pending slot reassignments.
//
//  'FLLW': u32 followers, then one 60-byte record per agent with CS_FLAG_FOLLOW, in ascending
//         agent index: u32 agent index, u32 state (1 ACTIVE, 2 STOPPED), u32 leader (agent
//         index + 1 while ACTIVE, else 0), f32 behind distance, ahead distance, ahead radius,
//         slow radius, evade weight, separation weight, weight, u32 options (bit 0: predict,
//         bit 1: form CROWD_FOLLOW_LITERAL), u32 target
//         (crowd_follow_target), i32 slot index (-1: none), f32 x, y (ACTIVE: the slot offset,
//         kept as it is even without a slot; STOPPED: the point it holds).
//         Then u32 leaders and one record per agent holding a leader record, in ascending agent
//         index: u32 agent index, u32 fallback index1, u16 fallback generation, u16 fallback
//         world tag, u32 dirty (position in the pending-reassignment list + 1, 0 = none),
//         u32 has_formation (0 / 1), u32 shape, i32 columns, f32 spacing, f32 distance,
//         u32 custom offset count, u32 follower count, then f32 x, y per custom offset and u32
//         agent index per follower in join order. A leader without a formation stores zeros in
//         its formation fields.
//  Not stored, because every step recomputes it before reading it: the leader's cached frame, the
//  followers' group separation and the slot assignment scratch (load sizes it for every group).
#include <math.h>
#include <string.h>

#include "behaviors/follow/follow_internal.h"
#include "snapshot/snapshot_internal.h"

enum { FOLLOWER_RECORD_SIZE = 60, LEADER_RECORD_SIZE = 44 };

uint64_t cs_snap_follow_size(const crowd_world* w) {
    uint64_t n = 8 + (uint64_t)FOLLOWER_RECORD_SIZE * (uint64_t)w->pools[CS_REC_FOLLOWER].live +
                 (uint64_t)LEADER_RECORD_SIZE * (uint64_t)w->pools[CS_REC_LEADER].live;
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (l) n += 8 * (uint64_t)l->custom_count + 4 * (uint64_t)l->followers;
    }
    return n;
}

void cs_snap_save_follow(const crowd_world* w, cs_snap_writer* out) {
    cs_snap_put_u32(out, (uint32_t)w->pools[CS_REC_FOLLOWER].live);
    for (int i = 0; i < w->index_count; ++i) {
        const cs_follower* f = cs_follower_of(w, (uint32_t)i);
        if (!f) continue;
        cs_snap_put_u32(out, (uint32_t)i);
        cs_snap_put_u32(out, f->state);
        cs_snap_put_u32(out, f->leader);
        cs_snap_put_f32(out, f->behind_dist);
        cs_snap_put_f32(out, f->ahead_dist);
        cs_snap_put_f32(out, f->ahead_radius);
        cs_snap_put_f32(out, f->slow_radius);
        cs_snap_put_f32(out, f->evade_weight);
        cs_snap_put_f32(out, f->separation_weight);
        cs_snap_put_f32(out, f->weight);
        cs_snap_put_u32(out, (uint32_t)f->predict | (uint32_t)f->literal << 1);
        cs_snap_put_u32(out, f->use_slot);
        cs_snap_put_u32(out, (uint32_t)f->slot_index);
        cs_snap_put_f32(out, f->slot.x);
        cs_snap_put_f32(out, f->slot.y);
    }
    cs_snap_put_u32(out, (uint32_t)w->pools[CS_REC_LEADER].live);
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (!l) continue;
        cs_snap_put_u32(out, (uint32_t)i);
        cs_snap_put_u32(out, l->fallback.index1);
        cs_snap_put_u16(out, l->fallback.generation);
        cs_snap_put_u16(out, l->fallback.world);
        cs_snap_put_u32(out, l->dirty);
        cs_snap_put_u32(out, l->has_formation);
        cs_snap_put_u32(out, l->shape);
        cs_snap_put_u32(out, (uint32_t)l->columns);
        cs_snap_put_f32(out, l->spacing);
        cs_snap_put_f32(out, l->distance);
        cs_snap_put_u32(out, (uint32_t)l->custom_count);
        cs_snap_put_u32(out, (uint32_t)l->followers);
        for (int k = 0; k < l->custom_count; ++k) {
            cs_snap_put_f32(out, l->custom[k].x);
            cs_snap_put_f32(out, l->custom[k].y);
        }
        for (uint32_t x = l->head; x != 0; x = cs_follower_of(w, x - 1)->next)
            cs_snap_put_u32(out, x - 1);
    }
}

static bool live(const crowd_world* w, uint32_t idx) {
    return idx < (uint32_t)w->index_count && w->slot_of[idx] >= 0;
}

static crowd_status load_followers(crowd_world* w, cs_snap_reader* in) {
    const uint32_t count = cs_snap_get_u32(in);
    if (in->bad || count > (uint32_t)w->index_count || in->left / FOLLOWER_RECORD_SIZE < count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    crowd_status st = cs_pool_reserve(w, &w->pools[CS_REC_FOLLOWER], (int)count);
    if (st != CROWD_OK) return st;
    int64_t last = -1;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t idx = cs_snap_get_u32(in);
        const uint32_t state = cs_snap_get_u32(in), leader = cs_snap_get_u32(in);
        cs_follower f;
        memset(&f, 0, sizeof f);
        crowd_follow_def d = crowd_follow_def_default();
        d.behind_dist = cs_snap_get_f32(in);
        d.ahead_dist = cs_snap_get_f32(in);
        d.ahead_radius = cs_snap_get_f32(in);
        d.slow_radius = cs_snap_get_f32(in);
        d.evade_weight = cs_snap_get_f32(in);
        d.separation_weight = cs_snap_get_f32(in);
        d.weight = cs_snap_get_f32(in);
        const uint32_t predict = cs_snap_get_u32(in), target = cs_snap_get_u32(in);
        d.predict = (predict & 1u) != 0;
        d.form = predict & 2u ? CROWD_FOLLOW_LITERAL : CROWD_FOLLOW_KEEP_UP;
        d.target = target < CROWD_FOLLOW_TARGET_COUNT ? (crowd_follow_target)target
                                                      : CROWD_FOLLOW_TARGET_COUNT;
        f.slot_index = (int32_t)cs_snap_get_u32(in);
        f.slot.x = cs_snap_get_f32(in);
        f.slot.y = cs_snap_get_f32(in);
        const bool active = state == CROWD_FOLLOW_ACTIVE;
        // ACTIVE followers name a live leader other than themselves (the leader section lists
        // them); STOPPED ones have neither leader nor slot. A slot is held only by a slot
        // follower, and its index is below any formation's slot count.
        if (in->bad || (int64_t)idx <= last || !live(w, idx) ||
            !(w->cur.flags[w->slot_of[idx]] & CS_FLAG_FOLLOW) ||
            (state != CROWD_FOLLOW_ACTIVE && state != CROWD_FOLLOW_STOPPED) ||
            (active ? leader == 0 || leader - 1 == idx || !live(w, leader - 1) : leader != 0) ||
            predict > 3 || cs_follow_check_def(&d) != CROWD_OK || f.slot_index < -1 ||
            (f.slot_index >= 0 && (!active || !target)) ||
            f.slot_index >= (w->index_count > CROWD_FORMATION_MAX_OFFSETS
                                 ? w->index_count
                                 : CROWD_FORMATION_MAX_OFFSETS) ||
            !isfinite(f.slot.x) || !isfinite(f.slot.y))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        last = idx;
        cs_follow_params(&f, &d);
        f.state = (uint8_t)state;
        f.leader = leader;
        w->rec_of[CS_REC_FOLLOWER][idx] = cs_pool_acquire(&w->pools[CS_REC_FOLLOWER]);
        *cs_follower_of(w, idx) = f;
    }
    return CROWD_OK;
}

// The formation fields as crowd_leader_set_formation stores them, or all zero without one.
static bool valid_formation(const cs_leader* l, uint32_t has, uint32_t shape, uint32_t custom_count,
                            const cs_snap_reader* in) {
    if (has > 1) return false;
    if (!has)
        return shape == 0 && l->columns == 0 && custom_count == 0 &&
               memcmp(&l->spacing, &(float){0.0f}, sizeof(float)) == 0 &&
               memcmp(&l->distance, &(float){0.0f}, sizeof(float)) == 0;
    if (shape >= CROWD_FORMATION_SHAPE_COUNT) return false;
    const bool custom = shape == CROWD_FORMATION_CUSTOM;
    // The offsets themselves are checked as they are read; here one stands in for them.
    crowd_formation_def d = {.shape = (crowd_formation_shape)shape,
                             .spacing = l->spacing,
                             .distance = l->distance,
                             .columns = shape == CROWD_FORMATION_BLOCK ? l->columns : 1,
                             .offsets = &(crowd_vec2){0.0f, 0.0f},
                             .offset_count = 1};
    return cs_formation_check_def(&d) == CROWD_OK &&
           (shape == CROWD_FORMATION_BLOCK || l->columns == 0) &&
           (custom ? custom_count >= 1 && custom_count <= CROWD_FORMATION_MAX_OFFSETS &&
                         custom_count <= in->left / 8
                   : custom_count == 0);
}

static crowd_status load_leader(crowd_world* w, cs_snap_reader* in, uint32_t idx, cs_leader* l) {
    l->fallback.index1 = cs_snap_get_u32(in);
    l->fallback.generation = cs_snap_get_u16(in);
    l->fallback.world = cs_snap_get_u16(in);
    l->dirty = cs_snap_get_u32(in);
    const uint32_t has = cs_snap_get_u32(in), shape = cs_snap_get_u32(in);
    l->columns = (int32_t)cs_snap_get_u32(in);
    l->spacing = cs_snap_get_f32(in);
    l->distance = cs_snap_get_f32(in);
    const uint32_t custom_count = cs_snap_get_u32(in), followers = cs_snap_get_u32(in);
    // A fallback names an agent index of this world (it may be stale: removal checks it) other
    // than the leader itself.
    const crowd_agent_id fb = l->fallback;
    if (in->bad || !valid_formation(l, has, shape, custom_count, in) ||
        (!crowd_agent_id_is_null(fb) &&
         (fb.world != w->tag || fb.index1 > (uint32_t)w->index_count || fb.index1 - 1 == idx)) ||
        followers > (uint32_t)w->index_count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    l->has_formation = (uint8_t)has;
    l->shape = (uint8_t)shape;
    if (custom_count > 0) {
        crowd_vec2* c = cs_alloc(w, sizeof(crowd_vec2) * custom_count);
        if (!c) return CROWD_ERR_OUT_OF_MEMORY;
        l->custom = c;
        l->custom_count = (int32_t)custom_count;
        for (uint32_t k = 0; k < custom_count; ++k) {
            c[k].x = cs_snap_get_f32(in);
            c[k].y = cs_snap_get_f32(in);
            if (!isfinite(c[k].x) || !isfinite(c[k].y)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        }
    }
    if (in->left / 4 < followers) return CROWD_ERR_SNAPSHOT_CORRUPT;
    // Each listed agent is an ACTIVE follower of this leader, listed once (pad marks it).
    for (uint32_t k = 0; k < followers; ++k) {
        const uint32_t x = cs_snap_get_u32(in);
        cs_follower* f = x < (uint32_t)w->index_count ? cs_follower_of(w, x) : NULL;
        if (!f || f->state != CROWD_FOLLOW_ACTIVE || f->leader != idx + 1 || f->pad)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        f->pad = 1;
        cs_follow_append(w, l, f, x);
        l->slotted += f->use_slot;
    }
    return CROWD_OK;
}

// No ACTIVE chain leads back to where it started. Colors: 0 unseen, 1 on the current walk,
// 2 known to end.
static crowd_status check_chains(crowd_world* w) {
    const size_t n = (size_t)w->index_count;
    uint8_t* color = cs_alloc(w, n ? n : 1);
    if (!color) return CROWD_ERR_OUT_OF_MEMORY;
    memset(color, 0, n ? n : 1);
    crowd_status st = CROWD_OK;
    for (uint32_t i = 0; i < (uint32_t)n && st == CROWD_OK; ++i) {
        uint32_t j = i;
        for (;;) {
            const cs_follower* f = cs_follower_of(w, j);
            if (color[j] == 2 || !f || f->state != CROWD_FOLLOW_ACTIVE) break;
            if (color[j] == 1) {
                st = CROWD_ERR_SNAPSHOT_CORRUPT;
                break;
            }
            color[j] = 1;
            j = f->leader - 1;
        }
        for (j = i; color[j] == 1; j = cs_follower_of(w, j)->leader - 1) color[j] = 2;
    }
    cs_free(w, color, n ? n : 1);
    return st;
}

crowd_status cs_snap_load_follow(crowd_world* w, cs_snap_reader* in) {
    cs_follow_world* fs = cs_follow_world_of(w);
    crowd_status st = load_followers(w, in);
    if (st != CROWD_OK) return st;
    const uint32_t count = cs_snap_get_u32(in);
    if (in->bad || count > (uint32_t)w->index_count || in->left / LEADER_RECORD_SIZE < count)
        return CROWD_ERR_SNAPSHOT_CORRUPT;
    st = cs_pool_reserve(w, &w->pools[CS_REC_LEADER], (int)count);
    if (st != CROWD_OK) return st;
    int64_t last = -1;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t idx = cs_snap_get_u32(in);
        if (in->bad || (int64_t)idx <= last || !live(w, idx)) return CROWD_ERR_SNAPSHOT_CORRUPT;
        last = idx;
        w->rec_of[CS_REC_LEADER][idx] = cs_pool_acquire(&w->pools[CS_REC_LEADER]);
        st = load_leader(w, in, idx, cs_leader_of(w, idx));
        if (st != CROWD_OK) return st;
    }
    // The pending list: the dirty positions of the leaders are exactly 1 .. dirty_count.
    int pending = 0;
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (l && l->dirty) *cs_follow_dirty_at(w, pending++) = UINT32_MAX;
    }
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (!l || !l->dirty) continue;
        if (l->dirty > (uint32_t)pending || *cs_follow_dirty_at(w, (int)l->dirty - 1) != UINT32_MAX)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        *cs_follow_dirty_at(w, (int)l->dirty - 1) = (uint32_t)i;
    }
    fs->dirty_count = pending;
    // Columns and flags agree with the records: the group column names an ACTIVE follower's
    // leader, the leader flag marks a leader with followers, every ACTIVE follower was listed by
    // its leader, and a live fallback has the leader record removal relies on.
    for (int s = 0; s < w->count; ++s) {
        const uint32_t idx = w->cur.id[s], flags = w->cur.flags[s];
        cs_follower* f = cs_follower_of(w, idx);
        const cs_leader* l = cs_leader_of(w, idx);
        const bool active = f && f->state == CROWD_FOLLOW_ACTIVE;
        if (((flags & CS_FLAG_FOLLOW) != 0) != (f != NULL) ||
            w->cur.group[s] != (active ? f->leader : 0) || (active && !f->pad) ||
            ((flags & CS_FLAG_LEADER) != 0) != (l && l->followers > 0))
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        if (f) f->pad = 0;
        if (!l) continue;
        int fb_slot;
        if (!crowd_agent_id_is_null(l->fallback) &&
            cs_agent_slot(w, l->fallback, &fb_slot) == CROWD_OK &&
            cs_rec_num(w, CS_REC_LEADER, l->fallback.index1 - 1) < 0)
            return CROWD_ERR_SNAPSHOT_CORRUPT;
        st = cs_follow_reserve_group(w, idx);
        if (st != CROWD_OK) return st;
    }
    st = check_chains(w);
    // What removals inside a step may need, as crowd_leader_set_fallback and the others reserve it.
    if (st == CROWD_OK) st = cs_follow_reserve_loaded(w);
    return st;
}
