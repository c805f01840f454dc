/* version.c - pmb_version: the version the library was built as. */
#include "pmubench.h"

PMB_API int pmb_version(const char **string)
{
	if (string)
		*string = PMB_VERSION_STRING;
	return PMB_VERSION_NUMBER;
}
