#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "imgwarm_sys.h"

int imgwarm_birth_time(int dirfd, const char *name, struct timespec *out) {
    struct statx st;
    if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BTIME, &st) != 0) {
        return -1;
    }
    if (!(st.stx_mask & STATX_BTIME)) {
        return 1;
    }
    out->tv_sec = st.stx_btime.tv_sec;
    out->tv_nsec = st.stx_btime.tv_nsec;
    return 0;
}

int imgwarm_o_noatime(void) {
    return O_NOATIME;
}

/* mode: 0 leaves the time as it is (UTIME_OMIT), 1 sets it to now (UTIME_NOW), 2 sets it to `time`. */
static struct timespec time_value(struct timespec time, int mode) {
    if (mode == 2) return time;
    struct timespec value = {0, mode == 1 ? UTIME_NOW : UTIME_OMIT};
    return value;
}

int imgwarm_set_times(int fd, struct timespec atime, int atime_mode, struct timespec mtime, int mtime_mode) {
    struct timespec times[2] = {time_value(atime, atime_mode), time_value(mtime, mtime_mode)};
    return futimens(fd, times);
}

int imgwarm_set_times_at(
    int dirfd, const char *name, struct timespec atime, int atime_mode, struct timespec mtime, int mtime_mode) {
    struct timespec times[2] = {time_value(atime, atime_mode), time_value(mtime, mtime_mode)};
    return utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW);
}

static volatile sig_atomic_t stop_signal = 0;
static int stop_pipe[2] = {-1, -1};

/* Every signal whose default action would end the process without a report. SIGTERM is always
   handled; the others stay ignored when they were ignored on entry (a shell's background job
   ignores SIGINT and SIGQUIT, nohup ignores SIGHUP). SIGQUIT's handler replaces the Swift
   runtime's backtracer, which would print "Program crashed" and let the run go on. */
static const int stop_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGTERM};

static void on_stop_signal(int signo) {
    sig_atomic_t expected = 0;
    if (!__atomic_compare_exchange_n(&stop_signal, &expected, signo, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        /* Second signal: leave now. Temporary files live outside the cache folder, and the next
           run removes them; the cache itself only ever holds complete files. */
        _exit(128 + signo);
    }
    int saved = errno;
    if (stop_pipe[1] >= 0) {
        char byte = 1;
        ssize_t ignored = write(stop_pipe[1], &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int imgwarm_stop_install(void) {
    if (stop_pipe[0] < 0 && pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        return -1;
    }
    struct sigaction action, previous;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    /* A launcher may hand these signals over blocked (posix_spawn from a thread that blocks
       them): unblock them in this thread, so every thread started from now on has them too. */
    sigset_t stops;
    sigemptyset(&stops);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        int signo = stop_signals[i];
        if (signo != SIGTERM && sigaction(signo, NULL, &previous) == 0 && previous.sa_handler == SIG_IGN) {
            continue;
        }
        sigaction(signo, &action, NULL);
        sigaddset(&stops, signo);
    }
    pthread_sigmask(SIG_UNBLOCK, &stops, NULL);
    return stop_pipe[0];
}

int imgwarm_stop_signal(void) {
    return stop_signal;
}

int imgwarm_open_writer(const char *path) {
    struct timespec pause = {0, 20000000};
    for (;;) {
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        if (fd >= 0) {
            int flags = fcntl(fd, F_GETFL);
            if (flags >= 0) {
                fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
            }
            return fd;
        }
        if (errno == EINTR) {
            continue;
        }
        struct stat status;
        if (errno != ENXIO || stat(path, &status) != 0 || !S_ISFIFO(status.st_mode)) {
            return -1;
        }
        /* A FIFO nobody reads yet: wait for its reader as a shell's > does, but not past a stop
           signal (whose handler restarts a blocking open for ever). */
        if (stop_signal != 0) {
            errno = EINTR;
            return -1;
        }
        nanosleep(&pause, NULL);
    }
}

void imgwarm_stop_release(void) {
    struct sigaction current, fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    for (size_t i = 0; i < sizeof stop_signals / sizeof stop_signals[0]; i++) {
        int signo = stop_signals[i];
        if (sigaction(signo, NULL, &current) == 0 && current.sa_handler == on_stop_signal) {
            sigaction(signo, &fallback, NULL);
        }
    }
    /* A signal that came while the command line was read ends the process now, as it would have
       without the handler (the shell sees it killed by that signal). */
    if (stop_signal != 0) {
        raise(stop_signal);
    }
}

void imgwarm_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

static int flock_waiting(int fd, int operation, int timeout_ms, int stoppable) {
    struct timespec start, now, pause = {0, 2000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (flock(fd, operation | LOCK_NB) == 0) {
            return 0;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
        if (stoppable && stop_signal != 0) {
            errno = EINTR;
            return -1;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (elapsed >= timeout_ms) {
            errno = EWOULDBLOCK;
            return -1;
        }
        nanosleep(&pause, NULL);
    }
}

int imgwarm_flock_timeout(int fd, int operation, int timeout_ms) {
    return flock_waiting(fd, operation, timeout_ms, 0);
}

int imgwarm_flock_until_stop(int fd, int operation, int timeout_ms) {
    return flock_waiting(fd, operation, timeout_ms, 1);
}

int imgwarm_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int imgwarm_child_ended(int pid) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno != EINTR) {
            return 1;
        }
    }
    return info.si_pid == pid ? 1 : 0;
}

void imgwarm_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

int imgwarm_open_anonymous(int dirfd, int mode) {
    return openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
}

static int empty_path_allowed = 1;

int imgwarm_link_anonymous(int fd, int dirfd, const char *name) {
    /* AT_EMPTY_PATH links the descriptor itself (needs CAP_DAC_READ_SEARCH); otherwise go
       through /proc, which costs a path walk through procfs. */
    if (empty_path_allowed) {
        if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0) {
            return 0;
        }
        if (errno != EPERM && errno != ENOENT && errno != EINVAL) {
            return -1;
        }
        empty_path_allowed = 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW);
}

int imgwarm_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) {
        return 0;
    }
    return size.ws_col;
}

void imgwarm_tune_malloc(int mmap_threshold, int trim_threshold) {
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
}
