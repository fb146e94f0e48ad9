#include "daemon/search/tool_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <rapidjson/document.h>

#include "daemon/search/wordnet.h"

namespace mcpgw::search {
namespace {

// Words that tool texts and requests use for the same action or thing. Each
// group is general vocabulary of tool descriptions, not fitted to any one
// tool: a query word matches the other words of its group at
// RankWeights::synonym of its own weight.
constexpr std::string_view kSynonymGroups[] = {
    "get fetch retrieve read obtain load",
    "create make add new insert",
    "delete remove erase destroy drop",
    "update edit modify change",
    "search find query lookup look",
    "list enumerate",
    "run execute invoke exec",
    "open navigate visit go browse",
    "show display view",
    "write save store",
    "start launch begin",
    "stop kill terminate end",
    "click press tap",
    "image picture photo",
    "folder directory dir",
    "document doc",
    "repository repo",
    "message msg",
    "email mail",
    "issue ticket bug",
    "site website",
    "page webpage",
};

// A field's text is cut at this many terms for its length (a description of
// a few thousand words is rare, and a tool's score barely moves past it).
constexpr uint32_t kMaxLength = std::numeric_limits<uint16_t>::max();

// The text of a schema's top-level properties: each one's name and its
// description. A schema that is not an object with properties gives nothing.
void ArgumentText(std::string_view schema_json, std::string* out) {
  rapidjson::Document doc;
  doc.Parse(schema_json.data(), schema_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return;
  auto props = doc.FindMember("properties");
  if (props == doc.MemberEnd() || !props->value.IsObject()) return;
  for (const auto& p : props->value.GetObject()) {
    out->append(p.name.GetString(), p.name.GetStringLength());
    out->push_back(' ');
    if (!p.value.IsObject()) continue;
    auto d = p.value.FindMember("description");
    if (d != p.value.MemberEnd() && d->value.IsString()) {
      out->append(d->value.GetString(), d->value.GetStringLength());
      out->push_back(' ');
    }
  }
}

}  // namespace

std::shared_ptr<const AnalyzedTools> Analyze(std::string_view server, const mcp::ToolList& tools) {
  thread_local Analyzer analyzer;
  auto out = std::make_shared<AnalyzedTools>();
  out->server.assign(server);
  out->tools.reserve(tools.size());
  std::vector<std::string> server_words;
  analyzer.Terms(server, &server_words);
  std::array<std::vector<std::string>, kFieldCount> fields;
  std::vector<std::pair<std::string_view, uint8_t>> occurrences;  // (term, field)
  std::string arguments;
  std::vector<std::string> title;
  const auto is_server_word = [&](const std::string& t) {
    return std::find(server_words.begin(), server_words.end(), t) != server_words.end();
  };
  for (const mcp::Tool& tool : tools) {
    for (auto& f : fields) f.clear();
    analyzer.Terms(tool.name, &fields[kName]);
    analyzer.Terms(tool.description, &fields[kDescription]);
    // A title (when the tool also has a description of its own: else the
    // description is the title already) names the tool as its name does;
    // its words the name lacks count as the name's.
    if (tool.described && !tool.title.empty()) {
      title.clear();
      analyzer.Terms(tool.title, &title);
      auto& name = fields[kName];
      const size_t name_words = name.size();
      for (auto& t : title) {
        if (std::find(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(name_words), t) ==
            name.begin() + static_cast<std::ptrdiff_t>(name_words)) {
          name.push_back(std::move(t));
        }
      }
    }
    arguments.clear();
    ArgumentText(tool.input_schema_json, &arguments);
    analyzer.Terms(arguments, &fields[kArguments]);
    fields[kServer] = server_words;
    // The server's own name in a tool's text ("linear_createIssue", "... in
    // a MongoDB database") tells nothing about which of its tools is meant:
    // the server field already gives each of them that word alike.
    for (uint8_t f = 0; f < kServer; ++f) {
      auto& field = fields[f];
      field.erase(std::remove_if(field.begin(), field.end(), is_server_word), field.end());
    }
    AnalyzedTools::Tool entry{};
    occurrences.clear();
    for (uint8_t f = 0; f < kFieldCount; ++f) {
      entry.length[f] = static_cast<uint16_t>(std::min<size_t>(fields[f].size(), kMaxLength));
      for (const auto& t : fields[f]) occurrences.emplace_back(t, f);
    }
    std::sort(occurrences.begin(), occurrences.end());
    entry.first_term = static_cast<uint32_t>(out->terms.size());
    for (size_t i = 0; i < occurrences.size();) {
      AnalyzedTools::Term term{std::string(occurrences[i].first), {}};
      for (; i < occurrences.size() && occurrences[i].first == term.text; ++i) {
        uint8_t& tf = term.tf[occurrences[i].second];
        if (tf < 255) ++tf;
      }
      out->terms.push_back(std::move(term));
    }
    entry.term_count = static_cast<uint32_t>(out->terms.size()) - entry.first_term;
    out->tools.push_back(entry);
  }
  return out;
}

ToolIndex::ToolIndex(RankWeights weights) : weights_(weights) {
  for (std::string_view group : kSynonymGroups) {
    std::vector<std::string> stems;
    analyzer_.Terms(group, &stems);
    for (const auto& s : stems) {
      auto& others = synonyms_[s];
      for (const auto& o : stems) {
        if (o != s && std::find(others.begin(), others.end(), o) == others.end()) {
          others.push_back(o);
        }
      }
    }
  }
}

uint32_t ToolIndex::TermId(std::string_view text) {
  const uint32_t id = dict_.Add(text);
  if (id >= terms_.size()) {
    terms_.resize(id + 1);
    text_df_.resize(id + 1, 0);
    server_df_.resize(id + 1, 0);
  }
  return id;
}

ToolIndex::Posting ToolIndex::MakePosting(uint32_t term, uint32_t doc, const Counts& counts) {
  // Counts below 4 in every field (nearly all of them) are found by a
  // direct lookup, the rest through tf_ids_.
  uint32_t small = 0;
  bool is_small = true;
  for (uint8_t f = 0; f < kFieldCount; ++f) {
    is_small = is_small && counts[f] < 4;
    small |= static_cast<uint32_t>(counts[f] & 3) << (2 * f);
  }
  if (is_small && small_tf_[small] > 0) {
    return Posting{doc << Posting::kCountBits | (small_tf_[small] - 1u)};
  }
  uint32_t word;
  std::memcpy(&word, counts.data(), sizeof word);
  auto [it, added] = tf_ids_.try_emplace(word, static_cast<uint32_t>(tf_.size()));
  if (added) {
    if (tf_.size() < kOverflow) {
      tf_.push_back(counts);
    } else {
      tf_ids_.erase(it);
      overflow_[OverflowKey(term, doc)] = counts;
      return Posting{doc << Posting::kCountBits | kOverflow};
    }
  }
  if (is_small) small_tf_[small] = static_cast<uint16_t>(it->second + 1);
  return Posting{doc << Posting::kCountBits | it->second};
}

uint32_t ToolIndex::NewDoc() {
  if (!free_docs_.empty()) {
    const uint32_t id = free_docs_.back();
    free_docs_.pop_back();
    return id;
  }
  docs_.push_back(Doc{});
  return static_cast<uint32_t>(docs_.size() - 1);
}

uint32_t ToolIndex::AddTool(uint32_t slot, uint32_t position, const AnalyzedTools& analyzed,
                            std::vector<uint32_t>* server_terms) {
  const AnalyzedTools::Tool& tool = analyzed.tools[position];
  const uint32_t doc_id = NewDoc();
  Doc& doc = docs_[doc_id];
  doc.server = slot;
  doc.tool = position;
  doc.length = tool.length;
  for (uint8_t f = 0; f < kFieldCount; ++f) length_sum_[f] += doc.length[f];
  norms_stale_ = true;
  for (uint32_t i = tool.first_term; i < tool.first_term + tool.term_count; ++i) {
    const uint32_t term = TermId(analyzed.terms[i].text);
    auto& postings = terms_[term].postings;
    // A server's tools are added one after another: a term whose last
    // posting is another server's is new to this one.
    if (postings.empty() || docs_[postings.back().doc()].server != slot) {
      server_terms->push_back(term);
    }
    postings.push_back(MakePosting(term, doc_id, analyzed.terms[i].tf));
    if (InText(analyzed.terms[i].tf)) ++text_df_[term];
  }
  ++live_docs_;
  return doc_id;
}

void ToolIndex::Set(const std::string& server, std::shared_ptr<const mcp::ToolList> tools,
                    std::shared_ptr<const AnalyzedTools> analyzed) {
  Remove(server);
  if (!tools || tools->empty()) return;
  if (!analyzed || analyzed->server != server || analyzed->tools.size() != tools->size()) {
    analyzed = Analyze(server, *tools);
  }
  uint32_t slot;
  if (!free_servers_.empty()) {
    slot = free_servers_.back();
    free_servers_.pop_back();
  } else {
    slot = static_cast<uint32_t>(servers_.size());
    servers_.emplace_back();
  }
  servers_[slot].name = server;
  servers_[slot].tools = std::move(tools);
  by_name_.emplace(server, slot);
  std::vector<uint32_t> docs;
  std::vector<uint32_t> server_terms;
  docs.reserve(analyzed->tools.size());
  for (uint32_t i = 0; i < analyzed->tools.size(); ++i) {
    // Doc ids share a posting's word with its counts: an index holds at
    // most kMaxDocs - 1 tools (millions), and a server's tools past that
    // are not searchable.
    if (free_docs_.empty() && docs_.size() >= kMaxDocs - 1) break;
    docs.push_back(AddTool(slot, i, *analyzed, &server_terms));
  }
  server_terms.shrink_to_fit();
  servers_[slot].docs = std::move(docs);
  servers_[slot].terms = std::move(server_terms);
  // The terms of the server's name: every tool holds them in its server field.
  const AnalyzedTools::Tool& first = analyzed->tools.front();
  for (uint32_t i = first.first_term; i < first.first_term + first.term_count; ++i) {
    if (analyzed->terms[i].tf[kServer] == 0) continue;
    const uint32_t term = dict_.Find(analyzed->terms[i].text);
    if (term == TermDict::kNone) continue;  // its tools were past kMaxDocs
    servers_[slot].name_terms.push_back(term);
    ++server_df_[term];
  }
}

void ToolIndex::FreeTerm(uint32_t term) {
  dict_.Remove(term);
  std::vector<Posting>().swap(terms_[term].postings);
}

void ToolIndex::DropLearned(uint32_t doc) {
  auto it = learned_terms_.find(doc);
  if (it == learned_terms_.end()) return;
  for (uint32_t term : it->second) {
    auto list = learned_.find(term);
    if (list == learned_.end()) continue;
    std::erase_if(list->second, [doc](const LearnedPosting& p) { return p.doc == doc; });
    if (!list->second.empty()) continue;
    learned_.erase(list);
    if (terms_[term].postings.empty()) FreeTerm(term);
  }
  learned_terms_.erase(it);
}

void ToolIndex::SetLearned(std::string_view server, std::string_view tool,
                           const std::vector<std::pair<std::string, float>>& texts) {
  auto it = by_name_.find(std::string(server));
  if (it == by_name_.end()) return;
  const Server& s = servers_[it->second];
  uint32_t doc = kNoServer;
  for (uint32_t d : s.docs) {
    if (ToolOf(docs_[d]).name == tool) {
      doc = d;
      break;
    }
  }
  if (doc == kNoServer) return;
  DropLearned(doc);
  // Each term's strength summed over the texts that hold it (once a text).
  std::vector<std::pair<std::string, float>> sums;
  std::vector<std::string> terms;
  for (const auto& [text, strength] : texts) {
    if (strength <= 0) continue;
    terms.clear();
    analyzer_.Terms(text, &terms);
    std::sort(terms.begin(), terms.end());
    terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
    for (auto& t : terms) {
      auto at = std::find_if(sums.begin(), sums.end(), [&](const auto& e) { return e.first == t; });
      if (at == sums.end()) {
        sums.emplace_back(std::move(t), strength);
      } else {
        at->second += strength;
      }
    }
  }
  std::vector<uint32_t> held;
  for (auto& [text, strength] : sums) {
    const uint32_t known = dict_.Find(text);
    if (known != TermDict::kNone &&
        std::find(s.name_terms.begin(), s.name_terms.end(), known) != s.name_terms.end()) {
      continue;  // the server's own name: every tool of it has that word
    }
    const uint32_t term = TermId(text);
    learned_[term].push_back(LearnedPosting{doc, strength});
    held.push_back(term);
  }
  if (!held.empty()) learned_terms_.emplace(doc, std::move(held));
}

void ToolIndex::ClearLearned(std::string_view server) {
  if (server.empty()) {
    while (!learned_terms_.empty()) DropLearned(learned_terms_.begin()->first);
    return;
  }
  auto it = by_name_.find(std::string(server));
  if (it == by_name_.end()) return;
  for (uint32_t d : servers_[it->second].docs) DropLearned(d);
}

void ToolIndex::Remove(const std::string& server) {
  auto it = by_name_.find(server);
  if (it == by_name_.end()) return;
  const uint32_t slot = it->second;
  by_name_.erase(it);
  Server& s = servers_[slot];
  for (uint32_t d : s.docs) DropLearned(d);
  for (uint32_t term : s.name_terms) --server_df_[term];
  for (uint32_t term : s.terms) {
    auto& postings = terms_[term].postings;
    postings.erase(std::remove_if(postings.begin(), postings.end(),
                                  [&](const Posting& p) {
                                    if (docs_[p.doc()].server != slot) return false;
                                    if (InText(CountsOf(p, term))) --text_df_[term];
                                    if (p.counts() == kOverflow) {
                                      overflow_.erase(OverflowKey(term, p.doc()));
                                    }
                                    return true;
                                  }),
                   postings.end());
    // A term no tool holds any more leaves the dictionary.
    if (postings.empty() && !learned_.contains(term)) FreeTerm(term);
  }
  for (uint32_t d : s.docs) {
    for (uint8_t f = 0; f < kFieldCount; ++f) length_sum_[f] -= docs_[d].length[f];
    norms_stale_ = true;
    docs_[d] = Doc{};
    docs_[d].server = kNoServer;
    free_docs_.push_back(d);
  }
  live_docs_ -= s.docs.size();
  s = Server{};
  free_servers_.push_back(slot);
}

void ToolIndex::Clear() {
  dict_.Clear();
  terms_.clear();
  tf_.clear();
  tf_ids_.clear();
  small_tf_ = {};
  overflow_.clear();
  docs_.clear();
  free_docs_.clear();
  servers_.clear();
  free_servers_.clear();
  by_name_.clear();
  server_df_.clear();
  text_df_.clear();
  learned_.clear();
  learned_terms_.clear();
  live_docs_ = 0;
  length_sum_ = {};
}

std::vector<ToolIndex::QueryTerm> ToolIndex::QueryTerms(std::string_view query) const {
  scratch_.clear();
  joined_.clear();
  analyzer_.Terms(query, &scratch_, &joined_);
  std::vector<QueryTerm> out;
  // A term already standing for an earlier group keeps it (at the higher
  // weight): a word's own term is never another word's relative.
  if (query_slot_.size() < terms_.size()) query_slot_.resize(terms_.size(), -1);
  const auto add = [&](std::string_view text, float weight, uint32_t group) {
    const uint32_t id = dict_.Find(text);
    if (id == TermDict::kNone) return;
    if (weight < 1.0f) {
      // A stand-in of little weight, or held by as many tools as "get" is,
      // would cost a walk of many tools for next to nothing.
      if (weight < weights_.min_standin_weight) return;
      if (Common(text_df_[id], weights_.standin_max_share)) return;
    }
    int32_t& slot = query_slot_[id];
    if (slot >= 0) {
      QueryTerm& q = out[static_cast<size_t>(slot)];
      if (q.group == group) q.weight = std::max(q.weight, weight);
      return;
    }
    slot = static_cast<int32_t>(out.size());
    out.push_back(QueryTerm{id, weight, 0.0f, 0.0f, group});
  };
  uint32_t groups = 0;
  std::vector<uint32_t> word_group(scratch_.size());
  std::vector<float> word_weight(scratch_.size(), 1.0f);
  for (size_t i = 0; i < scratch_.size(); ++i) {
    // A word said twice is one group.
    word_group[i] = groups;
    for (size_t j = 0; j < i; ++j) {
      if (scratch_[j] == scratch_[i]) word_group[i] = word_group[j];
    }
    if (word_group[i] == groups) ++groups;
  }
  // A word cut where its case turns: the whole word leads the group of its
  // parts, which stand in for it.
  for (const Analyzer::Joined& j : joined_) {
    const uint32_t g = word_group[j.first];
    for (size_t k = j.first; k < j.first + j.count; ++k) {
      word_group[k] = g;
      word_weight[k] = weights_.split_part;
    }
    add(j.whole, 1.0f, g);
  }
  for (size_t i = 0; i < scratch_.size(); ++i) add(scratch_[i], word_weight[i], word_group[i]);
  for (size_t i = 0; i < scratch_.size(); ++i) {
    if (weights_.synonym <= 0) break;
    auto syn = synonyms_.find(scratch_[i]);
    if (syn == synonyms_.end()) continue;
    for (const auto& s : syn->second) add(s, weights_.synonym, word_group[i]);
  }
  // Each word by its WordNet relatives; a phrase of two or three words in a
  // row ("get rid of") is a group of its own, and so are two words in a
  // row written as one ("log out": logout).
  std::string key;
  for (size_t i = 0; i < scratch_.size(); ++i) {
    key.clear();
    for (size_t n = 1; n <= 3 && i + n <= scratch_.size(); ++n) {
      if (n > 1) key.push_back(' ');
      key += scratch_[i + n - 1];
      const uint32_t group = n == 1 ? word_group[i] : groups++;
      wordnet::ForEachRelative(key, [&](std::string_view term, wordnet::Relation r, float share) {
        const float w = weights_.wordnet[static_cast<size_t>(r)] *
                        (weights_.sense_power > 0 ? std::pow(share, weights_.sense_power) : 1.0f);
        if (w > 0) add(term, w, group);
      });
      if (n == 2 && weights_.compound > 0) {
        add(scratch_[i] + scratch_[i + 1], weights_.compound, group);
      }
    }
  }
  for (const QueryTerm& q : out) query_slot_[q.id] = -1;
  return out;
}

void ToolIndex::Norms() const {
  // Per field, BM25F's length normalisation with the field's weight folded
  // in: weight / (1 - b + b * length / average length). Made again only
  // after the tools change.
  norms_.resize(docs_.size());
  std::array<float, kTextFields> flat{}, per_term{};
  for (uint8_t f = 0; f < kTextFields; ++f) {
    float average = live_docs_ ? static_cast<float>(length_sum_[f] / live_docs_) : 1.0f;
    if (average <= 0) average = 1.0f;
    flat[f] = 1.0f - weights_.b[f];
    per_term[f] = weights_.b[f] / average;
  }
  for (size_t d = 0; d < docs_.size(); ++d) {
    for (uint8_t f = 0; f < kTextFields; ++f) {
      norms_[d][f] = weights_.weight[f] / (flat[f] + per_term[f] * docs_[d].length[f]);
    }
  }
  norms_stale_ = false;
}

std::vector<float> ToolIndex::Weigh(std::vector<QueryTerm>& terms) const {
  const float n = static_cast<float>(live_docs_);
  const float servers = static_cast<float>(by_name_.size());
  uint32_t groups = 0;
  for (QueryTerm& q : terms) {
    // How rare the word is in tools' own texts (their server's name apart)
    // and what they learned.
    if (!learned_.empty()) {
      auto l = learned_.find(q.id);
      if (l != learned_.end()) q.learned = &l->second;
    }
    const float df =
        static_cast<float>(text_df_[q.id] + (q.learned ? q.learned->size() : size_t{0}));
    q.idf = std::log(1.0f + (n - df + 0.5f) / (df + 0.5f));
    // A server's name tells its tools from the other servers' tools: how
    // rare the word is among the servers' names, whatever their sizes; but
    // a word tool texts use a lot ("search", "memory") names a server less
    // surely than one they never use ("gitlab").
    const float sdf = static_cast<float>(server_df_[q.id]);
    q.server_idf =
        sdf > 0 ? std::min(q.idf, std::log(1.0f + (servers - sdf + 0.5f) / (sdf + 0.5f))) : 0.0f;
    groups = std::max(groups, q.group + 1);
  }
  // A stand-in counts at most as much as its group's own word would.
  std::vector<float> own(groups, std::numeric_limits<float>::max());
  for (const QueryTerm& q : terms) {
    if (q.weight >= 1.0f) own[q.group] = std::min(own[q.group], q.idf);
  }
  for (QueryTerm& q : terms) q.idf = std::min(q.idf, own[q.group]);
  return std::vector<float>(groups, 0.0f);
}

void ToolIndex::Score(std::vector<QueryTerm> terms, uint32_t only_slot, size_t prune_at) const {
  if (acc_.size() < docs_.size()) acc_.resize(docs_.size());
  if (norms_stale_ || norms_.size() != docs_.size()) Norms();
  std::vector<float> bound = Weigh(terms);
  // A term adds at most weight × (idf + the server's part) to a tool (the
  // saturated part is below 1), a group at most the most of its terms.
  const auto most = [&](const QueryTerm& q) {
    return q.weight *
           (q.idf * (q.learned ? 1.0f + weights_.learned : 1.0f) + q.server_idf * weights_.server);
  };
  for (const QueryTerm& q : terms) bound[q.group] = std::max(bound[q.group], most(q));
  // Groups by their bound, most first; a group's terms together, best first.
  std::sort(terms.begin(), terms.end(), [&](const QueryTerm& a, const QueryTerm& b) {
    if (bound[a.group] != bound[b.group]) return bound[a.group] > bound[b.group];
    if (a.group != b.group) return a.group < b.group;
    return most(a) > most(b);
  });
  float rest = 0;  // the most the groups not yet walked can add
  for (float b : bound) rest += b;
  float best = 0;
  bool only_known = false;
  const float k1 = weights_.k1;
  // BM25F: the counts of the tool's text fields weighted and normalised
  // each by its own length, summed, saturated once, times the term's weight
  // and idf; plus the server's part when the word is in its name.
  const auto share_of = [&](const Posting& p, uint32_t term, float term_weight,
                            float server_weight) {
    const auto& norm = norms_[p.doc()];
    const Counts& counts = CountsOf(p, term);
    float tf = 0;
    for (uint8_t f = 0; f < kTextFields; ++f) tf += static_cast<float>(counts[f]) * norm[f];
    float share = tf > 0 ? term_weight * tf / (k1 + tf) : 0.0f;
    if (counts[kServer] > 0) share += server_weight;
    return share;
  };
  for (size_t i = 0; i < terms.size();) {
    const uint32_t c = terms[i].group;
    size_t end = i;
    while (end < terms.size() && terms[end].group == c) ++end;
    rest -= bound[c];
    for (; i < end; ++i) {
      const QueryTerm& q = terms[i];
      const float term_weight = q.weight * q.idf;
      const float server_weight = q.weight * q.server_idf * weights_.server;
      // Max-score pruning: once this term and the groups left cannot lift
      // a tool not yet scored above the prune_at-th best score so far, they
      // only add to tools already scored (the ranking is the same, with far
      // less work). A group's terms come best first, so the check holds for
      // the rest of them too.
      if (!only_known && prune_at > 0) {
        const float left = rest + most(q);
        if (left < best && touched_.size() >= prune_at && left < KthScore(prune_at)) {
          only_known = true;
        }
      }
      const auto& postings = terms_[q.id].postings;
      if (end - i == 1 && group_touched_.empty() && learned_group_.empty()) {
        // A group of one term (the common case): straight into the scores.
        for (const Posting& p : postings) {
          const uint32_t doc = p.doc();
          float& score = acc_[doc].score;
          if (only_known && score == 0.0f) continue;
          if (only_slot != kNoServer && docs_[doc].server != only_slot) continue;
          if (score == 0.0f) touched_.push_back(doc);
          score += share_of(p, q.id, term_weight, server_weight);
          best = std::max(best, score);
        }
        if (q.learned) ScoreLearned(*q.learned, term_weight, only_slot, only_known, false, &best);
        continue;
      }
      // A tool scores for a group by the best of its terms there. A
      // stand-in common in tool texts only adds to tools found already.
      const bool known =
          only_known || (q.weight < 1.0f && Common(text_df_[q.id], weights_.recruit_max_share));
      for (const Posting& p : postings) {
        const uint32_t doc = p.doc();
        Acc& a = acc_[doc];
        if (known && a.score == 0.0f && a.group == 0.0f) continue;
        if (only_slot != kNoServer && docs_[doc].server != only_slot) continue;
        if (a.group == 0.0f) group_touched_.push_back(doc);
        a.group = std::max(a.group, share_of(p, q.id, term_weight, server_weight));
      }
      // Learned words count apart from the text: the best of the group's.
      if (q.learned) ScoreLearned(*q.learned, term_weight, only_slot, known, true, &best);
    }
    EndGroup(&best);
  }
}

void ToolIndex::ScoreLearned(const std::vector<LearnedPosting>& postings, float term_weight,
                             uint32_t only_slot, bool only_known, bool in_group,
                             float* best) const {
  for (const LearnedPosting& p : postings) {
    Acc& a = acc_[p.doc];
    if (only_known && a.score == 0.0f && a.group == 0.0f) continue;
    if (only_slot != kNoServer && docs_[p.doc].server != only_slot) continue;
    // Saturating in the strength of the requests that hold the word.
    const float share =
        term_weight * weights_.learned * p.strength / (weights_.learned_k + p.strength);
    if (in_group) {
      float& v = learned_group_[p.doc];
      v = std::max(v, share);
      continue;
    }
    if (a.score == 0.0f) touched_.push_back(p.doc);
    a.score += share;
    *best = std::max(*best, a.score);
  }
}

void ToolIndex::EndGroup(float* best) const {
  for (uint32_t d : group_touched_) {
    Acc& a = acc_[d];
    if (a.score == 0.0f) touched_.push_back(d);
    a.score += a.group;
    a.group = 0.0f;
    *best = std::max(*best, a.score);
  }
  group_touched_.clear();
  for (const auto& [d, v] : learned_group_) {
    Acc& a = acc_[d];
    if (a.score == 0.0f) touched_.push_back(d);
    a.score += v;
    *best = std::max(*best, a.score);
  }
  learned_group_.clear();
}

bool ToolIndex::Common(uint32_t df, float share) const {
  return df > weights_.common_at_least && df > share * static_cast<float>(live_docs_);
}

float ToolIndex::KthScore(size_t k) const {
  kth_.clear();
  for (uint32_t d : touched_) kth_.push_back(acc_[d].score);
  std::nth_element(kth_.begin(), kth_.begin() + static_cast<std::ptrdiff_t>(k - 1), kth_.end(),
                   std::greater<float>());
  return kth_[k - 1];
}

bool ToolIndex::Better(uint32_t a, uint32_t b) const {
  if (acc_[a].score != acc_[b].score) return acc_[a].score > acc_[b].score;
  const Doc& da = docs_[a];
  const Doc& db = docs_[b];
  if (da.server != db.server) return servers_[da.server].name < servers_[db.server].name;
  return ToolOf(da).name < ToolOf(db).name;
}

std::vector<Hit> ToolIndex::Select(size_t limit, const Keep& keep) const {
  std::vector<Hit> out;
  const auto better = [this](uint32_t a, uint32_t b) { return Better(a, b); };
  // Order only as many of the candidates as the answer needs, more when the
  // policy turns some away.
  size_t ordered = 0;
  size_t want = limit + limit / 2 + 4;
  while (out.size() < limit && ordered < touched_.size()) {
    const size_t k = std::min(touched_.size(), ordered + want);
    std::partial_sort(touched_.begin() + static_cast<std::ptrdiff_t>(ordered),
                      touched_.begin() + static_cast<std::ptrdiff_t>(k), touched_.end(), better);
    for (; ordered < k && out.size() < limit; ++ordered) {
      const Doc& doc = docs_[touched_[ordered]];
      const mcp::Tool tool = ToolOf(doc);
      const std::string_view server = servers_[doc.server].name;
      if (keep && !keep(server, tool)) continue;
      out.push_back(Hit{server, tool, acc_[touched_[ordered]].score});
    }
    want *= 4;
  }
  return out;
}

std::vector<Hit> ToolIndex::Search(std::string_view query, std::string_view only_server,
                                   size_t limit, const Keep& keep) const {
  uint32_t only_slot = kNoServer;
  if (!only_server.empty()) {
    auto it = by_name_.find(std::string(only_server));
    if (it == by_name_.end()) return {};
    only_slot = it->second;
  }
  // Pruning keeps the best `limit` exact; a filter may turn some of them
  // away, so with one every candidate is scored.
  Score(QueryTerms(query), only_slot, keep ? 0 : limit);
  std::vector<Hit> out = limit > 0 ? Select(limit, keep) : std::vector<Hit>();
  for (uint32_t d : touched_) acc_[d].score = 0.0f;
  touched_.clear();
  return out;
}

size_t ToolIndex::MemoryBytes() const {
  size_t bytes =
      terms_.capacity() * sizeof(Term) + docs_.capacity() * sizeof(Doc) +
      servers_.capacity() * sizeof(Server) + acc_.capacity() * sizeof(Acc) +
      norms_.capacity() * sizeof(norms_[0]) +
      (group_touched_.capacity() + server_df_.capacity() + text_df_.capacity()) * sizeof(uint32_t) +
      query_slot_.capacity() * sizeof(int32_t) + touched_.capacity() * sizeof(uint32_t) +
      (free_docs_.capacity() + free_servers_.capacity()) * sizeof(uint32_t) + dict_.MemoryBytes() +
      tf_.capacity() * sizeof(Counts);
  for (const Term& t : terms_) bytes += t.postings.capacity() * sizeof(Posting);
  // The hash maps: a node per entry (the pair and a link) and the bucket array.
  bytes += tf_ids_.size() * (2 * sizeof(uint32_t) + sizeof(void*)) +
           tf_ids_.bucket_count() * sizeof(void*) +
           overflow_.size() * (sizeof(uint64_t) + sizeof(Counts) + sizeof(void*)) +
           overflow_.bucket_count() * sizeof(void*);
  for (const auto& [term, list] : learned_) {
    bytes += list.capacity() * sizeof(LearnedPosting) + 4 * sizeof(void*);
  }
  for (const auto& [doc, list] : learned_terms_) {
    bytes += list.capacity() * sizeof(uint32_t) + 4 * sizeof(void*);
  }
  for (const Server& s : servers_) {
    bytes += (s.docs.capacity() + s.terms.capacity() + s.name_terms.capacity()) * sizeof(uint32_t) +
             s.name.capacity();
  }
  return bytes;
}

}  // namespace mcpgw::search
