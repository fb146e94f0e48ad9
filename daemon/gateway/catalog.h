// Catalog: the gateway's view of every configured server and the semantics of
// the two tools, get_dynamic_tools and call_dynamic_tool (BEHAVIOR.md §4). The daemon
// drives it from the main thread: Reset on every (re)loaded configuration,
// Update whenever a session reports a change, SetPolicy when the settings load.
// It keeps the search index of `query` (daemon/search) in step with every
// server's ready tools as those events come.
// It owns the pre-rendered no-argument listing, the hottest answer: any of
// those three events marks it stale, and the first read after them renders
// it again, so a wave of updates (a thousand servers becoming ready at
// start) costs one rendering, not one per server. Single-threaded; no I/O.
//
// Decisions docs/BEHAVIOR.md leaves open (see docs/SETTINGS.md for the policy ones):
// - An optional parameter whose value is JSON null counts as absent
//   (`"arguments": null` means `{}`).
// - A namespace the policy denies entirely is hidden from every listing; a
//   lookup or call naming it fails as `denied`, as does a lookup or call of a
//   denied tool.
// - A tool the server's pins withhold is in no listing; a lookup or call
//   naming it fails as `denied`, saying how to review and approve it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "base/status.h"

#include "daemon/guard/pins.h"
#include "daemon/guard/policy.h"
#include "daemon/mcp/tool_list.h"
#include "daemon/mcp/types.h"
#include "daemon/search/learned.h"
#include "daemon/search/tool_index.h"
#include "proto/proto.h"

namespace mcpgw {

struct ServerView {
  std::string name;
  mcp::Status status = mcp::Status::kLoading;
  std::string reason;                          // set when kError
  std::shared_ptr<const mcp::ToolList> tools;  // sorted by name; may be null (= none)
  bool refused = false;  // kError for good: the configuration refused the entry, no retries
  // `tools` analysed for search, when the server's worker did it; the catalog
  // uses it once and keeps none.
  std::shared_ptr<const search::AnalyzedTools> analyzed;
  // Its pins (BEHAVIOR.md §13): `tools` holds none of the tools they
  // withhold, and a lookup or call naming one is denied. Null: not pinned.
  std::shared_ptr<const PinReport> pins = nullptr;
};

// The bound on a call's result text its client asked for (BEHAVIOR.md §11).
struct TextBoundRequest {
  enum class Kind {
    kDefault,  // none given: the settings' results.max_text_bytes
    kStdio,    // "stdio": the settings' results.stdio_max_text_bytes
    kBytes,    // this many bytes; 0 is no bound
  };
  Kind kind = Kind::kDefault;
  uint64_t bytes = 0;
};

struct CallTarget {
  std::string ns;              // namespace
  std::string tool;            // tool name, as hosts see it
  std::string wire_tool;       // the name the server knows it by (BEHAVIOR.md §4)
  std::string arguments_json;  // JSON object text as the host sent it ("{}" when absent)
  TextBoundRequest bound;
};

// Catalog: the gateway's view of every configured server and the semantics of
// get_dynamic_tools / call_dynamic_tool (BEHAVIOR.md §4). Single-threaded.
class Catalog {
 public:
  Catalog();
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  void Reset(std::vector<ServerView> servers);           // a (re)loaded configuration
  void Update(ServerView view);                          // one server changed; unknown name ignored
  void SetPolicy(std::shared_ptr<const Policy> policy);  // null = allow all
  // Every error below is a base::Status whose kind is the one the host sees
  // (BEHAVIOR.md §4) and whose message a model can act on.
  //
  // get_dynamic_tools with its params object: the JSON text, or an error.
  base::Result<std::string> GetDynamicTools(const rapidjson::Value& params) const;
  const std::string& Listing() const;  // the no-argument answer, rendered if stale
  // call_dynamic_tool: validates params and readiness and policy; the target or an error.
  // `params_text` is the exact JSON text `params` was parsed from: the
  // arguments are taken from it byte for byte.
  base::Result<CallTarget> PrepareCall(const rapidjson::Value& params,
                                       std::string_view params_text) const;
  // The same, given the exact text of the "arguments" member instead
  // (nullopt when params has none): the gateway finds it once per call.
  // `from_checked_frame`: the text lies in a frame proto::DecodeMessage
  // accepted (UTF-8, nested within proto::kMaxJsonDepth), so only escapes
  // are left to check; otherwise the whole text is checked.
  base::Result<CallTarget> PrepareCallWith(const rapidjson::Value& params,
                                           std::optional<std::string_view> arguments_text,
                                           bool from_checked_frame = false) const;
  const ServerView* Find(std::string_view name) const;
  const std::vector<ServerView>& servers() const;  // name order
  // Heap bytes of the search index behind `query`.
  size_t SearchIndexBytes() const { return index_.MemoryBytes(); }

  // Learned words (BEHAVIOR.md §10, search/learned.h). The catalog keeps the
  // store and gives each ready tool its learned words in the index; tests
  // pass a clock (unix seconds), else the system's.
  void SetClock(std::function<int64_t()> unix_now) { unix_now_ = std::move(unix_now); }
  // Replaces what was learned (the file read at start).
  void SetLearned(search::LearnedStore store);
  // Off: the index answers from the tools' own text only (what was learned
  // is kept, and Learn keeps nothing). On by default.
  void EnableLearned(bool on);
  // `query` led to a successful call of `tool` of `ns`: kept when learning
  // is on and that tool may be answered now (its server ready, the policy
  // allowing it, its pins not withholding it). Whether the store changed.
  bool Learn(std::string_view ns, std::string_view tool, std::string_view query);
  // Forgets one tool's, a namespace's (`tool` empty) or everything's (`ns`
  // empty) learned queries; how many.
  size_t Forget(std::string_view ns, std::string_view tool);
  // Strengths fade with time: once an hour the index's learned weights are
  // worked out again and the queries too weak to count dropped. Whether the
  // store changed.
  bool RefreshLearned();
  const search::LearnedStore& learned() const { return learned_; }
  // Whether the store changed since the last call other than through Learn
  // and Forget (a tool whose definition changed forgot what it learned).
  bool TakeLearnedChanged() { return std::exchange(learned_changed_, false); }

 private:
  void Render() const;
  bool Visible(const ServerView& server) const;
  bool Listed(const ServerView& server, const mcp::Tool& tool) const;
  // The server and tool a lookup or call names, after policy and readiness.
  // The tool is a view into the server's list, valid until the next Reset or Update.
  base::Result<mcp::Tool> Resolve(std::string_view ns, std::string_view tool) const;
  std::string NamespaceAnswer(const ServerView& server) const;
  // Ok, or why a server cannot serve a lookup or call now (loading, in error).
  base::Status NotReady(const ServerView& server) const;
  // get_dynamic_tools with `query` (BEHAVIOR.md §10).
  base::Result<std::string> Query(const rapidjson::Value& params, std::string_view query,
                                  std::optional<std::string_view> ns) const;
  // Keeps the search index to what is ready now: `before` is the server's
  // previous view (null when it is new).
  void Reindex(const ServerView* before, const ServerView& now);
  base::Status UnknownNamespace(std::string_view ns) const;
  int64_t UnixNow() const;
  // Gives the index every ready tool's learned words afresh, weighed now.
  void ReapplyLearned();
  // Gives the index the learned words of `server`'s tools; a tool whose
  // definition changed since forgets them.
  void ApplyLearned(const ServerView& server);
  void ApplyLearned(const ServerView& server, const mcp::Tool& tool,
                    const search::LearnedTool& learned, int64_t now);

  std::vector<ServerView> servers_;  // sorted by name, names unique
  std::shared_ptr<const Policy> policy_;
  // The tools of every ready server, for `query`. Searching reuses its
  // buffers, hence mutable: the catalog is single-threaded.
  mutable search::ToolIndex index_;
  search::LearnedStore learned_;
  bool learning_ = true;
  bool learned_changed_ = false;
  int64_t learned_applied_at_ = 0;  // when the index's learned weights were worked out
  std::function<int64_t()> unix_now_;
  // The rendered listing, a cache Listing() refreshes when it is stale.
  mutable std::string listing_;
  mutable bool listing_stale_ = true;
};

}  // namespace mcpgw
