// Rendering learned search words and forgetting them (see learned_view.h).
#include "client/cli/learned_view.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <ostream>
#include <vector>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "proto/messages.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

using Value = rapidjson::Value;

constexpr const char* kBold = "\033[1m";
constexpr const char* kReset = "\033[0m";
constexpr double kRequestTimeoutS = 30;

std::string Text(std::string_view s) { return base::StripControls(s); }

std::string StringOf(const Value& object, const char* key) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return Text(std::string_view(it->value.GetString(), it->value.GetStringLength()));
}

struct Query {
  std::string text;
  uint64_t uses = 0;
  int64_t last_unix = 0;
  double strength = 0;
};

std::vector<Query> QueriesOf(const Value& tool) {
  std::vector<Query> out;
  auto it = tool.FindMember("queries");
  if (it == tool.MemberEnd() || !it->value.IsArray()) return out;
  for (const Value& q : it->value.GetArray()) {
    if (!q.IsObject()) continue;
    Query query;
    query.text = StringOf(q, "text");
    if (auto m = q.FindMember("uses"); m != q.MemberEnd() && m->value.IsUint64()) {
      query.uses = m->value.GetUint64();
    }
    if (auto m = q.FindMember("last_unix"); m != q.MemberEnd() && m->value.IsInt64()) {
      query.last_unix = m->value.GetInt64();
    }
    if (auto m = q.FindMember("strength"); m != q.MemberEnd() && m->value.IsNumber()) {
      query.strength = m->value.GetDouble();
    }
    out.push_back(std::move(query));
  }
  // The daemon sends them most recent first; a person gets that order whatever came.
  std::stable_sort(out.begin(), out.end(),
                   [](const Query& a, const Query& b) { return a.last_unix > b.last_unix; });
  return out;
}

// The local date of a Unix time, "-" when there is none.
std::string Date(int64_t unix) {
  if (unix <= 0) return "-";
  const time_t secs = static_cast<time_t>(unix);
  struct tm tm {};
  if (localtime_r(&secs, &tm) == nullptr) return "-";
  char buf[32];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm) == 0) return "-";
  return buf;
}

// 1.549, 0.5, 2: at most three decimals, no trailing zeros.
std::string Strength(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  std::string out = buf;
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

std::string Plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "NS/TOOL", "NS" or "" for what was asked.
std::string ScopeName(const LearnedScope& scope) {
  if (!scope.ns) return {};
  return Text(*scope.ns) + (scope.tool ? "/" + Text(*scope.tool) : "");
}

std::string Params(const Invocation& inv) {
  std::string out = "{";
  if (inv.ns) {
    out += "\"namespace\":";
    proto::AppendJsonString(&out, *inv.ns);
    if (inv.tool) {
      out += ",\"toolName\":";
      proto::AppendJsonString(&out, *inv.tool);
    }
  }
  return out + "}";
}

int Fail(CommandIo& io, const ApiResult& r) {
  io.err << "mcpgw: " << base::StripControls(ErrorText(r), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(r.status);
}

}  // namespace

std::optional<std::string> RenderLearned(std::string_view json, const LearnedScope& scope,
                                         bool color) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("tools") ||
      !doc["tools"].IsArray()) {
    return std::nullopt;
  }
  std::string out;
  for (const Value& tool : doc["tools"].GetArray()) {
    if (!tool.IsObject()) continue;
    const std::vector<Query> queries = QueriesOf(tool);
    if (queries.empty()) continue;
    const std::string name = StringOf(tool, "namespace") + "/" + StringOf(tool, "toolName");
    if (!out.empty()) out += "\n";
    const std::string header =
        name + " — " + Plural(queries.size(), "query", "queries") + " learned";
    out += (color ? kBold + header + kReset : header) + "\n";
    for (const Query& q : queries) {
      out += "  \"" + q.text + "\"  (used " + std::to_string(q.uses) + "×, last " +
             Date(q.last_unix) + ", strength " + Strength(q.strength) + ")\n";
    }
  }
  if (out.empty()) {
    out = scope.ns ? ScopeName(scope) + " has learned nothing yet\n" : "nothing learned yet\n";
  }
  const auto learning = doc.FindMember("learning");
  if (learning != doc.MemberEnd() && learning->value.IsBool() && !learning->value.GetBool()) {
    out += "search.learn is off in settings.json: nothing more is learned\n";
  }
  return out;
}

std::optional<std::string> ForgetMessage(std::string_view json, const LearnedScope& scope) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("forgotten") ||
      !doc["forgotten"].IsUint64()) {
    return std::nullopt;
  }
  const uint64_t n = doc["forgotten"].GetUint64();
  const std::string name = ScopeName(scope);
  if (n == 0) return "nothing was learned" + (name.empty() ? "" : " for " + name) + "\n";
  return "forgot " + Plural(n, "learned query", "learned queries") +
         (name.empty() ? "" : " of " + name) + "\n";
}

int RunLearned(AuthApi& api, const Invocation& inv, CommandIo& io) {
  const ApiResult r = api.Request(proto::kLearned, Params(inv), kRequestTimeoutS);
  if (r.status != MCPGW_OK) return Fail(io, r);
  // A person at a terminal gets the list; a pipe (or --json) the daemon's exact text.
  if (!io.stdout_is_tty || inv.json) {
    io.out << r.text << "\n";
    return 0;
  }
  const std::optional<std::string> text = RenderLearned(r.text, {inv.ns, inv.tool}, io.color);
  if (!text) {
    return Fail(io, {MCPGW_TRANSPORT, "the daemon sent learned words that are not JSON"});
  }
  io.out << *text;
  return 0;
}

int RunForget(AuthApi& api, const Invocation& inv, CommandIo& io) {
  const ApiResult r = api.Request(proto::kForget, Params(inv), kRequestTimeoutS);
  if (r.status != MCPGW_OK) return Fail(io, r);
  const std::optional<std::string> text = ForgetMessage(r.text, {inv.ns, inv.tool});
  if (!text) return Fail(io, {MCPGW_TRANSPORT, "the daemon sent an answer that is not JSON"});
  io.out << *text;
  return 0;
}

}  // namespace mcpgw::cli
