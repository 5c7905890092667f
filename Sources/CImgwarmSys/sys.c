#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
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

static void fill_times(struct timespec times[2], struct timespec atime, int now) {
    times[0] = atime;
    if (now) {
        times[0].tv_sec = 0;
        times[0].tv_nsec = UTIME_NOW;
    }
    times[1].tv_sec = 0;
    times[1].tv_nsec = UTIME_OMIT;
}

int imgwarm_set_atime(int fd, struct timespec atime, int now) {
    struct timespec times[2];
    fill_times(times, atime, now);
    return futimens(fd, times);
}

int imgwarm_set_atime_at(int dirfd, const char *name, struct timespec atime, int now) {
    struct timespec times[2];
    fill_times(times, atime, now);
    return utimensat(dirfd, name, times, AT_SYMLINK_NOFOLLOW);
}
