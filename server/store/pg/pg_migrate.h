/* pg_migrate: placeholder until the schema branch lands (issue 22). */
#ifndef QK_STORE_PG_MIGRATE_H
#define QK_STORE_PG_MIGRATE_H
#include <libpq-fe.h>
int pg_migrate(PGconn *c, int *version_out);
#endif
