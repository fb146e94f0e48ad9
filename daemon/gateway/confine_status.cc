#include "daemon/gateway/confine_status.h"

#include <unistd.h>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/utf8.h"
#include "daemon/gateway/json_write.h"
#include "daemon/runtime/confine.h"

namespace mcpgw {
namespace {

void Paths(JsonWriter& w, const std::vector<config::ConfinePath>& paths) {
  w.StartArray();
  for (const config::ConfinePath& p : paths) WriteText(w, p.shown);
  w.EndArray();
}

// The gaps about `prefix` ("confine", "limits"), then `more`.
void NotEnforced(JsonWriter& w, const config::LocalServer& server, std::string_view prefix,
                 const std::vector<std::string>& more) {
  w.Key("not_enforced");
  w.StartArray();
  for (const std::string& gap : ConfineGaps(server, KernelConfineSupport(), getuid())) {
    if (gap.rfind(prefix, 0) == 0) WriteText(w, gap);
  }
  for (const std::string& caveat : more) WriteText(w, caveat);
  w.EndArray();
}

std::string Text(const rapidjson::StringBuffer& buffer) {
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string ConfinementSupportJson() {
  const ConfineSupport& support = KernelConfineSupport();
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("landlock_abi");
  w.Int(support.landlock_abi);
  w.Key("seccomp");
  w.Bool(support.seccomp);
  w.Key("summary");
  WriteText(w, DescribeConfineSupport(support));
  w.EndObject();
  return Text(buffer);
}

std::string ConfineStatusJson(const config::LocalServer& server, const std::string& temp_dir) {
  if (!server.confine) return {};
  const config::Confine& c = *server.confine;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("source");
  w.String(c.from_settings ? "settings" : "entry");
  w.Key("landlock_abi");
  w.Int(KernelConfineSupport().landlock_abi);
  w.Key("read");
  Paths(w, c.read);
  w.Key("write");
  Paths(w, c.write);
  w.Key("network");
  w.String(c.network == config::ConfineNetwork::kNone  ? "none"
           : c.network == config::ConfineNetwork::kAll ? "all"
                                                       : "ports");
  w.Key("connect");
  w.StartArray();
  for (const config::ConfineEndpoint& e : c.connect) WriteText(w, e.text);
  w.EndArray();
  w.Key("ports");
  w.StartArray();
  for (int port : c.Ports()) w.Int(port);
  w.EndArray();
  NotEnforced(w, server, "confine", ConfineCaveats(server));
  w.Key("temp_dir");
  if (temp_dir.empty()) {
    w.Null();
  } else {
    WriteText(w, temp_dir);
  }
  w.EndObject();
  return Text(buffer);
}

std::string LimitsStatusJson(const config::LocalServer& server) {
  if (!server.limits.any()) return {};
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  for (auto [key, value] : {std::pair{"memory_mb", server.limits.memory_mb},
                            std::pair{"open_files", server.limits.open_files},
                            std::pair{"processes", server.limits.processes}}) {
    w.Key(key);
    if (value == 0) {
      w.Null();
    } else {
      w.Uint64(value);
    }
  }
  NotEnforced(w, server, "limits", {});
  w.EndObject();
  return Text(buffer);
}

}  // namespace mcpgw
