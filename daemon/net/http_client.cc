#include "daemon/net/http_client.h"

#include <curl/curl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/text.h"
#include "daemon/net/http_curl.h"
#include "daemon/net/tls_reason.h"

namespace mcpgw {
namespace {

// Connections per host and port: a bound on what one client opens to a peer
// (HTTP/2 multiplexes on fewer; HTTP/1.1 transfers past it wait their turn).
// Every session holds one long-lived GET stream for server notifications, so
// the bound must leave room for many servers that share one host.
constexpr long kMaxHostConnections = 4096;
// Idle connections kept open for reuse, over all hosts.
constexpr long kMaxCachedConnections = 1024;
// Finished transfers kept with their configured easy handles for the next
// ones: a transfer from the pool only sets its url, headers and body.
constexpr size_t kSparePoolSize = 32;
// The receive buffer of a long-lived transfer (HttpRequest::long_lived);
// others get curl's default (16 KiB). curl allocates it with the handle's
// first connection and keeps it until the handle is cleaned up, so such
// transfers take a fresh handle and never return it to the pool.
constexpr long kLongLivedBufferBytes = 2048;
// What is read of a stream after its answer (Finish) to keep its HTTP/1.1
// connection: a stream that ends within this much time and data gives its
// connection back to the pool; one that goes on is cut, as aborting it would.
// An SDK server ends the stream right after the answer: the last chunk is
// mostly in the same read, else a round trip behind.
constexpr uint64_t kDrainMs = 200;
constexpr size_t kDrainBytes = 64 * 1024;

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

uv_timer_t* NewTimer(uv_loop_t* loop, void* data) {
  auto* timer = new uv_timer_t;
  uv_timer_init(loop, timer);
  timer->data = data;
  return timer;
}

// The close callback may run after the HttpClient is gone: it only frees.
void CloseTimer(uv_timer_t* timer) {
  uv_timer_stop(timer);
  uv_close(reinterpret_cast<uv_handle_t*>(timer),
           [](uv_handle_t* h) { delete reinterpret_cast<uv_timer_t*>(h); });
}

}  // namespace

struct HttpClient::Impl {
  using Key = std::pair<HttpSink*, uint64_t>;

  struct Transfer {
    Impl* owner = nullptr;
    HttpSink* sink = nullptr;
    uint64_t tag = 0;
    HttpRequest request;                          // kept alive: curl reads the body from it
    std::shared_ptr<const http::TlsTrust> trust;  // kept alive: OnSslContext reads it
    // What OpenSSL reported on the last TLS connection this transfer opened.
    std::shared_ptr<http::TlsErrorWatch> tls_watch;
    bool proxied = false;
    CURL* easy = nullptr;
    bool configured = false;    // `easy` holds the client's options and points at this transfer
    http::HeaderLines headers;  // the list curl reads, kept for the next transfer
    http::ParsedUrl url;        // the url curl reads, kept for the next transfer
    http::HeadParser head;
    bool head_reported = false;
    // Times curl was about to send the request on a connection (OnPrereq):
    // more than one means it sent, or meant to send, the request again.
    int attempts = 0;
    bool resend_refused = false;  // OnPrereq stopped a re-send of an at-most-once request
    bool failed = false;          // ended with a transport error
    bool in_multi = false;
    bool pooled = true;  // may go back to the pool when done
    bool dead = false;   // aborted: no callback ever again
    // Finished: its answer is in, the rest of the stream is read and
    // dropped until it ends (the connection is kept) or the drain gives up.
    bool draining = false;
    size_t drained_bytes = 0;
    uint64_t drain_until = 0;  // uv_now of the give-up
    // The budget per origin (HttpClientOptions::max_requests_per_origin):
    // the origin it counts against while in progress, or waits on, and the
    // url it was worked out from (a pooled transfer mostly goes to the same
    // server again: then it is not worked out again).
    std::string origin;
    std::string origin_of;
    bool counted = false;     // holds one of its origin's places
    bool queued = false;      // waits in its origin's queue
    std::string setup_error;  // set when the transfer could not be started
  };

  // One socket curl asked us to watch. A connection socket (one curl opened
  // through OnOpenSocket) keeps its watch while its connection idles in
  // curl's cache: the watch is parked, still polled for reading, so the next
  // transfer on the connection wants exactly what is registered and the
  // kernel's registration is not touched (uv_poll_start costs two epoll_ctl
  // calls even when nothing changes). The watch goes when curl closes the
  // socket (OnCloseSocket). Freed by the poll handle's close callback, which
  // may run after the client is gone: it only frees.
  struct SocketWatch {
    uv_poll_t poll;
    Impl* owner;
    curl_socket_t fd;
    int wanted = 0;      // UV_READABLE/UV_WRITABLE curl wants now; 0 parked
    int registered = 0;  // what the poll handle is started with; 0 stopped
    bool owned = false;  // a connection socket: curl closes it through us
  };

  uv_loop_t* loop;
  HttpClientOptions options;
  CURLM* multi = nullptr;
  uv_timer_t* timer = nullptr;  // curl's timeout (CURLMOPT_TIMERFUNCTION)
  uv_timer_t* kick = nullptr;   // reports transfers that failed to start
  // Runs curl's "time out now" before the loop next waits, instead of a
  // zero timer that would cost the loop a poll of its own.
  uv_prepare_t* due = nullptr;
  bool in_due = false;
  std::unordered_map<curl_socket_t, SocketWatch*> watches;
  std::unordered_set<curl_socket_t> owned_sockets;  // opened by OnOpenSocket, not yet closed
  std::map<Key, std::unique_ptr<Transfer>> live;
  std::vector<std::unique_ptr<Transfer>> dead;   // aborted, maybe still in curl's hands
  std::vector<Transfer*> to_add;                 // live, not yet handed to curl
  std::vector<std::unique_ptr<Transfer>> spare;  // done, configured, ready for the next
  // Finished transfers still reading their stream's end, oldest first.
  std::vector<std::unique_ptr<Transfer>> draining;
  // Each origin's requests in progress and those waiting, oldest first.
  struct Origin {
    size_t active = 0;
    std::deque<Transfer*> waiting;
  };
  std::unordered_map<std::string, Origin> origins;
  size_t waiting_total = 0;
  uv_timer_t* drain_timer = nullptr;
  int busy = 0;  // > 0 inside curl or while reporting: curl calls are deferred
  bool destroying = false;
  Stats stats;

  Impl(uv_loop_t* l, HttpClientOptions o) : loop(l), options(o) {
    GlobalInit();
    multi = curl_multi_init();
    timer = NewTimer(loop, this);
    kick = NewTimer(loop, this);
    drain_timer = NewTimer(loop, this);
    due = new uv_prepare_t;
    uv_prepare_init(loop, due);
    due->data = this;
    curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, &Impl::OnCurlSocket);
    curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, &Impl::OnCurlTimer);
    curl_multi_setopt(multi, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, kMaxHostConnections);
    // Without it curl sizes its connection cache from the transfers added at
    // the moment, and closes idle connections a moment later busy calls need.
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, kMaxCachedConnections);
  }

  ~Impl() {
    // No callbacks from here on: detach every easy handle, then let curl
    // close its connections (its socket callback closes our watches).
    busy++;
    destroying = true;
    for (auto& [key, t] : live) Release(std::move(t));
    for (auto& t : dead) Release(std::move(t));
    for (auto& t : draining) Release(std::move(t));
    for (auto& t : spare) FreeHandle(t->easy);
    spare.clear();
    curl_multi_cleanup(multi);
    for (auto& [fd, watch] : watches) CloseWatch(watch);
    watches.clear();
    CloseTimer(timer);
    CloseTimer(kick);
    CloseTimer(drain_timer);
    uv_prepare_stop(due);
    uv_close(reinterpret_cast<uv_handle_t*>(due),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_prepare_t*>(h); });
  }

  // uv_close stops the poll (one epoll_ctl when it was registered).
  static void CloseWatch(SocketWatch* watch) {
    uv_close(reinterpret_cast<uv_handle_t*>(&watch->poll),
             [](uv_handle_t* h) { delete static_cast<SocketWatch*>(h->data); });
  }

  void DropWatch(curl_socket_t fd) {
    auto it = watches.find(fd);
    if (it == watches.end()) return;
    CloseWatch(it->second);
    watches.erase(it);
  }

  // Registers `events` for the watch unless that is what it has.
  void Register(SocketWatch* watch, int events) {
    if (watch->registered == events) return;
    watch->registered = events;
    if (events == 0) {
      uv_poll_stop(&watch->poll);
    } else {
      uv_poll_start(&watch->poll, events, &Impl::OnPoll);
    }
  }

  // --- curl's callbacks: they only translate events ---

  static int OnCurlSocket(CURL*, curl_socket_t fd, int what, void* userp, void*) {
    auto* self = static_cast<Impl*>(userp);
    auto it = self->watches.find(fd);
    SocketWatch* watch = it == self->watches.end() ? nullptr : it->second;
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
      watch->owned = self->owned_sockets.count(fd) != 0;
      if (uv_poll_init_socket(self->loop, &watch->poll, fd) != 0) {
        delete watch;
        return -1;  // curl fails the transfers on this socket
      }
      watch->poll.data = watch;
      self->watches.emplace(fd, watch);
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
  static curl_socket_t OnOpenSocket(void* userp, curlsocktype, curl_sockaddr* address) {
    auto* self = static_cast<Impl*>(userp);
    int fd = base::OpenSocket(address->family, address->socktype, address->protocol, false);
    if (fd == CURL_SOCKET_BAD) return fd;
    // A watch left on this number belonged to a socket closed behind our
    // back: it must not pass for the new socket's registration.
    self->DropWatch(fd);
    self->owned_sockets.insert(fd);
    return fd;
  }

  static int OnCloseSocket(void* userp, curl_socket_t fd) {
    auto* self = static_cast<Impl*>(userp);
    self->DropWatch(fd);  // before close: the number may be reused at once
    self->owned_sockets.erase(fd);
    return close(fd);
  }

  static int OnCurlTimer(CURLM*, long timeout_ms, void* userp) {
    auto* self = static_cast<Impl*>(userp);
    if (timeout_ms < 0) {
      uv_timer_stop(self->timer);
      uv_prepare_stop(self->due);
    } else if (timeout_ms == 0 && !self->in_due) {
      uv_timer_stop(self->timer);
      uv_prepare_start(self->due, &Impl::OnDue);
    } else {
      // A zero timeout met inside OnDue takes the timer: a prepare handle
      // started now would not run before the loop waits.
      uv_prepare_stop(self->due);
      uv_timer_start(self->timer, &Impl::OnTimer, static_cast<uint64_t>(timeout_ms), 0);
    }
    return 0;
  }

  // Called before every attempt to send the request (CURLOPT_PREREQFUNCTION:
  // "after a connection has been established or a connection has been
  // reused ... before any request is actually made on the connection"). A
  // second attempt is curl re-sending the request on a fresh connection
  // after a kept one died without answering. An at-most-once request
  // (HttpRequest::at_most_once) is let through again only if nothing of it
  // was written: CURLINFO_REQUEST_SIZE, "the total size of the issued
  // requests", is still 0 (a proxy's CONNECT counts too, which only errs on
  // the safe side). Otherwise the transfer fails with
  // CURLE_ABORTED_BY_CALLBACK, which CheckMultiInfo reports as
  // kConnectionLostAfterSend.
  //
  // Why this and not a read callback whose seek callback refuses to rewind
  // (curl then fails the re-send with CURLE_SEND_FAIL_REWIND, which works as
  // well): curl puts a CURLOPT_POSTFIELDS body into the same send() as the
  // head, but a read callback's body into a send() of its own, which cost
  // every call on HTTP/1.1 one system call more (tests/bench/run.sh
  // --syscalls, sequential calls: 9.0 instead of 8.0 per call in the daemon,
  // sendto 2 instead of 1). This costs none: the body stays POSTFIELDS.
  static int OnPrereq(void* userp, char*, char*, int, int) {
    auto* t = static_cast<Transfer*>(userp);
    if (++t->attempts == 1 || !t->request.at_most_once) return CURL_PREREQFUNC_OK;
    long sent = 0;
    curl_easy_getinfo(t->easy, CURLINFO_REQUEST_SIZE, &sent);
    if (sent == 0) return CURL_PREREQFUNC_OK;
    t->resend_refused = true;
    return CURL_PREREQFUNC_ABORT;
  }

  // Called with each new TLS connection's SSL_CTX (the server's, or an HTTPS
  // proxy's) the transfer opens: hands it the trust's shared store of CAs
  // and watches what OpenSSL reports, for the reason a failure gives
  // (tls_reason.h).
  static CURLcode OnSslContext(CURL*, void* ssl_ctx, void* userp) {
    auto* t = static_cast<Transfer*>(userp);
    t->tls_watch = std::make_shared<http::TlsErrorWatch>();
    http::TlsErrorWatch::Attach(ssl_ctx, t->tls_watch);
    return t->trust ? t->trust->Install(ssl_ctx) : CURLE_OK;
  }

  static size_t OnHeader(char* data, size_t size, size_t count, void* userp) {
    auto* t = static_cast<Transfer*>(userp);
    size_t n = size * count;
    if (t->dead) return 0;
    if (t->draining) return n;  // trailers
    if (t->head.Feed(std::string_view(data, n))) {
      t->owner->ReportHead(t);
      if (t->dead) return 0;
    }
    return n;
  }

  static size_t OnWrite(char* data, size_t size, size_t count, void* userp) {
    auto* t = static_cast<Transfer*>(userp);
    size_t n = size * count;
    if (t->dead) return 0;
    if (t->draining) {
      // Past the bound the stream is not about to end: 0 makes curl fail
      // the transfer and close its connection.
      t->drained_bytes += n;
      return t->drained_bytes > kDrainBytes ? 0 : n;
    }
    if (!t->head_reported) {
      t->owner->ReportHead(t);
      if (t->dead) return 0;
    }
    if (n == 0) return 0;
    t->sink->OnHttpData(t->tag, std::string_view(data, n));
    return t->dead ? 0 : n;
  }

  // --- loop events: each runs curl once, then drains what it finished ---

  static void OnPoll(uv_poll_t* handle, int status, int events) {
    auto* watch = static_cast<SocketWatch*>(handle->data);
    Impl* self = watch->owner;
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
    self->SocketAction(watch->fd, flags);
  }

  static void OnTimer(uv_timer_t* handle) {
    static_cast<Impl*>(handle->data)->SocketAction(CURL_SOCKET_TIMEOUT, 0);
  }

  static void OnDue(uv_prepare_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    uv_prepare_stop(handle);
    self->in_due = true;
    self->SocketAction(CURL_SOCKET_TIMEOUT, 0);
    self->in_due = false;
  }

  static void OnKick(uv_timer_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    self->busy++;
    std::vector<Key> failed;
    for (auto& [key, t] : self->live) {
      if (!t->setup_error.empty()) failed.push_back(key);
    }
    for (const Key& key : failed) {
      auto it = self->live.find(key);
      if (it == self->live.end() || it->second->setup_error.empty()) continue;
      std::unique_ptr<Transfer> t = std::move(it->second);
      self->live.erase(it);
      TransferResult result{false, t->setup_error, /*request_sent=*/false};
      HttpSink* sink = t->sink;
      self->Release(std::move(t));
      self->stats.finished++;
      sink->OnHttpDone(key.second, result);
    }
    self->Leave();
  }

  void SocketAction(curl_socket_t fd, int flags) {
    busy++;
    int running = 0;
    curl_multi_socket_action(multi, fd, flags, &running);
    CheckMultiInfo();
    Leave();
  }

  // Reports every finished transfer. Runs with busy > 0, so a sink that
  // aborts or starts transfers here only queues work for Flush.
  void CheckMultiInfo() {
    int pending = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &pending)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURLcode code = msg->data.result;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
      if (!t || t->dead) continue;  // released by Flush
      if (t->draining) {
        EndDrain(t, code);
        continue;
      }
      if (code == CURLE_OK && !t->head_reported) {
        ReportHead(t);
        if (t->dead) continue;
      }
      TransferResult result;
      if (code != CURLE_OK) {
        t->failed = true;
        result.ok = false;
        // Header bytes sent: the request may have reached the server.
        long sent = 0;
        curl_easy_getinfo(t->easy, CURLINFO_REQUEST_SIZE, &sent);
        result.request_sent = sent > 0 || t->resend_refused;
        result.error = t->resend_refused ? std::string(kConnectionLostAfterSend)
                                         : FailureText(t, code, result.request_sent);
      }
      auto it = live.find(Key{t->sink, t->tag});
      std::unique_ptr<Transfer> owned = std::move(it->second);
      live.erase(it);
      HttpSink* sink = owned->sink;
      uint64_t tag = owned->tag;
      Release(std::move(owned));
      stats.finished++;
      sink->OnHttpDone(tag, result);
    }
  }

  static std::string FailureText(Transfer* t, CURLcode code, bool request_sent) {
    http::Failure f;
    f.code = code;
    curl_easy_getinfo(t->easy, CURLINFO_OS_ERRNO, &f.os_errno);
    curl_easy_getinfo(t->easy, CURLINFO_SSL_VERIFYRESULT, &f.verify_result);
    curl_easy_getinfo(t->easy, CURLINFO_HTTP_CONNECTCODE, &f.proxy_status);
    f.proxied = t->proxied;
    f.ssl_error = t->tls_watch ? t->tls_watch->error() : 0;
    f.host = http::ShowableHost(t->request.url_redacted);
    f.request_sent = request_sent;
    f.at_most_once = t->request.at_most_once;
    return http::FailureText(f);
  }

  void ReportHead(Transfer* t) {
    t->head_reported = true;
    int status = t->head.status();
    if (status == 0) {
      long code = 0;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
      status = static_cast<int>(code);
    }
    long version = 0;
    curl_easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
    t->sink->OnHttpHead(t->tag,
                        ResponseHead{status, t->head.content_type(), t->head.session_id(),
                                     t->head.www_authenticate(), http::HttpVersionName(version)});
  }

  // Leaves a busy section; the outermost one carries out the deferred work.
  void Leave() {
    if (--busy > 0) return;
    busy++;
    while (!to_add.empty() || !dead.empty()) {
      std::vector<Transfer*> adds;
      adds.swap(to_add);
      for (Transfer* t : adds) {
        if (t->dead || !t->setup_error.empty()) continue;
        if (!t->easy && !(t = Bind(t))) continue;  // it waited: no handle yet
        if (curl_multi_add_handle(multi, t->easy) == CURLM_OK) {
          t->in_multi = true;
        } else {
          Fail(t, "could not start the transfer");
        }
      }
      std::vector<std::unique_ptr<Transfer>> gone;
      gone.swap(dead);
      for (auto& t : gone) Release(std::move(t));
    }
    busy--;
  }

  void Fail(Transfer* t, std::string error) {
    t->setup_error = std::move(error);
    uv_timer_start(kick, &Impl::OnKick, 0, 0);
  }

  // Takes a transfer out of curl (never from inside curl) and frees it, or
  // keeps it, configured, for the next transfer.
  void Release(std::unique_ptr<Transfer> t) {
    if (!t) return;
    LeaveOrigin(t.get());
    if (!t->easy) return;
    if (t->in_multi) curl_multi_remove_handle(multi, t->easy);
    t->in_multi = false;
    if (t->pooled && spare.size() < kSparePoolSize && !destroying) {
      // libcurl keeps what it learnt of re-sending on the handle, not the
      // transfer (7.88 counts the requests it re-sent on a fresh connection
      // and fails the sixth with "connection reset"): a handle whose request
      // went out more than once, or whose transfer failed (a re-send may
      // have been counted before it failed to connect), or that was stopped
      // midway, starts over from a reset. Our callbacks and options are set
      // again then (Configure), so nothing of this transfer carries over.
      if (t->attempts > 1 || t->failed || t->dead || !t->configured) {
        curl_easy_reset(t->easy);
        t->configured = false;
        t->url.Forget();
      }
      t->sink = nullptr;
      t->request = HttpRequest{};
      t->head = http::HeadParser{};
      t->head_reported = false;
      t->attempts = 0;
      t->resend_refused = false;
      t->failed = false;
      t->dead = false;
      t->draining = false;
      t->drained_bytes = 0;
      t->setup_error.clear();
      t->tls_watch.reset();
      spare.push_back(std::move(t));
    } else {
      FreeHandle(t->easy);
    }
  }

  // A transfer to start: from the pool when one there was configured under
  // today's trust (or not configured yet: Prepare does it), else new.
  std::unique_ptr<Transfer> Take(bool long_lived) {
    while (!long_lived && !spare.empty()) {
      std::unique_ptr<Transfer> t = std::move(spare.back());
      spare.pop_back();
      if (!t->configured || t->trust == options.trust) return t;
      FreeHandle(t->easy);  // made for trust that has been replaced
    }
    auto t = std::make_unique<Transfer>();
    t->owner = this;
    t->easy = curl_easy_init();
    if (t->easy) stats.handles++;
    t->pooled = !long_lived;
    return t;
  }

  void FreeHandle(CURL* easy) {
    curl_easy_cleanup(easy);
    stats.handles--;
  }

  // The options a transfer keeps from one request to the next.
  CURLcode Configure(Transfer* t) {
    t->trust = options.trust;
    CURLcode rc = http::ConfigureHandle(t->easy, options);
    auto set = [&](CURLoption option, auto value) {
      if (rc == CURLE_OK) rc = curl_easy_setopt(t->easy, option, value);
    };
    if (!t->pooled) set(CURLOPT_BUFFERSIZE, kLongLivedBufferBytes);
    set(CURLOPT_PRIVATE, t);
    set(CURLOPT_OPENSOCKETFUNCTION, &Impl::OnOpenSocket);
    set(CURLOPT_OPENSOCKETDATA, this);
    set(CURLOPT_CLOSESOCKETFUNCTION, &Impl::OnCloseSocket);
    set(CURLOPT_CLOSESOCKETDATA, this);
    set(CURLOPT_HEADERFUNCTION, &Impl::OnHeader);
    set(CURLOPT_HEADERDATA, t);
    set(CURLOPT_WRITEFUNCTION, &Impl::OnWrite);
    set(CURLOPT_WRITEDATA, t);
    set(CURLOPT_PREREQFUNCTION, &Impl::OnPrereq);
    set(CURLOPT_PREREQDATA, t);
    if (rc == CURLE_OK) {
      // Only libcurl built with OpenSSL has it: elsewhere TLS reasons are
      // less precise, and a trust with extra CAs cannot be honoured.
      const CURLcode ctx = curl_easy_setopt(t->easy, CURLOPT_SSL_CTX_FUNCTION, &Impl::OnSslContext);
      if (ctx == CURLE_OK) {
        rc = curl_easy_setopt(t->easy, CURLOPT_SSL_CTX_DATA, t);
      } else if (t->trust && t->trust->extends_store()) {
        rc = ctx;
      }
    }
    t->configured = rc == CURLE_OK;
    return rc;
  }

  void Start(HttpSink* sink, uint64_t tag, HttpRequest request) {
    Key key{sink, tag};
    if (live.count(key)) Abort(sink, tag);  // the caller broke uniqueness: keep the newest
    std::unique_ptr<Transfer> t = Take(request.long_lived);
    t->sink = sink;
    t->tag = tag;
    t->request = std::move(request);
    stats.started++;
    if (!TakePlace(t.get())) {
      // It waits for a place, and holds no handle while it does: Bind gives
      // it one when its turn comes. (A handle each made 10,000 waiting calls
      // cost a curl_easy_init, a configuration and a cleanup per call, and
      // most of the daemon's memory.)
      std::unique_ptr<Transfer> waiting = Park(std::move(t));
      Wait(waiting.get());
      live.emplace(key, std::move(waiting));
      return;
    }
    Transfer* raw = t.get();
    live.emplace(key, std::move(t));
    if (!Prepare(raw)) return;
    to_add.push_back(raw);
    busy++;
    Leave();
  }

  // Sets a transfer's handle up for its request; false, with the failure on
  // its way to the sink (Fail), when it cannot be.
  bool Prepare(Transfer* t) {
    if (!t->easy) {
      Fail(t, "out of memory");
      return false;
    }
    const std::string& proxy =
        (options.proxies ? *options.proxies : http::ProcessProxyEnv()).For(t->request.url);
    t->proxied = !proxy.empty();
    CURLcode rc = t->configured ? CURLE_OK : Configure(t);
    if (rc == CURLE_OK) {
      rc = http::ConfigureRequest(t->easy, t->request, proxy, t->headers.Build(t->request.headers),
                                  t->url);
    }
    if (rc != CURLE_OK) {
      Fail(t, http::ErrorText(rc, 0));
      return false;
    }
    return true;
  }

  // Moves what belongs to the request, not to the handle, from one transfer
  // to another (Park, Bind): whose it is, the request, its origin and place.
  static void HandOver(Transfer& from, Transfer& to) {
    to.sink = std::exchange(from.sink, nullptr);
    to.tag = from.tag;
    to.request = std::exchange(from.request, HttpRequest{});
    to.origin = from.origin;
    to.origin_of = from.origin_of;
    to.counted = std::exchange(from.counted, false);
  }

  // The request of `t`, which must wait, in a transfer without a handle;
  // `t`'s handle, untouched by the request, goes back to the pool.
  std::unique_ptr<Transfer> Park(std::unique_ptr<Transfer> t) {
    auto waiting = std::make_unique<Transfer>();
    waiting->owner = this;
    HandOver(*t, *waiting);
    if (t->easy && spare.size() < kSparePoolSize) {
      spare.push_back(std::move(t));
    } else if (t->easy) {
      FreeHandle(t->easy);
    }
    return waiting;
  }

  // A waiting transfer's turn came (Promote): a handle from the pool, mostly
  // the one whose transfer just gave up the place, takes its request. Returns
  // the transfer to hand to curl, or null when it could not be set up.
  Transfer* Bind(Transfer* waiting) {
    auto it = live.find(Key{waiting->sink, waiting->tag});
    if (it == live.end() || it->second.get() != waiting) return nullptr;
    std::unique_ptr<Transfer> t = Take(/*long_lived=*/false);
    HandOver(*waiting, *t);
    Transfer* raw = t.get();
    it->second = std::move(t);  // the waiting one is done with
    return Prepare(raw) ? raw : nullptr;
  }

  // --- the budget per origin ---

  // "scheme://host:port" of a url as written, lower case, without userinfo:
  // enough to tell origins apart (the same origin written two ways only
  // gets two budgets).
  static std::string OriginOf(const std::string& url) {
    const size_t scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return url;
    const size_t start = scheme_end + 3;
    size_t end = url.find_first_of("/?#", start);
    if (end == std::string::npos) end = url.size();
    const size_t at = url.rfind('@', end);
    const size_t host = at != std::string::npos && at >= start ? at + 1 : start;
    std::string origin;
    origin.reserve(start + (end - host));
    origin.append(url, 0, start).append(url, host, end - host);
    for (char& c : origin) c = base::ToLowerAscii(c);
    return origin;
  }

  // Takes one of the origin's places for `t`: false when they are all taken
  // (or others wait already), and then it must Wait.
  bool TakePlace(Transfer* t) {
    const size_t budget = options.max_requests_per_origin;
    if (budget == 0 || t->request.long_lived) return true;
    if (t->origin_of != t->request.url) {
      t->origin = OriginOf(t->request.url);
      t->origin_of = t->request.url;
    }
    Origin& o = origins[t->origin];
    if (o.active < budget && o.waiting.empty()) {
      o.active++;
      t->counted = true;
      return true;
    }
    return false;
  }

  // Queues `t` behind its origin's others (TakePlace refused it).
  void Wait(Transfer* t) {
    t->queued = true;
    origins[t->origin].waiting.push_back(t);
    waiting_total++;
    stats.queued++;
    if (t->request.queued_gauge) t->request.queued_gauge->fetch_add(1, std::memory_order_relaxed);
  }

  // A transfer ends (or is aborted while queued): its place goes to the
  // oldest one waiting.
  void LeaveOrigin(Transfer* t) {
    if (!t->counted && !t->queued) return;
    auto it = origins.find(t->origin);
    if (it == origins.end()) return;
    Origin& o = it->second;
    if (t->queued) {
      o.waiting.erase(std::find(o.waiting.begin(), o.waiting.end(), t));
      Unqueue(t);
    } else {
      o.active--;
      t->counted = false;
      if (!destroying) Promote(o);
    }
    if (o.active == 0 && o.waiting.empty()) origins.erase(it);
  }

  void Promote(Origin& o) {
    while (o.active < options.max_requests_per_origin && !o.waiting.empty()) {
      Transfer* next = o.waiting.front();
      o.waiting.pop_front();
      Unqueue(next);
      o.active++;
      next->counted = true;
      to_add.push_back(next);  // Leave, running now or soon, hands it to curl
    }
  }

  void Unqueue(Transfer* t) {
    t->queued = false;
    waiting_total--;
    if (t->request.queued_gauge) t->request.queued_gauge->fetch_sub(1, std::memory_order_relaxed);
  }

  void Abort(HttpSink* sink, uint64_t tag) {
    auto it = live.find(Key{sink, tag});
    if (it == live.end()) return;
    Kill(it);
    busy++;
    Leave();
  }

  // The sink is done with the transfer. Over HTTP/2 (or later) closing the
  // stream costs nothing: the connection stays. Over HTTP/1.1 closing a
  // response midway closes its connection, so the stream is read on, for a
  // little, in case it is about to end. Runs inside curl callbacks, so it
  // only marks the transfer: curl finishes or OnDrainTimer cuts it.
  void Finish(HttpSink* sink, uint64_t tag) {
    auto it = live.find(Key{sink, tag});
    if (it == live.end()) return;
    Transfer* t = it->second.get();
    long version = 0;
    if (t->in_multi) curl_easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
    if (!t->in_multi || !t->head_reported || !t->pooled || version >= CURL_HTTP_VERSION_2_0) {
      return Abort(sink, tag);
    }
    t->draining = true;
    t->drain_until = uv_now(loop) + kDrainMs;
    draining.push_back(std::move(it->second));
    live.erase(it);
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(drain_timer))) {
      uv_timer_start(drain_timer, &Impl::OnDrainTimer, kDrainMs, 0);
    }
  }

  // A drained stream ended: its connection stays in curl's cache when it
  // ended well (the handle, with it, in the pool).
  void EndDrain(Transfer* t, CURLcode code) {
    auto it = std::find_if(draining.begin(), draining.end(),
                           [t](const std::unique_ptr<Transfer>& d) { return d.get() == t; });
    if (it == draining.end()) return;
    std::unique_ptr<Transfer> owned = std::move(*it);
    draining.erase(it);
    if (code == CURLE_OK) {
      stats.drained++;
    } else {
      owned->failed = true;
      stats.cut++;
    }
    Release(std::move(owned));
  }

  // Streams that did not end in time are cut (their connections closed).
  static void OnDrainTimer(uv_timer_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    const uint64_t now = uv_now(self->loop);
    self->busy++;
    size_t cut = 0;
    while (cut < self->draining.size() && self->draining[cut]->drain_until <= now) cut++;
    for (size_t i = 0; i < cut; i++) {
      self->draining[i]->dead = true;
      self->dead.push_back(std::move(self->draining[i]));
      self->stats.cut++;
    }
    self->draining.erase(self->draining.begin(), self->draining.begin() + cut);
    if (!self->draining.empty()) {
      uv_timer_start(handle, &Impl::OnDrainTimer, self->draining.front()->drain_until - now, 0);
    }
    self->Leave();
  }

  void AbortAll(HttpSink* sink) {
    auto it = live.lower_bound(Key{sink, 0});
    while (it != live.end() && it->first.first == sink) it = Kill(it);
    busy++;
    Leave();
  }

  std::map<Key, std::unique_ptr<Transfer>>::iterator Kill(
      std::map<Key, std::unique_ptr<Transfer>>::iterator it) {
    // Out of the queue now: nothing of it was sent, and no place is
    // handed to it when Flush releases it.
    if (it->second->queued) LeaveOrigin(it->second.get());
    it->second->dead = true;
    dead.push_back(std::move(it->second));
    stats.aborted++;
    return live.erase(it);
  }
};

HttpClient::HttpClient(uv_loop_t* loop, HttpClientOptions options)
    : impl_(std::make_unique<Impl>(loop, options)) {}

HttpClient::~HttpClient() = default;

void HttpClient::Start(HttpSink* sink, uint64_t tag, HttpRequest request) {
  impl_->Start(sink, tag, std::move(request));
}

void HttpClient::Abort(HttpSink* sink, uint64_t tag) { impl_->Abort(sink, tag); }

void HttpClient::AbortAll(HttpSink* sink) { impl_->AbortAll(sink); }

void HttpClient::Finish(HttpSink* sink, uint64_t tag) { impl_->Finish(sink, tag); }

size_t HttpClient::active() const { return impl_->live.size(); }

size_t HttpClient::waiting() const { return impl_->waiting_total; }

void HttpClient::SetTrust(std::shared_ptr<const http::TlsTrust> trust) {
  impl_->options.trust = std::move(trust);
}

HttpClient::Stats HttpClient::stats() const { return impl_->stats; }

}  // namespace mcpgw
