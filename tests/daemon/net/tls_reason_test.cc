// The reasons a user reads when a TLS connection fails: one per cause, each
// saying what to fix, none quoting libcurl's text (which holds the host).
#include "daemon/net/tls_reason.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include "daemon/net/http_curl.h"

namespace mcpgw::http {
namespace {

std::string Verify(long verify, std::string_view host = "mcp.example.com",
                   std::string_view curl_text = "SSL certificate problem: whatever") {
  return TlsReason({CURLE_PEER_FAILED_VERIFICATION, verify, curl_text, 0, host});
}

// libcurl's text for an OpenSSL failure, as ossl_strerror writes it.
std::string CurlText(int reason, const char* prefix = "") {
  unsigned long code = ERR_PACK(ERR_LIB_SSL, 0, reason);
  char text[256];
  std::snprintf(text, sizeof text, "%serror:%08lX:SSL routines::%s", prefix, code,
                ERR_reason_error_string(code) ? ERR_reason_error_string(code) : "?");
  return text;
}

std::string Handshake(int reason) {
  std::string text = CurlText(reason);
  return TlsReason({CURLE_SSL_CONNECT_ERROR, 0, text, 0, "h"});
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
  // libcurl checks the name itself before it stores a verify result (7.88
  // leaves X509_V_ERR_UNSPECIFIED); its text says "match".
  const char* curl_788 =
      "SSL: no alternative certificate subject name matches target host name 'x.example'";
  CHECK(Verify(X509_V_ERR_UNSPECIFIED, "mcp.example.com", curl_788) ==
        "TLS: the server's certificate is not valid for host mcp.example.com");
  CHECK(Verify(X509_V_OK, "mcp.example.com", curl_788) ==
        "TLS: the server's certificate is not valid for host mcp.example.com");
  CHECK(Verify(X509_V_ERR_HOSTNAME_MISMATCH, "127.0.0.1") ==
        "TLS: the server's certificate is not valid for host 127.0.0.1");
  CHECK(Verify(X509_V_ERR_IP_ADDRESS_MISMATCH, "") ==
        "TLS: the server's certificate is not valid for its host name");
  // A verification failure libcurl explains no further is not called a mismatch.
  CHECK(Verify(X509_V_OK, "h", "SSL certificate verification failed") ==
        "TLS: certificate verify failed");
  CHECK(Verify(X509_V_ERR_UNSPECIFIED, "h", "SSL: couldn't get peer certificate") ==
        "TLS: certificate verify failed");
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
  // Others name OpenSSL's reason, never libcurl's text.
  CHECK(Handshake(SSL_R_BAD_PACKET) == "TLS: handshake failed (bad packet)");
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0,
                   "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to secret.host:443", 0,
                   ""}) == "TLS: handshake failed");
  CHECK(TlsReason({CURLE_SSL_CONNECT_ERROR, 0, "", ECONNRESET, ""}) ==
        "TLS: connection reset during the handshake");
}

TEST_CASE("a TLS 1.3 server's verdict after the handshake is a TLS reason", "[tls]") {
  std::string text = CurlText(SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED, "OpenSSL SSL_read: ");
  text += ", errno 0";
  CHECK(TlsReason({CURLE_RECV_ERROR, 0, text, 0, ""}) ==
        "TLS: the server requires a client certificate (none is configured)");
  CHECK(TlsReason({CURLE_RECV_ERROR, 0, "Connection reset by peer", 0, ""}).empty());
  CHECK(FailureText({CURLE_RECV_ERROR, 104, 0, 0, false, "Connection reset by peer", ""}) ==
        "connection reset");
  CHECK(TlsReason({CURLE_SSL_CLIENTCERT, 0, "", 0, ""}) ==
        "TLS: the server requires a client certificate (none is configured)");
}

TEST_CASE("OpenSSL's error code is read from libcurl's text", "[tls]") {
  CHECK(OpensslErrorCode("error:0A000086:SSL routines::certificate verify failed") == 0x0A000086UL);
  CHECK(OpensslErrorCode("OpenSSL SSL_read: error:0A00045C:SSL routines::x, errno 0") ==
        0x0A00045CUL);
  CHECK(OpensslErrorCode("error: nothing here, error:zz:") == 0);
  CHECK(OpensslErrorCode("") == 0);
  CHECK(OpensslErrorCode("error:123456789:x") == 0);
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
