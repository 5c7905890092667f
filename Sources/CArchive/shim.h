#ifndef IMGWARM_CARCHIVE_SHIM_H
#define IMGWARM_CARCHIVE_SHIM_H

#include <sys/types.h>
#include <archive.h>
#include <archive_entry.h>

#endif
