// libpq loaded with dlopen once (see CPQSupport.h).
#include "CPQSupport.h"

#include <dlfcn.h>
#include <postgresql/libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct CPQ_API {
    PGconn *(*connectdb)(const char *);
    void (*finish)(PGconn *);
    ConnStatusType (*status)(const PGconn *);
    char *(*errorMessage)(const PGconn *);
    PGresult *(*execParams)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int);
    PGresult *(*exec)(PGconn *, const char *);
    ExecStatusType (*resultStatus)(const PGresult *);
    char *(*resultErrorField)(const PGresult *, int);
    int (*ntuples)(const PGresult *);
    int (*nfields)(const PGresult *);
    char *(*fname)(const PGresult *, int);
    Oid (*ftype)(const PGresult *, int);
    int (*getisnull)(const PGresult *, int, int);
    char *(*getvalue)(const PGresult *, int, int);
    int (*getlength)(const PGresult *, int, int);
    char *(*cmdTuples)(PGresult *);
    void (*clear)(PGresult *);
    int (*socket)(const PGconn *);
    int (*consumeInput)(PGconn *);
    PGnotify *(*notifies)(PGconn *);
    void (*freemem)(void *);
    int loaded;
};

static struct CPQ_API api;

static void CPQ_loadOnce(void) {
    void *h = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    api.connectdb = (PGconn * (*)(const char *)) dlsym(h, "PQconnectdb");
    api.finish = (void (*)(PGconn *))dlsym(h, "PQfinish");
    api.status = (ConnStatusType(*)(const PGconn *))dlsym(h, "PQstatus");
    api.errorMessage = (char *(*)(const PGconn *))dlsym(h, "PQerrorMessage");
    api.execParams = (PGresult * (*)(PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int))
        dlsym(h, "PQexecParams");
    api.exec = (PGresult * (*)(PGconn *, const char *)) dlsym(h, "PQexec");
    api.resultStatus = (ExecStatusType(*)(const PGresult *))dlsym(h, "PQresultStatus");
    api.resultErrorField = (char *(*)(const PGresult *, int))dlsym(h, "PQresultErrorField");
    api.ntuples = (int (*)(const PGresult *))dlsym(h, "PQntuples");
    api.nfields = (int (*)(const PGresult *))dlsym(h, "PQnfields");
    api.fname = (char *(*)(const PGresult *, int))dlsym(h, "PQfname");
    api.ftype = (Oid(*)(const PGresult *, int))dlsym(h, "PQftype");
    api.getisnull = (int (*)(const PGresult *, int, int))dlsym(h, "PQgetisnull");
    api.getvalue = (char *(*)(const PGresult *, int, int))dlsym(h, "PQgetvalue");
    api.getlength = (int (*)(const PGresult *, int, int))dlsym(h, "PQgetlength");
    api.cmdTuples = (char *(*)(PGresult *))dlsym(h, "PQcmdTuples");
    api.clear = (void (*)(PGresult *))dlsym(h, "PQclear");
    api.socket = (int (*)(const PGconn *))dlsym(h, "PQsocket");
    api.consumeInput = (int (*)(PGconn *))dlsym(h, "PQconsumeInput");
    api.notifies = (PGnotify * (*)(PGconn *)) dlsym(h, "PQnotifies");
    api.freemem = (void (*)(void *))dlsym(h, "PQfreemem");
    if (!api.connectdb || !api.finish || !api.status || !api.errorMessage || !api.execParams || !api.exec || !api.resultStatus ||
        !api.resultErrorField || !api.ntuples || !api.nfields || !api.fname || !api.ftype || !api.getisnull ||
        !api.getvalue || !api.getlength || !api.cmdTuples || !api.clear || !api.socket || !api.consumeInput || !api.notifies || !api.freemem)
        return;
    api.loaded = 1;
}

int CPQ_available(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, CPQ_loadOnce);
    return api.loaded;
}

void *CPQ_connect(const char *conninfo, char *error, size_t errorLength) {
    if (!CPQ_available()) {
        snprintf(error, errorLength, "libpq.so.5 could not be loaded");
        return NULL;
    }
    PGconn *connection = api.connectdb(conninfo);
    if (!connection) {
        snprintf(error, errorLength, "out of memory");
        return NULL;
    }
    if (api.status(connection) != CONNECTION_OK) {
        snprintf(error, errorLength, "%s", api.errorMessage(connection));
        api.finish(connection);
        return NULL;
    }
    return connection;
}

void CPQ_finish(void *connection) { api.finish((PGconn *)connection); }
int CPQ_isOK(void *connection) { return api.status((PGconn *)connection) == CONNECTION_OK; }
const char *CPQ_connectionMessage(void *connection) { return api.errorMessage((PGconn *)connection); }

void *CPQ_execute(void *connection, const char *sql, int count, const unsigned int *types, const char *const *values,
                  const int *lengths, const int *formats) {
    return api.execParams((PGconn *)connection, sql, count, (const Oid *)types, values, lengths, formats, 1);
}

void *CPQ_executeScript(void *connection, const char *sql) { return api.exec((PGconn *)connection, sql); }

int CPQ_outcome(void *result) {
    if (!result) return -1;
    switch (api.resultStatus((PGresult *)result)) {
    case PGRES_COMMAND_OK: return 0;
    case PGRES_TUPLES_OK: return 1;
    default: return -1;
    }
}

static const char *CPQ_field(void *result, int field) {
    if (!result) return "";
    const char *value = api.resultErrorField((PGresult *)result, field);
    return value ? value : "";
}

const char *CPQ_sqlState(void *result) { return CPQ_field(result, PG_DIAG_SQLSTATE); }
const char *CPQ_message(void *result) { return result ? CPQ_field(result, PG_DIAG_MESSAGE_PRIMARY) : "out of memory"; }
int CPQ_rowCount(void *result) { return api.ntuples((PGresult *)result); }
int CPQ_columnCount(void *result) { return api.nfields((PGresult *)result); }
const char *CPQ_columnName(void *result, int column) { return api.fname((PGresult *)result, column); }
unsigned int CPQ_columnType(void *result, int column) { return api.ftype((PGresult *)result, column); }
int CPQ_isNull(void *result, int row, int column) { return api.getisnull((PGresult *)result, row, column); }
const uint8_t *CPQ_value(void *result, int row, int column) { return (const uint8_t *)api.getvalue((PGresult *)result, row, column); }
int CPQ_length(void *result, int row, int column) { return api.getlength((PGresult *)result, row, column); }
const char *CPQ_changedRows(void *result) { return api.cmdTuples((PGresult *)result); }
void CPQ_clear(void *result) {
    if (result) api.clear((PGresult *)result);
}

int CPQ_waitNotification(void *connection, int timeoutMilliseconds, char *payload, size_t payloadLength) {
    PGconn *c = (PGconn *)connection;
    PGnotify *n = api.notifies(c);
    if (!n) {
        int fd = api.socket(c);
        if (fd < 0) return -1;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, timeoutMilliseconds);
        if (ready < 0) return -1;
        if (ready == 0) return 0;
        if (!api.consumeInput(c)) return -1;
        n = api.notifies(c);
        if (!n) return 0;
    }
    snprintf(payload, payloadLength, "%s", n->extra ? n->extra : "");
    api.freemem(n);
    return 1;
}
