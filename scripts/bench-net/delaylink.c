/*
 * delaylink: joins two TUN devices into one point-to-point link whose packets arrive a fixed
 * time after they were sent, so a server in another network namespace looks far away.
 *
 *   delaylink --a IFNAME --b IFNAME --rtt-ms MS [--queue PACKETS] [--lifetime SECONDS]
 *             [--pid-file FILE]
 *
 * Each direction is one thread: it reads what the kernel sends out of one device, keeps it in
 * a FIFO stamped with "due = arrival + MS/2", and writes it into the other device when due.
 * Both devices are created here, in the caller's network namespace; scripts/bench-net/netns.sh
 * then moves device b into the server's namespace (a TUN device keeps working after the move).
 * The kernel's own TCP runs at both ends, so handshakes, slow start and window growth all pay
 * the round trip. No rate limit and no loss beyond a full queue (counted, printed at exit).
 *
 * Exits on SIGTERM or SIGINT, or by itself after --lifetime seconds (default 3 hours) so a
 * benchmark killed with SIGKILL cannot leave it behind for long. The devices vanish with it.
 * Scaffolding for scripts/bench.sh --rtt; not part of imgwarm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define PACKET_MAX 2048 /* bytes kept per packet; the script sets MTU 1500 */

struct packet {
    int64_t due_ns;
    uint32_t size;
    unsigned char data[PACKET_MAX];
};

struct direction {
    const char *name;
    int from, to;                /* TUN descriptors: read from `from`, write to `to` */
    int64_t delay_ns;            /* one way */
    struct packet *queue;        /* ring of `capacity` packets */
    size_t capacity, first, used;
    uint64_t forwarded, dropped_full, dropped_large, write_errors;
};

static volatile sig_atomic_t stopping;

static int64_t clock_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int open_tun(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) { perror("delaylink: /dev/net/tun"); exit(1); }
    struct ifreq request;
    memset(&request, 0, sizeof request);
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    snprintf(request.ifr_name, IFNAMSIZ, "%s", name);
    if (ioctl(fd, TUNSETIFF, &request) < 0) {
        fprintf(stderr, "delaylink: creating %s: %s\n", name, strerror(errno));
        exit(1);
    }
    if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) { perror("delaylink: O_NONBLOCK"); exit(1); }
    return fd;
}

/* Writes every packet whose time has come; returns nanoseconds until the next one is due
 * (or -1 when the queue is empty). */
static int64_t deliver(struct direction *d) {
    int64_t now = clock_ns();
    while (d->used > 0) {
        struct packet *p = &d->queue[d->first];
        if (p->due_ns > now) return p->due_ns - now;
        ssize_t written = write(d->to, p->data, p->size);
        if (written < 0 && (errno == EAGAIN || errno == EINTR)) return 20000; /* try again in 20 us */
        if (written < 0) d->write_errors++; else d->forwarded++;
        d->first = (d->first + 1) % d->capacity;
        d->used--;
    }
    return -1;
}

/* Takes in what the sending side has queued, up to a batch, stamping each packet's due time. */
static void accept_packets(struct direction *d) {
    static __thread unsigned char overflow[65536];
    for (int batch = 0; batch < 256; batch++) {
        struct packet *slot = NULL;
        unsigned char *into = overflow;
        size_t room = sizeof overflow;
        if (d->used < d->capacity) {
            slot = &d->queue[(d->first + d->used) % d->capacity];
            into = slot->data;
            room = PACKET_MAX;
        }
        ssize_t got = read(d->from, into, room);
        if (got < 0) {
            if (errno == EINTR) continue;
            return; /* EAGAIN: nothing more for now */
        }
        if (slot == NULL) { d->dropped_full++; continue; }
        if ((size_t)got >= room) { d->dropped_large++; continue; } /* possibly truncated */
        slot->size = (uint32_t)got;
        slot->due_ns = clock_ns() + d->delay_ns;
        d->used++;
    }
}

static void *run_direction(void *argument) {
    struct direction *d = argument;
    struct pollfd readable = { .fd = d->from, .events = POLLIN };
    while (!stopping) {
        int64_t wait_ns = deliver(d);
        if (wait_ns < 0 || wait_ns > 100000000LL) wait_ns = 100000000LL; /* look at `stopping` every 100 ms */
        struct timespec timeout = { wait_ns / 1000000000LL, wait_ns % 1000000000LL };
        int ready = ppoll(&readable, 1, &timeout, NULL);
        if (ready < 0 && errno != EINTR) { perror("delaylink: ppoll"); break; }
        if (ready > 0) {
            if (readable.revents & (POLLERR | POLLHUP | POLLNVAL)) {
                fprintf(stderr, "delaylink: %s: device error\n", d->name);
                break;
            }
            accept_packets(d);
        }
    }
    stopping = 1;
    return NULL;
}

static const char *option(int argc, char **argv, const char *name, const char *fallback) {
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return fallback;
}

int main(int argc, char **argv) {
    const char *a = option(argc, argv, "--a", NULL), *b = option(argc, argv, "--b", NULL);
    const char *pid_file = option(argc, argv, "--pid-file", NULL);
    double rtt_ms = atof(option(argc, argv, "--rtt-ms", "-1"));
    long queue = atol(option(argc, argv, "--queue", "8192"));
    double lifetime = atof(option(argc, argv, "--lifetime", "10800"));
    if (argc % 2 == 0 || !a || !b || rtt_ms < 0 || queue < 64 || lifetime <= 0) {
        fprintf(stderr, "usage: delaylink --a IFNAME --b IFNAME --rtt-ms MS [--queue PACKETS] "
                        "[--lifetime SECONDS] [--pid-file FILE]\n");
        return 2;
    }
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake within a microsecond, not the default 50 */

    /* Signals go to the main thread only, which waits for them (or the lifetime). */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);

    int fd_a = open_tun(a), fd_b = open_tun(b);
    int64_t one_way = (int64_t)(rtt_ms * 1e6 / 2);
    struct direction ways[2] = {
        { .name = "a->b", .from = fd_a, .to = fd_b, .delay_ns = one_way, .capacity = (size_t)queue },
        { .name = "b->a", .from = fd_b, .to = fd_a, .delay_ns = one_way, .capacity = (size_t)queue },
    };
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) {
        ways[i].queue = calloc(ways[i].capacity, sizeof(struct packet)); /* pages arrive as used */
        if (!ways[i].queue) { perror("delaylink: queue"); return 1; }
        if (pthread_create(&threads[i], NULL, run_direction, &ways[i]) != 0) { perror("delaylink: thread"); return 1; }
    }
    if (pid_file) {
        FILE *f = fopen(pid_file, "w");
        if (!f) { perror(pid_file); return 1; }
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    fprintf(stderr, "delaylink %d: %s <-> %s, %.3f ms each way, queue %ld packets, lifetime %.0f s\n",
            (int)getpid(), a, b, one_way / 1e6, queue, lifetime);

    struct timespec limit = { (time_t)lifetime, 0 };
    int64_t end = clock_ns() + (int64_t)(lifetime * 1e9);
    while (!stopping) {
        int64_t left = end - clock_ns();
        if (left <= 0) { fprintf(stderr, "delaylink: lifetime over\n"); break; }
        limit.tv_sec = left > 1000000000LL ? 1 : 0;  /* wake each second to see a failed thread */
        limit.tv_nsec = left > 1000000000LL ? 0 : left;
        if (sigtimedwait(&signals, NULL, &limit) > 0) break;
    }
    stopping = 1;
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "delaylink %s: forwarded %llu, dropped %llu (queue full) %llu (too large), write errors %llu\n",
                ways[i].name, (unsigned long long)ways[i].forwarded, (unsigned long long)ways[i].dropped_full,
                (unsigned long long)ways[i].dropped_large, (unsigned long long)ways[i].write_errors);
    if (pid_file) unlink(pid_file);
    return 0;
}
