/* report_cmd.h - `pmubench report RUN.json`: a saved run analysed again and reported. */
#ifndef PMB_REPORT_CMD_H
#define PMB_REPORT_CMD_H

/* argv[0] is "report".  Reads the results file (pmb__results_load_run),
 * sets the console view from the options and $COLUMNS, analyses it with
 * pmb__analyze() and writes it with pmb__out_report(), as the live run
 * does.  Returns the exit status: 0; 1 where a benchmark had failed its
 * check (said as the live run says it) or a write failed; 2 for a bad
 * option or a file that cannot be reported (one line said). */
int pmb__report_main(int argc, char **argv);

#endif
