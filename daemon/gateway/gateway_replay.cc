// Record and replay (BEHAVIOR.md §14): the Gateway's side of cassettes. A
// recording appends each finished call and each new listing to the
// CassetteWriter; a replay serves the servers of the Cassette from their
// recorded listings, with no host, no session and no connection, and
// answers their calls by request digest. All on the main loop.
#include <chrono>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "daemon/gateway/gateway.h"
#include "daemon/gateway/gateway_server.h"
#include "daemon/guard/cassette.h"
#include "daemon/search/tool_index.h"

namespace mcpgw {

// A server the cassette has a listing of is ready from it at once. One it
// has none of stays in error, unless misses go to the live servers; then
// it connects as usual. Returns whether a host must be made for it.
bool Gateway::ServeFromCassette(Server& server) {
  std::shared_ptr<const mcp::ToolList> tools = replay_->Listing(server.name);
  if (tools) {
    server.replay = true;
    server.view.status = mcp::Status::kReady;
    server.view.tools = tools;
    server.view.analyzed = search::Analyze(server.name, *tools);
    spdlog::info("server \"{}\": ready from the cassette ({} tools){}", server.name, tools->size(),
                 options_.replay_forward ? "; calls it has no recording of go to the server" : "");
    return options_.replay_forward;
  }
  if (options_.replay_forward) return true;
  server.view.status = mcp::Status::kError;
  server.view.reason =
      "replay: the cassette has no listing of this server (" + options_.replay_path + ")";
  server.view.refused = true;  // nothing retries: no connection is made in a replay
  spdlog::warn("server \"{}\": {}", server.name, server.view.reason);
  return false;
}

bool Gateway::Replay(const PendingCall& call, Server& server, const ResultBound& bound) {
  std::optional<RecordedCall> recorded;
  if (!call.digest.empty()) recorded = replay_->Next(call.digest);
  if (!recorded) {
    if (options_.replay_forward && server.host != 0) {
      if (server.live_status == mcp::Status::kReady) return false;
      Refuse(call, proto::ErrorKind::kNotReady,
             "no recording of this call in the cassette, and the live server it would go to is " +
                 std::string(mcp::StatusName(server.live_status)) + "; try again once it is ready");
      return true;
    }
    Refuse(call, proto::ErrorKind::kTransport,
           "no recording of this call in the cassette (request digest " + call.digest +
               "): the replay answers only the calls it recorded, with the same namespace, tool "
               "and arguments");
    return true;
  }
  mcp::CallOutcome outcome;
  outcome.kind = recorded->kind == RecordedKind::kOk        ? mcp::CallErrorKind::kNone
                 : recorded->kind == RecordedKind::kBackend ? mcp::CallErrorKind::kBackend
                                                            : mcp::CallErrorKind::kTransport;
  outcome.text = std::move(recorded->text);
  FitResult(outcome, bound, main_->WallNow());
  const double ms = std::chrono::duration<double, std::milli>(main_->Now() - call.start).count();
  CountFinished(&server, outcome, ms);
  Answer(call.ticket, outcome);
  LogCall(call,
          outcome.kind == mcp::CallErrorKind::kNone      ? "ok"
          : outcome.kind == mcp::CallErrorKind::kBackend ? "backend"
                                                         : "transport",
          &outcome);
  return true;
}

// The text recorded is the text answered: a result cut to its client's
// bound (BEHAVIOR §11) is recorded cut, and error messages are scrubbed (BEHAVIOR §8).
void Gateway::RecordCall(const PendingCall& call, const mcp::CallOutcome& outcome, double ms) {
  if (call.digest.empty()) return;
  CallLine line;
  line.time = main_->WallNow();
  line.digest = call.digest;
  line.ns = call.ns;
  line.tool = call.tool;
  switch (outcome.kind) {
    case mcp::CallErrorKind::kNone:
      line.outcome = RecordedCall{RecordedKind::kOk, outcome.text};
      break;
    case mcp::CallErrorKind::kBackend:
      line.outcome = RecordedCall{RecordedKind::kBackend, Scrubbed(outcome.text)};
      break;
    case mcp::CallErrorKind::kTransport:
      line.outcome = RecordedCall{RecordedKind::kTransport, Scrubbed(outcome.text)};
      break;
  }
  line.duration_ms = static_cast<uint64_t>(ms);
  if (base::Status written = recorder_->Append(FormatCallLine(line)); !written.ok()) {
    spdlog::error("{}", written.message());
  }
}

void Gateway::RecordListing(const Server& server) {
  if (!server.view.tools) return;
  const std::string line = FormatListingLine(main_->WallNow(), server.name, *server.view.tools);
  if (base::Status written = recorder_->Append(line); !written.ok()) {
    spdlog::error("{}", written.message());
  }
}

std::string Gateway::ReplayStatusJson() const {
  if (!replay_) return "";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("cassette");
  w.String(options_.replay_path.c_str(),
           static_cast<rapidjson::SizeType>(options_.replay_path.size()));
  w.Key("misses");
  w.String(options_.replay_forward ? "forward" : "fail");
  w.Key("servers");
  w.Uint64(replay_->Namespaces().size());
  w.Key("calls");
  w.Uint64(replay_->calls());
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcpgw
