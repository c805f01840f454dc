/* model.h - the model layer's public header: the data the stages hand down (instances, samples, figures, the run's context). */
#ifndef PMB_MODEL_H
#define PMB_MODEL_H

#include "result.h"
#include "results_names.h"
#include "merged.h"
#include "disasm_listing.h"

#endif
