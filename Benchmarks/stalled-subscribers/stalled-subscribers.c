/*
 * stalled-subscribers: what stalled event subscribers cost the server.
 *
 * Opens S `GET /events` subscribers that read their first event and then never read again (their
 * receive buffer shrunk to --rcvbuf bytes before connecting), plus H healthy subscribers that read
 * everything. Then P poster threads POST --actions actions as fast as they can on keep-alive
 * connections. While that runs, a sampler reads the server's VmRSS (/proc/PID/status) and the
 * kernel's TCP memory (/proc/net/sockstat, "mem" in pages) every 10 ms and keeps the peaks.
 *
 * Prints: actions/s, peak server RSS, peak kernel TCP memory, how many stalled subscribers the
 * server cut off, and whether every healthy subscriber received every version after its first
 * event, in order. Loopback only. Exit code 0 when the run completed, 1 on a fatal error,
 * 2 on a usage error.
 *
 *   cc -O2 -pthread -o stalled-subscribers stalled-subscribers.c
 *   ./stalled-subscribers --port 18181 --stalled 2000 --actions 50000 --server-pid PID
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *host = "127.0.0.1";
static int port = 8080;
static int stalled_count = 2000;
static int healthy_count = 20;
static long actions_total = 50000;
static int poster_count = 8;
static int rcvbuf = 4096;
static int server_pid = 0;
static double settle_seconds = 15;
static const char *json_path = NULL;
static const char *action_body = "{\"type\":\"increase\"}";

static atomic_long next_action;
static atomic_long acknowledged;
static atomic_long post_errors;
static atomic_long max_version;
static atomic_int posting_done;
static atomic_int sampling_done;
static long peak_rss_kb, peak_tcp_pages;

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static int connect_socket(int receive_buffer) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    if (receive_buffer > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer) != 0)
        die("SO_RCVBUF");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, host, &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void write_all(int fd, const char *data, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n <= 0) die("write");
        data += n;
        length -= (size_t)n;
    }
}

/* Reads until the first complete SSE event (a blank line after data) has arrived. */
static int read_first_event(int fd) {
    char buffer[8192];
    size_t used = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    double deadline = now_seconds() + 30;
    while (now_seconds() < deadline) {
        if (poll(&p, 1, 1000) <= 0) continue;
        ssize_t n = read(fd, buffer + used, sizeof buffer - 1 - used);
        if (n <= 0) return -1;
        used += (size_t)n;
        buffer[used] = 0;
        char *data = strstr(buffer, "data: ");
        if (data && strstr(data, "\n\n")) return 0;
        if (used == sizeof buffer - 1) return -1;
    }
    return -1;
}

/* ---- healthy subscribers: chunked decoding, then SSE "id:" lines ---- */

typedef struct {
    int fd;
    int head_done;
    char head[4096];
    size_t head_used;
    long chunk_left;      /* bytes of chunk data left; -1 while reading a size line */
    char size_line[32];
    size_t size_used;
    int skip_crlf;        /* CRLF after chunk data still to skip */
    char line[256];
    size_t line_used;
    int line_overflow;
    long first_version, last_version;
    long gaps;
    int ended;
} healthy_t;

static healthy_t *healthy;

static void sse_byte(healthy_t *h, char c) {
    if (c != '\n') {
        if (h->line_used < sizeof h->line - 1) h->line[h->line_used++] = c;
        else h->line_overflow = 1;
        return;
    }
    h->line[h->line_used] = 0;
    if (!h->line_overflow && strncmp(h->line, "id: ", 4) == 0) {
        long version = strtol(h->line + 4, NULL, 10);
        if (h->first_version < 0) h->first_version = version;
        else if (version != h->last_version + 1) h->gaps++;
        h->last_version = version;
    }
    h->line_used = 0;
    h->line_overflow = 0;
}

static void healthy_bytes(healthy_t *h, const char *data, size_t length) {
    size_t i = 0;
    while (i < length && !h->head_done) {
        if (h->head_used < sizeof h->head - 1) h->head[h->head_used++] = data[i];
        i++;
        if (h->head_used >= 4 && memcmp(h->head + h->head_used - 4, "\r\n\r\n", 4) == 0) {
            h->head_done = 1;
            h->chunk_left = -1;
        }
    }
    while (i < length) {
        if (h->skip_crlf > 0) {
            h->skip_crlf--;
            i++;
        } else if (h->chunk_left < 0) {
            char c = data[i++];
            if (c == '\n') {
                h->size_line[h->size_used] = 0;
                h->chunk_left = strtol(h->size_line, NULL, 16);
                h->size_used = 0;
                if (h->chunk_left == 0) { h->ended = 1; return; }
            } else if (c != '\r' && h->size_used < sizeof h->size_line - 1) {
                h->size_line[h->size_used++] = c;
            }
        } else {
            size_t take = length - i < (size_t)h->chunk_left ? length - i : (size_t)h->chunk_left;
            for (size_t k = 0; k < take; k++) sse_byte(h, data[i + k]);
            i += take;
            h->chunk_left -= (long)take;
            if (h->chunk_left == 0) { h->chunk_left = -1; h->skip_crlf = 2; }
        }
    }
}

static void *healthy_reader(void *unused) {
    (void)unused;
    int epoll = epoll_create1(0);
    for (int i = 0; i < healthy_count; i++) {
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, healthy[i].fd, &event);
    }
    char buffer[65536];
    double settle_deadline = 0;
    while (1) {
        struct epoll_event events[64];
        int n = epoll_wait(epoll, events, 64, 50);
        for (int k = 0; k < n; k++) {
            healthy_t *h = &healthy[events[k].data.u32];
            ssize_t got = read(h->fd, buffer, sizeof buffer);
            if (got <= 0) {
                h->ended = 1;
                epoll_ctl(epoll, EPOLL_CTL_DEL, h->fd, NULL);
                continue;
            }
            healthy_bytes(h, buffer, (size_t)got);
        }
        if (atomic_load(&posting_done)) {
            if (settle_deadline == 0) settle_deadline = now_seconds() + settle_seconds;
            long target = atomic_load(&max_version);
            int complete = 1;
            for (int i = 0; i < healthy_count; i++)
                if (!healthy[i].ended && healthy[i].last_version < target) complete = 0;
            if (complete || now_seconds() > settle_deadline) break;
        }
    }
    close(epoll);
    return NULL;
}

/* ---- posters ---- */

static void *poster(void *unused) {
    (void)unused;
    int fd = connect_socket(0);
    char request[512];
    int request_length = snprintf(request, sizeof request,
        "POST /actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
        strlen(action_body), action_body);
    char response[4096];
    while (atomic_fetch_add(&next_action, 1) < actions_total) {
        write_all(fd, request, (size_t)request_length);
        size_t used = 0;
        char *body = NULL;
        long content_length = -1;
        while (1) {
            ssize_t n = read(fd, response + used, sizeof response - 1 - used);
            if (n <= 0) die("read (poster)");
            used += (size_t)n;
            response[used] = 0;
            if (!body) {
                char *end = strstr(response, "\r\n\r\n");
                if (end) {
                    body = end + 4;
                    char *length = strcasestr(response, "\r\ncontent-length:");
                    content_length = length ? strtol(length + 17, NULL, 10) : 0;
                }
            }
            if (body && (long)(response + used - body) >= content_length) break;
        }
        if (strncmp(response, "HTTP/1.1 200", 12) != 0) {
            atomic_fetch_add(&post_errors, 1);
            continue;
        }
        char *version = strstr(body, "\"version\":");
        if (version) {
            long v = strtol(version + 10, NULL, 10);
            long seen = atomic_load(&max_version);
            while (v > seen && !atomic_compare_exchange_weak(&max_version, &seen, v)) {}
        }
        atomic_fetch_add(&acknowledged, 1);
    }
    close(fd);
    return NULL;
}

/* ---- sampler ---- */

static long read_rss_kb(void) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", server_pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    long kb = -1;
    while (fgets(line, sizeof line, file))
        if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
    fclose(file);
    return kb;
}

static long read_tcp_pages(void) {
    FILE *file = fopen("/proc/net/sockstat", "r");
    if (!file) return -1;
    char line[256];
    long pages = -1;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "TCP:", 4) != 0) continue;
        char *mem = strstr(line, " mem ");
        if (mem) pages = strtol(mem + 5, NULL, 10);
    }
    fclose(file);
    return pages;
}

static void *sampler(void *unused) {
    (void)unused;
    while (!atomic_load(&sampling_done)) {
        long rss = server_pid ? read_rss_kb() : -1;
        long tcp = read_tcp_pages();
        if (rss > peak_rss_kb) peak_rss_kb = rss;
        if (tcp > peak_tcp_pages) peak_tcp_pages = tcp;
        usleep(10000);
    }
    return NULL;
}

/* A stalled subscriber the server cut off: the connection was reset or shut down. */
static int was_cut(int fd) {
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR | POLLRDHUP))) return 1;
    int error = 0;
    socklen_t length = sizeof error;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    return error != 0;
}

static void usage(void) {
    fprintf(stderr,
        "usage: stalled-subscribers [--host 127.0.0.1] [--port 8080] [--stalled 2000] [--healthy 20]\n"
        "       [--actions 50000] [--posters 8] [--rcvbuf 4096] [--server-pid PID] [--settle 15]\n"
        "       [--json FILE]\n");
    exit(2);
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *option = argv[i];
        if (i + 1 >= argc) usage();
        const char *value = argv[++i];
        if (!strcmp(option, "--host")) host = value;
        else if (!strcmp(option, "--port")) port = atoi(value);
        else if (!strcmp(option, "--stalled")) stalled_count = atoi(value);
        else if (!strcmp(option, "--healthy")) healthy_count = atoi(value);
        else if (!strcmp(option, "--actions")) actions_total = atol(value);
        else if (!strcmp(option, "--posters")) poster_count = atoi(value);
        else if (!strcmp(option, "--rcvbuf")) rcvbuf = atoi(value);
        else if (!strcmp(option, "--server-pid")) server_pid = atoi(value);
        else if (!strcmp(option, "--settle")) settle_seconds = atof(value);
        else if (!strcmp(option, "--json")) json_path = value;
        else usage();
    }
    if (strncmp(host, "127.", 4) != 0) {
        fprintf(stderr, "--host must be a 127.0.0.0/8 address\n");
        return 2;
    }
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    if ((long)limit.rlim_cur < stalled_count + healthy_count + poster_count + 64) {
        fprintf(stderr, "open-file limit %ld is too low\n", (long)limit.rlim_cur);
        return 1;
    }

    long rss_before = server_pid ? read_rss_kb() : -1;
    long tcp_before = read_tcp_pages();
    const char *subscribe = "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    int *stalled = calloc((size_t)stalled_count, sizeof *stalled);
    for (int i = 0; i < stalled_count; i++) {
        stalled[i] = connect_socket(rcvbuf);
        write_all(stalled[i], subscribe, strlen(subscribe));
        if (read_first_event(stalled[i]) != 0) {
            fprintf(stderr, "stalled subscriber %d got no first event\n", i);
            return 1;
        }
    }
    healthy = calloc((size_t)healthy_count, sizeof *healthy);
    for (int i = 0; i < healthy_count; i++) {
        healthy[i].fd = connect_socket(0);
        healthy[i].first_version = -1;
        write_all(healthy[i].fd, subscribe, strlen(subscribe));
    }
    long rss_connected = server_pid ? read_rss_kb() : -1;

    pthread_t sampler_thread, reader_thread, posters[64];
    if (poster_count > 64) poster_count = 64;
    peak_rss_kb = rss_connected;
    pthread_create(&sampler_thread, NULL, sampler, NULL);
    pthread_create(&reader_thread, NULL, healthy_reader, NULL);
    double start = now_seconds();
    for (int i = 0; i < poster_count; i++) pthread_create(&posters[i], NULL, poster, NULL);
    for (int i = 0; i < poster_count; i++) pthread_join(posters[i], NULL);
    double posting = now_seconds() - start;
    atomic_store(&posting_done, 1);
    pthread_join(reader_thread, NULL);

    /* The stalled ones are cut at their next send past the backlog limit; wait for that. */
    int cut = 0;
    double deadline = now_seconds() + settle_seconds;
    do {
        cut = 0;
        for (int i = 0; i < stalled_count; i++) cut += was_cut(stalled[i]);
        if (cut == stalled_count) break;
        usleep(50000);
    } while (now_seconds() < deadline);
    double cut_after = now_seconds() - start - posting;
    atomic_store(&sampling_done, 1);
    pthread_join(sampler_thread, NULL);

    long target = atomic_load(&max_version);
    int complete = 0;
    long gaps = 0;
    for (int i = 0; i < healthy_count; i++) {
        gaps += healthy[i].gaps;
        if (healthy[i].last_version == target && healthy[i].gaps == 0) complete++;
        else fprintf(stderr, "healthy %d: versions %ld..%ld, gaps %ld, %s\n", i, healthy[i].first_version,
                     healthy[i].last_version, healthy[i].gaps, healthy[i].ended ? "ended by the server" : "open");
    }
    long acked = atomic_load(&acknowledged);
    double peak_rss_mb = peak_rss_kb / 1024.0, peak_tcp_mb = peak_tcp_pages * 4096.0 / (1 << 20);
    printf("stalled %d (rcvbuf %d)   healthy %d   posters %d\n", stalled_count, rcvbuf, healthy_count, poster_count);
    printf("posted      %ld acknowledged, %ld errors, in %.2f s (%.0f actions/s), last version %ld\n",
           acked, atomic_load(&post_errors), posting, acked / posting, target);
    printf("server RSS  before %.1f MB   connected %.1f MB   peak %.1f MB\n",
           rss_before / 1024.0, rss_connected / 1024.0, peak_rss_mb);
    printf("kernel TCP  before %.1f MB   peak %.1f MB\n", tcp_before * 4096.0 / (1 << 20), peak_tcp_mb);
    printf("stalled cut %d / %d (%.1f s after posting ended)\n", cut, stalled_count, cut_after);
    printf("healthy     %d / %d received every version to %ld in order (gaps %ld)\n",
           complete, healthy_count, target, gaps);
    if (json_path) {
        FILE *file = fopen(json_path, "w");
        if (!file) die("json");
        fprintf(file,
            "{\"stalled\": %d, \"healthy\": %d, \"acknowledged\": %ld, \"post_errors\": %ld, "
            "\"actions_per_second\": %.0f, \"peak_rss_mb\": %.1f, \"peak_tcp_mb\": %.1f, "
            "\"stalled_cut\": %d, \"healthy_complete\": %d, \"gaps\": %ld}\n",
            stalled_count, healthy_count, acked, atomic_load(&post_errors), acked / posting,
            peak_rss_mb, peak_tcp_mb, cut, complete, gaps);
        fclose(file);
    }
    return 0;
}
