#define _GNU_SOURCE
#include "CServe.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

struct pins_server {
    struct event_base *base;
    struct evhttp *http;
    struct event *wake_event, *sigint, *sigterm;
    int wake_read, wake_write;
    pins_request_callback on_request;
    pins_wake_callback on_wake;
    void *context;
};

static void request_arrived(struct evhttp_request *request, void *argument) {
    struct pins_server *server = argument;
    server->on_request(request, server->context);
}

static void wake_arrived(evutil_socket_t fd, short what, void *argument) {
    struct pins_server *server = argument;
    char bytes[256];
    (void)what;
    while (read(fd, bytes, sizeof bytes) > 0) {}
    server->on_wake(server->context);
}

static void signal_arrived(evutil_socket_t number, short what, void *argument) {
    struct pins_server *server = argument;
    (void)number; (void)what;
    event_base_loopexit(server->base, NULL);
}

static int bound_port_of(struct evhttp_bound_socket *bound, uint16_t *port) {
    struct sockaddr_storage storage;
    socklen_t length = sizeof storage;
    if (getsockname(evhttp_bound_socket_get_fd(bound), (struct sockaddr *)&storage, &length) != 0) return -1;
    if (storage.ss_family == AF_INET6) *port = ntohs(((struct sockaddr_in6 *)&storage)->sin6_port);
    else *port = ntohs(((struct sockaddr_in *)&storage)->sin_port);
    return 0;
}

struct pins_server *pins_server_new(const char *address, uint16_t port, size_t header_bytes, size_t body_bytes,
                                    int timeout_seconds, pins_request_callback on_request, pins_wake_callback on_wake,
                                    void *context, uint16_t *bound_port) {
    struct pins_server *server = calloc(1, sizeof *server);
    int fds[2];
    if (!server) return NULL;
    server->wake_read = server->wake_write = -1;
    server->on_request = on_request;
    server->on_wake = on_wake;
    server->context = context;
    if (!(server->base = event_base_new()) || !(server->http = evhttp_new(server->base))) goto fail;
    evhttp_set_max_headers_size(server->http, (ev_ssize_t)header_bytes);
    evhttp_set_max_body_size(server->http, (ev_ssize_t)body_bytes);
    evhttp_set_timeout(server->http, timeout_seconds);
    /* A body over the limit is read and dropped, then answered 413: without this flag evhttp
       closes the connection and the client sees a reset instead of a reason. */
    evhttp_set_flags(server->http, EVHTTP_SERVER_LINGERING_CLOSE);
    evhttp_set_allowed_methods(server->http, PINS_GET | PINS_HEAD | PINS_POST | PINS_PUT | PINS_PATCH | PINS_DELETE);
    evhttp_set_gencb(server->http, request_arrived, server);
    struct evhttp_bound_socket *bound = evhttp_bind_socket_with_handle(server->http, address, port);
    if (!bound || bound_port_of(bound, bound_port) != 0) goto fail;
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) goto fail;
    server->wake_read = fds[0];
    server->wake_write = fds[1];
    server->wake_event = event_new(server->base, server->wake_read, EV_READ | EV_PERSIST, wake_arrived, server);
    server->sigint = evsignal_new(server->base, SIGINT, signal_arrived, server);
    server->sigterm = evsignal_new(server->base, SIGTERM, signal_arrived, server);
    if (!server->wake_event || !server->sigint || !server->sigterm || event_add(server->wake_event, NULL) != 0
        || event_add(server->sigint, NULL) != 0 || event_add(server->sigterm, NULL) != 0) goto fail;
    return server;
fail:;
    int saved = errno;
    pins_server_free(server);
    errno = saved;
    return NULL;
}

void pins_server_free(struct pins_server *server) {
    if (!server) return;
    if (server->wake_event) event_free(server->wake_event);
    if (server->sigint) event_free(server->sigint);
    if (server->sigterm) event_free(server->sigterm);
    if (server->http) evhttp_free(server->http);
    if (server->base) event_base_free(server->base);
    if (server->wake_read >= 0) close(server->wake_read);
    if (server->wake_write >= 0) close(server->wake_write);
    free(server);
}

int pins_server_run(struct pins_server *server) { return event_base_dispatch(server->base); }

void pins_server_wake(struct pins_server *server) {
    char byte = 1;
    /* A full pipe already wakes the loop: a failed write loses nothing. */
    ssize_t ignored = write(server->wake_write, &byte, 1);
    (void)ignored;
}

void pins_server_exit(struct pins_server *server) { event_base_loopexit(server->base, NULL); }

struct later { pins_later_callback callback; void *argument; };

static void later_arrived(evutil_socket_t fd, short what, void *argument) {
    struct later later = *(struct later *)argument;
    (void)fd; (void)what;
    free(argument);
    later.callback(later.argument);
}

int pins_server_later(struct pins_server *server, double seconds, pins_later_callback callback, void *argument) {
    struct later *later = malloc(sizeof *later);
    if (!later) return -1;
    later->callback = callback;
    later->argument = argument;
    struct timeval delay = { (time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6) };
    if (event_base_once(server->base, -1, EV_TIMEOUT, later_arrived, later, &delay) != 0) {
        free(later);
        return -1;
    }
    return 0;
}

int pins_request_method(struct evhttp_request *request) { return (int)evhttp_request_get_command(request); }

const char *pins_request_uri(struct evhttp_request *request) { return evhttp_request_get_uri(request); }

const void *pins_request_header(struct evhttp_request *request, const void *after, const char **key, const char **value) {
    const struct evkeyval *entry = after ? ((const struct evkeyval *)after)->next.tqe_next
                                         : evhttp_request_get_input_headers(request)->tqh_first;
    if (entry) { *key = entry->key; *value = entry->value; }
    return entry;
}

size_t pins_request_body_length(struct evhttp_request *request) {
    struct evbuffer *input = evhttp_request_get_input_buffer(request);
    return input ? evbuffer_get_length(input) : 0;
}

size_t pins_request_body_copy(struct evhttp_request *request, void *out, size_t length) {
    struct evbuffer *input = evhttp_request_get_input_buffer(request);
    if (!input) return 0;
    ev_ssize_t copied = evbuffer_copyout(input, out, length);
    return copied < 0 ? 0 : (size_t)copied;
}

const char *pins_request_peer(struct evhttp_request *request) {
    struct evhttp_connection *connection = evhttp_request_get_connection(request);
    char *address = NULL;
    ev_uint16_t port = 0;
    if (!connection) return "";
    evhttp_connection_get_peer(connection, &address, &port);
    return address ? address : "";
}

void pins_reply_header(struct evhttp_request *request, const char *name, const char *value) {
    evhttp_add_header(evhttp_request_get_output_headers(request), name, value);
}

void pins_reply_body(struct evhttp_request *request, const void *bytes, size_t length) {
    evbuffer_add(evhttp_request_get_output_buffer(request), bytes, length);
}

/* The map data (23 MB at 100,000 pins) went out as a copy per answer in flight: the same bytes,
   shared by every answer, referenced instead. Should libevent refuse, a copy as before. */
void pins_reply_body_shared(struct evhttp_request *request, const void *bytes, size_t length,
                            void (*release)(const void *bytes, size_t length, void *context), void *context) {
    struct evbuffer *output = evhttp_request_get_output_buffer(request);
    if (evbuffer_add_reference(output, bytes, length, release, context) != 0) {
        evbuffer_add(output, bytes, length);
        release(bytes, length, context);
    }
}

/* The most a connection's bufferevent writes in one turn of the loop (see pins_reply_send). */
enum { PINS_SINGLE_WRITE_BYTES = 1 << 20 };

/* evhttp writes an answer of more than 16 KiB in pieces; with Nagle's algorithm the last
   piece waits for the ACK of the first, which a client that delays its ACKs sends 40 ms later
   (a page of 100 pins, 24 KB, took 44 ms on loopback whatever its work). Each answer is whole
   when sent, so nothing is gained by holding a piece back: TCP_NODELAY, set at each answer (one
   cheap call; evhttp makes the connection's socket without a hook to set it once). */
void pins_reply_send(struct evhttp_request *request, int status, const char *reason) {
    struct evhttp_connection *connection = evhttp_request_get_connection(request);
    struct bufferevent *events = connection ? evhttp_connection_get_bufferevent(connection) : NULL;
    evutil_socket_t socket_fd = events ? bufferevent_getfd(events) : -1;
    if (socket_fd >= 0) {
        int on = 1;
        (void)setsockopt(socket_fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    /* A bufferevent writes at most 16 KiB each time its socket can take more (libevent's
       default): the map data's 6.5 MB went out in 400 turns of the loop it shares with every
       other connection. Up to 1 MiB a turn. */
    if (events) (void)bufferevent_set_max_single_write(events, PINS_SINGLE_WRITE_BYTES);
    evhttp_send_reply(request, status, reason, NULL);
}

/* The health check's client (`pins serve --health`, the container's HEALTHCHECK): evhttp's own
   client, so no HTTP is parsed by hand here either. One GET on loopback, bounded in time. */
struct health { int status; };

static void health_answered(struct evhttp_request *request, void *argument) {
    struct health *health = argument;
    health->status = request ? evhttp_request_get_response_code(request) : -1;
}

int pins_health_check(const char *address, uint16_t port, const char *host, int timeout_seconds) {
    struct health health = { -1 };
    struct event_base *base = event_base_new();
    if (!base) return -1;
    /* No DNS base: the address is a numeric literal, never a name to look up. */
    struct evhttp_connection *connection = evhttp_connection_base_new(base, NULL, address, port);
    if (!connection) { event_base_free(base); return -1; }
    evhttp_connection_set_timeout(connection, timeout_seconds);
    evhttp_connection_set_retries(connection, 0);
    struct evhttp_request *request = evhttp_request_new(health_answered, &health);
    if (request) {
        evhttp_add_header(evhttp_request_get_output_headers(request), "Host", host);
        evhttp_add_header(evhttp_request_get_output_headers(request), "Connection", "close");
        /* evhttp frees the request once answered, or on failure. */
        if (evhttp_make_request(connection, request, EVHTTP_REQ_GET, "/healthz") == 0) event_base_dispatch(base);
    }
    evhttp_connection_free(connection);
    event_base_free(base);
    return health.status;
}

void pins_memory_limit(int arenas, size_t mmap_bytes) {
    mallopt(M_ARENA_MAX, arenas);
    mallopt(M_MMAP_THRESHOLD, (int)mmap_bytes);
}

void pins_memory_trim(void) {
    malloc_trim(0);
}
