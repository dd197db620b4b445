/*
 * qirkat: the command-line client. Everything lives in libqkclient (cli.h)
 * so tests drive the same code in-process; main() only binds it to the
 * standard streams.
 */
#include <stdio.h>

#include "cli.h"

int main(int argc, char **argv)
{
    return cli_run(argc, argv, stdin, stdout, stderr);
}
