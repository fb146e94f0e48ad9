#include "daemon/search/learned.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include <rapidjson/document.h>

#include "base/json_text.h"
#include "base/utf8.h"
#include "daemon/search/analyzer.h"

namespace mcpgw::search {
namespace {

constexpr int kVersion = 1;

void Mix(uint64_t* h, std::string_view s) {
  for (unsigned char c : s) {
    *h ^= c;
    *h *= 0x100000001b3ull;
  }
  // A separator no text holds, so ("ab", "c") and ("a", "bc") differ.
  *h ^= 0xff;
  *h *= 0x100000001b3ull;
}

base::Status Bad(std::string_view where, std::string_view what) {
  return base::Status(base::ErrorKind::kInvalidRequest,
                      "the learned file: " + std::string(where) + ": " + std::string(what));
}

}  // namespace

std::string DefinitionDigest(const mcp::Tool& tool) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a, 64 bits
  Mix(&h, tool.name);
  Mix(&h, tool.title);
  Mix(&h, tool.described ? tool.description : std::string_view());
  Mix(&h, tool.input_schema_json);
  Mix(&h, tool.annotations_json);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

uint64_t QueryKey(std::string_view text) {
  thread_local Analyzer analyzer;
  std::vector<std::string> terms;
  analyzer.Terms(text, &terms);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  if (terms.empty()) return 0;
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& t : terms) Mix(&h, t);
  return h == 0 ? 1 : h;
}

double Strength(const LearnedQuery& query, int64_t now_unix) {
  // In whole days: a query's weight is the same all day, so an index made
  // again (a restart, a reload) ranks exactly as the one it replaces.
  const double age_days =
      static_cast<double>(std::max<int64_t>(0, now_unix - query.last_unix) / 86400);
  const double uses = 1 + std::log(std::max<double>(1, query.uses)) / 2;
  return std::pow(0.5, age_days / kHalfLifeDays) * std::min(uses, kMaxStrength);
}

bool LearnedStore::Learn(std::string_view ns, std::string_view tool, std::string_view definition,
                         std::string_view text, int64_t now_unix) {
  // Names come from the catalog and queries from checked frames, all UTF-8;
  // anything else is not kept (the file is JSON).
  if (ns.empty() || tool.empty() || !base::IsValidUtf8(ns) || !base::IsValidUtf8(tool) ||
      !base::IsValidUtf8(text)) {
    return false;
  }
  std::string cut(text.substr(0, base::Utf8PrefixWithin(text, kMaxLearnedQueryBytes)));
  const uint64_t key = QueryKey(cut);
  if (key == 0) return false;
  Tools& tools = servers_[std::string(ns)];
  auto [it, added] = tools.try_emplace(std::string(tool));
  LearnedTool& learned = it->second;
  if (!added && learned.definition != definition) {
    queries_ -= learned.queries.size();
    learned.queries.clear();
  }
  learned.definition.assign(definition);
  auto& queries = learned.queries;
  auto same = std::find_if(queries.begin(), queries.end(),
                           [&](const LearnedQuery& q) { return q.key == key; });
  LearnedQuery entry;
  if (same != queries.end()) {
    entry = std::move(*same);
    queries.erase(same);
    entry.uses = entry.uses < UINT32_MAX ? entry.uses + 1 : entry.uses;
    entry.text = std::move(cut);  // the latest wording
    --queries_;
  } else {
    entry.text = std::move(cut);
    entry.key = key;
  }
  entry.last_unix = now_unix;
  queries.insert(queries.begin(), std::move(entry));
  ++queries_;
  if (queries.size() > kMaxQueriesPerTool) {
    queries_ -= queries.size() - kMaxQueriesPerTool;
    queries.resize(kMaxQueriesPerTool);
  }
  Cap();
  return true;
}

size_t LearnedStore::Forget(std::string_view ns, std::string_view tool) {
  size_t forgotten = 0;
  if (ns.empty()) {
    forgotten = queries_;
    servers_.clear();
  } else if (auto s = servers_.find(ns); s != servers_.end()) {
    if (tool.empty()) {
      for (const auto& [name, learned] : s->second) forgotten += learned.queries.size();
      servers_.erase(s);
    } else if (auto t = s->second.find(tool); t != s->second.end()) {
      forgotten = t->second.queries.size();
      s->second.erase(t);
      if (s->second.empty()) servers_.erase(s);
    }
  }
  queries_ -= forgotten;
  return forgotten;
}

bool LearnedStore::Expire(int64_t now_unix) {
  bool changed = false;
  for (auto s = servers_.begin(); s != servers_.end();) {
    for (auto t = s->second.begin(); t != s->second.end();) {
      auto& queries = t->second.queries;
      const size_t before = queries.size();
      std::erase_if(queries,
                    [&](const LearnedQuery& q) { return Strength(q, now_unix) < kMinStrength; });
      if (queries.size() != before) {
        changed = true;
        queries_ -= before - queries.size();
      }
      t = queries.empty() ? s->second.erase(t) : std::next(t);
    }
    s = s->second.empty() ? servers_.erase(s) : std::next(s);
  }
  return changed;
}

void LearnedStore::Cap() {
  if (queries_ <= kMaxLearnedQueries) return;
  // Each tool's queries are most recent first: its last is its oldest.
  // Rarely reached (2,000 queries), so a scan per query dropped will do.
  while (queries_ > kMaxLearnedQueries) {
    LearnedTool* oldest = nullptr;
    for (auto& [ns, tools] : servers_) {
      for (auto& [name, learned] : tools) {
        if (learned.queries.empty()) continue;
        if (!oldest || learned.queries.back().last_unix < oldest->queries.back().last_unix) {
          oldest = &learned;
        }
      }
    }
    if (!oldest) break;
    oldest->queries.pop_back();
    --queries_;
  }
  for (auto s = servers_.begin(); s != servers_.end();) {
    std::erase_if(s->second, [](const auto& t) { return t.second.queries.empty(); });
    s = s->second.empty() ? servers_.erase(s) : std::next(s);
  }
}

const LearnedTool* LearnedStore::Find(std::string_view ns, std::string_view tool) const {
  const Tools* tools = FindServer(ns);
  if (!tools) return nullptr;
  auto t = tools->find(tool);
  return t == tools->end() ? nullptr : &t->second;
}

const LearnedStore::Tools* LearnedStore::FindServer(std::string_view ns) const {
  auto s = servers_.find(ns);
  return s == servers_.end() ? nullptr : &s->second;
}

std::string LearnedStore::Serialize() const {
  std::string out = "{\"version\":" + std::to_string(kVersion) + ",\"servers\":{";
  bool first_server = true;
  for (const auto& [ns, tools] : servers_) {
    if (!first_server) out += ',';
    first_server = false;
    out += "\n ";
    base::AppendJsonString(&out, ns);
    out += ":{";
    bool first_tool = true;
    for (const auto& [name, learned] : tools) {
      if (!first_tool) out += ',';
      first_tool = false;
      out += "\n  ";
      base::AppendJsonString(&out, name);
      out += ":{\"definition\":";
      base::AppendJsonString(&out, learned.definition);
      out += ",\"queries\":[";
      bool first_query = true;
      for (const LearnedQuery& q : learned.queries) {
        if (!first_query) out += ',';
        first_query = false;
        out += "\n   {\"text\":";
        base::AppendJsonString(&out, q.text);
        out += ",\"uses\":" + std::to_string(q.uses) + ",\"last\":" + std::to_string(q.last_unix) +
               "}";
      }
      out += "]}";
    }
    out += "}";
  }
  out += "}}\n";
  return out;
}

base::Result<LearnedStore> LearnedStore::Parse(std::string_view text) {
  if (text.size() > kMaxLearnedFileBytes) return Bad("the file", "larger than 16 MiB");
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return Bad("offset " + std::to_string(doc.GetErrorOffset()), "not JSON");
  }
  if (!doc.IsObject()) return Bad("the file", "not a JSON object");
  auto version = doc.FindMember("version");
  if (version == doc.MemberEnd() || !version->value.IsInt() ||
      version->value.GetInt() != kVersion) {
    return Bad("version", "expected 1");
  }
  auto servers = doc.FindMember("servers");
  if (servers == doc.MemberEnd() || !servers->value.IsObject()) {
    return Bad("servers", "expected an object");
  }
  LearnedStore store;
  for (const auto& s : servers->value.GetObject()) {
    const std::string ns(s.name.GetString(), s.name.GetStringLength());
    if (!s.value.IsObject()) return Bad("servers." + ns, "expected an object");
    for (const auto& t : s.value.GetObject()) {
      const std::string tool(t.name.GetString(), t.name.GetStringLength());
      const std::string at = "servers." + ns + "." + tool;
      if (!t.value.IsObject()) return Bad(at, "expected an object");
      auto definition = t.value.FindMember("definition");
      auto queries = t.value.FindMember("queries");
      if (definition == t.value.MemberEnd() || !definition->value.IsString()) {
        return Bad(at + ".definition", "expected a string");
      }
      if (queries == t.value.MemberEnd() || !queries->value.IsArray()) {
        return Bad(at + ".queries", "expected an array");
      }
      if (ns.empty() || tool.empty()) return Bad(at, "an empty name");
      LearnedTool learned;
      learned.definition = definition->value.GetString();
      for (const auto& q : queries->value.GetArray()) {
        const std::string where = at + ".queries[" + std::to_string(learned.queries.size()) + "]";
        if (!q.IsObject()) return Bad(where, "expected an object");
        auto qt = q.FindMember("text"), uses = q.FindMember("uses"), last = q.FindMember("last");
        if (qt == q.MemberEnd() || !qt->value.IsString()) return Bad(where, "no text");
        if (uses == q.MemberEnd() || !uses->value.IsUint() || uses->value.GetUint() == 0) {
          return Bad(where, "uses is not a whole number from 1");
        }
        if (last == q.MemberEnd() || !last->value.IsInt64()) return Bad(where, "no time");
        std::string_view words(qt->value.GetString(), qt->value.GetStringLength());
        LearnedQuery entry;
        entry.text.assign(words.substr(0, base::Utf8PrefixWithin(words, kMaxLearnedQueryBytes)));
        entry.key = QueryKey(entry.text);
        entry.uses = uses->value.GetUint();
        entry.last_unix = last->value.GetInt64();
        if (entry.key == 0) continue;
        if (std::any_of(learned.queries.begin(), learned.queries.end(),
                        [&](const LearnedQuery& o) { return o.key == entry.key; })) {
          continue;
        }
        learned.queries.push_back(std::move(entry));
      }
      std::stable_sort(
          learned.queries.begin(), learned.queries.end(),
          [](const LearnedQuery& a, const LearnedQuery& b) { return a.last_unix > b.last_unix; });
      if (learned.queries.size() > kMaxQueriesPerTool) learned.queries.resize(kMaxQueriesPerTool);
      if (learned.queries.empty()) continue;
      store.queries_ += learned.queries.size();
      store.servers_[ns][tool] = std::move(learned);
    }
  }
  store.Cap();
  return store;
}

}  // namespace mcpgw::search
