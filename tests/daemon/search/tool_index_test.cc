// The analyzer and the BM25F index behind get_dynamic_tools' query.
#include "daemon/search/tool_index.h"

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "daemon/search/analyzer.h"

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

}  // namespace
}  // namespace mcpgw::search
