// wordnet_gen: writes the WordNet relatives table of tool search
// (daemon/search/wordnet.h) from an installed WordNet 3.0 database, at build
// time. Nothing is downloaded and no WordNet file is copied: the table holds
// only, for each English word or short phrase (as the analyzer turns it into
// terms), the terms of the words WordNet relates to it in its common senses.
//
//   wordnet_gen DICT_DIR OUT.cc     (DICT_DIR: index.noun, data.noun, ... and
//                                    cntlist.rev, as Debian's wordnet-base has)
//   wordnet_gen --none OUT.cc       (an empty table: built without WordNet)
//
// Which senses: a word's senses come in WordNet in order of how often they
// were seen in its tagged corpus (cntlist.rev). The first sense is always
// taken; a later one only while it was seen at least kShare of the times
// the word was. Rare senses ("get" as "to beget") stay out.
//
// Which relatives, by relation (wordnet.h's Relation):
//   synonym  the other words of the sense's synset; an adjective's similar
//            ones (&) too
//   derived  the words WordNet derives from this very word (+: cite ->
//            citation, permit -> permission) and its pertainyms (\)
// Hypernyms (a more general term: forget -> ...) were tried and left out:
// they brought more wrong tools than right ones.
// A relative that is a phrase ("call back") is left out; a key may be a
// phrase of up to three words ("get rid of", "log out").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/search/analyzer.h"

namespace {

constexpr double kShare = 0.25;
constexpr size_t kMaxPhraseWords = 3;
constexpr size_t kMaxRelatives = 40;  // per key, the closest relations first

enum Relation : uint32_t { kSynonym = 0, kDerived = 1 };

struct Pointer {
  std::string symbol;
  uint32_t offset;
  char pos;
  uint32_t source, target;  // word numbers (1-based); 0: the whole synset
};

struct Synset {
  std::vector<std::string> words;  // lower case, '_' between a phrase's words
  std::vector<Pointer> pointers;
};

// (pos, offset) -> synset. Adjective satellites ('s') are filed under 'a'.
std::map<std::pair<char, uint32_t>, Synset> synsets;

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool License(const std::string& line) { return !line.empty() && line[0] == ' '; }

void ReadData(const std::string& dir, const char* file, char pos) {
  std::ifstream in(dir + "/" + file);
  if (!in) {
    std::fprintf(stderr, "wordnet_gen: cannot read %s/%s\n", dir.c_str(), file);
    std::exit(1);
  }
  std::string line;
  while (std::getline(in, line)) {
    if (License(line)) continue;
    std::istringstream s(line.substr(0, line.find(" | ")));
    uint32_t offset;
    std::string lex, type, count_hex;
    s >> offset >> lex >> type >> count_hex;
    Synset syn;
    const unsigned long words = std::stoul(count_hex, nullptr, 16);
    for (unsigned long i = 0; i < words; ++i) {
      std::string word, lex_id;
      s >> word >> lex_id;
      word = word.substr(0, word.find('('));  // adjective markers: "word(a)"
      syn.words.push_back(Lower(word));
    }
    size_t pointers = 0;
    s >> pointers;
    for (size_t i = 0; i < pointers; ++i) {
      Pointer p;
      std::string target_pos, st;
      s >> p.symbol >> p.offset >> target_pos >> st;
      p.pos = target_pos[0] == 's' ? 'a' : target_pos[0];
      p.source = static_cast<uint32_t>(std::stoul(st.substr(0, 2), nullptr, 16));
      p.target = static_cast<uint32_t>(std::stoul(st.substr(2, 2), nullptr, 16));
      syn.pointers.push_back(std::move(p));
    }
    synsets[{pos, offset}] = std::move(syn);
  }
}

// (lemma, pos, sense number) -> times tagged.
std::map<std::tuple<std::string, char, int>, int> ReadCounts(const std::string& dir) {
  std::map<std::tuple<std::string, char, int>, int> out;
  std::ifstream in(dir + "/cntlist.rev");
  std::string key;
  int sense, count;
  while (in >> key >> sense >> count) {
    const size_t pct = key.find('%');
    if (pct == std::string::npos || pct + 1 >= key.size()) continue;
    static const char kPos[] = " nvara";  // ss_type 1..5 (5: adjective satellite)
    const int t = key[pct + 1] - '0';
    if (t < 1 || t > 5) continue;
    out[{Lower(key.substr(0, pct)), kPos[t], sense}] = count;
  }
  return out;
}

struct Writer {
  mcpgw::search::Analyzer analyzer;
  // key terms (joined by ' ') -> relative term -> its closest relation, and
  // the largest share of the key's uses that a sense giving it has there
  struct Link {
    uint32_t relation;
    double share;
  };
  std::map<std::string, std::map<std::string, Link>> table;

  // The key of a lemma: its terms joined by ' ' ("get_rid_of" -> "get rid").
  std::string Key(const std::string& lemma, std::vector<std::string>* terms) {
    std::string spaced = lemma;
    std::replace(spaced.begin(), spaced.end(), '_', ' ');
    analyzer.Terms(spaced, terms);
    std::string out;
    for (const auto& t : *terms) out += (out.empty() ? "" : " ") + t;
    return out;
  }

  void Relate(const std::string& key, const std::vector<std::string>& key_terms,
              const std::string& word, uint32_t relation, double share) {
    if (word.find('_') != std::string::npos) return;  // a phrase
    std::vector<std::string> terms;
    analyzer.Terms(word, &terms);
    if (terms.size() != 1) return;
    const std::string& t = terms[0];
    if (std::find(key_terms.begin(), key_terms.end(), t) != key_terms.end()) return;
    auto [it, added] = table[key].try_emplace(t, Link{relation, share});
    if (added) return;
    Link& l = it->second;
    if (relation < l.relation) {
      l = Link{relation, share};
    } else if (relation == l.relation) {
      l.share = std::max(l.share, share);
    }
  }

  void Sense(const std::string& lemma, const std::string& key,
             const std::vector<std::string>& key_terms, char pos, const Synset& syn, double share) {
    uint32_t self = 0;  // this lemma's word number in the synset
    for (size_t i = 0; i < syn.words.size(); ++i) {
      if (syn.words[i] == lemma) {
        self = static_cast<uint32_t>(i + 1);
      } else {
        Relate(key, key_terms, syn.words[i], kSynonym, share);
      }
    }
    for (const Pointer& p : syn.pointers) {
      auto target = synsets.find({p.pos, p.offset});
      if (target == synsets.end()) continue;
      const auto& words = target->second.words;
      const bool lexical = p.source != 0;
      if (lexical && p.source != self) continue;  // another word's relation
      uint32_t relation;
      if (p.symbol == "+" || p.symbol == "\\") {
        relation = kDerived;
      } else if (p.symbol == "&" && pos == 'a') {
        relation = kSynonym;
      } else {
        continue;
      }
      if (lexical) {
        if (p.target >= 1 && p.target <= words.size()) {
          Relate(key, key_terms, words[p.target - 1], relation, share);
        }
      } else {
        for (const auto& w : words) Relate(key, key_terms, w, relation, share);
      }
    }
  }
};

void ReadIndex(const std::string& dir, const char* file, char pos,
               const std::map<std::tuple<std::string, char, int>, int>& counts, Writer* w) {
  std::ifstream in(dir + "/" + file);
  std::string line;
  while (std::getline(in, line)) {
    if (License(line)) continue;
    std::istringstream s(line);
    std::string lemma, p;
    size_t synset_count, pointer_count;
    s >> lemma >> p >> synset_count >> pointer_count;
    for (size_t i = 0; i < pointer_count; ++i) s >> p;
    size_t sense_count, tagged;
    s >> sense_count >> tagged;
    std::vector<uint32_t> offsets(sense_count);
    for (auto& o : offsets) s >> o;
    if (static_cast<size_t>(std::count(lemma.begin(), lemma.end(), '_')) >= kMaxPhraseWords) {
      continue;
    }
    std::vector<std::string> key_terms;
    const std::string key = w->Key(lemma, &key_terms);
    if (key.empty()) continue;
    int total = 0;
    std::vector<int> seen(offsets.size(), 0);
    for (size_t i = 0; i < offsets.size(); ++i) {
      auto c = counts.find({lemma, pos, static_cast<int>(i + 1)});
      if (c != counts.end()) seen[i] = c->second;
      total += seen[i];
    }
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (i > 0 && (total == 0 || seen[i] < kShare * total)) continue;
      auto syn = synsets.find({pos, offsets[i]});
      // A word never seen in the tagged corpus: its first sense, as sure as
      // can be.
      const double share = total > 0 ? static_cast<double>(seen[i]) / total : 1.0;
      if (syn != synsets.end()) w->Sense(lemma, key, key_terms, pos, syn->second, share);
    }
  }
}

void Write(const std::string& path, const Writer& w) {
  // Every term once, in one text; keys in byte order.
  std::map<std::string, uint32_t> text_offset;
  for (const auto& [key, rels] : w.table) {
    text_offset.emplace(key, 0);
    for (const auto& r : rels) text_offset.emplace(r.first, 0);
  }
  std::string text;
  for (auto& [t, off] : text_offset) {
    if (text.size() >= (1u << 24)) {
      std::fprintf(stderr, "wordnet_gen: the table's text outgrew 16 MiB\n");
      std::exit(1);
    }
    off = static_cast<uint32_t>(text.size());
    text += t;
    text.push_back('\0');
  }
  std::ofstream out(path);
  out << (w.table.empty()
              ? "// Generated by wordnet_gen: empty, built without WordNet. Do not edit.\n"
              : "// Generated by wordnet_gen from WordNet 3.0 (see wordnet_gen.cc). Do "
                "not edit.\n")
      << "#include \"daemon/search/wordnet.h\"\n\n"
         // kText is one literal, longer than the 65536 bytes C++ asks every
         // compiler to take; clang warns of it under -Wpedantic (all take it).
         "#if defined(__clang__)\n"
         "#pragma clang diagnostic ignored \"-Woverlength-strings\"\n"
         "#endif\n\n"
         "namespace mcpgw::search::wordnet_table {\n\n";
  out << "extern const char kText[] =\n";
  out << "    \"";
  for (char c : text) {
    if (c == '\0') {
      out << "\\0\"\n    \"";
    } else {
      out << c;
    }
  }
  out << "\";\n";
  out << "extern const uint32_t kKeyCount = " << w.table.size() << ";\n";
  // kKeys[i]: key i's text offset; kFirst[i]..kFirst[i+1]: its relatives,
  // each (text offset << 8 | share in 63rds << 2 | relation).
  out << "extern const uint32_t kKeys[] = {";
  size_t n = 0;
  for (const auto& [key, rels] : w.table) {
    out << (n++ % 12 ? " " : "\n    ") << text_offset.at(key) << ",";
  }
  out << "0};\n";
  std::vector<uint32_t> relatives;
  out << "extern const uint32_t kFirst[] = {";
  n = 0;
  for (const auto& [key, rels] : w.table) {
    out << (n++ % 12 ? " " : "\n    ") << relatives.size() << ",";
    // Closest relation first, then the commonest sense, then by text.
    std::vector<std::tuple<uint32_t, uint32_t, std::string>> sorted;
    for (const auto& [t, link] : rels) {
      const auto share = static_cast<uint32_t>(std::lround(std::clamp(link.share, 0.0, 1.0) * 63));
      sorted.emplace_back(link.relation, 63 - share, t);
    }
    std::sort(sorted.begin(), sorted.end());
    if (sorted.size() > kMaxRelatives) sorted.resize(kMaxRelatives);
    for (const auto& [rel, unshare, t] : sorted) {
      relatives.push_back(text_offset.at(t) << 8 | (63 - unshare) << 2 | rel);
    }
  }
  out << " " << relatives.size() << "};\n";
  out << "extern const uint32_t kRelatives[] = {";
  n = 0;
  for (uint32_t r : relatives) out << (n++ % 12 ? " " : "\n    ") << r << ",";
  out << "0};\n\n}  // namespace mcpgw::search::wordnet_table\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: wordnet_gen DICT_DIR|--none OUT.cc\n");
    return 2;
  }
  const std::string dir = argv[1];
  Writer w;
  if (dir != "--none") {
    ReadData(dir, "data.noun", 'n');
    ReadData(dir, "data.verb", 'v');
    ReadData(dir, "data.adj", 'a');
    ReadData(dir, "data.adv", 'r');
    const auto counts = ReadCounts(dir);
    ReadIndex(dir, "index.noun", 'n', counts, &w);
    ReadIndex(dir, "index.verb", 'v', counts, &w);
    ReadIndex(dir, "index.adj", 'a', counts, &w);
    ReadIndex(dir, "index.adv", 'r', counts, &w);
  }
  Write(argv[2], w);
  return 0;
}
