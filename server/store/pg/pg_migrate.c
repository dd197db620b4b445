/* pg_migrate: placeholder until the schema branch lands (issue 22). */
#include "store/pg/pg_migrate.h"
int pg_migrate(PGconn *c, int *version_out)
{
    (void)c;
    *version_out = 0;
    return -1;
}
