// The C ABI of libmcpgw (client/include/mcpgw.h): handles, cancel tokens and
// the three calls, on top of connection.cc (see client_impl.h).
#include <cstdlib>
#include <cstring>
#include <new>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "client/lib/client_impl.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

namespace mcpgw::client {
namespace {

using Clock = std::chrono::steady_clock;

char* Dup(std::string_view s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
  }
  return out;
}

mcpgw_status Finish(mcpgw_status status, std::string_view text, char** out) {
  if (out != nullptr) *out = Dup(text);
  return status;
}

// Registers a waiting call with a cancel token for its duration.
class CancelRegistration {
 public:
  CancelRegistration(mcpgw_cancel* cancel, mcpgw_client* client) : cancel_(cancel) {
    if (cancel_ == nullptr) return;
    std::lock_guard lock(cancel_->mu);
    waiter_ = Waiter{&client->mu, &client->cv};
    cancel_->waiters.push_back(waiter_);
  }
  ~CancelRegistration() {
    if (cancel_ == nullptr) return;
    std::lock_guard lock(cancel_->mu);
    for (auto it = cancel_->waiters.begin(); it != cancel_->waiters.end(); ++it) {
      if (it->mu == waiter_.mu && it->cv == waiter_.cv) {
        cancel_->waiters.erase(it);
        break;
      }
    }
  }
  CancelRegistration(const CancelRegistration&) = delete;
  CancelRegistration& operator=(const CancelRegistration&) = delete;

 private:
  mcpgw_cancel* cancel_;
  Waiter waiter_{};
};

// Counts a call as running so mcpgw_close() waits for it to leave.
class ActiveCall {
 public:
  explicit ActiveCall(mcpgw_client* client) : client_(client) {}
  ~ActiveCall() {
    std::lock_guard lock(client_->mu);
    --client_->active_calls;
    client_->cv.notify_all();
  }
  ActiveCall(const ActiveCall&) = delete;
  ActiveCall& operator=(const ActiveCall&) = delete;

 private:
  mcpgw_client* client_;
};

// Sends one request and waits for its reply, the token, the timeout, or
// mcpgw_close().
mcpgw_status Call(mcpgw_client* client, std::string_view method, std::string_view params,
                  bool want_json, mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return Finish(MCPGW_INVALID_REQUEST, "no client handle", out);
  auto cancelled = [&] { return cancel != nullptr && cancel->triggered.load(); };
  if (cancelled()) return Finish(MCPGW_CANCELLED, "cancelled", out);
  {
    std::lock_guard lock(client->mu);
    if (client->closing) return Finish(MCPGW_CANCELLED, "the client handle is closing", out);
    ++client->active_calls;
  }
  ActiveCall active(client);
  CancelRegistration registration(cancel, client);
  long timeout_ms = client->timeout_ms.load();
  std::optional<Clock::time_point> deadline;
  if (timeout_ms > 0) deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);

  auto abort = [&] {
    return cancelled() || client->closing.load() || (deadline && Clock::now() >= *deadline);
  };
  std::shared_ptr<Connection> conn;
  std::string id;
  std::shared_ptr<Pending> pending;
  bool sent = false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    {
      std::lock_guard lock(client->mu);
      if (client->closing) return Finish(MCPGW_CANCELLED, "the client handle was closed", out);
      if (client->conn == nullptr || client->conn->dead) {
        if (client->conn != nullptr) {
          // Its reader has failed everything and is exiting without the lock.
          if (client->conn->reader.joinable()) client->conn->reader.join();
          client->conn.reset();
        }
        std::string error;
        client->conn = Connect(client, &error);
        if (client->conn == nullptr) return Finish(MCPGW_UNAVAILABLE, error, out);
      }
      conn = client->conn;
      id = std::to_string(client->next_id++);
      pending = std::make_shared<Pending>();
      pending->want_json = want_json;
      conn->pending.emplace(id, pending);
    }
    WriteResult written = WriteFrame(*conn, proto::EncodeRequest(id, method, params), abort);
    sent = written == WriteResult::kOk;
    if (written != WriteResult::kFailed || attempt > 0) break;
    // The daemon was gone before it saw a byte of this request (a Unix
    // socket refuses writes once its peer closed), so retrying on a new
    // connection is safe: this is how a handle survives a daemon restart.
    std::unique_lock lock(client->mu);
    client->cv.wait(lock, [&] { return conn->dead; });
  }

  std::unique_lock lock(client->mu);
  enum { kDone, kCancelled, kClosing, kTimedOut } outcome = kDone;
  while (!pending->done) {
    if (cancelled()) {
      outcome = kCancelled;
    } else if (client->closing) {
      outcome = kClosing;
    } else if (deadline && Clock::now() >= *deadline) {
      outcome = kTimedOut;
    } else {
      if (deadline) {
        client->cv.wait_until(lock, *deadline);
      } else {
        client->cv.wait(lock);
      }
      continue;
    }
    break;
  }
  if (pending->done) return Finish(pending->status, pending->text, out);
  conn->pending.erase(id);
  bool tell_daemon = sent && !conn->dead;
  lock.unlock();
  if (tell_daemon) WriteFrame(*conn, proto::EncodeCancel(id), [] { return false; });
  switch (outcome) {
    case kTimedOut:
      return Finish(MCPGW_TRANSPORT,
                    "timed out waiting for mcpgwd after " + std::to_string(timeout_ms) + " ms",
                    out);
    case kClosing:
      return Finish(MCPGW_CANCELLED, "the client handle was closed", out);
    default:
      return Finish(MCPGW_CANCELLED, "cancelled", out);
  }
}

void AddString(std::string* json, std::string_view key, const char* value) {
  if (value == nullptr) return;
  if (json->size() > 1) json->push_back(',');
  proto::AppendJsonString(json, key);
  json->push_back(':');
  proto::AppendJsonString(json, value);
}

}  // namespace
}  // namespace mcpgw::client

using namespace mcpgw;

extern "C" {

mcpgw_client* mcpgw_open(const char* socket_path) {
  auto* client = new (std::nothrow) mcpgw_client;
  if (client == nullptr) return nullptr;
  client->path = socket_path != nullptr && *socket_path != '\0' ? std::string(socket_path)
                                                                : proto::DefaultSocketPath();
  return client;
}

void mcpgw_close(mcpgw_client* client) {
  if (client == nullptr) return;
  std::shared_ptr<client::Connection> conn;
  {
    std::unique_lock lock(client->mu);
    client->closing = true;
    if (client->conn != nullptr) client::Shutdown(*client->conn);
    client->cv.notify_all();
    client->cv.wait(lock, [&] { return client->active_calls == 0; });
    conn = std::move(client->conn);
  }
  if (conn != nullptr && conn->reader.joinable()) conn->reader.join();
  conn.reset();
  delete client;
}

void mcpgw_set_timeout_ms(mcpgw_client* client, long timeout_ms) {
  if (client != nullptr) client->timeout_ms = timeout_ms < 0 ? 0 : timeout_ms;
}

mcpgw_cancel* mcpgw_cancel_new(void) { return new (std::nothrow) mcpgw_cancel; }

void mcpgw_cancel_trigger(mcpgw_cancel* cancel) {
  if (cancel == nullptr) return;
  cancel->triggered = true;
  std::lock_guard lock(cancel->mu);
  for (const client::Waiter& w : cancel->waiters) {
    // Taking the waiter's lock orders this wake-up after its last check.
    { std::lock_guard waiter_lock(*w.mu); }
    w.cv->notify_all();
  }
}

void mcpgw_cancel_free(mcpgw_cancel* cancel) { delete cancel; }

mcpgw_status mcpgw_get_dynamic_tools(mcpgw_client* client, const char* ns, const char* tool,
                                     mcpgw_cancel* cancel, char** out) {
  std::string params = "{";
  client::AddString(&params, "namespace", ns);
  client::AddString(&params, "toolName", tool);
  params.push_back('}');
  return client::Call(client, proto::kGetDynamicTools, params, false, cancel, out);
}

mcpgw_status mcpgw_call_dynamic_tool(mcpgw_client* client, const char* ns, const char* tool,
                                     const char* arguments_json, mcpgw_cancel* cancel, char** out) {
  std::string params = "{";
  client::AddString(&params, "namespace", ns);
  client::AddString(&params, "toolName", tool);
  if (arguments_json != nullptr) {
    // Checked here: a frame the daemon cannot read gets an answer that names
    // no request, and this call would never hear back.
    if (params.size() > 1) params.push_back(',');
    rapidjson::Document args;
    args.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
        arguments_json);
    if (args.HasParseError()) {
      return client::Finish(MCPGW_INVALID_REQUEST,
                            std::string("arguments are not valid JSON: ") +
                                rapidjson::GetParseError_En(args.GetParseError()) + " (at byte " +
                                std::to_string(args.GetErrorOffset()) + ")",
                            out);
    }
    params.append("\"arguments\":");
    params.append(arguments_json);
    params.push_back('}');
    std::string frame = proto::EncodeRequest("0", proto::kCallDynamicTool, params);
    if (frame.size() > proto::kMaxFrameBytes) {
      return client::Finish(MCPGW_INVALID_REQUEST,
                            "arguments are too large: the request would be " +
                                std::to_string(frame.size()) + " bytes, over mcpgwd's limit of " +
                                std::to_string(proto::kMaxFrameBytes),
                            out);
    }
    frame.pop_back();
    if (proto::Decoded checked = proto::DecodeMessage(frame); !checked.ok) {
      return client::Finish(MCPGW_INVALID_REQUEST, "arguments: " + checked.error.message, out);
    }
  } else {
    params.push_back('}');
  }
  return client::Call(client, proto::kCallDynamicTool, params, false, cancel, out);
}

mcpgw_status mcpgw_status_json(mcpgw_client* client, mcpgw_cancel* cancel, char** out) {
  return client::Call(client, proto::kStatus, "{}", true, cancel, out);
}

void mcpgw_free(char* s) { std::free(s); }

const char* mcpgw_status_name(mcpgw_status status) {
  switch (status) {
    case MCPGW_OK:
      return "ok";
    case MCPGW_BACKEND:
      return "backend";
    case MCPGW_INVALID_REQUEST:
      return "invalid_request";
    case MCPGW_NOT_READY:
      return "not_ready";
    case MCPGW_TRANSPORT:
      return "transport";
    case MCPGW_DENIED:
      return "denied";
    case MCPGW_UNAVAILABLE:
      return "unavailable";
    case MCPGW_CANCELLED:
      return "cancelled";
  }
  return "unknown";
}

const char* mcpgw_version(void) { return MCPGW_VERSION; }

}  // extern "C"
