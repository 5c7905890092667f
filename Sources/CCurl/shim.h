#ifndef IMGWARM_CCURL_SHIM_H
#define IMGWARM_CCURL_SHIM_H

#include <curl/curl.h>
#include <idn2.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic,
   which Swift cannot call: these typed wrappers are what Swift sees. */

static inline CURLcode imgwarm_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgwarm_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgwarm_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgwarm_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode imgwarm_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*imgwarm_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
static inline CURLcode imgwarm_easy_setopt_data_callback(CURL *handle, CURLoption option, imgwarm_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}
typedef int (*imgwarm_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode imgwarm_easy_setopt_progress_callback(CURL *handle, imgwarm_progress_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}
typedef int (*imgwarm_prereq_callback)(void *userdata, char *primary_ip, char *local_ip, int primary_port, int local_port);
static inline CURLcode imgwarm_easy_setopt_prereq_callback(CURL *handle, imgwarm_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
typedef int (*imgwarm_closesocket_callback)(void *userdata, curl_socket_t socket);
static inline CURLcode imgwarm_easy_setopt_closesocket_callback(CURL *handle, imgwarm_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}
/* Writes the local end of a TCP socket as "address port" (as CURLINFO_LOCAL_IP and
   CURLINFO_LOCAL_PORT give it); returns 0, or -1 when it has none. */
static inline int imgwarm_socket_local_name(curl_socket_t socket, char *buffer, size_t size) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    char text[INET6_ADDRSTRLEN];
    int port;
    if (getsockname(socket, (struct sockaddr *)&address, &length) != 0) return -1;
    if (address.ss_family == AF_INET) {
        struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
        if (!inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text)) return -1;
        port = ntohs(v4->sin_port);
    } else if (address.ss_family == AF_INET6) {
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
        if (!inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text)) return -1;
        port = ntohs(v6->sin6_port);
    } else {
        return -1;
    }
    return snprintf(buffer, size, "%s %d", text, port) < (int)size ? 0 : -1;
}
static inline int imgwarm_close_socket(curl_socket_t socket) {
    return close(socket);
}
static inline CURLcode imgwarm_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode imgwarm_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode imgwarm_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode imgwarm_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLMcode imgwarm_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}
/* CURLMsg.data is a union; Swift reads its `result` member through this. */
static inline CURLcode imgwarm_msg_result(const CURLMsg *message) {
    return message->data.result;
}

/* The TLS session of the connection a transfer uses, as OpenSSL names it (the libcurl imgwarm
   links is libcurl4-openssl): the cipher suite's standard (IANA) name and the protocol version.
   0 when there is no TLS session or another TLS library runs it. Only from within a transfer's
   callbacks, while the connection is certainly alive (CURLINFO_TLS_SSL_PTR's rule). OpenSSL's own
   header is not included: these three functions are declared with opaque pointers. */
const char *SSL_get_version(const void *ssl);
const void *SSL_get_current_cipher(const void *ssl);
const char *SSL_CIPHER_standard_name(const void *cipher);
static inline int imgwarm_easy_tls_names(CURL *handle, const char **cipher, const char **version) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return 0;
    if (info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) return 0;
    const void *current = SSL_get_current_cipher(info->internals);
    if (current == NULL) return 0;
    *cipher = SSL_CIPHER_standard_name(current);
    *version = SSL_get_version(info->internals);
    return *cipher != NULL && *version != NULL;
}

/* 1 when the TLS session of the connection a transfer uses agreed on HTTP/2 by ALPN ("h2"), 0
   otherwise (no TLS, another protocol, another TLS library). Known once the handshake is done, a
   round trip before the first answer says `HTTP/2`; same rule as above: from a transfer's
   callbacks only (the prerequest callback runs once the connection is ready). */
void SSL_get0_alpn_selected(const void *ssl, const unsigned char **data, unsigned int *length);
static inline int imgwarm_easy_alpn_h2(CURL *handle) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) return 0;
    if (info->backend != CURLSSLBACKEND_OPENSSL || info->internals == NULL) return 0;
    const unsigned char *protocol = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(info->internals, &protocol, &length);
    return protocol != NULL && length == 2 && protocol[0] == 'h' && protocol[1] == '2';
}

/* Decodes a gzip (or zlib) body, as libcurl's content decoding does, with zlib (which libcurl
   links): into a malloc'ed buffer of at most `limit` bytes, handed back in *out (the caller frees
   it). 0 on success; -1 for a body that is not a complete stream, -2 when it decodes past `limit`. */
static inline int imgwarm_gunzip(const unsigned char *in, size_t length, size_t limit, unsigned char **out,
                                 size_t *out_length) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (length > 0xFFFFFFFFu || limit == 0 || inflateInit2(&stream, 15 + 32) != Z_OK) return -1;
    size_t capacity = length * 4 + 4096;
    if (capacity > limit) capacity = limit;
    unsigned char *buffer = malloc(capacity);
    if (buffer == NULL) { inflateEnd(&stream); return -1; }
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)length;
    int status = Z_OK;
    int result = -1;
    for (;;) {
        if (stream.total_out == capacity) {
            if (capacity >= limit) { result = -2; break; }
            size_t grown = capacity * 2 < limit ? capacity * 2 : limit;
            unsigned char *larger = realloc(buffer, grown);
            if (larger == NULL) break;
            buffer = larger;
            capacity = grown;
        }
        size_t room = capacity - stream.total_out;
        stream.next_out = buffer + stream.total_out;
        stream.avail_out = room > 0x40000000u ? 0x40000000u : (uInt)room;
        status = inflate(&stream, Z_NO_FLUSH);
        if (status == Z_STREAM_END) { result = 0; break; }
        if (status != Z_OK && !(status == Z_BUF_ERROR && stream.avail_out == 0)) break;
    }
    size_t produced = stream.total_out;
    inflateEnd(&stream);
    if (result != 0) { free(buffer); return result; }
    *out = buffer;
    *out_length = produced;
    return 0;
}

/* CURLVERSION_NOW is a macro naming the newest struct version this header knows. */
static inline curl_version_info_data *imgwarm_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
