// Cassettes (daemon/guard/cassette.h, BEHAVIOR.md §14): what a recording
// writes reads back as the same listings and outcomes; several recordings of
// a call answer in order, then the last again; the last listing of a server
// wins; a bad line is an error naming it; a line cut off is left out, said.
#include "daemon/guard/cassette.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "daemon/guard/request_digest.h"

namespace mcpgw {
namespace {

std::string Digest(const std::string& tool, const std::string& args = "{}") {
  return *RequestDigest("gh", tool, args);
}

CallLine Call(const std::string& tool, RecordedKind kind, const std::string& text) {
  CallLine c;
  c.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1741064767089));
  c.digest = Digest(tool);
  c.ns = "gh";
  c.tool = tool;
  c.outcome = RecordedCall{kind, text};
  c.duration_ms = 12;
  return c;
}

mcp::ToolList Tools() {
  mcp::ToolList tools;
  // Schemas as the session writes them (compact, numbers as its writer
  // prints them): read back and written again, they are the same text.
  std::string& text = tools.OpenTool("search", "Searches.");
  text += R"({"type":"object","properties":{"q":{"type":"string","maxLength":1500.5}}})";
  mcp::ToolExtras extras;
  extras.title = "Search";
  extras.annotations_json = R"({"readOnlyHint":true,"title":"Search"})";
  tools.CloseTool(true, mcp::TaskSupport::kRequired, extras);
  tools.Add("create_issue", "Creates an issue.", R"({"type":"object"})", false);
  tools.SortByName();
  tools.Shrink();
  return tools;
}

std::string Cassette3(const std::string& tail = "") {
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1741064767));
  return FormatHeaderLine() + "\n" + FormatListingLine(t, "gh", Tools()) + "\n" +
         FormatCallLine(Call("search", RecordedKind::kOk, "first\nline")) + "\n" +
         FormatCallLine(Call("search", RecordedKind::kBackend, "rate limited")) + "\n" +
         FormatCallLine(Call("create_issue", RecordedKind::kTransport, "connection lost")) + "\n" +
         tail;
}

}  // namespace

TEST_CASE("cassette: a call line holds the digest, the outcome and its text", "[cassette]") {
  CHECK(FormatCallLine(Call("search", RecordedKind::kOk, "a \"b\"")) ==
        "{\"type\":\"call\",\"time\":\"2025-03-04T05:06:07.089Z\",\"digest\":\"" +
            Digest("search") +
            "\",\"namespace\":\"gh\",\"tool\":\"search\",\"outcome\":\"ok\",\"result\":\"a "
            "\\\"b\\\"\",\"duration_ms\":12}");
  CHECK_THAT(FormatCallLine(Call("search", RecordedKind::kBackend, "no")),
             Catch::Contains("\"outcome\":\"backend\",\"error\":\"no\""));
}

TEST_CASE(
    "cassette: what is written reads back: listings byte for byte, calls in order, then "
    "the last again",
    "[cassette]") {
  base::Result<Cassette::Loaded> loaded = Cassette::Parse(Cassette3(), "/t.jsonl");
  INFO(loaded.message());
  REQUIRE(loaded.ok());
  REQUIRE(loaded->cassette);
  CHECK(loaded->warning.empty());
  Cassette& c = *loaded->cassette;
  CHECK(c.calls() == 3);
  CHECK(c.digests() == 2);
  REQUIRE(c.Listing("gh"));
  CHECK(*c.Listing("gh") == Tools());  // every field, the schema's text included
  CHECK_FALSE(c.Listing("other"));
  auto first = c.Next(Digest("search"));
  REQUIRE(first);
  CHECK(first->kind == RecordedKind::kOk);
  CHECK(first->text == "first\nline");
  auto second = c.Next(Digest("search"));
  REQUIRE(second);
  CHECK(second->kind == RecordedKind::kBackend);
  CHECK(second->text == "rate limited");
  auto third = c.Next(Digest("search"));
  REQUIRE(third);
  CHECK(third->text == "rate limited");
  CHECK(c.Next(Digest("create_issue"))->kind == RecordedKind::kTransport);
  CHECK_FALSE(c.Next(Digest("search", R"({"q":1})")));
}

TEST_CASE("cassette: a server recorded with several listings uses the last", "[cassette]") {
  mcp::ToolList later;
  later.Add("only", "The one tool left.", R"({"type":"object"})", false);
  const auto t = std::chrono::system_clock::now();
  auto loaded = Cassette::Parse(Cassette3(FormatListingLine(t, "gh", later) + "\n"), "/t");
  REQUIRE(loaded.ok());
  REQUIRE(loaded->cassette);
  REQUIRE(loaded->cassette->Listing("gh")->size() == 1);
  CHECK((*loaded->cassette->Listing("gh"))[0].name == "only");
}

TEST_CASE("cassette: a line that cannot be read is an error naming the file and line",
          "[cassette]") {
  auto error = [](const std::string& bad) {
    auto loaded = Cassette::Parse(Cassette3(bad + "\n"), "/t.jsonl");
    CHECK_FALSE(loaded.ok());
    return loaded.message();
  };
  CHECK_THAT(error("not json"), Catch::StartsWith("cassette /t.jsonl:6: invalid JSON"));
  CHECK(error("[1]") == "cassette /t.jsonl:6: not a cassette line (an object with a \"type\")");
  CHECK(error(R"({"type":"tape"})") == "cassette /t.jsonl:6: unknown line type \"tape\"");
  CHECK(error(R"({"type":"cassette","version":2})") ==
        "cassette /t.jsonl:6: a cassette of another version (this mcpgwd reads version 1)");
  CHECK_THAT(error(R"({"type":"call","digest":"abc","outcome":"ok","result":""})"),
             Catch::Contains(":6: a call needs its \"digest\""));
  CHECK_THAT(error(R"({"type":"call","digest":")" + Digest("x") + R"(","outcome":"denied"})"),
             Catch::Contains("outcome\" is ok, backend or transport"));
  CHECK_THAT(error(R"({"type":"call","digest":")" + Digest("x") + R"(","outcome":"ok"})"),
             Catch::Contains("an ok call needs its \"result\" text"));
  CHECK_THAT(error(R"({"type":"listing","namespace":"x","tools":[{"name":"t"}]})"),
             Catch::Contains(":6: tool \"t\" has no description"));
}

TEST_CASE("cassette: a last line cut off mid-line is left out, and said", "[cassette]") {
  const std::string whole = Cassette3();
  auto loaded = Cassette::Parse(whole + R"({"type":"call","digest":")", "/t.jsonl");
  REQUIRE(loaded.ok());
  REQUIRE(loaded->cassette);
  CHECK(loaded->cassette->calls() == 3);
  CHECK(loaded->warning ==
        "cassette /t.jsonl: line 6 is cut off (the recording daemon stopped while writing it); "
        "loaded the 5 whole lines before it");
  // An empty file is an empty cassette, no warning.
  auto empty = Cassette::Parse("", "/t.jsonl");
  REQUIRE(empty.ok());
  REQUIRE(empty->cassette);
  CHECK(empty->warning.empty());
}

TEST_CASE("cassette writer: a private file with its header first, and a cut-off line cut back",
          "[cassette]") {
  char tmpl[] = "/tmp/mcpgw-cassette-XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  const std::string path = std::string(tmpl) + "/tape.jsonl";
  {
    CassetteWriter w;
    REQUIRE(w.Open(path).ok());
    REQUIRE(w.Append(FormatCallLine(Call("search", RecordedKind::kOk, "one"))).ok());
  }
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  {  // the daemon was killed mid-line
    std::ofstream out(path, std::ios::app);
    out << R"({"type":"call","dig)";
  }
  {
    CassetteWriter w;
    std::string notice;
    REQUIRE(w.Open(path, &notice).ok());
    CHECK_THAT(notice, Catch::Contains("removed its last line, cut off mid-line (19 bytes)"));
    REQUIRE(w.Append(FormatCallLine(Call("search", RecordedKind::kOk, "two"))).ok());
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto loaded = Cassette::Parse(text.str(), path);
  INFO(loaded.message());
  REQUIRE(loaded.ok());
  REQUIRE(loaded->cassette);
  CHECK(loaded->warning.empty());
  CHECK(loaded->cassette->calls() == 2);
  CHECK(loaded->cassette->Next(Digest("search"))->text == "one");
  CHECK(loaded->cassette->Next(Digest("search"))->text == "two");
  // A symbolic link is refused.
  const std::string link = std::string(tmpl) + "/link.jsonl";
  REQUIRE(symlink(path.c_str(), link.c_str()) == 0);
  CassetteWriter w;
  CHECK(w.Open(link).message() == "cassette " + link + ": is a symbolic link");
  std::system(("rm -rf " + std::string(tmpl)).c_str());
}

}  // namespace mcpgw
