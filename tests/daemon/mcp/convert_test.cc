#include "daemon/mcp/convert.h"

#include <string>

#include <catch2/catch.hpp>

#include "base/bounded_json.h"

namespace mcpgw::mcp {
namespace {

rapidjson::Document Json(std::string_view text) {
  rapidjson::Document doc;
  INFO(text);
  REQUIRE(base::ParseBoundedJson(text, {}, doc).ok());
  return doc;
}

std::string Text(std::string_view result_json) { return ConvertCallResult(Json(result_json)).text; }

// A result whose content is exactly the one block `block_json`.
std::string Block(std::string_view block_json) {
  return Text(R"({"content":[)" + std::string(block_json) + "]}");
}

ToolList Page(std::string_view result_json, const ToolLimits& limits = {}) {
  ToolList tools;
  REQUIRE(AppendToolsPage(Json(result_json), limits, tools).ok());
  return tools;
}

// A tool's fields copied out of its list: a Tool is a view that dies with it.
struct OwnedTool {
  std::string name;
  std::string description;
  std::string input_schema_json;
  bool read_only_hint;
};

OwnedTool OneTool(std::string_view tool_json, const ToolLimits& limits = {}) {
  ToolList tools = Page(R"({"tools":[)" + std::string(tool_json) + "]}", limits);
  REQUIRE(tools.size() == 1);
  const Tool t = tools[0];
  return OwnedTool{std::string(t.name), std::string(t.description),
                   std::string(t.input_schema_json), t.read_only_hint};
}

std::vector<std::string> Names(const ToolList& tools) {
  std::vector<std::string> names;
  for (const auto& t : tools) names.emplace_back(t.name);
  return names;
}

TEST_CASE("convert: a text block is its text", "[convert]") {
  CHECK(Block(R"({"type":"text","text":"hello\nworld"})") == "hello\nworld");
  CHECK(Block(R"({"type":"text","text":""})") == "");
}

TEST_CASE("convert: blocks join with a blank line, in order", "[convert]") {
  CHECK(Text(R"({"content":[{"type":"text","text":"a"},{"type":"text","text":"b"},)"
             R"({"type":"image","data":"AAAA","mimeType":"image/png"}]})") ==
        "a\n\nb\n\n[image omitted: image/png]");
}

TEST_CASE("convert: embedded resources", "[convert]") {
  CHECK(
      Block(
          R"({"type":"resource","resource":{"uri":"file:///a","text":"body","mimeType":"text/plain"}})") ==
      "body");
  CHECK(
      Block(
          R"({"type":"resource","resource":{"uri":"file:///b","blob":"AAAA","mimeType":"application/pdf"}})") ==
      "[resource omitted: application/pdf]");
  CHECK(Block(R"({"type":"resource","resource":{"uri":"file:///b","blob":"AAAA"}})") ==
        "[resource omitted: unknown]");
}

TEST_CASE("convert: image and audio become placeholders with their mime type", "[convert]") {
  CHECK(Block(R"({"type":"image","data":"AAAA","mimeType":"image/jpeg"})") ==
        "[image omitted: image/jpeg]");
  CHECK(Block(R"({"type":"audio","data":"AAAA","mimeType":"audio/wav"})") ==
        "[audio omitted: audio/wav]");
  CHECK(Block(R"({"type":"image","data":"AAAA"})") == "[image omitted: unknown]");
  CHECK(Block(R"({"type":"audio","data":"AAAA","mimeType":""})") == "[audio omitted: unknown]");
  CHECK(Block(R"({"type":"audio","mimeType":42})") == "[audio omitted: unknown]");
}

TEST_CASE("convert: a resource link shows its uri", "[convert]") {
  CHECK(Block(R"({"type":"resource_link","uri":"https://x.test/r","name":"r"})") ==
        "[resource: https://x.test/r]");
  CHECK(Block(R"({"type":"resource_link","name":"r"})") == "[resource: unknown]");
}

TEST_CASE("convert: other block types are named and omitted", "[convert]") {
  CHECK(Block(R"({"type":"video","data":"x"})") == "[video omitted]");
  CHECK(Block(R"({"type":"text2"})") == "[text2 omitted]");
}

TEST_CASE("convert: no blocks gives structuredContent as compact JSON", "[convert]") {
  CHECK(Text(R"({"content":[],"structuredContent":{ "temp" : 21.5, "ok" : true }})") ==
        R"({"temp":21.5,"ok":true})");
  CHECK(Text(R"({"structuredContent":{"a":[1, 2]}})") == R"({"a":[1,2]})");
  // Blocks win over structuredContent.
  CHECK(Text(R"({"content":[{"type":"text","text":"t"}],"structuredContent":{"a":1}})") == "t");
}

TEST_CASE("convert: no blocks and no structuredContent gives empty text", "[convert]") {
  CHECK(Text(R"({"content":[]})") == "");
  CHECK(Text(R"({})") == "");
  CHECK(Text(R"({"content":[],"structuredContent":null})") == "");
}

TEST_CASE("convert: isError true marks a backend error and keeps the text", "[convert]") {
  auto r = ConvertCallResult(Json(R"({"isError":true,"content":[{"type":"text","text":"boom"}]})"));
  CHECK(r.is_error);
  CHECK(r.text == "boom");
  CHECK_FALSE(ConvertCallResult(Json(R"({"isError":false,"content":[]})")).is_error);
  CHECK_FALSE(ConvertCallResult(Json(R"({"isError":"true","content":[]})")).is_error);
  CHECK_FALSE(ConvertCallResult(Json(R"({"isError":1,"content":[]})")).is_error);
}

TEST_CASE("convert: hostile shapes do not break conversion", "[convert]") {
  SECTION("content not an array counts as no blocks") {
    CHECK(Text(R"({"content":"text","structuredContent":{"a":1}})") == R"({"a":1})");
    CHECK(Text(R"({"content":{"type":"text","text":"x"}})") == "");
  }
  SECTION("blocks that are not objects") {
    CHECK(Text(R"({"content":[1,"s",null,[]]})") ==
          "[unknown omitted]\n\n[unknown omitted]\n\n[unknown omitted]\n\n[unknown omitted]");
  }
  SECTION("missing or non-string type") {
    CHECK(Block(R"({"text":"sneaky"})") == "[unknown omitted]");
    CHECK(Block(R"({"type":7,"text":"sneaky"})") == "[unknown omitted]");
    CHECK(Block(R"({"type":"","text":"sneaky"})") == "[unknown omitted]");
  }
  SECTION("a text block whose text is not a string") {
    CHECK(Block(R"({"type":"text","text":{"a":1}})") == "[text omitted]");
    CHECK(Block(R"({"type":"text"})") == "[text omitted]");
  }
  SECTION("a resource that is not an object, or has neither text nor blob") {
    CHECK(Block(R"({"type":"resource","resource":"x"})") == "[resource omitted: unknown]");
    CHECK(Block(R"({"type":"resource"})") == "[resource omitted: unknown]");
    CHECK(Block(R"({"type":"resource","resource":{"text":5,"mimeType":"a/b"}})") ==
          "[resource omitted: a/b]");
  }
  SECTION("a result that is not an object") {
    CHECK(Text("[]") == "");
    CHECK(Text("\"x\"") == "");
  }
  SECTION("a huge type or mime type is cut short") {
    const std::string type(10000, 't');
    const std::string text = Block(R"({"type":")" + type + "\"}");
    CHECK(text.size() < 300);
    CHECK(text.rfind("[ttt", 0) == 0);
    CHECK(text.substr(text.size() - 9) == " omitted]");
    const std::string mime = Block(R"({"type":"image","mimeType":")" + type + "\"}");
    CHECK(mime.size() < 300);
  }
  SECTION("many blocks") {
    std::string json = R"({"content":[)";
    for (int i = 0; i < 20000; ++i)
      json += std::string(i ? "," : "") + R"({"type":"text","text":"x"})";
    json += "]}";
    const std::string text = Text(json);
    CHECK(text.size() == 20000 + 2 * 19999);
  }
}

TEST_CASE("tools: a page of tools with every field", "[tools]") {
  OwnedTool t = OneTool(
      R"({"name":"add","title":"Add","description":"Adds two numbers.",)"
      R"("inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]},)"
      R"("annotations":{"readOnlyHint":true}})");
  CHECK(t.name == "add");
  CHECK(t.description == "Adds two numbers.");
  CHECK(t.input_schema_json ==
        R"({"type":"object","properties":{"a":{"type":"number"}},"required":["a"]})");
  CHECK(t.read_only_hint);
}

TEST_CASE("tools: description falls back to title, annotations.title, then name", "[tools]") {
  CHECK(OneTool(R"({"name":"n","title":"T","annotations":{"title":"A"}})").description == "T");
  CHECK(OneTool(R"({"name":"n","annotations":{"title":"A"}})").description == "A");
  CHECK(OneTool(R"({"name":"n"})").description == "n");
  // An empty or non-string description counts as absent.
  CHECK(OneTool(R"({"name":"n","description":"","title":"T"})").description == "T");
  CHECK(OneTool(R"({"name":"n","description":5,"title":"T"})").description == "T");
  CHECK(OneTool(R"({"name":"n","description":"D","title":"T"})").description == "D");
}

TEST_CASE("tools: inputSchema absent or not an object reads as an empty object schema", "[tools]") {
  CHECK(OneTool(R"({"name":"n"})").input_schema_json == R"({"type":"object"})");
  CHECK(OneTool(R"({"name":"n","inputSchema":"x"})").input_schema_json == R"({"type":"object"})");
  CHECK(OneTool(R"({"name":"n","inputSchema":[1]})").input_schema_json == R"({"type":"object"})");
  CHECK(OneTool(R"({"name":"n","inputSchema":{}})").input_schema_json == "{}");
}

TEST_CASE("tools: readOnlyHint only when it is exactly true", "[tools]") {
  CHECK_FALSE(OneTool(R"({"name":"n"})").read_only_hint);
  CHECK_FALSE(OneTool(R"({"name":"n","annotations":{"readOnlyHint":"true"}})").read_only_hint);
  CHECK_FALSE(OneTool(R"({"name":"n","annotations":{"readOnlyHint":1}})").read_only_hint);
  CHECK_FALSE(OneTool(R"({"name":"n","annotations":{"readOnlyHint":false}})").read_only_hint);
  CHECK_FALSE(OneTool(R"({"name":"n","readOnlyHint":true})").read_only_hint);
  CHECK_FALSE(OneTool(R"({"name":"n","annotations":true})").read_only_hint);
}

TEST_CASE("tools: execution.taskSupport, forbidden unless optional or required", "[tools]") {
  ToolList tools = Page(
      R"({"tools":[{"name":"r","execution":{"taskSupport":"required"}},)"
      R"({"name":"o","execution":{"taskSupport":"optional"}},)"
      R"({"name":"f","execution":{"taskSupport":"forbidden"}},{"name":"n"},)"
      R"({"name":"x","execution":{"taskSupport":"REQUIRED"}},{"name":"y","execution":"required"},)"
      R"({"name":"z","execution":{"taskSupport":true}}]})");
  REQUIRE(tools.size() == 7);
  CHECK(tools[0].task_support == TaskSupport::kRequired);
  CHECK(tools[1].task_support == TaskSupport::kOptional);
  for (size_t i = 2; i < tools.size(); ++i) {
    INFO(tools[i].name);
    CHECK(tools[i].task_support == TaskSupport::kForbidden);
  }
  // The list keeps it through sorting and shrinking, in the same entry size.
  SortAndDedupTools(tools);
  tools.Shrink();
  CHECK(tools.Find("r")->task_support == TaskSupport::kRequired);
  CHECK(tools.Find("o")->task_support == TaskSupport::kOptional);
  CHECK(tools.HeapBytes() == tools.TextBytes() + tools.size() * ToolList::kEntryBytes);
}

TEST_CASE("tools: invisible characters are removed, the server's name kept for calls", "[tools]") {
  // A name with a zero-width space, a description with a hidden instruction
  // in tag characters and a right-to-left override, a schema whose property
  // description hides a zero-width joiner and a byte order mark.
  ToolList tools = Page(
      "{\"tools\":[{\"name\":\"read\xE2\x80\x8B_file\",\"description\":\"Reads a file."
      "\xF3\xA0\x81\x94\xF3\xA0\x81\xA8\xE2\x80\xAE\",\"inputSchema\":{\"type\":\"object\","
      "\"properties\":{\"pa\xE2\x80\x8Dth\":{\"description\":\"a\xEF\xBB\xBF path\"}}}},"
      "{\"name\":\"\xE4\xB8\xAD\xE6\x96\x87\",\"description\":\"caf\xC3\xA9 \xF0\x9F\x98\x80 "
      "\xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A\"},{\"name\":\"\xE2\x80\x8B\xE2\x81\xA0\"}]}");
  REQUIRE(tools.size() == 2);  // a name of nothing but invisible characters is no name
  const Tool hidden = tools[0];
  CHECK(hidden.name == "read_file");
  CHECK(hidden.wire_name == "read\xE2\x80\x8B_file");
  CHECK(hidden.description == "Reads a file.");
  CHECK(hidden.input_schema_json ==
        R"({"type":"object","properties":{"path":{"description":"a path"}}})");
  CHECK(hidden.hidden_text_removed);
  // Visible text of every script is untouched, and such a tool is not flagged.
  const Tool visible = tools[1];
  CHECK(visible.name == "\xE4\xB8\xAD\xE6\x96\x87");
  CHECK(visible.wire_name == visible.name);
  CHECK(visible.description == "caf\xC3\xA9 \xF0\x9F\x98\x80 \xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A");
  CHECK_FALSE(visible.hidden_text_removed);
  // The wire name survives sorting and shrinking.
  SortAndDedupTools(tools);
  tools.Shrink();
  REQUIRE(tools.Find("read_file"));
  CHECK(tools.Find("read_file")->wire_name == "read\xE2\x80\x8B_file");
}

TEST_CASE("tools: tools without a usable name are skipped", "[tools]") {
  ToolLimits limits;
  limits.max_name_bytes = 4;
  ToolList tools = Page(R"({"tools":[{"name":"ok"},{"name":""},{"name":5},{},"tool",null,)"
                        R"({"name":"four"},{"name":"fiver"}]})",
                        limits);
  CHECK(Names(tools) == std::vector<std::string>{"ok", "four"});
}

TEST_CASE("tools: descriptions are cut at the bound on a UTF-8 boundary", "[tools]") {
  ToolLimits limits;
  limits.max_description_bytes = 5;
  // "abcd" + "é" = 6 bytes; cutting at 5 would split the é.
  CHECK(OneTool(R"({"name":"n","description":"abcd\u00e9"})", limits).description == "abcd");
  CHECK(OneTool(R"({"name":"n","description":"abcde"})", limits).description == "abcde");
  CHECK(OneTool(R"({"name":"n","description":"abcdef"})", limits).description == "abcde");
}

TEST_CASE("tools: a schema over the bound is replaced by an empty object schema", "[tools]") {
  ToolLimits limits;
  limits.max_schema_bytes = 15;
  CHECK(OneTool(R"({"name":"n","inputSchema":{"a":"0123456"}})", limits).input_schema_json ==
        R"({"a":"0123456"})");  // exactly 15 bytes
  CHECK(OneTool(R"({"name":"n","inputSchema":{"a":"01234567"}})", limits).input_schema_json ==
        R"({"type":"object"})");
}

TEST_CASE("tools: a result without a tools array is an error", "[tools]") {
  ToolList tools;
  base::Status appended = AppendToolsPage(Json(R"({"tools":{}})"), {}, tools);
  CHECK_FALSE(appended.ok());
  CHECK(appended.message() == "tools/list result has no tools array");
  appended = AppendToolsPage(Json(R"({})"), {}, tools);
  CHECK_FALSE(appended.ok());
  CHECK_FALSE(appended.message().empty());
  CHECK_FALSE(AppendToolsPage(Json(R"([])"), {}, tools).ok());
  CHECK(tools.empty());
}

TEST_CASE("tools: pages append", "[tools]") {
  ToolList tools;
  REQUIRE(AppendToolsPage(Json(R"({"tools":[{"name":"a"}]})"), {}, tools).ok());
  REQUIRE(AppendToolsPage(Json(R"({"tools":[{"name":"b"}],"nextCursor":"x"})"), {}, tools).ok());
  CHECK(Names(tools) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("tools: sort by byte order and keep the first of duplicate names", "[tools]") {
  ToolList tools =
      Page(R"({"tools":[{"name":"b","description":"first b"},{"name":"B"},{"name":"\u00e9"},)"
           R"({"name":"a"},{"name":"b","description":"second b"},{"name":"a_"},{"name":"b"}]})");
  SortAndDedupTools(tools);
  CHECK(Names(tools) == std::vector<std::string>{"B", "a", "a_", "b", "\xC3\xA9"});
  CHECK(tools[3].description == "first b");
}

TEST_CASE("tools: a kept list holds no room beyond its tools, and the same tools", "[tools]") {
  ToolList tools;
  for (int page = 0; page < 3; ++page) {
    std::string json = R"({"tools":[)";
    for (int i = 0; i < 50; ++i) {
      if (i) json += ",";
      json += R"({"name":"t)" + std::to_string(page * 50 + i) +
              R"(","description":"a tool that is described at some length","inputSchema":)"
              R"({"type":"object","properties":{"text":{"type":"string"}}}})";
    }
    REQUIRE(AppendToolsPage(Json(json + "]}"), {}, tools).ok());
  }
  const ToolList before = tools;
  CHECK(tools.HeapBytes() > tools.TextBytes() + tools.size() * ToolList::kEntryBytes);
  tools.Shrink();
  CHECK(tools == before);
  // Each tool costs its text and one small entry: no per-tool allocation.
  CHECK(tools.HeapBytes() == tools.TextBytes() + tools.size() * ToolList::kEntryBytes);
  CHECK(tools[149].name == "t149");
  CHECK(tools[149].input_schema_json ==
        R"({"type":"object","properties":{"text":{"type":"string"}}})");
}

TEST_CASE("tools: shrinking drops the text of removed duplicates and keeps the rest", "[tools]") {
  ToolList tools =
      Page(R"({"tools":[{"name":"b","description":"kept b"},)"
           R"({"name":"a","description":"kept a","annotations":{"readOnlyHint":true}},)"
           R"({"name":"b","description":"a long duplicate that is dropped"},)"
           R"({"name":"c","inputSchema":{"type":"object","required":["x"]}}]})");
  SortAndDedupTools(tools);
  tools.RemoveIf([](const Tool& t) { return t.name == "c"; });
  tools.Shrink();
  CHECK(Names(tools) == std::vector<std::string>{"a", "b"});
  // Annotations are kept (as compact JSON) for the tool's pin.
  CHECK(tools.TextBytes() == std::string_view("akept a{\"type\":\"object\"}{\"readOnlyHint\":true}"
                                              "bkept b{\"type\":\"object\"}")
                                 .size());
  CHECK(tools.HeapBytes() == tools.TextBytes() + 2 * ToolList::kEntryBytes);
  CHECK(tools[0] == Tool{"a", "kept a", R"({"type":"object"})", true, TaskSupport::kForbidden, "a",
                         false, "", R"({"readOnlyHint":true})"});
  CHECK(tools[1] ==
        Tool{"b", "kept b", R"({"type":"object"})", false, TaskSupport::kForbidden, "b"});
}

TEST_CASE("tools: find by name in a sorted list", "[tools]") {
  ToolList tools = Page(R"({"tools":[{"name":"m"},{"name":"a","description":"first"},)"
                        R"({"name":"z"},{"name":"a"}]})");
  SortAndDedupTools(tools);
  tools.Shrink();
  REQUIRE(tools.Find("a"));
  CHECK(tools.Find("a")->description == "first");
  CHECK(tools.Find("z")->name == "z");
  CHECK_FALSE(tools.Find("b"));
  CHECK_FALSE(tools.Find(""));
  CHECK_FALSE(tools.Find("zz"));
  CHECK_FALSE(ToolList().Find("a"));
}

TEST_CASE("tools: a copied or moved list reads the same tools", "[tools]") {
  ToolList tools;
  tools.Add("echo", "Echoes", R"({"type":"object"})", true);
  tools.Add("add", "Adds", "{}", false);
  ToolList copy = tools;
  ToolList moved = std::move(copy);
  CHECK(moved == tools);
  CHECK(moved[0] ==
        Tool{"echo", "Echoes", R"({"type":"object"})", true, TaskSupport::kForbidden, "echo"});
  ToolList other;
  other.Add("echo", "Echoes", R"({"type":"object"})", false);
  other.Add("add", "Adds", "{}", false);
  CHECK(other != tools);  // the read-only hint differs
}

TEST_CASE("tools: the first listed duplicate wins in a long list", "[tools]") {
  ToolList tools;
  for (int i = 0; i < 300; ++i) {
    tools.Add("t" + std::to_string((i * 7) % 10), "listed " + std::to_string(i), "{}", false);
  }
  SortAndDedupTools(tools);
  REQUIRE(tools.size() == 10);
  for (int k = 0; k < 10; ++k) {
    const int first = [&] {
      for (int i = 0;; ++i) {
        if ((i * 7) % 10 == k) return i;
      }
    }();
    CHECK(tools[k].name == "t" + std::to_string(k));
    CHECK(tools[k].description == "listed " + std::to_string(first));
  }
}

}  // namespace
}  // namespace mcpgw::mcp
