#ifndef WALLET_ORDERS_CCURL_SHIM_H
#define WALLET_ORDERS_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and friends are variadic, which Swift cannot call: typed entry points.
static inline CURLcode wo_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wo_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode wo_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode wo_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
typedef size_t (*wo_curl_write_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode wo_curl_easy_set_write_callback(CURL *h, wo_curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
// CURLVERSION_NOW is a macro naming an enum case, which Swift does not import.
static inline const curl_version_info_data *wo_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
// CURLMsg carries its result in a union Swift reads awkwardly.
static inline CURLcode wo_curl_msg_result(const CURLMsg *m) { return m->data.result; }
// Webhooks check every address before connecting to it: the open-socket callback, and its data.
typedef curl_socket_t (*wo_curl_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode wo_curl_easy_set_opensocket(CURL *h, wo_curl_opensocket_callback f, void *data) {
    CURLcode c = curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f);
    return c != CURLE_OK ? c : curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, data);
}
static inline CURLcode wo_curl_easy_set_write_data(CURL *h, void *data) { return curl_easy_setopt(h, CURLOPT_WRITEDATA, data); }
#endif
