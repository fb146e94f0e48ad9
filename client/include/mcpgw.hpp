// mcpgw.hpp: a header-only C++ wrapper over libmcpgw's C ABI (mcpgw.h).
// mcpgw::Client owns one handle (move-only, closed on destruction);
// mcpgw::CancelToken owns one cancel token. Blocking calls return a Result
// holding the status and the text (the answer, or an error message a model
// can read); the pollable interface (Start*, fd, timeout_ms, Process) hands
// the same Result to a callback. An event loop drives it like this:
//
// EXAMPLE-BEGIN mcpgw_poll_example.cc
//   #include <poll.h>
//   #include <iostream>
//   #include "mcpgw.hpp"
//
//   int main(int argc, char** argv) {
//     mcpgw::Client client(argc > 1 ? argv[1] : "");
//     int pending = 0;
//     auto print = [&](const char* what) {
//       ++pending;
//       return [&pending, what](const mcpgw::Result& r) {
//         std::cout << what << " " << r.status_name() << ": " << r.text << "\n";
//         --pending;
//       };
//     };
//     client.StartGetDynamicTools(std::nullopt, std::nullopt, print("tools"));
//     client.StartStatus(print("status"));
//     int events = 0;
//     const int fd = client.fd(&events);
//     if (fd < 0) return 1;
//     while (pending > 0) {
//       pollfd p{fd, 0, 0};
//       if (events & MCPGW_WANT_READ) p.events |= POLLIN;
//       if (events & MCPGW_WANT_WRITE) p.events |= POLLOUT;
//       poll(&p, 1, static_cast<int>(client.timeout_ms()));
//       client.Process();
//       client.fd(&events);
//     }
//     return 0;
//   }
// EXAMPLE-END
#ifndef MCPGW_HPP
#define MCPGW_HPP

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "mcpgw.h"

namespace mcpgw {

struct Result {
  mcpgw_status status = MCPGW_UNAVAILABLE;
  std::string text;

  bool ok() const { return status == MCPGW_OK; }
  const char* status_name() const { return mcpgw_status_name(status); }
};

// Trigger() from any thread ends every call that was given this token. It
// must outlive the calls that use it.
class CancelToken {
 public:
  CancelToken() : token_(mcpgw_cancel_new()) {}
  ~CancelToken() { mcpgw_cancel_free(token_); }
  CancelToken(CancelToken&& other) noexcept : token_(std::exchange(other.token_, nullptr)) {}
  CancelToken& operator=(CancelToken&& other) noexcept {
    if (this != &other) {
      mcpgw_cancel_free(token_);
      token_ = std::exchange(other.token_, nullptr);
    }
    return *this;
  }
  CancelToken(const CancelToken&) = delete;
  CancelToken& operator=(const CancelToken&) = delete;

  void Trigger() { mcpgw_cancel_trigger(token_); }
  mcpgw_cancel* get() const { return token_; }

 private:
  mcpgw_cancel* token_;
};

class Client {
 public:
  // Empty path: the default ($MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock).
  explicit Client(const std::string& socket_path = "")
      : client_(mcpgw_open(socket_path.empty() ? nullptr : socket_path.c_str())) {}
  ~Client() { mcpgw_close(client_); }
  Client(Client&& other) noexcept : client_(std::exchange(other.client_, nullptr)) {}
  Client& operator=(Client&& other) noexcept {
    if (this != &other) {
      mcpgw_close(client_);
      client_ = std::exchange(other.client_, nullptr);
    }
    return *this;
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Upper bound per call; zero means none.
  void SetTimeout(std::chrono::milliseconds timeout) {
    if (client_ != nullptr) mcpgw_set_timeout_ms(client_, static_cast<long>(timeout.count()));
  }

  Result GetDynamicTools(const std::optional<std::string>& ns = std::nullopt,
                         const std::optional<std::string>& tool = std::nullopt,
                         CancelToken* cancel = nullptr) {
    return Run([&](char** out) {
      return mcpgw_get_dynamic_tools(client_, ns ? ns->c_str() : nullptr,
                                     tool ? tool->c_str() : nullptr, Token(cancel), out);
    });
  }
  // The tools that best match `query`, best first (mcpgw_find_tools): of every ready server,
  // or of `ns` alone; at most `limit`, 0 meaning the daemon's default.
  Result FindTools(const std::optional<std::string>& ns, const std::string& query, int limit = 0,
                   CancelToken* cancel = nullptr) {
    return Run([&](char** out) {
      return mcpgw_find_tools(client_, ns ? ns->c_str() : nullptr, query.c_str(), limit,
                              Token(cancel), out);
    });
  }
  // `arguments_json`: a JSON object's text; empty means {}.
  Result CallDynamicTool(const std::string& ns, const std::string& tool,
                         const std::string& arguments_json = "", CancelToken* cancel = nullptr) {
    return Run([&](char** out) {
      return mcpgw_call_dynamic_tool(client_, ns.c_str(), tool.c_str(),
                                     arguments_json.empty() ? nullptr : arguments_json.c_str(),
                                     Token(cancel), out);
    });
  }
  // With a bound on the result's text (mcpgw_call_dynamic_tool_bounded): a number of bytes
  // (0: none), MCPGW_MAX_TEXT_DEFAULT or MCPGW_MAX_TEXT_STDIO.
  Result CallDynamicToolBounded(const std::string& ns, const std::string& tool,
                                const std::string& arguments_json, long long max_text_bytes,
                                CancelToken* cancel = nullptr) {
    return Run([&](char** out) {
      return mcpgw_call_dynamic_tool_bounded(
          client_, ns.c_str(), tool.c_str(),
          arguments_json.empty() ? nullptr : arguments_json.c_str(), max_text_bytes, Token(cancel),
          out);
    });
  }
  Result Status(CancelToken* cancel = nullptr) {
    return Run([&](char** out) { return mcpgw_status_json(client_, Token(cancel), out); });
  }

  // ---- The pollable interface (see mcpgw.h): nothing blocks; callbacks run
  // inside Process(), exactly once per started request.
  using Callback = std::function<void(const Result&)>;

  // Each returns the request's id, or 0 (then `done` never runs) when the
  // handle is closing.
  mcpgw_request StartGetDynamicTools(const std::optional<std::string>& ns,
                                     const std::optional<std::string>& tool, Callback done) {
    return Start(std::move(done), [&](mcpgw_done fn, void* user) {
      return mcpgw_start_get_dynamic_tools(client_, ns ? ns->c_str() : nullptr,
                                           tool ? tool->c_str() : nullptr, fn, user);
    });
  }
  mcpgw_request StartFindTools(const std::optional<std::string>& ns, const std::string& query,
                               int limit, Callback done) {
    return Start(std::move(done), [&](mcpgw_done fn, void* user) {
      return mcpgw_start_find_tools(client_, ns ? ns->c_str() : nullptr, query.c_str(), limit, fn,
                                    user);
    });
  }
  mcpgw_request StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                     const std::string& arguments_json, Callback done) {
    return Start(std::move(done), [&](mcpgw_done fn, void* user) {
      return mcpgw_start_call_dynamic_tool(
          client_, ns.c_str(), tool.c_str(),
          arguments_json.empty() ? nullptr : arguments_json.c_str(), fn, user);
    });
  }
  mcpgw_request StartCallDynamicToolBounded(const std::string& ns, const std::string& tool,
                                            const std::string& arguments_json,
                                            long long max_text_bytes, Callback done) {
    return Start(std::move(done), [&](mcpgw_done fn, void* user) {
      return mcpgw_start_call_dynamic_tool_bounded(
          client_, ns.c_str(), tool.c_str(),
          arguments_json.empty() ? nullptr : arguments_json.c_str(), max_text_bytes, fn, user);
    });
  }
  mcpgw_request StartStatus(Callback done) {
    return Start(std::move(done),
                 [&](mcpgw_done fn, void* user) { return mcpgw_start_status(client_, fn, user); });
  }
  // True if it was pending; its callback then runs with MCPGW_CANCELLED.
  bool Cancel(mcpgw_request request) {
    return client_ != nullptr && mcpgw_cancel_request(client_, request) == 1;
  }
  // The descriptor to watch and, in *events, MCPGW_WANT_READ/WRITE.
  int fd(int* events = nullptr) { return client_ ? mcpgw_fd(client_, events) : -1; }
  // Milliseconds until Process() must run anyway; -1: no deadline.
  long timeout_ms() { return client_ ? mcpgw_timeout(client_) : -1; }
  // Does the ready I/O, runs finished callbacks; returns requests still pending.
  int Process() { return client_ ? mcpgw_process(client_) : 0; }

 private:
  static mcpgw_cancel* Token(CancelToken* cancel) { return cancel ? cancel->get() : nullptr; }

  static void Deliver(void* user_data, mcpgw_request, mcpgw_status status, const char* text,
                      size_t len) {
    std::unique_ptr<Callback> done(static_cast<Callback*>(user_data));
    Result result{status, std::string(text, len)};
    if (*done) (*done)(result);
  }
  template <typename StartFn>
  mcpgw_request Start(Callback done, StartFn&& start) {
    if (client_ == nullptr) return 0;
    auto owned = std::make_unique<Callback>(std::move(done));
    const mcpgw_request id = start(&Client::Deliver, owned.get());
    if (id != 0) owned.release();  // Deliver() takes it back
    return id;
  }

  template <typename Fn>
  Result Run(Fn&& fn) {
    if (client_ == nullptr) return Result{MCPGW_UNAVAILABLE, "out of memory (no client handle)"};
    char* out = nullptr;
    Result result;
    result.status = fn(&out);
    if (out != nullptr) result.text = out;
    mcpgw_free(out);
    return result;
  }

  mcpgw_client* client_;
};

}  // namespace mcpgw

#endif  // MCPGW_HPP
