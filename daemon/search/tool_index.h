// ToolIndex: the tools of every ready server, indexed for get_dynamic_tools'
// `query` (BEHAVIOR.md §10). A query is ranked against three fields of each
// tool's own text — its name split into words (with its title's other
// words), its description, its arguments' names and descriptions — with
// BM25F: each field's term counts are weighted and normalised by the
// field's length apart, then summed and saturated once, so a word in a
// tool's name counts more than the same word deep in a long description. A
// query word in a server's name adds to each of its tools by how rare it is
// among the servers' names. A query word also stands in, at a lower weight,
// for the words tool texts use for the same thing (get/fetch/read,
// create/add/make, delete/remove, ...) and for its WordNet relatives
// (wordnet.h); a tool counts each query word once, by the best of the word
// and its stand-ins it holds.
//
// Shape, for 1,000 servers of 100 tools: an inverted index from each term to
// the tools holding it (4 bytes a posting: the tool's number and which of
// the index's combinations of counts in each field it has), each term's
// text once (term_dict.h), 16 bytes a tool, and made by the first query, 20
// bytes a tool of buffers (each field's length normalisation, a score and a
// group share).
// A query walks only the postings of its own terms and their stand-ins, so
// its cost follows how common its words are, not how many tools there are.
// Setting a server's tools analyses them (tokenising and stemming, the
// costly part) before touching the index; removing a server takes its
// postings out of the lists of its own terms.
//
// Single-threaded: the Catalog owns one on the main thread. A Hit's views
// are valid until the next Set or Remove.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "daemon/mcp/tool_list.h"
#include "daemon/search/analyzer.h"
#include "daemon/search/term_dict.h"

namespace mcpgw::search {

enum Field : uint8_t { kName, kDescription, kArguments, kServer, kFieldCount };
// The fields of a tool's own text; the server's name is scored apart.
constexpr uint8_t kTextFields = kServer;

// How the score is made; the defaults are the ones mcpgw ships (chosen on
// the dev split of tests/bench/search).
struct RankWeights {
  // BM25F over the tool's own text: per field, its weight and its length
  // normalisation b; k1 saturates the weighted count.
  std::array<float, kTextFields> weight = {3.0f, 1.0f, 0.6f};
  std::array<float, kTextFields> b = {0.5f, 0.75f, 0.75f};
  float k1 = 1.2f;
  // A query word in a server's name adds this much of its idf among the
  // servers' names (at most its idf in tool texts) to each of its tools.
  float server = 3.0f;
  // Stand-ins for a query word, each counting this much of the word (and
  // never more than the word's own idf would): the words tool texts use for
  // the same thing (kSynonymGroups) ...
  float synonym = 0.5f;
  // ... the word's (or a phrase's) WordNet relatives, by relation: synonym,
  // derived (wordnet.h), times the share of the word's uses that the
  // relative's sense has, to the power sense_power ...
  std::array<float, 2> wordnet = {0.5f, 0.5f};
  float sense_power = 1.0f;
  // ... two query words written apart that tool texts write as one ("log
  // out": logout, "set up": setup), as a group of its own ...
  float compound = 0.8f;
  // ... and the parts of a word cut where its case turns ("MongoDB": mongo,
  // db), standing in for the whole word.
  float split_part = 0.5f;
  // Stand-ins below this weight, or held by more than this share of the
  // tools, are left out (they would cost a walk of many tools for next to
  // nothing); one held by more than recruit_max_share of them only adds to
  // tools the query has found already. A term held by at most
  // common_at_least tools is never common (a small index walks it all).
  float min_standin_weight = 0.15f;
  float standin_max_share = 0.125f;
  float recruit_max_share = 0.02f;
  uint32_t common_at_least = 64;
  // Learned words (learned.h): a query word among the requests that led to
  // a tool adds learned × L / (learned_k + L) of the word's weight, L the
  // summed strength of those requests that hold it: saturating however
  // often it was asked, and below what the word in the tool's name gives.
  float learned = 0.8f;
  float learned_k = 1.0f;
};

// One server's tools analysed into terms: the costly part of indexing,
// done on whichever thread calls Analyze (the server's worker), so the
// index's thread only merges terms it is given.
struct AnalyzedTools {
  struct Term {
    std::string text;
    std::array<uint8_t, kFieldCount> tf;  // count in each field, saturated at 255
  };
  struct Tool {
    std::array<uint16_t, kFieldCount> length;  // terms in each field, saturated
    uint32_t first_term;                       // its distinct terms: terms[first, first + count)
    uint32_t term_count;
  };
  std::string server;
  std::vector<Tool> tools;  // in the list's order
  std::vector<Term> terms;
};

// `tools` of server `server`, analysed. Any thread (one analyzer per thread).
std::shared_ptr<const AnalyzedTools> Analyze(std::string_view server, const mcp::ToolList& tools);

struct Hit {
  std::string_view server;
  mcp::Tool tool;
  float score = 0;
};

class ToolIndex {
 public:
  explicit ToolIndex(RankWeights weights = {});
  ToolIndex(const ToolIndex&) = delete;
  ToolIndex& operator=(const ToolIndex&) = delete;

  // The server's tools from now on (replacing what it had); null or empty
  // removes it. The list is kept alive by the index. `analyzed`, when given,
  // is Analyze(server, *tools) made elsewhere; else it is made here.
  void Set(const std::string& server, std::shared_ptr<const mcp::ToolList> tools,
           std::shared_ptr<const AnalyzedTools> analyzed = nullptr);
  void Remove(const std::string& server);
  void Clear();

  // Whether a hit may be answered (the policy's say); called on the best
  // candidates only.
  using Keep = std::function<bool(std::string_view server, const mcp::Tool& tool)>;
  // At most `limit` tools, best first; equal scores in server, then tool name
  // order. `only_server` non-empty: that server's tools only. Tools that share
  // no term with the query are not answered.
  // Const to its callers; it reuses scratch buffers, so one thread at a time.
  std::vector<Hit> Search(std::string_view query, std::string_view only_server, size_t limit,
                          const Keep& keep = nullptr) const;

  // The words of the requests that led to tool `tool` of `server`: each
  // text with its strength (learned.h), replacing what the tool had; none
  // forgets. The server's own name's words are left out (its tools all
  // have them). Ignored for a tool the index does not hold; dropped when
  // the server's tools are Set again or removed.
  void SetLearned(std::string_view server, std::string_view tool,
                  const std::vector<std::pair<std::string, float>>& texts);
  // Drops the learned words of `server`'s tools, or of every tool.
  void ClearLearned(std::string_view server = {});
  // How many tools hold learned words.
  size_t learned_tools() const { return learned_terms_.size(); }

  size_t tools() const { return live_docs_; }
  size_t servers() const { return by_name_.size(); }
  // Heap bytes of the index itself (the tool lists it keeps alive aside).
  size_t MemoryBytes() const;

 private:
  // A tool holding a term: its doc id and which combination of counts in
  // each field (the index's tf_ table) it has. Few combinations occur (a
  // word once in the name, twice in the description, ...), so one 32-bit
  // word holds both; a combination past the table's room is kOverflow, its
  // counts kept by (term, doc) in overflow_.
  struct Posting {
    static constexpr uint32_t kCountBits = 10;
    uint32_t packed;
    uint32_t doc() const { return packed >> kCountBits; }
    uint32_t counts() const { return packed & ((1u << kCountBits) - 1); }
  };
  static_assert(sizeof(Posting) == 4);
  using Counts = std::array<uint8_t, kFieldCount>;  // saturated at 255
  static constexpr uint32_t kMaxDocs = 1u << (32 - Posting::kCountBits);
  static constexpr uint32_t kOverflow = (1u << Posting::kCountBits) - 1;
  struct Doc {
    uint32_t server;                           // slot in servers_
    uint32_t tool;                             // position in that server's list
    std::array<uint16_t, kFieldCount> length;  // terms in each field, saturated
  };
  static_assert(sizeof(Doc) == 16);
  struct Term {
    std::vector<Posting> postings;
  };
  struct Server {
    std::string name;
    std::shared_ptr<const mcp::ToolList> tools;
    std::vector<uint32_t> docs;
    std::vector<uint32_t> terms;       // every term its tools hold, once
    std::vector<uint32_t> name_terms;  // the terms of its name
  };
  // A term of the query, or one standing in for a query word: the word's
  // own term, its synonyms and WordNet relatives share the word's `group`,
  // and a tool scores for a group by the best of its terms there.
  // A tool's learned words: its doc and the term's summed strength there.
  struct LearnedPosting {
    uint32_t doc;
    float strength;
  };
  struct QueryTerm {
    uint32_t id;
    float weight;
    float idf;
    float server_idf;  // among the servers' names; 0 if in none
    uint32_t group;
    const std::vector<LearnedPosting>* learned = nullptr;  // the tools that learned it
  };

  static constexpr uint32_t kNoServer = std::numeric_limits<uint32_t>::max();

  uint32_t TermId(std::string_view text);
  // The posting of `doc` with `counts`, for term `term`.
  Posting MakePosting(uint32_t term, uint32_t doc, const Counts& counts);
  // A posting's counts in each field.
  const Counts& CountsOf(const Posting& p, uint32_t term) const {
    return p.counts() != kOverflow ? tf_[p.counts()] : overflow_.at(OverflowKey(term, p.doc()));
  }
  static uint64_t OverflowKey(uint32_t term, uint32_t doc) { return uint64_t{term} << 32 | doc; }
  uint32_t NewDoc();
  // Drops the learned words of one doc; a term no tool holds any more leaves
  // the dictionary.
  void DropLearned(uint32_t doc);
  void FreeTerm(uint32_t term);
  // Indexes one analysed tool of the server in `slot`; its doc id. Adds the
  // terms new to this server to `server_terms`.
  uint32_t AddTool(uint32_t slot, uint32_t position, const AnalyzedTools& analyzed,
                   std::vector<uint32_t>* server_terms);
  std::vector<QueryTerm> QueryTerms(std::string_view query) const;
  // Sets each term's idf (in tool texts and learned words, capped at its
  // group's own word's), server idf and learned postings; a zero bound per
  // group.
  std::vector<float> Weigh(std::vector<QueryTerm>& terms) const;
  // Adds each learned posting's share to its tool's score, or with
  // `in_group` to its best share of the group being walked.
  void ScoreLearned(const std::vector<LearnedPosting>& postings, float term_weight,
                    uint32_t only_slot, bool only_known, bool in_group, float* best) const;
  // Adds each tool's share of the group just walked to its score.
  void EndGroup(float* best) const;
  // Adds each term's share to the score of every tool holding it. With
  // `prune_at` > 0 only the best `prune_at` need be exact.
  void Score(std::vector<QueryTerm> terms, uint32_t only_slot, size_t prune_at) const;
  // The k-th best score among the tools scored so far (k <= their number).
  float KthScore(size_t k) const;
  bool Better(uint32_t a, uint32_t b) const;  // by score, then server, then name
  // Makes norms_ for the tools as they are.
  void Norms() const;
  // Whether a term held by `df` tools is held by more than `share` of them
  // (and by more than common_at_least).
  bool Common(uint32_t df, float share) const;
  std::vector<Hit> Select(size_t limit, const Keep& keep) const;
  static bool InText(const Counts& tf) {
    for (uint8_t f = 0; f < kTextFields; ++f) {
      if (tf[f] > 0) return true;
    }
    return false;
  }
  mcp::Tool ToolOf(const Doc& doc) const { return (*servers_[doc.server].tools)[doc.tool]; }

  RankWeights weights_;
  mutable Analyzer analyzer_;
  // Stem -> the stems of words tool texts use for the same thing.
  std::unordered_map<std::string, std::vector<std::string>> synonyms_;

  TermDict dict_;
  std::vector<Term> terms_;  // by term id
  // The combinations of counts postings refer to, each once (never more
  // than kOverflow of them), and the ones past that by (term, doc).
  std::vector<Counts> tf_;
  std::unordered_map<uint32_t, uint32_t> tf_ids_;  // the counts as one word -> their place in tf_
  // Counts below 4 in every field, 2 bits a field -> their place in tf_ + 1.
  std::array<uint16_t, 256> small_tf_{};
  std::unordered_map<uint64_t, Counts> overflow_;
  std::vector<Doc> docs_;
  std::vector<uint32_t> free_docs_;
  std::vector<Server> servers_;
  std::vector<uint32_t> free_servers_;
  std::vector<uint32_t> server_df_;  // by term: how many servers' names hold it
  std::vector<uint32_t> text_df_;    // by term: how many tools hold it outside the server field
  std::unordered_map<std::string, uint32_t> by_name_;
  size_t live_docs_ = 0;
  // Learned words, few next to the tools' own: by term, the tools that
  // learned it; by doc, its learned terms.
  std::unordered_map<uint32_t, std::vector<LearnedPosting>> learned_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> learned_terms_;
  std::array<double, kFieldCount> length_sum_{};  // over live docs

  // By doc: BM25F's length normalisation of each text field, its weight
  // folded in; made again by the first query after the tools change.
  mutable std::vector<std::array<float, kTextFields>> norms_;
  mutable bool norms_stale_ = true;

  // Per query, reused: each touched doc's score and its best share of the
  // group being walked, which docs were touched, and which by the group.
  struct Acc {
    float score = 0;
    float group = 0;
  };
  mutable std::vector<Acc> acc_;
  mutable std::vector<uint32_t> touched_;
  mutable std::vector<uint32_t> group_touched_;
  mutable std::unordered_map<uint32_t, float> learned_group_;  // by doc: its best learned share
  mutable std::vector<std::string> scratch_;
  mutable std::vector<int32_t> query_slot_;  // by term: its place among the query's, or -1
  mutable std::vector<Analyzer::Joined> joined_;
  mutable std::vector<float> kth_;
};

}  // namespace mcpgw::search
