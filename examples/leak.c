/* A request loop with a leak, for the guide's worked example
 * (doc/guide.md, "Finding a leak"): each request builds a reply and a
 * scratch buffer; the scratch dies with the request, but every reply is
 * also kept in a session log that is never trimmed, and never read.
 * Run with more requests and the log grows: `heapprof diff` and `go tool
 * pprof -base` name it; `heapprof -hr -hbdrag,void` shows its entries
 * VOID, held by session_log, made by log_reply. Usage: leak [REQUESTS]
 * (default 2000). */
#include <gc/gc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reply { struct reply *next; char body[200]; } reply;

static reply *session_log;   /* the leak: never trimmed, never read */
static size_t logged;

__attribute__((noinline)) static char *scratch(int n)
{
    char *s = GC_malloc_atomic(4096);
    snprintf(s, 4096, "request %d", n);
    return s;
}

__attribute__((noinline)) static reply *make_reply(int n)
{
    reply *r = GC_malloc(sizeof *r);
    snprintf(r->body, sizeof r->body, "reply to %s", scratch(n));
    return r;
}

__attribute__((noinline)) static void log_reply(reply *r)
{
    reply *copy = GC_malloc(sizeof *copy);
    memcpy(copy, r, sizeof *copy);
    copy->next = session_log;
    session_log = copy;
    logged++;
}

__attribute__((noinline)) static void handle(int n)
{
    reply *r = make_reply(n);
    log_reply(r);
}

int main(int argc, char **argv)
{
    GC_INIT();
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    for (int i = 0; i < n; i++) handle(i);
    printf("%d requests, %zu replies kept\n", n, logged);
    return 0;
}
