// RawClient: one blocking request of the local protocol (proto/PROTOCOL.md)
// on its own connection, for the CLI commands libmcpgw does not carry
// (login, login_wait, logout). Connects, checks the daemon's uid, says hello,
// sends the request and reads frames until its answer or the timeout.
#pragma once

#include <string>
#include <string_view>

#include "client/api/daemon_api.h"

namespace mcpgw::cli {

// The requests `mcpgw login` and `mcpgw logout` make; tests substitute a fake.
class AuthApi {
 public:
  virtual ~AuthApi() = default;
  // `method` with `params_json` (an object); on MCPGW_OK the text is the
  // result object as compact JSON. `timeout_s` <= 0: no bound.
  virtual ApiResult Request(std::string_view method, const std::string& params_json,
                            double timeout_s) = 0;
};

class RawClient : public AuthApi {
 public:
  // socket_path empty: the default ($MCPGW_SOCKET, then $XDG_RUNTIME_DIR/...).
  explicit RawClient(std::string socket_path);
  ApiResult Request(std::string_view method, const std::string& params_json,
                    double timeout_s) override;

 private:
  std::string path_;
};

}  // namespace mcpgw::cli
