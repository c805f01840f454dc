/* load.h - --load: benchmarks from shared objects. */
#ifndef PMB_LOAD_H
#define PMB_LOAD_H

#include <stddef.h>

/* dlopen the shared object at path, whose PMB_BENCHMARK constructors
 * register its benchmarks; from the first one loaded on, the run is the
 * loaded benchmarks only.  Returns 0, or -EINVAL (missing, not a shared
 * object, refused by the loader), PMB_EABI (built against another major
 * version or an unreadable definition; none of its benchmarks is kept),
 * -ENOENT (it registers nothing), with a one-line message in err. */
int pmb__load(const char *path, char *err, size_t size);

#endif
