// The Core of a libmcpgw handle (client_impl.h): starting requests, the
// output queue, reading and dispatching replies, losing and re-opening the
// connection, deadlines, and the pollable interface's process step.
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <unordered_set>

#include "base/platform.h"
#include "client/lib/client_impl.h"
#include "proto/messages.h"
#include "proto/methods.h"

namespace mcpgw::client {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxIov = 64;

std::string TimedOutMessage(long ms) {
  return "timed out waiting for mcpgwd after " + std::to_string(ms) + " ms";
}

}  // namespace

Core::Core(std::string path) : path_(std::move(path)) {}

Core::~Core() = default;

// ---- starting and ending requests ------------------------------------------

uint64_t Core::StartLocked(std::string_view method, std::string_view params, Waiter* waiter,
                           mcpgw_done done, void* user_data) {
  const uint64_t id = next_id_++;
  Request& r = requests_[id];
  r.id = id;
  const proto::Method* known = proto::FindMethod(method);
  r.want_json = known != nullptr && known->result == proto::ResultShape::kObject;
  r.waiter = waiter;
  r.done = done;
  r.user_data = user_data;
  if (waiter == nullptr) {
    ++async_pending_;
    if (const long ms = timeout_ms_.load(); ms > 0) {
      r.deadline = Clock::now() + std::chrono::milliseconds(ms);
      deadlines_.emplace(*r.deadline, id);
    }
  }
  if (base::Status connected = EnsureConnectedLocked(); !connected.ok()) {
    CompleteLocked(r, OutcomeOf(connected));
    return id;
  }
  QueueLocked(proto::EncodeRequest(std::to_string(id), method, params), id);
  FlushLocked();
  return id;
}

void Core::CompleteLocked(Request& r, Outcome outcome) {
  if (r.deadline) deadlines_.erase({*r.deadline, r.id});
  if (r.waiter != nullptr) {
    r.waiter->outcome = std::move(outcome);
    r.waiter->done = true;
    r.waiter->cv.notify_one();
    // Dispatched by someone else (the host's process step) while the leader
    // polls a socket that will not wake it.
    if (r.waiter == leader_ && leader_polling_) leader_wake_.Signal();
  } else {
    --async_pending_;
    finished_.push_back(Finished{r.id, r.done, r.user_data, std::move(outcome)});
    if (processing_ == 0) SignalHostLocked();
  }
  requests_.erase(r.id);
}

void Core::CompleteLocked(uint64_t id, Outcome outcome) {
  auto it = requests_.find(id);
  if (it != requests_.end()) CompleteLocked(it->second, std::move(outcome));
}

void Core::AbandonLocked(uint64_t id, bool started) {
  if (!started) {
    // The daemon never saw a byte of it: take the frame back.
    for (auto it = out_.begin(); it != out_.end(); ++it) {
      if (it->request != id) continue;
      if (it == out_.begin() && out_head_ > 0) break;  // written meanwhile: finish it
      out_.erase(it);
      UpdateInterestLocked();
      return;
    }
    if (out_.empty() || out_.front().request != id) return;
  }
  // Queued behind the rest of the request's frame, so a half-written frame is
  // completed first and the connection stays usable for everyone else.
  if (conn_ == nullptr) return;
  QueueLocked(proto::EncodeCancel(std::to_string(id)), 0);
  FlushLocked();
}

bool Core::Cancel(mcpgw_request id) {
  std::lock_guard lock(mu_);
  auto it = requests_.find(id);
  if (it == requests_.end() || it->second.waiter != nullptr) return false;
  const bool started = it->second.started;
  CompleteLocked(it->second, {MCPGW_CANCELLED, "cancelled"});
  AbandonLocked(id, started);
  return true;
}

void Core::ExpireLocked(Clock::time_point now) {
  const long ms = timeout_ms_.load();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    const uint64_t id = deadlines_.begin()->second;
    auto it = requests_.find(id);
    if (it == requests_.end()) {
      deadlines_.erase(deadlines_.begin());
      continue;
    }
    const bool started = it->second.started;
    CompleteLocked(it->second, {MCPGW_TRANSPORT, TimedOutMessage(ms)});
    AbandonLocked(id, started);
  }
}

// ---- the connection ----------------------------------------------------------

base::Status Core::EnsureConnectedLocked() {
  if (conn_ != nullptr) return base::Status();
  base::Result<int> fd = ConnectSocket(path_);
  if (!fd.ok()) return std::move(fd).status();
  auto conn = std::make_shared<Connection>();
  conn->fd = *fd;
  conn->hello_id = next_id_++;
  conn_ = std::move(conn);
  // Hello goes first, ahead of frames waiting for this connection; the
  // protocol lets requests follow it without waiting for its answer.
  out_.push_front(
      OutFrame{proto::EncodeHello(std::to_string(conn_->hello_id), "libmcpgw " MCPGW_VERSION), 0});
  out_head_ = 0;
  UpdateInterestLocked();
  return base::Status();
}

Outcome Core::ConnectNow() {
  std::lock_guard lock(mu_);
  if (base::Status connected = EnsureConnectedLocked(); !connected.ok()) {
    return OutcomeOf(connected);
  }
  FlushLocked();
  if (conn_ == nullptr) return {MCPGW_UNAVAILABLE, LostConnectionMessage(path_)};
  return {MCPGW_OK, path_};
}

void Core::QueueLocked(std::string frame, uint64_t request) {
  out_.push_back(OutFrame{std::move(frame), request});
}

void Core::FlushLocked() {
  while (conn_ != nullptr && !out_.empty()) {
    iovec iov[kMaxIov];
    size_t count = 0;
    size_t offered = 0;
    for (auto it = out_.begin(); it != out_.end() && count < kMaxIov; ++it, ++count) {
      const size_t skip = count == 0 ? out_head_ : 0;
      iov[count].iov_base = it->bytes.data() + skip;
      iov[count].iov_len = it->bytes.size() - skip;
      offered += iov[count].iov_len;
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    const ssize_t sent = sendmsg(conn_->fd, &msg, base::SendNoSignal() | MSG_DONTWAIT);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      // The daemon is gone. Nothing of the front frame went out if it was
      // not started, so that request may go again on a new connection.
      LoseConnectionLocked(conn_, MCPGW_UNAVAILABLE, LostConnectionMessage(path_));
      continue;
    }
    size_t left = static_cast<size_t>(sent);
    while (left > 0) {
      OutFrame& f = out_.front();
      if (f.request != 0 && out_head_ == 0) {
        if (auto it = requests_.find(f.request); it != requests_.end()) it->second.started = true;
      }
      const size_t rest = f.bytes.size() - out_head_;
      if (left < rest) {
        out_head_ += left;
        break;
      }
      left -= rest;
      out_.pop_front();
      out_head_ = 0;
    }
    if (static_cast<size_t>(sent) < offered) break;  // the socket is full
  }
  UpdateInterestLocked();
}

void Core::UpdateInterestLocked() {
  if (conn_ == nullptr) return;
  const bool want_write = !out_.empty();
  if (host_.is_open()) host_.Watch(conn_->fd, want_write);
  // A leader polling without POLLOUT must come back to add it.
  if (want_write && leader_polling_ && !leader_polls_write_) {
    leader_polls_write_ = true;
    leader_wake_.Signal();
  }
}

void Core::LoseConnectionLocked(const std::shared_ptr<Connection>& conn, mcpgw_status status,
                                const std::string& message) {
  if (conn == nullptr || conn_ != conn) return;
  host_.Forget(conn->fd);
  conn_.reset();
  if (leader_polling_) leader_wake_.Signal();
  // Frames no byte of which was written may go out again, once.
  std::deque<OutFrame> again;
  std::unordered_set<uint64_t> again_ids;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (out_[i].request == 0 || (i == 0 && out_head_ > 0)) continue;
    auto it = requests_.find(out_[i].request);
    if (it == requests_.end() || it->second.started || it->second.retried) continue;
    it->second.retried = true;
    again_ids.insert(it->first);
    again.push_back(std::move(out_[i]));
  }
  out_.clear();
  out_head_ = 0;
  std::vector<uint64_t> lost;
  for (const auto& [id, r] : requests_) {
    if (again_ids.count(id) == 0) lost.push_back(id);
  }
  for (uint64_t id : lost) CompleteLocked(id, {status, message});
  if (again.empty()) return;
  out_ = std::move(again);
  if (base::Status connected = EnsureConnectedLocked(); !connected.ok()) {
    std::vector<uint64_t> unreachable;
    for (const OutFrame& f : out_) unreachable.push_back(f.request);
    out_.clear();
    for (uint64_t id : unreachable) CompleteLocked(id, OutcomeOf(connected));
  }
}

// ---- reading -------------------------------------------------------------------

bool Core::ReadAvailable(Lock& lock) {
  if (reading_) return false;
  if (conn_ == nullptr) return true;
  reading_ = true;
  std::shared_ptr<Connection> conn = conn_;
  lock.unlock();

  struct Reply {
    uint64_t id;
    Outcome outcome;
    bool has_text;
  };
  std::vector<Reply> replies;
  enum { kOpen, kClosed, kTooLarge } end = kOpen;
  if (read_buf_.empty()) read_buf_.resize(kReadChunk);
  for (;;) {
    const ssize_t n = recv(conn->fd, read_buf_.data(), read_buf_.size(), MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {
      end = kClosed;
      break;
    }
    conn->decoder.Append(std::string_view(read_buf_.data(), static_cast<size_t>(n)));
    std::string_view frame;
    proto::FrameDecoder::Status status;
    while ((status = conn->decoder.Next(&frame)) == proto::FrameDecoder::Status::kFrame) {
      Reply reply{};
      if (DecodeReply(frame, &reply.id, &reply.outcome, &reply.has_text)) {
        replies.push_back(std::move(reply));
      }
    }
    if (status == proto::FrameDecoder::Status::kTooLarge) {
      end = kTooLarge;
      break;
    }
    // A stream socket hands over all it holds: a short read drained it.
    if (static_cast<size_t>(n) < read_buf_.size()) break;
  }

  lock.lock();
  reading_ = false;
  for (Reply& reply : replies) {
    if (reply.id == conn->hello_id) {
      if (reply.outcome.status == MCPGW_OK) continue;
      LoseConnectionLocked(conn, MCPGW_UNAVAILABLE,
                           "mcpgwd at " + path_ + " refused this client: " + reply.outcome.text);
      break;
    }
    auto it = requests_.find(reply.id);
    if (it == requests_.end()) continue;  // cancelled or timed out meanwhile
    Outcome& outcome = reply.outcome;
    if (outcome.status == MCPGW_OK && it->second.want_json == reply.has_text) {
      outcome = {MCPGW_TRANSPORT,
                 "mcpgwd sent a result of another shape; is it a different version?"};
    }
    CompleteLocked(it->second, std::move(outcome));
  }
  if (end == kTooLarge) {
    LoseConnectionLocked(conn, MCPGW_TRANSPORT,
                         "mcpgwd at " + path_ + " sent a frame over the " +
                             std::to_string(proto::kMaxFrameBytes) +
                             "-byte limit; the connection was dropped and the call's outcome is "
                             "unknown");
  } else if (end == kClosed) {
    LoseConnectionLocked(conn, MCPGW_UNAVAILABLE, LostConnectionMessage(path_));
  }
  FlushLocked();
  if (leader_ != nullptr) leader_->cv.notify_one();  // it may be waiting for the reader role
  return true;
}

// ---- the pollable interface ----------------------------------------------------

mcpgw_request Core::Start(std::string_view method, std::string_view params, mcpgw_done done,
                          void* user_data) {
  std::lock_guard lock(mu_);
  if (closing_) return 0;
  return StartLocked(method, params, nullptr, done, user_data);
}

mcpgw_request Core::Refuse(mcpgw_status status, std::string message, mcpgw_done done,
                           void* user_data) {
  std::lock_guard lock(mu_);
  if (closing_) return 0;
  const uint64_t id = next_id_++;
  finished_.push_back(Finished{id, done, user_data, {status, std::move(message)}});
  if (processing_ == 0) SignalHostLocked();
  return id;
}

void Core::SignalHostLocked() {
  if (host_signaled_ || !host_.is_open()) return;
  host_.Signal();
  host_signaled_ = true;
}

int Core::HostFd(int* events) {
  std::lock_guard lock(mu_);
  if (!host_.is_open()) {
    if (!host_.Open()) return -1;
    if (conn_ != nullptr) host_.Watch(conn_->fd, !out_.empty());
    if (!finished_.empty()) SignalHostLocked();
  }
  if (events != nullptr) *events = MCPGW_WANT_READ;
  return host_.fd();
}

long Core::TimeoutMs() {
  std::lock_guard lock(mu_);
  if (!finished_.empty()) return 0;
  if (deadlines_.empty()) return -1;
  const auto left = deadlines_.begin()->first - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  // Rounded up, so a host that sleeps this long finds the deadline passed.
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
  return static_cast<long>(std::min<decltype(ms)>(ms, LONG_MAX));
}

int Core::Process() {
  Lock lock(mu_);
  ++processing_;
  host_.Clear(host_signaled_);
  host_signaled_ = false;
  if (!out_.empty()) FlushLocked();
  ReadAvailable(lock);
  if (!deadlines_.empty()) ExpireLocked(Clock::now());
  while (!finished_.empty()) {
    std::vector<Finished> batch;
    batch.swap(finished_);
    lock.unlock();
    for (Finished& f : batch) {
      if (f.done != nullptr) {
        f.done(f.user_data, f.id, f.outcome.status, f.outcome.text.c_str(), f.outcome.text.size());
      }
    }
    lock.lock();
  }
  --processing_;
  return async_pending_;
}

// ---- closing -------------------------------------------------------------------

void Core::Close() {
  Lock lock(mu_);
  closing_ = true;
  for (Waiter* w : blocked_) w->cv.notify_one();
  if (leader_ != nullptr) leader_wake_.Signal();
  idle_cv_.wait(lock, [&] { return blocked_.empty(); });
  std::vector<uint64_t> pending;
  for (const auto& [id, r] : requests_) pending.push_back(id);
  ++processing_;  // delivered here, not through the host
  for (uint64_t id : pending) {
    CompleteLocked(id, {MCPGW_CANCELLED, "the client handle was closed"});
  }
  std::vector<Finished> batch;
  batch.swap(finished_);
  if (conn_ != nullptr) host_.Forget(conn_->fd);
  conn_.reset();  // the daemon drops whatever this connection had in flight
  out_.clear();
  out_head_ = 0;
  lock.unlock();
  for (Finished& f : batch) {
    if (f.done != nullptr) {
      f.done(f.user_data, f.id, f.outcome.status, f.outcome.text.c_str(), f.outcome.text.size());
    }
  }
}

}  // namespace mcpgw::client
