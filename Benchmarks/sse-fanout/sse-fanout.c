/*
 * sse-fanout: a load tool for the server's GET /events fan-out.
 *
 * Opens N subscriber connections to GET /events on a loopback address, waits for each one's first
 * event (the current state), then POSTs an action R times a second for D seconds from a separate
 * thread and measures, for every subscriber and every posted version, the time from just before the
 * POST's write() to the read() that completed the event. Also counts losses, out-of-order and
 * repeated ids, read syscalls, heartbeats and (optionally) the server's RSS and CPU time.
 *
 * Linux only (epoll), C11, libc + libm:   cc -O2 -o sse-fanout sse-fanout.c -lm
 * See README.md next to this file.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define CONNECT_BATCH 200   /* most subscriber handshakes in flight at once */
#define MAX_TRIES 3         /* connection attempts per subscriber (1 + 2 retries) */
#define RETRY_DELAY_NS 100000000ULL /* a failed attempt is retried 100 ms later */
#define HEAD_CAP 4096       /* largest response head accepted */
#define READ_BUF (64 * 1024)
#define POST_IO_TIMEOUT_S 5
#define POST_GRACE_NS (5ULL * 1000000000ULL) /* posting stops this long after the schedule's end */

/* ------------------------------------------------------------------------------------------ */
/* options */

static struct {
    char host[64];           /* as given (brackets stripped) */
    int family;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char host_header[96];
    int port;
    long subscribers;
    double rate;
    double duration;
    long server_pid;         /* 0: none */
    int post_port;           /* where the actions are posted; 0: --port (another replica: lag) */
    struct sockaddr_storage post_addr;
    const char *action;
    const char *path;        /* of the subscribers' GET, with its query */
    const char *post_path;   /* of the POSTs */
    double connect_timeout;
    const char *json_path;
    double settle;
    long threads;            /* reader threads while posting */
} opt = {
    .port = 8080, .subscribers = 100, .rate = 10, .duration = 10, .action = "{\"type\":\"increase\"}", .path = "/events", .post_path = "/actions",
    .connect_timeout = 30, .settle = 2,
};

static void usage(FILE *f) {
    fprintf(f,
        "usage: sse-fanout [options]\n"
        "  --host ADDR             loopback address only: 127.0.0.0/8 or ::1 (default 127.0.0.1)\n"
        "  --port PORT             (default 8080)\n"
        "  --subscribers N         GET /events connections (default 100)\n"
        "  --rate R                POST /actions per second (default 10)\n"
        "  --duration D            seconds of posting (default 10)\n"
        "  --action JSON           body to POST (default {\"type\":\"increase\"})\n"
        "  --post-port PORT        post the actions to this port instead (another replica: the latency is\n"
        "                          then replica lag, from the POST's write on one to the event on the other)\n"
        "  --path PATH             the subscribers' request target (default /events; e.g. /events?delta=json-patch)\n"
        "  --post-path PATH        where the actions are posted (default /actions; e.g. /stores/room/actions)\n"
        "  --server-pid PID        read the server's VmRSS and CPU time from /proc/PID\n"
        "  --connect-timeout S     seconds to wait for every first event (default 30)\n"
        "  --settle S              seconds to wait for stragglers after the last post (default 2)\n"
        "  --json FILE             also write the results as one flat JSON object\n"
        "  --threads T             reader threads while posting (default: online CPUs, at most 8)\n"
        "  --help\n");
}

static _Noreturn void usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "sse-fanout: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    usage(stderr);
    exit(EXIT_USAGE);
}

static long parse_long(const char *name, const char *s, long lo, long hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "sse-fanout: --%s wants an integer in %ld...%ld, got '%s'\n", name, lo, hi, s);
        exit(EXIT_USAGE);
    }
    return v;
}

static double parse_double(const char *name, const char *s, double lo, double hi, bool open_lo) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi || (open_lo && v == lo)) {
        fprintf(stderr, "sse-fanout: --%s wants a number in %s%g...%g, got '%s'\n", name,
                open_lo ? "(" : "", lo, hi, s);
        exit(EXIT_USAGE);
    }
    return v;
}

/* Accepts only 127.0.0.0/8 and ::1 (and "localhost" as 127.0.0.1, without any lookup). */
static void set_host(const char *arg) {
    char h[64];
    size_t len = strlen(arg);
    if (len == 0 || len >= sizeof h) usage_error("--host '%s' is not an address", arg);
    if (arg[0] == '[' && arg[len - 1] == ']') {
        memcpy(h, arg + 1, len - 2);
        h[len - 2] = 0;
    } else {
        memcpy(h, arg, len + 1);
    }
    if (strcmp(h, "localhost") == 0) strcpy(h, "127.0.0.1");
    memset(&opt.addr, 0, sizeof opt.addr);
    struct in_addr a4;
    struct in6_addr a6;
    bool loopback;
    if (inet_pton(AF_INET, h, &a4) == 1) {
        loopback = (ntohl(a4.s_addr) >> 24) == 127;
        struct sockaddr_in *sin = (struct sockaddr_in *)&opt.addr;
        sin->sin_family = AF_INET;
        sin->sin_addr = a4;
    } else if (inet_pton(AF_INET6, h, &a6) == 1) {
        loopback = memcmp(&a6, &in6addr_loopback, sizeof a6) == 0;
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&opt.addr;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_addr = a6;
    } else {
        usage_error("--host '%s' is not a loopback IP literal (127.0.0.0/8 or ::1)", arg);
    }
    if (!loopback) usage_error("--host %s refused: load tests may only target loopback (127.0.0.0/8 or ::1)", arg);
    opt.family = ((struct sockaddr *)&opt.addr)->sa_family;
    opt.addrlen = opt.family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    strcpy(opt.host, h);
}

static void parse_options(int argc, char **argv) {
    enum { O_HOST = 1, O_PORT, O_SUBS, O_RATE, O_DUR, O_PID, O_ACTION, O_TARGET, O_CTO, O_JSON, O_SETTLE, O_THREADS, O_POST_PORT, O_POST_PATH, O_HELP };
    static const struct option longopts[] = {
        {"host", required_argument, 0, O_HOST},
        {"port", required_argument, 0, O_PORT},
        {"subscribers", required_argument, 0, O_SUBS},
        {"rate", required_argument, 0, O_RATE},
        {"duration", required_argument, 0, O_DUR},
        {"server-pid", required_argument, 0, O_PID},
        {"action", required_argument, 0, O_ACTION},
        {"path", required_argument, 0, O_TARGET},
        {"connect-timeout", required_argument, 0, O_CTO},
        {"json", required_argument, 0, O_JSON},
        {"settle", required_argument, 0, O_SETTLE},
        {"threads", required_argument, 0, O_THREADS},
        {"post-port", required_argument, 0, O_POST_PORT},
        {"post-path", required_argument, 0, O_POST_PATH},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    set_host("127.0.0.1");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    opt.threads = cpus < 1 ? 1 : cpus > 8 ? 8 : cpus;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_HOST: set_host(optarg); break;
        case O_PORT: opt.port = (int)parse_long("port", optarg, 1, 65535); break;
        case O_SUBS: opt.subscribers = parse_long("subscribers", optarg, 1, 1000000); break;
        case O_RATE: opt.rate = parse_double("rate", optarg, 0, 100000, true); break;
        case O_DUR: opt.duration = parse_double("duration", optarg, 0, 86400, true); break;
        case O_PID: opt.server_pid = parse_long("server-pid", optarg, 1, 0x7fffffff); break;
        case O_ACTION:
            if (strlen(optarg) == 0 || strlen(optarg) > 65536) usage_error("--action must be 1...65536 bytes%s", "");
            opt.action = optarg;
            break;
        case O_TARGET:
            if (optarg[0] != '/' || strlen(optarg) > 1024 || strpbrk(optarg, " \r\n"))
                usage_error("--path must start with '/', have no spaces or line breaks and be at most 1024 bytes (got '%s')", optarg);
            opt.path = optarg;
            break;
        case O_CTO: opt.connect_timeout = parse_double("connect-timeout", optarg, 0, 86400, true); break;
        case O_JSON: opt.json_path = optarg; break;
        case O_SETTLE: opt.settle = parse_double("settle", optarg, 0, 3600, false); break;
        case O_THREADS: opt.threads = parse_long("threads", optarg, 1, 64); break;
        case O_POST_PORT: opt.post_port = (int)parse_long("post-port", optarg, 1, 65535); break;
        case O_POST_PATH:
            if (optarg[0] != '/' || strlen(optarg) > 1024 || strpbrk(optarg, " \r\n"))
                usage_error("--post-path must start with '/', have no spaces or line breaks and be at most 1024 bytes (got '%s')", optarg);
            opt.post_path = optarg;
            break;
        case O_HELP: usage(stdout); exit(0);
        default:
            usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) usage_error("unexpected argument '%s'", argv[optind]);
    if (llround(opt.rate * opt.duration) < 1) usage_error("--rate x --duration must be at least 1 post%s", "");
    if (opt.rate * opt.duration > 10000000) usage_error("--rate x --duration is limited to 10,000,000 posts%s", "");
    if (opt.family == AF_INET6)
        ((struct sockaddr_in6 *)&opt.addr)->sin6_port = htons((uint16_t)opt.port);
    else
        ((struct sockaddr_in *)&opt.addr)->sin_port = htons((uint16_t)opt.port);
    snprintf(opt.host_header, sizeof opt.host_header, opt.family == AF_INET6 ? "[%s]:%d" : "%s:%d",
             opt.host, opt.port);
    opt.post_addr = opt.addr;
    if (opt.post_port) {
        if (opt.family == AF_INET6)
            ((struct sockaddr_in6 *)&opt.post_addr)->sin6_port = htons((uint16_t)opt.post_port);
        else
            ((struct sockaddr_in *)&opt.post_addr)->sin_port = htons((uint16_t)opt.post_port);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* time, /proc */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile sig_atomic_t interrupted = 0;
static void on_signal(int sig) { (void)sig; interrupted = 1; }

/* /proc/PID/NAME opened for reading, or NULL (also for no PID). */
static FILE *open_proc(long pid, const char *name) {
    if (pid <= 0) return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
    return fopen(path, "r");
}

/* VmRSS in kB, or -1. */
static long read_rss_kb(long pid) {
    FILE *f = open_proc(pid, "status");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

/* utime + stime in seconds, or -1. */
static double read_proc_cpu_s(long pid) {
    FILE *f = open_proc(pid, "stat");
    if (!f) return -1;
    char buf[2048];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    /* after ")": field 3 (state) ... field 14 utime, 15 stime */
    unsigned long long ut = 0, st = 0;
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu_s(double *user, double *sys) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (user) *user = u;
    if (sys) *sys = s;
    return u + s;
}

/* ------------------------------------------------------------------------------------------ */
/* latency histogram: exact below 128 us, then 128 sub-buckets per power of two (< 0.8% wide) */

#define HIST_SUB 128
#define HIST_BUCKETS ((64 - 6) * HIST_SUB)
/* Per reader thread (merged into the main thread's after the run). */
static _Thread_local uint64_t hist[HIST_BUCKETS];
static _Thread_local uint64_t hist_n;
static _Thread_local uint64_t lat_max_ns;
static _Thread_local double lat_sum_us;

static int hist_index(uint64_t us) {
    if (us < HIST_SUB) return (int)us;
    int e = 63 - __builtin_clzll(us); /* >= 7 */
    uint64_t sub = (us >> (e - 7)) & (HIST_SUB - 1);
    return (e - 6) * HIST_SUB + (int)sub;
}

/* the middle of bucket i, in us */
static double hist_value(int i) {
    if (i < HIST_SUB) return (double)i + 0.5;
    int e = i / HIST_SUB + 6;
    uint64_t sub = (uint64_t)(i % HIST_SUB);
    double width = ldexp(1.0, e - 7);
    return (double)(HIST_SUB + sub) * width + width / 2;
}

static void record_latency(uint64_t ns) {
    if (ns > lat_max_ns) lat_max_ns = ns;
    uint64_t us = ns / 1000;
    hist[hist_index(us)]++;
    hist_n++;
    lat_sum_us += (double)ns / 1000.0;
}

/* percentile q (0..1) in ms, capped at the exact max */
static double hist_percentile_ms(double q) {
    if (hist_n == 0) return NAN;
    uint64_t rank = (uint64_t)ceil(q * (double)hist_n);
    if (rank < 1) rank = 1;
    uint64_t seen = 0;
    for (int i = 0; i < HIST_BUCKETS; i++) {
        seen += hist[i];
        if (seen >= rank) {
            double v = hist_value(i) / 1000.0;
            double mx = (double)lat_max_ns / 1e6;
            return v > mx ? mx : v;
        }
    }
    return (double)lat_max_ns / 1e6;
}

/* ------------------------------------------------------------------------------------------ */
/* version -> send time, written by the posting thread, read by the subscriber thread */

typedef struct {
    _Atomic uint64_t key; /* version + 1; 0 = empty */
    uint64_t send_ns;
} vslot_t;

static vslot_t *vmap;
static uint64_t vmask;

static bool vmap_put(uint64_t version, uint64_t send_ns) {
    for (uint64_t i = version & vmask;; i = (i + 1) & vmask) {
        uint64_t k = atomic_load_explicit(&vmap[i].key, memory_order_relaxed);
        if (k == version + 1) return false; /* the server returned this version twice */
        if (k == 0) {
            vmap[i].send_ns = send_ns;
            atomic_store_explicit(&vmap[i].key, version + 1, memory_order_release);
            return true;
        }
    }
}

static bool vmap_get(uint64_t version, uint64_t *send_ns) {
    for (uint64_t i = version & vmask;; i = (i + 1) & vmask) {
        uint64_t k = atomic_load_explicit(&vmap[i].key, memory_order_acquire);
        if (k == 0) return false;
        if (k == version + 1) {
            *send_ns = vmap[i].send_ns;
            return true;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* posting thread */

static struct {
    uint64_t planned, posted, errors, unsent, dup_versions;
    uint64_t vmin, vmax;
    int last_bad_status;
    char last_error[160];
    uint64_t rtt_max_ns;
    double rtt_sum_ns;
    uint64_t t_first_ns, t_last_ns;
    uint64_t reconnects;
} post;
static atomic_bool poster_done;
static char *post_request;
static size_t post_request_len;

static int blocking_connect(void) {
    int fd = socket(opt.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct timeval tv = {.tv_sec = POST_IO_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* also bounds connect() */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&opt.post_addr, opt.addrlen) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static bool write_all(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += n;
        len -= (size_t)n;
    }
    return true;
}

static const char *find_ci(const char *hay, size_t len, const char *needle) {
    size_t nl = strlen(needle);
    for (size_t i = 0; i + nl <= len; i++)
        if (strncasecmp(hay + i, needle, nl) == 0) return hay + i;
    return NULL;
}

/* Reads one response. Returns the status (or -1 on I/O or protocol error); *version = -1 if absent. */
static int read_post_response(int fd, int64_t *version, bool *close_after, char *err, size_t errlen) {
    char buf[16384];
    size_t have = 0, head_end = 0;
    *version = -1;
    *close_after = false;
    for (;;) {
        if (have == sizeof buf - 1) { snprintf(err, errlen, "response too large"); return -1; }
        ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(err, errlen, "response read: %s", n == 0 ? "connection closed" : strerror(errno));
            return -1;
        }
        have += (size_t)n;
        buf[have] = 0;
        char *e = strstr(buf, "\r\n\r\n");
        if (e) { head_end = (size_t)(e - buf) + 4; break; }
    }
    int status;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) { snprintf(err, errlen, "bad status line"); return -1; }
    long clen = -1;
    const char *h = find_ci(buf, head_end, "\r\ncontent-length:");
    if (h) clen = strtol(h + 17, NULL, 10);
    const char *c = find_ci(buf, head_end, "\r\nconnection:");
    if (c && find_ci(c + 13, head_end - (size_t)(c + 13 - buf), "close") != NULL) {
        const char *eol = strstr(c + 2, "\r\n");
        const char *cl = find_ci(c + 13, head_end - (size_t)(c + 13 - buf), "close");
        if (eol && cl < eol) *close_after = true;
    }
    if (clen < 0) {
        /* chunked or until-close: not expected from this server; give up on the connection */
        *close_after = true;
        snprintf(err, errlen, "response without Content-Length (status %d)", status);
        return status == 200 ? -1 : status;
    }
    if ((size_t)clen > sizeof buf - 1 - head_end) { snprintf(err, errlen, "response body too large"); return -1; }
    while (have < head_end + (size_t)clen) {
        ssize_t n = read(fd, buf + have, head_end + (size_t)clen - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(err, errlen, "response body read: %s", n == 0 ? "connection closed" : strerror(errno));
            return -1;
        }
        have += (size_t)n;
    }
    buf[head_end + (size_t)clen] = 0;
    const char *v = strstr(buf + head_end, "\"version\":");
    if (v) {
        char *end;
        unsigned long long x = strtoull(v + 10, &end, 10);
        if (end != v + 10) *version = (int64_t)x;
    }
    if (status != 200) snprintf(err, errlen, "status %d: %.100s", status, buf + head_end);
    return status;
}

static void sleep_until(uint64_t t) {
    struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ULL), .tv_nsec = (long)(t % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !interrupted) {}
}

static void *poster_main(void *arg) {
    (void)arg;
    int fd = -1;
    uint64_t t0 = now_ns() + 1000000; /* 1 ms from now */
    uint64_t hard_deadline = t0 + (uint64_t)(opt.duration * 1e9) + POST_GRACE_NS;
    char err[160];
    post.t_first_ns = t0;
    for (uint64_t k = 0; k < post.planned; k++) {
        if (interrupted) {
            post.unsent += post.planned - k;
            snprintf(post.last_error, sizeof post.last_error, "interrupted");
            break;
        }
        sleep_until(t0 + (uint64_t)llround((double)k * 1e9 / opt.rate)); /* absolute schedule */
        if (now_ns() > hard_deadline) {
            post.unsent += post.planned - k;
            snprintf(post.last_error, sizeof post.last_error, "fell more than 5 s behind the schedule");
            break;
        }
        if (fd < 0) {
            fd = blocking_connect();
            if (fd < 0) {
                post.errors++;
                snprintf(post.last_error, sizeof post.last_error, "connect: %s", strerror(errno));
                continue;
            }
            if (k > 0) post.reconnects++;
        }
        uint64_t sent = now_ns();
        if (!write_all(fd, post_request, post_request_len)) {
            post.errors++;
            snprintf(post.last_error, sizeof post.last_error, "write: %s", strerror(errno));
            close(fd);
            fd = -1;
            continue;
        }
        int64_t version;
        bool close_after;
        err[0] = 0;
        int status = read_post_response(fd, &version, &close_after, err, sizeof err);
        uint64_t done = now_ns();
        post.t_last_ns = sent;
        if (status < 0 || close_after) {
            close(fd);
            fd = -1;
        }
        if (status != 200 || version < 0) {
            post.errors++;
            if (status > 0 && status != 200) post.last_bad_status = status;
            if (status == 200) snprintf(err, sizeof err, "200 without a version");
            snprintf(post.last_error, sizeof post.last_error, "%s", err);
            continue;
        }
        if (!vmap_put((uint64_t)version, sent)) {
            post.dup_versions++;
            post.errors++;
            snprintf(post.last_error, sizeof post.last_error, "version %" PRId64 " returned twice", version);
            continue;
        }
        if (post.posted == 0 || (uint64_t)version < post.vmin) post.vmin = (uint64_t)version;
        if (post.posted == 0 || (uint64_t)version > post.vmax) post.vmax = (uint64_t)version;
        post.posted++;
        uint64_t rtt = done - sent;
        if (rtt > post.rtt_max_ns) post.rtt_max_ns = rtt;
        post.rtt_sum_ns += (double)rtt;
    }
    if (fd >= 0) close(fd);
    atomic_store(&poster_done, true);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* subscribers */

enum { S_QUEUED, S_CONNECTING, S_SENDING, S_HEAD, S_BODY, S_CLOSED };
enum { CH_SIZE, CH_EXT, CH_DATA, CH_DATA_END, CH_TRAILER, CH_IDENTITY };
enum { SSE_LINE, SSE_FIELD, SSE_ID, SSE_SKIP };
enum { E_REFUSED, E_RESET, E_STATUS, E_EOF, E_PROTO, E_OTHER, E_COUNT };
static const char *err_names[E_COUNT] = {"refused", "reset", "non-200", "closed-early", "protocol", "other"};

typedef struct {
    int fd;
    uint8_t st, tries, ch, sse;
    uint8_t chunked, got_first, counted, ended;
    uint8_t fieldlen, has_id, has_data, id_digits;
    uint8_t reader;           /* the reader thread that polls it while posting (0: main) */
    uint16_t reqoff, headlen;
    char field[8];
    char *head;
    uint64_t chunk_left;
    uint64_t pend_id, first_id, last_id;
    uint64_t retry_at_ns;
    uint32_t events, ooo, dups, heartbeats;
    uint64_t reads, bytes;
} sub_t;

static sub_t *subs;
static _Thread_local int ep; /* each reader thread polls its own share of the subscribers */
static char *get_request;
static size_t get_request_len;
static uint32_t *queue;
static size_t q_head, q_tail;

/* The counters of stats_t that are plain sums of every thread's: declared and added up from this
   one list (stats_t, merge_reader_stats). */
#define SUMMED_COUNTERS(X) \
    X(events_total) X(events_run) X(reads_total) X(reads_run) X(bytes_total) X(bytes_run) \
    X(heartbeats) X(ooo) X(dups) X(gaps) X(noid) X(received) X(unexpected)

/* Per reader thread: phase 1 runs on the main thread alone; while posting, each reader thread
   counts into its own copy, and the main thread adds them up afterwards (merge_reader_stats). */
typedef struct {
    int phase;                /* 1 connecting, 2 posting + settle */
    uint64_t arrival_ns;      /* when the current read returned */
    long inflight;            /* started, no first event yet, not closed */
    long got_first;           /* ever got a first event */
    long failed;              /* gave up before a first event */
    long drops;               /* closed after the first event */
    long closed_clean;        /* of those, ended with the chunked terminator */
    uint64_t errs[E_COUNT];
    int last_bad_status;
    char last_error[160];
#define DECLARE_COUNTER(name) uint64_t name;
    SUMMED_COUNTERS(DECLARE_COUNTER)
    uint64_t *pending;        /* (version, arrival) pairs not yet mappable to a post */
    size_t pending_n, pending_cap;
} stats_t;
static _Thread_local stats_t g;

static void pending_push(uint64_t version, uint64_t t) {
    if (g.pending_n == g.pending_cap) {
        size_t cap = g.pending_cap ? g.pending_cap * 2 : 65536;
        uint64_t *p = realloc(g.pending, cap * 2 * sizeof *p);
        if (!p) { fprintf(stderr, "sse-fanout: out of memory\n"); exit(1); }
        g.pending = p;
        g.pending_cap = cap;
    }
    g.pending[2 * g.pending_n] = version;
    g.pending[2 * g.pending_n + 1] = t;
    g.pending_n++;
}

static void reset_parser(sub_t *s) {
    s->ch = CH_SIZE;
    s->sse = SSE_LINE;
    s->chunked = 0;
    s->ended = 0;
    s->fieldlen = s->has_id = s->has_data = s->id_digits = 0;
    s->reqoff = s->headlen = 0;
    s->chunk_left = 0;
    s->pend_id = 0;
}

static void sub_close(sub_t *s) {
    if (s->fd >= 0) close(s->fd); /* also leaves the epoll set */
    s->fd = -1;
    free(s->head);
    s->head = NULL;
    s->st = S_CLOSED;
}

static void sub_fail(sub_t *s, int kind, const char *what) {
    uint32_t idx = (uint32_t)(s - subs);
    sub_close(s);
    if (s->got_first) {
        g.drops++;
        if (s->ended) g.closed_clean++;
        return;
    }
    g.inflight--;
    g.errs[kind]++;
    snprintf(g.last_error, sizeof g.last_error, "%s", what);
    if (g.phase == 1 && s->tries < MAX_TRIES && !interrupted) {
        reset_parser(s);
        s->st = S_QUEUED;
        s->retry_at_ns = now_ns() + RETRY_DELAY_NS; /* the queue stays ordered by due time */
        queue[q_tail++] = idx; /* at most N entries live: each index is queued once at a time */
        if (q_tail == (size_t)opt.subscribers + 1) q_tail = 0;
    } else {
        g.failed++;
    }
}

static int errno_kind(int e) {
    if (e == ECONNREFUSED) return E_REFUSED;
    if (e == ECONNRESET || e == EPIPE) return E_RESET;
    return E_OTHER;
}

static void on_event(sub_t *s, bool has_id, uint64_t id) {
    g.events_total++;
    if (g.phase == 2) g.events_run++;
    s->events++;
    if (!has_id) { g.noid++; return; }
    if (!s->got_first) {
        s->got_first = 1;
        s->first_id = s->last_id = id;
        g.got_first++;
        g.inflight--;
        return;
    }
    if (id == s->last_id) { s->dups++; g.dups++; return; }
    if (id < s->last_id) { s->ooo++; g.ooo++; return; }
    if (id > s->last_id + 1) g.gaps += id - s->last_id - 1;
    s->last_id = id;
    if (!s->counted) return;
    uint64_t sent;
    if (vmap_get(id, &sent)) {
        g.received++;
        record_latency(g.arrival_ns > sent ? g.arrival_ns - sent : 0);
    } else {
        pending_push(id, g.arrival_ns); /* the POST's response is not parsed yet, or not ours */
    }
}

/* SSE over the decoded body bytes. */
static void sse_feed(sub_t *s, const char *p, size_t n) {
    const char *end = p + n;
    while (p < end) {
        switch (s->sse) {
        case SSE_LINE: {
            char c = *p++;
            if (c == '\n') { /* blank line: dispatch */
                if (s->has_id || s->has_data) on_event(s, s->has_id, s->pend_id);
                s->has_id = s->has_data = 0;
                s->pend_id = 0;
            } else if (c == '\r') {
                /* CRLF line ends */
            } else if (c == ':') {
                s->heartbeats++;
                g.heartbeats++;
                s->sse = SSE_SKIP;
            } else {
                s->field[0] = c;
                s->fieldlen = 1;
                s->sse = SSE_FIELD;
            }
            break;
        }
        case SSE_FIELD: {
            char c = *p++;
            if (c == ':' || c == '\n') {
                bool is_id = s->fieldlen == 2 && memcmp(s->field, "id", 2) == 0;
                bool is_data = s->fieldlen == 4 && memcmp(s->field, "data", 4) == 0;
                if (is_data) s->has_data = 1;
                if (c == '\n') {
                    if (is_id) { s->has_id = 0; s->pend_id = 0; } /* empty id resets it */
                    s->sse = SSE_LINE;
                } else if (is_id) {
                    s->pend_id = 0;
                    s->id_digits = 0;
                    s->sse = SSE_ID;
                } else {
                    s->sse = SSE_SKIP;
                }
            } else if (c != '\r') {
                if (s->fieldlen < sizeof s->field) s->field[s->fieldlen] = c;
                if (s->fieldlen < 255) s->fieldlen++;
            }
            break;
        }
        case SSE_ID: {
            char c = *p++;
            if (c >= '0' && c <= '9') {
                s->pend_id = s->pend_id * 10 + (uint64_t)(c - '0');
                if (s->id_digits < 255) s->id_digits++;
            } else if (c == '\n') {
                s->has_id = s->id_digits > 0;
                s->sse = SSE_LINE;
            } else if (c == ' ' && s->id_digits == 0) {
                /* the optional space after the colon */
            } else if (c == '-' && s->id_digits > 0) {
                /* "<version>-<instance>": the version is what counts; skip the instance token */
                s->has_id = 1;
                s->sse = SSE_SKIP;
            } else if (c != '\r') {
                s->id_digits = 0; /* not a number: treat as no id */
                s->sse = SSE_SKIP;
            }
            break;
        }
        case SSE_SKIP: {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) return;
            p = nl + 1;
            s->sse = SSE_LINE;
            break;
        }
        }
    }
}

/* Chunked transfer decoding; returns false on a protocol error. */
static bool body_feed(sub_t *s, const char *p, size_t n) {
    if (!s->chunked) { sse_feed(s, p, n); return true; }
    const char *end = p + n;
    while (p < end) {
        switch (s->ch) {
        case CH_SIZE: {
            char c = *p++;
            if (isxdigit((unsigned char)c)) {
                if (s->chunk_left > (UINT64_MAX >> 4)) return false;
                s->chunk_left = s->chunk_left * 16 + (uint64_t)(isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10));
            } else if (c == ';') {
                s->ch = CH_EXT;
            } else if (c == '\r' || c == ' ' || c == '\t') {
            } else if (c == '\n') {
                s->ch = s->chunk_left ? CH_DATA : CH_TRAILER;
                if (!s->chunk_left) s->ended = 1;
            } else {
                return false;
            }
            break;
        }
        case CH_EXT: {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) return true;
            p = nl + 1;
            s->ch = s->chunk_left ? CH_DATA : CH_TRAILER;
            if (!s->chunk_left) s->ended = 1;
            break;
        }
        case CH_DATA: {
            size_t take = (size_t)(end - p);
            if (take > s->chunk_left) take = (size_t)s->chunk_left;
            sse_feed(s, p, take);
            p += take;
            s->chunk_left -= take;
            if (!s->chunk_left) s->ch = CH_DATA_END;
            break;
        }
        case CH_DATA_END: {
            char c = *p++;
            if (c == '\n') s->ch = CH_SIZE;
            else if (c != '\r') return false;
            break;
        }
        case CH_TRAILER:
            return true; /* stream ended; the server should close next */
        }
    }
    return true;
}

static void sub_head_done(sub_t *s) {
    int status = 0;
    if (sscanf(s->head, "HTTP/1.%*d %d", &status) != 1) {
        sub_fail(s, E_PROTO, "unparsable response status line");
        return;
    }
    if (status != 200) {
        g.last_bad_status = status;
        char what[64];
        snprintf(what, sizeof what, "GET /events answered %d", status);
        sub_fail(s, E_STATUS, what);
        return;
    }
    const char *te = find_ci(s->head, s->headlen, "\r\ntransfer-encoding:");
    if (te) {
        const char *eol = strstr(te + 2, "\r\n");
        const char *ch = find_ci(te, (size_t)(s->head + s->headlen - te), "chunked");
        s->chunked = ch && eol && ch < eol;
    }
    s->ch = s->chunked ? CH_SIZE : CH_IDENTITY;
    free(s->head);
    s->head = NULL;
    s->st = S_BODY;
}

static _Thread_local char readbuf[READ_BUF];

static void sub_readable(sub_t *s) {
    ssize_t n = read(s->fd, readbuf, sizeof readbuf);
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return;
        int e = errno;
        sub_fail(s, errno_kind(e), strerror(e));
        return;
    }
    if (n == 0) {
        sub_fail(s, E_EOF, s->st == S_HEAD ? "closed before the response head" : "closed before the first event");
        return;
    }
    g.arrival_ns = now_ns();
    s->reads++;
    s->bytes += (uint64_t)n;
    g.reads_total++;
    g.bytes_total += (uint64_t)n;
    if (g.phase == 2) { g.reads_run++; g.bytes_run += (uint64_t)n; }
    const char *p = readbuf;
    size_t len = (size_t)n;
    if (s->st == S_HEAD) {
        size_t old = s->headlen;
        size_t take = len < (size_t)(HEAD_CAP - 1 - old) ? len : (size_t)(HEAD_CAP - 1 - old);
        memcpy(s->head + old, p, take);
        s->headlen = (uint16_t)(old + take);
        s->head[s->headlen] = 0;
        size_t from = old >= 3 ? old - 3 : 0;
        char *e = strstr(s->head + from, "\r\n\r\n");
        if (!e) {
            if (s->headlen >= HEAD_CAP - 1) sub_fail(s, E_PROTO, "response head too large");
            return;
        }
        size_t head_end = (size_t)(e - s->head) + 4;
        size_t used = head_end - old;
        s->headlen = (uint16_t)head_end;
        s->head[head_end] = 0;
        sub_head_done(s);
        if (s->st != S_BODY) return;
        p += used;
        len -= used;
    }
    if (len && !body_feed(s, p, len)) sub_fail(s, E_PROTO, "bad chunked encoding");
}

static void sub_writable(sub_t *s) {
    if (s->st == S_CONNECTING) {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
            sub_fail(s, errno_kind(err), strerror(err));
            return;
        }
        s->st = S_SENDING;
    }
    while (s->reqoff < get_request_len) {
        ssize_t n = write(s->fd, get_request + s->reqoff, get_request_len - s->reqoff);
        if (n < 0) {
            if (errno == EAGAIN) return; /* EPOLLOUT stays armed */
            if (errno == EINTR) continue;
            int e = errno;
            sub_fail(s, errno_kind(e), strerror(e));
            return;
        }
        s->reqoff = (uint16_t)(s->reqoff + n);
    }
    s->head = malloc(HEAD_CAP);
    if (!s->head) { fprintf(stderr, "sse-fanout: out of memory\n"); exit(1); }
    s->headlen = 0;
    s->st = S_HEAD;
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)(s - subs)};
    if (epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &ev) != 0) sub_fail(s, E_OTHER, "epoll_ctl MOD");
}

/* Returns false only on a fatal local error (out of descriptors). */
static bool sub_start(uint32_t idx) {
    sub_t *s = &subs[idx];
    reset_parser(s);
    s->tries++;
    g.inflight++;
    s->fd = socket(opt.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) {
        int e = errno;
        fprintf(stderr, "sse-fanout: socket(): %s\n", strerror(e));
        g.inflight--;
        s->st = S_CLOSED;
        g.failed++;
        return !(e == EMFILE || e == ENFILE);
    }
    struct epoll_event ev = {.events = EPOLLOUT, .data.u32 = idx};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
        sub_fail(s, E_OTHER, "epoll_ctl ADD");
        return true;
    }
    s->st = S_CONNECTING;
    if (connect(s->fd, (struct sockaddr *)&opt.addr, opt.addrlen) != 0 && errno != EINPROGRESS) {
        int e = errno;
        sub_fail(s, errno_kind(e), strerror(e));
    }
    /* on immediate success EPOLLOUT fires at once */
    return true;
}

#define MAX_EVENTS 1024
static _Thread_local struct epoll_event evs[MAX_EVENTS];

static void poll_once(int timeout_ms) {
    int n = epoll_wait(ep, evs, MAX_EVENTS, timeout_ms);
    for (int i = 0; i < n; i++) {
        sub_t *s = &subs[evs[i].data.u32];
        switch (s->st) {
        case S_CONNECTING:
        case S_SENDING:
            sub_writable(s);
            break;
        case S_HEAD:
        case S_BODY:
            sub_readable(s);
            break;
        default:
            break; /* stale event for a descriptor closed earlier in this batch */
        }
    }
}

static int ms_until(uint64_t t, int cap) {
    uint64_t n = now_ns();
    if (t <= n) return 0;
    uint64_t ms = (t - n + 999999) / 1000000;
    return ms > (uint64_t)cap ? cap : (int)ms;
}

/* ------------------------------------------------------------------------------------------ */
/* reading while posting, on one or more threads */

/* Polls this thread's subscribers until posting is over and either every one of them has the
   last posted version or the settle time has passed. */
static void read_until_settled(uint8_t reader) {
    long n = opt.subscribers;
    uint64_t settle_deadline = 0;
    uint64_t next_check = 0;
    while (!interrupted) {
        if (!settle_deadline && atomic_load(&poster_done)) {
            settle_deadline = now_ns() + (uint64_t)(opt.settle * 1e9);
            next_check = 0;
        }
        if (settle_deadline) {
            uint64_t t = now_ns();
            if (t >= settle_deadline) break;
            if (t >= next_check) { /* all done early? every live counted subscriber has the last version */
                next_check = t + 20000000;
                bool all = true;
                for (long i = 0; i < n && all; i++)
                    if (subs[i].reader == reader && subs[i].counted && subs[i].st == S_BODY &&
                        subs[i].last_id < post.vmax)
                        all = false;
                if (all) break;
            }
            poll_once(ms_until(settle_deadline, 20));
        } else {
            poll_once(50);
        }
    }
}

/* What a reader thread hands back: its counters and its latency histogram. */
typedef struct {
    pthread_t thread;
    int epoll;
    uint8_t index;
    stats_t stats;
    uint64_t *hist;
    uint64_t hist_n, lat_max_ns;
    double lat_sum_us;
} reader_t;

static void *reader_main(void *arg) {
    reader_t *r = arg;
    ep = r->epoll;
    g.phase = 2;
    read_until_settled(r->index);
    r->stats = g;
    memcpy(r->hist, hist, sizeof hist);
    r->hist_n = hist_n;
    r->lat_max_ns = lat_max_ns;
    r->lat_sum_us = lat_sum_us;
    return NULL;
}

/* Adds a finished reader thread's figures to this (the main) thread's. */
static void merge_reader_stats(const reader_t *r) {
    const stats_t *o = &r->stats;
    g.drops += o->drops;
    g.closed_clean += o->closed_clean;
    g.failed += o->failed;
    for (int i = 0; i < E_COUNT; i++) g.errs[i] += o->errs[i];
    if (o->last_bad_status) g.last_bad_status = o->last_bad_status;
    if (o->last_error[0]) memcpy(g.last_error, o->last_error, sizeof g.last_error);
#define ADD_COUNTER(name) g.name += o->name;
    SUMMED_COUNTERS(ADD_COUNTER)
    for (size_t i = 0; i < o->pending_n; i++) pending_push(o->pending[2 * i], o->pending[2 * i + 1]);
    free(o->pending);
    for (int i = 0; i < HIST_BUCKETS; i++) hist[i] += r->hist[i];
    hist_n += r->hist_n;
    if (r->lat_max_ns > lat_max_ns) lat_max_ns = r->lat_max_ns;
    lat_sum_us += r->lat_sum_us;
}

/* Gives reader thread k (1...count-1) every subscriber i with i % count == k that is reading its
   body, moving it from this thread's epoll set to the reader's, and starts the threads. The
   others stay with the main thread (reader 0). Returns how many threads started. */
static long start_readers(reader_t *readers, long count) {
    for (long k = 1; k < count; k++) {
        readers[k].index = (uint8_t)k;
        readers[k].epoll = epoll_create1(EPOLL_CLOEXEC);
        readers[k].hist = calloc(HIST_BUCKETS, sizeof(uint64_t));
        if (readers[k].epoll < 0 || !readers[k].hist) { fprintf(stderr, "sse-fanout: cannot set up readers\n"); exit(1); }
    }
    for (long i = 0; i < opt.subscribers; i++) {
        sub_t *s = &subs[i];
        long k = i % count;
        if (k == 0 || s->fd < 0 || (s->st != S_BODY && s->st != S_HEAD)) continue;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        if (epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL) != 0 ||
            epoll_ctl(readers[k].epoll, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
            perror("sse-fanout: moving a subscriber to its reader thread");
            exit(1);
        }
        s->reader = (uint8_t)k;
    }
    for (long k = 1; k < count; k++) {
        if (pthread_create(&readers[k].thread, NULL, reader_main, &readers[k]) != 0) {
            fprintf(stderr, "sse-fanout: cannot start reader thread %ld\n", k);
            exit(1);
        }
    }
    return count - 1;
}

/* ------------------------------------------------------------------------------------------ */
/* setup */

static void raise_nofile(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) { perror("sse-fanout: getrlimit"); exit(1); }
    rlim_t want = rl.rlim_max;
    if (want == RLIM_INFINITY) {
        FILE *f = fopen("/proc/sys/fs/nr_open", "r");
        unsigned long long nr = 1048576;
        if (f) { if (fscanf(f, "%llu", &nr) != 1) nr = 1048576; fclose(f); }
        want = (rlim_t)nr;
    }
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) { perror("sse-fanout: setrlimit(RLIMIT_NOFILE)"); exit(1); }
    rlim_t need = (rlim_t)opt.subscribers + 64;
    if (want < need) {
        fprintf(stderr,
                "sse-fanout: the open-file hard limit is %llu, too low for %ld subscribers (need %llu); "
                "raise it (ulimit -Hn, limits.conf, or docker --ulimit nofile=...)\n",
                (unsigned long long)want, opt.subscribers, (unsigned long long)need);
        exit(1);
    }
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        long lo, hi;
        if (fscanf(f, "%ld %ld", &lo, &hi) == 2 && hi - lo + 1 < opt.subscribers + 16)
            fprintf(stderr, "sse-fanout: warning: only %ld ephemeral ports (%ld-%ld) for %ld subscribers\n",
                    hi - lo + 1, lo, hi, opt.subscribers);
        fclose(f);
    }
}

static void build_requests(void) {
    size_t blen = strlen(opt.action);
    size_t cap = blen + strlen(opt.post_path) + 256;
    post_request = malloc(cap);
    get_request = malloc(strlen(opt.path) + 256);
    if (!post_request || !get_request) { fprintf(stderr, "sse-fanout: out of memory\n"); exit(1); }
    int n = snprintf(post_request, cap,
                     "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n%s", opt.post_path, opt.host_header, blen, opt.action);
    post_request_len = (size_t)n;
    n = snprintf(get_request, strlen(opt.path) + 256, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n",
                 opt.path, opt.host_header);
    get_request_len = (size_t)n;
}

/* ------------------------------------------------------------------------------------------ */
/* report */

static void fmt_mb(char *out, size_t n, long kb) {
    if (kb < 0) snprintf(out, n, "n/a");
    else snprintf(out, n, "%.1f MB", (double)kb / 1024.0);
}

static void json_num(FILE *f, const char *key, double v, int decimals, bool last) {
    if (isnan(v) || v < 0) fprintf(f, "  \"%s\": null%s\n", key, last ? "" : ",");
    else fprintf(f, "  \"%s\": %.*f%s\n", key, decimals, v, last ? "" : ",");
}

int main(int argc, char **argv) {
    parse_options(argc, argv);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    raise_nofile();
    build_requests();

    long n = opt.subscribers;
    subs = calloc((size_t)n, sizeof *subs);
    queue = malloc(((size_t)n + 1) * sizeof *queue);
    post.planned = (uint64_t)llround(opt.rate * opt.duration);
    uint64_t vcap = 1024;
    while (vcap < post.planned * 2) vcap <<= 1;
    vmap = calloc(vcap, sizeof *vmap);
    vmask = vcap - 1;
    if (!subs || !queue || !vmap) { fprintf(stderr, "sse-fanout: out of memory\n"); return 1; }
    for (long i = 0; i < n; i++) {
        subs[i].fd = -1;
        queue[q_tail++] = (uint32_t)i;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) { perror("sse-fanout: epoll_create1"); return 1; }

    long rss_before = read_rss_kb(opt.server_pid);
    if (opt.server_pid && rss_before < 0)
        fprintf(stderr, "sse-fanout: warning: cannot read /proc/%ld/status; RSS not reported\n", opt.server_pid);

    /* phase 1: connect, paced, until every subscriber has its first event */
    uint64_t t_start = now_ns();
    uint64_t connect_deadline = t_start + (uint64_t)(opt.connect_timeout * 1e9);
    g.phase = 1;
    bool fatal = false;
    while (!interrupted) {
        uint64_t t = now_ns();
        while (q_head != q_tail && g.inflight < CONNECT_BATCH && subs[queue[q_head]].retry_at_ns <= t) {
            uint32_t idx = queue[q_head++];
            if (q_head == (size_t)n + 1) q_head = 0;
            if (!sub_start(idx)) { fatal = true; break; }
        }
        if (fatal) break;
        if (g.got_first + g.failed >= n) break;
        if (now_ns() >= connect_deadline) break;
        poll_once(ms_until(connect_deadline, 50));
    }
    uint64_t t_connected = now_ns();
    if (fatal) {
        fprintf(stderr, "sse-fanout: out of file descriptors while connecting\n");
        for (long i = 0; i < n; i++) if (subs[i].fd >= 0) close(subs[i].fd);
        return 1;
    }

    long connected = 0;
    uint64_t vbase = 0;
    for (long i = 0; i < n; i++) {
        if (subs[i].got_first && subs[i].st == S_BODY) {
            subs[i].counted = 1;
            connected++;
            if (subs[i].last_id > vbase) vbase = subs[i].last_id;
        }
    }
    long rss_connected = read_rss_kb(opt.server_pid);
    fprintf(stderr, "sse-fanout: %ld/%ld subscribers have their first event after %.2f s%s\n", connected, n,
            (double)(t_connected - t_start) / 1e9, connected ? "; posting" : "");

    /* phase 2: post from a second thread, keep reading here and on the other reader threads */
    double cpu_run0 = self_cpu_s(NULL, NULL);
    double srv_cpu0 = read_proc_cpu_s(opt.server_pid);
    g.phase = 2;
    long reader_count = opt.threads < n ? opt.threads : n;
    reader_t *readers = calloc((size_t)reader_count, sizeof *readers);
    if (!readers) { fprintf(stderr, "sse-fanout: out of memory\n"); return 1; }
    long readers_started = (connected > 0 && !interrupted) ? start_readers(readers, reader_count) : 0;
    uint64_t t_post = now_ns();
    pthread_t poster;
    bool poster_started = false;
    if (connected > 0 && !interrupted) {
        if (pthread_create(&poster, NULL, poster_main, NULL) != 0) {
            fprintf(stderr, "sse-fanout: cannot start the posting thread\n");
            for (long i = 0; i < n; i++) if (subs[i].fd >= 0) close(subs[i].fd);
            return 1;
        }
        poster_started = true;
    } else {
        atomic_store(&poster_done, true);
    }
    read_until_settled(0);
    for (long k = 1; k <= readers_started; k++) {
        pthread_join(readers[k].thread, NULL);
        merge_reader_stats(&readers[k]);
        close(readers[k].epoll);
        free(readers[k].hist);
    }
    free(readers);
    if (poster_started) pthread_join(poster, NULL);
    uint64_t t_end = now_ns();
    double cpu_run = self_cpu_s(NULL, NULL) - cpu_run0;
    double srv_cpu1 = read_proc_cpu_s(opt.server_pid);
    double srv_cpu_run = (srv_cpu0 >= 0 && srv_cpu1 >= 0) ? srv_cpu1 - srv_cpu0 : -1;
    long rss_after = read_rss_kb(opt.server_pid);

    /* close everything */
    long open_at_end = 0;
    for (long i = 0; i < n; i++) {
        if (subs[i].st == S_BODY) open_at_end++;
        if (subs[i].fd >= 0) { close(subs[i].fd); subs[i].fd = -1; }
        free(subs[i].head);
        subs[i].head = NULL;
    }
    close(ep);

    /* events that arrived before their POST's response was read */
    for (size_t i = 0; i < g.pending_n; i++) {
        uint64_t sent;
        if (vmap_get(g.pending[2 * i], &sent)) {
            g.received++;
            uint64_t t = g.pending[2 * i + 1];
            record_latency(t > sent ? t - sent : 0);
        } else {
            g.unexpected++;
        }
    }

    uint64_t expected = post.posted * (uint64_t)connected;
    int64_t lost = (int64_t)expected - (int64_t)g.received;
    double p50 = hist_percentile_ms(0.50), p99 = hist_percentile_ms(0.99), p999 = hist_percentile_ms(0.999);
    double maxms = hist_n ? (double)lat_max_ns / 1e6 : NAN;
    double mean = hist_n ? lat_sum_us / (double)hist_n / 1000.0 : NAN;
    double epr = g.reads_run ? (double)g.events_run / (double)g.reads_run : 0;
    /* Bytes read per event while posting: the events' wire size (chunk framing and heartbeats included). */
    double bpe = g.events_run ? (double)g.bytes_run / (double)g.events_run : NAN;
    double cpu_user, cpu_sys, cpu_total = self_cpu_s(&cpu_user, &cpu_sys);
    uint64_t connect_errors = 0;
    for (int i = 0; i < E_COUNT; i++) connect_errors += g.errs[i];
    double run_s = (double)(t_end - t_post) / 1e9;

    printf("subscribers %ld  rate %g/s  duration %gs  (host %s)%s\n", n, opt.rate, opt.duration, opt.host_header,
           interrupted ? "  INTERRUPTED: partial results" : "");
    printf("connected   %ld / %ld   (connect errors %" PRIu64, connected, n, connect_errors);
    if (connect_errors) {
        for (int i = 0; i < E_COUNT; i++)
            if (g.errs[i]) printf(", %s %" PRIu64, err_names[i], g.errs[i]);
        if (g.last_bad_status) printf(", last status %d", g.last_bad_status);
    }
    printf(")   in %.2f s\n", (double)(t_connected - t_start) / 1e9);
    if (connect_errors) printf("            last connect error: %s; gave up on %ld\n", g.last_error, g.failed);
    if (post.posted)
        printf("posted      %" PRIu64 " (errors %" PRIu64 ")   versions %" PRIu64 "..%" PRIu64
               "   post RTT avg %.2f ms max %.2f ms\n", post.posted, post.errors, post.vmin, post.vmax,
               post.rtt_sum_ns / (double)post.posted / 1e6, (double)post.rtt_max_ns / 1e6);
    else
        printf("posted      0 (errors %" PRIu64 ")\n", post.errors);
    if (post.errors || post.unsent)
        printf("            post problems: unsent %" PRIu64 ", last error: %s\n", post.unsent, post.last_error);
    printf("expected    %" PRIu64 "   received %" PRIu64 "   lost %" PRId64 "   out-of-order %" PRIu64
           "   duplicates %" PRIu64 "\n", expected, g.received, lost, g.ooo, g.dups);
    if (g.gaps || g.unexpected || g.drops || g.noid)
        printf("            id gaps %" PRIu64 "   events for versions not posted here %" PRIu64
               "   streams dropped %ld (cleanly ended %ld)   events without id %" PRIu64 "\n",
               g.gaps, g.unexpected, g.drops, g.closed_clean, g.noid);
    if (hist_n)
        printf("latency     p50 %.2f ms   p99 %.2f ms   p99.9 %.2f ms   max %.2f ms   mean %.2f ms\n",
               p50, p99, p999, maxms, mean);
    else
        printf("latency     n/a (no events for posted versions)\n");
    printf("reads       %" PRIu64 " (avg %.1f events per read, %.1f MB, %.0f bytes per event)   heartbeats %" PRIu64
           "   [posting+settle phase, %.2f s, %ld reader threads]\n", g.reads_run, epr,
           (double)g.bytes_run / 1048576.0, bpe, g.heartbeats, run_s, reader_count);
    char b1[32], b2[32], b3[32];
    fmt_mb(b1, sizeof b1, rss_before);
    fmt_mb(b2, sizeof b2, rss_connected);
    fmt_mb(b3, sizeof b3, rss_after);
    printf("server RSS  before %s   after connect %s   after run %s\n", b1, b2, b3);
    printf("cpu         tool %.2f s total (user %.2f, sys %.2f), %.2f s during posting+settle", cpu_total,
           cpu_user, cpu_sys, cpu_run);
    if (srv_cpu_run >= 0) printf("   server %.2f s during posting+settle", srv_cpu_run);
    printf("\n");

    if (opt.json_path) {
        FILE *f = fopen(opt.json_path, "w");
        if (!f) {
            fprintf(stderr, "sse-fanout: cannot write %s: %s\n", opt.json_path, strerror(errno));
            return 1;
        }
        fprintf(f, "{\n");
        json_num(f, "subscribers", (double)n, 0, false);
        json_num(f, "rate", opt.rate, 3, false);
        json_num(f, "duration", opt.duration, 3, false);
        json_num(f, "connected", (double)connected, 0, false);
        json_num(f, "connect_errors", (double)connect_errors, 0, false);
        json_num(f, "connect_seconds", (double)(t_connected - t_start) / 1e9, 3, false);
        json_num(f, "posted", (double)post.posted, 0, false);
        json_num(f, "post_errors", (double)post.errors, 0, false);
        json_num(f, "post_unsent", (double)post.unsent, 0, false);
        json_num(f, "post_rtt_avg_ms", post.posted ? post.rtt_sum_ns / (double)post.posted / 1e6 : NAN, 3, false);
        json_num(f, "post_rtt_max_ms", post.posted ? (double)post.rtt_max_ns / 1e6 : NAN, 3, false);
        json_num(f, "version_first", post.posted ? (double)post.vmin : NAN, 0, false);
        json_num(f, "version_last", post.posted ? (double)post.vmax : NAN, 0, false);
        json_num(f, "expected", (double)expected, 0, false);
        json_num(f, "received", (double)g.received, 0, false);
        fprintf(f, "  \"lost\": %" PRId64 ",\n", lost);
        json_num(f, "out_of_order", (double)g.ooo, 0, false);
        json_num(f, "duplicates", (double)g.dups, 0, false);
        json_num(f, "id_gaps", (double)g.gaps, 0, false);
        json_num(f, "streams_dropped", (double)g.drops, 0, false);
        json_num(f, "p50_ms", p50, 3, false);
        json_num(f, "p99_ms", p99, 3, false);
        json_num(f, "p999_ms", p999, 3, false);
        json_num(f, "max_ms", maxms, 3, false);
        json_num(f, "mean_ms", mean, 3, false);
        json_num(f, "reads", (double)g.reads_run, 0, false);
        json_num(f, "events_per_read", epr, 3, false);
        json_num(f, "events_run", (double)g.events_run, 0, false);
        json_num(f, "bytes_run", (double)g.bytes_run, 0, false);
        json_num(f, "bytes_per_event", bpe, 1, false);
        json_num(f, "heartbeats", (double)g.heartbeats, 0, false);
        json_num(f, "reader_threads", (double)reader_count, 0, false);
        json_num(f, "rss_before_kb", (double)rss_before, 0, false);
        json_num(f, "rss_connected_kb", (double)rss_connected, 0, false);
        json_num(f, "rss_after_kb", (double)rss_after, 0, false);
        json_num(f, "tool_cpu_s", cpu_total, 3, false);
        json_num(f, "tool_cpu_run_s", cpu_run, 3, false);
        json_num(f, "server_cpu_run_s", srv_cpu_run, 3, false);
        fprintf(f, "  \"interrupted\": %s\n", interrupted ? "true" : "false");
        fprintf(f, "}\n");
        if (fclose(f) != 0) { fprintf(stderr, "sse-fanout: writing %s failed\n", opt.json_path); return 1; }
    }
    (void)open_at_end;
    if (interrupted) return 1;
    if (connected == 0) {
        fprintf(stderr, "sse-fanout: no subscriber got its first event\n");
        return 1;
    }
    return 0;
}
