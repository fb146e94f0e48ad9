// ToolListing: how a conversation (conversation.h) learns its server's tools
// (BEHAVIOR.md §3, §6): every page of tools/list, when a new session begins
// and again in the background when the server says they changed
// (list_changed) or, on the stateless era, when the listing is past its
// ttlMs on a call. A listing that fails keeps the tools listed before; a new
// session serves nothing before its first listing ends. On the stateless era
// each tool's x-mcp-header annotations are read here, and a tool whose
// annotations are invalid is left out (it could not be called).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/mcp/conversation.h"
#include "daemon/mcp/param_headers.h"

namespace mcpgw::mcp {

class ToolListing {
 public:
  explicit ToolListing(const Parts& parts);
  ToolListing(const ToolListing&) = delete;
  ToolListing& operator=(const ToolListing&) = delete;

  // A listing from the first page.
  void Start(TimePoint now);
  void OnPage(const rapidjson::Value& result, TimePoint now);
  // The listing under way failed: within an attempt the attempt fails, else
  // the tools listed before are kept.
  void Fail(const std::string& reason, TimePoint now);
  // notifications/tools/list_changed from the current session.
  void ToolsChanged(TimePoint now);
  // A call on a listing past its ttlMs lists again (stateless era).
  void RefreshIfStale(TimePoint now);
  // The conversation serves again: a listing asked for meanwhile runs.
  void ServeAsked(TimePoint now);
  // Nothing of a listing under way remains (a new attempt lists anew).
  void Reset() { listing_ = Listing{}; }
  // A tool's x-mcp-header annotations, null when it has none.
  const ParamHeaders* AnnotationsOf(std::string_view tool) const;

 private:
  struct Listing {
    bool active = false;
    bool again = false;  // list_changed arrived meanwhile: list once more after
    ToolList tools;
    // Hashes of the cursors seen: a repeated cursor ends the listing. Hashes
    // keep the memory bounded whatever the cursors' length.
    std::unordered_set<size_t> cursors;
    int pages = 0;
    // The modern wire: each tool's x-mcp-header annotations (tools without
    // any are absent), the tools refused for invalid ones, and how long the
    // listing stays fresh (the shortest ttlMs of its pages).
    std::map<std::string, ParamHeaders, std::less<>> param_headers;
    std::vector<std::string> refused;
    std::optional<Duration> ttl;
  };

  void RequestPage(const std::optional<std::string>& cursor, TimePoint now);
  void ReadAnnotations(const rapidjson::Value& result);

  const Parts& p_;
  Listing listing_;
  std::map<std::string, ParamHeaders, std::less<>> param_headers_;  // modern: by tool name
  std::optional<TimePoint> fresh_until_;                            // modern: the listing's ttlMs
  std::optional<TimePoint> listed_at_;  // modern: the last listing began
};

}  // namespace mcpgw::mcp
