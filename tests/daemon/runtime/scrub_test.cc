// Scrubber: which forms of a secret are redacted, which are left alone, and
// the log sink that applies it to every message.
#include "daemon/runtime/scrub.h"

#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>
#include <catch2/catch.hpp>

#include "daemon/runtime/logging.h"

namespace mcpgw {
namespace {

std::vector<Secret> Secrets(std::vector<std::string> values) {
  std::vector<Secret> out;
  for (auto& v : values) out.emplace_back(std::move(v));
  return out;
}

// Collects formatted lines.
class LinesSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    lines_.emplace_back(buf.data(), buf.size());
  }
  void flush_() override {}

 private:
  std::vector<std::string> lines_;
};

}  // namespace

TEST_CASE("a secret is redacted wherever it occurs", "[daemon][scrub]") {
  Scrubber s(Secrets({"hunter22", "tok-XYZ"}));
  CHECK(s.Scrub("connect failed: token hunter22 refused") ==
        "connect failed: token <redacted> refused");
  CHECK(s.Scrub("hunter22") == "<redacted>");
  CHECK(s.Scrub("hunter22hunter22/tok-XYZ") == "<redacted><redacted>/<redacted>");
  CHECK(s.Scrub("hunter2 is not it") == "hunter2 is not it");
  std::string text = "nothing to see";
  CHECK_FALSE(s.ScrubInPlace(text));
  CHECK(text == "nothing to see");
}

TEST_CASE("url-encoded forms of a secret are redacted", "[daemon][scrub]") {
  Scrubber s(Secrets({"a b/c?d=e&f"}));
  // RFC 3986 (curl_easy_escape), lower-case hex, form encoding.
  CHECK(s.Scrub("GET /x?token=a%20b%2Fc%3Fd%3De%26f HTTP/1.1") ==
        "GET /x?token=<redacted> HTTP/1.1");
  CHECK(s.Scrub("?token=a%20b%2fc%3fd%3de%26f") == "?token=<redacted>");
  CHECK(s.Scrub("?token=a+b%2Fc%3Fd%3De%26f") == "?token=<redacted>");
  Scrubber js(Secrets({"it's(mine)*"}));
  CHECK(js.Scrub("q=it's(mine)*") == "q=<redacted>");
  CHECK(js.Scrub("q=it%27s%28mine%29%2A") == "q=<redacted>");  // RFC 3986
  CHECK(js.Scrub("q=it's(mine)*") == "q=<redacted>");          // encodeURIComponent
}

TEST_CASE("the credential of an 'Authorization: <scheme> <credential>' value is redacted alone",
          "[daemon][scrub]") {
  Scrubber s(Secrets({"Bearer sk-live-123456"}));
  CHECK(s.Scrub("header Bearer sk-live-123456 sent") == "header <redacted> sent");
  CHECK(s.Scrub("server echoed sk-live-123456") == "server echoed <redacted>");
  CHECK(s.Scrub("a Bearer token is needed") == "a Bearer token is needed");
}

TEST_CASE("secrets shorter than kMinSecretBytes are not matched", "[daemon][scrub]") {
  Scrubber s(Secrets({"on", "abc", "abcd"}));
  CHECK(s.Scrub("on and on, abc") == "on and on, abc");
  CHECK(s.Scrub("abcd") == "<redacted>");
  CHECK(Scrubber(Secrets({"x"})).empty());
}

TEST_CASE("overlapping secrets: the longest match at the earliest position wins",
          "[daemon][scrub]") {
  Scrubber s(Secrets({"abcd", "abcdefgh", "cdefghij"}));
  CHECK(s.Scrub("xxabcdefghij") == "xx<redacted>ij");
  CHECK(s.Scrub("abcdabc") == "<redacted>abc");
  CHECK(s.Scrub("abcdabcdefgh") == "<redacted><redacted>");
}

TEST_CASE("a secret containing arbitrary bytes, at the edges of the text", "[daemon][scrub]") {
  std::string odd("\x00\xff\x01zz", 5);
  Scrubber s(Secrets({odd}));
  CHECK(s.Scrub(odd + "tail") == "<redacted>tail");
  CHECK(s.Scrub("head" + odd) == "head<redacted>");
  CHECK(s.Scrub("%00%FF%01zz") == "<redacted>");
}

TEST_CASE("what is left of a secret cut short by a bound is redacted", "[daemon][scrub]") {
  Scrubber s(Secrets({"SENTINEL_abcdef123"}));
  CHECK(s.Scrub("server said: token=SENTINEL_ab...") == "server said: token=<redacted>...");
  CHECK(s.Scrub("server said: token=SENTINEL_ab... (retrying)") ==
        "server said: token=<redacted>... (retrying)");
  CHECK(s.Scrub("token=SENTINEL_ab\xE2\x80\xA6") == "token=<redacted>\xE2\x80\xA6");
  CHECK(s.Scrub("ends with SENTI") == "ends with <redacted>");
  // A start of a secret in the middle of a text is only a coincidence.
  CHECK(s.Scrub("SENTINEL_ab and more") == "SENTINEL_ab and more");
  // Too short to tell.
  CHECK(s.Scrub("ends with SEN") == "ends with SEN");
}

TEST_CASE("Extend keeps earlier secrets and adds the new configuration's", "[daemon][scrub]") {
  auto first = Scrubber::Extend(nullptr, Secrets({"old-token-1"}));
  auto second = Scrubber::Extend(first, Secrets({"new-token-2", "old-token-1"}));
  CHECK(first->Scrub("new-token-2") == "new-token-2");
  CHECK(second->Scrub("old-token-1 new-token-2") == "<redacted> <redacted>");
  CHECK(Scrubber::Extend(nullptr, {})->empty());
}

TEST_CASE("scrubbing many secrets over a long text finds the one it holds", "[daemon][scrub]") {
  // 200 patterns over 4 MiB in one pass (the scrubber is a trie walked once;
  // its speed is not timed here: unit tests run under sanitizers on shared
  // machines).
  std::vector<std::string> values;
  for (int i = 0; i < 200; i++) values.push_back("secret-value-" + std::to_string(i * 7919));
  Scrubber s(Secrets(values));
  std::string text;
  while (text.size() < (4u << 20))
    text += "The server answered 401 Unauthorized; seen value 1234. ";
  text += values[150];
  std::string out = s.Scrub(text);
  CHECK(out.size() == text.size() - values[150].size() + Secret::kRedacted.size());
  CHECK(out.find(values[150]) == std::string::npos);
  CHECK(out.compare(0, text.size() - values[150].size(), text, 0,
                    text.size() - values[150].size()) == 0);
}

TEST_CASE("the log sink scrubs each message's text with the current snapshot",
          "[daemon][scrub][logging]") {
  auto lines = std::make_shared<LinesSink>();
  spdlog::logger logger("scrub-test", MakeScrubbingSink(lines));
  logger.set_pattern("%l %v");
  SetLogScrubber(std::make_shared<const Scrubber>(Secrets({"info-token", "info"})));
  logger.info("sent {} to the server", "info-token");
  SetLogScrubber(std::make_shared<const Scrubber>(Secrets({"rotated-secret"})));
  logger.info("now {} and info-token", "rotated-secret");
  SetLogScrubber(nullptr);
  logger.info("unscrubbed info-token");
  auto got = lines->lines();
  REQUIRE(got.size() == 3);
  CHECK(got[0] == "info sent <redacted> to the server\n");  // the level is not the message
  CHECK(got[1] == "info now <redacted> and info-token\n");
  CHECK(got[2] == "info unscrubbed info-token\n");
}

TEST_CASE("loggers on many threads while the snapshot is swapped", "[daemon][scrub][logging]") {
  auto lines = std::make_shared<LinesSink>();
  spdlog::logger logger("scrub-threads", MakeScrubbingSink(lines));
  logger.set_pattern("%v");
  auto a = std::make_shared<const Scrubber>(Secrets({"thread-secret"}));
  auto b = Scrubber::Extend(a, Secrets({"other-secret"}));
  SetLogScrubber(a);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; i++) logger.info("value thread-secret #{}", i);
    });
  }
  for (int i = 0; i < 200; i++) SetLogScrubber(i % 2 ? a : b);
  for (auto& t : threads) t.join();
  SetLogScrubber(nullptr);
  auto got = lines->lines();
  CHECK(got.size() == 2000);
  for (const auto& line : got) REQUIRE(line.find("thread-secret") == std::string::npos);
}

}  // namespace mcpgw
