// Which form of separation an agent uses, from the forms of its behaviors.
#include "behaviors/separation.h"

#include "behaviors/follow/follow_internal.h"
#include "behaviors/path/path_internal.h"
#include "behaviors/queue/queue_internal.h"

void cs_sep_push_refresh(crowd_world* w, uint32_t idx) {
    const int32_t s = w->slot_of[idx];
    const uint32_t flags = w->cur.flags[s];
    const cs_follower* f = cs_follower_of(w, idx);
    const cs_queue_rec* q = cs_queue_of(w, idx);
    const cs_path_rec* p = flags & CS_FLAG_PATH ? cs_path_of(w, idx) : NULL;
    // A follower's form decides, so that its group separation is its form's (crowd/leader.h);
    // a leader separates without drag too: its followers close around it, and the spec's drag
    // would hold it back by its own group.
    const bool push = f ? !f->literal
                        : (q && q->def.form == CROWD_QUEUE_FILE) ||
                              (p && p->def.form == CROWD_PATH_FLOW) || (flags & CS_FLAG_LEADER);
    w->cur.flags[s] = push ? flags | CS_FLAG_SEP_PUSH : flags & ~(uint32_t)CS_FLAG_SEP_PUSH;
}
