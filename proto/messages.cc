// Decoding and encoding of local-protocol messages (see messages.h).
#include "proto/messages.h"

#include <charconv>

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/bounded_json.h"
#include "base/json_text.h"

namespace mcpgw::proto {
namespace {

std::optional<ErrorKind> KindFromCode(int code) {
  if (code == kCodeParseError || (code <= kCodeInvalidRequest && code >= kCodeInvalidParams)) {
    return ErrorKind::kInvalidRequest;
  }
  for (ErrorKind kind : {ErrorKind::kInvalidRequest, ErrorKind::kNotReady, ErrorKind::kBackend,
                         ErrorKind::kTransport, ErrorKind::kDenied, ErrorKind::kUnavailable}) {
    if (ErrorCode(kind) == code) return kind;
  }
  return std::nullopt;
}

Decoded Fail(int code, std::string message, std::string id = "null") {
  Decoded d;
  d.error = DecodeError{code, std::move(message), std::move(id)};
  return d;
}

// Appends `json`, replacing raw newlines (only possible as whitespace in
// valid JSON) so the frame stays one line.
void AppendOneLine(std::string* out, std::string_view json) {
  size_t from = out->size();
  out->append(json);
  for (size_t i = from; i < out->size(); ++i) {
    if ((*out)[i] == '\n' || (*out)[i] == '\r') (*out)[i] = ' ';
  }
}

// The frame's start, with room for `more` bytes after it.
std::string Envelope(std::string_view id, size_t more = 32) {
  constexpr std::string_view kStart = R"({"jsonrpc":"2.0","id":)";
  if (id.empty()) id = "null";
  std::string out;
  out.reserve(kStart.size() + id.size() + more);
  out.append(kStart).append(id);
  return out;
}

}  // namespace

int ErrorCode(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidRequest:
      return -32001;
    case ErrorKind::kNotReady:
      return -32002;
    case ErrorKind::kBackend:
      return -32003;
    case ErrorKind::kTransport:
      return -32004;
    case ErrorKind::kDenied:
      return -32005;
    case ErrorKind::kUnavailable:
      return -32006;
    default:  // a kind hosts never see reads as transport
      return -32004;
  }
}

std::string CompactJson(const rapidjson::Value& value) {
  // Integers (the usual id) as the writer would put them, without its buffer.
  if (value.IsInt64() || value.IsUint64()) {
    char digits[24];
    const std::to_chars_result r =
        value.IsInt64() ? std::to_chars(digits, digits + sizeof digits, value.GetInt64())
                        : std::to_chars(digits, digits + sizeof digits, value.GetUint64());
    return std::string(digits, r.ptr);
  }
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> writer(sb);
  value.Accept(writer);
  return std::string(sb.GetString(), sb.GetSize());
}

Decoded DecodeMessage(std::string_view frame) {
  static_assert(sizeof(FrameArena) <= 1024, "a frame's arena stays a small block");
  auto arena = std::make_unique<FrameArena>();
  rapidjson::Document* doc = &arena->doc();
  const base::FrameParse read = base::ParseJsonWithinDepth(frame, kMaxJsonDepth, *doc);
  if (read.too_deep) {
    return Fail(kCodeInvalidRequest,
                "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  if (!read.ok()) {
    return Fail(kCodeParseError, std::string("parse error: ") +
                                     rapidjson::GetParseError_En(read.error) + " (at byte " +
                                     std::to_string(read.offset) + ")");
  }
  if (!doc->IsObject()) return Fail(kCodeInvalidRequest, "a frame must be a JSON object");

  Decoded d;
  Message& m = d.message;
  const rapidjson::Value& root = *doc;
  auto id_it = root.FindMember("id");
  if (id_it != root.MemberEnd()) {
    const rapidjson::Value& id = id_it->value;
    // A null id only appears on error responses to unreadable frames.
    bool null_response = id.IsNull() && !root.HasMember("method");
    if (!id.IsString() && !id.IsNumber() && !null_response) {
      return Fail(kCodeInvalidRequest, "\"id\" must be a number or a string");
    }
    m.id = CompactJson(id);
  }
  auto version = root.FindMember("jsonrpc");
  if (version == root.MemberEnd() || !version->value.IsString() ||
      std::string_view(version->value.GetString(), version->value.GetStringLength()) != "2.0") {
    return Fail(kCodeInvalidRequest, "\"jsonrpc\" must be \"2.0\"", m.id.empty() ? "null" : m.id);
  }

  auto method = root.FindMember("method");
  if (method != root.MemberEnd()) {
    if (!method->value.IsString()) {
      return Fail(kCodeInvalidRequest, "\"method\" must be a string", m.id.empty() ? "null" : m.id);
    }
    m.type = m.id.empty() ? MessageType::kNotification : MessageType::kRequest;
    m.method.assign(method->value.GetString(), method->value.GetStringLength());
    auto params = root.FindMember("params");
    if (params == root.MemberEnd() || params->value.IsNull()) {
      doc->AddMember("params", rapidjson::Value(rapidjson::kObjectType), doc->GetAllocator());
      params = doc->FindMember("params");
    } else if (!params->value.IsObject()) {
      return Fail(kCodeInvalidParams, "\"params\" must be an object", m.id.empty() ? "null" : m.id);
    }
    m.params = &params->value;
    m.doc = std::move(arena);
    d.ok = true;
    return d;
  }

  auto result = root.FindMember("result");
  auto error = root.FindMember("error");
  bool has_result = result != root.MemberEnd(), has_error = error != root.MemberEnd();
  if (m.id.empty() || has_result == has_error) {
    return Fail(kCodeInvalidRequest,
                "a frame needs \"method\" (request) or \"id\" with one of \"result\"/\"error\"",
                m.id.empty() ? "null" : m.id);
  }
  m.type = MessageType::kResponse;
  if (has_result) {
    m.result = &result->value;
  } else {
    const rapidjson::Value& e = error->value;
    if (!e.IsObject()) return Fail(kCodeInvalidRequest, "\"error\" must be an object", m.id);
    auto code = e.FindMember("code");
    auto message = e.FindMember("message");
    if (code == e.MemberEnd() || !code->value.IsInt() || message == e.MemberEnd() ||
        !message->value.IsString()) {
      return Fail(kCodeInvalidRequest,
                  "an error needs an integer \"code\" and a string \"message\"", m.id);
    }
    m.is_error = true;
    m.error_code = code->value.GetInt();
    m.error_message.assign(message->value.GetString(), message->value.GetStringLength());
    m.error_kind = KindFromCode(m.error_code);
    auto data = e.FindMember("data");
    if (data != e.MemberEnd() && data->value.IsObject()) {
      auto kind = data->value.FindMember("kind");
      if (kind != data->value.MemberEnd() && kind->value.IsString()) {
        auto parsed = ParseErrorKind(
            std::string_view(kind->value.GetString(), kind->value.GetStringLength()));
        if (parsed) m.error_kind = parsed;  // the kind in data is authoritative
      }
    }
  }
  m.doc = std::move(arena);
  d.ok = true;
  return d;
}

std::string EncodeRequest(std::string_view id, std::string_view method,
                          std::string_view params_json) {
  std::string out = Envelope(id);
  out.append(",\"method\":");
  AppendJsonString(&out, method);
  out.append(",\"params\":");
  AppendOneLine(&out, params_json.empty() ? std::string_view("{}") : params_json);
  out.append("}\n");
  return out;
}

std::string EncodeHello(std::string_view id, std::string_view client_name) {
  std::string params = "{\"version\":" + std::to_string(kProtocolVersion) + ",\"client\":";
  AppendJsonString(&params, client_name);
  params.push_back('}');
  return EncodeRequest(id, kHello, params);
}

std::string EncodeCancel(std::string_view id) {
  std::string out = R"({"jsonrpc":"2.0","method":"cancel","params":{"id":)";
  out.append(id);
  out.append("}}\n");
  return out;
}

std::string EncodeResult(std::string_view id, std::string_view result_json) {
  std::string out = Envelope(id);
  out.append(",\"result\":");
  AppendOneLine(&out, result_json);
  out.append("}\n");
  return out;
}

std::string EncodeTextResult(std::string_view id, std::string_view text) {
  std::string out = Envelope(id, text.size() + 24);
  out.append(",\"result\":{\"text\":");
  AppendJsonString(&out, text);
  out.append("}}\n");
  return out;
}

std::string EncodeTextLiteralResult(std::string_view id, std::string_view literal) {
  std::string out = Envelope(id, literal.size() + 24);
  out.append(",\"result\":{\"text\":");
  out.append(literal);
  out.append("}}\n");
  return out;
}

std::string EncodeHelloResult(std::string_view id, std::string_view daemon) {
  std::string out = Envelope(id);
  out.append(",\"result\":{\"version\":" + std::to_string(kProtocolVersion) + ",\"daemon\":");
  AppendJsonString(&out, daemon);
  out.append("}}\n");
  return out;
}

namespace {
std::string EncodeErrorWithCode(std::string_view id, int code, ErrorKind kind,
                                std::string_view message) {
  std::string out = Envelope(id);
  out.append(",\"error\":{\"code\":" + std::to_string(code) + ",\"message\":");
  AppendJsonString(&out, message);
  out.append(",\"data\":{\"kind\":");
  AppendJsonString(&out, ErrorKindName(kind));
  out.append("}}}\n");
  return out;
}
}  // namespace

std::string EncodeError(std::string_view id, ErrorKind kind, std::string_view message) {
  return EncodeErrorWithCode(id, ErrorCode(kind), kind, message);
}

std::string EncodeProtocolError(std::string_view id, int code, std::string_view message) {
  return EncodeErrorWithCode(id, code, ErrorKind::kInvalidRequest, message);
}

}  // namespace mcpgw::proto
