// How an easy handle meets its TlsTrust: libcurl calls back with every new
// TLS connection's SSL_CTX (the server's, or an HTTPS proxy's) the handle
// opens (CURLOPT_SSL_CTX_FUNCTION), and the callback gives the context the
// trust's shared store of CAs (TlsTrust::Install) and a fresh TlsErrorWatch,
// whose first error is the reason a failed transfer gives (tls_reason.h).
// HttpClient wires a handle once, when it configures it under the trust of
// the moment (EasyHandle::trust, kept alive by the handle); the watch is read
// when a transfer on it fails. Only libcurl built with OpenSSL offers the
// callback: elsewhere TLS reasons are less precise, and a trust with extra
// CAs cannot be honoured.
#pragma once

#include <curl/curl.h>

#include "daemon/net/easy_pool.h"

namespace mcpgw::http {

// Sets the callback on `handle`; fails only when libcurl lacks it and the
// handle's trust has CAs beyond the system's.
CURLcode WireTrust(EasyHandle& handle);

// What the callback does for a new connection's SSL_CTX (`ssl_ctx`, an
// OpenSSL SSL_CTX*): a fresh watch on the handle, the trust's store.
CURLcode OnNewTlsContext(EasyHandle& handle, void* ssl_ctx);

}  // namespace mcpgw::http
