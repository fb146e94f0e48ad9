// JSON-RPC builders and the classifier of incoming messages.
#include <catch2/catch.hpp>

#include <string>

#include <rapidjson/document.h>

#include "daemon/mcp/jsonrpc.h"

namespace mcpgw::mcp {
namespace {

rapidjson::Document Parse(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

Message Classify(const std::string& text, rapidjson::Document& doc) {
  doc = Parse(text);
  return ClassifyMessage(doc);
}

TEST_CASE("jsonrpc: initialize", "[jsonrpc]") {
  const std::string text = BuildInitialize(1, "1.2.3");
  CHECK(text ==
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"mcpgw\",\"version\":\"1.2.3\"}}}");
  Parse(BuildInitialize(2, "quote\"and\\back"));  // stays valid JSON
}

TEST_CASE("jsonrpc: notifications and requests", "[jsonrpc]") {
  CHECK(BuildInitialized() == "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  CHECK(BuildToolsList(3, std::nullopt) ==
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
  rapidjson::Document page = Parse(BuildToolsList(4, std::string("a\"b\n")));
  CHECK(std::string(page["params"]["cursor"].GetString()) == "a\"b\n");
  CHECK(BuildCancelled(9, "cancelled by the client") ==
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
        "\"params\":{\"requestId\":9,\"reason\":\"cancelled by the client\"}}");
}

TEST_CASE("jsonrpc: tools/call splices the arguments text as is", "[jsonrpc]") {
  const std::string params = BuildToolsCallParams("we\"ird", "{\"n\":1.50,\"s\":\"\\u00e9\"}");
  CHECK(params == "{\"name\":\"we\\\"ird\",\"arguments\":{\"n\":1.50,\"s\":\"\\u00e9\"}}");
  CHECK(BuildRequest(5, "tools/call", params) ==
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":" + params + "}");
}

TEST_CASE("jsonrpc: replies echo the server's id", "[jsonrpc]") {
  rapidjson::Document doc = Parse("[7, \"abc\", -1.5]");
  CHECK(BuildEmptyResult(doc[0]) == "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
  CHECK(BuildEmptyResult(doc[1]) == "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{}}");
  Parse(BuildEmptyResult(doc[2]));
  CHECK(BuildErrorResponse(doc[1], kMethodNotFound, "method not supported by this client") ==
        "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"error\":{\"code\":-32601,"
        "\"message\":\"method not supported by this client\"}}");
}

TEST_CASE("jsonrpc: classifies responses", "[jsonrpc]") {
  rapidjson::Document doc;
  Message m = Classify("{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"x\":1}}", doc);
  CHECK(m.kind == MessageKind::kResponse);
  CHECK(m.int_id == 12);
  CHECK_FALSE(m.is_error);
  REQUIRE(m.result != nullptr);
  CHECK(m.result->IsObject());

  m = Classify("{\"id\":\"12\",\"result\":null}", doc);  // no "jsonrpc": tolerated
  CHECK(m.kind == MessageKind::kResponse);
  CHECK_FALSE(m.int_id.has_value());  // a string id never matches an integer one
  REQUIRE(m.id != nullptr);
  CHECK(m.id->IsString());

  m = Classify("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"bad\"}}",
               doc);
  CHECK(m.kind == MessageKind::kResponse);
  CHECK(m.is_error);
  CHECK(m.error_code == -32602);
  CHECK(m.error_message == "bad");
  CHECK(m.result == nullptr);

  m = Classify("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":\"x\",\"message\":7}}", doc);
  CHECK(m.kind == MessageKind::kResponse);
  CHECK(m.is_error);
  CHECK_FALSE(m.int_id.has_value());
  CHECK(m.error_code == 0);
  CHECK(m.error_message.empty());

  m = Classify("{\"id\":1.5,\"result\":{}}", doc);
  CHECK(m.kind == MessageKind::kResponse);
  CHECK_FALSE(m.int_id.has_value());
}

TEST_CASE("jsonrpc: classifies requests and notifications", "[jsonrpc]") {
  rapidjson::Document doc;
  Message m = Classify("{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}", doc);
  CHECK(m.kind == MessageKind::kRequest);
  CHECK(m.method == "ping");
  REQUIRE(m.id != nullptr);
  CHECK(m.id->IsString());

  m = Classify(
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\","
      "\"params\":{}}",
      doc);
  CHECK(m.kind == MessageKind::kNotification);
  CHECK(m.method == "notifications/tools/list_changed");
  CHECK(m.id == nullptr);
  REQUIRE(m.params != nullptr);
}

TEST_CASE("jsonrpc: hostile shapes are invalid", "[jsonrpc]") {
  const char* text =
      GENERATE("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]",  // a batch
               "\"ping\"", "null", "42", "{}",
               "{\"method\":7}",                             // method not a string
               "{\"method\":\"ping\",\"id\":{}}",            // id of another type
               "{\"method\":\"ping\",\"id\":null}",          // a request with a null id
               "{\"method\":\"ping\",\"params\":\"x\"}",     // params neither object nor array
               "{\"method\":\"x\",\"id\":1,\"result\":{}}",  // request and response at once
               "{\"id\":1}",                                 // neither result nor error
               "{\"id\":1,\"result\":{},\"error\":{}}",      // both
               "{\"result\":{}}",                            // a response without id
               "{\"id\":null,\"result\":{}}",                // a null id only goes with an error
               "{\"id\":[1],\"error\":{\"code\":1}}",        // array id
               "{\"id\":1,\"error\":\"boom\"}");             // error not an object
  rapidjson::Document doc;
  CAPTURE(text);
  CHECK(Classify(text, doc).kind == MessageKind::kInvalid);
}

TEST_CASE("jsonrpc: accepted protocol versions", "[jsonrpc]") {
  CHECK(IsSupportedProtocolVersion("2025-11-25"));
  CHECK(IsSupportedProtocolVersion("2025-06-18"));
  CHECK(IsSupportedProtocolVersion("2025-03-26"));
  CHECK_FALSE(IsSupportedProtocolVersion("2024-11-05"));
  CHECK_FALSE(IsSupportedProtocolVersion("2026-07-28"));
  CHECK_FALSE(IsSupportedProtocolVersion(""));
}

}  // namespace
}  // namespace mcpgw::mcp
