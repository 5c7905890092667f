#ifndef IMGWARM_SYS_H
#define IMGWARM_SYS_H

#include <time.h>

/* Birth (creation) time of `name` relative to the directory `dirfd`, without following a
   symbolic link. Returns 0 and fills `out`; 1 when the file system records no birth time;
   -1 with errno set on failure. Glibc's statx is not visible to Swift, hence this shim. */
int imgwarm_birth_time(int dirfd, const char *name, struct timespec *out);

/* O_NOATIME for open(2): GNU-only, so not visible to Swift. */
int imgwarm_o_noatime(void);

/* Sets only the access time of the open file `fd` to `atime` (UTIME_OMIT for the modification
   time); `now` nonzero sets it to the current time instead. Returns 0 or -1 with errno. */
int imgwarm_set_atime(int fd, struct timespec atime, int now);

/* Same as imgwarm_set_atime for `name` relative to `dirfd`, not following a symbolic link. */
int imgwarm_set_atime_at(int dirfd, const char *name, struct timespec atime, int now);

#endif
