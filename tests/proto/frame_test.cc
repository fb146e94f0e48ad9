#include "proto/frame.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace mcpgw::proto {
namespace {

std::vector<std::string> Drain(FrameDecoder& d, FrameDecoder::Status* last = nullptr) {
  std::vector<std::string> frames;
  std::string_view frame;
  FrameDecoder::Status s;
  while ((s = d.Next(&frame)) == FrameDecoder::Status::kFrame) frames.emplace_back(frame);
  if (last) *last = s;
  return frames;
}

TEST_CASE("a frame split across reads is reassembled", "[proto][frame]") {
  FrameDecoder d;
  d.Append(R"({"a":)");
  CHECK(Drain(d).empty());
  d.Append(R"(1})");
  CHECK(Drain(d).empty());
  d.Append("\n");
  CHECK(Drain(d) == std::vector<std::string>{R"({"a":1})"});
  CHECK(d.buffered() == 0);
}

TEST_CASE("many frames in one read come out in order", "[proto][frame]") {
  FrameDecoder d;
  d.Append("{\"n\":1}\n{\"n\":2}\r\n\n{\"n\":3}\n{\"n\":");
  CHECK(Drain(d) == std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}"});
  d.Append("4}\n");
  CHECK(Drain(d) == std::vector<std::string>{"{\"n\":4}"});
}

TEST_CASE("byte-at-a-time input yields the same frames", "[proto][frame]") {
  std::string stream;
  for (int i = 0; i < 50; ++i) stream += "{\"i\":" + std::to_string(i) + "}\n";
  FrameDecoder d(64);
  std::vector<std::string> got;
  for (char c : stream) {
    d.Append(std::string_view(&c, 1));
    for (auto& f : Drain(d)) got.push_back(f);
  }
  REQUIRE(got.size() == 50);
  CHECK(got[49] == "{\"i\":49}");
}

TEST_CASE("the frame bound counts the newline", "[proto][frame]") {
  FrameDecoder d(8);
  d.Append("1234567\n");  // exactly 8 bytes with the newline
  CHECK(Drain(d) == std::vector<std::string>{"1234567"});
  d.Append("12345678\n");  // 9 bytes
  FrameDecoder::Status last;
  CHECK(Drain(d, &last).empty());
  CHECK(last == FrameDecoder::Status::kTooLarge);
}

TEST_CASE("an unterminated frame over the bound is refused before its newline", "[proto][frame]") {
  FrameDecoder d(16);
  d.Append("{\"a\":\"");
  FrameDecoder::Status last;
  Drain(d, &last);
  CHECK(last == FrameDecoder::Status::kNeedMore);
  d.Append(std::string(100, 'x'));
  Drain(d, &last);
  CHECK(last == FrameDecoder::Status::kTooLarge);
  // Once over, nothing more is buffered or returned.
  d.Append("\"}\n{}\n");
  CHECK(d.buffered() == 0);
  CHECK(Drain(d, &last).empty());
  CHECK(last == FrameDecoder::Status::kTooLarge);
}

TEST_CASE("frames before an oversized one are still delivered", "[proto][frame]") {
  FrameDecoder d(10);
  d.Append("{}\n" + std::string(20, 'x'));
  FrameDecoder::Status last;
  CHECK(Drain(d, &last) == std::vector<std::string>{"{}"});
  CHECK(last == FrameDecoder::Status::kTooLarge);
}

}  // namespace
}  // namespace mcpgw::proto
