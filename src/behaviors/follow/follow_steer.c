// The follow-leader formula as a public pure function, and the def <-> record conversion.
#include "behaviors/follow/follow_internal.h"

crowd_follow_def crowd_follow_def_default(void) {
    return (crowd_follow_def){
        .behind_dist = 2.0f,
        .ahead_dist = 1.5f,
        .ahead_radius = 1.5f,
        .slow_radius = 6.0f,
        .evade_weight = 2.0f,
        .separation_weight = 0.6f,
        .weight = 1.0f,
        .predict = false,
        .target = CROWD_FOLLOW_BEHIND,
        .form = CROWD_FOLLOW_KEEP_UP,
    };
}

crowd_follow_def crowd_follow_def_literal(void) {
    crowd_follow_def d = crowd_follow_def_default();
    d.slow_radius = 1.0f;
    d.form = CROWD_FOLLOW_LITERAL;
    return d;
}

void cs_follow_params(cs_follower* rec, const crowd_follow_def* def) {
    rec->behind_dist = def->behind_dist;
    rec->ahead_dist = def->ahead_dist;
    rec->ahead_radius = def->ahead_radius;
    rec->slow_radius = def->slow_radius;
    rec->evade_weight = def->evade_weight;
    rec->separation_weight = def->separation_weight;
    rec->weight = def->weight;
    rec->predict = def->predict ? 1 : 0;
    rec->literal = def->form == CROWD_FOLLOW_LITERAL ? 1 : 0;
    rec->use_slot = def->target == CROWD_FOLLOW_SLOT ? 1 : 0;
}

crowd_follow_def cs_follow_def_of(const cs_follower* rec) {
    return (crowd_follow_def){
        .behind_dist = rec->behind_dist,
        .ahead_dist = rec->ahead_dist,
        .ahead_radius = rec->ahead_radius,
        .slow_radius = rec->slow_radius,
        .evade_weight = rec->evade_weight,
        .separation_weight = rec->separation_weight,
        .weight = rec->weight,
        .predict = rec->predict != 0,
        .target = rec->use_slot ? CROWD_FOLLOW_SLOT : CROWD_FOLLOW_BEHIND,
        .form = rec->literal ? CROWD_FOLLOW_LITERAL : CROWD_FOLLOW_KEEP_UP,
    };
}

crowd_vec2 crowd_steer_follow_leader(const crowd_follow_input* in, const crowd_follow_def* def) {
    if (!in || !def) return (crowd_vec2){0.0f, 0.0f};
    cs_follower p = {0};
    cs_follow_params(&p, def);
    return cs_follow_force(&p, in->position, in->velocity, in->max_speed, in->max_force,
                           in->leader_position, in->leader_velocity, in->leader_heading,
                           in->separation, in->has_slot, in->slot);
}
