// Leader pass: formation slot reassignment for leaders whose group changed, then the follow force
// of every follower.
//
// The reassignment works group by group, each group on one thread and writing only its own
// followers' records, so it is parallel over groups and its result does not depend on the thread
// count. The force loop is parallel over sorted slots and writes only its own slot.
#include <omp.h>
#include <stdlib.h>

#include "internal.h"

// How many slots ahead the force loop fetches follower records.
#define CROWD_FOLLOW_PREFETCH 32

static inline size_t align8(size_t b) {
    return (b + 7u) & ~(size_t)7u;
}

size_t crowd_follow_group_bytes(int n, int m) {
    if (n <= 0) return 0;
    return align8(sizeof(uint32_t) * (size_t)n) + sizeof(crowd_vec2) * ((size_t)n + (size_t)m) +
           align8(sizeof(int) * (size_t)n) + crowd_assign_scratch_bound(n, m);
}

static int cmp_u32(const void* a, const void* b) {
    const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

// The leader's position, velocity and spec heading.
static void leader_frame(const crowd_world* w, uint32_t li, crowd_vec2* lp, crowd_vec2* lv,
                         crowd_vec2* h) {
    const crowd_columns* c = &w->cur;
    const int32_t s = w->slot_of[li];
    *lp = (crowd_vec2){c->px[s], c->py[s]};
    *lv = (crowd_vec2){c->vx[s], c->vy[s]};
    *h = fl_heading(*lv, (crowd_vec2){c->hx[s], c->hy[s]});
}

static void assign_group(crowd_world* w, uint32_t li, unsigned char* scratch) {
    crowd_leader* l = &w->follow.leader[li];
    crowd_follower* fol = w->follow.follower;
    const int n = l->slotted;
    if (n <= 0) return;
    const int m = crowd_formation_slot_count(l, n);

    uint32_t* members = (uint32_t*)scratch;
    scratch += align8(sizeof(uint32_t) * (size_t)n);
    crowd_vec2* fpos = (crowd_vec2*)scratch;
    crowd_vec2* spos = fpos + n;
    scratch += sizeof(crowd_vec2) * ((size_t)n + (size_t)m);
    int* out = (int*)scratch;
    scratch += align8(sizeof(int) * (size_t)n);

    int k = 0;
    for (uint32_t x = l->head; x != 0; x = fol[x - 1].next)
        if (fol[x - 1].use_slot) members[k++] = x - 1;
    qsort(members, (size_t)n, sizeof *members, cmp_u32); // ties go to the lower agent index

    crowd_vec2 lp, lv, h;
    leader_frame(w, li, &lp, &lv, &h);
    const crowd_columns* c = &w->cur;
    for (int i = 0; i < n; ++i) {
        const int32_t s = w->slot_of[members[i]];
        const float dx = c->px[s] - lp.x, dy = c->py[s] - lp.y;
        fpos[i] = (crowd_vec2){dx * h.x + dy * h.y, dx * -h.y + dy * h.x};
    }
    crowd_formation_slots(l, n, spos);
    crowd_assign_slots(n, m, fpos, spos, out, scratch);
    for (int i = 0; i < n; ++i) {
        crowd_follower* f = &fol[members[i]];
        f->slot_index = out[i];
        f->slot = out[i] >= 0 ? spos[out[i]] : (crowd_vec2){0.0f, 0.0f};
    }
}

static void assign_dirty(crowd_world* w) {
    crowd_follow_store* fs = &w->follow;
    const int count = fs->dirty_count;
    const int threads = w->threads < fs->scratch_threads ? w->threads : fs->scratch_threads;
    unsigned char* base = fs->scratch;
    const size_t bytes = fs->scratch_bytes;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(dynamic, 1)
    for (int k = 0; k < count; ++k)
        assign_group(w, fs->dirty[k], base + bytes * (size_t)omp_get_thread_num());
    for (int k = 0; k < count; ++k) fs->leader[fs->dirty[k]].dirty = 0;
    fs->dirty_count = 0;
}

void crowd_pass_leader(crowd_world* w) {
    if (w->follow.dirty_count > 0) assign_dirty(w);
    if (w->follow.followers == 0) return;

    const int n = w->count;
    const crowd_columns* c = &w->cur;
    const crowd_follower* fol = w->follow.follower;
    const int32_t* slot_of = w->slot_of;
#pragma omp parallel for num_threads(w->threads) if (w->threads > 1) schedule(static)
    for (int s = 0; s < n; ++s) {
        // Records are in agent-index order, slots in cell order: every record is a cache miss
        // unless fetched ahead.
        if (s + CROWD_FOLLOW_PREFETCH < n)
            __builtin_prefetch(&fol[c->id[s + CROWD_FOLLOW_PREFETCH]], 0, 0);
        if (!(c->flags[s] & CROWD_FLAG_FOLLOW)) continue;
        const crowd_follower* f = &fol[c->id[s]];
        const crowd_vec2 pos = {c->px[s], c->py[s]}, vel = {c->vx[s], c->vy[s]};
        const float ms = c->max_speed[s], mf = c->max_force[s];
        crowd_vec2 force;
        if (f->leader != 0) {
            const int32_t ls = slot_of[f->leader - 1];
            force = crowd_follow_force(
                f, pos, vel, ms, mf, (crowd_vec2){c->px[ls], c->py[ls]},
                (crowd_vec2){c->vx[ls], c->vy[ls]}, (crowd_vec2){c->hx[ls], c->hy[ls]},
                (crowd_vec2){w->gsep_x[s], w->gsep_y[s]}, f->slot_index >= 0, f->slot);
        } else {
            force = fl_limit(fl_arrive(pos, vel, ms, f->target, f->slow_radius), mf);
        }
        w->force_x[s] += f->weight * force.x;
        w->force_y[s] += f->weight * force.y;
    }
}
