#include "client/stdio/stdio_messages.h"

#include <string>

#include <rapidjson/document.h>
#include <catch2/catch.hpp>

#include "base/utf8.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/modern_wire.h"
#include "proto/mcp_versions.h"

namespace mcpgw::cli {
namespace {

rapidjson::Document Json(std::string_view text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  INFO(text);
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

HostRequest Classify(std::string_view params_json) {
  rapidjson::Document params = Json(params_json);
  return ClassifyHostRequest("7", &params);
}

constexpr std::string_view kModernMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientInfo":{"name":"host","version":"1"},)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

TEST_CASE("stdio messages: requests without a _meta version are legacy", "[stdio_messages]") {
  CHECK_FALSE(ClassifyHostRequest("1", nullptr).modern);
  CHECK_FALSE(Classify(R"({"name":"x"})").modern);
  CHECK_FALSE(Classify(R"({"_meta":{"progressToken":1}})").modern);
  CHECK_FALSE(Classify(R"({"_meta":"not an object"})").modern);
  CHECK(Classify(R"({"_meta":{}})").refusal.empty());
}

TEST_CASE("stdio messages: a request with the revision's _meta is modern", "[stdio_messages]") {
  HostRequest r = Classify("{" + std::string(kModernMeta) + "}");
  CHECK(r.modern);
  CHECK(r.refusal.empty());
}

TEST_CASE("stdio messages: an unusable _meta is refused with the revision's errors",
          "[stdio_messages]") {
  HostRequest old = Classify(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25",)"
                             R"("io.modelcontextprotocol/clientCapabilities":{}}})");
  REQUIRE_FALSE(old.refusal.empty());
  rapidjson::Document error = Json(old.refusal);
  CHECK(error["id"].GetInt() == 7);
  CHECK(error["error"]["code"].GetInt() == proto::kMcpUnsupportedVersionCode);
  CHECK(std::string(error["error"]["message"].GetString()) ==
        "Unsupported protocol version (this server speaks 2026-07-28 per request, or 2025-11-25, "
        "2025-06-18 and 2025-03-26 after initialize)");
  CHECK(std::string(error["error"]["data"]["requested"].GetString()) == "2025-11-25");
  CHECK(error["error"]["data"]["supported"][0] == "2026-07-28");
  // The gateway's own client recognises the refusal and would retry at 2026-07-28.
  auto recognised = mcp::RecognizeModernError(error);
  REQUIRE(recognised);
  CHECK(mcp::PickModernVersion(recognised->supported) == "2026-07-28");

  HostRequest no_caps =
      Classify(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}})");
  CHECK(Json(no_caps.refusal)["error"]["code"].GetInt() == kInvalidParams);
  HostRequest bad_version =
      Classify(R"({"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}})");
  CHECK(Json(bad_version.refusal)["error"]["code"].GetInt() == kInvalidParams);
}

TEST_CASE("stdio messages: the bridge accepts from hosts what the daemon accepts from servers",
          "[stdio_messages]") {
  for (std::string_view version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    CHECK(NegotiateProtocolVersion(version) == version);
    CHECK(mcp::IsSupportedProtocolVersion(version));
  }
  // A revision neither end knows: the bridge answers with the one the daemon asks for.
  for (std::string_view version : {"2024-11-05", "", "2026-07-28"}) {
    CHECK(NegotiateProtocolVersion(version) == mcp::kProtocolVersion);
    CHECK_FALSE(mcp::IsSupportedProtocolVersion(version));
  }
  rapidjson::Document discover = Json(DiscoverResult());
  CHECK(std::string(discover["supportedVersions"][0].GetString()) == mcp::kModernProtocolVersion);
}

TEST_CASE("stdio messages: the discover result is one the gateway judges modern",
          "[stdio_messages]") {
  const std::string message = ResultMessage("1", DiscoverResult());
  rapidjson::Document doc = Json(message);
  const rapidjson::Value& result = doc["result"];
  CHECK(std::string(result["resultType"].GetString()) == "complete");
  CHECK(result["supportedVersions"].Size() == 4);
  CHECK(std::string(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].GetString()) ==
        "mcpgw");
  CHECK(result["ttlMs"].GetInt64() > 0);
  CHECK(std::string(result["cacheScope"].GetString()) == "public");
  CHECK(result.HasMember("instructions"));
  mcp::EraVerdict verdict = mcp::JudgeDiscover(&doc, /*refused=*/false, false);
  CHECK(verdict.kind == mcp::EraVerdict::Kind::kModern);
  CHECK(verdict.version == "2026-07-28");
}

TEST_CASE("stdio messages: modern results carry resultType and caching hints", "[stdio_messages]") {
  rapidjson::Document legacy = Json(ToolsListResult());
  CHECK_FALSE(legacy.HasMember("resultType"));
  CHECK_FALSE(legacy.HasMember("ttlMs"));
  rapidjson::Document modern = Json(ToolsListResult(/*modern=*/true));
  CHECK(std::string(modern["resultType"].GetString()) == "complete");
  CHECK(modern["ttlMs"].IsInt64());
  CHECK(std::string(modern["cacheScope"].GetString()) == "public");
  CHECK(modern["tools"].Size() == 2);

  CHECK_FALSE(Json(ToolCallResult("x", false)).HasMember("resultType"));
  rapidjson::Document call = Json(ToolCallResult("x", true, /*modern=*/true));
  CHECK(std::string(call["resultType"].GetString()) == "complete");
  CHECK(call["isError"].GetBool());
  CHECK(EmptyResult(false) == "{}");
  CHECK(EmptyResult(true) == R"({"resultType":"complete"})");
}

TEST_CASE("stdio messages: a tool call's answer, built in one pass, holds the text as it was",
          "[stdio_messages]") {
  CHECK(ToolCallMessage("7", "hello", false) ==
        R"({"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}],)"
        R"("isError":false}})");
  const std::string texts[] = {
      "",
      "hello",
      "a\"b\\c/d",
      "line\nbreak\ttab\rret\b\f",
      std::string("\x01\x1f\x7f\0z", 5),
      "caf\xc3\xa9 \xf0\x9f\x98\x80",
      "sep \xe2\x80\xa8 \xe2\x80\xa9",
      "bad \xff \xc3",
      "\xed\xa0\x80",
  };
  for (const std::string& text : texts) {
    for (std::string_view id : {"7", "\"a\\\"b\"", "null"}) {
      for (bool is_error : {false, true}) {
        for (bool modern : {false, true}) {
          const std::string message = ToolCallMessage(id, text, is_error, modern);
          INFO(message);
          rapidjson::Document got;
          got.Parse<rapidjson::kParseValidateEncodingFlag>(message.data(), message.size());
          REQUIRE_FALSE(got.HasParseError());
          // The same message built from its parts: what a host reads must be this.
          rapidjson::Document want(rapidjson::kObjectType);
          auto& a = want.GetAllocator();
          rapidjson::Document id_doc;
          id_doc.Parse(id.data(), id.size());
          const std::string valid = base::Utf8Replacing(text);
          rapidjson::Value item(rapidjson::kObjectType);
          item.AddMember("type", "text", a);
          item.AddMember("text", rapidjson::Value(valid.data(), valid.size(), a), a);
          rapidjson::Value content(rapidjson::kArrayType);
          content.PushBack(item, a);
          rapidjson::Value result(rapidjson::kObjectType);
          if (modern) result.AddMember("resultType", "complete", a);
          result.AddMember("content", content, a);
          result.AddMember("isError", is_error, a);
          want.AddMember("jsonrpc", "2.0", a);
          want.AddMember("id", rapidjson::Value(id_doc, a), a);
          want.AddMember("result", result, a);
          CHECK(got == want);
          CHECK(Json(ResultMessage(id, ToolCallResult(text, is_error, modern))) == want);
        }
      }
    }
  }
}

TEST_CASE("stdio messages: subscriptions/listen is acknowledged and closed", "[stdio_messages]") {
  rapidjson::Document ack = Json(ListenAcknowledged("\"s1\""));
  CHECK(std::string(ack["method"].GetString()) == "notifications/subscriptions/acknowledged");
  CHECK(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "s1");
  CHECK(ack["params"]["notifications"].ObjectEmpty());
  CHECK_FALSE(ack.HasMember("id"));
  rapidjson::Document closed = Json(ResultMessage("\"s1\"", ListenClosedResult("\"s1\"")));
  CHECK(closed["id"] == "s1");
  CHECK(closed["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "s1");
}

}  // namespace
}  // namespace mcpgw::cli
