#ifndef EVTOOL_CLIBPQ_SHIM_H
#define EVTOOL_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/// PG_DIAG_SQLSTATE is a char literal macro ('C'); exposed as a constant Swift can import.
static inline int evtool_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int evtool_pg_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int evtool_pg_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int evtool_pg_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }
#endif
