/*
 * qirkat: the command-line client. Everything lives in libqkclient (cli.h)
 * so tests drive the same code in-process; main() only sets up the
 * messages' language (i18n.h) and binds it to the standard streams.
 */
#include <stdio.h>

#include "cli.h"
#include "i18n.h"

int main(int argc, char **argv)
{
    i18n_init(argc > 0 ? argv[0] : NULL);
    return cli_run(argc, argv, stdin, stdout, stderr);
}
