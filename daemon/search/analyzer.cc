#include "daemon/search/analyzer.h"

#include <libstemmer.h>

#include <algorithm>
#include <array>

namespace mcpgw::search {
namespace {

// A word longer than this is no word a model would ask for (a hash, a blob of
// base64): it is kept whole but not stemmed.
constexpr size_t kMaxStemmedBytes = 64;

bool Upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
bool Lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
bool Digit(unsigned char c) { return c >= '0' && c <= '9'; }
// Part of a word: ASCII letters and digits, and every byte of a non-ASCII
// UTF-8 character (so "café" or "日本" stay whole).
bool WordByte(unsigned char c) { return Upper(c) || Lower(c) || Digit(c) || c >= 0x80; }

// Function words that carry no meaning for finding a tool, sorted for binary
// search. Kept short on purpose: a word like "all", "new" or "not" can tell
// tools apart.
constexpr std::array<std::string_view, 58> kStopWords = {
    "a",     "about", "an",    "and",   "are",   "as",     "at",    "be",   "been", "but",
    "by",    "can",   "could", "do",    "does",  "for",    "from",  "had",  "has",  "have",
    "how",   "i",     "if",    "in",    "into",  "is",     "it",    "its",  "let",  "me",
    "my",    "of",    "on",    "or",    "our",   "please", "so",    "some", "that", "the",
    "their", "them",  "then",  "there", "these", "this",   "those", "to",   "us",   "was",
    "we",    "what",  "which", "will",  "with",  "would",  "you",   "your"};

}  // namespace

Analyzer::Analyzer() : stemmer_(sb_stemmer_new("english", "UTF_8")) {}

Analyzer::~Analyzer() { sb_stemmer_delete(stemmer_); }

bool Analyzer::StopWord(std::string_view lower_word) {
  return std::binary_search(kStopWords.begin(), kStopWords.end(), lower_word);
}

std::string Analyzer::Stem(std::string_view word) {
  if (stemmer_ == nullptr || word.size() > kMaxStemmedBytes) return std::string(word);
  const sb_symbol* stem = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(word.data()),
                                          static_cast<int>(word.size()));
  if (stem == nullptr) return std::string(word);  // out of memory: the word as it is
  return std::string(reinterpret_cast<const char*>(stem),
                     static_cast<size_t>(sb_stemmer_length(stemmer_)));
}

void Analyzer::Word(std::string_view word, std::vector<std::string>* out) {
  lower_.assign(word);
  for (char& c : lower_) {
    if (Upper(static_cast<unsigned char>(c))) c = static_cast<char>(c - 'A' + 'a');
  }
  if (StopWord(lower_)) return;
  out->push_back(Stem(lower_));
}

void Analyzer::Terms(std::string_view text, std::vector<std::string>* out,
                     std::vector<Joined>* joined) {
  const auto at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < text.size()) {
    if (!WordByte(at(i))) {
      ++i;
      continue;
    }
    // One run of word bytes, cut where the case turns: "getHTTPResponse" is
    // get | HTTP | Response.
    size_t start = i;
    const size_t run = i;
    const size_t first = out->size();
    bool cut = false;
    for (++i; i < text.size() && WordByte(at(i)); ++i) {
      const bool turn =
          (Lower(at(i - 1)) && Upper(at(i))) ||
          (Upper(at(i - 1)) && Upper(at(i)) && i + 1 < text.size() && Lower(at(i + 1)));
      if (turn) {
        Word(text.substr(start, i - start), out);
        start = i;
        cut = true;
      }
    }
    Word(text.substr(start, i - start), out);
    if (joined != nullptr && cut && out->size() - first >= 2) {
      std::vector<std::string> whole;
      Word(text.substr(run, i - run), &whole);
      if (!whole.empty()) joined->push_back(Joined{first, out->size() - first, whole[0]});
    }
  }
}

}  // namespace mcpgw::search
