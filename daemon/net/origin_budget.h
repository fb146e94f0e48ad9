// OriginBudget: HttpClient's bound on the requests in progress per origin
// (scheme, host, port: HttpClientOptions::max_requests_per_origin, the
// settings' limits.max_connections_per_server), and so on its HTTP/1.1
// connections to it; the requests past it wait here, first in first out, not
// in a server's accept backlog. A waiting request is only a pointer in its
// origin's queue: it holds no curl handle. The client admits each request
// when it starts, gives its place back when it is released, and starts those
// whose turn came; long-lived requests (a server's stream of notifications)
// neither count nor wait. Single-threaded, like the client.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::http {

struct Transfer;

// One origin's books, kept while any request holds one of its places or
// waits for one.
struct Origin {
  std::string_view name;          // "scheme://host:port", the key it is filed under
  size_t active = 0;              // requests holding one of its places
  std::deque<Transfer*> waiting;  // oldest first
};

class OriginBudget {
 public:
  explicit OriginBudget(size_t per_origin) : per_origin_(per_origin) {}  // 0: no bound
  OriginBudget(const OriginBudget&) = delete;
  OriginBudget& operator=(const OriginBudget&) = delete;

  // Takes one of its origin's places for `t`, or queues it behind the
  // origin's others (its request's queued_gauge counts it while it waits).
  // True when it has its place or counts against none (no bound, or a
  // long-lived request; then its origin stays null).
  bool Admit(Transfer& t);
  // `t`, waiting, leaves its queue without a place (it was aborted).
  void Cancel(Transfer& t);
  // `t` gives its place back. The oldest waiting take the places now free:
  // they leave the queue and are appended to `promoted`.
  void GiveBack(Transfer& t, std::vector<Transfer*>& promoted);

  size_t waiting() const;  // over all origins
  size_t origins() const { return origins_.size(); }

  // "scheme://host:port" of a url as written, lower case, without userinfo:
  // enough to tell origins apart (the same origin written two ways only
  // gets two budgets).
  static std::string OriginOf(std::string_view url);

 private:
  Origin& Find(const std::string& url);
  static void Unqueue(Transfer& t);
  void ForgetIfIdle(Origin& o);

  const size_t per_origin_;
  std::map<std::string, Origin, std::less<>> origins_;
  // The last url admitted and its origin: requests mostly go to the server
  // the last one went to, and then the url is not taken apart again.
  std::string last_url_;
  std::string last_origin_;
};

}  // namespace mcpgw::http
