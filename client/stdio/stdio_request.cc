#include "client/stdio/stdio_request.h"

#include <algorithm>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "base/json_reader.h"
#include "base/json_stream.h"
#include "base/utf8.h"

namespace mcpgw::cli {
namespace {

using rapidjson::SizeType;

// The handler notes where values lie, so the reader must not copy the stream
// into its locals: with JsonTextStream and the iterative parser Tell() is the
// '{' or '[' at StartObject/StartArray, the '}' or ']' at their end, just past
// the token at a scalar and just past the closing quote at a key.
using LineStream = base::JsonTextStream;

// Forwards every event to the Document and notes where the tracked values lie.
class SpanHandler {
 public:
  SpanHandler(rapidjson::Document& doc, const LineStream& stream, std::string_view line,
              HostLine* out)
      : doc_(doc), stream_(stream), line_(line), out_(out) {}

  bool Null() { return Scalar() && doc_.Null(); }
  bool Bool(bool b) { return Scalar() && doc_.Bool(b); }
  bool Int(int i) { return Scalar() && doc_.Int(i); }
  bool Uint(unsigned u) { return Scalar() && doc_.Uint(u); }
  bool Int64(int64_t i) { return Scalar() && doc_.Int64(i); }
  bool Uint64(uint64_t u) { return Scalar() && doc_.Uint64(u); }
  bool Double(double d) { return Scalar() && doc_.Double(d); }
  bool RawNumber(const char* s, SizeType n, bool copy) {
    return Scalar() && doc_.RawNumber(s, n, copy);
  }
  bool String(const char* s, SizeType n, bool copy) { return Scalar() && doc_.String(s, n, copy); }
  bool Key(const char* s, SizeType n, bool copy) {
    const std::string_view key(s, n);
    target_ = kNone;
    key_end_ = stream_.Tell();
    switch (roles_.empty() ? kOther : roles_.back()) {
      case kRoot:
        if (key == "id") target_ = kId;
        if (key == "params") target_ = kParams;
        break;
      case kParamsObject:
        if (key == "requestId") target_ = kRequestId;
        if (key == "arguments") target_ = kCallArguments;
        break;
      case kCallArgumentsObject:
        if (key == "arguments") target_ = kToolArguments;
        break;
      default:
        break;
    }
    return doc_.Key(s, n, copy);
  }
  bool StartObject() {
    const Target target = target_;
    const bool first = Claim(target);
    Role role = kOther;
    if (roles_.empty()) {
      role = kRoot;
    } else if (first && target == kParams) {
      role = kParamsObject;
    } else if (first && target == kCallArguments) {
      role = kCallArgumentsObject;
    } else if (first && target == kToolArguments) {
      tool_start_ = stream_.Tell();
      tool_depth_ = roles_.size() + 1;
    }
    Open(role);
    return doc_.StartObject();
  }
  bool StartArray() {
    Claim(target_);  // a later key of the same name does not count either
    Open(kOther);
    return doc_.StartArray();
  }
  bool EndObject(SizeType members) {
    Close();
    return doc_.EndObject(members);
  }
  bool EndArray(SizeType elements) {
    Close();
    return doc_.EndArray(elements);
  }

 private:
  enum Role { kOther, kRoot, kParamsObject, kCallArgumentsObject };
  enum Target { kNone, kId, kParams, kRequestId, kCallArguments, kToolArguments, kTargets };

  // True, once per target: whether this value is the first of its key.
  bool Claim(Target target) {
    target_ = kNone;
    if (target == kNone || claimed_[target]) return false;
    claimed_[target] = true;
    return true;
  }
  void Open(Role role) {
    target_ = kNone;
    roles_.push_back(role);
    out_->depth = std::max(out_->depth, static_cast<int>(roles_.size()));
  }
  void Close() {
    if (tool_depth_ == roles_.size() && out_->tool_arguments.empty()) {
      out_->tool_arguments = line_.substr(tool_start_, stream_.Tell() + 1 - tool_start_);
    }
    roles_.pop_back();
    target_ = kNone;
  }
  // A scalar value just ended at Tell(); it began after the key's colon.
  bool Scalar() {
    const Target target = target_;
    if (target == kId || target == kRequestId) {
      if (Claim(target)) {
        size_t start = key_end_;
        while (start < line_.size() &&
               (line_[start] == ' ' || line_[start] == '\t' || line_[start] == '\r' ||
                line_[start] == '\n' || line_[start] == ':')) {
          ++start;
        }
        const std::string_view span = line_.substr(start, stream_.Tell() - start);
        (target == kId ? out_->id : out_->request_id) = span;
      }
    } else {
      Claim(target);
    }
    return true;
  }

  // One Role per open container; the first kInlineRoles without the heap.
  class Roles {
   public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    Role back() const { return size_ <= kInlineRoles ? inline_[size_ - 1] : more_.back(); }
    void push_back(Role role) {
      if (size_ < kInlineRoles) {
        inline_[size_] = role;
      } else {
        more_.push_back(role);
      }
      ++size_;
    }
    void pop_back() {
      if (size_ > kInlineRoles) more_.pop_back();
      --size_;
    }

   private:
    static constexpr size_t kInlineRoles = 32;
    Role inline_[kInlineRoles];
    std::vector<Role> more_;
    size_t size_ = 0;
  };

  rapidjson::Document& doc_;
  const LineStream& stream_;
  std::string_view line_;
  HostLine* out_;
  Roles roles_;
  Target target_ = kNone;  // what the value after the last key is
  size_t key_end_ = 0;
  bool claimed_[kTargets] = {};
  size_t tool_start_ = 0;
  size_t tool_depth_ = 0;  // roles_.size() inside the tool arguments object; 0: none
};

}  // namespace

base::Status ParseHostLine(std::string_view line, HostLine* out) {
  LineStream stream(line);
  SpanHandler handler(out->doc, stream, line, out);
  rapidjson::ParseResult result;
  // UTF-8 is checked first, eight ASCII bytes at a time, so the reader need not check each
  // byte of every string. A line that fails it is parsed again with the reader's own check,
  // which says where, in the same words as before.
  const bool valid_utf8 = base::Utf8ValidPrefix(line) == line.size();
  auto generate = [&](rapidjson::Document&) {
    base::WithReader(line.size(), [&](rapidjson::Reader& reader) {
      constexpr unsigned kFlags = rapidjson::kParseIterativeFlag;
      result = valid_utf8
                   ? reader.Parse<kFlags>(stream, handler)
                   : reader.Parse<kFlags | rapidjson::kParseValidateEncodingFlag>(stream, handler);
    });
    return !result.IsError();
  };
  out->doc.Populate(generate);
  if (result.IsError()) {
    out->id = out->request_id = out->tool_arguments = {};
    return base::InvalidInput(std::string(rapidjson::GetParseError_En(result.Code())) +
                              " (at byte " + std::to_string(result.Offset()) + ")");
  }
  return base::Status();
}

std::string IdJson(std::string_view raw, const rapidjson::Value& value) {
  if (value.IsNumber() && !raw.empty()) return std::string(raw);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace mcpgw::cli
