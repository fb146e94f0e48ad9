// StreamDrain: what HttpClient reads of a response after its sink has its
// answer (HttpTransport::Finish: an SSE stream carried it), to keep the
// connection. Closing an HTTP/1.1 response midway closes its connection, so
// the rest of the stream is read and dropped for at most kMaxMs and kMaxBytes:
// a stream that ends within that (an SDK server ends it right after the
// answer: the last chunk is mostly in the same read, else a round trip
// behind) leaves its connection in curl's cache and its handle in the pool;
// one that goes on is cut, as aborting it would. Over HTTP/2 closing the
// stream costs nothing, so such a transfer is not drained. The drain owns the
// finished transfers until curl ends their streams or their time is up; the
// client's timer asks it which are due. Reads no clock: the client passes
// uv_now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "daemon/net/transfer.h"

namespace mcpgw::http {

class StreamDrain {
 public:
  static constexpr uint64_t kMaxMs = 200;
  static constexpr size_t kMaxBytes = 64 * 1024;

  StreamDrain() = default;
  StreamDrain(const StreamDrain&) = delete;
  StreamDrain& operator=(const StreamDrain&) = delete;

  // Whether a transfer its sink finishes is drained rather than aborted:
  // curl has it with its head in (kReceiving), its request is not long-lived
  // (a handle of its own that is never kept), and its response came over
  // HTTP/1.x (`http_version`: CURLINFO_HTTP_VERSION).
  static bool Worth(const Transfer& t, long http_version);
  // Takes `t` (kDraining) from `now` on.
  void Begin(std::unique_ptr<Transfer> t, uint64_t now);
  // Bytes of a draining stream came: false once they pass kMaxBytes (the
  // stream is not about to end; curl is told to fail it, which closes its
  // connection).
  static bool Accept(Transfer& t, size_t bytes);
  // curl ended `t`'s stream: it leaves the drain (null when not here).
  std::unique_ptr<Transfer> End(const Transfer* t);
  // Those whose time is up at `now`, oldest first; they leave the drain.
  std::vector<std::unique_ptr<Transfer>> TakeDue(uint64_t now);
  // Every one still here (the client is destroyed).
  std::vector<std::unique_ptr<Transfer>> TakeAll();

  bool empty() const { return streams_.empty(); }
  size_t size() const { return streams_.size(); }
  // When the oldest is due (uv_now); only when !empty().
  uint64_t next_due() const { return streams_.front()->drain_until; }

 private:
  // Oldest first: each gets the same time, so they are due in this order.
  std::vector<std::unique_ptr<Transfer>> streams_;
};

}  // namespace mcpgw::http
