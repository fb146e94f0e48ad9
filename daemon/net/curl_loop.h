// CurlLoop: one curl multi handle driven by one libuv loop through
// libcurl's multi socket interface: a poll handle for each socket curl asks
// to watch (CURLMOPT_SOCKETFUNCTION), a timer for its timeouts
// (CURLMOPT_TIMERFUNCTION), and when either fires the owner's action, which
// calls curl_multi_socket_action and reads what curl finished; never
// curl_multi_perform. Connection sockets are opened and closed through it
// (Wire sets an easy handle's open and close callbacks), so the watch of a
// connection idle in curl's cache stays registered for reading and the next
// transfer on it costs no epoll_ctl. HttpClient owns one; it owns the multi
// handle. Single-threaded, on the loop's thread.
#pragma once

#include <curl/curl.h>
#include <uv.h>

#include <cstddef>
#include <unordered_map>
#include <unordered_set>

namespace mcpgw::http {

class CurlLoop {
 public:
  // Runs curl for `fd` (CURL_SOCKET_TIMEOUT: its timeout) with `flags`
  // (CURL_CSELECT_*), on the loop.
  using Action = void (*)(void* owner, curl_socket_t fd, int flags);

  CurlLoop(uv_loop_t* loop, Action action, void* owner);
  // curl_multi_cleanup (every easy handle must be out of the multi handle
  // by then: curl closes its cached connections through Wire's callbacks),
  // then the watches and the timer close.
  ~CurlLoop();
  CurlLoop(const CurlLoop&) = delete;
  CurlLoop& operator=(const CurlLoop&) = delete;

  CURLM* multi() const { return multi_; }
  // Makes `easy` open and close its connection sockets through this loop.
  CURLcode Wire(CURL* easy);
  // Sockets watched now, parked ones (idle connections) included.
  size_t watches() const { return watches_.size(); }

 private:
  struct SocketWatch;

  static int OnCurlSocket(CURL*, curl_socket_t fd, int what, void* userp, void*);
  static curl_socket_t OnOpenSocket(void* userp, curlsocktype, curl_sockaddr* address);
  static int OnCloseSocket(void* userp, curl_socket_t fd);
  static int OnCurlTimer(CURLM*, long timeout_ms, void* userp);
  static void OnPoll(uv_poll_t* handle, int status, int events);
  static void OnTimer(uv_timer_t* handle);
  static void OnDue(uv_prepare_t* handle);
  static void CloseWatch(SocketWatch* watch);
  void DropWatch(curl_socket_t fd);
  void Register(SocketWatch* watch, int events);

  uv_loop_t* const loop_;
  const Action action_;
  void* const owner_;
  CURLM* multi_ = nullptr;
  uv_timer_t* timer_ = nullptr;  // curl's timeout
  // Runs curl's "time out now" before the loop next waits, instead of a
  // zero timer that would cost the loop a poll of its own.
  uv_prepare_t* due_ = nullptr;
  bool in_due_ = false;
  std::unordered_map<curl_socket_t, SocketWatch*> watches_;
  std::unordered_set<curl_socket_t> owned_sockets_;  // opened by OnOpenSocket, not yet closed
};

// A timer on `loop` whose data is `data`, and its closing: the close
// callback may run after its owner is gone, so it only frees.
uv_timer_t* NewTimer(uv_loop_t* loop, void* data);
void CloseTimer(uv_timer_t* timer);

}  // namespace mcpgw::http
