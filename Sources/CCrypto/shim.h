#ifndef IMGWARM_CCRYPTO_SHIM_H
#define IMGWARM_CCRYPTO_SHIM_H

/* OpenSSL's libcrypto, only for its one-shot SHA-1 and SHA-256 (cache file names of Kingfisher,
   Nuke and the Android libraries). libcurl4-openssl already links it on every machine imgwarm runs. */
#include <openssl/sha.h>

#endif
