// Analyzer: text to search terms, the same way for a tool's text and for a
// model's query (BEHAVIOR.md §10). Words are maximal runs of letters, digits
// and non-ASCII bytes; an identifier is split where its case turns
// (createIssue, HTTPServer) as well as at '_', '-', '.', '/' and every other
// ASCII mark, so create_issue, createIssue and create-issue all give
// "create" and "issue". Words are case-folded (ASCII), common English
// function words dropped, and the rest stemmed by Snowball's English
// stemmer (libstemmer), so "issues", "issue" and "issued" meet.
//
// An Analyzer holds a stemmer, which is not safe to share: one per thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

struct sb_stemmer;

namespace mcpgw::search {

class Analyzer {
 public:
  Analyzer();
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  // A word cut where its case turns ("MongoDB": mongo, db): which of the
  // terms it gave, and the term of the whole word ("mongodb").
  struct Joined {
    size_t first, count;  // out[first, first + count)
    std::string whole;
  };

  // Appends the terms of `text` to `out`, in the order they occur; with
  // `joined`, each word that was cut where its case turns (a query's
  // "GitHub" or "MongoDB" names one thing).
  void Terms(std::string_view text, std::vector<std::string>* out,
             std::vector<Joined>* joined = nullptr);
  // The stem of one lower-case word.
  std::string Stem(std::string_view word);

  // Words no term is made of ("the", "a", "to", "please", ...).
  static bool StopWord(std::string_view lower_word);

 private:
  void Word(std::string_view word, std::vector<std::string>* out);

  sb_stemmer* stemmer_;
  std::string lower_;  // scratch
};

}  // namespace mcpgw::search
