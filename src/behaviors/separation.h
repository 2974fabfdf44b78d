// Which form of separation an agent uses (CS_FLAG_SEP_PUSH), from the forms of its behaviors.
#ifndef CS_SEPARATION_H
#define CS_SEPARATION_H

#include "core/internal.h"

// Sets CS_FLAG_SEP_PUSH of agent idx from its behaviors (their sep_form hooks): while it follows
// a leader, its follow form decides (set in CROWD_FOLLOW_KEEP_UP); otherwise it is set while the
// agent queues in CROWD_QUEUE_FILE, follows a path (CS_FLAG_PATH) in CROWD_PATH_FLOW, leads
// followers (CS_FLAG_LEADER) or has a CROWD_GOAL_PEDESTRIAN goal and does not queue. Each of these
// steers toward a desired velocity, which damps the agent; the spec's separation adds a drag of
// the agent's velocity per neighbor that, in a group or a flow, holds agents well below their
// speed. Sets CS_FLAG_HEADWAY too, while a behavior's headway hook says so (that pedestrian
// goal), and zeroes the agent's hot columns gated on a flag it loses (the goal's aim: a column
// gated on CS_FLAG_HEADWAY holds 0 for every agent without it, core/behavior.h). Called whenever
// one of those behaviors or the goal changes.
void cs_sep_push_refresh(crowd_world* w, uint32_t idx);
// Table hook (after a snapshot load): every agent's CS_FLAG_SEP_PUSH and CS_FLAG_HEADWAY are the
// ones cs_sep_push_refresh gives it.
bool cs_sep_loaded(crowd_world* w);

#endif
