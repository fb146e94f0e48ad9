// The HTTP exchange as a transport and its users share it: the request a
// user asks for, the events a transfer reports (head, body bytes, end), and
// the transport interface (HttpClient for real, a scripted fake in tests).
// Plain types only, no libcurl and no loop: the sans-I/O session
// (daemon/mcp/) speaks them without depending on the transport.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgw {

enum class HttpMethod { kPost, kGet, kDelete };

// The status line and headers of a response that matter to its users.
// Views are valid for the call only.
struct ResponseHead {
  int status = 0;
  std::string_view content_type;
  std::string_view session_id;        // Mcp-Session-Id
  std::string_view www_authenticate;  // WWW-Authenticate (all of them, comma-joined)
  std::string_view http_version;      // "HTTP/2", "HTTP/1.1" ...; empty if unknown (status only)
};

// TransferResult::error of an at-most-once request (HttpRequest::at_most_once)
// whose connection was lost after any byte of it may have been written: the
// server may have processed it, and the transport did not send it again.
inline constexpr std::string_view kConnectionLostAfterSend =
    "the connection was lost after the request was sent";

// How a transfer ended.
struct TransferResult {
  bool ok = true;     // the HTTP exchange completed (any status code)
  std::string error;  // when !ok: short, human, secret-free ("connection refused",
                      // "TLS: certificate verify failed", "timed out")
  // When !ok: whether any of the request may have reached the server. False
  // only when the transport knows nothing was sent (the connection never came
  // up, or nothing of the request was written).
  bool request_sent = true;
};

struct HttpRequest {
  HttpMethod method = HttpMethod::kPost;
  std::string url;                                           // a revealed secret: never log it
  std::vector<std::pair<std::string, std::string>> headers;  // revealed values: never log
  std::string body;
  // The url as it may be shown (config::RemoteServer::url_redacted); reasons
  // name its host. Must outlive the transfer. Empty: no host is named.
  std::string_view url_redacted;
  // Open for long and receiving little (a server's stream of notifications):
  // read through a small buffer, as one such transfer is held per server.
  bool long_lived = false;
  // The request must reach the server at most once (a tools/call): the
  // transport never sends it again by itself once any of it may have been
  // written (a kept connection that dies before the answer is not retried on
  // a fresh one); it may send it again only when nothing of it was written.
  // A transfer that lost its connection after the request may have been
  // written ends with {ok=false, request_sent=true, kConnectionLostAfterSend},
  // whether the loss came before the response (the re-send it refused) or
  // during it. Other requests may be re-sent on a fresh connection when a
  // kept one turns out dead.
  bool at_most_once = false;
  // Counts the request while it waits its turn for a connection (the
  // transport's budget per origin, HttpClientOptions): 1 is added when it is
  // queued and taken back when it leaves the queue (sent, or aborted). Null:
  // not counted. Must outlive the transfer; read from any thread.
  std::atomic<uint64_t>* queued_gauge = nullptr;
};

// Receives the events of the transfers started with it. Callbacks may call
// HttpTransport::Start and Abort (any transfer, including the one being
// reported) re-entrantly.
class HttpSink {
 public:
  virtual ~HttpSink() = default;
  // Once per transfer, before any body bytes. Absent headers are empty.
  virtual void OnHttpHead(uint64_t tag, const ResponseHead& head) = 0;
  virtual void OnHttpData(uint64_t tag, std::string_view bytes) = 0;
  // Exactly once per transfer that was not aborted.
  virtual void OnHttpDone(uint64_t tag, const TransferResult& result) = 0;
};

// Where transfers go: HttpClient for real, a scripted fake in tests.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Starts a transfer. (sink, tag) must be unique among live transfers.
  virtual void Start(HttpSink* sink, uint64_t tag, HttpRequest request) = 0;
  // Aborts a transfer; no further callback for it. Unknown (sink, tag) is a no-op.
  virtual void Abort(HttpSink* sink, uint64_t tag) = 0;
  // Aborts every transfer of `sink` (call before destroying a sink).
  virtual void AbortAll(HttpSink* sink) = 0;
  // The transfer's response is in (an SSE stream carried the answer it was
  // for): as Abort, no further callback for it, but the transport may read
  // what is left of the stream, when it is about to end, to keep the
  // connection for the next request instead of closing it.
  virtual void Finish(HttpSink* sink, uint64_t tag) { Abort(sink, tag); }
};

}  // namespace mcpgw
