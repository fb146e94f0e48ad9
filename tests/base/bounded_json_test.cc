// base/bounded_json: the byte and depth bounds, numbers, UTF-8, the raw-member
// finder and the compact writer.
#include "base/bounded_json.h"

#include <pthread.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

namespace mcpgw::base {
namespace {

bool Parse(std::string_view text, std::string* error = nullptr, JsonLimits limits = {}) {
  rapidjson::Document doc;
  const Status parsed = ParseBoundedJson(text, limits, doc);
  if (error) *error = parsed.message();
  if (!parsed.ok()) {
    CHECK(parsed.kind() == ErrorKind::kInvalidInput);
    CHECK(doc.IsNull());
  }
  return parsed.ok();
}

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// Parses `text` with default limits and serialises it again.
std::string RoundTrip(std::string_view text) {
  rapidjson::Document doc;
  REQUIRE(ParseBoundedJson(text, {}, doc).ok());
  return ToCompactJson(doc);
}

TEST_CASE("json: a valid message parses into the document", "[base][json]") {
  rapidjson::Document doc;
  REQUIRE(ParseBoundedJson(R"( {"jsonrpc":"2.0","id":1,"result":{"x":[1,2.5,"s",null,true]}} )", {},
                           doc)
              .ok());
  CHECK(doc["id"].GetInt() == 1);
  CHECK(doc["result"]["x"][1].GetDouble() == 2.5);
  CHECK(doc["result"]["x"][2].GetString() == std::string("s"));
}

TEST_CASE("json: the byte bound is checked before parsing", "[base][json]") {
  JsonLimits limits;
  limits.max_bytes = 10;
  std::string error;
  CHECK(Parse("[1,2,3,44]", &error, limits));  // exactly 10 bytes
  CHECK_FALSE(Parse("[1,2,3,444]", &error, limits));
  CHECK(error == "response exceeds 10 bytes");
  // Too big is reported even when the text is not JSON at all.
  CHECK_FALSE(Parse(std::string(11, '@'), &error, limits));
  CHECK(error == "response exceeds 10 bytes");
}

TEST_CASE("json: the byte bound reads in MiB or KiB when it is a whole number of them",
          "[base][json]") {
  std::string error;
  JsonLimits limits;
  limits.max_bytes = 16u << 20;
  CHECK_FALSE(Parse(std::string((16u << 20) + 1, ' '), &error, limits));
  CHECK(error == "response exceeds 16 MiB");
  limits.max_bytes = 4096;
  CHECK_FALSE(Parse(std::string(4097, ' '), &error, limits));
  CHECK(error == "response exceeds 4 KiB");
}

TEST_CASE("json: nesting exactly at the depth bound passes, one deeper fails", "[base][json]") {
  JsonLimits limits;
  limits.max_depth = 5;
  std::string error;
  CHECK(Parse(Nested(5), &error, limits));
  CHECK_FALSE(Parse(Nested(6), &error, limits));
  CHECK(error == "JSON nested deeper than 5");
  CHECK(Parse(R"({"a":{"b":{"c":{"d":{"e":1}}}}})", &error, limits));
  CHECK_FALSE(Parse(R"({"a":{"b":{"c":{"d":{"e":[]}}}}})", &error, limits));
  CHECK(error == "JSON nested deeper than 5");
  // Siblings do not add up: depth is nesting, not count.
  CHECK(Parse("[" + Nested(4) + "," + Nested(4) + "," + Nested(4) + "]", &error, limits));
}

TEST_CASE("json: 100,000 levels of nesting fail cleanly", "[base][json]") {
  std::string error;
  CHECK_FALSE(Parse(Nested(100000), &error));
  CHECK(error == "JSON nested deeper than 128");
  // Unclosed, as a hostile server would send it.
  CHECK_FALSE(Parse(std::string(100000, '['), &error));
  CHECK(error == "JSON nested deeper than 128");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  CHECK_FALSE(Parse(objects, &error));
  CHECK(error == "JSON nested deeper than 128");
}

TEST_CASE("json: checking and finding members stay flat on 100,000 levels", "[base][json]") {
  CHECK(ValidateBoundedJson(Nested(100000), {}).message() == "JSON nested deeper than 128");
  std::string deep = "{\"params\":{\"x\":" + Nested(100000) + ",\"arguments\":{}}}";
  CHECK(RawMember(deep, {"params", "arguments"}) == std::optional<std::string_view>("{}"));
  // An escaped name sends the search to the reader, which must not recurse either.
  std::string escaped = "{\"p\\u0061rams\":{\"x\":" + Nested(100000) + ",\"arguments\":[]}}";
  CHECK(RawMember(escaped, {"params", "arguments"}) == std::optional<std::string_view>("[]"));
}

// Text whose UTF-8 was checked first is parsed recursively (cheaper per value
// than RapidJSON's iterative parse); its depth is the bound that keeps the stack
// small. The deepest bound a setting allows (limits.max_json_depth, 1024) must
// fit on a stack far smaller than a thread's default, objects and arrays alike.
// An unoptimized clang ASan build puts redzones around every frame's locals and
// keeps each in a slot of its own: the same recursion needs several times the
// stack there, so that build checks it on 4 MiB and the other builds on 1 MiB.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && defined(__clang__)
#define MCPGW_TEST_STACK_SCALE 4
#endif
#endif
#ifndef MCPGW_TEST_STACK_SCALE
#define MCPGW_TEST_STACK_SCALE 1
#endif
TEST_CASE("json: the deepest allowed nesting parses within 1 MiB of stack", "[base][json]") {
  struct Job {
    std::string arrays = Nested(1024);
    std::string objects;
    bool parsed = false, frame_parsed = false, refused = false;
  } job;
  for (int i = 0; i < 1024; ++i) job.objects += "{\"a\":";
  job.objects += "1" + std::string(1024, '}');
  auto run = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    rapidjson::Document doc;
    j->parsed = ParseBoundedJson(j->arrays, {1u << 20, 1024}, doc).ok() &&
                ParseBoundedJson(j->objects, {1u << 20, 1024}, doc).ok() &&
                ValidateBoundedJson(j->arrays, {1u << 20, 1024}).ok();
    j->frame_parsed = ParseJsonWithinDepth(j->objects, 1024, doc).ok();
    j->refused = !ParseJsonWithinDepth("[" + j->arrays + "]", 1024, doc).ok();
    return nullptr;
  };
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, MCPGW_TEST_STACK_SCALE * (1u << 20));
  pthread_t thread;
  REQUIRE(pthread_create(&thread, &attr, run, &job) == 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  CHECK(job.parsed);
  CHECK(job.frame_parsed);
  CHECK(job.refused);
}

TEST_CASE("json: the default depth bound is 128", "[base][json]") {
  CHECK(Parse(Nested(128)));
  CHECK_FALSE(Parse(Nested(129)));
}

TEST_CASE("json: syntax errors give the offset and a reason", "[base][json]") {
  std::string error;
  CHECK_FALSE(Parse(R"({"a":1 "b":2})", &error));
  CHECK(error.rfind("invalid JSON at offset 7: ", 0) == 0);
  CHECK_FALSE(Parse("", &error));
  CHECK(error.rfind("invalid JSON at offset 0: ", 0) == 0);
  CHECK_FALSE(Parse("[1,]", &error));
  CHECK_FALSE(Parse("{'a':1}", &error));
  CHECK_FALSE(Parse("NaN", &error));
  CHECK_FALSE(Parse("[Infinity]", &error));
}

TEST_CASE("json: trailing garbage is refused, trailing whitespace is not", "[base][json]") {
  std::string error;
  CHECK(Parse("{} \r\n\t"));
  CHECK_FALSE(Parse("{}x", &error));
  CHECK_FALSE(Parse("{}{}", &error));
  CHECK_FALSE(Parse("1 2", &error));
  // A NUL byte does not end the input early.
  CHECK_FALSE(Parse(std::string_view("{}\0{\"evil\":1}", 13), &error));
  CHECK(error.rfind("invalid JSON at offset 2: ", 0) == 0);
  CHECK_FALSE(Parse(std::string_view("{\"a\":\"x\0\"}", 10), &error));
}

TEST_CASE("json: invalid UTF-8 is refused", "[base][json]") {
  std::string error;
  CHECK(Parse("\"caf\xC3\xA9 \xF0\x9F\x98\x80\""));
  CHECK_FALSE(Parse("\"\xFF\"", &error));
  CHECK_FALSE(Parse("\"\xC3\"", &error));          // truncated sequence
  CHECK_FALSE(Parse("\"\xC0\xAF\"", &error));      // overlong
  CHECK_FALSE(Parse("\"\xED\xA0\x80\"", &error));  // raw surrogate
  CHECK_FALSE(Parse("{\"\xFE\":1}", &error));      // in a key
  // Found past runs of ASCII, at the byte where the bad sequence starts.
  CHECK_FALSE(Parse("{\"abcdefghijklmnop\":\"qrstuvwxyz\xE2\x82\"}", &error));
  CHECK(error == "invalid JSON at offset 31: Invalid encoding in string.");
  CHECK(ValidateBoundedJson("[\"0123456789\",\"\xC0\xAF\"]", {}).message() ==
        "invalid JSON at offset 15: Invalid encoding in string.");
}

TEST_CASE("json: escaped surrogates must pair", "[base][json]") {
  rapidjson::Document doc;
  std::string error;
  REQUIRE(ParseBoundedJson(R"("\ud83d\ude00")", {}, doc).ok());
  CHECK(std::string(doc.GetString()) == "\xF0\x9F\x98\x80");
  CHECK_FALSE(Parse(R"("\ud83d")", &error));
  CHECK_FALSE(Parse(R"("\ude00")", &error));
  CHECK(error.find("surrogate") != std::string::npos);
  CHECK_FALSE(Parse(R"({"\udc00x":1})", &error));
}

TEST_CASE("json: numbers read exactly and keep their integer types", "[base][json]") {
  rapidjson::Document doc;
  REQUIRE(
      ParseBoundedJson("[0e300,1e-400,-1e-400,2.2250738585072011e-308,0.1,1.7976931348623157e308,"
                       "-2147483648,-2147483649,4294967295,4294967296,18446744073709551616,-0,"
                       "0.00000000000000000000000000000000000000000000000001e300]",
                       {}, doc)
          .ok());
  CHECK(doc[0].IsDouble());
  CHECK(doc[0].GetDouble() == 0.0);
  CHECK(doc[1].GetDouble() == 0.0);  // too small for a double: zero
  CHECK(std::signbit(doc[2].GetDouble()));
  CHECK(doc[3].GetDouble() == 2.2250738585072011e-308);
  CHECK(doc[4].GetDouble() == 0.1);
  CHECK(doc[5].GetDouble() == 1.7976931348623157e308);
  CHECK(doc[6].IsInt());
  CHECK(doc[6].GetInt() == INT32_MIN);
  CHECK((doc[7].IsInt64() && !doc[7].IsInt()));
  CHECK(doc[8].IsUint());
  CHECK((doc[9].IsUint64() && !doc[9].IsUint()));
  CHECK(doc[10].IsDouble());
  CHECK(doc[10].GetDouble() == 18446744073709551616.0);
  CHECK(doc[11].IsInt());
  CHECK(doc[12].GetDouble() == 1e250);
}

TEST_CASE("json: numbers too big for a double are refused", "[base][json]") {
  std::string error;
  CHECK_FALSE(Parse("[1e309]", &error));
  CHECK(error.find("Number too big") != std::string::npos);
  CHECK_FALSE(Parse("1.7976931348623159e308", &error));
  CHECK(error.find("Number too big") != std::string::npos);
  CHECK_FALSE(Parse("-1e3092233720368", &error));
}

TEST_CASE("json: a failed parse leaves a null document", "[base][json]") {
  rapidjson::Document doc;
  doc.SetObject();
  CHECK_FALSE(ParseBoundedJson("[1,", {}, doc).ok());
  CHECK(doc.IsNull());
}

TEST_CASE("json: compact serialisation", "[base][json]") {
  CHECK(RoundTrip(R"( { "a" : [ 1 , -2 , 3.25 , true , false , null ] , "b" : { } } )") ==
        R"({"a":[1,-2,3.25,true,false,null],"b":{}})");
  CHECK(RoundTrip("[18446744073709551615,-9223372036854775808,4294967296]") ==
        "[18446744073709551615,-9223372036854775808,4294967296]");
  CHECK(RoundTrip("[1.0,1e300,-0.0,0.1]") == "[1.0,1e+300,-0.0,0.1]");
  CHECK(RoundTrip(R"({"k\"ey":"line\nbreak"})") == R"({"k\"ey":"line\nbreak"})");
  // Member order is kept.
  CHECK(RoundTrip(R"({"z":1,"a":2})") == R"({"z":1,"a":2})");
}

TEST_CASE("json: canonical serialisation sorts members at every level", "[base][json]") {
  auto canonical = [](const char* text) {
    rapidjson::Document doc;
    REQUIRE(ParseBoundedJson(text, {}, doc).ok());
    return CanonicalJson(doc);
  };
  CHECK(canonical(R"({"z":1,"a":{"y":[{"b":2,"a":1}],"x":null},"m":"\u00e9"})") ==
        "{\"a\":{\"x\":null,\"y\":[{\"a\":1,\"b\":2}]},\"m\":\"\xC3\xA9\",\"z\":1}");
  // Member order alone never changes the text; a value does.
  CHECK(canonical(R"({"type":"object","properties":{"q":{"type":"string"}}})") ==
        canonical(R"({ "properties" : { "q" : { "type" : "string" } }, "type" : "object" })"));
  CHECK(canonical(R"({"type":"object"})") != canonical(R"({"type":"array"})"));
  // Byte order: upper case before lower case, shorter prefix first.
  CHECK(canonical(R"({"b":1,"B":2,"bb":3})") == R"({"B":2,"b":1,"bb":3})");
}

TEST_CASE("json: compact serialisation reparses to the same text", "[base][json]") {
  const std::string once =
      RoundTrip(R"({"s":"\u0001\u2028\ud83d\ude00","n":[1.5e-7,12345678901234]})");
  CHECK(RoundTrip(once) == once);
}

TEST_CASE("json: AppendCompactJson stops past its bound", "[base][json]") {
  rapidjson::Document doc;
  REQUIRE(ParseBoundedJson(R"({"a":"0123456789"})", {}, doc).ok());  // 18 bytes
  std::string out;
  CHECK(AppendCompactJson(out, doc, 18));
  CHECK(out == R"({"a":"0123456789"})");
  out.clear();
  CHECK_FALSE(AppendCompactJson(out, doc, 17));
}

TEST_CASE("json: RawMember finds the exact bytes of a member", "[base][json]") {
  const std::string frame =
      R"({"jsonrpc":"2.0","id":3,"method":"call_dynamic_tool","params":{"namespace":"a",)"
      R"("x":{"arguments":{"no":1}},"list":[{"arguments":2}],)"
      R"("arguments" :  {"n":123456789012345678901234567890,"t":1e-400,"s":"\u00e9"} ,"z":1}})";
  auto args = RawMember(frame, {"params", "arguments"});
  REQUIRE(args.has_value());
  CHECK(*args == R"({"n":123456789012345678901234567890,"t":1e-400,"s":"\u00e9"})");
  CHECK(RawMember(frame, {"params", "namespace"}) == std::optional<std::string_view>("\"a\""));
  CHECK(RawMember(frame, {"id"}) == std::optional<std::string_view>("3"));
  CHECK(RawMember(frame, {"params", "z"}) == std::optional<std::string_view>("1"));
  CHECK_FALSE(RawMember(frame, {"params", "nothing"}).has_value());
  CHECK_FALSE(RawMember(frame, {"arguments"}).has_value());
  CHECK_FALSE(RawMember("[{\"arguments\":1}]", {"arguments"}).has_value());
  CHECK(RawMember(R"({"params":[]})", {"params"}) == std::optional<std::string_view>("[]"));
}

TEST_CASE("json: RawMember matches names the way a JSON reader decodes them", "[base][json]") {
  // An escaped name is the name it decodes to.
  CHECK(RawMember(R"({"par\u0061ms":{"arguments":{"a":1}}})", {"params", "arguments"}) ==
        std::optional<std::string_view>(R"({"a":1})"));
  CHECK_FALSE(RawMember(R"({"params\"":{"arguments":1}})", {"params", "arguments"}).has_value());
  // Strings holding brackets, quotes and backslashes do not end a value early.
  CHECK(RawMember(R"({"a":"}\"]","b":{"c":"{[\\","d":[1,{"e":"]"}]},"arguments":true})", {"b"}) ==
        std::optional<std::string_view>(R"({"c":"{[\\","d":[1,{"e":"]"}]})"));
  CHECK(RawMember(R"({"a":"}\"]","arguments":  -1.5e3  })", {"arguments"}) ==
        std::optional<std::string_view>("-1.5e3"));
  // An escaped backslash before an escaped quote: the string goes on.
  CHECK(RawMember(R"({"a":"x\\\"}\\","b":2})", {"b"}) == std::optional<std::string_view>("2"));
  CHECK(RawMember(R"({"a":"\\\\","b":[3]})", {"b"}) == std::optional<std::string_view>("[3]"));
  // A name seen twice: the first that leads to the whole path.
  CHECK(RawMember(R"({"params":{"x":1},"params":{"arguments":[2]}})", {"params", "arguments"}) ==
        std::optional<std::string_view>("[2]"));
  CHECK(RawMember(R"( {"params":{"arguments":null}} )", {"params", "arguments"}) ==
        std::optional<std::string_view>("null"));
  CHECK(RawMember(R"({})", {"params"}) == std::nullopt);
  CHECK(RawMember(R"({"params":{}})", {"params", "arguments"}) == std::nullopt);
  CHECK(RawMember(R"({"params":"arguments"})", {"params", "arguments"}) == std::nullopt);
}

TEST_CASE("json: ValidateBoundedJson checks without converting", "[base][json]") {
  CHECK(
      ValidateBoundedJson(R"({"n":123456789012345678901234567890,"t":1e-400,"u":-0.0})", {}).ok());
  const Status surrogate = ValidateBoundedJson(R"({"s":"\udc00"})", {});
  CHECK_FALSE(surrogate.ok());
  CHECK(surrogate.message().find("unpaired UTF-16 surrogate") != std::string::npos);
  CHECK_FALSE(ValidateBoundedJson("{\"s\":\"\xFF\"}", {}).ok());
  const Status deep = ValidateBoundedJson(Nested(9), JsonLimits{1024, 8});
  CHECK(deep.kind() == ErrorKind::kInvalidInput);
  CHECK(deep.message() == "JSON nested deeper than 8");
  CHECK(ValidateBoundedJson(Nested(8), JsonLimits{1024, 8}).ok());
  CHECK_FALSE(ValidateBoundedJson("{} {}", {}).ok());
  CHECK_FALSE(ValidateBoundedJson("{\"a\":", {}).ok());
}

}  // namespace
}  // namespace mcpgw::base
