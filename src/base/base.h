/* base.h - the base layer's public header: errors, text, formatting, hashing, the clock, signals, option tables, pure statistics. */
#ifndef PMB_BASE_H
#define PMB_BASE_H

#include "text.h"
#include "clock.h"
#include "format.h"
#include "hash.h"
#include "rng.h"
#include "interrupt.h"
#include "stats.h"
#include "options.h"
#include "stop.h"
#include "near.h"

#endif
