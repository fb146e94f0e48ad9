// The TLS trust's hook on an easy handle (daemon/net/tls_wiring.h): what a
// new connection's SSL_CTX gets from the handle's trust, and the watch each
// new connection starts afresh. The interop suite (tests/interop/tls.sh)
// runs real handshakes through it.
#include "daemon/net/tls_wiring.h"

#include <catch2/catch.hpp>

#include <openssl/ssl.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mcpgw::http {
namespace {

GetEnv Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

struct Handle {
  std::unique_ptr<EasyHandle> h = std::make_unique<EasyHandle>(curl_easy_init());
};

TEST_CASE("tls wiring: a new connection gets the handle's trust and a fresh watch", "[tls]") {
  auto trust = TlsTrust::Load(TlsSettings{}, Env({})).value();
  REQUIRE(trust);
  Handle handle;
  handle.h->trust = trust;
  REQUIRE(WireTrust(*handle.h) == CURLE_OK);

  SSL_CTX* first = SSL_CTX_new(TLS_client_method());
  SSL_CTX* second = SSL_CTX_new(TLS_client_method());
  CHECK(OnNewTlsContext(*handle.h, first) == CURLE_OK);
  std::shared_ptr<TlsErrorWatch> first_watch = handle.h->tls_watch;
  REQUIRE(first_watch);
  first_watch->Note(42);
  CHECK(OnNewTlsContext(*handle.h, second) == CURLE_OK);
  REQUIRE(handle.h->tls_watch);
  CHECK(handle.h->tls_watch != first_watch);  // the newest connection's watch is read
  CHECK(handle.h->tls_watch->error() == 0);
  // Both contexts share the trust's one store.
  CHECK(SSL_CTX_get_cert_store(first) == SSL_CTX_get_cert_store(second));
  SSL_CTX_free(first);
  SSL_CTX_free(second);
}

TEST_CASE("tls wiring: a trust whose bundle cannot be read fails the connection", "[tls]") {
  auto trust =
      TlsTrust::Load(TlsSettings{}, Env({{"SSL_CERT_FILE", "/nonexistent/mcpgw/ca.pem"}})).value();
  REQUIRE(trust);
  Handle handle;
  handle.h->trust = trust;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  CHECK(OnNewTlsContext(*handle.h, ctx) == CURLE_SSL_CACERT_BADFILE);
  CHECK(handle.h->tls_watch);  // still watched: the reason comes from the code
  SSL_CTX_free(ctx);
}

TEST_CASE("tls wiring: without a trust libcurl's own CAs apply", "[tls]") {
  Handle handle;
  REQUIRE(WireTrust(*handle.h) == CURLE_OK);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  X509_STORE* before = SSL_CTX_get_cert_store(ctx);
  CHECK(OnNewTlsContext(*handle.h, ctx) == CURLE_OK);
  CHECK(SSL_CTX_get_cert_store(ctx) == before);  // left alone
  SSL_CTX_free(ctx);
}

}  // namespace
}  // namespace mcpgw::http
