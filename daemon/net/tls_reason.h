// TlsReason: what a failed TLS connection tells a user, from the CURLcode,
// the X509 verify result (CURLINFO_SSL_VERIFYRESULT) and the first error
// OpenSSL reported on the connection, which a TlsErrorWatch records as it
// happens (libcurl's error text is never read). TlsReason is pure;
// FailureText (http_curl.h) calls it first.
//
// Every text starts with "TLS: " and says what to fix: an unknown issuer
// (self-signed, private CA, missing intermediate), an expired or not yet
// valid certificate, a certificate for another host (named when the caller
// knows the host is safe to show), no TLS version or cipher suite in common,
// a client certificate the server requires, a server that does not speak
// TLS.
#pragma once

#include <curl/curl.h>

#include <memory>
#include <string>
#include <string_view>

namespace mcpgw::http {

struct TlsFailure {
  CURLcode code = CURLE_OK;
  long verify_result = 0;       // an X509_V_ERR_* code; 0 when none
  unsigned long ssl_error = 0;  // TlsErrorWatch::error() of the connection; 0 when none
  long os_errno = 0;            // CURLINFO_OS_ERRNO
  std::string_view host;        // the server's host name, "" when it must not be shown
};

// The reason, or "" when the failure is not about TLS.
std::string TlsReason(const TlsFailure& failure);

// Records the first error OpenSSL reports on one TLS connection: the error
// its handshake ended with, or a fatal alert the server sent (a TLS 1.3
// server refuses a client certificate after the handshake). Attach() it
// from the CURLOPT_SSL_CTX_FUNCTION callback of the transfer that opens the
// connection (libcurl gives each new connection its own SSL_CTX); the
// SSL_CTX keeps the watch alive as long as it lives, so a connection that
// outlives its first transfer writes into a watch nobody reads any more.
// Used on one thread, as the connection is.
class TlsErrorWatch {
 public:
  TlsErrorWatch() = default;
  TlsErrorWatch(const TlsErrorWatch&) = delete;
  TlsErrorWatch& operator=(const TlsErrorWatch&) = delete;

  static void Attach(void* ssl_ctx, std::shared_ptr<TlsErrorWatch> watch);
  // OpenSSL's packed error code (ERR_GET_LIB / ERR_GET_REASON); 0: none yet.
  unsigned long error() const { return error_; }
  void Note(unsigned long error) {
    if (error_ == 0) error_ = error;
  }

 private:
  unsigned long error_ = 0;
};

}  // namespace mcpgw::http
