// The drain of answered streams (daemon/net/stream_drain.h) on its own, with
// a clock of the test's: which finished transfers are drained, the bound on
// their bytes and time, and the order they are cut in. HttpClient's tests
// (http_client_test.cc) check what it keeps: the connection.
#include "daemon/net/stream_drain.h"

#include <catch2/catch.hpp>

#include <curl/curl.h>

#include <memory>
#include <utility>
#include <vector>

namespace mcpgw::http {
namespace {

// A transfer whose head went to its sink (kReceiving).
std::unique_ptr<Transfer> Answered(bool long_lived = false) {
  HttpRequest r;
  r.long_lived = long_lived;
  auto t = std::make_unique<Transfer>(nullptr, 0, std::move(r));
  REQUIRE(t->life.On(TransferEvent::kPlaceGiven));
  REQUIRE(t->life.On(TransferEvent::kAdded));
  REQUIRE(t->life.On(TransferEvent::kHead));
  return t;
}

TEST_CASE("drain: only an HTTP/1.x answer with its head in is worth draining", "[drain]") {
  auto t = Answered();
  CHECK(StreamDrain::Worth(*t, CURL_HTTP_VERSION_1_1));
  CHECK(StreamDrain::Worth(*t, CURL_HTTP_VERSION_1_0));
  CHECK_FALSE(StreamDrain::Worth(*t, CURL_HTTP_VERSION_2_0));  // closing a stream costs nothing
  CHECK_FALSE(StreamDrain::Worth(*t, CURL_HTTP_VERSION_3));
  CHECK_FALSE(StreamDrain::Worth(*Answered(/*long_lived=*/true), CURL_HTTP_VERSION_1_1));
  HttpRequest r;
  Transfer running(nullptr, 0, r);
  REQUIRE(running.life.On(TransferEvent::kPlaceGiven));
  REQUIRE(running.life.On(TransferEvent::kAdded));
  CHECK_FALSE(StreamDrain::Worth(running, CURL_HTTP_VERSION_1_1));  // no head yet
}

TEST_CASE("drain: the stream's end is read up to kMaxBytes", "[drain]") {
  auto t = Answered();
  StreamDrain drain;
  Transfer* raw = t.get();
  drain.Begin(std::move(t), 1000);
  CHECK(StreamDrain::Accept(*raw, StreamDrain::kMaxBytes - 1));
  CHECK(StreamDrain::Accept(*raw, 1));  // exactly the bound
  CHECK_FALSE(StreamDrain::Accept(*raw, 1));
}

TEST_CASE("drain: streams are cut in the order they began once their time is up", "[drain]") {
  StreamDrain drain;
  auto a = Answered();
  auto b = Answered();
  auto c = Answered();
  Transfer* ra = a.get();
  Transfer* rb = b.get();
  Transfer* rc = c.get();
  drain.Begin(std::move(a), 1000);
  drain.Begin(std::move(b), 1050);
  drain.Begin(std::move(c), 1100);
  CHECK(drain.next_due() == 1000 + StreamDrain::kMaxMs);
  CHECK(drain.TakeDue(1000 + StreamDrain::kMaxMs - 1).empty());

  // b's stream ended by itself: it leaves the drain.
  std::unique_ptr<Transfer> ended = drain.End(rb);
  CHECK(ended.get() == rb);
  CHECK(drain.End(rb) == nullptr);  // only once

  std::vector<std::unique_ptr<Transfer>> due = drain.TakeDue(1100 + StreamDrain::kMaxMs - 1);
  REQUIRE(due.size() == 1);
  CHECK(due[0].get() == ra);
  CHECK(drain.size() == 1);
  CHECK(drain.next_due() == 1100 + StreamDrain::kMaxMs);
  due = drain.TakeDue(5000);
  REQUIRE(due.size() == 1);
  CHECK(due[0].get() == rc);
  CHECK(drain.empty());
}

TEST_CASE("drain: a stream that began again counts its bytes afresh", "[drain]") {
  StreamDrain drain;
  auto t = Answered();
  t->drained_bytes = StreamDrain::kMaxBytes;  // left from an earlier use
  Transfer* raw = t.get();
  drain.Begin(std::move(t), 0);
  CHECK(StreamDrain::Accept(*raw, 1024));
  CHECK(drain.TakeAll().size() == 1);
  CHECK(drain.empty());
}

}  // namespace
}  // namespace mcpgw::http
