/* errors.c - pmb_strerror: one message per errno and per PMB_E* code. */
#include <string.h>

#include "pmubench.h"

PMB_API const char *pmb_strerror(int err)
{
	switch (err) {
#define PMB__ERRNO_CASE(name, off, msg)                                        \
	case PMB_E##name:                                                      \
		return msg;
		PMB_ERRNO_MAP(PMB__ERRNO_CASE)
#undef PMB__ERRNO_CASE
	default:
		break;
	}
	if (err < 0 && err > PMB_EBASE)
		return strerror(-err);
	return "unknown error";
}
