/* measure.h - the measure layer's public header: the measured loop, its samples and the environment probe. */
#ifndef PMB_MEASURE_H
#define PMB_MEASURE_H

#include "runner.h"
#include "probe.h"

#endif
