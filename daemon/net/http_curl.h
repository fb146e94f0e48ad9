// Pure helpers of HttpClient: how an easy handle is configured for MCP, how a
// response's header lines become one final head, and how a CURLcode becomes a
// short, secret-free error text. HttpClient (http_client.cc) drives them; they
// hold no loop and no multi handle, so unit tests call them directly.
#pragma once

#include <curl/curl.h>

#include <string>
#include <string_view>

#include "daemon/net/http_client.h"

namespace mcpgw::http {

// Sets every per-transfer option except the callbacks and CURLOPT_PRIVATE.
// `request` must outlive the transfer (its body is sent without a copy);
// `*headers` receives the header list to free after the transfer. Returns the
// first failing code.
CURLcode ConfigureEasy(CURL* easy, const HttpRequest& request, const HttpClientOptions& options,
                       curl_slist** headers);

// Follows the header lines of one transfer (as CURLOPT_HEADERFUNCTION hands
// them over, CRLF included) and recognises the end of the FINAL response's
// header block: interim 1xx blocks are skipped, trailers are ignored.
class HeadParser {
 public:
  // True when `line` completed the final head (exactly once per transfer).
  bool Feed(std::string_view line);
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

// Text for TransferResult::error. `os_errno` is CURLINFO_OS_ERRNO (0 if unknown).
std::string ErrorText(CURLcode code, long os_errno);

}  // namespace mcpgw::http
