#ifndef IMGWARM_CMAGICKWAND_SHIM_H
#define IMGWARM_CMAGICKWAND_SHIM_H

/* ImageMagick 6 defines _GNU_SOURCE in its headers; the standard headers must
   come first, or clean builds fail with an fd_set conflict between modules. */
#include <sys/types.h>
#include <sys/select.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* SwiftPM drops these -D flags from pkg-config ("prohibited flags"); they must
   match Debian's build (Q16, no HDRI). */
#ifndef MAGICKCORE_QUANTUM_DEPTH
#define MAGICKCORE_QUANTUM_DEPTH 16
#endif
#ifndef MAGICKCORE_HDRI_ENABLE
#define MAGICKCORE_HDRI_ENABLE 0
#endif

#include <wand/MagickWand.h>

#endif
