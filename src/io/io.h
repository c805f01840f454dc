/* io.h - the io layer's public header: result files read and written (jansson). */
#ifndef PMB_IO_H
#define PMB_IO_H

#include "results_io.h"
#include "results_load.h"
#include "results_host.h"

#endif
