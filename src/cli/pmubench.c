/* pmubench.c - the pmubench command: the built-in kernels and the command line. */
#include "pmubench.h"

int main(int argc, char **argv)
{
	return pmb_main(argc, argv);
}
