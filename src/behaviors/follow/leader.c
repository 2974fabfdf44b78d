// Leader pass: formation slot reassignment for leaders whose group changed, then the follow force
// of every follower.
//
// The reassignment works group by group, each group on one thread and writing only its own
// followers' records, so it is parallel over groups and its result does not depend on the thread
// count. The force loop is parallel over sorted slots and writes only its own slot.
#include "behaviors/follow/follow_internal.h"
#include "core/heapsort.h"

static inline size_t align8(size_t b) {
    return (b + 7u) & ~(size_t)7u;
}

size_t cs_follow_group_bytes(int n, int m) {
    if (n <= 0) return 0;
    return align8(sizeof(uint32_t) * (size_t)n) + sizeof(crowd_vec2) * ((size_t)n + (size_t)m) +
           align8(sizeof(int) * (size_t)n) + cs_assign_scratch_bound(n, m);
}

// Agent indices are unique: a total order, as cs_heapsort needs.
static int cmp_u32(const void* a, const void* b) {
    const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
    return (x > y) - (x < y);
}

// The leader's position, velocity and spec heading.
static void leader_frame(const crowd_world* w, uint32_t li, crowd_vec2* lp, crowd_vec2* lv,
                         crowd_vec2* h) {
    const cs_columns* c = &w->cur;
    const int32_t s = w->slot_of[li];
    *lp = (crowd_vec2){c->px[s], c->py[s]};
    *lv = (crowd_vec2){c->vx[s], c->vy[s]};
    *h = cs_steer_heading(*lv, (crowd_vec2){c->hx[s], c->hy[s]});
}

static void assign_group(crowd_world* w, uint32_t li, unsigned char* scratch) {
    const cs_leader* l = cs_leader_of(w, li);
    const int n = l->slotted;
    if (n <= 0) return;
    const int m = cs_formation_slot_count(l, n);

    uint32_t* members = (uint32_t*)scratch;
    scratch += align8(sizeof(uint32_t) * (size_t)n);
    crowd_vec2* fpos = (crowd_vec2*)scratch;
    crowd_vec2* spos = fpos + n;
    scratch += sizeof(crowd_vec2) * ((size_t)n + (size_t)m);
    int* out = (int*)scratch;
    scratch += align8(sizeof(int) * (size_t)n);

    int k = 0;
    for (uint32_t x = l->head; x != 0; x = cs_follower_of(w, x - 1)->next)
        if (cs_follower_of(w, x - 1)->use_slot) members[k++] = x - 1;
    cs_heapsort(members, (size_t)n, sizeof *members, cmp_u32);

    crowd_vec2 lp, lv, h;
    leader_frame(w, li, &lp, &lv, &h);
    const cs_columns* c = &w->cur;
    for (int i = 0; i < n; ++i) {
        const int32_t s = w->slot_of[members[i]];
        const float dx = c->px[s] - lp.x, dy = c->py[s] - lp.y;
        fpos[i] = (crowd_vec2){dx * h.x + dy * h.y, dx * -h.y + dy * h.x};
    }
    cs_formation_slots(l, n, spos);
    cs_assign_slots(n, m, fpos, spos, out, scratch);
    for (int i = 0; i < n; ++i) {
        cs_follower* f = cs_follower_of(w, members[i]);
        f->slot_index = out[i];
        f->slot = out[i] >= 0 ? spos[out[i]] : (crowd_vec2){0.0f, 0.0f};
    }
}

typedef struct assign_ctx {
    crowd_world* w;
    unsigned char* scratch;
    size_t bytes;
} assign_ctx;

// Each group's assignment reads and writes only that group, so any split of the dirty list gives
// the same result; each thread uses its own scratch.
static void assign_team(void* arg, int t, int nt) {
    const assign_ctx* a = arg;
    const cs_follow_world* fs = cs_follow_world_of(a->w);
    int lo, hi;
    cs_team_range(fs->dirty_count, 1, t, nt, &lo, &hi);
    for (int k = lo; k < hi; ++k)
        assign_group(a->w, *cs_follow_dirty_at(a->w, k), a->scratch + a->bytes * (size_t)t);
}

static void assign_dirty(crowd_world* w) {
    cs_follow_world* fs = cs_follow_world_of(w);
    const int count = fs->dirty_count;
    // Scratch exists for every waiting group (acquired when it changed); it may serve fewer
    // threads than the world now uses, which changes nothing but the speed.
    int threads = w->threads < fs->scratch_threads ? w->threads : fs->scratch_threads;
    if (threads < 1) threads = 1;
    assign_ctx ctx = {w, fs->scratch, fs->scratch_bytes};
    cs_team_run(threads, assign_team, &ctx);
    for (int k = 0; k < count; ++k) cs_leader_of(w, *cs_follow_dirty_at(w, k))->dirty = 0;
    fs->dirty_count = 0;
}

// ---- the force loop ---------------------------------------------------------------------------
// Slots are processed in blocks: a scalar loop gathers each follower's inputs (its record, its
// leader's columns) into lanes, a branch-free vector loop evaluates cs_follow_force for all of
// them, and a scalar loop adds the results. The vector loop performs exactly the scalar
// function's operations in the same order (a branch not taken becomes a select of the value the
// scalar code would have kept), so the results are bit-identical to crowd_steer_follow_leader.

enum { BLOCK = 4 * CS_LANES };

typedef struct lanes {
    float px[BLOCK], py[BLOCK], vx[BLOCK], vy[BLOCK], ms[BLOCK], mf[BLOCK];
    float lpx[BLOCK], lpy[BLOCK], lvx[BLOCK], lvy[BLOCK], hx[BLOCK], hy[BLOCK];
    float sepx[BLOCK], sepy[BLOCK];
    float offx[BLOCK], offy[BLOCK]; // slot offset, or the stopped follower's target
    float behind[BLOCK], ahead[BLOCK], ahead_r[BLOCK], slow[BLOCK], ew[BLOCK], sw[BLOCK];
    float weight[BLOCK];
    int32_t slot_mode[BLOCK], predict[BLOCK], literal[BLOCK], stopped[BLOCK];
    float fx[BLOCK], fy[BLOCK];
    int32_t slot[BLOCK];
} lanes;

// Gathers the followers among sorted slots [b, e); returns how many.
static int gather(const crowd_world* w, int b, int e, lanes* L) {
    const cs_columns* c = &w->cur;
    const int n = w->count;
    // The group separation the neighbor pass found, per slot.
    const float* gsep_x = cs_nb_out(w, CS_NB_GROUP, 0);
    const float* gsep_y = cs_nb_out(w, CS_NB_GROUP, 1);
    int k = 0;
    for (int s = b; s < e; ++s) {
        // Fetched ahead from every slot: a follower after a slot without one gets its fetch too.
        cs_prefetch_rec(c, w->rec_of[CS_REC_FOLLOWER], CS_FLAG_FOLLOW, s, n);
        if (!(c->flags[s] & CS_FLAG_FOLLOW)) continue;
        const cs_follower* f = cs_follower_of(w, c->id[s]);
        L->slot[k] = s;
        L->px[k] = c->px[s];
        L->py[k] = c->py[s];
        L->vx[k] = c->vx[s];
        L->vy[k] = c->vy[s];
        L->ms[k] = c->max_speed[s];
        L->mf[k] = c->max_force[s];
        L->behind[k] = f->behind_dist;
        L->ahead[k] = f->ahead_dist;
        L->ahead_r[k] = f->ahead_radius;
        L->slow[k] = f->slow_radius;
        L->ew[k] = f->evade_weight;
        L->sw[k] = f->separation_weight;
        L->weight[k] = f->weight;
        L->predict[k] = f->predict;
        L->literal[k] = f->literal;
        L->stopped[k] = f->leader == 0;
        if (f->leader != 0) {
            const cs_lead_state* ld = &cs_leader_of(w, f->leader - 1)->lead;
            L->lpx[k] = ld->px;
            L->lpy[k] = ld->py;
            L->lvx[k] = ld->vx;
            L->lvy[k] = ld->vy;
            L->hx[k] = ld->hx;
            L->hy[k] = ld->hy;
            L->sepx[k] = gsep_x[s];
            L->sepy[k] = gsep_y[s];
            L->slot_mode[k] = f->slot_index >= 0;
            L->offx[k] = f->slot.x;
            L->offy[k] = f->slot.y;
        } else {
            L->lpx[k] = L->lpy[k] = L->lvx[k] = L->lvy[k] = L->hy[k] = 0.0f;
            L->hx[k] = 1.0f;
            L->sepx[k] = L->sepy[k] = 0.0f;
            L->slot_mode[k] = 0;
            L->offx[k] = f->target.x;
            L->offy[k] = f->target.y;
        }
        ++k;
    }
    return k;
}

static void evaluate(lanes* L, int count) {
#pragma omp simd
    for (int k = 0; k < count; ++k) {
        const crowd_vec2 lp = {L->lpx[k], L->lpy[k]}, h = {L->hx[k], L->hy[k]};
        const crowd_vec2 off = {L->offx[k], L->offy[k]};
        const bool stopped = L->stopped[k] != 0;
        // A stopped follower's target is its stored point.
        const crowd_vec2 t = cs_follow_target(lp, h, L->slot_mode[k] != 0, off, L->behind[k]);
        const crowd_vec2 f = cs_follow_eval(
            (crowd_vec2){L->px[k], L->py[k]}, (crowd_vec2){L->vx[k], L->vy[k]}, L->ms[k], L->mf[k],
            lp, (crowd_vec2){L->lvx[k], L->lvy[k]}, h,
            (crowd_vec2){stopped ? off.x : t.x, stopped ? off.y : t.y},
            (crowd_vec2){L->sepx[k], L->sepy[k]}, L->ahead[k], L->ahead_r[k], L->slow[k], L->ew[k],
            L->sw[k], L->predict[k] != 0, L->literal[k] != 0, stopped);
        L->fx[k] = f.x;
        L->fy[k] = f.y;
    }
}

// Each leader's state once, in its record where its followers read it (a random read of one small
// line per follower instead of the leader's slot and six columns); then the followers in blocks.
static void leader_team(void* arg, int t, int nt) {
    crowd_world* w = arg;
    const int n = w->count, blocks = (n + BLOCK - 1) / BLOCK;
    const cs_columns* c = &w->cur;
    int lo, hi;
    cs_team_range(n, 1, t, nt, &lo, &hi);
    for (int s = lo; s < hi; ++s) {
        if (!(c->flags[s] & CS_FLAG_LEADER)) continue;
        const crowd_vec2 v = {c->vx[s], c->vy[s]};
        const crowd_vec2 h = cs_steer_heading(v, (crowd_vec2){c->hx[s], c->hy[s]});
        cs_leader_of(w, c->id[s])->lead = (cs_lead_state){c->px[s], c->py[s], v.x, v.y, h.x, h.y};
    }
    cs_team_barrier(nt);
    cs_team_range(blocks, 1, t, nt, &lo, &hi);
    for (int b = lo; b < hi; ++b) {
        lanes L;
        const int e = (b + 1) * BLOCK < n ? (b + 1) * BLOCK : n;
        const int count = gather(w, b * BLOCK, e, &L);
        evaluate(&L, count);
        for (int k = 0; k < count; ++k) {
            w->force_x[L.slot[k]] += L.weight[k] * L.fx[k];
            w->force_y[L.slot[k]] += L.weight[k] * L.fy[k];
        }
    }
}

void cs_pass_leader(crowd_world* w) {
    if (cs_follow_world_of(w)->dirty_count > 0) assign_dirty(w);
    if (w->pools[CS_REC_FOLLOWER].live == 0) return;
    cs_team_run(w->threads, leader_team, w);
}
