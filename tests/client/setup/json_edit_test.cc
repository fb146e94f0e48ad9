// Minimal edits of JSON/JSONC host files (client/setup/json_edit.h): a member is added or
// removed and every other byte — comments, order, indentation, trailing commas, CRLF —
// stays where it was.
#include <catch2/catch.hpp>

#include <rapidjson/document.h>

#include "client/setup/json_edit.h"

namespace mcpgw::setup {
namespace {

rapidjson::Document Json(const char* text) {
  rapidjson::Document doc;
  doc.Parse(text);
  return doc;
}

const rapidjson::Document kEntry = Json(R"({"command": "/usr/bin/mcpgw", "args": ["stdio"]})");

}  // namespace

TEST_CASE("json edit: a new member goes last, in the file's indentation", "[setup][json]") {
  const std::string before =
      "{\n"
      "    // my servers\n"
      "    \"mcpServers\": {\n"
      "        \"a\": {\"url\": \"http://a\"}  // the first\n"
      "    },\n"
      "    \"theme\": \"dark\"\n"
      "}\n";
  const base::Result<std::string> edit = SetMember(before, {"mcpServers"}, "mcpgw", kEntry);
  REQUIRE(edit.ok());
  CHECK(*edit ==
        "{\n"
        "    // my servers\n"
        "    \"mcpServers\": {\n"
        "        \"a\": {\"url\": \"http://a\"},  // the first\n"
        "        \"mcpgw\": {\n"
        "            \"command\": \"/usr/bin/mcpgw\",\n"
        "            \"args\": [\"stdio\"]\n"
        "        }\n"
        "    },\n"
        "    \"theme\": \"dark\"\n"
        "}\n");
}

TEST_CASE("json edit: a file with trailing commas gets one after the new member too",
          "[setup][json]") {
  const std::string before = "{\n  \"servers\": {\n    \"a\": {},\n  },\n}\n";
  const base::Result<std::string> edit = SetMember(before, {"servers"}, "b", Json("{}"));
  REQUIRE(edit.ok());
  CHECK(*edit == "{\n  \"servers\": {\n    \"a\": {},\n    \"b\": {},\n  },\n}\n");
  const base::Result<std::string> back = RemoveMember(*edit, {"servers"}, "b");
  REQUIRE(back.ok());
  CHECK(*back == before);
}

TEST_CASE("json edit: tabs and CRLF line ends are kept", "[setup][json]") {
  const std::string before = "{\r\n\t\"mcpServers\": {\r\n\t\t\"a\": 1\r\n\t}\r\n}\r\n";
  const base::Result<std::string> edit = SetMember(before, {"mcpServers"}, "b", Json("2"));
  REQUIRE(edit.ok());
  CHECK(*edit == "{\r\n\t\"mcpServers\": {\r\n\t\t\"a\": 1,\r\n\t\t\"b\": 2\r\n\t}\r\n}\r\n");
  CHECK(RemoveMember(*edit, {"mcpServers"}, "b").value_or(std::string()) == before);
}

TEST_CASE("json edit: missing objects are created, an empty file becomes a document",
          "[setup][json]") {
  const base::Result<std::string> into_root =
      SetMember("{\n  \"theme\": \"dark\"\n}\n", {"mcpServers"}, "x", Json("1"));
  REQUIRE(into_root.ok());
  CHECK(*into_root == "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"x\": 1\n  }\n}\n");
  const base::Result<std::string> empty_object = SetMember("{}", {"mcpServers"}, "x", Json("1"));
  REQUIRE(empty_object.ok());
  CHECK(*empty_object == "{\n  \"mcpServers\": {\n    \"x\": 1\n  }\n}");
  const base::Result<std::string> new_file = SetMember("", {"mcpServers"}, "x", Json("1"));
  REQUIRE(new_file.ok());
  CHECK(*new_file == "{\n  \"mcpServers\": {\n    \"x\": 1\n  }\n}\n");
}

TEST_CASE("json edit: an existing member's value is replaced in place", "[setup][json]") {
  const std::string before = "{\"mcpServers\": {\"mcpgw\": {\"command\": \"/old\"}, \"z\": 1}}";
  const base::Result<std::string> edit = SetMember(before, {"mcpServers"}, "mcpgw", kEntry);
  REQUIRE(edit.ok());
  CHECK(*edit ==
        "{\"mcpServers\": {\"mcpgw\": {\"command\": \"/usr/bin/mcpgw\", \"args\": [\"stdio\"]}, "
        "\"z\": 1}}");
}

TEST_CASE("json edit: removing the first, a middle, the last or the only member", "[setup][json]") {
  const std::string three =
      "{\n  \"s\": {\n    \"a\": 1,\n    \"b\": 2, // two\n    \"c\": 3\n  }\n}\n";
  CHECK(RemoveMember(three, {"s"}, "a").value_or(std::string()) ==
        "{\n  \"s\": {\n    \"b\": 2, // two\n    \"c\": 3\n  }\n}\n");
  CHECK(RemoveMember(three, {"s"}, "b").value_or(std::string()) ==
        "{\n  \"s\": {\n    \"a\": 1,\n    \"c\": 3\n  }\n}\n");
  CHECK(RemoveMember(three, {"s"}, "c").value_or(std::string()) ==
        "{\n  \"s\": {\n    \"a\": 1,\n    \"b\": 2 // two\n  }\n}\n");
  CHECK(RemoveMember("{\"s\": {\"a\": 1, \"b\": 2}}", {"s"}, "b").value_or(std::string()) ==
        "{\"s\": {\"a\": 1}}");
  CHECK(RemoveMember("{\"s\": {\"a\": 1, \"b\": 2}}", {"s"}, "a").value_or(std::string()) ==
        "{\"s\": {\"b\": 2}}");
  CHECK(RemoveMember("{\n  \"s\": {\n    \"a\": {\n      \"x\": 1\n    }\n  }\n}", {"s"}, "a")
            .value_or(std::string()) == "{\n  \"s\": {\n  }\n}");
  CHECK(RemoveMember(three, {"s"}, "nothing").value_or(std::string()) == three);
}

TEST_CASE("json edit: text that is not JSONC is refused with its line and column",
          "[setup][json]") {
  const base::Result<std::string> edit =
      SetMember("{\n  \"a\": 1,,\n}", {"mcpServers"}, "x", Json("1"));
  CHECK_FALSE(edit.ok());
  CHECK(edit.message().find(":2:") != std::string::npos);
  CHECK_FALSE(SetMember("[1]", {"mcpServers"}, "x", Json("1")).ok());
  CHECK_FALSE(SetMember("{\"mcpServers\": []}", {"mcpServers"}, "x", Json("1")).ok());
}

}  // namespace mcpgw::setup
