#include "daemon/mcp/param_headers.h"

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

ParamHeaders Valid(std::string_view schema) {
  auto read = ReadParamHeaders(Json(schema));
  INFO(schema);
  if (auto* error = std::get_if<std::string>(&read)) FAIL("refused: " << *error);
  return std::get<ParamHeaders>(read);
}

// The reason a schema is refused ("" when it is accepted).
std::string Refused(std::string_view schema) {
  auto read = ReadParamHeaders(Json(schema));
  auto* error = std::get_if<std::string>(&read);
  return error ? *error : std::string();
}

// One property `p` with the given schema members.
std::string OneProperty(std::string_view members) {
  return R"({"type":"object","properties":{"p":{)" + std::string(members) + "}}}";
}

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers Values(std::string_view schema, std::string_view arguments) {
  return ParamHeaderValues(Valid(schema), Json(arguments));
}

TEST_CASE("param headers: the revision's example tool is read", "[param_headers]") {
  ParamHeaders params = Valid(R"({"type":"object","properties":{
      "region":{"type":"string","description":"where","x-mcp-header":"Region"},
      "query":{"type":"string"}},"required":["region","query"]})");
  REQUIRE(params.size() == 1);
  CHECK(params[0].name == "Region");
  CHECK(params[0].path == std::vector<std::string>{"region"});
}

TEST_CASE("param headers: a schema without annotations has none", "[param_headers]") {
  CHECK(Valid(R"({"type":"object"})").empty());
  CHECK(Valid(R"({"type":"object","properties":{"a":{"type":"number"}}})").empty());
  CHECK(Valid(R"({})").empty());
}

TEST_CASE("param headers: nested properties are reachable", "[param_headers]") {
  ParamHeaders params = Valid(R"({"type":"object","properties":{"outer":{"type":"object",
      "properties":{"inner":{"type":"integer","x-mcp-header":"Inner"}}}}})");
  REQUIRE(params.size() == 1);
  CHECK(params[0].path == std::vector<std::string>{"outer", "inner"});
}

TEST_CASE("param headers: each invalid annotation of the conformance suite is refused",
          "[param_headers]") {
  CHECK_THAT(Refused(OneProperty(R"("type":"string","x-mcp-header":"")")),
             Catch::Contains("is empty"));
  CHECK_THAT(Refused(OneProperty(R"("type":"object","x-mcp-header":"Data")")),
             Catch::Contains("only string, integer or boolean"));
  CHECK_THAT(Refused(OneProperty(R"("type":"array","items":{"type":"string"},"x-mcp-header":"I")")),
             Catch::Contains("only string, integer or boolean"));
  CHECK_THAT(Refused(OneProperty(R"("type":"null","x-mcp-header":"Nil")")),
             Catch::Contains("only string, integer or boolean"));
  CHECK_THAT(Refused(R"({"type":"object","properties":{
      "field1":{"type":"string","x-mcp-header":"Region"},
      "field2":{"type":"string","x-mcp-header":"Region"}}})"),
             Catch::Contains("repeats"));
  CHECK_THAT(Refused(R"({"type":"object","properties":{
      "field1":{"type":"string","x-mcp-header":"MyField"},
      "field2":{"type":"string","x-mcp-header":"myfield"}}})"),
             Catch::Contains("repeats \"MyField\""));
  for (std::string_view bad :
       {"My Region", "Region:Primary", "R\xC3\xA9gion", "Region\\t1", "Region\\n", "a/b", "(x)"}) {
    INFO(bad);
    CHECK_THAT(
        Refused(OneProperty(R"("type":"string","x-mcp-header":")" + std::string(bad) + "\"")),
        Catch::Contains("is not a valid header name"));
  }
}

TEST_CASE("param headers: number, missing and mixed types are refused", "[param_headers]") {
  CHECK_FALSE(Refused(OneProperty(R"("type":"number","x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("$ref":"#/$defs/x","x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("type":["string","object"],"x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("type":["null"],"x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("type":[],"x-mcp-header":"N")")).empty());
  CHECK_FALSE(Refused(OneProperty(R"("type":"string","x-mcp-header":7)")).empty());
  // Every primitive, and a nullable one, is fine.
  for (std::string_view type :
       {R"("string")", R"("integer")", R"("boolean")", R"(["string","null"])"}) {
    INFO(type);
    CHECK(
        Refused(OneProperty(R"("type":)" + std::string(type) + R"(,"x-mcp-header":"N")")).empty());
  }
}

TEST_CASE("param headers: annotations off the properties chain are refused", "[param_headers]") {
  const std::string s = R"({"type":"string","x-mcp-header":"X"})";
  for (const std::string& schema : std::vector<std::string>{
           R"({"type":"object","x-mcp-header":"Root"})",
           R"({"type":"object","properties":{"list":{"type":"array","items":)" + s + "}}}",
           R"({"type":"object","properties":{"a":{"oneOf":[)" + s + "]}}}",
           R"({"type":"object","anyOf":[{"properties":{"a":)" + s + "}}]}",
           R"({"type":"object","allOf":[{"properties":{"a":)" + s + "}}]}",
           R"({"type":"object","not":{"properties":{"a":)" + s + "}}}",
           R"({"type":"object","if":{"properties":{"a":)" + s + R"(}},"then":{}})",
           R"({"type":"object","$defs":{"x":)" + s + "}}",
           R"({"type":"object","additionalProperties":)" + s + "}",
           R"({"type":"object","patternProperties":{"^a":)" + s + "}}"}) {
    INFO(schema);
    CHECK_THAT(Refused(schema), Catch::Contains("not reachable") || Catch::Contains("root"));
  }
}

TEST_CASE("param headers: instance values are data, not annotations", "[param_headers]") {
  CHECK(Valid(R"({"type":"object","default":{"x-mcp-header":""},
      "properties":{"a":{"type":"string","enum":[{"x-mcp-header":1}],
      "examples":[{"x-mcp-header":" "}],"const":{"x-mcp-header":[]}}}})")
            .empty());
}

TEST_CASE("param headers: a tool may not ask for too many headers", "[param_headers]") {
  std::string schema = R"({"type":"object","properties":{)";
  for (size_t i = 0; i <= kMaxParamHeaders; ++i) {
    if (i > 0) schema += ',';
    schema += "\"p" + std::to_string(i) + R"(":{"type":"string","x-mcp-header":"H)" +
              std::to_string(i) + "\"}";
  }
  schema += "}}";
  CHECK_THAT(Refused(schema), Catch::Contains("more than 64"));
  CHECK_THAT(Refused(OneProperty(R"("type":"string","x-mcp-header":")" +
                                 std::string(kMaxParamHeaderNameBytes + 1, 'a') + "\"")),
             Catch::Contains("longer than"));
}

TEST_CASE("param headers: values are encoded as the revision says", "[param_headers]") {
  const std::string schema = R"({"type":"object","properties":{
      "region":{"type":"string","x-mcp-header":"Region"},
      "priority":{"type":"integer","x-mcp-header":"Priority"},
      "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
      "debug":{"type":"boolean","x-mcp-header":"Debug"},
      "empty":{"type":"string","x-mcp-header":"EmptyVal"},
      "method":{"type":"string","x-mcp-header":"Method"},
      "greeting":{"type":"string","x-mcp-header":"Greeting"},
      "padded":{"type":"string","x-mcp-header":"Padded"},
      "lines":{"type":"string","x-mcp-header":"Lines"},
      "tab":{"type":"string","x-mcp-header":"Tab"},
      "inner":{"type":"string","x-mcp-header":"Inner"},
      "fake":{"type":"string","x-mcp-header":"Fake"},
      "query":{"type":"string"}}})";
  Headers got = Values(schema, R"({"region":"us-west1","priority":42,"verbose":false,
      "debug":true,"empty":"","method":"test-method","greeting":"Hello, 世界",
      "padded":" padded ","lines":"line1\nline2","tab":"\tindented","inner":"us west 1",
      "fake":"=?base64?literal?=","query":"SELECT * FROM users"})");
  CHECK(got == Headers{{"Mcp-Param-Region", "us-west1"},
                       {"Mcp-Param-Priority", "42"},
                       {"Mcp-Param-Verbose", "false"},
                       {"Mcp-Param-Debug", "true"},
                       {"Mcp-Param-EmptyVal", ""},
                       {"Mcp-Param-Method", "test-method"},
                       {"Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="},
                       {"Mcp-Param-Padded", "=?base64?IHBhZGRlZCA=?="},
                       {"Mcp-Param-Lines", "=?base64?bGluZTEKbGluZTI=?="},
                       {"Mcp-Param-Tab", "=?base64?CWluZGVudGVk?="},
                       {"Mcp-Param-Inner", "us west 1"},
                       {"Mcp-Param-Fake", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="}});
}

TEST_CASE("param headers: null, absent and non-primitive values send no header",
          "[param_headers]") {
  const std::string schema = R"({"type":"object","properties":{
      "a":{"type":"string","x-mcp-header":"A"},
      "b":{"type":"boolean","x-mcp-header":"B"},
      "c":{"type":["string","null"],"x-mcp-header":"C"},
      "o":{"type":"object","properties":{"d":{"type":"integer","x-mcp-header":"D"}}}}})";
  CHECK(Values(schema, R"({"a":"x","b":null})") == Headers{{"Mcp-Param-A", "x"}});
  CHECK(Values(schema, R"({"a":{"k":1},"b":[true],"c":null})").empty());
  CHECK(Values(schema, R"({})").empty());
  CHECK(Values(schema, R"({"o":"not an object"})").empty());
  CHECK(Values(schema, R"({"o":{"d":-7}})") == Headers{{"Mcp-Param-D", "-7"}});
}

TEST_CASE("param headers: integral numbers are sent in decimal", "[param_headers]") {
  const std::string schema = OneProperty(R"("type":"integer","x-mcp-header":"N")");
  auto one = [&](std::string_view value) {
    Headers h = Values(schema, R"({"p":)" + std::string(value) + "}");
    REQUIRE(h.size() == 1);
    return h[0].second;
  };
  CHECK(one("0") == "0");
  CHECK(one("-7") == "-7");
  CHECK(one("42.0") == "42");
  CHECK(one("1e3") == "1000");
  CHECK(one("9007199254740991") == "9007199254740991");
  CHECK(one("18446744073709551615") == "18446744073709551615");
  CHECK(one("3.5") == "3.5");  // not an integer: the server will refuse it, but it is sent as is
}

TEST_CASE("param headers: EncodeHeaderValue keeps plain ASCII and wraps the rest",
          "[param_headers]") {
  CHECK(EncodeHeaderValue("") == "");
  CHECK(EncodeHeaderValue("a b") == "a b");
  CHECK(EncodeHeaderValue("~!@#$%^&*()") == "~!@#$%^&*()");
  CHECK(EncodeHeaderValue(" a") == "=?base64?IGE=?=");
  CHECK(EncodeHeaderValue("a ") == "=?base64?YSA=?=");
  CHECK(EncodeHeaderValue("a\r\nb") == "=?base64?YQ0KYg==?=");
  CHECK(EncodeHeaderValue(std::string_view("\0", 1)) == "=?base64?AA==?=");
  CHECK(EncodeHeaderValue("\x7F") == "=?base64?fw==?=");
  CHECK(EncodeHeaderValue("=?base64?=") == "=?base64?=");  // too short to be the sentinel
}

}  // namespace
}  // namespace mcpgw::mcp
