// Rendering pins, diffs and approvals (see pins_view.h).
#include "client/cli/pins_view.h"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "proto/messages.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

using Value = rapidjson::Value;

constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kReset = "\033[0m";
// Beyond this many lines a side, the comparison table would be too big to
// build (it is their product): both definitions are shown whole instead.
constexpr size_t kMaxDiffLines = 4000;
// Definitions nest at most this deep in what is shown; deeper parts read "…".
constexpr int kMaxShownDepth = 64;

std::string Text(std::string_view s) { return base::StripControls(s); }

std::string_view Str(const Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

std::string StringOf(const Value& object, const char* key) {
  if (!object.IsObject()) return {};
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return std::string(Str(it->value));
}

std::vector<std::string> NamesOf(const Value& object, const char* key) {
  std::vector<std::string> names;
  if (!object.IsObject()) return names;
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsArray()) return names;
  for (const Value& v : it->value.GetArray()) {
    if (v.IsString()) names.emplace_back(Str(v));
  }
  return names;
}

std::string Scalar(const Value& v) {
  if (v.IsString()) return std::string(Str(v));
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsNull()) return "null";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsDouble()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v.GetDouble());
    return buf;
  }
  if (v.IsObject()) return "{}";
  return "[]";
}

// `prefix` then the value: a scalar on the same line (a multi-line string
// continues under it), a container on the lines after it.
void AddValue(std::vector<std::string>& out, const std::string& indent, const std::string& prefix,
              const Value& v, int depth) {
  const bool container = (v.IsObject() && v.MemberCount() > 0) || (v.IsArray() && !v.Empty());
  if (!container) {
    const std::string text = base::StripControls(Scalar(v), {.keep_newlines = true});
    size_t start = 0;
    bool first = true;
    do {
      const size_t nl = text.find('\n', start);
      const std::string part =
          text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      out.push_back(first ? indent + prefix + part : indent + "  " + part);
      first = false;
      start = nl == std::string::npos ? std::string::npos : nl + 1;
    } while (start != std::string::npos);
    return;
  }
  std::string head = indent + prefix;
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out.push_back(head);
  if (depth >= kMaxShownDepth) {
    out.push_back(indent + "  …");
    return;
  }
  if (v.IsObject()) {
    for (const auto& m : v.GetObject()) {
      AddValue(out, indent + "  ", Text(Str(m.name)) + ": ", m.value, depth + 1);
    }
  } else {
    for (const Value& item : v.GetArray()) AddValue(out, indent + "  ", "- ", item, depth + 1);
  }
}

// A definition object's lines: the name first, then the rest in the order
// the daemon keeps (byte order).
std::vector<std::string> LinesOf(const Value& definition) {
  std::vector<std::string> out;
  if (auto name = definition.FindMember("name"); name != definition.MemberEnd()) {
    AddValue(out, "", "name: ", name->value, 0);
  }
  for (const auto& m : definition.GetObject()) {
    if (Str(m.name) != "name") AddValue(out, "", Text(Str(m.name)) + ": ", m.value, 0);
  }
  return out;
}

void Heading(std::string& out, const std::string& text, bool color) {
  out += color ? kBold + text + kReset : text;
  out += "\n";
}

std::string Command(const std::string& verb, const std::string& ns, const std::string& tool) {
  return "\"mcpgw " + verb + " " + Text(ns) + (tool.empty() ? "" : " " + Text(tool)) + "\"";
}

void Withheld(std::string& out, const std::string& ns, const std::vector<std::string>& tools,
              const char* why, bool color) {
  for (const std::string& tool : tools) {
    std::string line = "  " + Text(tool) + ": " + why + "; review it with " +
                       Command("diff", ns, tool) + ", approve it with " +
                       Command("approve", ns, tool);
    out += (color ? kRed + line + kReset : line) + "\n";
  }
}

std::string Params(const Invocation& inv, bool with_tool) {
  std::string out = "{";
  if (inv.ns) {
    out += "\"namespace\":";
    proto::AppendJsonString(&out, *inv.ns);
  }
  if (with_tool && inv.tool) {
    out += ",\"toolName\":";
    proto::AppendJsonString(&out, *inv.tool);
  }
  if (inv.all) out += ",\"all\":true";
  return out + "}";
}

int Fail(CommandIo& io, const ApiResult& r) {
  io.err << "mcpgw: " << base::StripControls(ErrorText(r), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(r.status);
}

constexpr double kRequestTimeoutS = 30;

}  // namespace

std::vector<std::string> DefinitionLines(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return {"(not a JSON object)"};
  return LinesOf(doc);
}

std::vector<DiffLine> DiffDefinitions(const std::vector<std::string>& before,
                                      const std::vector<std::string>& after) {
  std::vector<DiffLine> out;
  const size_t n = before.size(), m = after.size();
  if (n > kMaxDiffLines || m > kMaxDiffLines) {
    for (const std::string& line : before) out.push_back({'-', line});
    for (const std::string& line : after) out.push_back({'+', line});
    return out;
  }
  // lcs[i][j]: the longest common subsequence of before[i..] and after[j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  const auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      at(i, j) =
          before[i] == after[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] == after[j]) {
      out.push_back({' ', before[i]});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({'-', before[i++]});  // what went away first, as diff(1) shows it
    } else {
      out.push_back({'+', after[j++]});
    }
  }
  return out;
}

std::string RenderPins(std::string_view json, bool color) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("servers") ||
      !doc["servers"].IsArray()) {
    return {};
  }
  std::string out;
  if (doc["servers"].Empty()) return "no servers configured\n";
  for (const Value& server : doc["servers"].GetArray()) {
    if (!server.IsObject()) continue;
    const std::string ns = StringOf(server, "namespace");
    const std::string mode = StringOf(server, "mode");
    const Value* pinned = server.HasMember("pinned") ? &server["pinned"] : nullptr;
    std::string line = Text(ns) + ": ";
    if (mode == "off") {
      line += "not pinned (pinning is off for it)";
    } else {
      line += (pinned && pinned->IsUint64() ? std::to_string(pinned->GetUint64()) : "?") +
              " pinned (" + Text(mode) + ")";
    }
    if (const std::string url = StringOf(server, "url"); !url.empty()) line += ", " + Text(url);
    Heading(out, line, color);
    if (const std::string file = StringOf(server, "file"); !file.empty()) {
      out += "  file: " + Text(file) + "\n";
    }
    if (const std::string error = StringOf(server, "error"); !error.empty()) {
      const std::string text = "  error: " + Text(error);
      out += (color ? kRed + text + kReset : text) + "\n";
    }
    Withheld(out, ns, NamesOf(server, "changed"), "changed since it was pinned, withheld", color);
    Withheld(out, ns, NamesOf(server, "new"), "new, withheld until approved", color);
    auto tools = server.FindMember("tools");
    if (tools != server.MemberEnd() && tools->value.IsArray()) {
      for (const Value& tool : tools->value.GetArray()) {
        const std::string state = StringOf(tool, "state");
        auto hidden = tool.IsObject() ? tool.FindMember("hidden_text") : tool.MemberEnd();
        const bool had_hidden = tool.IsObject() && hidden != tool.MemberEnd() &&
                                hidden->value.IsBool() && hidden->value.GetBool();
        std::string row = "  " + Text(StringOf(tool, "name")) + "  " + Text(state);
        if (state == "removed") row += " (not listed now; its pin is kept)";
        if (had_hidden) row += ", hidden text removed";
        const bool alert = state == "changed" || state == "new";
        out += (color && alert ? kRed + row + kReset : row) + "\n";
      }
    } else {
      const std::vector<std::string> hidden = NamesOf(server, "hidden_text");
      for (const std::string& tool : hidden) out += "  " + Text(tool) + ": hidden text removed\n";
    }
  }
  return out;
}

std::string RenderDiff(std::string_view json, bool color) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("tools") ||
      !doc["tools"].IsArray()) {
    return {};
  }
  const std::string ns = StringOf(doc, "namespace");
  if (doc["tools"].Empty()) {
    return Text(ns) + ": no tool waits for approval\n";
  }
  std::string out;
  for (const Value& tool : doc["tools"].GetArray()) {
    if (!tool.IsObject()) continue;
    const std::string name = StringOf(tool, "name");
    const bool is_new = StringOf(tool, "kind") == "new";
    if (!out.empty()) out += "\n";
    Heading(out,
            Text(ns) + " " + Text(name) +
                (is_new ? ": new, not pinned before" : ": changed since it was pinned"),
            color);
    out += is_new ? "  + the listed definition\n" : "  - pinned   + listed now\n";
    const auto lines_of = [&](const char* key) {
      auto it = tool.FindMember(key);
      if (it == tool.MemberEnd() || !it->value.IsObject()) return std::vector<std::string>{};
      return LinesOf(it->value);
    };
    for (const DiffLine& line : DiffDefinitions(lines_of("pinned"), lines_of("listed"))) {
      std::string text = std::string(1, line.mark) + " " + line.text;
      if (color && line.mark == '+') text = kGreen + text + kReset;
      if (color && line.mark == '-') text = kRed + text + kReset;
      out += text + "\n";
    }
    out += "approve it with " + Command("approve", ns, name) + "\n";
  }
  return out;
}

int RunPins(AuthApi& api, const Invocation& inv, CommandIo& io) {
  const ApiResult r = api.Request(proto::kPins, Params(inv, false), kRequestTimeoutS);
  if (r.status != MCPGW_OK) return Fail(io, r);
  if (inv.json) {
    io.out << r.text << "\n";
    return 0;
  }
  const std::string text = RenderPins(r.text, io.color);
  if (text.empty()) return Fail(io, {MCPGW_TRANSPORT, "the daemon sent pins that are not JSON"});
  io.out << text;
  return 0;
}

int RunDiff(AuthApi& api, const Invocation& inv, CommandIo& io) {
  const ApiResult r = api.Request(proto::kDiff, Params(inv, true), kRequestTimeoutS);
  if (r.status != MCPGW_OK) return Fail(io, r);
  if (inv.json) {
    io.out << r.text << "\n";
    return 0;
  }
  const std::string text = RenderDiff(r.text, io.color);
  if (text.empty()) return Fail(io, {MCPGW_TRANSPORT, "the daemon sent a diff that is not JSON"});
  io.out << text;
  return 0;
}

int RunApprove(AuthApi& api, const Invocation& inv, CommandIo& io) {
  if (inv.all == inv.tool.has_value()) {
    io.err << (inv.all ? "mcpgw: approve takes a TOOL or --all, not both\n"
                       : "mcpgw: approve needs the TOOL to approve, or --all\n");
    return kExitMisuse;
  }
  const ApiResult r = api.Request(proto::kApprove, Params(inv, true), kRequestTimeoutS);
  if (r.status != MCPGW_OK) return Fail(io, r);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(r.text.data(), r.text.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Fail(io, {MCPGW_TRANSPORT, "the daemon sent an answer that is not JSON"});
  }
  const std::vector<std::string> approved = NamesOf(doc, "approved");
  const std::string ns = Text(*inv.ns);
  if (approved.empty()) {
    io.out << ns << ": nothing waited for approval\n";
  } else {
    std::string list;
    for (const std::string& tool : approved) list += (list.empty() ? "" : ", ") + Text(tool);
    io.out << ns << ": approved " << list << "; " << (approved.size() == 1 ? "it is" : "they are")
           << " listed again\n";
  }
  if (const std::string warning = StringOf(doc, "warning"); !warning.empty()) {
    io.err << "mcpgw: warning: " << Text(warning) << "\n";
  }
  return 0;
}

}  // namespace mcpgw::cli
