// mcpgw.hpp: a header-only C++ wrapper over libmcpgw's C ABI (mcpgw.h).
// mcpgw::Client owns one handle (move-only, closed on destruction);
// mcpgw::CancelToken owns one cancel token. Calls return a Result holding the
// status and the text (the answer, or an error message a model can read).
#ifndef MCPGW_HPP
#define MCPGW_HPP

#include <chrono>
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
  // `arguments_json`: a JSON object's text; empty means {}.
  Result CallDynamicTool(const std::string& ns, const std::string& tool,
                         const std::string& arguments_json = "", CancelToken* cancel = nullptr) {
    return Run([&](char** out) {
      return mcpgw_call_dynamic_tool(client_, ns.c_str(), tool.c_str(),
                                     arguments_json.empty() ? nullptr : arguments_json.c_str(),
                                     Token(cancel), out);
    });
  }
  Result Status(CancelToken* cancel = nullptr) {
    return Run([&](char** out) { return mcpgw_status_json(client_, Token(cancel), out); });
  }

 private:
  static mcpgw_cancel* Token(CancelToken* cancel) { return cancel ? cancel->get() : nullptr; }

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
