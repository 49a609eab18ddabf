// PostgreSQL's client library, loaded with dlopen on first use (only `passbox server --database` needs it).
// The handful of libpq calls the server's storage makes, over opaque handles; values are always bound
// parameters (PQexecParams), results always in binary.
#ifndef CPQSUPPORT_H
#define CPQSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// 1 when libpq could be loaded.
int CPQ_available(void);

/// Opens a connection from a `postgresql://` URI or `key=value` string. NULL on failure, with libpq's
/// reason in `error` (`errorLength` bytes; it names hosts and users, never a password).
void *CPQ_connect(const char *conninfo, char *error, size_t errorLength);
void CPQ_finish(void *connection);
/// 1 while the connection is usable.
int CPQ_isOK(void *connection);
/// libpq's message for the connection's last failure (valid until the next call on it).
const char *CPQ_connectionMessage(void *connection);

/// Runs one statement with `count` parameters (`types` are OIDs or 0, `formats` 0 text or 1 binary, a NULL
/// value is SQL NULL); the result in binary. Never NULL unless memory runs out.
void *CPQ_execute(void *connection, const char *sql, int count, const unsigned int *types, const char *const *values,
                  const int *lengths, const int *formats);
/// Runs SQL that takes no values, several statements at once (schema steps).
void *CPQ_executeScript(void *connection, const char *sql);
/// 0 a command ran, 1 it returned rows, -1 it failed.
int CPQ_outcome(void *result);
/// The failure's SQLSTATE ("23505") and primary message, or "" when there is none.
const char *CPQ_sqlState(void *result);
const char *CPQ_message(void *result);
int CPQ_rowCount(void *result);
int CPQ_columnCount(void *result);
const char *CPQ_columnName(void *result, int column);
unsigned int CPQ_columnType(void *result, int column);
int CPQ_isNull(void *result, int row, int column);
const uint8_t *CPQ_value(void *result, int row, int column);
int CPQ_length(void *result, int row, int column);
/// The number of rows a command changed ("" for commands that change none).
const char *CPQ_changedRows(void *result);
void CPQ_clear(void *result);

/// Waits up to `timeoutMilliseconds` for a notification of a channel this connection LISTENs on: 1 with its
/// payload copied, 0 when none came, -1 when the connection failed.
int CPQ_waitNotification(void *connection, int timeoutMilliseconds, char *payload, size_t payloadLength);

#endif
