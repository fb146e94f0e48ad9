#include "client/stdio/stdio_loop.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace mcpgw::cli {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
constexpr long kNoDescriptorStepMs = 10;

bool WouldBlock() { return errno == EAGAIN || errno == EWOULDBLOCK; }

}  // namespace

StdioLoop::StdioLoop(AsyncDaemonApi& api, int in_fd, int out_fd, StdioBridge::Notice notice,
                     long long max_text_bytes)
    : api_(api),
      in_fd_(in_fd),
      out_fd_(out_fd),
      notice_(std::move(notice)),
      bridge_(
          api, [this](std::string message) { Queue(std::move(message)); }, notice_, max_text_bytes),
      in_chunk_(kReadChunk) {}

StdioLoop::~StdioLoop() {
  if (out_flags_ >= 0) fcntl(out_fd_, F_SETFL, out_flags_);
}

int StdioLoop::Run() {
  if (const base::Status connected = api_.Connect(); !connected.ok() && notice_) {
    notice_(UnreachableNotice(connected.message()));
  }
  // A pipe or socket to a host that stops reading must not block the loop. Terminals and
  // files are left as they are: the flag would leak to whoever shares them.
  struct stat st {};
  if (fstat(out_fd_, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
    const int flags = fcntl(out_fd_, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0 &&
        fcntl(out_fd_, F_SETFL, flags | O_NONBLOCK) == 0) {
      out_flags_ = flags;
    }
  }
  while (!out_broken_ && !(in_eof_ && bridge_.in_flight() == 0 && pending_output() == 0)) {
    pollfd fds[3];
    nfds_t n = 0;
    int in_at = -1, out_at = -1, api_at = -1;
    if (!in_eof_ && pending_output() < kMaxPendingOutput) {
      in_at = static_cast<int>(n);
      fds[n++] = {in_fd_, POLLIN, 0};
    }
    if (pending_output() > 0) {
      out_at = static_cast<int>(n);
      fds[n++] = {out_fd_, POLLOUT, 0};
    }
    if (const int fd = api_.fd(); fd >= 0) {
      api_at = static_cast<int>(n);
      fds[n++] = {fd, POLLIN, 0};
    }
    long timeout = api_.timeout_ms();
    // Without a descriptor (none could be created) the api is polled in short steps.
    if (api_at < 0 && (timeout < 0 || timeout > kNoDescriptorStepMs)) timeout = kNoDescriptorStepMs;
    const int ready =
        poll(fds, n, timeout < 0 ? -1 : static_cast<int>(std::min<long>(timeout, INT_MAX)));
    if (ready < 0 && errno != EINTR) break;
    if (ready < 0) continue;
    if (in_at >= 0 && fds[in_at].revents != 0) ReadInput();
    if (out_at >= 0 && fds[out_at].revents != 0) Flush();
    if ((api_at >= 0 && fds[api_at].revents != 0) || timeout == 0 || (ready == 0 && timeout > 0)) {
      api_.Process();
    }
  }
  return 0;
}

void StdioLoop::ReadInput() {
  const ssize_t n = read(in_fd_, in_chunk_.data(), in_chunk_.size());
  if (n < 0 && (errno == EINTR || WouldBlock())) return;
  if (n <= 0) {
    // The end of input: the last line needs no newline.
    in_eof_ = true;
    if (oversized_) {
      bridge_.RejectOversized();
    } else if (!line_.empty()) {
      Line(line_);
    }
    line_.clear();
    oversized_ = false;
    return;
  }
  std::string_view chunk(in_chunk_.data(), static_cast<size_t>(n));
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, nl);
    if (!oversized_ && line_.size() + piece.size() > kMaxStdioLineBytes) {
      oversized_ = true;
      line_.clear();
      line_.shrink_to_fit();
    }
    if (nl == std::string_view::npos) {
      if (!oversized_) line_.append(piece);
      return;
    }
    if (oversized_) {
      bridge_.RejectOversized();
    } else if (line_.empty()) {
      Line(piece);  // the common case: a whole line in one read, never copied
    } else {
      line_.append(piece);
      Line(line_);
    }
    line_.clear();
    oversized_ = false;
    chunk.remove_prefix(nl + 1);
  }
}

void StdioLoop::Line(std::string_view line) {
  if (!line.empty()) bridge_.HandleLine(line);
}

void StdioLoop::Queue(std::string message) {
  if (out_broken_) return;
  if (pending_output() == 0) {
    // Straight out in one write when the host keeps up, newline included.
    iovec iov[2] = {{message.data(), message.size()}, {const_cast<char*>("\n"), 1}};
    ssize_t n;
    do {
      n = writev(out_fd_, iov, 2);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && !WouldBlock()) {
      out_broken_ = true;
      return;
    }
    const size_t written = n < 0 ? 0 : static_cast<size_t>(n);
    if (written == message.size() + 1) return;
    out_.clear();
    out_sent_ = 0;
    if (written < message.size()) out_.append(message, written);
    out_.push_back('\n');
    return;
  }
  out_.append(message);
  out_.push_back('\n');
}

void StdioLoop::Flush() {
  while (pending_output() > 0) {
    const ssize_t n = write(out_fd_, out_.data() + out_sent_, pending_output());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && WouldBlock()) break;
    if (n <= 0) {
      out_broken_ = true;  // the host closed its end: nobody is left to answer
      return;
    }
    out_sent_ += static_cast<size_t>(n);
  }
  if (pending_output() == 0) {
    out_.clear();
    out_sent_ = 0;
  } else if (out_sent_ > out_.size() / 2) {
    out_.erase(0, out_sent_);
    out_sent_ = 0;
  }
}

}  // namespace mcpgw::cli
