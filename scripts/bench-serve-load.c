/* The browsers of scripts/bench-serve: C keep-alive connections to `pins serve` on loopback,
 * all in one process and one thread on epoll, so that the load takes little of the cores the
 * service shares with it (50 Python processes with http.client took 0.45-0.55 ms of CPU a
 * request, about half the service's own). scripts/bench-serve compiles and runs it.
 *
 *     bench-serve-load PORT CLIENTS SECONDS PLAN
 *
 * PLAN, a text file: line 1 the number of pins listed (the page offsets are below it minus 100);
 * then lines "cookie VALUE" (the sessions, client i takes the (i mod count)-th), "id VALUE" (the
 * pins shown) and "filter QUERY" (the filters). Each client is a connection that never pauses,
 * as scripts/bench-serve's Python clients were: round after round, a page of 100 pins at a random
 * offset, a filtered page of 100 (a random filter), one pin shown (a random id), and every tenth
 * round (round % 10 == client % 10) the whole map data, each request saying what Chromium accepts
 * (gzip among them). The time of each is from its first byte written to its answer's last byte
 * read. An answer but 200, a reset or a timeout (30 s) is an error; a keep-alive connection the
 * server closed between two requests is opened again and the request sent once more, as
 * http.client's caller did.
 *
 * It prints "ready" once every connection is open, waits for a line on standard input, then runs
 * SECONDS; no request starts after that, and the ones in flight are waited for (30 s at most).
 * Then one line per answer: "ok KIND SECONDS" or "error KIND STATUS PATH". */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { PAGE, FILTERED, SHOW, MAP, KINDS };
static const char *kind_names[KINDS] = {"page", "filtered", "show", "map"};
enum { HEAD_MAX = 16384, TIMEOUT_SECONDS = 30 };

struct client {
    int index, fd, kind, step, steps, retried, served;
    unsigned long long rng;
    long round_;
    int plan[4];
    char path[512];
    char request[4096];
    size_t request_length, sent;
    char head[HEAD_MAX];
    char head_copy[HEAD_MAX];
    size_t head_length;
    long long body_left; /* -1 while the head is read */
    int status, chunked;
    double started;
    const char *cookie;
};

static char **cookies, **ids, **filters;
static int cookie_count, id_count, filter_count;
static long total;
static int port;
static struct sockaddr_in address;
static int epoll_fd;
static FILE *out;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned long long next_random(struct client *c) {
    /* xorshift64*: each client's own sequence, seeded by its index. */
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 2685821657736338717ULL;
}

static int open_connection(struct client *c) {
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("bench-serve-load: connect");
        return -1;
    }
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &event);
    c->served = 0;
    return 0;
}

static void close_connection(struct client *c) {
    if (c->fd >= 0) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
}

/* The next round's plan: page, filtered, show and, every tenth round, the map data. */
static void plan_round(struct client *c) {
    c->round_++;
    c->plan[0] = PAGE, c->plan[1] = FILTERED, c->plan[2] = SHOW, c->plan[3] = MAP;
    c->steps = c->round_ % 10 == c->index % 10 ? 4 : 3;
    c->step = 0;
}

static void write_request(struct client *c) {
    c->kind = c->plan[c->step];
    long span = total - 100 > 1 ? total - 100 : 1;
    switch (c->kind) {
    case PAGE: snprintf(c->path, sizeof c->path, "/api/pins?limit=100&offset=%llu", next_random(c) % span); break;
    case FILTERED: snprintf(c->path, sizeof c->path, "/api/pins?limit=100&%s", filters[next_random(c) % filter_count]); break;
    case SHOW: snprintf(c->path, sizeof c->path, "/api/pins/%s", ids[next_random(c) % id_count]); break;
    default: snprintf(c->path, sizeof c->path, "/api/page-data"); break;
    }
    c->request_length = snprintf(c->request, sizeof c->request,
        "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept-Encoding: gzip, deflate, br, zstd\r\nCookie: %s\r\n\r\n",
        c->path, port, c->cookie);
    c->sent = 0;
    c->head_length = 0;
    c->body_left = -1;
    c->retried = 0;
    c->started = now();
}

static void record_error(struct client *c, int status) {
    fprintf(out, "error %s %d %s\n", kind_names[c->kind], status, c->path);
}

/* The answer's head is complete at `end` (past its blank line): its status and length. */
static int parse_head(struct client *c, size_t end) {
    c->head[end - 1] = 0;
    if (sscanf(c->head, "HTTP/1.%*d %d", &c->status) != 1) return -1;
    c->body_left = 0;
    c->chunked = 0;
    for (char *line = strstr(c->head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Content-Length:", 15) == 0) c->body_left = atoll(line + 17);
        if (strncasecmp(line + 2, "Transfer-Encoding:", 18) == 0) c->chunked = 1;
    }
    return c->chunked ? -1 : 0; /* evhttp sends a length with every answer it was given whole */
}

static void start_next(struct client *c, double deadline);

/* The answer is read whole: its time kept (or its error), then the next request. */
static void finish(struct client *c, double deadline) {
    double took = now() - c->started;
    if (c->status == 200) fprintf(out, "ok %s %.6f\n", kind_names[c->kind], took);
    else record_error(c, c->status);
    c->served++;
    c->head[0] = 0;
    if (strcasestr(c->head_copy, "\r\nConnection: close")) {
        close_connection(c);
        if (open_connection(c) != 0) return;
    }
    start_next(c, deadline);
}

/* A reset, an end of the connection or a timeout. A keep-alive connection that ended before any
 * byte of this answer came is opened again and the request sent once more. */
static void failed(struct client *c, double deadline) {
    int again = c->served > 0 && !c->retried && c->head_length == 0 && c->body_left < 0;
    close_connection(c);
    if (open_connection(c) != 0) return;
    if (again) {
        c->retried = 1;
        c->sent = 0;
        return;
    }
    record_error(c, 0);
    start_next(c, deadline);
}

static void start_next(struct client *c, double deadline) {
    if (++c->step >= c->steps) plan_round(c);
    if (now() >= deadline) {
        close_connection(c);
        c->kind = -1;
        return;
    }
    write_request(c);
}

static char scratch[1 << 18];

/* Everything the socket allows now: the request written, the answer read. */
static void progress(struct client *c, double deadline) {
    while (c->fd >= 0 && c->kind >= 0) {
        if (c->sent < c->request_length) {
            ssize_t n = send(c->fd, c->request + c->sent, c->request_length - c->sent, MSG_NOSIGNAL);
            if (n < 0 && errno == EAGAIN) return;
            if (n <= 0) { failed(c, deadline); continue; }
            c->sent += n;
            continue;
        }
        if (c->body_left < 0) {
            ssize_t n = recv(c->fd, c->head + c->head_length, HEAD_MAX - 1 - c->head_length, 0);
            if (n < 0 && errno == EAGAIN) return;
            if (n <= 0) { failed(c, deadline); continue; }
            c->head_length += n;
            c->head[c->head_length] = 0;
            char *end = strstr(c->head, "\r\n\r\n");
            if (!end) {
                if (c->head_length >= HEAD_MAX - 1) { failed(c, deadline); }
                continue;
            }
            size_t head_end = end - c->head + 4;
            memcpy(c->head_copy, c->head, head_end);
            c->head_copy[head_end] = 0;
            if (parse_head(c, head_end) != 0) { c->retried = 1; failed(c, deadline); continue; }
            c->body_left -= (long long)(c->head_length - head_end);
            if (c->body_left < 0) { c->retried = 1; failed(c, deadline); continue; }
        } else if (c->body_left > 0) {
            size_t want = c->body_left < (long long)sizeof scratch ? (size_t)c->body_left : sizeof scratch;
            ssize_t n = recv(c->fd, scratch, want, 0);
            if (n < 0 && errno == EAGAIN) return;
            if (n <= 0) { c->retried = 1; failed(c, deadline); continue; }
            c->body_left -= n;
        }
        if (c->body_left == 0) finish(c, deadline);
    }
}

static void read_plan(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(2); }
    static char line[8192];
    if (!fgets(line, sizeof line, f)) exit(2);
    total = atol(line);
    int capacity = 1 << 16;
    cookies = malloc(capacity * sizeof *cookies), ids = malloc(capacity * sizeof *ids), filters = malloc(capacity * sizeof *filters);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *value = strchr(line, ' ');
        if (!value) continue;
        *value++ = 0;
        if (!strcmp(line, "cookie") && cookie_count < capacity) cookies[cookie_count++] = strdup(value);
        else if (!strcmp(line, "id") && id_count < capacity) ids[id_count++] = strdup(value);
        else if (!strcmp(line, "filter") && filter_count < capacity) filters[filter_count++] = strdup(value);
    }
    fclose(f);
    if (!cookie_count || !id_count || !filter_count) { fprintf(stderr, "bench-serve-load: an empty plan\n"); exit(2); }
}

/* The run: every client's request started, then the event loop until the deadline and the
 * answers in flight then (each with its 30 s). */
static void run(struct client *clients, int count, double seconds) {
    double deadline = now() + seconds;
    for (int i = 0; i < count; i++) {
        write_request(&clients[i]);
        progress(&clients[i], deadline);
    }
    struct epoll_event events[256];
    for (;;) {
        int busy = 0;
        double t = now();
        for (int i = 0; i < count; i++) {
            struct client *c = &clients[i];
            if (c->fd < 0 || c->kind < 0) continue;
            busy++;
            if (t - c->started > TIMEOUT_SECONDS) {
                c->retried = 1;
                failed(c, deadline);
                progress(c, deadline);
            }
        }
        if (!busy) break;
        int n = epoll_wait(epoll_fd, events, 256, 100);
        for (int i = 0; i < n; i++) progress(events[i].data.ptr, deadline);
    }
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: bench-serve-load PORT CLIENTS SECONDS PLAN\n"); return 2; }
    port = atoi(argv[1]);
    int count = atoi(argv[2]);
    double seconds = atof(argv[3]);
    read_plan(argv[4]);
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct client *clients = calloc(count, sizeof *clients);
    for (int i = 0; i < count; i++) {
        struct client *c = &clients[i];
        c->index = i;
        c->rng = 0x9E3779B97F4A7C15ULL * (i + 1);
        c->cookie = cookies[i % cookie_count];
        c->round_ = 0;
        plan_round(c);
        if (open_connection(c) != 0) return 1;
    }
    static char buffer[1 << 20];
    out = stdout;
    setvbuf(out, buffer, _IOFBF, sizeof buffer);
    printf("ready\n");
    fflush(out);
    char go[16];
    if (!fgets(go, sizeof go, stdin)) return 1;
    run(clients, count, seconds);
    fflush(out);
    return 0;
}
