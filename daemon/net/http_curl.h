// Pure helpers of HttpClient: how an easy handle is configured for MCP, how a
// response's header lines become one final head, and how a failed transfer
// becomes a short, secret-free error text a user can act on. HttpClient (http_client.cc) drives
// them; they hold no loop and no multi handle, so unit tests call them directly.
#pragma once

#include <curl/curl.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/net/http_client.h"

namespace mcpgw::http {

// The options every transfer of a client shares (protocols, redirects, HTTP
// version, time-outs, proxy choice, trust, verbosity): set once on an easy
// handle, which then serves transfer after transfer without a reset. The
// handle must be reset (or replaced) before it serves another `options.trust`.
// Returns the first failing code.
CURLcode ConfigureHandle(CURL* easy, const HttpClientOptions& options);

// A request's header lines as a curl_slist whose nodes and text live here,
// kept for reuse: once grown, building the next request's list allocates
// nothing. curl only reads the list; it must outlive the transfer.
class HeaderLines {
 public:
  curl_slist* Build(const std::vector<std::pair<std::string, std::string>>& headers);

 private:
  std::string text_;  // the lines, each NUL-terminated
  std::vector<curl_slist> nodes_;
};

// A request's url parsed once for the easy handle that keeps it
// (CURLOPT_CURLU): libcurl 7.88 parses a CURLOPT_URL string again for every
// transfer, and a pooled handle mostly serves the url it served last.
class ParsedUrl {
 public:
  ParsedUrl() = default;
  ~ParsedUrl();
  ParsedUrl(const ParsedUrl&) = delete;
  ParsedUrl& operator=(const ParsedUrl&) = delete;
  // Points `easy` at `url`, parsing it only when it is not the last one.
  CURLcode Apply(CURL* easy, const std::string& url);
  // The handle was reset: it no longer points here.
  void Forget() { applied_ = false; }

 private:
  CURLU* handle_ = nullptr;
  std::string url_;  // a revealed secret, as curl's own copy would be
  bool applied_ = false;
};

// Sets what differs between transfers on a handle ConfigureHandle prepared:
// url, header list, method and body. Every method clears what another one
// set, so the handle needs no reset in between. `request` must outlive the
// transfer (its body is sent without a copy); `proxy` is the proxy url for
// the request ("" for a direct connection: libcurl then ignores the
// environment's proxies).
CURLcode ConfigureRequest(CURL* easy, const HttpRequest& request, const std::string& proxy,
                          curl_slist* headers, ParsedUrl& url);

// Follows the header lines of one transfer (as CURLOPT_HEADERFUNCTION hands
// them over, CRLF included) and recognises the end of the FINAL response's
// header block: interim 1xx blocks are skipped, trailers are ignored.
class HeadParser {
 public:
  // True when `line` completed the final head (exactly once per transfer).
  bool Feed(std::string_view line);
  // Ready for the next transfer's head; the text's storage is kept.
  void Reset();
  bool complete() const { return complete_; }
  int status() const { return status_; }
  const std::string& content_type() const { return content_type_; }
  const std::string& session_id() const { return session_id_; }
  // Every WWW-Authenticate of the final head, joined with ", " (bounded).
  const std::string& www_authenticate() const { return www_authenticate_; }

 private:
  int status_ = 0;
  std::string content_type_;
  std::string session_id_;
  std::string www_authenticate_;
  bool complete_ = false;
};

// What a failed transfer left behind, read with curl_easy_getinfo.
struct Failure {
  CURLcode code = CURLE_OK;
  long os_errno = 0;            // CURLINFO_OS_ERRNO
  long verify_result = 0;       // CURLINFO_SSL_VERIFYRESULT: an X509_V_ERR_* code
  long proxy_status = 0;        // CURLINFO_HTTP_CONNECTCODE: the proxy's answer to CONNECT
  bool proxied = false;         // the transfer went through a proxy
  unsigned long ssl_error = 0;  // TlsErrorWatch::error() of the transfer's connection
  std::string_view host;        // the server's host, safe to show; "" names none
  bool request_sent = false;    // CURLINFO_REQUEST_SIZE > 0: any of the request may be out
  bool at_most_once = false;    // HttpRequest::at_most_once
};

// Text for TransferResult::error: TLS reasons (tls_reason.h), proxy
// reasons, kConnectionLostAfterSend for an at-most-once request whose
// connection was lost after it may have been sent, then the connection's.
std::string FailureText(const Failure& failure);
// FailureText of a bare code; `os_errno` is CURLINFO_OS_ERRNO (0 if unknown).
std::string ErrorText(CURLcode code, long os_errno);

// "HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3" for a CURLINFO_HTTP_VERSION
// value; "" for anything else.
std::string_view HttpVersionName(long curl_http_version);

// The host of `url_redacted` when it holds nothing redacted, else "".
std::string_view ShowableHost(std::string_view url_redacted);

}  // namespace mcpgw::http
