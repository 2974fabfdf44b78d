// The follow-leader formula: the pure function against the spec's followLeader computed here
// independently, the pass's inlined primitives against the public ones, and the engine's leader
// pass against the pure function, bit for bit.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "behaviors/follow/follow_internal.h"
#include "crowd/crowd.h"
#include "groups.h"

// ---- the spec's followLeader, written out from section 5 with its own helpers (double) ---------

typedef struct dv {
    double x, y;
} dv;

static dv d_norm(dv v) {
    double l = sqrt(v.x * v.x + v.y * v.y);
    return l > 0 ? (dv){v.x / l, v.y / l} : (dv){0, 0};
}

static dv spec_follow(dv pos, dv vel, double ms, double mf, dv lp, dv lv, dv last_h,
                      const dv* others, int n_others, double sep_r, const crowd_follow_def* p,
                      bool has_slot, dv slot) {
    // heading = normalize(leader velocity), or the last valid heading while |v|^2 <= 0.01
    dv h = (lv.x * lv.x + lv.y * lv.y > 0.01) ? d_norm(lv) : last_h;
    dv target = has_slot
                    ? (dv){lp.x + h.x * slot.x - h.y * slot.y, lp.y + h.y * slot.x + h.x * slot.y}
                    : (dv){lp.x - h.x * p->behind_dist, lp.y - h.y * p->behind_dist};
    dv ahead = {lp.x + h.x * p->ahead_dist, lp.y + h.y * p->ahead_dist};
    dv f = {0, 0};
    if (hypot(pos.x - ahead.x, pos.y - ahead.y) < p->ahead_radius) {
        // evade(follower, virtualThreatAt(aheadPoint, leader.velocity)): flee the threat's
        // predicted position T = distance / maxSpeed ahead.
        double t = hypot(ahead.x - pos.x, ahead.y - pos.y) / ms;
        dv threat = {ahead.x + lv.x * t, ahead.y + lv.y * t};
        dv away = d_norm((dv){pos.x - threat.x, pos.y - threat.y});
        f.x += (away.x * ms - vel.x) * p->evade_weight;
        f.y += (away.y * ms - vel.y) * p->evade_weight;
    }
    if (p->predict && p->form == CROWD_FOLLOW_LITERAL) { // KEEP_UP: no prediction
        double t = hypot(target.x - pos.x, target.y - pos.y) / ms;
        target = (dv){target.x + lv.x * t, target.y + lv.y * t};
    }
    dv to = {target.x - pos.x, target.y - pos.y};
    double dist = hypot(to.x, to.y);
    double speed = ms * fmin(1.0, dist / p->slow_radius);
    dv dn = d_norm(to);
    if (p->form == CROWD_FOLLOW_LITERAL) {
        f.x += dn.x * speed - vel.x;
        f.y += dn.y * speed - vel.y;
    } else {
        // KEEP_UP (crowd/leader.h): the leader's velocity plus a speed half of max_force can
        // brake on the distance, limited to max_speed, reached in CROWD_FOLLOW_RESPONSE_TIME.
        speed = fmin(speed, sqrt(dist * mf));
        dv desired = {dn.x * speed + lv.x, dn.y * speed + lv.y};
        const double dl = hypot(desired.x, desired.y);
        if (dl > ms) desired = (dv){desired.x * ms / dl, desired.y * ms / dl};
        f.x += (desired.x - vel.x) / CROWD_FOLLOW_RESPONSE_TIME;
        f.y += (desired.y - vel.y) / CROWD_FOLLOW_RESPONSE_TIME;
    }
    // The separation: the spec's subtracts the velocity per neighbor, KEEP_UP's does not.
    const double drag = p->form == CROWD_FOLLOW_LITERAL ? 1.0 : 0.0;
    for (int k = 0; k < n_others; ++k) {
        dv off = {pos.x - others[k].x, pos.y - others[k].y};
        double d = hypot(off.x, off.y);
        if (d > 0.01 && d < sep_r) {
            double push = ms * (1.0 - d / sep_r);
            f.x += (off.x / d * push - drag * vel.x) * p->separation_weight;
            f.y += (off.y / d * push - drag * vel.y) * p->separation_weight;
        }
    }
    double len = hypot(f.x, f.y);
    if (len > mf) f = (dv){f.x * mf / len, f.y * mf / len};
    return f;
}

static float rf(scene_rng* r, float lo, float hi) {
    return scene_rng_float(r, lo, hi);
}

static void pure_function_equals_formula(crowd_follow_form form) {
    scene_rng rng = {42};
    int in_zone = 0, predicted = 0, slotted = 0;
    for (int it = 0; it < 20000; ++it) {
        crowd_follow_def def =
            form == CROWD_FOLLOW_LITERAL ? crowd_follow_def_literal() : crowd_follow_def_default();
        if (it % 3 == 1) {
            def.behind_dist = rf(&rng, 0.0f, 4.0f);
            def.ahead_dist = rf(&rng, 0.0f, 3.0f);
            def.ahead_radius = rf(&rng, 0.0f, 3.0f);
            def.slow_radius = rf(&rng, 0.2f, 3.0f);
            def.evade_weight = rf(&rng, 0.0f, 3.0f);
            def.separation_weight = rf(&rng, 0.0f, 2.0f);
        }
        def.predict = it % 4 == 3;
        const float ms = rf(&rng, 0.5f, 3.0f), mf = rf(&rng, 0.5f, 6.0f);
        const crowd_vec2 lp = {rf(&rng, -50, 50), rf(&rng, -50, 50)};
        // A third of the leaders stand still (last valid heading), the rest move.
        const float lspeed = it % 3 == 0 ? rf(&rng, 0.0f, 0.09f) : rf(&rng, 0.12f, 2.0f);
        const float la = rf(&rng, 0, 6.2831853f), ha = rf(&rng, 0, 6.2831853f);
        const crowd_vec2 lv = {lspeed * cosf(la), lspeed * sinf(la)};
        const crowd_vec2 lh = {cosf(ha), sinf(ha)};
        // Half the followers near the leader's ahead point, the rest anywhere around it.
        const float r = it % 2 ? rf(&rng, 0.0f, 3.0f) : rf(&rng, 0.0f, 8.0f);
        const float pa = rf(&rng, 0, 6.2831853f);
        const float cx = it % 2 ? lp.x + lh.x * def.ahead_dist : lp.x;
        const float cy = it % 2 ? lp.y + lh.y * def.ahead_dist : lp.y;
        const crowd_vec2 pos = {cx + r * cosf(pa), cy + r * sinf(pa)};
        const crowd_vec2 vel = {rf(&rng, -1.5f, 1.5f), rf(&rng, -1.5f, 1.5f)};
        crowd_vec2 others[8];
        dv dothers[8];
        const int n_others = (int)(scene_rng_next(&rng) % 9);
        for (int k = 0; k < n_others; ++k) {
            others[k] = (crowd_vec2){pos.x + rf(&rng, -1.5f, 1.5f), pos.y + rf(&rng, -1.5f, 1.5f)};
            dothers[k] = (dv){others[k].x, others[k].y};
        }
        const bool has_slot = it % 5 >= 3;
        const crowd_vec2 slot = {rf(&rng, -6, 2), rf(&rng, -4, 4)};

        // Skip inputs within rounding distance of a branch of the formula.
        const double sp2 = (double)lv.x * lv.x + (double)lv.y * lv.y;
        if (fabs(sp2 - 0.01) < 1e-5) continue;
        dv hh = sp2 > 0.01 ? d_norm((dv){lv.x, lv.y}) : (dv){lh.x, lh.y};
        const double ad =
            hypot(pos.x - (lp.x + hh.x * def.ahead_dist), pos.y - (lp.y + hh.y * def.ahead_dist));
        if (fabs(ad - def.ahead_radius) < 1e-3) continue;
        // ... or where a direction is ill-conditioned (the follower on the evaded threat point).
        const double tt = ad / ms;
        const double ax = lp.x + hh.x * def.ahead_dist + lv.x * tt - pos.x;
        const double ay = lp.y + hh.y * def.ahead_dist + lv.y * tt - pos.y;
        if (ad < def.ahead_radius && hypot(ax, ay) < 0.05) continue;
        bool near_sep_edge = false;
        for (int k = 0; k < n_others; ++k) {
            const double d = hypot(pos.x - others[k].x, pos.y - others[k].y);
            near_sep_edge |= fabs(d - 1.2) < 1e-4 || d < 0.05;
        }
        if (near_sep_edge) continue;
        in_zone += ad < def.ahead_radius;
        predicted += def.predict;
        slotted += has_slot;

        const crowd_follow_input in = {
            .position = pos,
            .velocity = vel,
            .max_speed = ms,
            .max_force = mf,
            .leader_position = lp,
            .leader_velocity = lv,
            .leader_heading = lh,
            .separation = form == CROWD_FOLLOW_LITERAL
                              ? crowd_steer_separation(pos, vel, ms, others, n_others, 1.2f, 1.0f)
                              : crowd_steer_separation_push(pos, ms, others, n_others, 1.2f, 1.0f),
            .has_slot = has_slot,
            .slot = slot,
        };
        const crowd_vec2 got = crowd_steer_follow_leader(&in, &def);
        const dv want = spec_follow((dv){pos.x, pos.y}, (dv){vel.x, vel.y}, ms, mf,
                                    (dv){lp.x, lp.y}, (dv){lv.x, lv.y}, (dv){lh.x, lh.y}, dothers,
                                    n_others, 1.2, &def, has_slot, (dv){slot.x, slot.y});
        // float32 against double: a few ulps of the larger terms (positions up to 60 m).
        const double tol = 2e-4 * (1.0 + hypot(want.x, want.y));
        cr_assert(fabs(got.x - want.x) <= tol && fabs(got.y - want.y) <= tol,
                  "it %d: got (%.7g, %.7g), spec (%.7g, %.7g)", it, (double)got.x, (double)got.y,
                  want.x, want.y);
    }
    cr_assert_gt(in_zone, 1000, "the ahead-zone branch was exercised (%d)", in_zone);
    cr_assert_gt(predicted, 1000);
    cr_assert_gt(slotted, 1000);
}

Test(leader_formula, pure_function_equals_spec_formula) {
    pure_function_equals_formula(CROWD_FOLLOW_LITERAL);
}
Test(leader_formula, pure_function_equals_keep_up_formula) {
    pure_function_equals_formula(CROWD_FOLLOW_KEEP_UP);
}

Test(leader_formula, literal_def_has_the_spec_constants_and_default_differs_as_documented) {
    const crowd_follow_def d = crowd_follow_def_literal();
    cr_assert_eq(d.behind_dist, 2.0f);
    cr_assert_eq(d.ahead_dist, 1.5f);
    cr_assert_eq(d.ahead_radius, 1.5f);
    cr_assert_eq(d.slow_radius, 1.0f);
    cr_assert_eq(d.evade_weight, 2.0f);
    cr_assert_eq(d.separation_weight, 0.6f);
    cr_assert_eq(d.weight, 1.0f);
    cr_assert(!d.predict);
    cr_assert_eq(d.target, CROWD_FOLLOW_BEHIND);
    cr_assert_eq(d.form, CROWD_FOLLOW_LITERAL);
    cr_assert_eq(crowd_agent_def_default().separation_radius, 1.2f, "the spec's sepRadius");
    crowd_follow_def k = crowd_follow_def_default();
    cr_assert_eq(k.form, CROWD_FOLLOW_KEEP_UP);
    cr_assert_eq(k.slow_radius, 6.0f);
    cr_assert(k.behind_dist == d.behind_dist && k.ahead_dist == d.ahead_dist &&
                  k.ahead_radius == d.ahead_radius && k.evade_weight == d.evade_weight &&
                  k.separation_weight == d.separation_weight && k.weight == d.weight &&
                  k.predict == d.predict && k.target == d.target,
              "nothing else differs");
}

// ---- the engine's pass against the pure function ------------------------------------------------

static void check_pass_against_pure(int threads) {
    scene_groups_def def = scene_groups_def_default();
    def.agents = 3000;
    def.groups = 60;
    def.density = 0.3f;
    def.chain_every = 4;
    def.predict = true;
    def.threads = threads;
    crowd_world* w;
    crowd_agent_id leaders[60];
    cr_assert_eq(scene_groups_create(&def, &w, leaders), CROWD_OK);
    // Mixed parameters: every third group plain followers with random defs and no prediction.
    scene_rng rng = {99};
    crowd_agent_id* ids = malloc(sizeof *ids * 3000);
    int count;
    cr_assert_eq(crowd_world_get_agents(w, ids, NULL, NULL, 3000, &count), CROWD_OK);
    for (int i = 0; i < count; i += 3) {
        crowd_follow_info info;
        cr_assert_eq(crowd_agent_get_follow(w, ids[i], &info), CROWD_OK);
        if (info.state != CROWD_FOLLOW_ACTIVE) continue;
        crowd_follow_def fd = info.def;
        fd.slow_radius = rf(&rng, 0.5f, 2.0f);
        fd.weight = rf(&rng, 0.2f, 1.5f);
        fd.predict = (i / 3) % 2 == 0;
        fd.evade_weight = rf(&rng, 1.0f, 3.0f);
        fd.form = (i / 3) % 5 < 2 ? CROWD_FOLLOW_LITERAL : CROWD_FOLLOW_KEEP_UP;
        cr_assert_eq(crowd_agent_follow(w, ids[i], info.leader, &fd), CROWD_OK);
    }
    // Some stopped followers: remove two leaders without fallback.
    cr_assert_eq(crowd_agent_remove(w, leaders[5]), CROWD_OK);
    cr_assert_eq(crowd_agent_remove(w, leaders[11]), CROWD_OK);
    for (int t = 0; t < 20; ++t) cr_assert_eq(crowd_world_step(w), CROWD_OK);

    cs_pass_sort(w);
    cs_pass_neighbor(w);
    const int n = w->count;
    float* fx0 = malloc(sizeof(float) * (size_t)n);
    float* fy0 = malloc(sizeof(float) * (size_t)n);
    memcpy(fx0, w->force_x, sizeof(float) * (size_t)n);
    memcpy(fy0, w->force_y, sizeof(float) * (size_t)n);
    cs_pass_leader(w);

    const cs_columns* c = &w->cur;
    int active = 0, stopped = 0;
    for (int s = 0; s < n; ++s) {
        const uint32_t idx = c->id[s];
        const crowd_agent_id id = {idx + 1, w->generation[idx], w->tag};
        crowd_follow_info info;
        cr_assert_eq(crowd_agent_get_follow(w, id, &info), CROWD_OK);
        float ex = fx0[s], ey = fy0[s];
        const crowd_vec2 pos = {c->px[s], c->py[s]}, vel = {c->vx[s], c->vy[s]};
        if (info.state == CROWD_FOLLOW_ACTIVE) {
            const int ls = w->slot_of[info.leader.index1 - 1];
            const crowd_follow_input in = {
                .position = pos,
                .velocity = vel,
                .max_speed = c->max_speed[s],
                .max_force = c->max_force[s],
                .leader_position = {c->px[ls], c->py[ls]},
                .leader_velocity = {c->vx[ls], c->vy[ls]},
                .leader_heading = {c->hx[ls], c->hy[ls]},
                .separation = {cs_nb_out(w, CS_NB_GROUP, 0)[s], cs_nb_out(w, CS_NB_GROUP, 1)[s]},
                .has_slot = info.slot >= 0,
                .slot = info.slot_offset,
            };
            const crowd_vec2 f = crowd_steer_follow_leader(&in, &info.def);
            ex += info.def.weight * f.x;
            ey += info.def.weight * f.y;
            ++active;
        } else if (info.state == CROWD_FOLLOW_STOPPED) {
            const crowd_vec2 a =
                info.def.form == CROWD_FOLLOW_LITERAL
                    ? crowd_steer_arrive(pos, vel, c->max_speed[s], info.target,
                                         info.def.slow_radius)
                    : cs_steer_arrive_to(pos, vel, c->max_speed[s], c->max_force[s], info.target,
                                         (crowd_vec2){0, 0}, info.def.slow_radius,
                                         CROWD_FOLLOW_RESPONSE_TIME);
            const crowd_vec2 f = crowd_steer_limit(a, c->max_force[s]);
            ex += info.def.weight * f.x;
            ey += info.def.weight * f.y;
            ++stopped;
        }
        cr_assert(memcmp(&ex, &w->force_x[s], 4) == 0 && memcmp(&ey, &w->force_y[s], 4) == 0,
                  "slot %d (state %d): engine (%.9g, %.9g), pure (%.9g, %.9g)", s, info.state,
                  (double)w->force_x[s], (double)w->force_y[s], (double)ex, (double)ey);
    }
    cr_assert_gt(active, 2000);
    cr_assert_gt(stopped, 40);
    free(fx0);
    free(fy0);
    free(ids);
    crowd_world_destroy(w);
}

Test(leader_formula, engine_pass_equals_pure_function_1_thread) {
    check_pass_against_pure(1);
}
Test(leader_formula, engine_pass_equals_pure_function_2_threads) {
    check_pass_against_pure(2);
}

// The neighbor pass's group separation is the separation of the follower's form over the same
// leader's followers.
Test(leader_formula, group_separation_is_over_the_same_leaders_followers) {
    scene_groups_def def = scene_groups_def_default();
    def.agents = 2000;
    def.groups = 100;
    def.density = 0.5f;
    def.threads = 1;
    crowd_world* w;
    cr_assert_eq(scene_groups_create(&def, &w, NULL), CROWD_OK);
    for (int t = 0; t < 10; ++t) crowd_world_step(w);
    cs_pass_sort(w);
    cs_pass_neighbor(w);
    const cs_columns* c = &w->cur;
    const int n = w->count;
    crowd_vec2* mates = malloc(sizeof *mates * (size_t)n);
    int checked = 0;
    for (int s = 0; s < n; ++s) {
        const uint32_t idx = c->id[s];
        const crowd_agent_id id = {idx + 1, w->generation[idx], w->tag};
        crowd_follow_info info;
        cr_assert_eq(crowd_agent_get_follow(w, id, &info), CROWD_OK);
        if (info.state != CROWD_FOLLOW_ACTIVE) continue;
        crowd_agent_id fl[64];
        int k = 0, m = 0;
        cr_assert_eq(crowd_leader_get_followers(w, info.leader, fl, 64, &k), CROWD_OK);
        for (int j = 0; j < k; ++j) {
            if (crowd_agent_id_equal(fl[j], id)) continue;
            crowd_agent_get_position(w, fl[j], &mates[m++]);
        }
        const crowd_vec2 pos = {c->px[s], c->py[s]}, vel = {c->vx[s], c->vy[s]};
        const crowd_vec2 want = info.def.form == CROWD_FOLLOW_LITERAL
                                    ? crowd_steer_separation(pos, vel, c->max_speed[s], mates, m,
                                                             c->sep_radius[s], 1.0f)
                                    : crowd_steer_separation_push(pos, c->max_speed[s], mates, m,
                                                                  c->sep_radius[s], 1.0f);
        const crowd_vec2 got = {cs_nb_out(w, CS_NB_GROUP, 0)[s], cs_nb_out(w, CS_NB_GROUP, 1)[s]};
        cr_assert_float_eq(got.x, want.x, 1e-4f * (1.0f + fabsf(want.x)));
        cr_assert_float_eq(got.y, want.y, 1e-4f * (1.0f + fabsf(want.y)));
        checked += m > 0;
    }
    cr_assert_gt(checked, 500);
    free(mates);
    crowd_world_destroy(w);
}
