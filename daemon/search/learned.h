// Learned words (BEHAVIOR.md §10): the requests that led to each tool. When a
// host asks get_dynamic_tools with a `query` and then calls a tool
// successfully, the query's text is kept beside that tool, and the search
// index gives its words to the tool as a field of its own (ToolIndex::
// SetLearned), weighted below the tool's own text.
//
// What a tool keeps is bounded: its most recent distinct queries
// (kMaxQueriesPerTool; two queries are the same when their terms are), each
// with how often it led there and when last. A query's strength decays with
// its age (half of it every kHalfLifeDays) and grows slowly with its uses
// (up to kMaxStrength), so one odd request weighs little and fades. A tool
// whose definition changes forgets what it learned: each tool's entry holds
// the digest of the definition it learned under.
//
// This file holds the pure parts: the store and its file's text. The daemon
// owns one (the Catalog), keeps it in the state directory and never sends
// the queries anywhere but to `mcpgw tools --learned` over its own socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "daemon/mcp/tool_list.h"

namespace mcpgw::search {

inline constexpr size_t kMaxQueriesPerTool = 16;
// Over every tool: past it, the least recently used queries go first.
inline constexpr size_t kMaxLearnedQueries = 2000;
// A query's text is kept up to this many bytes (cut at a character's end).
inline constexpr size_t kMaxLearnedQueryBytes = 300;
inline constexpr double kHalfLifeDays = 30;
inline constexpr double kMaxStrength = 2;
// A query weaker than this (about 4 months unused) is dropped.
inline constexpr double kMinStrength = 0.05;
// The learned file is refused past this size.
inline constexpr size_t kMaxLearnedFileBytes = 16u << 20;

struct LearnedQuery {
  std::string text;
  uint64_t key = 0;  // a digest of its terms (QueryKey): what makes two the same
  uint32_t uses = 1;
  int64_t last_unix = 0;  // when it last led to the tool
  bool operator==(const LearnedQuery&) const = default;
};

struct LearnedTool {
  std::string definition;             // DefinitionDigest of the tool it learned under
  std::vector<LearnedQuery> queries;  // most recent first
  bool operator==(const LearnedTool&) const = default;
};

// A digest of what a model reads of a tool (its name, title, description,
// argument schema, annotations): 16 hex digits, stable across runs.
std::string DefinitionDigest(const mcp::Tool& tool);

// A digest of a query's terms (the Analyzer's, sorted and distinct); 0 when
// it has none.
uint64_t QueryKey(std::string_view text);

// How much a query counts `now_unix`: 0.5^(age / half-life) × (1 + ln(uses)
// / 2), at most kMaxStrength; its age in whole days.
double Strength(const LearnedQuery& query, int64_t now_unix);

class LearnedStore {
 public:
  using Tools = std::map<std::string, LearnedTool, std::less<>>;  // by tool name
  using Servers = std::map<std::string, Tools, std::less<>>;      // by namespace

  // Keeps `text` as a request that led to `tool` of `ns`, whose definition
  // has `definition`. A query with no search terms (only words such as
  // "the", "please") teaches nothing. A tool whose definition changed first
  // forgets what it had. Whether anything changed.
  bool Learn(std::string_view ns, std::string_view tool, std::string_view definition,
             std::string_view text, int64_t now_unix);
  // Forgets one tool's queries (`tool` non-empty), a namespace's, or all
  // (`ns` empty). How many queries were forgotten.
  size_t Forget(std::string_view ns = {}, std::string_view tool = {});
  // Drops the queries weaker than kMinStrength; whether any went.
  bool Expire(int64_t now_unix);

  const LearnedTool* Find(std::string_view ns, std::string_view tool) const;
  const Tools* FindServer(std::string_view ns) const;
  const Servers& servers() const { return servers_; }
  size_t queries() const { return queries_; }
  bool empty() const { return servers_.empty(); }

  // The file's text (JSON, version 1), and back. Parse refuses what is not
  // that shape, naming where; it applies the caps as it reads.
  std::string Serialize() const;
  static base::Result<LearnedStore> Parse(std::string_view text);

 private:
  // Drops least recently used queries over every tool until at most
  // kMaxLearnedQueries are kept.
  void Cap();

  Servers servers_;
  size_t queries_ = 0;
};

}  // namespace mcpgw::search
