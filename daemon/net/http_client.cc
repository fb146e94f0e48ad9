// HttpClient::Impl: each transfer's way through libcurl, one state per
// transfer (transfer.h), and what ties the parts together: the multi handle
// on the loop (curl_loop.h), the pool of easy handles (easy_pool.h), the
// budget per origin (origin_budget.h), the drain of answered streams
// (stream_drain.h) and the TLS trust's hook (tls_wiring.h).
// libcurl is never called from inside a sink, nor its multi handle from
// inside its own callbacks: while the client is busy (inside curl, or
// reporting), starts and aborts only change states and queue work, which the
// outermost Leave carries out; a transfer curl finished is taken out of curl
// and its handle given back before any sink hears of it (CheckMultiInfo:
// collect, then call).
#include "daemon/net/http_client.h"

#include <curl/curl.h>

#include <cassert>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "daemon/net/curl_loop.h"
#include "daemon/net/easy_pool.h"
#include "daemon/net/http_curl.h"
#include "daemon/net/origin_budget.h"
#include "daemon/net/stream_drain.h"
#include "daemon/net/tls_wiring.h"
#include "daemon/net/transfer.h"

namespace mcpgw {
namespace {

using http::Transfer;
using http::TransferEvent;
using http::TransferState;

// Connections per host and port: a bound on what one client opens to a peer
// (HTTP/2 multiplexes on fewer; HTTP/1.1 transfers past it wait their turn).
// Every session holds one long-lived GET stream for server notifications, so
// the bound must leave room for many servers that share one host.
constexpr long kMaxHostConnections = 4096;
// Idle connections kept open for reuse, over all hosts.
constexpr long kMaxCachedConnections = 1024;
// The receive buffer of a long-lived transfer (HttpRequest::long_lived);
// others get curl's default (16 KiB). curl allocates it with the handle's
// first connection and keeps it until the handle is cleaned up, so such
// transfers take a fresh handle and never return it to the pool.
constexpr long kLongLivedBufferBytes = 2048;

// Makes a move the client relies on: the table has it, or the client erred.
void Move(Transfer* t, TransferEvent event) {
  const bool moved = t->life.On(event);
  assert(moved);
  (void)moved;
}

}  // namespace

struct HttpClient::Impl {
  using Key = std::pair<HttpSink*, uint64_t>;
  using Live = std::map<Key, std::unique_ptr<Transfer>>;

  // A transfer curl is done with, between its bookkeeping and its sink's
  // callbacks: its end, and its head when none went to the sink yet (read
  // while it had its handle, the text copied: the handle is back in the pool).
  struct Ended {
    Transfer* t = nullptr;
    TransferResult result;
    bool report_head = false;
    int status = 0;
    std::string_view http_version;
    http::HeadParser head;
  };

  uv_loop_t* loop;
  HttpClientOptions options;
  http::CurlLoop curl;                // the multi handle on the loop
  uv_timer_t* kick = nullptr;         // reports transfers that could not start
  uv_timer_t* drain_timer = nullptr;  // cuts drained streams whose time is up
  http::EasyPool pool;
  http::OriginBudget budget;
  http::StreamDrain drain;  // kDraining: the sinks are done with them
  // The transfers their sinks know: from Start until their end is told or
  // they are aborted or finished (every state but kDraining, kAborted and
  // kReleased).
  Live live;
  std::vector<Transfer*> to_start;  // kStarting, in the order they got places
  std::vector<Transfer*> starting;  // Leave's pass over to_start, kept for its capacity
  std::vector<std::unique_ptr<Transfer>> aborted;  // kAborted: released when the pass ends
  std::vector<Ended> ended;                        // CheckMultiInfo's, kept for its capacity
  int busy = 0;  // > 0 inside curl or while reporting: curl calls are deferred
  bool destroying = false;
  Stats stats;  // handles aside: the pool counts them

  Impl(uv_loop_t* l, HttpClientOptions o)
      : loop(l),
        options(std::move(o)),
        curl(l, &Impl::OnCurlDue, this),
        budget(options.max_requests_per_origin) {
    kick = http::NewTimer(loop, this);
    drain_timer = http::NewTimer(loop, this);
    CURLM* multi = curl.multi();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, kMaxHostConnections);
    // Without it curl sizes its connection cache from the transfers added at
    // the moment, and closes idle connections a moment later busy calls need.
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, kMaxCachedConnections);
  }

  ~Impl() {
    // No callbacks from here on: every easy handle leaves curl and is freed;
    // then `curl` goes, closing curl's connections and their watches.
    busy++;
    destroying = true;
    for (auto& [key, t] : live) Shutdown(std::move(t));
    for (auto& t : aborted) Shutdown(std::move(t));
    for (auto& t : drain.TakeAll()) Shutdown(std::move(t));
    pool.Clear();
    http::CloseTimer(kick);
    http::CloseTimer(drain_timer);
  }

  // The client is going: `t` leaves curl and its queue, its handle is freed
  // and no place is handed on.
  void Shutdown(std::unique_ptr<Transfer> t) {
    if (t->state() == TransferState::kWaiting) budget.Cancel(*t);
    if (t->handle) {
      curl_multi_remove_handle(curl.multi(), t->handle->easy);
      pool.Give(std::move(t->handle), /*keep=*/false, /*reset=*/false);
    }
    Move(t.get(), TransferEvent::kShutdown);
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
  // CURLE_ABORTED_BY_CALLBACK, which Collect reports as
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
    Transfer* t = Serving(userp);
    if (++t->attempts == 1 || !t->request.at_most_once) return CURL_PREREQFUNC_OK;
    long sent = 0;
    curl_easy_getinfo(t->handle->easy, CURLINFO_REQUEST_SIZE, &sent);
    if (sent == 0) return CURL_PREREQFUNC_OK;
    t->resend_refused = true;
    return CURL_PREREQFUNC_ABORT;
  }

  // The transfer a callback's handle serves.
  static Transfer* Serving(void* userp) { return static_cast<http::EasyHandle*>(userp)->transfer; }

  // Returning less than `n` makes curl fail the transfer: an aborted one.
  static size_t OnHeader(char* data, size_t size, size_t count, void* userp) {
    Transfer* t = Serving(userp);
    const size_t n = size * count;
    switch (t->state()) {
      case TransferState::kRunning:
        if (t->handle->head.Feed(std::string_view(data, n))) ReportHead(t);
        return t->state() == TransferState::kAborted ? 0 : n;
      case TransferState::kReceiving:
      case TransferState::kDraining:
        return n;  // trailers
      default:
        return 0;
    }
  }

  static size_t OnWrite(char* data, size_t size, size_t count, void* userp) {
    Transfer* t = Serving(userp);
    const size_t n = size * count;
    // A response without a complete head (HTTP/0.9-like) gets one before
    // its first body bytes.
    if (t->state() == TransferState::kRunning) ReportHead(t);
    switch (t->state()) {
      case TransferState::kDraining:
        // Past the bound the stream is not about to end: 0 makes curl fail
        // the transfer and close its connection.
        return http::StreamDrain::Accept(*t, n) ? n : 0;
      case TransferState::kReceiving:
        if (n == 0) return 0;
        t->sink->OnHttpData(t->tag, std::string_view(data, n));
        return t->state() == TransferState::kAborted ? 0 : n;
      default:
        return 0;
    }
  }

  // The head goes to the sink once, from the header callback when the final
  // head is complete, else before the first body bytes or the end.
  static void ReportHead(Transfer* t) {
    Move(t, TransferEvent::kHead);
    t->sink->OnHttpHead(t->tag, HeadOf(*t));
  }

  // The head as the sink sees it; its views point into the handle's head
  // parser.
  static ResponseHead HeadOf(const Transfer& t) {
    const http::EasyHandle& h = *t.handle;
    int status = h.head.status();
    if (status == 0) {
      long code = 0;
      curl_easy_getinfo(h.easy, CURLINFO_RESPONSE_CODE, &code);
      status = static_cast<int>(code);
    }
    long version = 0;
    curl_easy_getinfo(h.easy, CURLINFO_HTTP_VERSION, &version);
    return ResponseHead{status, h.head.content_type(), h.head.session_id(),
                        h.head.www_authenticate(), http::HttpVersionName(version)};
  }

  // Reports the transfers that could not start, on the loop's turn after
  // they failed: never from inside the Start that began them. They hold no
  // handle, so there is nothing of curl's to finish first.
  static void OnKick(uv_timer_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    self->busy++;
    std::vector<Ended> failed;
    for (auto& [key, t] : self->live) {
      if (t->state() != TransferState::kUnstartable) continue;
      Move(t.get(), TransferEvent::kEnd);
      Ended& e = failed.emplace_back();
      e.t = t.get();
      e.result = TransferResult{false, t->error, /*request_sent=*/false};
    }
    self->Deliver(failed);
    self->Leave();
  }

  // The loop's event for curl (a socket ready, its timeout): curl runs
  // once, then what it finished is reported.
  static void OnCurlDue(void* owner, curl_socket_t fd, int flags) {
    static_cast<Impl*>(owner)->SocketAction(fd, flags);
  }

  void SocketAction(curl_socket_t fd, int flags) {
    busy++;
    int running = 0;
    curl_multi_socket_action(curl.multi(), fd, flags, &running);
    CheckMultiInfo();
    Leave();
  }

  // Collect, then call: every transfer curl finished is first taken out of
  // curl, with what its sink is to hear read and its handle given back (a
  // drained stream is released); only then do the sinks hear of them, so a
  // sink that starts or aborts transfers meets no half-done bookkeeping, and
  // nothing is called in curl from inside a sink. Runs with busy > 0.
  void CheckMultiInfo() {
    std::vector<Ended> batch;
    batch.swap(ended);
    int pending = 0;
    while (CURLMsg* msg = curl_multi_info_read(curl.multi(), &pending)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const CURLcode code = msg->data.result;
      http::EasyHandle* h = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&h));
      Transfer* t = h ? h->transfer : nullptr;
      if (!t) continue;
      switch (t->state()) {
        case TransferState::kRunning:
        case TransferState::kReceiving:
          batch.push_back(Collect(t, code));
          break;
        case TransferState::kDraining:
          EndDrain(t, code);
          break;
        default:
          break;  // aborted: released when the pass ends
      }
    }
    Deliver(batch);
    batch.clear();
    ended.swap(batch);
  }

  // Takes a transfer curl finished out of curl and gives its handle back,
  // having read what its sink is to hear; it keeps its place until then.
  Ended Collect(Transfer* t, CURLcode code) {
    Ended e;
    e.t = t;
    CURL* easy = t->handle->easy;
    if (code != CURLE_OK) {
      e.result.ok = false;
      // Header bytes sent: the request may have reached the server.
      long sent = 0;
      curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &sent);
      e.result.request_sent = sent > 0 || t->resend_refused;
      e.result.error = t->resend_refused ? std::string(kConnectionLostAfterSend)
                                         : FailureText(*t, code, e.result.request_sent);
    } else if (t->state() == TransferState::kRunning) {
      const ResponseHead head = HeadOf(*t);
      e.report_head = true;
      e.status = head.status;
      e.http_version = head.http_version;
      e.head = t->handle->head;
    }
    Move(t, TransferEvent::kEnd);
    curl_multi_remove_handle(curl.multi(), easy);
    GiveBack(*t, /*clean=*/code == CURLE_OK);
    return e;
  }

  // Tells each ended transfer's sink, in the order curl ended them, unless
  // a sink aborted it meanwhile. A transfer leaves `live`, and gives its place
  // to the oldest waiting one, right before its sink hears its end, so the
  // sink may start another with the same tag.
  void Deliver(std::vector<Ended>& batch) {
    for (Ended& e : batch) {
      Transfer* t = e.t;
      if (t->state() != TransferState::kEnded) continue;
      if (e.report_head) {
        t->sink->OnHttpHead(t->tag,
                            ResponseHead{e.status, e.head.content_type(), e.head.session_id(),
                                         e.head.www_authenticate(), e.http_version});
        if (t->state() != TransferState::kEnded) continue;
      }
      auto it = live.find(Key{t->sink, t->tag});
      assert(it != live.end() && it->second.get() == t);  // kEnded: its sink still knows it
      std::unique_ptr<Transfer> owned = std::move(it->second);
      live.erase(it);
      HttpSink* sink = t->sink;
      const uint64_t tag = t->tag;
      Release(std::move(owned), /*clean=*/true);
      stats.finished++;
      sink->OnHttpDone(tag, e.result);
    }
  }

  static std::string FailureText(const Transfer& t, CURLcode code, bool request_sent) {
    http::Failure f;
    f.code = code;
    CURL* easy = t.handle->easy;
    curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &f.os_errno);
    curl_easy_getinfo(easy, CURLINFO_SSL_VERIFYRESULT, &f.verify_result);
    curl_easy_getinfo(easy, CURLINFO_HTTP_CONNECTCODE, &f.proxy_status);
    f.proxied = t.proxied;
    f.ssl_error = t.handle->tls_watch ? t.handle->tls_watch->error() : 0;
    f.host = http::ShowableHost(t.request.url_redacted);
    f.request_sent = request_sent;
    f.at_most_once = t.request.at_most_once;
    return http::FailureText(f);
  }

  // Leaves a busy section; the outermost one carries out the deferred work:
  // transfers that got their places go to curl, aborted ones leave it (and
  // give their places to waiting ones, which go next).
  void Leave() {
    if (--busy > 0) return;
    busy++;
    while (!to_start.empty() || !aborted.empty()) {
      // Swapped, not moved: both vectors keep their room, so a call's start
      // allocates nothing here.
      starting.swap(to_start);
      for (Transfer* t : starting) {
        if (t->state() == TransferState::kStarting) Launch(t);
      }
      starting.clear();
      std::vector<std::unique_ptr<Transfer>> gone;
      gone.swap(aborted);
      for (auto& t : gone) Release(std::move(t), /*clean=*/false);
    }
    busy--;
  }

  // A transfer that got its place takes a handle from the pool, set up for
  // its request, and goes to curl; when it cannot, its error reaches its
  // sink on the loop's next turn (OnKick).
  void Launch(Transfer* t) {
    t->handle = pool.Take(t->request.long_lived, options.trust);
    if (!t->handle) return NotStarted(t, "out of memory");
    t->handle->transfer = t;
    const CURLcode rc = Prepare(*t);
    if (rc != CURLE_OK) return NotStarted(t, http::ErrorText(rc, 0));
    if (curl_multi_add_handle(curl.multi(), t->handle->easy) != CURLM_OK) {
      return NotStarted(t, "could not start the transfer");
    }
    Move(t, TransferEvent::kAdded);
  }

  void NotStarted(Transfer* t, std::string error) {
    if (t->handle) GiveBack(*t, /*clean=*/true);
    t->error = std::move(error);
    Move(t, TransferEvent::kNotAdded);
    uv_timer_start(kick, &Impl::OnKick, 0, 0);
  }

  // Sets a transfer's handle up for its request: the client's options once
  // per handle (Configure), then the request's url, headers, method and body.
  CURLcode Prepare(Transfer& t) {
    http::EasyHandle& h = *t.handle;
    const std::string& proxy =
        (options.proxies ? *options.proxies : http::ProcessProxyEnv()).For(t.request.url);
    t.proxied = !proxy.empty();
    CURLcode rc = h.configured ? CURLE_OK : Configure(h, t.request.long_lived);
    if (rc == CURLE_OK) {
      rc = http::ConfigureRequest(h.easy, t.request, proxy, h.headers.Build(t.request.headers),
                                  h.url);
    }
    return rc;
  }

  // The options a handle keeps from one request to the next, under the
  // trust of the moment.
  CURLcode Configure(http::EasyHandle& h, bool long_lived) {
    h.trust = options.trust;
    CURLcode rc = http::ConfigureHandle(h.easy, options);
    auto set = [&](CURLoption option, auto value) {
      if (rc == CURLE_OK) rc = curl_easy_setopt(h.easy, option, value);
    };
    if (long_lived) set(CURLOPT_BUFFERSIZE, kLongLivedBufferBytes);
    // The callbacks get the handle, which names the transfer it serves.
    set(CURLOPT_PRIVATE, &h);
    set(CURLOPT_HEADERFUNCTION, &Impl::OnHeader);
    set(CURLOPT_HEADERDATA, &h);
    set(CURLOPT_WRITEFUNCTION, &Impl::OnWrite);
    set(CURLOPT_WRITEDATA, &h);
    set(CURLOPT_PREREQFUNCTION, &Impl::OnPrereq);
    set(CURLOPT_PREREQDATA, &h);
    if (rc == CURLE_OK) rc = curl.Wire(h.easy);
    if (rc == CURLE_OK) rc = http::WireTrust(h);
    h.configured = rc == CURLE_OK;
    return rc;
  }

  // A transfer's handle goes back to the pool (never from inside curl).
  // libcurl keeps what it learnt of re-sending on the handle, not the
  // transfer (7.88 counts the requests it re-sent on a fresh connection and
  // fails the sixth with "connection reset"): a handle whose request went
  // out more than once, or whose transfer failed (a re-send may have been
  // counted before it failed to connect) or was stopped midway (not
  // `clean`), starts over from a reset, configured again when next taken, so
  // nothing of this transfer carries over.
  void GiveBack(Transfer& t, bool clean) {
    const bool reset = t.attempts > 1 || !clean || !t.handle->configured;
    pool.Give(std::move(t.handle), /*keep=*/!t.request.long_lived && !destroying, reset);
  }

  // Takes a transfer out of curl (never from inside curl), gives its handle
  // back and its place (the oldest waiting take the places freed and start
  // when the pass ends), and frees it.
  void Release(std::unique_ptr<Transfer> t, bool clean) {
    if (t->handle) {
      curl_multi_remove_handle(curl.multi(), t->handle->easy);
      GiveBack(*t, clean);
    }
    if (t->origin) {
      const size_t first = to_start.size();
      budget.GiveBack(*t, to_start);
      for (size_t i = first; i < to_start.size(); i++) {
        Move(to_start[i], TransferEvent::kPlaceGiven);
      }
    }
    Move(t.get(), TransferEvent::kRelease);
  }

  void Start(HttpSink* sink, uint64_t tag, HttpRequest request) {
    Key key{sink, tag};
    if (live.count(key)) Abort(sink, tag);  // the caller broke uniqueness: keep the newest
    auto owned = std::make_unique<Transfer>(sink, tag, std::move(request));
    Transfer* t = owned.get();
    live.emplace(key, std::move(owned));
    stats.started++;
    if (!budget.Admit(*t)) {
      // It waits for a place, and holds no handle while it does: it takes
      // one when its turn comes. (A handle each made 10,000 waiting calls
      // cost a curl_easy_init, a configuration and a cleanup per call, and
      // most of the daemon's memory.)
      stats.queued++;
      return;
    }
    Move(t, TransferEvent::kPlaceGiven);
    to_start.push_back(t);
    busy++;
    Leave();
  }

  void Abort(HttpSink* sink, uint64_t tag) {
    auto it = live.find(Key{sink, tag});
    if (it == live.end()) return;
    Kill(it);
    busy++;
    Leave();
  }

  void AbortAll(HttpSink* sink) {
    auto it = live.lower_bound(Key{sink, 0});
    while (it != live.end() && it->first.first == sink) it = Kill(it);
    busy++;
    Leave();
  }

  Live::iterator Kill(Live::iterator it) {
    Transfer* t = it->second.get();
    stats.aborted++;
    if (t->state() == TransferState::kWaiting) {
      // Out of its queue now: nothing of it was sent, and no place is
      // handed to it.
      budget.Cancel(*t);
      Move(t, TransferEvent::kAbort);
      return live.erase(it);
    }
    Move(t, TransferEvent::kAbort);
    aborted.push_back(std::move(it->second));
    return live.erase(it);
  }

  // The sink is done with the transfer (StreamDrain says when its stream is
  // worth reading on). Runs inside curl callbacks, so it only hands the
  // transfer to the drain: curl ends it, or OnDrainTimer cuts it.
  void Finish(HttpSink* sink, uint64_t tag) {
    auto it = live.find(Key{sink, tag});
    if (it == live.end()) return;
    Transfer* t = it->second.get();
    long version = 0;
    if (t->handle) curl_easy_getinfo(t->handle->easy, CURLINFO_HTTP_VERSION, &version);
    if (!http::StreamDrain::Worth(*t, version)) return Abort(sink, tag);
    Move(t, TransferEvent::kFinish);
    drain.Begin(std::move(it->second), uv_now(loop));
    live.erase(it);
    if (!uv_is_active(reinterpret_cast<uv_handle_t*>(drain_timer))) {
      uv_timer_start(drain_timer, &Impl::OnDrainTimer, http::StreamDrain::kMaxMs, 0);
    }
  }

  // A drained stream ended: its connection stays in curl's cache when it
  // ended well (the handle, with it, in the pool).
  void EndDrain(Transfer* t, CURLcode code) {
    std::unique_ptr<Transfer> owned = drain.End(t);
    if (!owned) return;
    if (code == CURLE_OK) {
      stats.drained++;
    } else {
      stats.cut++;
    }
    Release(std::move(owned), /*clean=*/code == CURLE_OK);
  }

  // Streams that did not end in time are cut (their connections closed).
  static void OnDrainTimer(uv_timer_t* handle) {
    auto* self = static_cast<Impl*>(handle->data);
    const uint64_t now = uv_now(self->loop);
    self->busy++;
    for (std::unique_ptr<Transfer>& t : self->drain.TakeDue(now)) {
      Move(t.get(), TransferEvent::kCut);
      self->stats.cut++;
      self->aborted.push_back(std::move(t));
    }
    if (!self->drain.empty()) {
      uv_timer_start(handle, &Impl::OnDrainTimer, self->drain.next_due() - now, 0);
    }
    self->Leave();
  }
};

HttpClient::HttpClient(uv_loop_t* loop, HttpClientOptions options)
    : impl_(std::make_unique<Impl>(loop, std::move(options))) {}

HttpClient::~HttpClient() = default;

void HttpClient::Start(HttpSink* sink, uint64_t tag, HttpRequest request) {
  impl_->Start(sink, tag, std::move(request));
}

void HttpClient::Abort(HttpSink* sink, uint64_t tag) { impl_->Abort(sink, tag); }

void HttpClient::AbortAll(HttpSink* sink) { impl_->AbortAll(sink); }

void HttpClient::Finish(HttpSink* sink, uint64_t tag) { impl_->Finish(sink, tag); }

size_t HttpClient::active() const { return impl_->live.size(); }

size_t HttpClient::waiting() const { return impl_->budget.waiting(); }

void HttpClient::SetTrust(std::shared_ptr<const http::TlsTrust> trust) {
  impl_->options.trust = std::move(trust);
}

HttpClient::Stats HttpClient::stats() const {
  Stats s = impl_->stats;
  s.handles = impl_->pool.held();
  return s;
}

}  // namespace mcpgw
