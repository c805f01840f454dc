/* fleet.h - `pmubench fleet`: the sbatch files of one run on many Slurm nodes and of the merge after it. */
#ifndef PMB_FLEET_H
#define PMB_FLEET_H

/* `pmubench fleet [OPTION]... [-- RUN-OPTION...]` (argv[0] is "fleet"):
 * writes DIR/fleet.sbatch (a job array of --nodes tasks, one exclusive
 * node each, every task running this pmubench with the run options into
 * DIR/HOST.json) and DIR/merge.sbatch (`pmubench merge` of those files),
 * then with --submit submits both through sbatch, the merge with
 * --dependency=afterany on the array; else prints the two commands.
 * Returns the exit status: 0, 1 where sbatch failed (its words said), 2
 * on bad usage (one line naming the bad value), nothing written. */
int pmb__fleet_main(int argc, char **argv);

#endif
