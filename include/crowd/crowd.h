// crowdstep: a deterministic, multithreaded crowd-steering engine. The one header to include.
#ifndef CROWD_CROWD_H
#define CROWD_CROWD_H

#include "crowd/base.h"
#include "crowd/leader.h"
#include "crowd/nav.h"
#include "crowd/obstacle.h"
#include "crowd/path.h"
#include "crowd/queue.h"
#include "crowd/snapshot.h"
#include "crowd/speed.h"
#include "crowd/steer.h"
#include "crowd/trig.h"
#include "crowd/world.h"

#endif
