// Follow leader API: joining and leaving groups, formations, fallbacks, leader removal, getters.
//
// Group membership is an intrusive doubly linked list per leader (join order) over follower
// records, so joining and leaving are O(1). Records are acquired when an agent first follows or
// leads and released when it stops following or is removed. Every call validates all of its input
// and acquires any memory it needs (records included) before it changes anything.
#include <math.h>
#include <string.h>

#include "behaviors/follow/follow_internal.h"
#include "behaviors/separation.h"
#include "core/range.h"

// ---- validation ---------------------------------------------------------------------------------

crowd_status cs_follow_check_def(const crowd_follow_def* d) {
    if ((unsigned)d->target >= CROWD_FOLLOW_TARGET_COUNT ||
        (unsigned)d->form >= CROWD_FOLLOW_FORM_COUNT)
        return CROWD_ERR_INVALID_ENUM;
    const float v[] = {d->behind_dist,  d->ahead_dist,        d->ahead_radius, d->slow_radius,
                       d->evade_weight, d->separation_weight, d->weight};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i)
        if (!isfinite(v[i])) return CROWD_ERR_NOT_FINITE;
    if (d->behind_dist < 0.0f || d->ahead_dist < 0.0f || d->ahead_radius < 0.0f ||
        d->slow_radius <= 0.0f)
        return CROWD_ERR_BAD_RADIUS;
    if (d->evade_weight < 0.0f || d->separation_weight < 0.0f || d->weight < 0.0f)
        return CROWD_ERR_BAD_WEIGHT;
    crowd_status st = cs_range_upper(v, 4, CROWD_MAX_DISTANCE);
    return st != CROWD_OK ? st : cs_range_upper(v + 4, 3, CROWD_MAX_WEIGHT);
}

crowd_status cs_formation_check_def(const crowd_formation_def* d) {
    if ((unsigned)d->shape >= CROWD_FORMATION_SHAPE_COUNT) return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(d->spacing) || !isfinite(d->distance)) return CROWD_ERR_NOT_FINITE;
    if (d->spacing <= 0.0f || d->distance <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    const float v[] = {d->spacing, d->distance};
    if (cs_range_upper(v, 2, CROWD_MAX_DISTANCE) != CROWD_OK) return CROWD_ERR_OUT_OF_RANGE;
    if (d->shape == CROWD_FORMATION_BLOCK && d->columns < 1) return CROWD_ERR_BAD_COUNT;
    if (d->shape == CROWD_FORMATION_CUSTOM) {
        if (!d->offsets) return CROWD_ERR_NULL_ARGUMENT;
        if (d->offset_count < 1 || d->offset_count > CROWD_FORMATION_MAX_OFFSETS)
            return CROWD_ERR_BAD_COUNT;
        for (int k = 0; k < d->offset_count; ++k) {
            const crowd_status st = cs_range_offset(d->offsets[k]);
            if (st != CROWD_OK) return st;
        }
    }
    return CROWD_OK;
}

// ---- store helpers ------------------------------------------------------------------------------

// Makes sure every thread's scratch can hold a group of n slot followers with m slots.
static crowd_status ensure_scratch(crowd_world* w, int n, int m) {
    cs_follow_world* fs = cs_follow_world_of(w);
    size_t need = cs_follow_group_bytes(n, m);
    if (need <= fs->scratch_bytes && fs->scratch_threads >= w->threads) return CROWD_OK;
    if (need < fs->scratch_bytes + fs->scratch_bytes / 2)
        need = fs->scratch_bytes + fs->scratch_bytes / 2;
    need = (need + 63u) & ~(size_t)63u; // every thread's piece starts on its own cache line
    const int threads = w->threads > fs->scratch_threads ? w->threads : fs->scratch_threads;
    void* p = cs_alloc(w, need * (size_t)threads);
    if (!p) return CROWD_ERR_OUT_OF_MEMORY;
    cs_free(w, fs->scratch, fs->scratch_bytes * (size_t)fs->scratch_threads);
    fs->scratch = p;
    fs->scratch_bytes = need;
    fs->scratch_threads = threads;
    return CROWD_OK;
}

// A leader without a record: no followers, no fallback, the default formation.
static const cs_leader no_leader;

static const cs_leader* leader_or_none(const crowd_world* w, uint32_t li) {
    const cs_leader* l = cs_leader_of(w, li);
    return l ? l : &no_leader;
}

static crowd_status ensure_group(crowd_world* w, uint32_t li, int slotted) {
    if (slotted <= 0) return CROWD_OK;
    return ensure_scratch(w, slotted, cs_formation_slot_count(leader_or_none(w, li), slotted));
}

crowd_status cs_follow_reserve_group(crowd_world* w, uint32_t li) {
    return ensure_group(w, li, cs_leader_of(w, li)->slotted);
}

// ---- removal in two halves ----------------------------------------------------------------------
// A removal inside a step (a queue arrival with CROWD_QUEUE_REMOVE) may hand a leader's slot
// followers to its fallback, whose group then needs slot-assignment scratch, and a step allocates
// nothing. So while any leader has a fallback the scratch is kept large enough for one group of
// every follower in the world with the most slots any formation offers (a chain of fallbacks can
// gather them all into one group): every call that raises that bound (a new follower, a CUSTOM
// formation, a first fallback, a snapshot load) reserves it before it changes anything, and
// cs_follow_on_remove only relinks records.
static crowd_status reserve_removal(crowd_world* w, int followers, int fallbacks, int custom_max) {
    if (fallbacks <= 0 || followers <= 0) return CROWD_OK;
    return ensure_scratch(w, followers, followers > custom_max ? followers : custom_max);
}

static crowd_status reserve_removal_now(crowd_world* w, int new_followers, int new_fallbacks,
                                        int custom) {
    const cs_follow_world* fs = cs_follow_world_of(w);
    return reserve_removal(w, w->pools[CS_REC_FOLLOWER].live + new_followers,
                           fs->fallbacks + new_fallbacks,
                           custom > fs->custom_max ? custom : fs->custom_max);
}

crowd_status cs_follow_reserve_loaded(crowd_world* w) {
    cs_follow_world* fs = cs_follow_world_of(w);
    fs->fallbacks = 0;
    fs->custom_max = 0;
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (!l) continue;
        fs->fallbacks += !crowd_agent_id_is_null(l->fallback);
        if (l->custom_count > fs->custom_max) fs->custom_max = l->custom_count;
    }
    return reserve_removal_now(w, 0, 0, 0);
}

// Room for a leader record for li when it has none (its acquisition then cannot fail).
static crowd_status reserve_leader(crowd_world* w, uint32_t li) {
    if (cs_rec_num(w, CS_REC_LEADER, li) >= 0) return CROWD_OK;
    return cs_pool_reserve(w, &w->pools[CS_REC_LEADER], 1);
}

// li's leader record, acquired (reserved before) when it has none.
static cs_leader* make_leader(crowd_world* w, uint32_t li) {
    int32_t* rec = &w->rec_of[CS_REC_LEADER][li];
    if (*rec < 0) *rec = cs_pool_acquire(&w->pools[CS_REC_LEADER]);
    return cs_pool_at(&w->pools[CS_REC_LEADER], *rec);
}

static void mark_dirty(crowd_world* w, uint32_t li) {
    cs_follow_world* fs = cs_follow_world_of(w);
    cs_leader* l = cs_leader_of(w, li);
    if (l->dirty) return;
    *cs_follow_dirty_at(w, fs->dirty_count++) = li;
    l->dirty = (uint32_t)fs->dirty_count;
}

static void unmark_dirty(crowd_world* w, uint32_t li) {
    cs_follow_world* fs = cs_follow_world_of(w);
    cs_leader* l = cs_leader_of(w, li);
    const uint32_t pos = l->dirty;
    if (!pos) return;
    const uint32_t last = *cs_follow_dirty_at(w, --fs->dirty_count);
    *cs_follow_dirty_at(w, (int)pos - 1) = last;
    cs_leader_of(w, last)->dirty = pos;
    l->dirty = 0;
}

// Columns are written where the agent is stored: in a split world every process keeps the follow
// records of every agent (the group links) but stores only some agents (core/dist_hooks.h).
static void set_column(crowd_world* w, uint32_t idx, uint32_t group, bool follows) {
    const int32_t s = w->slot_of[idx];
    if (s < 0) return;
    w->cur.group[s] = group;
    if (follows)
        w->cur.flags[s] |= CS_FLAG_FOLLOW;
    else
        w->cur.flags[s] &= ~(uint32_t)CS_FLAG_FOLLOW;
}

// The leader flag mirrors "has followers" so the leader pass finds leaders in one scan.
static void set_leader_flag(crowd_world* w, uint32_t li) {
    const int32_t s = w->slot_of[li];
    if (s < 0) return;
    if (cs_leader_of(w, li)->followers > 0)
        w->cur.flags[s] |= CS_FLAG_LEADER;
    else
        w->cur.flags[s] &= ~(uint32_t)CS_FLAG_LEADER;
    cs_sep_push_refresh(w, li);
}

// Appends follower x to leader li's list and group; both have their records.
static void join(crowd_world* w, uint32_t x, uint32_t li) {
    cs_follower* f = cs_follower_of(w, x);
    cs_leader* l = cs_leader_of(w, li);
    f->leader = li + 1;
    f->state = CROWD_FOLLOW_ACTIVE;
    f->slot_index = -1;
    f->next = 0;
    cs_follow_append(w, l, f, x);
    set_leader_flag(w, li);
    if (f->use_slot) {
        l->slotted++;
        mark_dirty(w, li);
    }
    set_column(w, x, li + 1, true);
}

// Unlinks ACTIVE follower x from its leader; its slot becomes free.
static void leave(crowd_world* w, uint32_t x) {
    cs_follower* f = cs_follower_of(w, x);
    const uint32_t li = f->leader - 1;
    cs_leader* l = cs_leader_of(w, li);
    if (f->prev)
        cs_follower_of(w, f->prev - 1)->next = f->next;
    else
        l->head = f->next;
    if (f->next)
        cs_follower_of(w, f->next - 1)->prev = f->prev;
    else
        l->tail = f->prev;
    l->followers--;
    set_leader_flag(w, li);
    if (f->use_slot) {
        l->slotted--;
        mark_dirty(w, li);
    }
    f->leader = 0;
    f->next = f->prev = 0;
    f->slot_index = -1;
}

// Ends x's following: out of its group, record released, no follow flag.
static void drop_follower(crowd_world* w, uint32_t x) {
    cs_follower* f = cs_follower_of(w, x);
    if (f->state == CROWD_FOLLOW_ACTIVE) leave(w, x);
    cs_pool_release(&w->pools[CS_REC_FOLLOWER], w->rec_of[CS_REC_FOLLOWER][x]);
    w->rec_of[CS_REC_FOLLOWER][x] = -1;
    set_column(w, x, 0, false);
}

// True when a walk up the leader chain from a reaches b (a itself included).
static bool chain_reaches(const crowd_world* w, uint32_t a, uint32_t b) {
    for (uint32_t j = a;;) {
        if (j == b) return true;
        const cs_follower* f = cs_follower_of(w, j);
        if (!f || f->state != CROWD_FOLLOW_ACTIVE) return false;
        j = f->leader - 1;
    }
}

// The ACTIVE follower's current target point in world space.
static crowd_vec2 current_target(const crowd_world* w, const cs_follower* f) {
    const cs_columns* c = &w->cur;
    const int32_t s = w->slot_of[f->leader - 1];
    if (s < 0) { // in a split world, a leader another process stores: its frame at the last step
        const cs_lead_state* ld = &cs_leader_of(w, f->leader - 1)->lead;
        return cs_follow_target((crowd_vec2){ld->px, ld->py}, (crowd_vec2){ld->hx, ld->hy},
                                f->slot_index >= 0, f->slot, f->behind_dist);
    }
    const crowd_vec2 lp = {c->px[s], c->py[s]};
    const crowd_vec2 h =
        cs_steer_heading((crowd_vec2){c->vx[s], c->vy[s]}, (crowd_vec2){c->hx[s], c->hy[s]});
    return cs_follow_target(lp, h, f->slot_index >= 0, f->slot, f->behind_dist);
}

// ---- following ----------------------------------------------------------------------------------

crowd_status crowd_agent_follow(crowd_world* w, crowd_agent_id follower, crowd_agent_id leader,
                                const crowd_follow_def* def) {
    int fs_, ls_;
    crowd_status st = cs_agent_slot(w, follower, &fs_);
    if (st == CROWD_OK) st = cs_agent_slot(w, leader, &ls_);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = cs_follow_check_def(def);
    if (st != CROWD_OK) return st;
    const uint32_t fi = follower.index1 - 1, li = leader.index1 - 1;
    if (chain_reaches(w, li, fi)) return CROWD_ERR_FOLLOW_CYCLE;

    const cs_follower* f0 = cs_follower_of(w, fi);
    const bool was_active = f0 && f0->state == CROWD_FOLLOW_ACTIVE;
    const bool same = was_active && f0->leader == li + 1;
    const bool to_slot = def->target == CROWD_FOLLOW_SLOT;
    const bool already_slotted = same && f0->use_slot;
    st = reserve_leader(w, li);
    if (st == CROWD_OK && !f0) st = cs_pool_reserve(w, &w->pools[CS_REC_FOLLOWER], 1);
    if (st == CROWD_OK && to_slot && !already_slotted)
        st = ensure_group(w, li, leader_or_none(w, li)->slotted + 1);
    if (st == CROWD_OK) st = reserve_removal_now(w, !f0, 0, 0);
    if (st != CROWD_OK) return st;

    cs_leader* l = make_leader(w, li);
    if (w->rec_of[CS_REC_FOLLOWER][fi] < 0)
        w->rec_of[CS_REC_FOLLOWER][fi] = cs_pool_acquire(&w->pools[CS_REC_FOLLOWER]);
    cs_follower* f = cs_follower_of(w, fi);
    if (same) {
        if (f->use_slot != to_slot) {
            l->slotted += to_slot ? 1 : -1;
            f->slot_index = -1;
            mark_dirty(w, li);
        }
        cs_follow_params(f, def);
        cs_sep_push_refresh(w, fi);
        return CROWD_OK;
    }
    if (was_active) leave(w, fi);
    cs_follow_params(f, def);
    join(w, fi, li);
    cs_sep_push_refresh(w, fi);
    return CROWD_OK;
}

crowd_status crowd_agent_unfollow(crowd_world* w, crowd_agent_id follower) {
    int s;
    crowd_status st = cs_agent_slot(w, follower, &s);
    if (st != CROWD_OK) return st;
    const uint32_t fi = follower.index1 - 1;
    if (cs_follower_of(w, fi)) drop_follower(w, fi);
    cs_sep_push_refresh(w, fi);
    return CROWD_OK;
}

crowd_status crowd_agent_get_follow(const crowd_world* w, crowd_agent_id follower,
                                    crowd_follow_info* out) {
    int s;
    crowd_status st = cs_agent_slot(w, follower, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    const cs_follower* f = cs_follower_of(w, follower.index1 - 1);
    *out = (crowd_follow_info){.state = f ? (crowd_follow_state)f->state : CROWD_FOLLOW_NONE,
                               .slot = -1};
    switch (out->state) {
    case CROWD_FOLLOW_NONE:
        out->def = crowd_follow_def_default();
        break;
    case CROWD_FOLLOW_ACTIVE:
        out->def = cs_follow_def_of(f);
        out->leader = cs_agent_handle(w, f->leader - 1);
        out->slot = f->slot_index;
        out->slot_offset = f->slot_index >= 0 ? f->slot : (crowd_vec2){0.0f, 0.0f};
        out->slot_pending = f->use_slot && cs_leader_of(w, f->leader - 1)->dirty != 0;
        out->target = current_target(w, f);
        break;
    case CROWD_FOLLOW_STOPPED:
        out->def = cs_follow_def_of(f);
        out->target = f->target;
        break;
    }
    return CROWD_OK;
}

// ---- leading ------------------------------------------------------------------------------------

crowd_status crowd_leader_set_formation(crowd_world* w, crowd_agent_id leader,
                                        const crowd_formation_def* def) {
    int s;
    crowd_status st = cs_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = cs_formation_check_def(def);
    if (st != CROWD_OK) return st;
    const uint32_t li = leader.index1 - 1;
    st = reserve_leader(w, li);
    if (st != CROWD_OK) return st;
    const int slotted = leader_or_none(w, li)->slotted;

    const bool custom = def->shape == CROWD_FORMATION_CUSTOM;
    const size_t bytes = custom ? sizeof(crowd_vec2) * (size_t)def->offset_count : 0;
    crowd_vec2* copy = NULL;
    if (custom) {
        copy = cs_alloc(w, bytes);
        if (!copy) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(copy, def->offsets, bytes);
    }
    if (slotted > 0) st = ensure_scratch(w, slotted, custom ? def->offset_count : slotted);
    if (st == CROWD_OK) st = reserve_removal_now(w, 0, 0, custom ? def->offset_count : 0);
    if (st != CROWD_OK) {
        cs_free(w, copy, bytes);
        return st;
    }
    cs_follow_world* fs = cs_follow_world_of(w);
    if (custom && def->offset_count > fs->custom_max) fs->custom_max = def->offset_count;

    cs_leader* l = make_leader(w, li);
    cs_free(w, l->custom, sizeof(crowd_vec2) * (size_t)l->custom_count);
    l->has_formation = 1;
    l->shape = (uint8_t)def->shape;
    l->spacing = def->spacing;
    l->distance = def->distance;
    l->columns = def->shape == CROWD_FORMATION_BLOCK ? def->columns : 0;
    l->custom = copy;
    l->custom_count = custom ? def->offset_count : 0;
    if (l->slotted > 0) mark_dirty(w, li);
    return CROWD_OK;
}

crowd_status crowd_leader_set_fallback(crowd_world* w, crowd_agent_id leader,
                                       crowd_agent_id fallback) {
    int s;
    crowd_status st = cs_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!crowd_agent_id_is_null(fallback)) {
        st = cs_agent_slot(w, fallback, &s);
        if (st != CROWD_OK) return st;
        if (fallback.index1 == leader.index1) return CROWD_ERR_FOLLOW_CYCLE;
    }
    const uint32_t li = leader.index1 - 1;
    // No fallback is what an agent without a record has.
    if (crowd_agent_id_is_null(fallback) && cs_rec_num(w, CS_REC_LEADER, li) < 0) return CROWD_OK;
    // The fallback gets its leader record now, so that a removal (which may happen inside a step,
    // on a queue arrival) never has to acquire one.
    const bool fb = !crowd_agent_id_is_null(fallback);
    const int missing = (cs_rec_num(w, CS_REC_LEADER, li) < 0) +
                        (fb && cs_rec_num(w, CS_REC_LEADER, fallback.index1 - 1) < 0);
    const cs_leader* old = cs_leader_of(w, li);
    const int had = old && !crowd_agent_id_is_null(old->fallback);
    st = cs_pool_reserve(w, &w->pools[CS_REC_LEADER], missing);
    if (st == CROWD_OK) st = reserve_removal_now(w, 0, fb - had > 0 ? fb - had : 0, 0);
    if (st != CROWD_OK) return st;
    if (fb) make_leader(w, fallback.index1 - 1);
    make_leader(w, li)->fallback = fallback;
    cs_follow_world_of(w)->fallbacks += fb - had;
    return CROWD_OK;
}

crowd_status crowd_leader_get_info(const crowd_world* w, crowd_agent_id leader,
                                   crowd_leader_info* out) {
    int s;
    crowd_status st = cs_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    const cs_leader* l = leader_or_none(w, leader.index1 - 1);
    const crowd_formation_def d = crowd_formation_def_default();
    *out = (crowd_leader_info){
        .followers = l->followers,
        .slot_followers = l->slotted,
        .fallback = l->fallback,
        .shape = l->has_formation ? (crowd_formation_shape)l->shape : d.shape,
        .spacing = l->has_formation ? l->spacing : d.spacing,
        .distance = l->has_formation ? l->distance : d.distance,
        .columns = l->has_formation ? l->columns : d.columns,
        .offset_count = l->custom_count,
    };
    return CROWD_OK;
}

crowd_status crowd_leader_get_followers(const crowd_world* w, crowd_agent_id leader,
                                        crowd_agent_id* ids, int capacity, int* count) {
    int s;
    crowd_status st = cs_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!count || (!ids && capacity > 0)) return CROWD_ERR_NULL_ARGUMENT;
    const cs_leader* l = leader_or_none(w, leader.index1 - 1);
    if (capacity < l->followers) {
        *count = l->followers;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    int k = 0;
    for (uint32_t x = l->head; x != 0; x = cs_follower_of(w, x - 1)->next)
        ids[k++] = cs_agent_handle(w, x - 1);
    *count = k;
    return CROWD_OK;
}

// ---- removal and teardown -----------------------------------------------------------------------

void cs_follow_on_remove(crowd_world* w, uint32_t idx) {
    cs_follow_world* fs = cs_follow_world_of(w);
    cs_leader* l = cs_leader_of(w, idx);

    // The fallback, if it will take anyone. It has its leader record since
    // crowd_leader_set_fallback named it, and the scratch its group can grow to was reserved then
    // (reserve_removal).
    uint32_t fb = 0;
    const bool has_fb = l && l->followers > 0 && !crowd_agent_id_is_null(l->fallback) &&
                        cs_agent_live(w, l->fallback) && l->fallback.index1 - 1 != idx;
    if (has_fb) fb = l->fallback.index1 - 1;

    if (cs_follower_of(w, idx)) drop_follower(w, idx);
    if (!l) return;

    // Each follower, in join order, takes the fallback or stops at its current target.
    uint32_t next;
    for (uint32_t x1 = l->head; x1 != 0; x1 = next) {
        const uint32_t x = x1 - 1;
        cs_follower* f = cs_follower_of(w, x);
        next = f->next;
        const crowd_vec2 target = current_target(w, f);
        f->next = f->prev = 0;
        if (has_fb && x != fb && !chain_reaches(w, fb, x)) {
            join(w, x, fb);
        } else {
            f->leader = 0;
            f->state = CROWD_FOLLOW_STOPPED;
            f->slot_index = -1;
            f->target = target;
            set_column(w, x, 0, true);
        }
    }

    unmark_dirty(w, idx);
    fs->fallbacks -= !crowd_agent_id_is_null(l->fallback);
    cs_free(w, l->custom, sizeof(crowd_vec2) * (size_t)l->custom_count);
    cs_pool_release(&w->pools[CS_REC_LEADER], w->rec_of[CS_REC_LEADER][idx]);
    w->rec_of[CS_REC_LEADER][idx] = -1;
}

void cs_follow_destroy(crowd_world* w) {
    cs_follow_world* fs = cs_follow_world_of(w);
    for (int i = 0; i < w->index_count; ++i) {
        const cs_leader* l = cs_leader_of(w, (uint32_t)i);
        if (l) cs_free(w, l->custom, sizeof(crowd_vec2) * (size_t)l->custom_count);
    }
    if (!fs) return; // a world whose creation failed early
    cs_free(w, fs->scratch, fs->scratch_bytes * (size_t)fs->scratch_threads);
    fs->scratch = NULL;
}

uint64_t cs_follow_hash(const crowd_world* w, uint32_t idx, uint64_t h) {
    const cs_follower* f = cs_follower_of(w, idx);
    if (f) {
        h = cs_hash_word(h, f->leader);
        h = cs_hash_float(h, f->behind_dist);
        h = cs_hash_float(h, f->ahead_dist);
        h = cs_hash_float(h, f->ahead_radius);
        h = cs_hash_float(h, f->slow_radius);
        h = cs_hash_float(h, f->evade_weight);
        h = cs_hash_float(h, f->separation_weight);
        h = cs_hash_float(h, f->weight);
        h = cs_hash_float(h, f->slot.x);
        h = cs_hash_float(h, f->slot.y);
        h = cs_hash_word(h, (uint32_t)f->slot_index);
        h = cs_hash_word(h, (uint32_t)f->state | (uint32_t)f->use_slot << 8 |
                                (uint32_t)f->predict << 16);
        h = cs_hash_word(h, f->next);
        h = cs_hash_word(h, f->prev);
    }
    const cs_leader* l = cs_leader_of(w, idx);
    if (l) {
        h = cs_hash_word(h, l->head);
        h = cs_hash_word(h, l->tail);
        h = cs_hash_word(h, (uint32_t)l->followers);
        h = cs_hash_word(h, (uint32_t)l->slotted);
        h = cs_hash_word(h, l->fallback.index1);
        h = cs_hash_word(h, l->fallback.generation); // not the world tag: it may vary by run
        h = cs_hash_word(h, l->dirty);
        h = cs_hash_word(h, (uint32_t)l->has_formation | (uint32_t)l->shape << 8);
        h = cs_hash_word(h, (uint32_t)l->columns);
        h = cs_hash_float(h, l->spacing);
        h = cs_hash_float(h, l->distance);
        h = cs_hash_word(h, (uint32_t)l->custom_count);
        for (int k = 0; k < l->custom_count; ++k) {
            h = cs_hash_float(h, l->custom[k].x);
            h = cs_hash_float(h, l->custom[k].y);
        }
    }
    return h;
}

// ---- a world split across processes ------------------------------------------------------------

// Read by the next step's leader pass on every process: a leader with followers (its followers
// read its position, velocity and heading), or a slot follower of a leader whose slots are
// reassigned in that step (the assignment reads its position).
bool cs_follow_dist_linked(const crowd_world* w, int s) {
    const uint32_t flags = w->cur.flags[s];
    if (flags & CS_FLAG_LEADER) return true;
    if (!(flags & CS_FLAG_FOLLOW)) return false;
    const cs_follower* f = cs_follower_of(w, w->cur.id[s]);
    return f && f->leader != 0 && f->use_slot && cs_leader_of(w, f->leader - 1)->dirty != 0;
}

// A follower's form decides its separation, so that its group separation is its form's
// (crowd/leader.h); a leader separates without drag too: its followers close around it, and the
// spec's drag would hold it back by its own group.
cs_sep_form cs_follow_sep_form(const crowd_world* w, uint32_t idx, uint32_t flags) {
    const cs_follower* f = cs_follower_of(w, idx);
    if (f) return f->literal ? CS_SEP_DECIDE_DRAG : CS_SEP_DECIDE_PUSH;
    return flags & CS_FLAG_LEADER ? CS_SEP_PUSH : CS_SEP_ANY;
}
