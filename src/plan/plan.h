/* plan.h - the plan layer's public header: benchmark registry, --load, topology (hwloc), events (libpfm4). */
#ifndef PMB_PLAN_H
#define PMB_PLAN_H

#include "registry.h"
#include "load.h"
#include "topology.h"
#include "tlb.h"
#include "events.h"
#include "selfcheck.h"

#endif
