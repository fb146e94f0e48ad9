// JsonTextStream: a RapidJSON input stream over a string_view, offsets
// counted from the view's first byte (a NUL reads as the end, as RapidJSON's
// own streams do). Two kinds, which differ in one thing:
//   JsonTextStream   the reader reaches it by reference at every byte, so
//                    Tell() is exact at every SAX event (for handlers that
//                    note where values lie);
//   JsonLocalStream  the reader copies it into its own locals while it reads
//                    a string, a number or white space (RapidJSON's
//                    StreamTraits::copyOptimization), which is faster, and
//                    Tell() is known only between those steps.
// Header-only, for the layers that link RapidJSON.
#pragma once

#include <cstddef>
#include <string_view>

#include <rapidjson/stream.h>

namespace mcpgw::base {

template <bool kLocalCopy>
class BasicJsonTextStream {
 public:
  using Ch = char;
  // Reads text[start, size).
  explicit BasicJsonTextStream(std::string_view text, size_t start = 0)
      : begin_(text.data()), cur_(text.data() + start), end_(text.data() + text.size()) {}
  Ch Peek() const { return cur_ < end_ ? *cur_ : '\0'; }
  Ch Take() { return cur_ < end_ ? *cur_++ : '\0'; }
  size_t Tell() const { return static_cast<size_t>(cur_ - begin_); }
  // The output side, which a reader uses only for in-situ parsing: never.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

 private:
  const char* begin_;
  const char* cur_;
  const char* end_;
};

using JsonTextStream = BasicJsonTextStream<false>;
using JsonLocalStream = BasicJsonTextStream<true>;

}  // namespace mcpgw::base

template <>
struct rapidjson::StreamTraits<mcpgw::base::JsonLocalStream> {
  enum { copyOptimization = 1 };
};
