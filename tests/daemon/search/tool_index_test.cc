// The analyzer and the BM25F index behind get_dynamic_tools' query.
#include "daemon/search/tool_index.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "daemon/search/analyzer.h"
#include "daemon/search/wordnet.h"

namespace mcpgw::search {
namespace {

std::vector<std::string> Terms(std::string_view text) {
  Analyzer a;
  std::vector<std::string> out;
  a.Terms(text, &out);
  return out;
}

using Words = std::vector<std::string>;

TEST_CASE("identifiers split into words however they are written", "[search]") {
  CHECK(Terms("create_issue") == Words{"creat", "issu"});
  CHECK(Terms("createIssue") == Words{"creat", "issu"});
  CHECK(Terms("create-issue") == Words{"creat", "issu"});
  CHECK(Terms("CreateIssue") == Words{"creat", "issu"});
  CHECK(Terms("getHTTPResponse") == Words{"get", "http", "respons"});
  CHECK(Terms("API-get-users") == Words{"api", "get", "user"});
  CHECK(Terms("s3_bucket v2") == Words{"s3", "bucket", "v2"});
}

TEST_CASE("a word cut where its case turns is also known whole", "[search]") {
  Analyzer a;
  std::vector<std::string> out;
  std::vector<Analyzer::Joined> joined;
  a.Terms("MongoDB create_issue GitHub", &out, &joined);
  CHECK(out == Words{"mongo", "db", "creat", "issu", "git", "hub"});
  REQUIRE(joined.size() == 2);
  CHECK(joined[0].first == 0);
  CHECK(joined[0].count == 2);
  CHECK(joined[0].whole == "mongodb");
  CHECK(joined[1].first == 4);
  CHECK(joined[1].whole == "github");
}

TEST_CASE("words are case-folded, stemmed, and function words dropped", "[search]") {
  CHECK(Terms("Issues ISSUED issue") == Words{"issu", "issu", "issu"});
  CHECK(Terms("Please list all of the files in my folder") ==
        Words{"list", "all", "file", "folder"});
  // Non-ASCII text stays whole; control bytes and marks separate words.
  CHECK(Terms("café\x01menü") == Words{"café", "menü"});
  CHECK(Terms("").empty());
  CHECK(Terms(" ,.;-_ ").empty());
  // A very long word (a hash) is kept as it is, not stemmed.
  const std::string hash(100, 'a');
  CHECK(Terms(hash) == Words{hash});
}

std::shared_ptr<const mcp::ToolList> List(
    const std::vector<std::pair<std::string, std::string>>& tools, std::string schema = "{}") {
  auto list = std::make_shared<mcp::ToolList>();
  for (const auto& [name, description] : tools) list->Add(name, description, schema, false);
  list->SortByName();
  list->Shrink();
  return list;
}

Words Names(const std::vector<Hit>& hits) {
  Words out;
  for (const auto& h : hits) out.push_back(std::string(h.server) + "/" + std::string(h.tool.name));
  return out;
}

// The best hit, "" when none.
std::string First(const std::vector<Hit>& hits) {
  return hits.empty() ? "" : std::string(hits[0].server) + "/" + std::string(hits[0].tool.name);
}

TEST_CASE("a word in a tool's name counts more than the same word in a description", "[search]") {
  ToolIndex index;
  index.Set("s", List({{"delete_file", "Removes a path"},
                       {"move_file", "Moves a file; the old file is deleted afterwards"}}));
  CHECK(Names(index.Search("delete a file", "", 2)) == Words{"s/delete_file", "s/move_file"});
}

TEST_CASE("a query word finds the words tool texts use for the same thing", "[search]") {
  ToolIndex index;
  index.Set("s", List({{"fetch_page", "Downloads a web page"}, {"erase_row", "Erases a row"}}));
  CHECK(Names(index.Search("get the page", "", 5)).front() == "s/fetch_page");
  CHECK(Names(index.Search("remove a row", "", 5)) == Words{"s/erase_row"});
}

TEST_CASE("arguments and the server's name are searched too", "[search]") {
  ToolIndex index;
  index.Set("slack", List({{"post", "Posts text"}},
                          R"({"type":"object","properties":{"channel_id":{"type":"string",)"
                          R"("description":"The channel to post in"}}})"));
  index.Set("notes", List({{"post", "Posts text"}}));
  CHECK(Names(index.Search("post in the channel", "", 5)).front() == "slack/post");
  CHECK(Names(index.Search("slack", "", 5)) == Words{"slack/post"});
}

TEST_CASE("a server's tools can be replaced and removed, and every trace goes", "[search]") {
  ToolIndex index;
  index.Set("a", List({{"alpha_tool", "First"}, {"beta_tool", "Second"}}));
  index.Set("b", List({{"beta_tool", "Second"}}));
  CHECK(index.tools() == 3);
  CHECK(index.servers() == 2);
  const size_t with_both = index.MemoryBytes();
  index.Set("a", List({{"gamma_tool", "Third"}}));
  CHECK(index.tools() == 2);
  CHECK(Names(index.Search("alpha", "", 5)).empty());
  CHECK(Names(index.Search("gamma", "", 5)) == Words{"a/gamma_tool"});
  CHECK(Names(index.Search("beta", "", 5)) == Words{"b/beta_tool"});
  index.Remove("b");
  index.Set("a", nullptr);
  CHECK(index.tools() == 0);
  CHECK(index.servers() == 0);
  CHECK(Names(index.Search("beta gamma", "", 5)).empty());
  // Adding and removing many times reuses the freed room.
  for (int i = 0; i < 200; ++i) {
    index.Set("a", List({{"alpha_tool", "First"}, {"beta_tool", "Second"}}));
    index.Set("b", List({{"beta_tool", "Second"}}));
    index.Remove("a");
    index.Remove("b");
  }
  index.Set("a", List({{"alpha_tool", "First"}, {"beta_tool", "Second"}}));
  index.Set("b", List({{"beta_tool", "Second"}}));
  CHECK(index.MemoryBytes() <= with_both * 2);
  CHECK(Names(index.Search("beta", "", 5)) == Words{"a/beta_tool", "b/beta_tool"});
}

TEST_CASE("limit, one server, and the keep filter", "[search]") {
  ToolIndex index;
  std::vector<std::pair<std::string, std::string>> tools;
  for (int i = 0; i < 30; ++i) tools.emplace_back("tool" + std::to_string(100 + i), "common word");
  index.Set("x", List(tools));
  index.Set("y", List({{"other", "common word"}}));
  CHECK(index.Search("common", "", 7).size() == 7);
  CHECK(index.Search("common", "", 0).empty());
  CHECK(Names(index.Search("common", "y", 10)) == Words{"y/other"});
  CHECK(index.Search("common", "unknown", 10).empty());
  // The filter turns away most candidates: the answer still fills up from the rest.
  const auto kept = index.Search("common", "", 5, [](std::string_view, const mcp::Tool& t) {
    return t.name.back() == '9' || t.name == "other";
  });
  CHECK(Names(kept) == Words{"x/tool109", "x/tool119", "x/tool129", "y/other"});
}

TEST_CASE("a product name written in capitals finds its server, not its parts", "[search]") {
  ToolIndex index;
  index.Set("mongodb", List({{"list-collections", "List all collections for a given database"},
                             {"count", "Counts the documents, as db.collection.count() does"}}));
  index.Set("other", List({{"list_collections", "List the collections of a Postgres database"}}));
  // "MongoDB" is the server's name as one word: the whole word names the
  // server, and its parts ("db" of db.collection.count()) count for less.
  CHECK(First(index.Search("list the collections in the MongoDB database", "", 3)) ==
        "mongodb/list-collections");
}

TEST_CASE("a server named in the query counts however many tools it has", "[search]") {
  ToolIndex index;
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 60; ++i)
    many.emplace_back("tool" + std::to_string(i), "Does thing " + std::to_string(i));
  many.emplace_back("transfer_issue", "Moves an issue to another team");
  index.Set("linear", List(many));
  index.Set("files", List({{"move_file", "Moves a file to another folder"}}));
  CHECK(First(index.Search("move ENG-300 to another team in Linear", "", 3)) ==
        "linear/transfer_issue");
}

TEST_CASE("a tool's title counts as its name", "[search]") {
  auto list = std::make_shared<mcp::ToolList>();
  list->OpenTool("jira_get", "Read any data. Returns TOON format.").append("{}");
  mcp::ToolExtras extras;
  extras.title = "Issue Lookup";
  list->CloseTool(false, mcp::TaskSupport::kForbidden, extras);
  list->Add("jira_post", "Create resources. Returns TOON format.", "{}", false);
  list->SortByName();
  list->Shrink();
  ToolIndex index;
  index.Set("jira", list);
  CHECK(First(index.Search("issue lookup", "", 2)) == "jira/jira_get");
}

TEST_CASE("a word and its stand-ins count once per tool", "[search]") {
  // "remove", "erase" and "drop" stand in for "delete": a tool holding all
  // three counts by the best of them, below one holding "delete" itself.
  ToolIndex index;
  index.Set("s", List({{"a_row", "Removes the row, erases it and drops it"},
                       {"z_row", "Deletes the row"}}));
  CHECK(Names(index.Search("delete", "", 2)) == Words{"s/z_row", "s/a_row"});
}

// A build without WordNet (-DMCPGW_WORDNET=OFF) has an empty table: these
// tests are then hidden ("[.]") rather than run to pass without checking.
#ifdef MCPGW_WITHOUT_WORDNET
#define kWordNetTags "[.][search][wordnet]"
TEST_CASE("WordNet: a build without WordNet has an empty table", "[search]") {
  CHECK_FALSE(wordnet::Available());
  CHECK(wordnet::Find("total") < 0);
}
#else
#define kWordNetTags "[search][wordnet]"
#endif

TEST_CASE("WordNet: a paraphrase finds its tool through the word's relatives", kWordNetTags) {
  REQUIRE(wordnet::Available());
  ToolIndex index;
  index.Set("fs", List({{"list_allowed_directories",
                         "Returns the list of directories that this server is allowed to access"},
                        {"create_directory", "Creates a new directory"},
                        {"move_file", "Moves or renames a file"}}));
  index.Set("math", List({{"get-sum", "Returns the sum of two numbers"},
                          {"get-env", "Returns the environment variables"}}));
  index.Set("rows", List({{"remove_row", "Removes a row from the table"},
                          {"insert_row", "Inserts a row into the table"}}));
  // permitted: allow (a synonym); total: sum; "get rid of" (a phrase): remove.
  CHECK(First(index.Search("which folders am I permitted to touch", "", 3)) ==
        "fs/list_allowed_directories");
  CHECK(First(index.Search("total these numbers up", "", 3)) == "math/get-sum");
  CHECK(First(index.Search("get rid of that row", "", 3)) == "rows/remove_row");
  // Without the relatives, none of them is found first.
  RankWeights plain;
  plain.wordnet = {0.0f, 0.0f};
  ToolIndex without(plain);
  without.Set("fs", List({{"list_allowed_directories",
                           "Returns the list of directories that this server is allowed to access"},
                          {"create_directory", "Creates a new directory"},
                          {"move_file", "Moves or renames a file"}}));
  without.Set("math", List({{"get-sum", "Returns the sum of two numbers"},
                            {"get-env", "Returns the environment variables"}}));
  CHECK(First(index.Search("total it up", "", 3)) == "math/get-sum");
  CHECK(First(without.Search("total it up", "", 3)).empty());
}

TEST_CASE("WordNet: the table holds common senses only, and phrases", kWordNetTags) {
  REQUIRE(wordnet::Available());
  const auto relatives = [](std::string_view key) {
    Words out;
    wordnet::ForEachRelative(key, [&](std::string_view t, wordnet::Relation, float share) {
      CHECK(share >= 0.0f);
      CHECK(share <= 1.0f);
      out.emplace_back(t);
    });
    return out;
  };
  const auto holds = [](const Words& w, const char* t) {
    return std::find(w.begin(), w.end(), t) != w.end();
  };
  CHECK(holds(relatives("total"), "sum"));
  CHECK(holds(relatives("permit"), "allow"));
  CHECK(holds(relatives("cite"), "citat"));     // derived: citation
  CHECK(holds(relatives("get rid"), "remov"));  // "get rid of", as the analyzer has it
  CHECK(relatives("zzzz").empty());
  CHECK(relatives("").empty());
}

// Tools whose counts of "widget" in the name, description and arguments
// make more combinations than the index keeps in its table: the ones past
// it are kept apart, and the scores are the same whichever tools they are.
TEST_CASE("counts past the index's table of combinations score as the others do", "[search]") {
  std::vector<std::pair<std::string, std::shared_ptr<const mcp::ToolList>>> servers;
  for (int s = 0; s < 12; ++s) {
    std::vector<std::pair<std::string, std::string>> tools;
    std::vector<std::string> schemas;
    auto list = std::make_shared<mcp::ToolList>();
    for (int t = 0; t < 100; ++t) {
      const int n = s * 100 + t;  // 1200 combinations of (description, arguments)
      std::string description = "Handles";
      for (int i = 0; i < n % 40 + 1; ++i) description += " widget";
      std::string schema = "{\"type\":\"object\",\"properties\":{";
      for (int i = 0; i < n / 40 + 1; ++i) {
        if (i > 0) schema += ',';
        schema += "\"p" + std::to_string(i) + "\":{\"description\":\"a widget\"}";
      }
      schema += "}}";
      list->Add("tool" + std::to_string(n), description, schema, false);
    }
    list->SortByName();
    list->Shrink();
    servers.emplace_back("srv" + std::to_string(s), std::move(list));
  }
  ToolIndex forward, backward;
  for (const auto& [name, list] : servers) forward.Set(name, list);
  for (auto it = servers.rbegin(); it != servers.rend(); ++it) backward.Set(it->first, it->second);
  const auto scores = [](const std::vector<Hit>& hits) {
    std::vector<std::pair<std::string, float>> out;
    for (const auto& h : hits) {
      out.emplace_back(std::string(h.server) + "/" + std::string(h.tool.name), h.score);
    }
    return out;
  };
  const auto a = forward.Search("widget", "", 1200);
  CHECK(a.size() == 1200);
  CHECK(scores(a) == scores(backward.Search("widget", "", 1200)));
  // Removing servers takes their postings out, kept apart or not.
  for (int s = 0; s < 12; s += 2) {
    forward.Remove("srv" + std::to_string(s));
    backward.Remove("srv" + std::to_string(s));
  }
  CHECK(forward.tools() == 600);
  CHECK(scores(forward.Search("widget", "", 1200)) == scores(backward.Search("widget", "", 1200)));
}

}  // namespace
}  // namespace mcpgw::search
