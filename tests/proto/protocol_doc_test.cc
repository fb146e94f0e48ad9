// The examples in proto/PROTOCOL.md are real frames: each one decodes, and
// each flows the way its arrow says.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "proto/messages.h"
#include "proto/methods.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

namespace mcpgw::proto {
namespace {

std::string ReadProtocolDoc() {
  // __FILE__ may be relative (a compiler cache rewrites paths), so the build
  // names the source tree.
  std::ifstream in(std::filesystem::path(MCPGW_SOURCE_DIR) / "proto" / "PROTOCOL.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_CASE("PROTOCOL.md examples parse and point the right way", "[proto][doc]") {
  std::string doc = ReadProtocolDoc();
  REQUIRE(!doc.empty());
  std::istringstream lines(doc);
  std::string line;
  bool in_block = false;
  int requests = 0, responses = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("```", 0) == 0) {
      in_block = line == "```jsonl";
      continue;
    }
    if (!in_block || line.size() < 2) continue;
    std::string frame = line.substr(2);
    INFO(line);
    if (line.rfind("> ", 0) == 0) {
      if (frame.front() != '{') continue;  // the deliberate "not json" example
      Decoded d = DecodeMessage(frame);
      REQUIRE(d.ok);
      CHECK(d.message.type != MessageType::kResponse);
      ++requests;
    } else if (line.rfind("< ", 0) == 0) {
      Decoded d = DecodeMessage(frame);
      REQUIRE(d.ok);
      CHECK(d.message.type == MessageType::kResponse);
      if (d.message.is_error) CHECK(d.message.error_kind.has_value());
      ++responses;
    } else {
      FAIL("example line without direction");
    }
  }
  CHECK(requests >= 8);
  CHECK(responses >= 7);
}

TEST_CASE("the documented status example is one valid object", "[proto][doc]") {
  std::string doc = ReadProtocolDoc();
  auto start = doc.find("```json\n");
  REQUIRE(start != std::string::npos);
  start += 8;
  auto end = doc.find("```", start);
  std::string status = doc.substr(start, end - start);
  rapidjson::Document parsed;
  parsed.Parse(status.c_str());
  REQUIRE(!parsed.HasParseError());
  CHECK(parsed["servers"][0]["latency_p50_ms"].IsNumber());
  CHECK(parsed["daemon"]["last_reload_unix"].IsNull());
}

TEST_CASE("PROTOCOL.md documents every method of the table, and no other", "[proto][doc]") {
  const std::string doc = ReadProtocolDoc();
  std::istringstream lines(doc);
  std::string line;
  std::vector<std::string> documented;
  while (std::getline(lines, line)) {
    if (line.rfind("### `", 0) != 0) continue;
    const size_t end = line.find('`', 5);
    REQUIRE(end != std::string::npos);
    documented.push_back(line.substr(5, end - 5));
  }
  std::vector<std::string> table;
  for (const Method& method : kMethods) {
    table.emplace_back(method.name);
    INFO(method.name);
    const std::string kind =
        method.kind == MethodKind::kRequest ? "| request |" : "| notification |";
    CHECK(doc.find("| `" + std::string(method.name) + "` " + kind) != std::string::npos);
  }
  CHECK(documented == table);
  // The unknown-method example lists the requests as the daemon does.
  CHECK(doc.find("; methods: " + RequestNames() + "\"") != std::string::npos);
}

TEST_CASE("the method table: requests and the shape of their results", "[proto]") {
  CHECK(RequestNames() ==
        "hello, get_dynamic_tools, call_dynamic_tool, status, login, login_wait, logout, pins, "
        "diff, approve, metrics, learned, forget");
  REQUIRE(FindMethod("status"));
  CHECK(FindMethod("status")->result == ResultShape::kObject);
  CHECK(FindMethod("call_dynamic_tool")->result == ResultShape::kText);
  CHECK(FindMethod("cancel")->kind == MethodKind::kNotification);
  CHECK(FindMethod("frobnicate") == nullptr);
}

}  // namespace
}  // namespace mcpgw::proto
