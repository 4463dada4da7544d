#ifndef PINS_CSERVE_H
#define PINS_CSERVE_H

/* The narrow face of libevent's evhttp that `pins serve` uses (server.c). Swift sees only these
   functions and opaque pointers: libevent's own headers pull in <sys/select.h>, whose fd_set
   clashes with Foundation's copy when both are Swift modules. */

#include <stddef.h>
#include <stdint.h>

struct pins_server;
struct evhttp_request;

/* The methods evhttp lets through (its EVHTTP_REQ_* values); any other gets 405 from evhttp. */
enum { PINS_GET = 1, PINS_POST = 2, PINS_HEAD = 4, PINS_PUT = 8, PINS_DELETE = 16, PINS_PATCH = 256 };

typedef void (*pins_request_callback)(struct evhttp_request *request, void *context);
typedef void (*pins_wake_callback)(void *context);
typedef void (*pins_later_callback)(void *argument);

/* A server listening on address:port (port 0: the kernel picks; *bound_port says which), with
   evhttp's limits set. NULL on failure, with errno set when a system call failed. */
struct pins_server *pins_server_new(const char *address, uint16_t port, size_t header_bytes, size_t body_bytes,
                                    int timeout_seconds, pins_request_callback on_request, pins_wake_callback on_wake,
                                    void *context, uint16_t *bound_port);
void pins_server_free(struct pins_server *server);
/* Runs the event loop until pins_server_exit, SIGINT or SIGTERM. */
int pins_server_run(struct pins_server *server);
/* From any thread: on_wake runs on the loop soon after (a byte written to a pipe). */
void pins_server_wake(struct pins_server *server);
/* On the loop: it ends after the current callbacks. */
void pins_server_exit(struct pins_server *server);
/* On the loop: `callback(argument)` after `seconds`. */
int pins_server_later(struct pins_server *server, double seconds, pins_later_callback callback, void *argument);

int pins_request_method(struct evhttp_request *request);
const char *pins_request_uri(struct evhttp_request *request);
/* The headers in order: a cursor (NULL at the end) and the key and value of the entry. */
const void *pins_request_header(struct evhttp_request *request, const void *after, const char **key, const char **value);
size_t pins_request_body_length(struct evhttp_request *request);
size_t pins_request_body_copy(struct evhttp_request *request, void *out, size_t length);
/* The peer's address as text, or "". */
const char *pins_request_peer(struct evhttp_request *request);

void pins_reply_header(struct evhttp_request *request, const char *name, const char *value);
void pins_reply_body(struct evhttp_request *request, const void *bytes, size_t length);
/* The answer's body by reference, not copied: `release(bytes, length, context)` is called once
   libevent no longer needs the bytes (sent, or the connection gone). */
void pins_reply_body_shared(struct evhttp_request *request, const void *bytes, size_t length,
                            void (*release)(const void *bytes, size_t length, void *context), void *context);
/* Sends the reply; evhttp frees the request (also when its connection closed meanwhile). */
void pins_reply_send(struct evhttp_request *request, int status, const char *reason);

/* One GET /healthz to address:port (a numeric address) with this Host header: the reply's status,
   or -1 when no reply came within timeout_seconds (refused, reset, timed out). */
int pins_health_check(const char *address, uint16_t port, const char *host, int timeout_seconds);

/* The service's heap (glibc malloc), set once before its threads start: at most `arenas` arenas
   (glibc makes one per thread that meets a locked one, up to 8 per core, each keeping its own
   freed memory), and blocks of `mmap_bytes` or more always mapped apart, so that freeing one gives
   its pages back at once (glibc otherwise raises that threshold to the largest block freed, up
   to 32 MiB, and the map data's big arrays then stay in a heap after they are freed). */
void pins_memory_limit(int arenas, size_t mmap_bytes);
/* Gives the free pages of every arena back to the system (malloc_trim(0)). */
void pins_memory_trim(void);

#endif
