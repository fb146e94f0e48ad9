#include "daemon/net/tls_wiring.h"

#include <memory>

namespace mcpgw::http {
namespace {

CURLcode OnSslContext(CURL*, void* ssl_ctx, void* userp) {
  return OnNewTlsContext(*static_cast<EasyHandle*>(userp), ssl_ctx);
}

}  // namespace

CURLcode WireTrust(EasyHandle& handle) {
  const CURLcode rc = curl_easy_setopt(handle.easy, CURLOPT_SSL_CTX_FUNCTION, &OnSslContext);
  if (rc == CURLE_OK) return curl_easy_setopt(handle.easy, CURLOPT_SSL_CTX_DATA, &handle);
  return handle.trust && handle.trust->extends_store() ? rc : CURLE_OK;
}

CURLcode OnNewTlsContext(EasyHandle& handle, void* ssl_ctx) {
  handle.tls_watch = std::make_shared<TlsErrorWatch>();
  TlsErrorWatch::Attach(ssl_ctx, handle.tls_watch);
  return handle.trust ? handle.trust->Install(ssl_ctx) : CURLE_OK;
}

}  // namespace mcpgw::http
