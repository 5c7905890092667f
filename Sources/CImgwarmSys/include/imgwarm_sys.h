#ifndef IMGWARM_SYS_H
#define IMGWARM_SYS_H

#include <time.h>

/* Birth (creation) time of `name` relative to the directory `dirfd`, without following a
   symbolic link. Returns 0 and fills `out`; 1 when the file system records no birth time;
   -1 with errno set on failure. Glibc's statx is not visible to Swift, hence this shim. */
int imgwarm_birth_time(int dirfd, const char *name, struct timespec *out);

/* O_NOATIME for open(2): GNU-only, so not visible to Swift. */
int imgwarm_o_noatime(void);

/* Sets the access and modification times of the open file `fd` (futimens). Each mode: 0 leaves
   that time as it is, 1 sets it to now, 2 sets it to the given value. */
int imgwarm_set_times(int fd, struct timespec atime, int atime_mode, struct timespec mtime, int mtime_mode);

/* Same as imgwarm_set_times for `name` relative to `dirfd`, not following a symbolic link. */
int imgwarm_set_times_at(
    int dirfd, const char *name, struct timespec atime, int atime_mode, struct timespec mtime, int mtime_mode);

/* Graceful stop on SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2 and SIGTERM. imgwarm_stop_install
   sets handlers that record the first signal and write a byte to a pipe (so a poll wakes up); a
   second one ends the process at once with 128 + its number. A signal other than SIGTERM that
   was ignored on entry stays ignored. Returns the pipe's read end, or -1. */
int imgwarm_stop_install(void);

/* The first stop signal received, or 0. */
int imgwarm_stop_signal(void);

/* Opens an existing file for writing (O_WRONLY | O_NOCTTY | O_CLOEXEC, following links): a FIFO
   without a reader is waited for, every 20 ms, until one comes or a stop signal was received
   (then -1 with errno EINTR). Returns the descriptor (blocking) or -1 with errno set. */
int imgwarm_open_writer(const char *path);

/* Gives the stop signals back to their default action (those imgwarm_stop_install handled), for
   a command that does not stop gracefully; a stop signal already received ends the process now. */
void imgwarm_stop_release(void);

/* SIGPIPE ignored: a write to a pipe nobody reads fails with EPIPE instead of killing the
   process. */
void imgwarm_ignore_sigpipe(void);

/* Flock with a deadline: tries `operation` (LOCK_SH or LOCK_EX) without blocking until it
   succeeds or `timeout_ms` passes. Returns 0, or -1 with errno (EWOULDBLOCK on timeout). */
int imgwarm_flock_timeout(int fd, int operation, int timeout_ms);

/* imgwarm_flock_timeout that also gives up, with errno EINTR, once a stop signal was received
   (imgwarm_stop_install's handlers): a command that stops on a signal does not wait out a lock. */
int imgwarm_flock_until_stop(int fd, int operation, int timeout_ms);

/* pidfd_open(2): a descriptor that becomes readable when the process `pid` ends (Linux 5.3);
   -1 with errno where the kernel has none. syscall(2) is variadic, so not callable from Swift. */
int imgwarm_pidfd_open(int pid);

/* 1 when the child `pid` has ended, without reaping it (waitid with WNOWAIT): its process group
   id stays its own until it is reaped. 0 while it runs; 1 too when it cannot be asked. */
int imgwarm_child_ended(int pid);

/* An unnamed file in the directory `dirfd` (O_TMPFILE), open for writing: invisible until
   linked, and gone by itself if the process dies first. Returns the descriptor, or -1 with errno
   (EOPNOTSUPP, EISDIR or EINVAL where the file system has no O_TMPFILE). */
int imgwarm_open_anonymous(int dirfd, int mode);

/* Gives the unnamed file `fd` the name `name` in `dirfd` (linkat through /proc/self/fd).
   Fails with EEXIST when the name is taken: it never replaces a file. */
int imgwarm_link_anonymous(int fd, int dirfd, const char *name);

/* glibc malloc: allocations from `mmap_threshold` bytes get their own mapping; free memory at
   the top of the heap is given back to the system only past `trim_threshold` bytes. */
void imgwarm_tune_malloc(int mmap_threshold, int trim_threshold);

/* Names the calling thread (at most 15 characters are kept). */
void imgwarm_set_thread_name(const char *name);

/* The width in columns of the terminal `fd` is, or 0 when it is none (ioctl TIOCGWINSZ, which
   Swift cannot call: ioctl is variadic). */
int imgwarm_terminal_columns(int fd);

#endif
