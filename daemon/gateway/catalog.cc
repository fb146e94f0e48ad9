#include "daemon/gateway/catalog.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "proto/messages.h"

namespace mcpgw {
namespace {

using proto::ErrorKind;
using rapidjson::Value;

// How many namespaces an "unknown namespace" message lists before "and N more".
constexpr size_t kMaxNamesInMessage = 50;
// How much of a caller-supplied name a message echoes.
constexpr size_t kMaxEchoBytes = 200;
// `query`: the longest query taken (a request, not a document).
constexpr size_t kMaxQueryBytes = 1024;

base::Status Invalid(std::string message) {
  return base::Status(ErrorKind::kInvalidRequest, std::move(message));
}

// A name as a JSON string literal: quotes, control characters and invalid
// UTF-8 made harmless. Long caller input is cut short.
std::string Quote(std::string_view s) {
  std::string out;
  if (s.size() > kMaxEchoBytes) {
    base::AppendJsonString(&out, s.substr(0, kMaxEchoBytes));
    out.insert(out.size() - 1, "...");
  } else {
    base::AppendJsonString(&out, s);
  }
  return out;
}

// Untrusted free text (a server's error reason) for a message: escaped like a
// JSON string body, so no control character or invalid UTF-8 gets through.
std::string SafeText(std::string_view s) {
  std::string quoted;
  base::AppendJsonString(&quoted, s);
  return quoted.substr(1, quoted.size() - 2);
}

bool ByName(const mcp::Tool& a, const mcp::Tool& b) { return a.name < b.name; }

// Tool lists are kept in byte order; a list that arrives unsorted is sorted
// here so every answer is in name order whoever filled it.
void Normalise(ServerView& view) {
  if (view.tools && !std::is_sorted(view.tools->begin(), view.tools->end(), ByName)) {
    auto sorted = std::make_shared<mcp::ToolList>(*view.tools);
    sorted->SortByName();
    sorted->Shrink();
    view.tools = std::move(sorted);
    view.analyzed.reset();  // made in the list's old order
  }
}

// An optional string parameter: absent or null is nullopt; any other
// non-string value is an error.
base::Result<std::optional<std::string_view>> StringParam(const Value& params, const char* key) {
  auto it = params.FindMember(key);
  if (it == params.MemberEnd() || it->value.IsNull()) return std::optional<std::string_view>();
  if (!it->value.IsString()) return Invalid(std::string("\"") + key + "\" must be a string");
  return std::optional<std::string_view>(
      std::string_view(it->value.GetString(), it->value.GetStringLength()));
}

const char* TypeName(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "a value";
}

// A JSON number as text, for a message.
std::string NumberText(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

void AppendHead(std::string& out, const ServerView& server) {
  out += "{\"namespace\":";
  base::AppendJsonString(&out, server.name);
  out += ",\"status\":\"";
  out += mcp::StatusName(server.status);
  out += '"';
  if (!server.reason.empty()) {
    out += ",\"reason\":";
    base::AppendJsonString(&out, server.reason);
  }
}

// A tool in its one-tool form; `ns`, when given, goes first (a `query` hit).
void AppendTool(std::string& out, const mcp::Tool& tool,
                std::optional<std::string_view> ns = std::nullopt) {
  if (ns) {
    out += "{\"namespace\":";
    base::AppendJsonString(&out, *ns);
    out += ",\"name\":";
  } else {
    out += "{\"name\":";
  }
  base::AppendJsonString(&out, tool.name);
  out += ",\"description\":";
  base::AppendJsonString(&out, tool.description);
  out += ",\"inputSchema\":";
  // Already compact, valid JSON (the session serialised it).
  out += tool.input_schema_json.empty() ? std::string_view("{}") : tool.input_schema_json;
  out += '}';
}

// A view into the server's list, valid while the catalog keeps that list.
std::optional<mcp::Tool> FindTool(const ServerView& server, std::string_view name) {
  if (!server.tools) return std::nullopt;
  return server.tools->Find(name);
}

}  // namespace

Catalog::Catalog() = default;

void Catalog::Reset(std::vector<ServerView> servers) {
  std::stable_sort(servers.begin(), servers.end(),
                   [](const ServerView& a, const ServerView& b) { return a.name < b.name; });
  // A name seen twice keeps its first entry: a namespace is one server.
  servers.erase(
      std::unique(servers.begin(), servers.end(),
                  [](const ServerView& a, const ServerView& b) { return a.name == b.name; }),
      servers.end());
  for (auto& s : servers) Normalise(s);
  for (const auto& old : servers_) {
    const bool kept = std::binary_search(
        servers.begin(), servers.end(), old,
        [](const ServerView& a, const ServerView& b) { return a.name < b.name; });
    if (!kept) index_.Remove(old.name);
  }
  for (auto& now : servers) {
    Reindex(Find(now.name), now);
    now.analyzed.reset();
  }
  servers_ = std::move(servers);
  listing_stale_ = true;
}

namespace {
// The tools a server offers to `query`: a ready server's, else none.
const mcp::ToolList* Searchable(const ServerView* view) {
  if (view == nullptr || view->status != mcp::Status::kReady || !view->tools) return nullptr;
  return view->tools.get();
}
}  // namespace

void Catalog::Reindex(const ServerView* before, const ServerView& now) {
  const mcp::ToolList* old_tools = Searchable(before);
  const mcp::ToolList* new_tools = Searchable(&now);
  // A list listed again with the same tools keeps its entries (analysing a
  // server's tools is the costly part of indexing).
  if (old_tools == new_tools || (old_tools && new_tools && *old_tools == *new_tools)) return;
  index_.Set(now.name, new_tools ? now.tools : nullptr, now.analyzed);
  if (new_tools) ApplyLearned(now);
}

int64_t Catalog::UnixNow() const {
  if (unix_now_) return unix_now_();
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void Catalog::ApplyLearned(const ServerView& server, const mcp::Tool& tool,
                           const search::LearnedTool& learned, int64_t now) {
  std::vector<std::pair<std::string, float>> texts;
  texts.reserve(learned.queries.size());
  for (const search::LearnedQuery& q : learned.queries) {
    texts.emplace_back(q.text, static_cast<float>(search::Strength(q, now)));
  }
  index_.SetLearned(server.name, tool.name, texts);
}

void Catalog::ApplyLearned(const ServerView& server) {
  if (!learning_ || !Searchable(&server)) return;
  const search::LearnedStore::Tools* tools = learned_.FindServer(server.name);
  if (!tools) return;
  const int64_t now = UnixNow();
  std::vector<std::string> changed;
  for (const auto& [name, learned] : *tools) {
    // A tool not listed now (withheld, gone) keeps what it learned until it
    // is back: unchanged, it uses it again; changed, it forgets.
    const std::optional<mcp::Tool> tool = FindTool(server, name);
    if (!tool) continue;
    if (search::DefinitionDigest(*tool) != learned.definition) {
      changed.push_back(name);
      continue;
    }
    ApplyLearned(server, *tool, learned, now);
  }
  for (const auto& name : changed) learned_changed_ |= learned_.Forget(server.name, name) > 0;
}

void Catalog::ReapplyLearned() {
  index_.ClearLearned();
  learned_applied_at_ = UnixNow();
  for (const ServerView& server : servers_) ApplyLearned(server);
}

void Catalog::SetLearned(search::LearnedStore store) {
  learned_ = std::move(store);
  ReapplyLearned();
}

void Catalog::EnableLearned(bool on) {
  if (on == learning_) return;
  learning_ = on;
  ReapplyLearned();
}

bool Catalog::Learn(std::string_view ns, std::string_view tool, std::string_view query) {
  if (!learning_) return false;
  base::Result<mcp::Tool> resolved = Resolve(ns, tool);
  if (!resolved.ok()) return false;
  const ServerView* server = Find(ns);
  const int64_t now = UnixNow();
  if (!learned_.Learn(ns, tool, search::DefinitionDigest(*resolved), query, now)) return false;
  // The cap over all tools may have dropped another tool's oldest query:
  // rare, and that tool's weights are worked out again within the hour.
  if (const search::LearnedTool* learned = learned_.Find(ns, tool)) {
    ApplyLearned(*server, *resolved, *learned, now);
  }
  return true;
}

size_t Catalog::Forget(std::string_view ns, std::string_view tool) {
  const size_t forgotten = learned_.Forget(ns, tool);
  if (forgotten == 0) return 0;
  if (ns.empty()) {
    index_.ClearLearned();
  } else if (tool.empty()) {
    index_.ClearLearned(ns);
  } else {
    index_.SetLearned(ns, tool, {});
  }
  return forgotten;
}

bool Catalog::RefreshLearned() {
  const int64_t now = UnixNow();
  if (now - learned_applied_at_ < 3600) return false;
  const bool changed = learned_.Expire(now);
  ReapplyLearned();
  return changed;
}

void Catalog::Update(ServerView view) {
  auto it = std::lower_bound(servers_.begin(), servers_.end(), view.name,
                             [](const ServerView& s, const std::string& n) { return s.name < n; });
  if (it == servers_.end() || it->name != view.name) return;
  Normalise(view);
  Reindex(&*it, view);
  view.analyzed.reset();
  *it = std::move(view);
  listing_stale_ = true;
}

void Catalog::SetPolicy(std::shared_ptr<const Policy> policy) {
  policy_ = std::move(policy);
  listing_stale_ = true;
}

const std::string& Catalog::Listing() const {
  if (listing_stale_) Render();
  return listing_;
}

const std::vector<ServerView>& Catalog::servers() const { return servers_; }

const ServerView* Catalog::Find(std::string_view name) const {
  auto it = std::lower_bound(servers_.begin(), servers_.end(), name,
                             [](const ServerView& s, std::string_view n) { return s.name < n; });
  if (it == servers_.end() || it->name != name) return nullptr;
  return &*it;
}

bool Catalog::Visible(const ServerView& server) const {
  return !policy_ || policy_->NamespaceVisible(server.name);
}

bool Catalog::Listed(const ServerView& server, const mcp::Tool& tool) const {
  return !policy_ || policy_->CheckTool(server.name, tool).ok();
}

void Catalog::Render() const {
  std::string out;
  out.reserve(listing_.size());
  out += "{\"servers\":[";
  bool first_server = true;
  for (const auto& server : servers_) {
    if (!Visible(server)) continue;
    if (!first_server) out += ',';
    first_server = false;
    AppendHead(out, server);
    out += ",\"tools\":[";
    if (server.status == mcp::Status::kReady && server.tools) {
      bool first_tool = true;
      for (const auto& tool : *server.tools) {
        if (!Listed(server, tool)) continue;
        if (!first_tool) out += ',';
        first_tool = false;
        base::AppendJsonString(&out, tool.name);
      }
    }
    out += "]}";
  }
  out += "]}";
  listing_ = std::move(out);
  listing_stale_ = false;
}

std::string Catalog::NamespaceAnswer(const ServerView& server) const {
  std::string out;
  AppendHead(out, server);
  out += ",\"tools\":[";
  if (server.status == mcp::Status::kReady && server.tools) {
    bool first = true;
    for (const auto& tool : *server.tools) {
      if (!Listed(server, tool)) continue;
      if (!first) out += ',';
      first = false;
      AppendTool(out, tool);
    }
  }
  out += "]}";
  return out;
}

base::Status Catalog::UnknownNamespace(std::string_view ns) const {
  std::string message = "unknown namespace " + Quote(ns);
  std::vector<const ServerView*> known;
  for (const auto& s : servers_) {
    if (Visible(s)) known.push_back(&s);
  }
  if (known.empty()) {
    message += "; no namespaces are configured";
    return Invalid(std::move(message));
  }
  message += "; known namespaces: ";
  for (size_t i = 0; i < known.size() && i < kMaxNamesInMessage; ++i) {
    if (i > 0) message += ", ";
    message += Quote(known[i]->name);
  }
  if (known.size() > kMaxNamesInMessage) {
    message += " and " + std::to_string(known.size() - kMaxNamesInMessage) + " more";
  }
  message +=
      " (namespaces are matched exactly; call get_dynamic_tools with no arguments to list them)";
  return Invalid(std::move(message));
}

base::Status Catalog::NotReady(const ServerView& server) const {
  const std::string ns = Quote(server.name);
  if (server.status == mcp::Status::kLoading) {
    return base::Status(ErrorKind::kNotReady, "server " + ns + " is loading; try again shortly");
  }
  if (server.status == mcp::Status::kError && server.refused) {
    return base::Status(
        ErrorKind::kNotReady,
        "server " + ns + " is in error: " + SafeText(server.reason) +
            " (it is not retried: change its entry in the configuration to use it)");
  }
  if (server.status == mcp::Status::kError) {
    return base::Status(ErrorKind::kNotReady, "server " + ns +
                                                  " is in error: " + SafeText(server.reason) +
                                                  " (it keeps retrying in the background)");
  }
  return base::Status();
}

base::Result<mcp::Tool> Catalog::Resolve(std::string_view ns, std::string_view tool) const {
  const ServerView* server = Find(ns);
  if (server == nullptr) return UnknownNamespace(ns);
  if (policy_) {
    if (base::Status denied = policy_->CheckNamespace(ns); !denied.ok()) return denied;
    if (base::Status denied = policy_->CheckName(ns, tool); !denied.ok()) return denied;
  }
  if (base::Status not_ready = NotReady(*server); !not_ready.ok()) return not_ready;
  const std::optional<mcp::Tool> found = FindTool(*server, tool);
  if (!found && server->pins && server->pins->Withholds(tool)) {
    const bool changed =
        std::binary_search(server->pins->changed.begin(), server->pins->changed.end(), tool);
    const std::string command = SafeText(server->name) + " " + SafeText(tool);
    return base::Status(
        ErrorKind::kDenied,
        "tool " + Quote(tool) + " in namespace " + Quote(ns) +
            (changed ? " changed since it was pinned" : " is new and not approved yet") +
            ", so it is withheld until the user approves it: the user can review it with "
            "\"mcpgw diff " +
            command + "\" and approve it with \"mcpgw approve " + command + "\"");
  }
  if (!found) {
    std::string list_args = "{\"namespace\":";
    base::AppendJsonString(&list_args, ns);
    list_args += '}';
    return Invalid("unknown tool " + Quote(tool) + " in namespace " + Quote(ns) +
                   "; call get_dynamic_tools with " + list_args + " to list its tools");
  }
  if (policy_) {
    if (base::Status denied = policy_->CheckTool(ns, *found); !denied.ok()) return denied;
  }
  return *found;
}

base::Result<std::string> Catalog::GetDynamicTools(const Value& params) const {
  if (!params.IsObject()) {
    return Invalid(std::string("params must be an object, not ") + TypeName(params));
  }
  auto ns = StringParam(params, "namespace");
  if (!ns.ok()) return ns.status();
  auto tool = StringParam(params, "toolName");
  if (!tool.ok()) return tool.status();
  const auto& ns_value = *ns;
  const auto& tool_value = *tool;
  auto query = StringParam(params, "query");
  if (!query.ok()) return query.status();
  if (const auto& query_value = *query) {
    if (tool_value) {
      return Invalid(
          "\"query\" and \"toolName\" do not go together: search with \"query\" (and "
          "\"namespace\" to search one server), or look up one tool with \"namespace\" and "
          "\"toolName\"");
    }
    return Query(params, *query_value, ns_value);
  }

  if (!ns_value) {
    if (tool_value) {
      return Invalid(
          "\"toolName\" needs \"namespace\": call get_dynamic_tools with {\"namespace\":...,"
          "\"toolName\":...}, or with no arguments to list the namespaces");
    }
    return Listing();
  }
  if (!tool_value) {
    const ServerView* server = Find(*ns_value);
    if (server == nullptr) return UnknownNamespace(*ns_value);
    if (policy_) {
      if (base::Status denied = policy_->CheckNamespace(*ns_value); !denied.ok()) return denied;
    }
    return NamespaceAnswer(*server);
  }
  base::Result<mcp::Tool> resolved = Resolve(*ns_value, *tool_value);
  if (!resolved.ok()) return resolved.status();
  std::string out = "{\"namespace\":";
  base::AppendJsonString(&out, *ns_value);
  out += ",\"tool\":";
  AppendTool(out, *resolved);
  out += '}';
  return out;
}

base::Result<std::string> Catalog::Query(const Value& params, std::string_view query,
                                         std::optional<std::string_view> ns) const {
  if (query.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos) {
    return Invalid(
        "\"query\" is empty: say in a few words what the tool should do, e.g. {\"query\":"
        "\"create a github issue\"}");
  }
  if (query.size() > kMaxQueryBytes) {
    return Invalid("\"query\" is too long (" + std::to_string(query.size()) + " bytes; at most " +
                   std::to_string(kMaxQueryBytes) +
                   "): say in a few words what the tool should do");
  }
  int64_t limit = proto::kDefaultToolsLimit;
  auto limit_it = params.FindMember("limit");
  if (limit_it != params.MemberEnd() && !limit_it->value.IsNull()) {
    const Value& v = limit_it->value;
    if (!v.IsInt64() || v.GetInt64() < 1 || v.GetInt64() > proto::kMaxToolsLimit) {
      return Invalid("\"limit\" must be an integer from 1 to " +
                     std::to_string(proto::kMaxToolsLimit) + " (default " +
                     std::to_string(proto::kDefaultToolsLimit) + "), not " +
                     (v.IsNumber() ? NumberText(v) : std::string(TypeName(v))));
    }
    limit = v.GetInt64();
  }
  if (ns) {
    const ServerView* server = Find(*ns);
    if (server == nullptr) return UnknownNamespace(*ns);
    if (policy_) {
      if (base::Status denied = policy_->CheckNamespace(*ns); !denied.ok()) return denied;
    }
    if (base::Status not_ready = NotReady(*server); !not_ready.ok()) return not_ready;
  }
  // Without a policy every ready tool may be answered: no filter, so the
  // index may prune.
  search::ToolIndex::Keep keep;
  if (policy_) {
    keep = [this](std::string_view server, const mcp::Tool& tool) {
      return policy_->NamespaceVisible(server) && policy_->CheckTool(server, tool).ok();
    };
  }
  const std::vector<search::Hit> hits =
      index_.Search(query, ns.value_or(std::string_view()), static_cast<size_t>(limit), keep);
  std::string out = "{\"query\":";
  base::AppendJsonString(&out, query);
  out += ",\"tools\":[";
  for (size_t i = 0; i < hits.size(); ++i) {
    if (i > 0) out += ',';
    AppendTool(out, hits[i].tool, hits[i].server);
  }
  out += "]}";
  return out;
}

base::Result<CallTarget> Catalog::PrepareCall(const Value& params,
                                              std::string_view params_text) const {
  return PrepareCallWith(params, base::RawMember(params_text, {"arguments"}));
}

base::Result<CallTarget> Catalog::PrepareCallWith(const Value& params,
                                                  std::optional<std::string_view> raw,
                                                  bool from_checked_frame) const {
  if (!params.IsObject()) {
    return Invalid(std::string("params must be an object, not ") + TypeName(params));
  }
  auto ns = StringParam(params, "namespace");
  if (!ns.ok()) return ns.status();
  auto tool = StringParam(params, "toolName");
  if (!tool.ok()) return tool.status();
  const auto& ns_value = *ns;
  const auto& tool_value = *tool;
  if (!ns_value) {
    return Invalid(
        "\"namespace\" is required: the server's name, as listed by get_dynamic_tools with no "
        "arguments");
  }
  if (!tool_value) {
    std::string list_args = "{\"namespace\":";
    base::AppendJsonString(&list_args, *ns_value);
    list_args += '}';
    return Invalid("\"toolName\" is required: a tool name, as listed by get_dynamic_tools with " +
                   list_args);
  }

  CallTarget target;
  auto args = params.FindMember("arguments");
  if (args == params.MemberEnd() || args->value.IsNull()) {
    target.arguments_json = "{}";
  } else if (!args->value.IsObject()) {
    return Invalid(
        std::string("\"arguments\" must be a JSON object of the tool's parameters, not ") +
        TypeName(args->value));
  } else {
    // Forwarded byte for byte as the host sent them (BEHAVIOR.md §5): numbers keep
    // their digits. Checked, never written again. In a checked frame, text
    // without a backslash holds no escaped surrogate and has nothing left to
    // check (the frame is smaller than the byte bound and within its depth).
    static_assert(proto::kMaxJsonDepth <= base::JsonLimits{}.max_depth);
    const base::JsonLimits limits;
    const bool checked = from_checked_frame && raw && raw->size() <= limits.max_bytes &&
                         raw->find('\\') == std::string_view::npos;
    if (!raw) return Invalid("\"arguments\" is not valid JSON text: not found in the request");
    if (base::Status valid = checked ? base::Status() : base::ValidateBoundedJson(*raw, limits);
        !valid.ok()) {
      return Invalid("\"arguments\" is not valid JSON text: " + valid.message());
    }
    target.arguments_json.assign(*raw);
  }

  if (auto bound = params.FindMember("max_text_bytes");
      bound != params.MemberEnd() && !bound->value.IsNull()) {
    const Value& b = bound->value;
    if (b.IsString() &&
        std::string_view(b.GetString(), b.GetStringLength()) == proto::kMaxTextStdio) {
      target.bound.kind = TextBoundRequest::Kind::kStdio;
    } else if (b.IsUint64() && b.GetUint64() <= proto::kMaxTextBytesBound) {
      target.bound.kind = TextBoundRequest::Kind::kBytes;
      target.bound.bytes = b.GetUint64();
    } else {
      return Invalid(
          "\"max_text_bytes\" must be a whole number of bytes (0 for no bound) or \"stdio\", "
          "not " +
          std::string(b.IsNumber() ? "that number" : TypeName(b)));
    }
  }

  base::Result<mcp::Tool> resolved = Resolve(*ns_value, *tool_value);
  if (!resolved.ok()) return resolved.status();
  target.ns = *ns_value;
  target.tool = *tool_value;
  target.wire_tool = std::string(resolved->wire_name);
  return target;
}

}  // namespace mcpgw
