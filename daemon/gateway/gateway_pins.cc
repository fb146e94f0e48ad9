// Gateway: the pinning requests of the local protocol (pins, diff, approve;
// proto/PROTOCOL.md) and each server's "pins" status member (BEHAVIOR.md
// §13). pins and diff are answered from the PinReport each host last
// published; approve goes to the server's worker, and is answered once the
// host's new state (the approved tools back in its listing) reached the
// catalog.
#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "base/clean_text.h"
#include "base/utf8.h"
#include "daemon/gateway/gateway.h"
#include "daemon/gateway/gateway_server.h"
#include "daemon/gateway/json_write.h"
#include "daemon/guard/glob.h"

namespace mcpgw {
namespace {

void Names(JsonWriter& w, const char* key, const std::vector<std::string>& names) {
  w.Key(key);
  w.StartArray();
  for (const std::string& name : names) WriteText(w, name);
  w.EndArray();
}

// A definition's canonical JSON as it is (it is an object), or null.
void Definition(JsonWriter& w, const std::string& json) {
  if (json.empty()) {
    w.Null();
  } else {
    w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  }
}

// One server's members of a `pins` answer, its object left open.
void PinsOf(JsonWriter& w, std::string_view name, std::string_view url, const PinReport* pins,
            PinningMode mode, const std::string& file, const std::string& error) {
  static const std::vector<std::string> kNone;
  w.StartObject();
  w.Key("namespace");
  WriteText(w, name);
  w.Key("url");
  WriteText(w, url);
  w.Key("mode");
  WriteText(w, PinningModeName(mode));
  w.Key("file");
  WriteText(w, file);
  w.Key("pinned");
  w.Uint64(pins ? pins->pinned : 0);
  Names(w, "changed", pins ? pins->changed : kNone);
  Names(w, "new", pins ? pins->unapproved : kNone);
  Names(w, "hidden_text", pins ? pins->hidden_text : kNone);
  if (!error.empty()) {
    w.Key("error");
    WriteText(w, error);
  }
}

}  // namespace

void Gateway::SetPinning(const PinningSettings& pinning) {
  const bool changed = !(pinning == pinning_);
  pinning_ = pinning;
  if (!changed) return;
  for (const auto& server : servers_) {
    if (server->host == 0) continue;
    OnWorker(server->worker, [id = server->host, mode = PinningFor(server->name)](
                                 HostTable& table) { table.SetPinning(id, mode); });
  }
}

PinningMode Gateway::PinningFor(std::string_view name) const {
  if (options_.pins_dir.empty()) return PinningMode::kOff;
  for (const std::string& pattern : pinning_.exempt) {
    if (GlobMatch(pattern, name)) return PinningMode::kOff;
  }
  return pinning_.mode;
}

std::string Gateway::PinsStatusJson(const Server& server) const {
  const PinReport* pins = server.view.pins.get();
  if (pins == nullptr || (pins->withheld() == 0 && pins->error.empty())) return {};
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("changed");
  w.Uint64(pins->changed.size());
  w.Key("new");
  w.Uint64(pins->unapproved.size());
  if (!pins->error.empty()) {
    w.Key("error");
    WriteText(w, Scrubbed(pins->error));
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void Gateway::HandlePinsRequest(Ticket ticket, std::string_view method,
                                const rapidjson::Value& params) {
  const std::optional<std::string> ns = StringParam(params, "namespace");
  if (!params.IsObject() || (method != proto::kPins && !ns)) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               std::string(method) + " needs a string \"namespace\": the server's name");
    return;
  }
  const Server* only = nullptr;
  if (ns) {
    auto it = by_name_.find(*ns);
    if (it == by_name_.end()) {
      ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
                 "unknown namespace \"" + base::CleanServerText(*ns, 200) +
                     "\" (\"mcpgw status\" lists the configured servers)");
      return;
    }
    only = it->second;
  }
  if (method == proto::kPins) {
    ReplyPins(ticket, only);
  } else if (method == proto::kDiff) {
    ReplyDiff(ticket, *only, StringParam(params, "toolName"));
  } else {
    auto all_it = params.FindMember("all");
    const bool all =
        all_it != params.MemberEnd() && all_it->value.IsBool() && all_it->value.GetBool();
    Approve(ticket, *only, StringParam(params, "toolName"), all);
  }
}

// `pins` for every server, or for one; for one running server the answer
// also lists each of its tools, which its worker reads from the pin file.
void Gateway::ReplyPins(Ticket ticket, const Server* only) {
  if (only == nullptr || only->host == 0) {
    WritePins(ticket, only, nullptr);
    return;
  }
  OnWorker(only->worker, [this, id = only->host, name = only->name, ticket](HostTable& table) {
    table.DescribePins(id, [this, name, ticket](std::vector<PinnedTool> tools) {
      auto it = by_name_.find(name);
      if (it == by_name_.end()) {
        ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
                   "server \"" + name + "\" was removed from the configuration meanwhile");
        return;
      }
      WritePins(ticket, it->second, &tools);
    });
  });
}

void Gateway::WritePins(Ticket ticket, const Server* only, const std::vector<PinnedTool>* tools) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("servers");
  w.StartArray();
  for (const auto& server : servers_) {
    if (only && server.get() != only) continue;
    const PinReport* pins = server->view.pins.get();
    const PinningMode mode = pins ? pins->mode : PinningFor(server->name);
    std::string file;
    if (pins) {
      file = pins->file;
    } else if (mode != PinningMode::kOff && (server->remote || server->local)) {
      file = PinFiles(options_.pins_dir).PathFor(server->PinKey());
    }
    PinsOf(w, server->name, server->PinKey(), pins, mode, file,
           pins && !pins->error.empty() ? Scrubbed(pins->error) : "");
    if (tools) {
      w.Key("tools");
      w.StartArray();
      for (const PinnedTool& tool : *tools) {
        w.StartObject();
        w.Key("name");
        WriteText(w, tool.name);
        w.Key("state");
        WriteText(w, PinnedStateName(tool.state));
        w.Key("hidden_text");
        w.Bool(tool.hidden_text_removed);
        w.EndObject();
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  replies_->ReplyJson(ticket, std::string(buffer.GetString(), buffer.GetSize()));
}

void Gateway::ReplyDiff(Ticket ticket, const Server& server,
                        const std::optional<std::string>& tool) {
  const PinReport* pins = server.view.pins.get();
  if (tool && !(pins && pins->Withholds(*tool))) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               "tool \"" + base::CleanServerText(*tool, 200) + "\" of \"" + server.name +
                   "\" is not waiting for approval (\"mcpgw pins " + server.name +
                   "\" lists the ones that are)");
    return;
  }
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("namespace");
  WriteText(w, server.name);
  w.Key("tools");
  w.StartArray();
  if (pins) {
    for (const auto& [name, pending] : pins->pending) {
      if (tool && name != *tool) continue;
      w.StartObject();
      w.Key("name");
      WriteText(w, name);
      w.Key("kind");
      WriteText(w, pending.pinned_json.empty() ? "new" : "changed");
      w.Key("pinned");
      Definition(w, pending.pinned_json);
      w.Key("listed");
      Definition(w, pending.listed_json);
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  replies_->ReplyJson(ticket, std::string(buffer.GetString(), buffer.GetSize()));
}

// Answered once the host's new state (the approved tools back in its
// listing) reached the catalog: the host posts its state before the reply.
void Gateway::Approve(Ticket ticket, const Server& server, const std::optional<std::string>& tool,
                      bool all) {
  if (all == tool.has_value()) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               "approve needs either a string \"toolName\" or \"all\": true");
    return;
  }
  if (server.host == 0) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               "server \"" + server.name + "\" is not running (" +
                   base::CleanServerText(server.view.reason, 500) +
                   "): nothing waits for approval");
    return;
  }
  std::vector<std::string> tools;
  if (tool) tools.push_back(*tool);
  OnWorker(server.worker, [this, id = server.host, name = server.name, ticket,
                           tools = std::move(tools), all](HostTable& table) mutable {
    table.Approve(id, std::move(tools), all,
                  [this, name, ticket](base::Result<ServerPins::Approval> approval) {
                    ReplyApproval(ticket, name, std::move(approval));
                  });
  });
}

void Gateway::ReplyApproval(Ticket ticket, const std::string& name,
                            base::Result<ServerPins::Approval> result) {
  if (!result.ok()) return ReplyError(ticket, result.status());
  ServerPins::Approval& approval = *result;
  std::string list;
  for (const std::string& t : approval.approved) list += (list.empty() ? "" : ", ") + t;
  if (!approval.approved.empty()) {
    spdlog::info("server \"{}\": approved by the user: {}", name,
                 base::CleanServerText(list, 2000));
  }
  rapidjson::StringBuffer out;
  JsonWriter w(out);
  w.StartObject();
  w.Key("namespace");
  WriteText(w, name);
  Names(w, "approved", approval.approved);
  if (!approval.warning.empty()) {
    w.Key("warning");
    WriteText(w, Scrubbed(std::move(approval.warning)));
  }
  w.EndObject();
  replies_->ReplyJson(ticket, std::string(out.GetString(), out.GetSize()));
}

}  // namespace mcpgw
