// A fake driver for Session tests: a fake clock, no I/O. Tests feed the
// session events through it and inspect the transfers, aborts, finished calls
// and state changes the session asked for.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <deque>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/mcp/session.h"

namespace mcpgw::mcp::testing {

using namespace std::chrono_literals;

inline config::RemoteServer TestServer() {
  config::RemoteServer server;
  server.url = Secret("https://mcp.example.test/mcp");
  server.url_redacted = "https://mcp.example.test/mcp";
  server.headers.push_back({"Authorization", Secret("Bearer s3cr3t-t0ken")});
  return server;
}

// The value of header `name` (case-insensitive), or "<none>".
inline std::string HeaderOf(const StartTransfer& t, std::string_view name) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  for (const auto& [k, v] : t.headers) {
    if (lower(k) == lower(name)) return v;
  }
  return "<none>";
}

inline rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

// The JSON-RPC method of a POST body ("" for responses).
inline std::string MethodOf(const StartTransfer& t) {
  if (t.method != HttpMethod::kPost) return "";
  rapidjson::Document doc = ParseJson(t.body);
  if (!doc.IsObject() || !doc.HasMember("method")) return "";
  return doc["method"].GetString();
}

inline int64_t RpcIdOf(const StartTransfer& t) {
  rapidjson::Document doc = ParseJson(t.body);
  REQUIRE(doc.HasMember("id"));
  REQUIRE(doc["id"].IsInt64());
  return doc["id"].GetInt64();
}

inline std::string Result(int64_t id, const std::string& result) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"result\":" + result + "}";
}

inline std::string InitResult(const std::string& version = "2025-11-25") {
  return "{\"protocolVersion\":\"" + version +
         "\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
         "\"serverInfo\":{\"name\":\"fake\",\"version\":\"1.0\"}}";
}

// A tools/list result with tools of these names and an optional nextCursor.
inline std::string ToolsPage(const std::vector<std::string>& names,
                             const std::string& cursor = "") {
  std::string out = "{\"tools\":[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ",";
    out += "{\"name\":\"" + names[i] + "\",\"inputSchema\":{\"type\":\"object\"}}";
  }
  out += "]";
  if (!cursor.empty()) out += ",\"nextCursor\":\"" + cursor + "\"";
  out += "}";
  return out;
}

inline std::string SseMessage(const std::string& json, const std::string& id = "") {
  std::string out;
  if (!id.empty()) out += "id: " + id + "\n";
  out += "data: " + json + "\n\n";
  return out;
}

inline std::vector<std::string> Names(const Session& s) {
  std::vector<std::string> out;
  for (const Tool& t : *s.tools()) out.emplace_back(t.name);
  return out;
}

class Harness {
 public:
  // `era_hint`: what the daemon's era cache would tell the session. Most
  // tests are about a 2025-11-25 server the daemon already knows, so the
  // session initializes at once; an empty hint makes it probe first.
  explicit Harness(SessionLimits limits = {}, std::string_view era_hint = "2025-11-25")
      : session("alpha", TestServer(), limits) {
    session.SetEraHint(era_hint);
  }

  // Moves the session's queued actions into the lists below. Like the
  // daemon's driver before OAuth, it answers AuthorizationNeeded at once with
  // OnAuthorizationFailed, unless a test holds the answer back.
  void Pump() {
    for (;;) {
      std::vector<Action> actions = session.TakeActions();
      if (actions.empty()) return;
      for (Action& a : actions) {
        if (auto* s = std::get_if<StartTransfer>(&a)) {
          REQUIRE(s->server != nullptr);
          starts.push_back(std::move(*s));
        } else if (auto* ab = std::get_if<AbortTransfer>(&a)) {
          aborts.push_back(ab->id);
          if (ab->answered) answered.push_back(ab->id);
        } else if (auto* f = std::get_if<CallFinished>(&a)) {
          finished.push_back(std::move(*f));
        } else if (auto* need = std::get_if<AuthorizationNeeded>(&a)) {
          auth_needed.push_back(*need);
          if (answer_authorization) {
            session.OnAuthorizationFailed(
                "HTTP " + std::to_string(need->http_status) + " from server", now);
          }
        } else if (auto* line = std::get_if<LogLine>(&a)) {
          logs.push_back(line->text);
        } else {
          ++state_changes;
        }
      }
    }
  }
  bool Logged(std::string_view part) const {
    return std::any_of(logs.begin(), logs.end(),
                       [&](const std::string& l) { return l.find(part) != std::string::npos; });
  }

  // Removes and returns the first started POST whose JSON-RPC method is
  // `rpc_method` ("" for a reply to a server request).
  StartTransfer NextPost(const std::string& rpc_method) {
    Pump();
    for (auto it = starts.begin(); it != starts.end(); ++it) {
      if (it->method == HttpMethod::kPost && MethodOf(*it) == rpc_method) {
        StartTransfer t = std::move(*it);
        starts.erase(it);
        return t;
      }
    }
    FAIL("no POST " << rpc_method << " was started");
    return {};
  }
  bool HasStart(HttpMethod method) {
    Pump();
    return std::any_of(starts.begin(), starts.end(),
                       [&](const StartTransfer& t) { return t.method == method; });
  }
  StartTransfer Next(HttpMethod method) {
    Pump();
    for (auto it = starts.begin(); it != starts.end(); ++it) {
      if (it->method == method) {
        StartTransfer t = std::move(*it);
        starts.erase(it);
        return t;
      }
    }
    FAIL("no transfer of that method was started");
    return {};
  }
  bool Aborted(TransferId id) {
    Pump();
    return std::find(aborts.begin(), aborts.end(), id) != aborts.end();
  }
  // Ended because its stream carried the answer (HttpTransport::Finish).
  bool Answered(TransferId id) {
    Pump();
    return std::find(answered.begin(), answered.end(), id) != answered.end();
  }

  void Head(TransferId id, int status, const std::string& type, const std::string& sid = "",
            const std::string& www_authenticate = "") {
    session.OnResponseHead(id, ResponseHead{status, type, sid, www_authenticate, ""}, now);
    Pump();
  }
  void Data(TransferId id, const std::string& bytes) {
    session.OnResponseData(id, bytes, now);
    Pump();
  }
  void Done(TransferId id, const std::string& error = "", bool request_sent = true) {
    TransferResult r;
    r.ok = error.empty();
    r.error = error;
    r.request_sent = request_sent;
    session.OnTransferDone(id, r, now);
    Pump();
  }
  void Respond(TransferId id, int status, const std::string& type, const std::string& body,
               const std::string& sid = "", const std::string& www_authenticate = "") {
    Head(id, status, type, sid, www_authenticate);
    if (!body.empty()) Data(id, body);
    Done(id);
  }
  void RespondJson(const StartTransfer& t, const std::string& result, const std::string& sid = "") {
    Respond(t.id, 200, "application/json", Result(RpcIdOf(t), result), sid);
  }
  void Accept202(TransferId id) { Respond(id, 202, "", ""); }
  void Advance(Duration d) {
    now += d;
    session.OnTimer(now);
    Pump();
  }

  // Start → initialize → initialized → one tools/list page → ready. Leaves
  // the standalone GET in `listen`.
  void BringUp(const std::vector<std::string>& tools = {"echo"}, const std::string& sid = "sid-1") {
    session.Start(now);
    StartTransfer init = NextPost("initialize");
    RespondJson(init, InitResult(), sid);
    Accept202(NextPost("notifications/initialized").id);
    RespondJson(NextPost("tools/list"), ToolsPage(tools));
    REQUIRE(session.status() == Status::kReady);
    listen = Next(HttpMethod::kGet);
    state_changes = 0;
  }

  TimePoint now = TimePoint{} + std::chrono::hours(1);
  Session session;
  std::deque<StartTransfer> starts;
  std::vector<TransferId> aborts;
  std::vector<TransferId> answered;  // of `aborts`: those whose answer was in
  std::vector<CallFinished> finished;
  int state_changes = 0;
  std::vector<AuthorizationNeeded> auth_needed;
  bool answer_authorization = true;
  std::vector<std::string> logs;
  StartTransfer listen;
};

}  // namespace mcpgw::mcp::testing
