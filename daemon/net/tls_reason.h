// TlsReason: what a failed TLS connection tells a user, from what libcurl
// and OpenSSL left behind: the CURLcode, the X509 verify result
// (CURLINFO_SSL_VERIFYRESULT) and OpenSSL's packed error code in libcurl's
// error text. Pure; FailureText (http_curl.h) calls it first.
//
// Every text starts with "TLS: " and says what to fix: an unknown issuer
// (self-signed, private CA, missing intermediate), an expired or not yet
// valid certificate, a certificate for another host (named when the caller
// knows the host is safe to show), no TLS version or cipher suite in common,
// a client certificate the server requires, a server that does not speak
// TLS. It quotes nothing else from libcurl's text.
#pragma once

#include <curl/curl.h>

#include <string>
#include <string_view>

namespace mcpgw::http {

struct TlsFailure {
  CURLcode code = CURLE_OK;
  long verify_result = 0;      // an X509_V_ERR_* code; 0 when none
  std::string_view curl_text;  // libcurl's error buffer (never quoted)
  long os_errno = 0;           // CURLINFO_OS_ERRNO
  std::string_view host;       // the server's host name, "" when it must not be shown
};

// The reason, or "" when the failure is not about TLS.
std::string TlsReason(const TlsFailure& failure);

// OpenSSL's packed error code in a text such as "error:0A000086:SSL
// routines::certificate verify failed"; 0 when there is none.
unsigned long OpensslErrorCode(std::string_view text);

}  // namespace mcpgw::http
