#include "proto/messages.h"

#include <string>

#include <catch2/catch.hpp>

namespace mcpgw::proto {
namespace {

std::string Strip(std::string frame) {
  REQUIRE(!frame.empty());
  REQUIRE(frame.back() == '\n');
  frame.pop_back();
  REQUIRE(frame.find('\n') == std::string::npos);
  return frame;
}

TEST_CASE("a request decodes with its id, method and params", "[proto][messages]") {
  Decoded d = DecodeMessage(
      R"({"jsonrpc":"2.0","id":7,"method":"call_dynamic_tool","params":{"namespace":"a"}})");
  REQUIRE(d.ok);
  CHECK(d.message.type == MessageType::kRequest);
  CHECK(d.message.id == "7");
  CHECK(d.message.method == "call_dynamic_tool");
  REQUIRE(d.message.params->IsObject());
  CHECK(std::string((*d.message.params)["namespace"].GetString()) == "a");
}

TEST_CASE("string ids keep their JSON form, absent params are an empty object",
          "[proto][messages]") {
  Decoded d = DecodeMessage(R"({"jsonrpc":"2.0","id":"a\"b","method":"status"})");
  REQUIRE(d.ok);
  CHECK(d.message.id == R"("a\"b")");
  REQUIRE(d.message.params->IsObject());
  CHECK(d.message.params->MemberCount() == 0);
}

TEST_CASE("a frame without id is a notification", "[proto][messages]") {
  Decoded d = DecodeMessage(R"({"jsonrpc":"2.0","method":"cancel","params":{"id":3}})");
  REQUIRE(d.ok);
  CHECK(d.message.type == MessageType::kNotification);
  CHECK(d.message.id.empty());
}

TEST_CASE("invalid JSON is a parse error with id null", "[proto][messages]") {
  Decoded d = DecodeMessage("{\"jsonrpc\":\"2.0\",");
  REQUIRE(!d.ok);
  CHECK(d.error.code == kCodeParseError);
  CHECK(d.error.id == "null");
  CHECK(!DecodeMessage("{} trailing").ok);
  CHECK(DecodeMessage("\"\xff\"").error.code == kCodeParseError);  // invalid UTF-8
}

TEST_CASE("a frame may open with a byte order mark and its bytes must be UTF-8",
          "[proto][messages]") {
  Decoded d = DecodeMessage("\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}");
  REQUIRE(d.ok);
  CHECK(d.message.method == "m");
  d = DecodeMessage("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"caf\xC3\xA9\xFF\"}");
  REQUIRE_FALSE(d.ok);
  CHECK(d.error.code == kCodeParseError);
  CHECK(d.error.message == "parse error: Invalid encoding in string. (at byte 39)");
}

TEST_CASE("frames that are not JSON-RPC objects are invalid requests", "[proto][messages]") {
  CHECK(DecodeMessage("[1,2]").error.code == kCodeInvalidRequest);
  CHECK(DecodeMessage("42").error.code == kCodeInvalidRequest);
  CHECK(DecodeMessage(R"({"id":1,"method":"status"})").error.code == kCodeInvalidRequest);
  CHECK(DecodeMessage(R"({"jsonrpc":"1.0","id":1,"method":"status"})").error.id == "1");
  Decoded no_method = DecodeMessage(R"({"jsonrpc":"2.0","id":5})");
  CHECK(no_method.error.code == kCodeInvalidRequest);
  CHECK(no_method.error.id == "5");
  CHECK(DecodeMessage(R"({"jsonrpc":"2.0","id":true,"method":"status"})").error.code ==
        kCodeInvalidRequest);
  CHECK(DecodeMessage(R"({"jsonrpc":"2.0","id":1,"method":7})").error.code == kCodeInvalidRequest);
  Decoded bad_params = DecodeMessage(R"({"jsonrpc":"2.0","id":2,"method":"status","params":[1]})");
  CHECK(bad_params.error.code == kCodeInvalidParams);
  CHECK(bad_params.error.id == "2");
}

TEST_CASE("nesting past the depth bound is refused", "[proto][messages]") {
  auto nested = [](int depth) {
    return R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":)" + std::string(depth, '[') +
           std::string(depth, ']') + "}}";
  };
  CHECK(DecodeMessage(nested(kMaxJsonDepth - 2)).ok);
  Decoded deep = DecodeMessage(nested(kMaxJsonDepth));
  CHECK(!deep.ok);
  CHECK(deep.error.code == kCodeInvalidRequest);
  // A hostile depth, never closed, is refused for its depth where it passes the bound.
  Decoded hostile = DecodeMessage(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"a":)" +
                                  std::string(100000, '['));
  CHECK(hostile.error.code == kCodeInvalidRequest);
  CHECK(hostile.error.message == "JSON nested deeper than 128 levels");
  // Brackets inside strings do not count.
  CHECK(DecodeMessage(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{"s":")" +
                      std::string(500, '[') + "\"}}")
            .ok);
}

TEST_CASE("responses decode results and error kinds", "[proto][messages]") {
  Decoded ok = DecodeMessage(Strip(EncodeTextResult("3", "line1\nline2")));
  REQUIRE(ok.ok);
  CHECK(ok.message.type == MessageType::kResponse);
  CHECK(std::string((*ok.message.result)["text"].GetString()) == "line1\nline2");

  for (ErrorKind kind : {ErrorKind::kInvalidRequest, ErrorKind::kNotReady, ErrorKind::kBackend,
                         ErrorKind::kTransport, ErrorKind::kDenied}) {
    Decoded e = DecodeMessage(Strip(EncodeError("\"x\"", kind, "why")));
    REQUIRE(e.ok);
    CHECK(e.message.is_error);
    CHECK(e.message.id == "\"x\"");
    CHECK(e.message.error_code == ErrorCode(kind));
    CHECK(e.message.error_kind == kind);
    CHECK(e.message.error_message == "why");
  }
  // data.kind wins over the code.
  Decoded e = DecodeMessage(
      R"({"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":{"kind":"denied"}}})");
  REQUIRE(e.ok);
  CHECK(e.message.error_kind == ErrorKind::kDenied);
  Decoded proto_err = DecodeMessage(Strip(EncodeProtocolError("null", kCodeMethodNotFound, "no")));
  REQUIRE(proto_err.ok);
  CHECK(proto_err.message.id == "null");
  CHECK(proto_err.message.error_kind == ErrorKind::kInvalidRequest);
}

TEST_CASE("error codes are distinct per kind", "[proto][messages]") {
  CHECK(ErrorCode(ErrorKind::kInvalidRequest) != ErrorCode(ErrorKind::kNotReady));
  CHECK(ErrorCode(ErrorKind::kBackend) != ErrorCode(ErrorKind::kTransport));
  CHECK(ErrorCode(ErrorKind::kDenied) != ErrorCode(ErrorKind::kTransport));
  for (ErrorKind kind : {ErrorKind::kInvalidRequest, ErrorKind::kNotReady, ErrorKind::kBackend,
                         ErrorKind::kTransport, ErrorKind::kDenied, ErrorKind::kUnavailable}) {
    CHECK(ErrorCode(kind) <= -32000);
    CHECK(ErrorCode(kind) >= -32099);
    CHECK(ParseErrorKind(ErrorKindName(kind)) == kind);
  }
  CHECK(ExitCode(ErrorKind::kBackend) == 1);
  CHECK(ExitCode(ErrorKind::kUnavailable) == 7);
  CHECK(!ParseErrorKind("nope"));
}

TEST_CASE("kinds that stay inside a program read as transport on the wire", "[proto][messages]") {
  for (ErrorKind kind :
       {ErrorKind::kInvalidInput, ErrorKind::kNotFound, ErrorKind::kIo, ErrorKind::kInternal}) {
    CHECK(ErrorKindName(kind) == "transport");
    CHECK(ErrorCode(kind) == ErrorCode(ErrorKind::kTransport));
    CHECK(ExitCode(kind) == ExitCode(ErrorKind::kTransport));
  }
  CHECK(!ParseErrorKind("io"));
  CHECK(!ParseErrorKind("invalid_input"));
  const std::string frame = EncodeError("7", ErrorKind::kIo, "disk full");
  CHECK(frame.find(R"("kind":"transport")") != std::string::npos);
}

TEST_CASE("encoders produce one valid line even from hostile text", "[proto][messages]") {
  std::string hostile = std::string("a\nb\r\"c\\\x01") + "\xff\xfe" + "\xe2\x82";
  Decoded d = DecodeMessage(Strip(EncodeTextResult("1", hostile)));
  REQUIRE(d.ok);
  std::string text = (*d.message.result)["text"].GetString();
  CHECK(text.substr(0, 8) == "a\nb\r\"c\\\x01");
  CHECK(text.find("\xEF\xBF\xBD") != std::string::npos);

  Decoded pretty = DecodeMessage(Strip(EncodeResult("1", "{\n  \"a\": 1\n}")));
  REQUIRE(pretty.ok);
  CHECK((*pretty.message.result)["a"].GetInt() == 1);

  Decoded req = DecodeMessage(Strip(EncodeRequest("9", "status", "")));
  REQUIRE(req.ok);
  CHECK(req.message.method == "status");

  Decoded hello = DecodeMessage(Strip(EncodeHello("0", "my \"host\"")));
  REQUIRE(hello.ok);
  CHECK((*hello.message.params)["version"].GetInt() == kProtocolVersion);
  CHECK(std::string((*hello.message.params)["client"].GetString()) == "my \"host\"");

  Decoded cancel = DecodeMessage(Strip(EncodeCancel("\"k\"")));
  REQUIRE(cancel.ok);
  CHECK(cancel.message.type == MessageType::kNotification);
  CHECK(CompactJson((*cancel.message.params)["id"]) == "\"k\"");
}

}  // namespace
}  // namespace mcpgw::proto
