// Transfer: one request inside HttpClient, from Start to its last callback
// or its abort, with its life as one state and one table of moves
// (TransferLife; every move is in the table in transfer.cc). Passive:
// HttpClient (http_client.cc) reports each event and acts on the state. A
// transfer owns its request, the easy handle while curl has it (lent by
// EasyPool, easy_pool.h) and what curl's callbacks gather for it; its place
// in its origin's budget is kept by OriginBudget (origin_budget.h), the end
// of its stream after a Finish by StreamDrain (stream_drain.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "daemon/net/http_types.h"

namespace mcpgw::http {

struct EasyHandle;
struct Origin;

enum class TransferState {
  kWaiting,      // its origin's places are taken: queued behind the origin's others,
                 // holding no curl handle; nothing of it was sent
  kStarting,     // has its place (or counts against none): takes a handle from the
                 // pool and goes to curl when the client's current pass ends
  kUnstartable,  // no handle could be made or set up for it, or curl refused it: holds
                 // none; its error reaches the sink on the loop's next turn
  kRunning,      // in curl with its handle; its response head is not in yet
  kReceiving,    // in curl; its head went to the sink, its body follows
  kEnded,        // curl is done with it (an unstartable one: its turn came): out of
                 // curl, its handle back in the pool; its end (and its head, when
                 // none went) is about to reach the sink
  kDraining,     // the sink has its answer (Finish): curl reads the rest of the
                 // stream and drops it, to keep the connection; no callback
  kAborted,      // no callback ever again: out of curl, its handle back and its
                 // place given up when the client's current pass ends
  kReleased,     // out of curl, its handle back, its place given up: freed now
};
std::string_view TransferStateName(TransferState s);

enum class TransferEvent {
  kPlaceGiven,  // its origin's budget gives it a place (or it counts against none)
  kAdded,       // handed to curl with a handle set up for its request
  kNotAdded,    // no handle, a handle that could not be set up, or curl refused it
  kHead,        // its final response head went to the sink
  kEnd,         // curl ended it; for an unstartable one, its turn to be reported came
  kFinish,      // the sink has its answer and lets the stream's end be read
  kAbort,       // the sink is done with it: Abort, AbortAll, a Finish that cannot
                // drain, a Start that reuses its tag
  kCut,         // the drain gave up: the stream did not end in time
  kRelease,     // its handle and place are given back, its end reported if due
  kShutdown,    // the client is destroyed: released from any state, without callbacks
};
std::string_view TransferEventName(TransferEvent e);

class TransferLife {
 public:
  TransferLife() = default;
  TransferLife(const TransferLife&) = delete;
  TransferLife& operator=(const TransferLife&) = delete;

  TransferState state() const { return state_; }
  // Makes the move the table gives for `event` from the current state and
  // returns true; returns false and changes nothing when it gives none (for
  // HttpClient, a bug of its own).
  bool On(TransferEvent event);

 private:
  TransferState state_ = TransferState::kWaiting;
};

struct Transfer {
  Transfer(HttpSink* s, uint64_t t, HttpRequest r);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  TransferState state() const { return life.state(); }

  TransferLife life;
  HttpSink* const sink;
  const uint64_t tag;
  HttpRequest request;  // kept alive: curl reads the body from it
  // Lent by the pool while curl has the transfer: from kAdded until curl is
  // done with it (an aborted one's until the pass ends).
  std::unique_ptr<EasyHandle> handle;
  // The origin whose place it holds or in whose queue it waits
  // (OriginBudget); null when it counts against none, or no longer.
  Origin* origin = nullptr;
  // Times curl was about to send the request on a connection (the
  // CURLOPT_PREREQFUNCTION callback): more than one means it sent, or meant
  // to send, the request again.
  int attempts = 0;
  bool resend_refused = false;  // an at-most-once request's re-send was stopped
  bool proxied = false;         // it goes through a proxy
  std::string error;            // kUnstartable: why
  // kDraining: what was read of the stream's end, and when the drain gives up
  // (uv_now).
  size_t drained_bytes = 0;
  uint64_t drain_until = 0;
};

}  // namespace mcpgw::http
