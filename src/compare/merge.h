/* merge.h - `pmubench merge`: many hosts' result files in one report, and its plot. */
#ifndef PMB_MERGE_H
#define PMB_MERGE_H

#include "model.h"

/* `pmubench merge [OPTION]... RUN.json...` (argv[0] is "merge"): prints
 * the merged report (report_merge.c's formats).  Returns the exit status:
 * 0, 1 where a file given is missing (named with its reason, the others
 * reported), 2 on bad usage or where no file can be read. */
int pmb__merge_main(int argc, char **argv);

/* The SVG at path (written atomically): each sweep family's figures per
 * host group, as pmb__plot_merge_svg() draws them.  With no sweep in m,
 * that is said on stderr and nothing written.  Returns 0 or 1 (said). */
int pmb__merge_plot(const char *path, const struct pmb_merged *m);

/* --fleet=DIR: the tasks DIR/fleet.tasks lists (written by `pmubench
 * fleet`: "TASK NODE" lines) matched to the files read by the file each
 * task's DIR/task-I.started names; a task whose file is missing gets its
 * node, task and Slurm's state (DIR/task-I.slurm, scontrol's record that
 * the merge job saved) in its entry, a task that left no file a new
 * entry saying why.  Returns 0, -ENOMEM or -EINVAL (a folder not the
 * fleet's), the reason in err. */
int pmb__merge_fleet(struct pmb_merged *m, const char *dir, char *err, size_t errlen);

#endif
