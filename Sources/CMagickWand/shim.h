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

/* ImageMagick's "no limit" (a macro Swift cannot import). */
static const MagickSizeType imgwarm_resource_infinity = MagickResourceInfinity;

/* A per-read deadline for ImageMagick, and full decodes that stream rows instead of filling a
   pixel cache (see Sources/Magick/ImageInspector.swift for why). */
typedef struct {
    double deadline; /* CLOCK_MONOTONIC seconds */
    int timed_out;   /* set once the deadline passed */
    size_t rows;     /* rows decoded */
} imgwarm_read_state;

static inline double imgwarm_monotonic_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

/* A progress monitor: coders call it between rows and stop when it returns MagickFalse. */
static inline MagickBooleanType imgwarm_read_progress(const char *text, const MagickOffsetType offset,
                                                      const MagickSizeType span, void *client_data) {
    (void) text; (void) offset; (void) span;
    imgwarm_read_state *state = (imgwarm_read_state *) client_data;
    if (state == NULL) return MagickTrue;
    if (imgwarm_monotonic_seconds() > state->deadline) {
        state->timed_out = 1;
        return MagickFalse;
    }
    return MagickTrue;
}

/* ReadStream's row handler: counts the row and drops it; returning 0 ends the read. The image's
   client_data is the state (copied from the ImageInfo). */
static inline size_t imgwarm_stream_row(const Image *image, const void *pixels, const size_t columns) {
    (void) pixels;
    imgwarm_read_state *state = (imgwarm_read_state *) image->client_data;
    if (state == NULL) return columns;
    if (imgwarm_monotonic_seconds() > state->deadline) {
        state->timed_out = 1;
        return 0;
    }
    state->rows += 1;
    return columns;
}

/* Decodes `length` bytes at `blob` with the coder named by `filename` ("PNG:"), handing each row
   to imgwarm_stream_row. The caller destroys the returned list (DestroyImageList). */
static inline Image *imgwarm_read_stream(const void *blob, size_t length, const char *filename,
                                         imgwarm_read_state *state, ExceptionInfo *exception) {
    ImageInfo *info = AcquireImageInfo();
    if (info == NULL) return NULL;
    SetImageInfoBlob(info, blob, length);
    (void) CopyMagickString(info->filename, filename, MaxTextExtent);
    info->client_data = state;
    info->progress_monitor = imgwarm_read_progress;
    Image *image = ReadStream(info, imgwarm_stream_row, exception);
    info->blob = NULL; /* not ours to free */
    info->length = 0;
    (void) DestroyImageInfo(info);
    return image;
}

#endif
