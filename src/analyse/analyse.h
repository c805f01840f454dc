/* analyse.h - the analyse layer's public header: samples to figures, pure. */
#ifndef PMB_ANALYSE_H
#define PMB_ANALYSE_H

#include "analysis.h"
#include "analysis_merge.h"
#include "analysis_verdict.h"

#endif
