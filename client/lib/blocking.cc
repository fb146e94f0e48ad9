// The classic, blocking functions of libmcpgw over the pollable Core
// (client_impl.h), leader/follower style: of the callers blocked on a handle,
// one at a time (the leader) polls the daemon socket and dispatches every
// reply; the others sleep on their own condition variable until their reply
// is dispatched or the leader leaves and hands the role to one of them. No
// thread of the library's own; a cancel token or the handle's timeout ends a
// blocked caller without waiting for anyone else's write.
#include <poll.h>

#include <algorithm>

#include "client/lib/client_impl.h"

namespace mcpgw::client {
namespace {

// Keeps a blocked caller known to its cancel token for as long as it waits.
// Registered before the Core's mutex is taken and removed after it is
// released: the token calls into the Core under its own lock.
class CancelRegistration {
 public:
  CancelRegistration(mcpgw_cancel* cancel, Core* core, Waiter* waiter)
      : cancel_(cancel), core_(core), waiter_(waiter) {
    if (cancel_ == nullptr) return;
    std::lock_guard lock(cancel_->mu);
    cancel_->waiters.emplace_back(core_, waiter_);
  }
  ~CancelRegistration() {
    if (cancel_ == nullptr) return;
    std::lock_guard lock(cancel_->mu);
    auto& waiters = cancel_->waiters;
    auto it = std::find(waiters.begin(), waiters.end(), std::make_pair(core_, waiter_));
    if (it != waiters.end()) waiters.erase(it);
  }
  CancelRegistration(const CancelRegistration&) = delete;
  CancelRegistration& operator=(const CancelRegistration&) = delete;

 private:
  mcpgw_cancel* cancel_;
  Core* core_;
  Waiter* waiter_;
};

int PollTimeoutMs(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  const auto left = *deadline - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  return static_cast<int>(std::min<long long>(
      std::chrono::ceil<std::chrono::milliseconds>(left).count(), 24 * 3600 * 1000));
}

}  // namespace

Outcome Core::Run(std::string_view method, std::string_view params, mcpgw_cancel* cancel) {
  auto cancelled = [cancel] { return cancel != nullptr && cancel->triggered.load(); };
  if (cancelled()) return {MCPGW_CANCELLED, "cancelled"};
  Waiter self;
  CancelRegistration registration(cancel, this, &self);
  Lock lock(mu_);
  if (closing_) return {MCPGW_CANCELLED, "the client handle is closing"};
  const long timeout_ms = timeout_ms_.load();
  std::optional<Clock::time_point> deadline;
  if (timeout_ms > 0) deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  blocked_.push_back(&self);
  const uint64_t id = StartLocked(method, params, &self, nullptr, nullptr);

  enum { kWaiting, kCancelled, kClosing, kTimedOut } why = kWaiting;
  while (!self.done) {
    if (cancelled()) {
      why = kCancelled;
    } else if (closing_) {
      why = kClosing;
    } else if (deadline && Clock::now() >= *deadline) {
      why = kTimedOut;
    } else if (leader_ == nullptr || leader_ == &self) {
      LeadLocked(lock, &self, deadline);
      continue;
    } else {
      if (deadline) {
        self.cv.wait_until(lock, *deadline);
      } else {
        self.cv.wait(lock);
      }
      continue;
    }
    break;
  }

  if (leader_ == &self) leader_ = nullptr;
  blocked_.erase(std::find(blocked_.begin(), blocked_.end(), &self));
  HandOffLocked();
  if (blocked_.empty()) idle_cv_.notify_all();
  if (self.done) return std::move(self.outcome);

  auto it = requests_.find(id);
  const bool started = it != requests_.end() && it->second.started;
  if (it != requests_.end()) requests_.erase(it);
  AbandonLocked(id, started);
  switch (why) {
    case kTimedOut:
      return {MCPGW_TRANSPORT,
              "timed out waiting for mcpgwd after " + std::to_string(timeout_ms) + " ms"};
    case kClosing:
      return {MCPGW_CANCELLED, "the client handle was closed"};
    default:
      return {MCPGW_CANCELLED, "cancelled"};
  }
}

void Core::LeadLocked(Lock& lock, Waiter* self, std::optional<Clock::time_point> deadline) {
  leader_ = self;
  if (reading_) {
    // The host's mcpgw_process() is reading; it notifies the leader after.
    self->cv.wait_for(lock, std::chrono::milliseconds(5));
    return;
  }
  std::shared_ptr<Connection> conn = conn_;
  if (conn == nullptr) {
    // Not reached while this caller's request is pending (losing the
    // connection fails or re-sends it); be safe against a spin anyway.
    self->cv.wait_for(lock, std::chrono::milliseconds(5));
    return;
  }
  const bool can_wake = leader_wake_.is_open() || leader_wake_.Open();
  leader_polls_write_ = !out_.empty();
  pollfd fds[2] = {{conn->fd, static_cast<short>(POLLIN | (leader_polls_write_ ? POLLOUT : 0)), 0},
                   {leader_wake_.fd(), POLLIN, 0}};
  // Without a wake descriptor (out of descriptors), poll in short slices so
  // cancellation still gets noticed.
  int timeout = PollTimeoutMs(deadline);
  if (!can_wake && (timeout < 0 || timeout > 50)) timeout = 50;
  leader_polling_ = true;
  lock.unlock();
  const int ready = poll(fds, can_wake ? 2 : 1, timeout);
  lock.lock();
  leader_polling_ = false;
  if (ready <= 0) return;
  if (can_wake && fds[1].revents != 0) leader_wake_.Drain();
  if (conn != conn_) return;  // lost meanwhile; look again
  if ((fds[0].revents & POLLOUT) != 0) FlushLocked();
  if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !ReadAvailable(lock)) {
    self->cv.wait_for(lock, std::chrono::milliseconds(5));
  }
}

void Core::HandOffLocked() {
  if (leader_ != nullptr) return;
  for (Waiter* w : blocked_) {
    if (!w->done) {
      w->cv.notify_one();
      return;
    }
  }
}

void Core::Interrupt(Waiter* waiter) {
  std::lock_guard lock(mu_);
  if (waiter == leader_ && leader_polling_) {
    leader_wake_.Signal();
  } else {
    waiter->cv.notify_one();
  }
}

}  // namespace mcpgw::client
