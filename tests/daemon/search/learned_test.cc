// Learned words: the store of the queries that led to each tool, its file,
// and what the index does with them.
#include "daemon/search/learned.h"

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "daemon/search/tool_index.h"

namespace mcpgw::search {
namespace {

constexpr int64_t kDay = 86400;
constexpr int64_t kNow = 1796601600;

std::vector<std::string> Texts(const LearnedStore& store, std::string_view ns,
                               std::string_view tool) {
  std::vector<std::string> out;
  if (const LearnedTool* t = store.Find(ns, tool)) {
    for (const auto& q : t->queries) out.push_back(q.text);
  }
  return out;
}

std::shared_ptr<const mcp::ToolList> List(
    const std::vector<std::pair<std::string, std::string>>& tools) {
  auto list = std::make_shared<mcp::ToolList>();
  for (const auto& [name, description] : tools) list->Add(name, description, "{}", false);
  list->SortByName();
  list->Shrink();
  return list;
}

std::vector<std::string> Names(const std::vector<Hit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(std::string(h.server) + "/" + std::string(h.tool.name));
  return out;
}

using Words = std::vector<std::string>;

TEST_CASE("learned: a query is kept once, most recent first, with its uses", "[search][learn]") {
  LearnedStore store;
  CHECK(store.Learn("gh", "create_issue", "d1", "file a bug about the login page", kNow));
  CHECK(store.Learn("gh", "create_issue", "d1", "report a crash", kNow + 10));
  // The same terms in other words ("bugs", "Login", "pages") are the same
  // query: its count grows, the latest wording is kept and it moves first.
  CHECK(store.Learn("gh", "create_issue", "d1", "File bugs about the Login pages!", kNow + 20));
  CHECK(Texts(store, "gh", "create_issue") ==
        Words{"File bugs about the Login pages!", "report a crash"});
  CHECK(store.Find("gh", "create_issue")->queries.front().uses == 2);
  CHECK(store.queries() == 2);
  // Only function words: nothing to learn.
  CHECK_FALSE(store.Learn("gh", "create_issue", "d1", "please do it for me", kNow));
  CHECK_FALSE(store.Learn("", "create_issue", "d1", "a bug", kNow));
  CHECK_FALSE(store.Learn("g\xffh", "create_issue", "d1", "a bug", kNow));  // not UTF-8
  CHECK_FALSE(store.Learn("gh", "create_issue", "d1", "a \xc3 bug", kNow));
  CHECK(store.queries() == 2);
}

TEST_CASE("learned: a tool keeps its 16 most recent distinct queries", "[search][learn]") {
  LearnedStore store;
  for (int i = 0; i < 40; ++i) {
    store.Learn("s", "t", "d", "query number" + std::to_string(i), kNow + i);
  }
  const LearnedTool* t = store.Find("s", "t");
  REQUIRE(t);
  REQUIRE(t->queries.size() == kMaxQueriesPerTool);
  CHECK(t->queries.front().text == "query number39");
  CHECK(t->queries.back().text == "query number24");
  CHECK(store.queries() == kMaxQueriesPerTool);
}

TEST_CASE("learned: a long query is cut at a character's end", "[search][learn]") {
  LearnedStore store;
  std::string text = "open ";
  while (text.size() < kMaxLearnedQueryBytes + 50) text += "é";
  REQUIRE(store.Learn("s", "t", "d", text, kNow));
  const std::string& kept = store.Find("s", "t")->queries.front().text;
  CHECK(kept.size() <= kMaxLearnedQueryBytes);
  CHECK(kept.size() >= kMaxLearnedQueryBytes - 1);
  CHECK(text.compare(0, kept.size(), kept) == 0);
  CHECK((static_cast<unsigned char>(kept.back()) & 0xC0) != 0xC0);  // not a lead byte left dangling
}

TEST_CASE("learned: a changed definition forgets what the tool learned", "[search][learn]") {
  LearnedStore store;
  store.Learn("s", "t", "old", "first words", kNow);
  store.Learn("s", "t", "old", "second words", kNow);
  store.Learn("s", "t", "new", "third words", kNow);
  CHECK(Texts(store, "s", "t") == Words{"third words"});
  CHECK(store.queries() == 1);
  CHECK(store.Find("s", "t")->definition == "new");
}

TEST_CASE("learned: strength halves every 30 days and grows slowly with uses", "[search][learn]") {
  LearnedQuery q{"x", 1, 1, kNow};
  CHECK(Strength(q, kNow) == Approx(1.0));
  CHECK(Strength(q, kNow + 30 * kDay) == Approx(0.5));
  CHECK(Strength(q, kNow + 60 * kDay) == Approx(0.25));
  CHECK(Strength(q, kNow + 60 * kDay + kDay - 1) == Approx(0.25));  // whole days
  q.uses = 4;
  CHECK(Strength(q, kNow) == Approx(1 + std::log(4.0) / 2));
  q.uses = 1000000;
  CHECK(Strength(q, kNow) == Approx(kMaxStrength));  // a flood counts at most twice
  // A clock that went back counts as now.
  q.uses = 1;
  CHECK(Strength(q, kNow - kDay) == Approx(1.0));
}

TEST_CASE("learned: queries too faded to count are dropped", "[search][learn]") {
  LearnedStore store;
  store.Learn("s", "old", "d", "ancient words", kNow - 200 * kDay);
  store.Learn("s", "new", "d", "fresh words", kNow);
  CHECK(store.Expire(kNow));
  CHECK(store.Find("s", "old") == nullptr);
  CHECK(Texts(store, "s", "new") == Words{"fresh words"});
  CHECK_FALSE(store.Expire(kNow));
}

TEST_CASE("learned: forgetting one tool, a namespace, everything", "[search][learn]") {
  LearnedStore store;
  store.Learn("a", "x", "d", "alpha words", kNow);
  store.Learn("a", "x", "d", "more alpha", kNow);
  store.Learn("a", "y", "d", "why words", kNow);
  store.Learn("b", "z", "d", "zed words", kNow);
  CHECK(store.Forget("a", "nope") == 0);
  CHECK(store.Forget("nope") == 0);
  CHECK(store.Forget("a", "x") == 2);
  CHECK(store.Find("a", "x") == nullptr);
  CHECK(store.Find("a", "y") != nullptr);
  CHECK(store.Forget("a") == 1);
  CHECK(store.FindServer("a") == nullptr);
  CHECK(store.Forget() == 1);
  CHECK(store.empty());
  CHECK(store.queries() == 0);
}

TEST_CASE("learned: the file's text reads back as it was", "[search][learn]") {
  LearnedStore store;
  store.Learn("git\"hub", "create_issue", "d1", "file a \"bug\"\n about\tlogin", kNow);
  store.Learn("git\"hub", "create_issue", "d1", "report a crash", kNow + 5);
  store.Learn("git\"hub", "create_issue", "d1", "report crashes", kNow + 9);
  store.Learn("slack", "post", "d2", "tell #general the build is green ✅", kNow);
  base::Result<LearnedStore> back = LearnedStore::Parse(store.Serialize());
  REQUIRE(back.ok());
  CHECK(back->servers() == store.servers());
  CHECK(back->queries() == store.queries());
  CHECK(LearnedStore::Parse(LearnedStore().Serialize()).ok());
}

TEST_CASE("learned: a damaged file is refused, naming where", "[search][learn]") {
  LearnedStore store;
  store.Learn("s", "t", "d", "some words", kNow);
  const std::string whole = store.Serialize();
  // Every cut of the file short of its last brace is refused.
  for (size_t n = 0; n + 2 < whole.size(); n += 7) {
    CAPTURE(n);
    CHECK_FALSE(LearnedStore::Parse(whole.substr(0, n)).ok());
  }
  const auto message = [](std::string_view text) {
    base::Result<LearnedStore> r = LearnedStore::Parse(text);
    REQUIRE_FALSE(r.ok());
    return r.message();
  };
  CHECK(message("[]") == "the learned file: the file: not a JSON object");
  CHECK(message(R"({"version":2,"servers":{}})") == "the learned file: version: expected 1");
  CHECK(
      message(R"({"version":1,"servers":{"s":{"t":{"definition":"d","queries":[{"text":1}]}}}})") ==
      "the learned file: servers.s.t.queries[0]: no text");
  CHECK(message(R"({"version":1,"servers":{"s":{"t":{"definition":"d","queries":[)"
                R"({"text":"a b","uses":0,"last":1}]}}}})") ==
        "the learned file: servers.s.t.queries[0]: uses is not a whole number from 1");
  CHECK(message("{\"version\":1,\"servers\":{\"s\":{\"t\":{\"definition\":\"\xff\"}}}}") ==
        "the learned file: offset 48: not JSON");
}

TEST_CASE("learned: a file that breaks the caps is read within them", "[search][learn]") {
  std::string text = R"({"version":1,"servers":{"s":{"t":{"definition":"d","queries":[)";
  for (int i = 0; i < 30; ++i) {
    if (i > 0) text += ',';
    text += R"({"text":"words number)" + std::to_string(i) + R"(","uses":1,"last":)" +
            std::to_string(kNow + i) + "}";
  }
  text += R"(,{"text":"words number3","uses":5,"last":1}]}}}})";  // the same query twice
  base::Result<LearnedStore> store = LearnedStore::Parse(text);
  REQUIRE(store.ok());
  const LearnedTool* t = store->Find("s", "t");
  REQUIRE(t);
  CHECK(t->queries.size() == kMaxQueriesPerTool);
  CHECK(t->queries.front().text == "words number29");
}

TEST_CASE("learned: over every tool, the least recently used queries go first", "[search][learn]") {
  LearnedStore store;
  for (size_t i = 0; i < kMaxLearnedQueries + 5; ++i) {
    store.Learn("s", "tool" + std::to_string(i % 2000), "d", "words " + std::to_string(i),
                kNow + static_cast<int64_t>(i));
  }
  CHECK(store.queries() == kMaxLearnedQueries);
  // The 5 oldest went: "words 0" .. "words 4", one from each of tools 0..4.
  CHECK(Texts(store, "s", "tool0").back() == "words 2000");
  CHECK(Texts(store, "s", "tool4").back() == "words 2004");
  CHECK(Texts(store, "s", "tool5").back() == "words 5");
}

TEST_CASE("learned: the definition digest follows what a model reads", "[search][learn]") {
  auto list = std::make_shared<mcp::ToolList>();
  list->Add("a", "Does a", R"({"type":"object"})", false);
  list->Add("b", "Does a", R"({"type":"object"})", false);
  list->Add("c", "Does a", R"({"type":"object","properties":{}})", false);
  list->SortByName();
  list->Shrink();
  const std::string a = DefinitionDigest((*list)[0]);
  CHECK(a.size() == 16);
  CHECK(a == DefinitionDigest((*list)[0]));
  CHECK(a != DefinitionDigest((*list)[1]));
  CHECK(DefinitionDigest((*list)[1]) != DefinitionDigest((*list)[2]));
}

// --- the index ---

TEST_CASE("learned words find a tool whose own text shares none of them", "[search][learn]") {
  ToolIndex index;
  index.Set("k8s", List({{"pods_log", "Print the logs of a container in a pod"},
                         {"pods_list", "List the pods of a namespace"},
                         {"events_list", "List the events of a namespace"}}));
  CHECK(Names(index.Search("why does my deployment keep crashlooping", "", 5)).empty());
  index.SetLearned("k8s", "pods_log", {{"why is the checkout deployment crashlooping", 1.0f}});
  CHECK(index.learned_tools() == 1);
  CHECK(Names(index.Search("why does my deployment keep crashlooping", "", 5)) ==
        Words{"k8s/pods_log"});
  // Forgetting leaves no trace, and the words learned alone leave the
  // dictionary.
  index.SetLearned("k8s", "pods_log", {});
  CHECK(index.learned_tools() == 0);
  CHECK(Names(index.Search("why does my deployment keep crashlooping", "", 5)).empty());
}

TEST_CASE("learned words count below the tool's own name", "[search][learn]") {
  ToolIndex index;
  index.Set("s",
            List({{"delete_branch", "Deletes a branch"}, {"merge_branch", "Merges a branch"}}));
  const Words before = Names(index.Search("delete the branch", "", 2));
  REQUIRE(before == Words{"s/delete_branch", "s/merge_branch"});
  // However much merge_branch learned "delete" (a flood of one odd
  // request), the tool named for it stays first.
  index.SetLearned("s", "merge_branch", {{"delete the branch", 50.0f}});
  CHECK(Names(index.Search("delete the branch", "", 2)) == before);
}

TEST_CASE("learned words: the server's own name is not learned", "[search][learn]") {
  ToolIndex index;
  index.Set("linear", List({{"create_issue", "Creates an issue"}, {"list_teams", "Lists teams"}}));
  index.Set("jira", List({{"create_issue", "Creates an issue"}}));
  index.SetLearned("linear", "list_teams", {{"linear teams", 1.0f}});
  // "linear" was not learned by list_teams: "linear" finds both tools alike.
  const auto hits = index.Search("linear", "", 5);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].score == Approx(hits[1].score));
}

TEST_CASE("learned words go with their server's tools", "[search][learn]") {
  ToolIndex index;
  index.Set("a", List({{"alpha", "First"}}));
  index.Set("b", List({{"beta", "Second"}}));
  index.SetLearned("a", "alpha", {{"zebra crossing", 1.0f}});
  index.SetLearned("b", "beta", {{"zebra stripes", 1.0f}});
  CHECK(Names(index.Search("zebra", "", 5)).size() == 2);
  index.Set("a", List({{"alpha", "First"}}));  // listed again: its learned words go
  CHECK(Names(index.Search("zebra", "", 5)) == Words{"b/beta"});
  index.Remove("b");
  CHECK(Names(index.Search("zebra stripes", "", 5)).empty());
  CHECK(index.learned_tools() == 0);
  index.SetLearned("a", "nope", {{"zebra", 1.0f}});  // a tool it does not hold
  index.SetLearned("c", "alpha", {{"zebra", 1.0f}});
  CHECK(index.learned_tools() == 0);
  index.SetLearned("a", "alpha", {{"zebra", 1.0f}});
  index.ClearLearned("a");
  CHECK(index.learned_tools() == 0);
}

TEST_CASE("without learned words the ranking is exactly as before", "[search][learn]") {
  ToolIndex plain, taught;
  const auto tools = List({{"fetch_page", "Downloads a web page"},
                           {"erase_row", "Erases a row from a table"},
                           {"list_rows", "Lists the rows of a table"},
                           {"page_screenshot", "Takes a screenshot of the page"}});
  plain.Set("s", tools);
  taught.Set("s", tools);
  taught.SetLearned("s", "erase_row", {{"drop that record", 1.0f}});
  taught.SetLearned("s", "erase_row", {});
  for (const char* q : {"get the page", "remove a row", "table rows", "capture the screen"}) {
    const auto a = plain.Search(q, "", 5);
    const auto b = taught.Search(q, "", 5);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].tool.name == b[i].tool.name);
      CHECK(a[i].score == b[i].score);
    }
  }
}

TEST_CASE("learned words within a group of stand-ins count once", "[search][learn]") {
  ToolIndex index;
  index.Set("s", List({{"alpha", "First thing"}, {"beta", "Second thing"}}));
  // "remove" and "delete" are one group (synonyms): learning both does not
  // add twice.
  index.SetLearned("s", "alpha", {{"remove", 1.0f}});
  const float one = index.Search("remove", "", 1).at(0).score;
  index.SetLearned("s", "alpha", {{"remove", 1.0f}, {"delete", 1.0f}});
  const float both = index.Search("remove", "", 1).at(0).score;
  CHECK(both == Approx(one));
}

}  // namespace
}  // namespace mcpgw::search
