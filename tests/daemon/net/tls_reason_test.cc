// The reasons a user reads when a TLS connection fails: one per cause, each
// saying what to fix, decided from the curl code, the X509 verify result and
// the error OpenSSL reported (recorded by TlsErrorWatch, tried here against
// real handshakes in memory), never from libcurl's text.
#include "daemon/net/tls_reason.h"

#include <catch2/catch.hpp>

#include <cerrno>
#include <memory>
#include <string>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "daemon/net/http_curl.h"

namespace mcpgw::http {
namespace {

unsigned long SslError(int reason) { return ERR_PACK(ERR_LIB_SSL, 0, reason); }

std::string Verify(long verify, std::string_view host = "mcp.example.com",
                   unsigned long ssl_error = SslError(SSL_R_CERTIFICATE_VERIFY_FAILED)) {
  return TlsReason({CURLE_PEER_FAILED_VERIFICATION, verify, ssl_error, 0, host});
}

std::string Handshake(int reason) {
  return TlsReason({CURLE_SSL_CONNECT_ERROR, 0, SslError(reason), 0, "h"});
}

TEST_CASE("certificate problems each have their own reason", "[tls]") {
  const std::string unknown =
      "TLS: the server's certificate is from an unknown issuer (a private CA not trusted here, "
      "or the server does not send its intermediate certificate)";
  CHECK(Verify(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY) == unknown);
  CHECK(Verify(X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT) == unknown);
  CHECK(Verify(X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE) == unknown);
  CHECK(Verify(X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT) ==
        "TLS: the server's certificate is self-signed and not trusted (trust its CA with "
        "tls.ca_file or SSL_CERT_FILE)");
  CHECK(Verify(X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN) ==
        "TLS: the server's certificate chain ends in a CA that is not trusted (trust its CA with "
        "tls.ca_file or SSL_CERT_FILE)");
  CHECK(Verify(X509_V_ERR_CERT_HAS_EXPIRED) ==
        "TLS: the server's certificate (or one of its CAs) has expired");
  CHECK(Verify(X509_V_ERR_CERT_NOT_YET_VALID) ==
        "TLS: the server's certificate (or one of its CAs) is not valid yet (check the clock)");
  CHECK(Verify(X509_V_ERR_CERT_REVOKED) == "TLS: the server's certificate has been revoked");
  CHECK(Verify(X509_V_ERR_CA_MD_TOO_WEAK) ==
        "TLS: the server's certificate uses a key or signature too weak to be accepted");
  CHECK(Verify(X509_V_ERR_CERT_CHAIN_TOO_LONG) ==
        "TLS: certificate verify failed: certificate chain too long (X509 error 22)");
}

TEST_CASE("a host name mismatch names the host when it may be shown", "[tls]") {
  // A handshake OpenSSL completed, refused all the same: libcurl's own check
  // of the name, made before it stores a verify result (7.88 leaves
  // X509_V_ERR_UNSPECIFIED, others X509_V_OK).
  CHECK(Verify(X509_V_ERR_UNSPECIFIED, "mcp.example.com", 0) ==
        "TLS: the server's certificate is not valid for host mcp.example.com");
  CHECK(Verify(X509_V_OK, "mcp.example.com", 0) ==
        "TLS: the server's certificate is not valid for host mcp.example.com");
  // OpenSSL's own check of the name.
  CHECK(Verify(X509_V_ERR_HOSTNAME_MISMATCH, "127.0.0.1") ==
        "TLS: the server's certificate is not valid for host 127.0.0.1");
  CHECK(Verify(X509_V_ERR_IP_ADDRESS_MISMATCH, "") ==
        "TLS: the server's certificate is not valid for its host name");
  // A handshake that failed is not called a mismatch.
  CHECK(Verify(X509_V_OK, "h") == "TLS: certificate verify failed");
  CHECK(Verify(X509_V_ERR_UNSPECIFIED, "h", SslError(SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED)) ==
        "TLS: the server refused the client certificate (none is configured; it sent: sslv3 "
        "alert certificate expired)");
}

TEST_CASE("the host shown comes from the redacted url only", "[tls]") {
  CHECK(ShowableHost("https://mcp.example.com/x?token=<redacted>") == "mcp.example.com");
  CHECK(ShowableHost("https://<redacted>.example.com/mcp") == "");
  CHECK(ShowableHost("https://<redacted>/mcp") == "");
  CHECK(ShowableHost("") == "");
}

TEST_CASE("handshake failures say what does not match", "[tls]") {
  CHECK(Handshake(SSL_R_TLSV1_ALERT_PROTOCOL_VERSION) ==
        "TLS: no TLS version in common with the server");
  CHECK(Handshake(SSL_R_UNSUPPORTED_PROTOCOL) == "TLS: no TLS version in common with the server");
  CHECK(Handshake(SSL_R_LEGACY_SIGALG_DISALLOWED_OR_UNSUPPORTED) ==
        "TLS: the server offers only TLS 1.1 or older, which this client refuses");
  CHECK(Handshake(SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE) ==
        "TLS: the server refused the handshake (no cipher suite in common, or it requires a "
        "client certificate)");
  CHECK(Handshake(SSL_R_TLSV1_ALERT_INSUFFICIENT_SECURITY) ==
        "TLS: no cipher suite in common with the server");
  CHECK(Handshake(SSL_R_WRONG_VERSION_NUMBER) ==
        "TLS: the server does not speak TLS on this port (is the url http://?)");
  CHECK(Handshake(SSL_R_TLSV1_UNRECOGNIZED_NAME) ==
        "TLS: the server does not know the host name sent in the handshake (SNI)");
  CHECK(Handshake(SSL_R_UNEXPECTED_EOF_WHILE_READING) ==
        "TLS: the server closed the connection during the handshake");
  CHECK(Handshake(SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED) ==
        "TLS: the server requires a client certificate (none is configured)");
  CHECK(Handshake(SSL_R_SSLV3_ALERT_BAD_CERTIFICATE) ==
        "TLS: the server refused the client certificate (none is configured; it sent: sslv3 "
        "alert bad certificate)");
  // Others name OpenSSL's reason.
  CHECK(Handshake(SSL_R_BAD_PACKET) == "TLS: handshake failed (bad packet)");
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0, 0, 0, ""}) == "TLS: handshake failed");
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0, 0, ECONNRESET, ""}) ==
        "TLS: connection reset during the handshake");
}

TEST_CASE("a TLS 1.3 server's verdict after the handshake is a TLS reason", "[tls]") {
  CHECK(TlsReason({CURLE_RECV_ERROR, 0, SslError(SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED), 0,
                   ""}) == "TLS: the server requires a client certificate (none is configured)");
  CHECK(TlsReason({CURLE_RECV_ERROR, 0, 0, ECONNRESET, ""}).empty());
  Failure reset;
  reset.code = CURLE_RECV_ERROR;
  reset.os_errno = ECONNRESET;
  CHECK(FailureText(reset) == "connection reset");
  CHECK(TlsReason({CURLE_SSL_CLIENTCERT, 0, 0, 0, ""}) ==
        "TLS: the server requires a client certificate (none is configured)");
}

// A client handshake in memory against `server_bytes` (what a server sends
// first), with a TlsErrorWatch on its context: what the watch recorded.
unsigned long WatchHandshake(const std::string& server_bytes) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  REQUIRE(ctx);
  auto watch = std::make_shared<TlsErrorWatch>();
  TlsErrorWatch::Attach(ctx, watch);
  SSL* ssl = SSL_new(ctx);
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, in, out);  // the SSL owns both
  SSL_set_connect_state(ssl);
  ERR_clear_error();
  CHECK(SSL_do_handshake(ssl) == -1);  // sent its hello, waits for the server
  CHECK(watch->error() == 0);          // waiting is no error
  BIO_write(in, server_bytes.data(), static_cast<int>(server_bytes.size()));
  CHECK(SSL_do_handshake(ssl) <= 0);
  ERR_clear_error();
  SSL_free(ssl);
  SSL_CTX_free(ctx);  // frees the context's share of the watch
  CHECK(watch.use_count() == 1);
  return watch->error();
}

TEST_CASE("TlsErrorWatch records what ended a handshake, as OpenSSL said it", "[tls]") {
  // A plain HTTP server answering the client's hello.
  const unsigned long not_tls = WatchHandshake("HTTP/1.1 400 Bad Request\r\n\r\n");
  CHECK(ERR_GET_REASON(not_tls) == SSL_R_WRONG_VERSION_NUMBER);
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0, not_tls, 0, ""}) ==
        "TLS: the server does not speak TLS on this port (is the url http://?)");
  // A fatal handshake_failure alert (TLS 1.2 record: alert, level 2, description 40).
  const unsigned long refused = WatchHandshake(std::string("\x15\x03\x03\x00\x02\x02\x28", 7));
  CHECK(ERR_GET_REASON(refused) == SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE);
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0, refused, 0, ""}) ==
        "TLS: the server refused the handshake (no cipher suite in common, or it requires a "
        "client certificate)");
}

TEST_CASE("proxy failures are told apart from the server's", "[tls][proxy]") {
  Failure f;
  f.proxied = true;
  f.code = CURLE_RECV_ERROR;
  f.proxy_status = 407;
  CHECK(FailureText(f) == "the proxy requires authentication (HTTP 407 from the proxy)");
  f.proxy_status = 403;
  CHECK(FailureText(f) == "the proxy refused the tunnel (HTTP 403 from the proxy)");
  f.proxy_status = 0;
  f.code = CURLE_COULDNT_CONNECT;
  CHECK(FailureText(f) == "could not connect to the proxy (connection refused)");
  f.proxied = false;
  CHECK(FailureText(f) == "connection refused");
  f.code = CURLE_COULDNT_RESOLVE_PROXY;
  CHECK(FailureText(f) == "could not resolve the proxy's host");
}

}  // namespace
}  // namespace mcpgw::http
