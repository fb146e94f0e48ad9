// search_bench: how well and how fast get_dynamic_tools' `query` finds a tool.
//
//   search_bench DATA_DIR [--split dev|test|all] [--scale SERVERS] [--repeat N]
//                         [--weights name,description,arguments,server,synonym]
//                         [--set NAME=V,...]   (one RankWeights knob; see SetWeight)
//                         [--verbose] [--query TEXT]   (the ten best tools for TEXT)
//                         [--check]   (exit 1 unless the ranking beats BM25 at @1 and @5,
//                                      and learning lifts both on the test split)
//                         [--learn [--no-uses]]   (the learning protocol; see Learning)
//
// DATA_DIR holds listings/<namespace>.json (real servers' tools/list `tools`
// arrays) and requests.json (requests as users put them, each with its one
// best tool). Quality: recall@1 and recall@5 of mcpgw's ranking (daemon/search)
// and of a plain BM25 (k1 1.2, b 0.75 over name + description, lower-cased,
// split on non-alphanumerics), by kind of request, as a Markdown table.
// Cost (--scale): the real tools dealt out to SERVERS servers of 100 tools
// each (every tool many times over, so every word's posting list is that much
// longer than in the real set: a pessimistic load), then the thread CPU time
// of each request's query through the Catalog (ranking and the answer's JSON),
// the index's memory and the cost of re-indexing one server.
#include <malloc.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/gateway/catalog.h"
#include "daemon/mcp/convert.h"
#include "daemon/search/learned.h"
#include "daemon/search/tool_index.h"

namespace {

using mcpgw::mcp::ToolList;

struct Request {
  std::string text, ns, tool, kind, split;
};

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every listing, by namespace, as the daemon keeps it.
std::map<std::string, std::shared_ptr<const ToolList>> LoadListings(const std::string& dir) {
  std::map<std::string, std::shared_ptr<const ToolList>> out;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/listings")) {
    if (e.path().extension() != ".json") continue;
    const std::string text = "{\"tools\":" + ReadFile(e.path()) + "}";
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    auto list = std::make_shared<ToolList>();
    if (doc.HasParseError() || !mcpgw::mcp::AppendToolsPage(doc, {}, *list).ok()) {
      std::fprintf(stderr, "search_bench: %s: not a tools array\n", e.path().c_str());
      std::exit(2);
    }
    mcpgw::mcp::SortAndDedupTools(*list);
    list->Shrink();
    out[e.path().stem().string()] = std::move(list);
  }
  return out;
}

std::vector<Request> LoadRequests(const std::string& dir, const std::string& split,
                                  const std::string& file = "requests.json") {
  const std::string text = ReadFile(dir + "/" + file);
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsArray()) {
    std::fprintf(stderr, "search_bench: requests.json is not an array\n");
    std::exit(2);
  }
  std::vector<Request> out;
  for (const auto& r : doc.GetArray()) {
    Request q{r["request"].GetString(), r["namespace"].GetString(), r["tool"].GetString(),
              r["kind"].GetString(), r.HasMember("split") ? r["split"].GetString() : "dev"};
    if (split == "all" || q.split == split) out.push_back(std::move(q));
  }
  return out;
}

// ---- The plain BM25 the ranking is compared with -------------------------

class PlainBm25 {
 public:
  struct Ranked {
    std::string ns, tool;
  };
  explicit PlainBm25(const std::map<std::string, std::shared_ptr<const ToolList>>& listings) {
    for (const auto& [ns, list] : listings) {
      for (const auto& tool : *list) {
        Doc d{ns, std::string(tool.name), {}, 0};
        for (const auto& w : Words(std::string(tool.name) + " " + std::string(tool.description))) {
          ++d.tf[w];
          ++d.length;
        }
        for (const auto& [w, n] : d.tf) ++df_[w];
        total_length_ += d.length;
        docs_.push_back(std::move(d));
      }
    }
  }
  static std::vector<std::string> Words(const std::string& text) {
    std::vector<std::string> out;
    std::string w;
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      } else if (!w.empty()) {
        out.push_back(std::move(w));
        w.clear();
      }
    }
    if (!w.empty()) out.push_back(std::move(w));
    return out;
  }
  std::vector<Ranked> Search(const std::string& query, size_t limit) const {
    std::set<std::string> terms;
    for (const auto& w : Words(query)) terms.insert(w);
    const double n = static_cast<double>(docs_.size());
    const double avg = total_length_ / n;
    std::vector<std::pair<double, const Doc*>> scored;
    for (const auto& d : docs_) {
      double score = 0;
      for (const auto& t : terms) {
        auto it = d.tf.find(t);
        if (it == d.tf.end()) continue;
        const double df = df_.at(t);
        const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
        const double tf = it->second;
        score += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * d.length / avg));
      }
      if (score > 0) scored.emplace_back(score, &d);
    }
    std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first > b.first;
      if (a.second->ns != b.second->ns) return a.second->ns < b.second->ns;
      return a.second->tool < b.second->tool;
    });
    std::vector<Ranked> out;
    for (size_t i = 0; i < scored.size() && i < limit; ++i) {
      out.push_back({scored[i].second->ns, scored[i].second->tool});
    }
    return out;
  }

 private:
  struct Doc {
    std::string ns, tool;
    std::unordered_map<std::string, int> tf;
    int length;
  };
  std::vector<Doc> docs_;
  std::unordered_map<std::string, int> df_;
  double total_length_ = 0;
};

// ---- Quality ---------------------------------------------------------------

struct Recall {
  int n = 0, at1 = 0, at5 = 0;
  void Add(int rank) {  // 0 = not in the top 5
    ++n;
    if (rank == 1) ++at1;
    if (rank >= 1 && rank <= 5) ++at5;
  }
  std::string Cell(int hits) const {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", n ? static_cast<double>(hits) / n : 0.0);
    return b;
  }
};

template <typename Ranked>
int RankOf(const std::vector<Ranked>& ranked, const Request& r) {
  for (size_t i = 0; i < ranked.size(); ++i) {
    if (ranked[i].ns == r.ns && ranked[i].tool == r.tool) return static_cast<int>(i + 1);
  }
  return 0;
}

struct HitView {
  std::string ns, tool;
};

// Prints the table; false when mcpgw's ranking is not above plain BM25 in
// both recall@1 and recall@5 over all requests.
bool Quality(const std::string& dir, const std::string& split, mcpgw::search::RankWeights weights,
             bool verbose) {
  const auto listings = LoadListings(dir);
  const auto requests = LoadRequests(dir, split);
  mcpgw::search::ToolIndex index(weights);
  size_t tools = 0;
  for (const auto& [ns, list] : listings) {
    index.Set(ns, list);
    tools += list->size();
  }
  const PlainBm25 bm25(listings);
  std::map<std::string, Recall> ours, plain;  // by kind, and "all"
  for (const auto& r : requests) {
    std::vector<HitView> hits;
    for (const auto& h : index.Search(r.text, "", 5)) {
      hits.push_back({std::string(h.server), std::string(h.tool.name)});
    }
    const int rank = RankOf(hits, r);
    const int plain_rank = RankOf(bm25.Search(r.text, 5), r);
    for (const std::string& k : {r.kind, std::string("all")}) {
      ours[k].Add(rank);
      plain[k].Add(plain_rank);
    }
    if (verbose && rank != 1) {
      std::printf("rank %d (bm25 %d): %s -> %s/%s; top: %s/%s\n", rank, plain_rank, r.text.c_str(),
                  r.ns.c_str(), r.tool.c_str(), hits.empty() ? "-" : hits[0].ns.c_str(),
                  hits.empty() ? "-" : hits[0].tool.c_str());
    }
  }
  std::printf("\n%zu tools of %zu servers, %zu requests (split: %s)\n\n", tools, listings.size(),
              requests.size(), split.c_str());
  std::printf(
      "| requests | n | mcpgw recall@1 | BM25 recall@1 | mcpgw recall@5 | BM25 recall@5 |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const std::string k : {"direct", "paraphrase", "all"}) {
    std::printf("| %s | %d | %s | %s | %s | %s |\n", k.c_str(), ours[k].n,
                ours[k].Cell(ours[k].at1).c_str(), plain[k].Cell(plain[k].at1).c_str(),
                ours[k].Cell(ours[k].at5).c_str(), plain[k].Cell(plain[k].at5).c_str());
  }
  const Recall& a = ours["all"];
  const Recall& b = plain["all"];
  return a.at1 > b.at1 && a.at5 > b.at5;
}

// ---- Learning ----------------------------------------------------------------

// The learning protocol (BEHAVIOR.md §10, "Learned words"): the dev split's
// requests and uses.json's (requests written for each answer tool from its
// listing alone, all on the dev side) are taught to the tools they name, as
// the daemon does when a host asks and then calls that tool; recall is
// measured on the test split's requests, which were never taught. Prints
// the table; false unless learning lifts recall@5 and recall@1 over all test
// requests and loses nothing on direct ones.
//
// With `split` dev (for choosing the weights) only uses.json is taught and
// the dev split measured; with `uses` false only the dev split is taught
// (tools the test requests mostly do not ask for: what learning costs the
// others).
bool Learning(const std::string& dir, const std::string& split, bool with_uses,
              mcpgw::search::RankWeights weights, bool verbose) {
  constexpr int64_t kNow = 1796601600;
  const auto listings = LoadListings(dir);
  const bool tuning = split == "dev";
  std::vector<Request> taught = tuning ? std::vector<Request>() : LoadRequests(dir, "dev");
  const size_t dev = taught.size();
  const std::vector<Request> uses =
      with_uses ? LoadRequests(dir, "all", "uses.json") : std::vector<Request>();
  taught.insert(taught.end(), uses.begin(), uses.end());
  const auto tests = LoadRequests(dir, tuning ? "dev" : "test");
  mcpgw::search::ToolIndex plain(weights), learned(weights);
  for (const auto& [ns, list] : listings) {
    plain.Set(ns, list);
    learned.Set(ns, list);
  }
  mcpgw::search::LearnedStore store;
  for (const Request& r : taught) {
    const auto list = listings.find(r.ns);
    if (list == listings.end()) continue;
    for (const auto& tool : *list->second) {
      if (tool.name != r.tool) continue;
      store.Learn(r.ns, r.tool, mcpgw::search::DefinitionDigest(tool), r.text, kNow);
    }
  }
  for (const auto& [ns, tools] : store.servers()) {
    for (const auto& [name, t] : tools) {
      std::vector<std::pair<std::string, float>> texts;
      for (const auto& q : t.queries) {
        texts.emplace_back(q.text, static_cast<float>(mcpgw::search::Strength(q, kNow)));
      }
      learned.SetLearned(ns, name, texts);
    }
  }
  std::map<std::string, Recall> before, after;
  const auto rank_in = [](const mcpgw::search::ToolIndex& index, const Request& r) {
    std::vector<HitView> hits;
    for (const auto& h : index.Search(r.text, "", 5)) {
      hits.push_back({std::string(h.server), std::string(h.tool.name)});
    }
    return RankOf(hits, r);
  };
  for (const Request& r : tests) {
    const int a = rank_in(plain, r), b = rank_in(learned, r);
    for (const std::string& k : {r.kind, std::string("all")}) {
      before[k].Add(a);
      after[k].Add(b);
    }
    if (verbose && b != 1) {
      std::printf("learned rank %d (before %d): %s -> %s/%s\n", b, a, r.text.c_str(), r.ns.c_str(),
                  r.tool.c_str());
    }
  }
  std::printf(
      "\nLearning: %zu requests taught (%zu of the dev split, %zu of uses.json) to %zu tools; "
      "%zu %s requests measured, none taught\n\n",
      taught.size(), dev, uses.size(), store.servers().empty() ? size_t{0} : [&] {
        size_t n = 0;
        for (const auto& [ns, tools] : store.servers()) n += tools.size();
        return n;
      }(), tests.size(), tuning ? "dev" : "test");
  std::printf(
      "| requests | n | recall@1 before | recall@1 learned | recall@5 before | recall@5 "
      "learned |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  for (const std::string k : {"direct", "paraphrase", "all"}) {
    std::printf("| %s | %d | %s | %s | %s | %s |\n", k.c_str(), before[k].n,
                before[k].Cell(before[k].at1).c_str(), after[k].Cell(after[k].at1).c_str(),
                before[k].Cell(before[k].at5).c_str(), after[k].Cell(after[k].at5).c_str());
  }
  std::printf("\n(learned: %zu queries, index memory %.2f MiB → %.2f MiB)\n", store.queries(),
              plain.MemoryBytes() / 1048576.0, learned.MemoryBytes() / 1048576.0);
  // A flood: a host teaches one unrelated tool the cap's worth (16) of
  // other requests, each asked a million times; how many test requests lose
  // their tool from the first five because of it.
  if (!tuning) {
    std::vector<std::pair<std::string, float>> flood;
    for (size_t i = 0; i < taught.size() && flood.size() < mcpgw::search::kMaxQueriesPerTool; ++i) {
      flood.emplace_back(taught[i].text, static_cast<float>(mcpgw::search::kMaxStrength));
    }
    const char* kNs = "sequential-thinking";
    const char* kTool = "sequentialthinking";
    size_t lost = 0, flooded_in = 0;
    std::vector<int> ranks;
    for (const Request& r : tests) ranks.push_back(rank_in(learned, r));
    learned.SetLearned(kNs, kTool, flood);
    for (size_t i = 0; i < tests.size(); ++i) {
      const int now = rank_in(learned, tests[i]);
      if (ranks[i] >= 1 && ranks[i] <= 5 && (now < 1 || now > 5)) ++lost;
      for (const auto& h : learned.Search(tests[i].text, "", 5)) {
        if (h.server == kNs && h.tool.name == kTool) ++flooded_in;
      }
    }
    std::printf(
        "\n(a flood: %s/%s taught %zu of the taught requests at the most strength a query has; "
        "of the %zu test requests it then shows in the first five of %zu, and %zu lose their "
        "tool from the first five)\n",
        kNs, kTool, flood.size(), tests.size(), flooded_in, lost);
  }
  const Recall &b = before["all"], &a = after["all"];
  return a.at5 > b.at5 && a.at1 > b.at1 && after["direct"].at5 >= before["direct"].at5 &&
         after["direct"].at1 >= before["direct"].at1;
}

// ---- Cost at scale ---------------------------------------------------------

double ThreadCpuMicros() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

size_t RssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

// The thread CPU time of each request's query through the catalog (ranking
// and the answer's JSON), `repeat` rounds; adds the answers' sizes to `bytes`.
std::vector<double> QueryMicros(const mcpgw::Catalog& catalog, const std::vector<Request>& requests,
                                int repeat, size_t* bytes) {
  std::vector<double> micros;
  for (int round = 0; round < repeat; ++round) {
    for (const auto& r : requests) {
      rapidjson::Document params;
      params.SetObject();
      params.AddMember("query", rapidjson::StringRef(r.text.c_str()), params.GetAllocator());
      const double start = ThreadCpuMicros();
      auto answer = catalog.GetDynamicTools(params);
      micros.push_back(ThreadCpuMicros() - start);
      if (!answer.ok()) std::abort();
      *bytes += answer->size();
    }
  }
  return micros;
}

void Scale(const std::string& dir, int servers, int repeat) {
  constexpr int kToolsPerServer = 100;
  const auto listings = LoadListings(dir);
  const auto requests = LoadRequests(dir, "all");
  // Every real tool in one pool; server i takes 100 of them in turn.
  std::vector<std::pair<std::shared_ptr<const ToolList>, size_t>> pool;
  for (const auto& [ns, list] : listings) {
    for (size_t i = 0; i < list->size(); ++i) pool.emplace_back(list, i);
  }
  std::vector<mcpgw::ServerView> views;
  for (int s = 0; s < servers; ++s) {
    auto list = std::make_shared<ToolList>();
    for (int t = 0; t < kToolsPerServer; ++t) {
      const auto& [from, i] = pool[(static_cast<size_t>(s) * kToolsPerServer + t) % pool.size()];
      const auto tool = (*from)[i];
      list->Add(tool.name, tool.description, tool.input_schema_json, tool.read_only_hint);
    }
    mcpgw::mcp::SortAndDedupTools(*list);
    list->Shrink();
    char name[32];
    std::snprintf(name, sizeof name, "server%04d", s);
    views.push_back({name, mcpgw::mcp::Status::kReady, "", std::move(list), false, nullptr});
  }
  // As in the daemon, each server's tools are analysed on its worker: that
  // cost is measured apart, and the catalog's thread only merges.
  const double analyse_start = ThreadCpuMicros();
  for (auto& v : views) v.analyzed = mcpgw::search::Analyze(v.name, *v.tools);
  const double analyse_ms = (ThreadCpuMicros() - analyse_start) / 1e3;
  const size_t rss_before = RssKiB();
  mcpgw::Catalog catalog;
  const double build_start = ThreadCpuMicros();
  catalog.Reset(views);
  const double build_ms = (ThreadCpuMicros() - build_start) / 1e3;
  const size_t rss_after = RssKiB();
  const size_t catalog_index_bytes = catalog.SearchIndexBytes();
  size_t tools = 0;
  for (const auto& v : views) tools += v.tools->size();

  size_t answer_bytes = 0;
  const std::vector<double> micros = QueryMicros(catalog, requests, repeat, &answer_bytes);
  // The same queries once the catalog has learned as much as it keeps
  // (kMaxLearnedQueries): the dev split's and uses.json's requests taught
  // to every copy of their tool, the most recent 16 a tool.
  std::vector<Request> taught = LoadRequests(dir, "dev");
  for (auto& u : LoadRequests(dir, "all", "uses.json")) taught.push_back(std::move(u));
  const size_t bytes_before_learning = catalog.SearchIndexBytes();
  const size_t heap_before_learning = mallinfo2().uordblks;
  const double learn_start = ThreadCpuMicros();
  size_t lessons = 0;
  for (size_t i = 0; catalog.learned().queries() < mcpgw::search::kMaxLearnedQueries && i < 100;
       ++i) {
    for (const auto& v : views) {
      for (const auto& tool : *v.tools) {
        for (size_t t = i; t < taught.size(); t += 100) {
          if (taught[t].tool != tool.name) continue;
          // Distinct wording per copy: the worst case keeps every one.
          catalog.Learn(v.name, tool.name, taught[t].text + " " + v.name);
          ++lessons;
        }
      }
    }
  }
  const double learn_ms = (ThreadCpuMicros() - learn_start) / 1e3;
  const size_t heap_learned = mallinfo2().uordblks - heap_before_learning;
  size_t learned_answer_bytes = 0;
  const std::vector<double> learned_micros =
      QueryMicros(catalog, requests, repeat, &learned_answer_bytes);
  size_t learned_tools = 0;
  for (const auto& [ns, t] : catalog.learned().servers()) learned_tools += t.size();
  const size_t file_bytes = catalog.learned().Serialize().size();

  // One server listing new tools: what the main thread spends re-indexing it.
  std::vector<double> update_ms;
  for (int i = 0; i < 20; ++i) {
    mcpgw::ServerView v = views[static_cast<size_t>(i) * 37 % views.size()];
    auto changed = std::make_shared<ToolList>(*v.tools);
    changed->Add("added_tool_" + std::to_string(i), "A tool added by a list change", "{}", false);
    mcpgw::mcp::SortAndDedupTools(*changed);
    changed->Shrink();
    v.tools = std::move(changed);
    v.analyzed = mcpgw::search::Analyze(v.name, *v.tools);
    const double start = ThreadCpuMicros();
    catalog.Update(std::move(v));
    update_ms.push_back((ThreadCpuMicros() - start) / 1e3);
  }
  std::printf(
      "\n| tools | servers | query CPU median | p90 | p99 | max | analysis per server (worker) | "
      "merge of all (main) | re-index one server (main, median) | index memory | RSS growth |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::printf(
      "| %zu | %d | %.0f µs | %.0f µs | %.0f µs | %.0f µs | %.2f ms | %.0f ms | %.2f ms | %.0f MiB "
      "| "
      "%.0f MiB |\n",
      tools, servers, Percentile(micros, 0.5), Percentile(micros, 0.9), Percentile(micros, 0.99),
      Percentile(micros, 1.0), analyse_ms / servers, build_ms, Percentile(update_ms, 0.5),
      catalog_index_bytes / 1048576.0, (rss_after - rss_before) / 1024.0);
  // The per-query buffers (a score and a group share per tool, each field's
  // length normalisation per tool) are made by the first query.
  std::printf(
      "\n(index memory after the queries, with the buffers they made: %.1f MiB; before: %.1f "
      "MiB; RSS growth since before the index: %.1f MiB)\n",
      catalog.SearchIndexBytes() / 1048576.0, catalog_index_bytes / 1048576.0,
      (RssKiB() - rss_before) / 1024.0);
  std::printf("\n(%zu queries, limit 10, %zu bytes of answers on average)\n", micros.size(),
              answer_bytes / micros.size());
  std::printf(
      "\nWith as much learned as the daemon keeps: %zu queries on %zu tools (%zu lessons, %.0f ms "
      "of the main thread in all): query CPU median %.0f µs, p90 %.0f µs, p99 %.0f µs, max %.0f "
      "µs; index memory %.1f MiB (%.1f MiB for the learned words), heap for all that was learned "
      "(store and index) %.1f MiB, learned file %.1f MiB\n",
      catalog.learned().queries(), learned_tools, lessons, learn_ms,
      Percentile(learned_micros, 0.5), Percentile(learned_micros, 0.9),
      Percentile(learned_micros, 0.99), Percentile(learned_micros, 1.0),
      catalog.SearchIndexBytes() / 1048576.0,
      (catalog.SearchIndexBytes() - bytes_before_learning) / 1048576.0, heap_learned / 1048576.0,
      file_bytes / 1048576.0);
}

// One knob of RankWeights from "name=v1,v2,...": weight and b (one per text
// field: name, description, arguments), k1, server, synonym, wordnet
// (synonym,derived), sense_power, compound, split_part, min_standin_weight,
// standin_max_share, recruit_max_share, common_at_least.
bool SetWeight(const std::string& spec, mcpgw::search::RankWeights* w) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos) return false;
  const std::string name = spec.substr(0, eq);
  std::vector<float> v;
  std::stringstream in(spec.substr(eq + 1));
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(std::stof(item));
  const auto fill = [&](float* out, size_t n) {
    if (v.size() != n) return false;
    std::copy(v.begin(), v.end(), out);
    return true;
  };
  if (name == "weight") return fill(w->weight.data(), w->weight.size());
  if (name == "b") return fill(w->b.data(), w->b.size());
  if (name == "wordnet") return fill(w->wordnet.data(), w->wordnet.size());
  const std::pair<const char*, float*> scalars[] = {
      {"k1", &w->k1},
      {"server", &w->server},
      {"synonym", &w->synonym},
      {"sense_power", &w->sense_power},
      {"compound", &w->compound},
      {"split_part", &w->split_part},
      {"min_standin_weight", &w->min_standin_weight},
      {"standin_max_share", &w->standin_max_share},
      {"recruit_max_share", &w->recruit_max_share},
      {"learned", &w->learned},
      {"learned_k", &w->learned_k},
  };
  for (const auto& [n, field] : scalars) {
    if (name == n) return fill(field, 1);
  }
  if (name == "common_at_least") {
    float c = 0;
    if (!fill(&c, 1)) return false;
    w->common_at_least = static_cast<uint32_t>(c);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: search_bench DATA_DIR [--split dev|test|all] [--scale SERVERS] "
                 "[--repeat N] [--weights N,D,A,S,SYN] [--verbose] [--query TEXT]\n");
    return 2;
  }
  const std::string dir = argv[1];
  std::string split = "all";
  int scale = 0;
  int repeat = 5;
  bool verbose = false;
  std::string query;
  bool check = false;
  bool learn = false;
  bool uses = true;
  mcpgw::search::RankWeights weights;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--split" && i + 1 < argc)
      split = argv[++i];
    else if (a == "--scale" && i + 1 < argc)
      scale = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (a == "--verbose")
      verbose = true;
    else if (a == "--query" && i + 1 < argc)
      query = argv[++i];
    else if (a == "--check")
      check = true;
    else if (a == "--learn")
      learn = true;
    else if (a == "--no-uses")
      uses = false;
    else if (a == "--weights" && i + 1 < argc) {
      float w[5];
      if (std::sscanf(argv[++i], "%f,%f,%f,%f,%f", &w[0], &w[1], &w[2], &w[3], &w[4]) != 5)
        return 2;
      for (int f = 0; f < 3; ++f) weights.weight[f] = w[f];
      weights.server = w[3];
      weights.synonym = w[4];
    } else if (a == "--set" && i + 1 < argc) {
      if (!SetWeight(argv[++i], &weights)) {
        std::fprintf(stderr, "search_bench: --set %s: unknown name or bad values\n", argv[i]);
        return 2;
      }
    } else {
      std::fprintf(stderr, "search_bench: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (!query.empty()) {
    mcpgw::search::ToolIndex index(weights);
    for (const auto& [ns, list] : LoadListings(dir)) index.Set(ns, list);
    for (const auto& h : index.Search(query, "", 10)) {
      std::printf("%8.3f  %.*s/%.*s\n", h.score, static_cast<int>(h.server.size()), h.server.data(),
                  static_cast<int>(h.tool.name.size()), h.tool.name.data());
    }
  } else if (scale > 0) {
    Scale(dir, scale, repeat);
  } else if (learn) {
    const bool helps = Learning(dir, split == "all" ? "test" : split, uses, weights, verbose);
    if (check && !helps) {
      std::fprintf(stderr,
                   "search_bench: learning from uses.json does not lift recall@1 and @5 on the "
                   "test split, or "
                   "loses direct requests\n");
      return 1;
    }
  } else {
    const bool better = Quality(dir, split, weights, verbose);
    if (check && !better) {
      std::fprintf(stderr,
                   "search_bench: the ranking is not above plain BM25 in recall@1 and @5\n");
      return 1;
    }
    // The check holds learning to its promise too.
    if (check && !Learning(dir, "test", true, weights, false)) {
      std::fprintf(stderr,
                   "search_bench: learning from uses.json does not lift recall@1 and @5 on the "
                   "test split, or loses direct requests\n");
      return 1;
    }
  }
  return 0;
}
