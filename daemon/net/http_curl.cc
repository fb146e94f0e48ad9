#include "daemon/net/http_curl.h"

#include <cerrno>
#include <cstdio>

#include "base/text.h"
#include "base/url.h"
#include "daemon/net/tls_reason.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw::http {
namespace {

// Challenges kept per response; more is no client's business.
constexpr size_t kMaxWwwAuthenticateBytes = 8192;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// "HTTP/1.1 200 OK" or "HTTP/2 200": the three digits after the first space.
int ParseStatus(std::string_view line) {
  size_t space = line.find(' ');
  if (space == std::string_view::npos) return 0;
  std::string_view rest = Trim(line.substr(space + 1));
  if (rest.size() < 3) return 0;
  int status = 0;
  for (size_t i = 0; i < 3; i++) {
    if (rest[i] < '0' || rest[i] > '9') return 0;
    status = status * 10 + (rest[i] - '0');
  }
  return status;
}

// The codes of an exchange whose connection closed or broke under it (or,
// over HTTP/2, whose stream the server ended) before the response was whole.
bool LostConnection(CURLcode code) {
  switch (code) {
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool IsHttps(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  return base::StartsWithIgnoreCase(url, kScheme);
}

}  // namespace

CURLcode ConfigureHandle(CURL* easy, const HttpClientOptions& options) {
  CURLcode rc = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value);
  };
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_CONNECTTIMEOUT_MS, options.connect_timeout_ms);
  set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);  // a proxy's CONNECT reply is not the response
  // The proxy is chosen per url (proxy.h, ConfigureRequest); an empty
  // no-proxy list keeps libcurl from choosing again from the environment.
  set(CURLOPT_NOPROXY, "");
  if (options.trust && rc == CURLE_OK) rc = options.trust->Apply(easy);
  set(CURLOPT_VERBOSE, options.verbose ? 1L : 0L);
  return rc;
}

curl_slist* HeaderLines::Build(const std::vector<std::pair<std::string, std::string>>& headers) {
  // Values are secrets: each line is written here once and handed to curl,
  // nothing else.
  constexpr std::string_view kNoExpect = "Expect:";  // no 100-continue round trip
  text_.clear();
  for (const auto& [name, value] : headers) {
    text_ += name;
    // "Name:" would tell curl to drop the header; "Name;" sends it empty.
    if (value.empty()) {
      text_ += ';';
    } else {
      text_ += ": ";
      text_ += value;
    }
    text_ += '\0';
  }
  text_ += kNoExpect;
  text_ += '\0';
  // The text is complete: pointers into it stay valid from here on.
  nodes_.resize(headers.size() + 1);
  char* line = text_.data();
  for (size_t i = 0; i < nodes_.size(); i++) {
    nodes_[i].data = line;
    nodes_[i].next = i + 1 < nodes_.size() ? &nodes_[i + 1] : nullptr;
    line += std::char_traits<char>::length(line) + 1;
  }
  return nodes_.data();
}

ParsedUrl::~ParsedUrl() { curl_url_cleanup(handle_); }

CURLcode ParsedUrl::Apply(CURL* easy, const std::string& url) {
  if (applied_ && url == url_) return CURLE_OK;
  applied_ = false;
  if (!handle_ && !(handle_ = curl_url())) return CURLE_OUT_OF_MEMORY;
  if (url != url_) {
    url_.clear();
    if (curl_url_set(handle_, CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) {
      return CURLE_URL_MALFORMAT;
    }
    url_ = url;
  }
  const CURLcode rc = curl_easy_setopt(easy, CURLOPT_CURLU, handle_);
  applied_ = rc == CURLE_OK;
  return rc;
}

CURLcode ConfigureRequest(CURL* easy, const HttpRequest& request, const std::string& proxy,
                          curl_slist* headers, ParsedUrl& url) {
  CURLcode rc = url.Apply(easy, request.url);
  auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value);
  };
  set(CURLOPT_HTTPHEADER, headers);
  // Waiting to learn whether a connection multiplexes only pays where HTTP/2
  // is possible (TLS with ALPN). On cleartext (HTTP/1.1 only) it would queue
  // every transfer to a host behind the first one still running.
  set(CURLOPT_PIPEWAIT, IsHttps(request.url) ? 1L : 0L);
  set(CURLOPT_PROXY, proxy.c_str());
  const bool with_body = request.method == HttpMethod::kPost || !request.body.empty();
  if (with_body) {
    // POSTFIELDS makes the request a POST (DELETE then renames it).
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    set(CURLOPT_POSTFIELDS, request.body.data());
  } else {
    // No pointer to an earlier transfer's body stays behind.
    set(CURLOPT_POSTFIELDS, static_cast<const char*>(nullptr));
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(0));
    set(CURLOPT_HTTPGET, 1L);
  }
  set(CURLOPT_CUSTOMREQUEST,
      request.method == HttpMethod::kDelete ? "DELETE" : static_cast<const char*>(nullptr));
  return rc;
}

void HeadParser::Reset() {
  status_ = 0;
  content_type_.clear();
  session_id_.clear();
  www_authenticate_.clear();
  complete_ = false;
}

bool HeadParser::Feed(std::string_view line) {
  if (complete_) return false;  // trailers after the body
  if (line.substr(0, 5) == "HTTP/") {
    status_ = ParseStatus(Trim(line));
    content_type_.clear();
    session_id_.clear();
    www_authenticate_.clear();
    return false;
  }
  std::string_view trimmed = Trim(line);
  if (trimmed.empty()) {
    // End of a header block; an interim (1xx) block is followed by another.
    if (status_ >= 100 && status_ < 200) return false;
    complete_ = true;
    return true;
  }
  size_t colon = trimmed.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view name = Trim(trimmed.substr(0, colon));
  std::string_view value = Trim(trimmed.substr(colon + 1));
  if (base::EqualsIgnoreCase(name, "content-type")) {
    content_type_.assign(value);
  } else if (base::EqualsIgnoreCase(name, "mcp-session-id")) {
    session_id_.assign(value);
  } else if (base::EqualsIgnoreCase(name, "www-authenticate") &&
             www_authenticate_.size() + value.size() < kMaxWwwAuthenticateBytes) {
    if (!www_authenticate_.empty()) www_authenticate_ += ", ";
    www_authenticate_.append(value);
  }
  return false;
}

std::string FailureText(const Failure& f) {
  std::string tls = http::TlsReason({f.code, f.verify_result, f.ssl_error, f.os_errno, f.host});
  if (!tls.empty()) return tls;
  if (f.proxied) {
    if (f.proxy_status == 407) return "the proxy requires authentication (HTTP 407 from the proxy)";
    if (f.proxy_status >= 300) {
      return "the proxy refused the tunnel (HTTP " + std::to_string(f.proxy_status) +
             " from the proxy)";
    }
    if (f.code == CURLE_COULDNT_CONNECT) {
      return f.os_errno == 0 || f.os_errno == ECONNREFUSED
                 ? "could not connect to the proxy (connection refused)"
                 : "could not connect to the proxy";
    }
  }
  if (f.at_most_once && f.request_sent && LostConnection(f.code)) {
    return std::string(kConnectionLostAfterSend);
  }
  switch (f.code) {
    case CURLE_OK:
      return "";
    case CURLE_COULDNT_CONNECT:
      return f.os_errno == 0 || f.os_errno == ECONNREFUSED ? "connection refused"
                                                           : "could not connect";
    case CURLE_COULDNT_RESOLVE_HOST:
      return "could not resolve host";
    case CURLE_COULDNT_RESOLVE_PROXY:
      return "could not resolve the proxy's host";
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out connecting";
    case CURLE_GOT_NOTHING:
      return "server closed the connection without a response";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      return "connection reset";
    case CURLE_PARTIAL_FILE:
      return "response cut short";
    case CURLE_UNSUPPORTED_PROTOCOL:
      return "unsupported url scheme";
    case CURLE_URL_MALFORMAT:
      return "malformed url";
    case CURLE_WEIRD_SERVER_REPLY:
      return "invalid HTTP response";
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return "HTTP/2 error";
    case CURLE_OUT_OF_MEMORY:
      return "out of memory";
    default: {
      char text[48];
      std::snprintf(text, sizeof text, "transfer failed (curl error %d)", static_cast<int>(f.code));
      return text;
    }
  }
}

std::string ErrorText(CURLcode code, long os_errno) {
  Failure f;
  f.code = code;
  f.os_errno = os_errno;
  return FailureText(f);
}

std::string_view HttpVersionName(long curl_http_version) {
  switch (curl_http_version) {
    case CURL_HTTP_VERSION_1_0:
      return "HTTP/1.0";
    case CURL_HTTP_VERSION_1_1:
      return "HTTP/1.1";
    case CURL_HTTP_VERSION_2_0:
      return "HTTP/2";
    case CURL_HTTP_VERSION_3:
      return "HTTP/3";
    default:
      return "";
  }
}

std::string_view ShowableHost(std::string_view url_redacted) {
  std::string_view host = base::HostAsWritten(url_redacted);
  return host.find('<') == std::string_view::npos ? host : std::string_view();
}

}  // namespace mcpgw::http
