// libmcpgw tests' fake daemon: the real IpcServer on a loop thread with a
// scripted handler (see daemon/ipc/ipc_test_fixture.h). Namespace "slow"
// never answers; "err_<kind>" answers that error kind; everything else
// echoes "<method> <params>"; status answers a fixed object.
#pragma once

#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "daemon/ipc/ipc_test_fixture.h"

namespace mcpgw::testing {

inline void Script(FakeHandler& handler) {
  handler.on_request = [&handler](const FakeHandler::Request& r) {
    IpcServer* s = handler.server;
    if (r.method == "status") {
      s->ReplyJson(r.ticket, R"({"daemon":{"version":"0.1.0"},"servers":[]})");
      return;
    }
    rapidjson::Document params;
    params.Parse(r.params.c_str());
    std::string ns = params.HasMember("namespace") && params["namespace"].IsString()
                         ? params["namespace"].GetString()
                         : "";
    if (ns == "slow") return;
    if (ns.rfind("err_", 0) == 0) {
      auto kind = proto::ParseErrorKind(ns.substr(4));
      s->ReplyError(r.ticket, *kind, "scripted " + ns.substr(4));
      return;
    }
    s->ReplyText(r.ticket, r.method + " " + r.params);
  };
}

struct Daemon {
  TempDir dir;
  std::string path = dir.path() + "/mcpgw.sock";
  FakeHandler handler;
  std::unique_ptr<ServerThread> server;

  Daemon() { Start(); }
  void Start() {
    handler.on_request = nullptr;
    Script(handler);
    server = std::make_unique<ServerThread>(&handler, path);
    REQUIRE(server->listen_error() == "");
  }
  void Stop() { server.reset(); }
};

}  // namespace mcpgw::testing
