// Follow leader API: joining and leaving groups, formations, fallbacks, leader removal, getters.
//
// Group membership is an intrusive doubly linked list per leader (join order) over per-agent-index
// records, so joining and leaving are O(1) and allocate nothing. Every call validates all of its
// input and acquires any memory it needs before it changes anything.
#include <math.h>
#include <string.h>

#include "internal.h"

// ---- validation ---------------------------------------------------------------------------------

static crowd_status check_follow_def(const crowd_follow_def* d) {
    if ((unsigned)d->target >= CROWD_FOLLOW_TARGET_COUNT) return CROWD_ERR_INVALID_ENUM;
    const float v[] = {d->behind_dist,  d->ahead_dist,        d->ahead_radius, d->slow_radius,
                       d->evade_weight, d->separation_weight, d->weight};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; ++i)
        if (!isfinite(v[i])) return CROWD_ERR_NOT_FINITE;
    if (d->behind_dist < 0.0f || d->ahead_dist < 0.0f || d->ahead_radius < 0.0f ||
        d->slow_radius <= 0.0f)
        return CROWD_ERR_BAD_RADIUS;
    if (d->evade_weight < 0.0f || d->separation_weight < 0.0f || d->weight < 0.0f)
        return CROWD_ERR_BAD_WEIGHT;
    return CROWD_OK;
}

static crowd_status check_formation_def(const crowd_formation_def* d) {
    if ((unsigned)d->shape >= CROWD_FORMATION_SHAPE_COUNT) return CROWD_ERR_INVALID_ENUM;
    if (!isfinite(d->spacing) || !isfinite(d->distance)) return CROWD_ERR_NOT_FINITE;
    if (d->spacing <= 0.0f || d->distance <= 0.0f) return CROWD_ERR_BAD_RADIUS;
    if (d->shape == CROWD_FORMATION_BLOCK && d->columns < 1) return CROWD_ERR_BAD_COUNT;
    if (d->shape == CROWD_FORMATION_CUSTOM) {
        if (!d->offsets) return CROWD_ERR_NULL_ARGUMENT;
        if (d->offset_count < 1 || d->offset_count > CROWD_FORMATION_MAX_OFFSETS)
            return CROWD_ERR_BAD_COUNT;
        for (int k = 0; k < d->offset_count; ++k)
            if (!isfinite(d->offsets[k].x) || !isfinite(d->offsets[k].y))
                return CROWD_ERR_NOT_FINITE;
    }
    return CROWD_OK;
}

// ---- store helpers ------------------------------------------------------------------------------

static crowd_agent_id handle_of(const crowd_world* w, uint32_t idx) {
    return (crowd_agent_id){.index1 = idx + 1, .generation = w->generation[idx], .world = w->tag};
}

// Makes sure every thread's scratch can hold a group of n slot followers with m slots.
static crowd_status ensure_scratch(crowd_world* w, int n, int m) {
    crowd_follow_store* fs = &w->follow;
    size_t need = crowd_follow_group_bytes(n, m);
    if (need <= fs->scratch_bytes && fs->scratch_threads >= w->threads) return CROWD_OK;
    if (need < fs->scratch_bytes + fs->scratch_bytes / 2)
        need = fs->scratch_bytes + fs->scratch_bytes / 2;
    need = (need + 63u) & ~(size_t)63u; // every thread's piece starts on its own cache line
    const int threads = w->threads > fs->scratch_threads ? w->threads : fs->scratch_threads;
    void* p = crowd_alloc(w, need * (size_t)threads);
    if (!p) return CROWD_ERR_OUT_OF_MEMORY;
    crowd_free(w, fs->scratch, fs->scratch_bytes * (size_t)fs->scratch_threads);
    fs->scratch = p;
    fs->scratch_bytes = need;
    fs->scratch_threads = threads;
    return CROWD_OK;
}

static crowd_status ensure_group(crowd_world* w, uint32_t li, int slotted) {
    if (slotted <= 0) return CROWD_OK;
    return ensure_scratch(w, slotted, crowd_formation_slot_count(&w->follow.leader[li], slotted));
}

static void mark_dirty(crowd_world* w, uint32_t li) {
    crowd_follow_store* fs = &w->follow;
    if (fs->leader[li].dirty) return;
    fs->dirty[fs->dirty_count++] = li;
    fs->leader[li].dirty = (uint32_t)fs->dirty_count;
}

static void unmark_dirty(crowd_world* w, uint32_t li) {
    crowd_follow_store* fs = &w->follow;
    const uint32_t pos = fs->leader[li].dirty;
    if (!pos) return;
    const uint32_t last = fs->dirty[--fs->dirty_count];
    fs->dirty[pos - 1] = last;
    fs->leader[last].dirty = pos;
    fs->leader[li].dirty = 0;
}

static void set_column(crowd_world* w, uint32_t idx, uint32_t group, bool follows) {
    const int32_t s = w->slot_of[idx];
    w->cur.group[s] = group;
    if (follows)
        w->cur.flags[s] |= CROWD_FLAG_FOLLOW;
    else
        w->cur.flags[s] &= ~(uint32_t)CROWD_FLAG_FOLLOW;
}

// The leader flag mirrors "has followers" so the leader pass finds leaders in one scan.
static void set_leader_flag(crowd_world* w, uint32_t li) {
    const int32_t s = w->slot_of[li];
    if (w->follow.leader[li].followers > 0)
        w->cur.flags[s] |= CROWD_FLAG_LEADER;
    else
        w->cur.flags[s] &= ~(uint32_t)CROWD_FLAG_LEADER;
}

// Appends follower x to leader li's list and group.
static void join(crowd_world* w, uint32_t x, uint32_t li) {
    crowd_follower* f = &w->follow.follower[x];
    crowd_leader* l = &w->follow.leader[li];
    f->leader = li + 1;
    f->state = CROWD_FOLLOW_ACTIVE;
    f->slot_index = -1;
    f->prev = l->tail;
    f->next = 0;
    if (l->tail)
        w->follow.follower[l->tail - 1].next = x + 1;
    else
        l->head = x + 1;
    l->tail = x + 1;
    l->followers++;
    set_leader_flag(w, li);
    if (f->use_slot) {
        l->slotted++;
        mark_dirty(w, li);
    }
    set_column(w, x, li + 1, true);
}

// Unlinks ACTIVE follower x from its leader; its slot becomes free.
static void leave(crowd_world* w, uint32_t x) {
    crowd_follower* f = &w->follow.follower[x];
    const uint32_t li = f->leader - 1;
    crowd_leader* l = &w->follow.leader[li];
    if (f->prev)
        w->follow.follower[f->prev - 1].next = f->next;
    else
        l->head = f->next;
    if (f->next)
        w->follow.follower[f->next - 1].prev = f->prev;
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

// True when a walk up the leader chain from a reaches b (a itself included).
static bool chain_reaches(const crowd_world* w, uint32_t a, uint32_t b) {
    const crowd_follower* fol = w->follow.follower;
    for (uint32_t j = a;;) {
        if (j == b) return true;
        if (fol[j].state != CROWD_FOLLOW_ACTIVE) return false;
        j = fol[j].leader - 1;
    }
}

// The ACTIVE follower's current target point in world space.
static crowd_vec2 current_target(const crowd_world* w, const crowd_follower* f) {
    const crowd_columns* c = &w->cur;
    const int32_t s = w->slot_of[f->leader - 1];
    const crowd_vec2 lp = {c->px[s], c->py[s]};
    const crowd_vec2 h =
        fl_heading((crowd_vec2){c->vx[s], c->vy[s]}, (crowd_vec2){c->hx[s], c->hy[s]});
    return fl_target(lp, h, f->slot_index >= 0, f->slot, f->behind_dist);
}

// ---- following ----------------------------------------------------------------------------------

crowd_status crowd_agent_follow(crowd_world* w, crowd_agent_id follower, crowd_agent_id leader,
                                const crowd_follow_def* def) {
    int fs_, ls_;
    crowd_status st = crowd_agent_slot(w, follower, &fs_);
    if (st == CROWD_OK) st = crowd_agent_slot(w, leader, &ls_);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = check_follow_def(def);
    if (st != CROWD_OK) return st;
    const uint32_t fi = follower.index1 - 1, li = leader.index1 - 1;
    if (chain_reaches(w, li, fi)) return CROWD_ERR_FOLLOW_CYCLE;

    crowd_follower* f = &w->follow.follower[fi];
    crowd_leader* l = &w->follow.leader[li];
    const bool was_active = f->state == CROWD_FOLLOW_ACTIVE;
    const bool same = was_active && f->leader == li + 1;
    const bool to_slot = def->target == CROWD_FOLLOW_SLOT;
    const bool already_slotted = same && f->use_slot;
    if (to_slot && !already_slotted) {
        st = ensure_group(w, li, l->slotted + 1);
        if (st != CROWD_OK) return st;
    }

    if (same) {
        if (f->use_slot != to_slot) {
            l->slotted += to_slot ? 1 : -1;
            f->slot_index = -1;
            mark_dirty(w, li);
        }
        crowd_follow_params(f, def);
        return CROWD_OK;
    }
    if (was_active) leave(w, fi);
    if (f->state == CROWD_FOLLOW_NONE) w->follow.followers++;
    crowd_follow_params(f, def);
    join(w, fi, li);
    return CROWD_OK;
}

crowd_status crowd_agent_unfollow(crowd_world* w, crowd_agent_id follower) {
    int s;
    crowd_status st = crowd_agent_slot(w, follower, &s);
    if (st != CROWD_OK) return st;
    const uint32_t fi = follower.index1 - 1;
    crowd_follower* f = &w->follow.follower[fi];
    if (f->state == CROWD_FOLLOW_NONE) return CROWD_OK;
    if (f->state == CROWD_FOLLOW_ACTIVE) leave(w, fi);
    memset(f, 0, sizeof *f);
    f->slot_index = -1;
    set_column(w, fi, 0, false);
    w->follow.followers--;
    return CROWD_OK;
}

crowd_status crowd_agent_get_follow(const crowd_world* w, crowd_agent_id follower,
                                    crowd_follow_info* out) {
    int s;
    crowd_status st = crowd_agent_slot(w, follower, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_follower* f = &w->follow.follower[follower.index1 - 1];
    *out = (crowd_follow_info){.state = (crowd_follow_state)f->state, .slot = -1};
    switch ((crowd_follow_state)f->state) {
    case CROWD_FOLLOW_NONE:
        out->def = crowd_follow_def_default();
        break;
    case CROWD_FOLLOW_ACTIVE:
        out->def = crowd_follow_def_of(f);
        out->leader = handle_of(w, f->leader - 1);
        out->slot = f->slot_index;
        out->slot_offset = f->slot_index >= 0 ? f->slot : (crowd_vec2){0.0f, 0.0f};
        out->slot_pending = f->use_slot && w->follow.leader[f->leader - 1].dirty != 0;
        out->target = current_target(w, f);
        break;
    case CROWD_FOLLOW_STOPPED:
        out->def = crowd_follow_def_of(f);
        out->target = f->target;
        break;
    }
    return CROWD_OK;
}

// ---- leading ------------------------------------------------------------------------------------

crowd_status crowd_leader_set_formation(crowd_world* w, crowd_agent_id leader,
                                        const crowd_formation_def* def) {
    int s;
    crowd_status st = crowd_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!def) return CROWD_ERR_NULL_ARGUMENT;
    st = check_formation_def(def);
    if (st != CROWD_OK) return st;
    const uint32_t li = leader.index1 - 1;
    crowd_leader* l = &w->follow.leader[li];

    const bool custom = def->shape == CROWD_FORMATION_CUSTOM;
    const size_t bytes = custom ? sizeof(crowd_vec2) * (size_t)def->offset_count : 0;
    crowd_vec2* copy = NULL;
    if (custom) {
        copy = crowd_alloc(w, bytes);
        if (!copy) return CROWD_ERR_OUT_OF_MEMORY;
        memcpy(copy, def->offsets, bytes);
    }
    if (l->slotted > 0) {
        st = ensure_scratch(w, l->slotted, custom ? def->offset_count : l->slotted);
        if (st != CROWD_OK) {
            crowd_free(w, copy, bytes);
            return st;
        }
    }

    crowd_free(w, l->custom, sizeof(crowd_vec2) * (size_t)l->custom_count);
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
    crowd_status st = crowd_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!crowd_agent_id_is_null(fallback)) {
        st = crowd_agent_slot(w, fallback, &s);
        if (st != CROWD_OK) return st;
        if (fallback.index1 == leader.index1) return CROWD_ERR_FOLLOW_CYCLE;
    }
    w->follow.leader[leader.index1 - 1].fallback = fallback;
    return CROWD_OK;
}

crowd_status crowd_leader_get_info(const crowd_world* w, crowd_agent_id leader,
                                   crowd_leader_info* out) {
    int s;
    crowd_status st = crowd_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!out) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_leader* l = &w->follow.leader[leader.index1 - 1];
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
    crowd_status st = crowd_agent_slot(w, leader, &s);
    if (st != CROWD_OK) return st;
    if (!count || (!ids && capacity > 0)) return CROWD_ERR_NULL_ARGUMENT;
    const crowd_leader* l = &w->follow.leader[leader.index1 - 1];
    if (capacity < l->followers) {
        *count = l->followers;
        return CROWD_ERR_BUFFER_TOO_SMALL;
    }
    int k = 0;
    for (uint32_t x = l->head; x != 0; x = w->follow.follower[x - 1].next)
        ids[k++] = handle_of(w, x - 1);
    *count = k;
    return CROWD_OK;
}

// ---- removal and teardown -----------------------------------------------------------------------

crowd_status crowd_follow_on_remove(crowd_world* w, uint32_t idx) {
    crowd_follow_store* fs = &w->follow;
    crowd_follower* self = &fs->follower[idx];
    crowd_leader* l = &fs->leader[idx];

    // The fallback, if it will take anyone: checked and its scratch acquired before any change.
    int fb_slot;
    uint32_t fb = 0;
    bool has_fb = l->followers > 0 && !crowd_agent_id_is_null(l->fallback) &&
                  crowd_agent_slot(w, l->fallback, &fb_slot) == CROWD_OK &&
                  l->fallback.index1 - 1 != idx;
    if (has_fb) {
        fb = l->fallback.index1 - 1;
        crowd_status st = ensure_group(w, fb, fs->leader[fb].slotted + l->slotted);
        if (st != CROWD_OK) return st;
    }

    if (self->state == CROWD_FOLLOW_ACTIVE) leave(w, idx);
    if (self->state != CROWD_FOLLOW_NONE) fs->followers--;
    memset(self, 0, sizeof *self);
    self->slot_index = -1;

    // Each follower, in join order, takes the fallback or stops at its current target.
    uint32_t next;
    for (uint32_t x1 = l->head; x1 != 0; x1 = next) {
        const uint32_t x = x1 - 1;
        crowd_follower* f = &fs->follower[x];
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
    crowd_free(w, l->custom, sizeof(crowd_vec2) * (size_t)l->custom_count);
    memset(l, 0, sizeof *l);
    return CROWD_OK;
}

void crowd_follow_destroy(crowd_world* w) {
    crowd_follow_store* fs = &w->follow;
    if (fs->leader)
        for (int i = 0; i < w->index_count; ++i)
            crowd_free(w, fs->leader[i].custom,
                       sizeof(crowd_vec2) * (size_t)fs->leader[i].custom_count);
    crowd_free(w, fs->scratch, fs->scratch_bytes * (size_t)fs->scratch_threads);
    fs->scratch = NULL;
}
