/* plot_svg.c - SVG plots of sweeps and branch studies (being written). */
#include <errno.h>

#include "plot.h"

int pmb_plot_svg(FILE *f, const struct pmb_context *c, const struct pmb_result *r, size_t n)
{
	(void)f;
	(void)c;
	(void)r;
	(void)n;
	return -ENODATA;
}
