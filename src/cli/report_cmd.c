/* report_cmd.c - `pmubench report RUN.json`: a saved run analysed again and drawn as the live run drew it. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analyse.h"
#include "base.h"
#include "io.h"
#include "report.h"
#include "report_cmd.h"
#include "run_cli.h"

/* The live run's report options, main's own entries (into struct
 * pmb_options), and nothing that measures. */
static const char *const shared[] = { "--format", "--out", "--columns", "--wide", "--verbose", "--plot" };
#define NSHARED (sizeof(shared) / sizeof(shared[0]))
#define NOPTIONS (NSHARED + 1)

static void options_table(struct pmb_optdef *t)
{
	for (size_t i = 0; i < NSHARED; i++)
		t[i] = *pmb__main_option(shared[i]);
	t[NSHARED] = (struct pmb_optdef){ .name = "--help", .short_name = 'h', .kind = PMB_OPT_STOP,
					  .given = PMB_OPT_AT(struct pmb_options, help),
					  .help = "print this help and exit" };
}

static void usage(FILE *f)
{
	fputs("usage: pmubench report [OPTION]... RUN.json\n"
	      "Analyse a run saved with --format=json again and print its report, as\n"
	      "the run that measured it printed it for the same width and options.\n\n", f);
}

/* Returns 0 to go on, 1 after --help, 2 with the error said. */
static int parse(int argc, char **argv, struct pmb_options *o, const char **file)
{
	struct pmb_optdef table[NOPTIONS];
	char err[512];
	size_t len;
	int first, rc;

	options_table(table);
	rc = pmb__options_parse(table, NOPTIONS, argc, argv, o, &first, err, sizeof(err));
	if (rc < 0)
		return pmb__out_error("report: %s", err);
	if (rc > 0) {
		usage(stdout);
		pmb__options_help(table, NOPTIONS, stdout);
		return 1;
	}
	if (argc - first != 1)
		return pmb__out_error("report: %s (usage: pmubench report [OPTION]... RUN.json)",
				      argc - first ? "more than one file" : "expected the results file of a run");
	*file = argv[first];
	len = o->plot ? strlen(o->plot) : 0;
	if (o->plot && (len < 5 || strcmp(o->plot + len - 4, ".svg")))
		return pmb__out_error("report: --plot=%s: expected a file name ending in .svg (the plot is SVG)",
				      o->plot);
	return 0;
}

/* The outputs may be written: not over the run read, nor over each other. */
static int check_outputs(const struct pmb_options *o, const char *file)
{
	struct pmb_out_input in[3] = { { "the run reported", file }, { NULL, NULL }, { NULL, NULL } };

	if (o->out && pmb__out_check("--out", o->out, in))
		return 2;
	in[1] = (struct pmb_out_input){ "--out", o->out };
	if (o->plot && pmb__out_check("--plot", o->plot, in))
		return 2;
	return 0;
}

/* The view the live run drew with: the report's options and this
 * terminal's width ($COLUMNS), the run's --counters as saved. */
static int set_view(const struct pmb_options *o, struct pmb_context *c)
{
	char err[1600];

	if (o->columns && pmb__columns_check(o->columns, &c->m.plan, err, sizeof(err)))
		return pmb__out_error("%s", err);
	c->view = pmb__console_view(o->out, o->columns, o->wide, o->verbose);
	return 0;
}

int pmb__report_main(int argc, char **argv)
{
	struct pmb_options o = { .format = PMB_FORMAT_CONSOLE };
	struct pmb_loaded_run run;
	const char *file = NULL;
	char err[PATH_MAX + 256];
	int printed = 0, rc;

	rc = parse(argc, argv, &o, &file);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (check_outputs(&o, file))
		return 2;
	rc = pmb__results_load_run(file, &run, err, sizeof(err));
	if (rc)
		return pmb__out_error("report: %s: %s", file, err);
	rc = set_view(&o, run.ctx);
	if (!rc) {
		pmb__analyze(run.ctx, run.res, run.n, run.reps);
		pmb__out_context_warnings(run.ctx, &printed);
		/* An older pmubench's listing lacks only which instructions
		 * are padding: drawn, with what differs said once. */
		if (run.disasm_no_nop)
			fprintf(stderr, "pmubench: note: %s: the --disasm listing%s of %zu benchmark%s %s saved by an "
				"older pmubench, without which instructions are padding (instructions[].nop): every "
				"nop is listed, where the live run listed only those that ran\n", file,
				run.disasm_no_nop == 1 ? "" : "s", run.disasm_no_nop, run.disasm_no_nop == 1 ? "" : "s",
				run.disasm_no_nop == 1 ? "was" : "were");
		rc = pmb__out_report((enum pmb_format)o.format, o.out, o.plot, run.ctx, run.res, run.n);
		if (!rc)
			rc = pmb__out_failed_checks(run.res, run.n);
	}
	pmb__loaded_run_free(&run);
	return rc;
}
