// Which form of separation an agent uses, from what its behaviors say (their table entries'
// sep_form hooks): the separation behavior reads no other behavior's records.
#include "behaviors/separation.h"

void cs_sep_push_refresh(crowd_world* w, uint32_t idx) {
    const int32_t s = w->slot_of[idx];
    const uint32_t flags = w->cur.flags[s];
    bool push = false, decided = false;
    for (int b = 0; b < CS_BEH_COUNT && !decided; ++b) {
        if (!cs_behaviors[b].sep_form) continue;
        const cs_sep_form f = cs_behaviors[b].sep_form(w, idx, flags);
        decided = f == CS_SEP_DECIDE_DRAG || f == CS_SEP_DECIDE_PUSH;
        push = decided ? f == CS_SEP_DECIDE_PUSH : push || f == CS_SEP_PUSH;
    }
    bool headway = false;
    for (int b = 0; b < CS_BEH_COUNT; ++b)
        headway = headway || (cs_behaviors[b].headway && cs_behaviors[b].headway(w, idx, flags));
    const uint32_t f = push ? flags | CS_FLAG_SEP_PUSH : flags & ~(uint32_t)CS_FLAG_SEP_PUSH;
    w->cur.flags[s] = headway ? f | CS_FLAG_HEADWAY : f & ~(uint32_t)CS_FLAG_HEADWAY;
    // A column gated on a flag the agent has just lost goes to 0 for it (core/behavior.h).
    const uint32_t lost = flags & ~w->cur.flags[s];
    for (int b = 0; b < CS_BEH_COUNT && lost; ++b)
        for (int k = 0; k < cs_behaviors[b].hot_count; ++k) {
            const cs_hot_def* h = &cs_behaviors[b].hot[k];
            uint32_t* col = w->cur.hot[h->col];
            if ((h->gate & lost) && col) col[s] = 0;
        }
}

bool cs_sep_loaded(crowd_world* w) {
    for (int s = 0; s < w->count; ++s) {
        const uint32_t loaded = w->cur.flags[s];
        cs_sep_push_refresh(w, w->cur.id[s]);
        if (w->cur.flags[s] != loaded) return false;
    }
    return true;
}
