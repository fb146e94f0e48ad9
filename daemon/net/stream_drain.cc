#include "daemon/net/stream_drain.h"

#include <curl/curl.h>

#include <algorithm>
#include <utility>

namespace mcpgw::http {

bool StreamDrain::Worth(const Transfer& t, long http_version) {
  return t.state() == TransferState::kReceiving && !t.request.long_lived &&
         http_version < CURL_HTTP_VERSION_2_0;
}

void StreamDrain::Begin(std::unique_ptr<Transfer> t, uint64_t now) {
  t->drained_bytes = 0;
  t->drain_until = now + kMaxMs;
  streams_.push_back(std::move(t));
}

bool StreamDrain::Accept(Transfer& t, size_t bytes) {
  t.drained_bytes += bytes;
  return t.drained_bytes <= kMaxBytes;
}

std::unique_ptr<Transfer> StreamDrain::End(const Transfer* t) {
  auto it = std::find_if(streams_.begin(), streams_.end(),
                         [t](const std::unique_ptr<Transfer>& d) { return d.get() == t; });
  if (it == streams_.end()) return nullptr;
  std::unique_ptr<Transfer> owned = std::move(*it);
  streams_.erase(it);
  return owned;
}

std::vector<std::unique_ptr<Transfer>> StreamDrain::TakeDue(uint64_t now) {
  size_t due = 0;
  while (due < streams_.size() && streams_[due]->drain_until <= now) due++;
  std::vector<std::unique_ptr<Transfer>> out(std::make_move_iterator(streams_.begin()),
                                             std::make_move_iterator(streams_.begin() + due));
  streams_.erase(streams_.begin(), streams_.begin() + due);
  return out;
}

std::vector<std::unique_ptr<Transfer>> StreamDrain::TakeAll() {
  std::vector<std::unique_ptr<Transfer>> out;
  out.swap(streams_);
  return out;
}

}  // namespace mcpgw::http
