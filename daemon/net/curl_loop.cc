#include "daemon/net/curl_loop.h"

#include <unistd.h>

#include <mutex>

#include "base/platform.h"

namespace mcpgw::http {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

uv_timer_t* NewTimer(uv_loop_t* loop, void* data) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = data;
  return timer;
}

void CloseTimer(uv_timer_t* timer) {
  uv_timer_stop(timer);
  uv_close(reinterpret_cast<uv_handle_t*>(timer),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

// One socket curl asked us to watch. A connection socket (one curl opened
// through OnOpenSocket) keeps its watch while its connection idles in
// curl's cache: the watch is parked, still polled for reading, so the next
// transfer on the connection wants exactly what is registered and the
// kernel's registration is not touched (uv_poll_start costs two epoll_ctl
// calls even when nothing changes). The watch goes when curl closes the
// socket (OnCloseSocket). Freed by the poll handle's close callback, which
// may run after the client is gone: it only frees.
struct CurlLoop::SocketWatch {
  uv_poll_t poll;
  CurlLoop* owner;
  curl_socket_t fd;
  int wanted = 0;      // UV_READABLE/UV_WRITABLE curl wants now; 0 parked
  int registered = 0;  // what the poll handle is started with; 0 stopped
  bool owned = false;  // a connection socket: curl closes it through us
};

CurlLoop::CurlLoop(uv_loop_t* loop, Action action, void* owner)
    : loop_(loop), action_(action), owner_(owner) {
  GlobalInit();
  multi_ = curl_multi_init();
  timer_ = NewTimer(loop_, this);
  due_ = new uv_prepare_t;
  uv_prepare_init(loop_, due_);
  due_->data = this;
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlLoop::OnCurlSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlLoop::OnCurlTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
}

CurlLoop::~CurlLoop() {
  curl_multi_cleanup(multi_);  // closes curl's connections: their watches go
  for (auto& [fd, watch] : watches_) CloseWatch(watch);
  watches_.clear();
  CloseTimer(timer_);
  uv_prepare_stop(due_);
  uv_close(reinterpret_cast<uv_handle_t*>(due_),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
}

CURLcode CurlLoop::Wire(CURL* easy) {
  CURLcode rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &CurlLoop::OnOpenSocket);
  if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, this);
  if (rc == CURLE_OK) {
    rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &CurlLoop::OnCloseSocket);
  }
  if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
  return rc;
}

// uv_close stops the poll (one epoll_ctl when it was registered).
void CurlLoop::CloseWatch(SocketWatch* watch) {
  uv_close(reinterpret_cast<uv_handle_t*>(&watch->poll),
           [](uv_handle_t* h) { delete static_cast<SocketWatch*>(h->data); });
}

void CurlLoop::DropWatch(curl_socket_t fd) {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return;
  CloseWatch(it->second);
  watches_.erase(it);
}

// Registers `events` for the watch unless that is what it has.
void CurlLoop::Register(SocketWatch* watch, int events) {
  if (watch->registered == events) return;
  watch->registered = events;
  if (events == 0) {
    uv_poll_stop(&watch->poll);
  } else {
    uv_poll_start(&watch->poll, events, &CurlLoop::OnPoll);
  }
}

// --- curl's callbacks: they only translate events ---

int CurlLoop::OnCurlSocket(CURL*, curl_socket_t fd, int what, void* userp, void*) {
  auto* self = static_cast<CurlLoop*>(userp);
  auto it = self->watches_.find(fd);
  SocketWatch* watch = it == self->watches_.end() ? nullptr : it->second;
  if (what == CURL_POLL_REMOVE) {
    if (!watch) return 0;
    if (!watch->owned) {
      // Not ours to outlive (a resolver's socket): curl may close it
      // without telling us, so the watch goes now.
      self->DropWatch(fd);
      return 0;
    }
    // Parked: an idle connection stays registered for reading (an idle
    // socket is always writable, so never for writing), so the next
    // transfer on it wants what is registered already.
    watch->wanted = 0;
    self->Register(watch, watch->registered & UV_READABLE);
    return 0;
  }
  if (!watch) {
    watch = new SocketWatch;
    watch->owner = self;
    watch->fd = fd;
    watch->owned = self->owned_sockets_.count(fd) != 0;
    if (uv_poll_init_socket(self->loop_, &watch->poll, fd) != 0) {
      delete watch;
      return -1;  // curl fails the transfers on this socket
    }
    watch->poll.data = watch;
    self->watches_.emplace(fd, watch);
  }
  int events = 0;
  if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) events |= UV_READABLE;
  if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) events |= UV_WRITABLE;
  watch->wanted = events;
  self->Register(watch, events);
  return 0;
}

// Connection sockets are opened here so that their watches may outlive
// curl's interest in them: curl closes them through OnCloseSocket.
curl_socket_t CurlLoop::OnOpenSocket(void* userp, curlsocktype, curl_sockaddr* address) {
  auto* self = static_cast<CurlLoop*>(userp);
  int fd = base::OpenSocket(address->family, address->socktype, address->protocol, false);
  if (fd == CURL_SOCKET_BAD) return fd;
  // A watch left on this number belonged to a socket closed behind our
  // back: it must not pass for the new socket's registration.
  self->DropWatch(fd);
  self->owned_sockets_.insert(fd);
  return fd;
}

int CurlLoop::OnCloseSocket(void* userp, curl_socket_t fd) {
  auto* self = static_cast<CurlLoop*>(userp);
  self->DropWatch(fd);  // before close: the number may be reused at once
  self->owned_sockets_.erase(fd);
  return close(fd);
}

int CurlLoop::OnCurlTimer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<CurlLoop*>(userp);
  if (timeout_ms < 0) {
    uv_timer_stop(self->timer_);
    uv_prepare_stop(self->due_);
  } else if (timeout_ms == 0 && !self->in_due_) {
    uv_timer_stop(self->timer_);
    uv_prepare_start(self->due_, &CurlLoop::OnDue);
  } else {
    // A zero timeout met inside OnDue takes the timer: a prepare handle
    // started now would not run before the loop waits.
    uv_prepare_stop(self->due_);
    uv_timer_start(self->timer_, &CurlLoop::OnTimer, static_cast<uint64_t>(timeout_ms), 0);
  }
  return 0;
}

// --- loop events: each runs the owner's action once ---

void CurlLoop::OnPoll(uv_poll_t* handle, int status, int events) {
  auto* watch = static_cast<SocketWatch*>(handle->data);
  CurlLoop* self = watch->owner;
  if (watch->wanted == 0) {
    // A parked connection became readable: the server closed it or sent
    // what nobody asked for. Stop watching it; curl's check before reuse
    // finds it dead and closes it.
    self->Register(watch, 0);
    return;
  }
  int flags = 0;
  if (status < 0) flags = CURL_CSELECT_ERR | CURL_CSELECT_IN | CURL_CSELECT_OUT;
  if (events & UV_READABLE) flags |= CURL_CSELECT_IN;
  if (events & UV_WRITABLE) flags |= CURL_CSELECT_OUT;
  // The watch may be closed inside curl: read what we need first.
  self->action_(self->owner_, watch->fd, flags);
}

void CurlLoop::OnTimer(uv_timer_t* handle) {
  auto* self = static_cast<CurlLoop*>(handle->data);
  self->action_(self->owner_, CURL_SOCKET_TIMEOUT, 0);
}

void CurlLoop::OnDue(uv_prepare_t* handle) {
  auto* self = static_cast<CurlLoop*>(handle->data);
  uv_prepare_stop(handle);
  self->in_due_ = true;
  self->action_(self->owner_, CURL_SOCKET_TIMEOUT, 0);
  self->in_due_ = false;
}

}  // namespace mcpgw::http
