#include "daemon/mcp/modern_wire.h"

#include <string>

#include <catch2/catch.hpp>

#include "base/bounded_json.h"
#include "daemon/mcp/jsonrpc.h"

namespace mcpgw::mcp {
namespace {

rapidjson::Document Json(std::string_view text) {
  rapidjson::Document doc;
  INFO(text);
  REQUIRE(base::ParseBoundedJson(text, {}, doc).ok());
  return doc;
}

using Kind = EraVerdict::Kind;

EraVerdict Judge(int status, std::string_view body, bool retried = false) {
  rapidjson::Document doc = Json(body);
  return JudgeDiscover(&doc, /*refused=*/status < 200 || status >= 300, retried);
}

constexpr std::string_view kMetaKeys[] = {"io.modelcontextprotocol/protocolVersion",
                                          "io.modelcontextprotocol/clientInfo",
                                          "io.modelcontextprotocol/clientCapabilities"};

TEST_CASE("modern wire: every request's params carry the revision's _meta", "[modern_wire]") {
  rapidjson::Document params = Json(DiscoverParams("2026-07-28", "1.2.3"));
  REQUIRE(params.IsObject());
  CHECK(params.MemberCount() == 1);
  const rapidjson::Value& meta = params["_meta"];
  for (auto key : kMetaKeys) CHECK(meta.HasMember(key.data()));
  CHECK(std::string(meta["io.modelcontextprotocol/protocolVersion"].GetString()) == "2026-07-28");
  CHECK(base::ToCompactJson(meta["io.modelcontextprotocol/clientInfo"]) ==
        R"({"name":"mcpgw","version":"1.2.3"})");
  // The gateway declares no capabilities (BEHAVIOR.md §6).
  CHECK(base::ToCompactJson(meta["io.modelcontextprotocol/clientCapabilities"]) == "{}");
}

TEST_CASE("modern wire: tools/call params keep the arguments' bytes", "[modern_wire]") {
  const std::string params = ModernToolsCallParams(
      "add", R"({"a":123456789012345678901234567890, "b" : 1e-400})", "2026-07-28", "1");
  CHECK_THAT(params,
             Catch::StartsWith(R"({"name":"add","arguments":{"a":123456789012345678901234567890, )"
                               R"("b" : 1e-400},"_meta":{)"));
  rapidjson::Document doc = Json(params);
  CHECK(doc["_meta"].IsObject());
}

TEST_CASE("modern wire: tools/list and subscriptions/listen params", "[modern_wire]") {
  rapidjson::Document first = Json(ModernToolsListParams(std::nullopt, "2026-07-28", "1"));
  CHECK_FALSE(first.HasMember("cursor"));
  CHECK(first.HasMember("_meta"));
  rapidjson::Document next = Json(ModernToolsListParams("c\"1", "2026-07-28", "1"));
  CHECK(std::string(next["cursor"].GetString()) == "c\"1");
  rapidjson::Document listen = Json(ListenParams("2026-07-28", "1"));
  CHECK(base::ToCompactJson(listen["notifications"]) == R"({"toolsListChanged":true})");
  // A whole request as the session sends it.
  rapidjson::Document request =
      Json(BuildRequest(7, "tools/list", ModernToolsListParams(std::nullopt, "2026-07-28", "1")));
  CHECK(std::string(request["method"].GetString()) == "tools/list");
  CHECK(request["params"]["_meta"].IsObject());
}

TEST_CASE("modern wire: headers of a POST", "[modern_wire]") {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  CHECK(ModernHeaders("2026-07-28", "tools/list") ==
        Headers{{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
  CHECK(ModernHeaders("2026-07-28", "tools/call", "my-hyphenated-tool") ==
        Headers{{"MCP-Protocol-Version", "2026-07-28"},
                {"Mcp-Method", "tools/call"},
                {"Mcp-Name", "my-hyphenated-tool"}});
  // A name outside the header-safe set is carried Base64-encoded.
  CHECK(ModernHeaders("2026-07-28", "tools/call", "wetter für morgen")[2].second ==
        "=?base64?d2V0dGVyIGbDvHIgbW9yZ2Vu?=");
}

TEST_CASE("modern wire: a discover result names the versions and the list_changed capability",
          "[modern_wire]") {
  auto d = ParseDiscoverResult(Json(R"({"resultType":"complete",
      "supportedVersions":["2026-07-28","2025-11-25"],
      "capabilities":{"tools":{"listChanged":true}},"ttlMs":3600000,"cacheScope":"public"})"));
  REQUIRE(d);
  CHECK(d->supported_versions == std::vector<std::string>{"2026-07-28", "2025-11-25"});
  CHECK(d->tools_list_changed);
  auto plain = ParseDiscoverResult(Json(R"({"supportedVersions":["2026-07-28"]})"));
  REQUIRE(plain);
  CHECK_FALSE(plain->tools_list_changed);
  // Not discover results.
  CHECK_FALSE(ParseDiscoverResult(Json("{}")));
  CHECK_FALSE(ParseDiscoverResult(Json(R"({"supportedVersions":"2026-07-28"})")));
  CHECK_FALSE(ParseDiscoverResult(Json(R"({"supportedVersions":[20260728]})")));
  CHECK_FALSE(ParseDiscoverResult(
      Json(R"({"resultType":"input_required","supportedVersions":["2026-07-28"]})")));
  CHECK_FALSE(ParseDiscoverResult(Json("[]")));
}

TEST_CASE("modern wire: the revision's own errors are recognised", "[modern_wire]") {
  auto e = RecognizeModernError(Json(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,
      "message":"Unsupported protocol version",
      "data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}})"));
  REQUIRE(e);
  CHECK(e->code == kUnsupportedProtocolVersion);
  CHECK(e->message == "Unsupported protocol version");
  CHECK(e->supported == std::vector<std::string>{"2026-07-28", "2025-11-25"});
  CHECK(RecognizeModernError(Json(R"({"id":null,"error":{"code":-32020,"message":"m"}})")));
  CHECK(RecognizeModernError(Json(R"({"error":{"code":-32021,"message":"m",
      "data":{"requiredCapabilities":{"elicitation":{}}}}})")));
  // Without its supported list an unsupported-version error is not recognised.
  CHECK_FALSE(RecognizeModernError(Json(R"({"error":{"code":-32022,"message":"m"}})")));
  CHECK_FALSE(RecognizeModernError(Json(R"({"error":{"code":-32022,"data":{"supported":[1]}}})")));
  // Legacy and generic codes are not modern errors.
  for (int code : {-32000, -32001, -32002, -32019, -32023, -32600, -32601, -32602}) {
    INFO(code);
    CHECK_FALSE(RecognizeModernError(
        Json(R"({"error":{"code":)" + std::to_string(code) + R"(,"message":"m"}})")));
  }
  CHECK_FALSE(RecognizeModernError(Json(R"({"result":{}})")));
}

TEST_CASE("modern wire: a modern discover answer means modern", "[modern_wire]") {
  EraVerdict v = Judge(200, R"({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete",
      "supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},
      "ttlMs":0,"cacheScope":"private"}})");
  CHECK(v.kind == Kind::kModern);
  CHECK(v.version == "2026-07-28");
  CHECK(v.tools_list_changed);
  // A dual-era server lists both; the modern one is used.
  CHECK(Judge(200, R"({"id":1,"result":{"supportedVersions":["2025-11-25","2026-07-28"]}})").kind ==
        Kind::kModern);
}

TEST_CASE("modern wire: 2025 servers are never taken for modern ones", "[modern_wire]") {
  // The stable conformance suite's servers answer an unknown method with an
  // empty result; SDK 1.x servers with an error, or 400 before initialize.
  CHECK(Judge(200, R"({"jsonrpc":"2.0","id":1,"result":{}})").kind == Kind::kLegacy);
  CHECK(Judge(200, R"({"id":1,"error":{"code":-32601,"message":"Method not found"}})").kind ==
        Kind::kLegacy);
  CHECK(
      Judge(
          400,
          R"({"id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}})")
          .kind == Kind::kLegacy);
  CHECK(Judge(400, R"({"id":1,"error":{"code":-32602,"message":"Invalid params"}})").kind ==
        Kind::kLegacy);
  CHECK(Judge(404, R"({"error":"not found"})").kind == Kind::kLegacy);
  CHECK(Judge(405, R"({"id":1,"error":{"code":-32601,"message":"no"}})").kind == Kind::kLegacy);
  CHECK(JudgeDiscover(nullptr, /*refused=*/true, false).kind == Kind::kLegacy);
  CHECK(JudgeDiscover(nullptr, /*refused=*/false, false).kind == Kind::kLegacy);
  // A discover-shaped result that lists no modern version this client speaks.
  CHECK(Judge(200, R"({"id":1,"result":{"supportedVersions":["2025-11-25"]}})").kind ==
        Kind::kLegacy);
  // A discover result on an error status is no answer.
  CHECK(Judge(500, R"({"id":1,"result":{"supportedVersions":["2026-07-28"]}})").kind ==
        Kind::kLegacy);
}

TEST_CASE("modern wire: an unsupported-version error asks once more at a listed version",
          "[modern_wire]") {
  const std::string body = R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,
      "message":"Unsupported protocol version",
      "data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}})";
  EraVerdict first = Judge(400, body);
  CHECK(first.kind == Kind::kRetry);
  CHECK(first.version == "2026-07-28");
  EraVerdict second = Judge(400, body, /*retried=*/true);
  CHECK(second.kind == Kind::kFail);
  CHECK_THAT(second.reason, Catch::Contains("2026-07-28"));
  // Only legacy versions supported: initialize.
  CHECK(Judge(400, R"({"id":1,"error":{"code":-32022,"message":"m",
      "data":{"supported":["2025-11-25","2025-06-18"]}}})")
            .kind == Kind::kLegacy);
  // Nothing this client speaks.
  EraVerdict none = Judge(400, R"({"id":1,"error":{"code":-32022,"message":"m",
      "data":{"supported":["2027-01-01"]}}})");
  CHECK(none.kind == Kind::kFail);
  CHECK(none.reason == "server supports only protocol versions 2027-01-01");
}

TEST_CASE("modern wire: other modern errors mean a modern server refusing the probe",
          "[modern_wire]") {
  EraVerdict v = Judge(400, R"({"id":1,"error":{"code":-32021,
      "message":"elicitation required","data":{"requiredCapabilities":{"elicitation":{}}}}})");
  CHECK(v.kind == Kind::kFail);
  CHECK(v.reason == "server/discover refused: error -32021: elicitation required");
  CHECK(Judge(400, R"({"id":1,"error":{"code":-32020,"message":"bad header"}})").kind ==
        Kind::kFail);
}

TEST_CASE("modern wire: resultType", "[modern_wire]") {
  CHECK(ResultTypeOf(Json("{}")) == ResultType::kComplete);
  CHECK(ResultTypeOf(Json(R"({"resultType":"complete"})")) == ResultType::kComplete);
  CHECK(ResultTypeOf(Json(R"({"resultType":"input_required"})")) == ResultType::kInputRequired);
  // The tasks extension's handle, which the gateway never asks for.
  CHECK(ResultTypeOf(Json(R"({"resultType":"task"})")) == ResultType::kTask);
  CHECK(ResultTypeOf(Json(R"({"resultType":"later"})")) == ResultType::kInvalid);
  CHECK(ResultTypeOf(Json(R"({"resultType":1})")) == ResultType::kInvalid);
}

TEST_CASE("modern wire: an input request names what the server asked for", "[modern_wire]") {
  const std::string text = InputRequiredText(Json(R"({"resultType":"input_required",
      "inputRequests":{"login":{"method":"elicitation/create","params":{}},
      "llm":{"method":"sampling/createMessage"},"again":{"method":"elicitation/create"},
      "odd":{"method":"x\u0007y"}},"requestState":"abc"})"));
  CHECK_THAT(text, Catch::StartsWith("the server needs interactive input that the gateway "
                                     "cannot give"));
  CHECK_THAT(text, Catch::EndsWith("it asked for elicitation/create, sampling/createMessage, xy"));
  CHECK_THAT(InputRequiredText(Json(R"({"resultType":"input_required","requestState":"s"})")),
             !Catch::Contains("asked for"));
}

TEST_CASE("modern wire: ttlMs", "[modern_wire]") {
  CHECK(TtlOf(Json(R"({"ttlMs":300000})")) == std::chrono::milliseconds(300000));
  CHECK(TtlOf(Json(R"({"ttlMs":0})")) == std::chrono::milliseconds(0));
  CHECK(TtlOf(Json(R"({})")) == std::chrono::milliseconds(0));
  CHECK(TtlOf(Json(R"({"ttlMs":-5})")) == std::chrono::milliseconds(0));
  CHECK(TtlOf(Json(R"({"ttlMs":"60"})")) == std::chrono::milliseconds(0));
  CHECK(TtlOf(Json(R"({"ttlMs":1e300})")) == std::chrono::hours(24));
}

}  // namespace
}  // namespace mcpgw::mcp
