#include "daemon/net/http_client.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "daemon/net/http_curl.h"
#include "tests/daemon/testing/http_test_server.h"
#include "tests/daemon/testing/loop_helpers.h"

namespace mcpgw {
namespace {

using testing::FinishLoop;
using testing::HttpTestServer;
using testing::RunFor;
using testing::RunUntil;
using testing::TestConnection;
using testing::TestHandler;
using testing::TestRequest;

// What one transfer reported, in order.
struct Seen {
  int heads = 0;
  int status = 0;
  std::string content_type;
  std::string session_id;
  std::string body;
  int data_calls = 0;
  int dones = 0;
  TransferResult result;
  bool data_before_head = false;
  bool event_after_done = false;
  std::string www_authenticate;
};

class RecordingSink : public HttpSink {
 public:
  std::map<uint64_t, Seen> seen;
  std::function<void(uint64_t)> on_head;
  std::function<void(uint64_t, std::string_view)> on_data;
  std::function<void(uint64_t)> on_done;

  void OnHttpHead(uint64_t tag, const ResponseHead& head) override {
    Seen& s = seen[tag];
    if (s.dones) s.event_after_done = true;
    s.heads++;
    s.status = head.status;
    s.content_type = std::string(head.content_type);
    s.session_id = std::string(head.session_id);
    s.www_authenticate = std::string(head.www_authenticate);
    if (on_head) on_head(tag);
  }
  void OnHttpData(uint64_t tag, std::string_view bytes) override {
    Seen& s = seen[tag];
    if (s.dones) s.event_after_done = true;
    if (!s.heads) s.data_before_head = true;
    s.data_calls++;
    s.body += bytes;
    if (on_data) on_data(tag, bytes);
  }
  void OnHttpDone(uint64_t tag, const TransferResult& result) override {
    Seen& s = seen[tag];
    if (s.dones) s.event_after_done = true;
    s.dones++;
    s.result = result;
    if (on_done) on_done(tag);
  }
  bool Done(uint64_t tag) const {
    auto it = seen.find(tag);
    return it != seen.end() && it->second.dones > 0;
  }
  size_t DoneCount() const {
    size_t n = 0;
    for (const auto& [tag, s] : seen) n += s.dones;
    return n;
  }
};

HttpRequest Get(std::string url) {
  HttpRequest r;
  r.method = HttpMethod::kGet;
  r.url = std::move(url);
  return r;
}

HttpRequest Post(std::string url, std::string body) {
  HttpRequest r;
  r.method = HttpMethod::kPost;
  r.url = std::move(url);
  r.body = std::move(body);
  return r;
}

// Each test owns a loop; the client must leave it clean.
struct Fixture {
  uv_loop_t loop;
  std::unique_ptr<HttpClient> client;
  RecordingSink sink;
  explicit Fixture(HttpClientOptions options = {}) {
    uv_loop_init(&loop);
    client = std::make_unique<HttpClient>(&loop, options);
  }
  ~Fixture() {
    client.reset();
    CHECK(FinishLoop(&loop) == 0);
  }
  bool RunUntilDone(uint64_t tag, int ms = 2000) {
    return RunUntil(
        &loop, [&] { return sink.Done(tag); }, std::chrono::milliseconds(ms));
  }
};

TEST_CASE("POST reaches the server with its headers and body, the head is reported once",
          "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Write(
        "HTTP/1.1 200 OK\r\n"
        "content-type:   application/json; charset=utf-8  \r\n"
        "MCP-SESSION-ID: \tabc123 \r\n"
        "Content-Length: 11\r\n\r\n"
        "{\"ok\":true}");
  });
  Fixture f;
  HttpRequest req = Post(server.Url(), R"({"jsonrpc":"2.0","id":1})");
  req.headers = {{"Authorization", "Bearer s3cret"},
                 {"Accept", "application/json, text/event-stream"},
                 {"X-Empty", ""}};
  f.client->Start(&f.sink, 7, req);
  CHECK(f.client->active() == 1);
  REQUIRE(f.RunUntilDone(7));

  const Seen& s = f.sink.seen[7];
  CHECK(s.heads == 1);
  CHECK(s.status == 200);
  CHECK(s.content_type == "application/json; charset=utf-8");
  CHECK(s.session_id == "abc123");
  CHECK(s.body == "{\"ok\":true}");
  CHECK(s.dones == 1);
  CHECK(s.result.ok);
  CHECK_FALSE(s.data_before_head);
  CHECK_FALSE(s.event_after_done);
  CHECK(f.client->active() == 0);

  auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].target == "/mcp");
  CHECK(requests[0].body == R"({"jsonrpc":"2.0","id":1})");
  CHECK(requests[0].Header("Authorization") == "Bearer s3cret");
  CHECK(requests[0].Header("Accept") == "application/json, text/event-stream");
  CHECK(requests[0].HasHeader("X-Empty"));
  CHECK(requests[0].Header("X-Empty").empty());
  CHECK_FALSE(requests[0].HasHeader("Expect"));           // no 100-continue wait
  CHECK_FALSE(requests[0].HasHeader("Accept-Encoding"));  // no compression
  CHECK(f.client->stats().started == 1);
  CHECK(f.client->stats().finished == 1);
}

TEST_CASE("GET and DELETE use their methods, an empty body still gets a head", "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    if (r.method == "DELETE") {
      c.Write("HTTP/1.1 204 No Content\r\n\r\n");
    } else {
      c.Respond(200, {{"Content-Type", "text/event-stream"}}, "data: x\n\n");
    }
  });
  Fixture f;
  HttpRequest get = Get(server.Url("/stream"));
  get.headers = {{"Mcp-Session-Id", "s-1"}};
  HttpRequest del = Get(server.Url("/mcp"));
  del.method = HttpMethod::kDelete;
  f.client->Start(&f.sink, 1, get);
  f.client->Start(&f.sink, 2, del);
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.DoneCount() == 2; }));

  CHECK(f.sink.seen[1].status == 200);
  CHECK(f.sink.seen[1].content_type == "text/event-stream");
  CHECK(f.sink.seen[1].body == "data: x\n\n");
  CHECK(f.sink.seen[2].heads == 1);
  CHECK(f.sink.seen[2].status == 204);
  CHECK(f.sink.seen[2].data_calls == 0);
  CHECK(f.sink.seen[2].result.ok);

  auto requests = server.requests();
  REQUIRE(requests.size() == 2);
  std::map<std::string, TestRequest> by_method;
  for (auto& r : requests) by_method[r.method] = r;
  REQUIRE(by_method.count("GET"));
  REQUIRE(by_method.count("DELETE"));
  CHECK(by_method["GET"].target == "/stream");
  CHECK(by_method["GET"].Header("Mcp-Session-Id") == "s-1");
  CHECK(by_method["GET"].body.empty());
  CHECK(by_method["DELETE"].target == "/mcp");
}

TEST_CASE("Interim 1xx heads and trailers are not reported as the head", "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Write(
        "HTTP/1.1 103 Early Hints\r\nContent-Type: text/wrong\r\nMcp-Session-Id: wrong\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        "Transfer-Encoding: chunked\r\nTrailer: Content-Type\r\n\r\n"
        "5\r\nhello\r\n0\r\nContent-Type: text/trailer\r\n\r\n");
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
  REQUIRE(f.RunUntilDone(1));
  const Seen& s = f.sink.seen[1];
  CHECK(s.heads == 1);
  CHECK(s.status == 200);
  CHECK(s.content_type == "text/event-stream");
  CHECK(s.session_id.empty());
  CHECK(s.body == "hello");
  CHECK(s.result.ok);
}

TEST_CASE("A body sent in many delayed chunks arrives whole, in order", "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Write(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        "Transfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 20; i++) {
      std::string piece = "event " + std::to_string(i) + "\n";
      char size[16];
      snprintf(size, sizeof size, "%zx\r\n", piece.size());
      if (!c.Write(size + piece + "\r\n")) return;
      c.Sleep(5);
    }
    c.Write("0\r\n\r\n");
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Get(server.Url()));
  REQUIRE(f.RunUntilDone(1));
  std::string expected;
  for (int i = 0; i < 20; i++) expected += "event " + std::to_string(i) + "\n";
  const Seen& s = f.sink.seen[1];
  CHECK(s.body == expected);
  CHECK(s.data_calls > 1);
  CHECK(s.heads == 1);
  CHECK_FALSE(s.data_before_head);
  CHECK(s.result.ok);
}

TEST_CASE("A redirect is reported as a response and never followed", "[http]") {
  HttpTestServer server([&](const TestRequest& r, TestConnection& c) {
    if (r.target == "/mcp") {
      c.Respond(302, {{"Location", "/elsewhere"}}, "moved");
    } else {
      c.Respond(200, {}, "followed");
    }
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
  // A redirect followed would be part of the transfer: done only after it.
  REQUIRE(f.RunUntilDone(1));
  CHECK(f.sink.seen[1].status == 302);
  CHECK(f.sink.seen[1].body == "moved");
  CHECK(f.sink.seen[1].result.ok);
  CHECK(server.request_count() == 1);
}

TEST_CASE("Error statuses are completed exchanges", "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    c.Respond(r.target == "/auth" ? 401 : 500, {{"Content-Type", "text/plain"}}, "nope");
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url("/auth"), "{}"));
  f.client->Start(&f.sink, 2, Post(server.Url("/boom"), "{}"));
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.DoneCount() == 2; }));
  CHECK(f.sink.seen[1].status == 401);
  CHECK(f.sink.seen[2].status == 500);
  for (uint64_t tag : {1, 2}) {
    CHECK(f.sink.seen[tag].result.ok);
    CHECK(f.sink.seen[tag].result.error.empty());
    CHECK(f.sink.seen[tag].body == "nope");
  }
}

TEST_CASE("Transport failures end with a short error and no head", "[http]") {
  Fixture f;
  SECTION("connection refused") {
    std::string url = "http://127.0.0.1:" + std::to_string(testing::ClosedPort()) + "/mcp";
    HttpRequest req = Post(url, "{}");
    req.headers = {{"Authorization", "Bearer s3cret"}};
    f.client->Start(&f.sink, 1, req);
    CHECK(f.sink.DoneCount() == 0);  // never reported from inside Start
    REQUIRE(f.RunUntilDone(1));
    CHECK(f.sink.seen[1].heads == 0);
    CHECK_FALSE(f.sink.seen[1].result.ok);
    CHECK(f.sink.seen[1].result.error == "connection refused");
  }
  SECTION("unsupported scheme") {
    f.client->Start(&f.sink, 1, Get("ftp://127.0.0.1/secret-path"));
    CHECK(f.sink.DoneCount() == 0);
    REQUIRE(f.RunUntilDone(1));
    CHECK(f.sink.seen[1].result.error == "unsupported url scheme");
  }
  SECTION("malformed url") {
    f.client->Start(&f.sink, 1, Get("http://[::1"));
    REQUIRE(f.RunUntilDone(1));
    CHECK(f.sink.seen[1].result.error == "malformed url");
  }
  CHECK(f.client->active() == 0);
}

TEST_CASE("Ends reported together: a sink told of one may abort the others or reuse a tag",
          "[http]") {
  HttpTestServer server(
      [](const TestRequest& r, TestConnection& c) { c.Respond(200, {}, r.body); });
  Fixture f;
  // Three transfers that cannot start end together, on the loop's next turn.
  for (uint64_t tag = 1; tag <= 3; tag++) f.client->Start(&f.sink, tag, Get("http://[::1"));
  f.sink.on_done = [&](uint64_t tag) {
    if (tag != 1) return;
    CHECK(f.client->active() == 2);  // the other two: ended, not yet told
    f.client->Abort(&f.sink, 2);
    f.client->Start(&f.sink, 3, Post(server.Url(), "again"));  // replaces the ended one
  };
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.Done(3); }));
  CHECK(f.sink.seen[1].result.error == "malformed url");
  CHECK(f.sink.seen.count(2) == 0);  // aborted before it was told: never
  CHECK(f.sink.seen[3].dones == 1);  // the new request's end only
  CHECK(f.sink.seen[3].result.ok);
  CHECK(f.sink.seen[3].body == "again");
  CHECK(f.client->stats().finished == 2);
  CHECK(f.client->stats().aborted == 2);
  CHECK(f.client->active() == 0);
}

TEST_CASE("A server that closes early fails the transfer", "[http]") {
  SECTION("mid-body") {
    HttpTestServer server([](const TestRequest&, TestConnection& c) {
      c.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n");
      c.Write("0123456789");
      c.Close();
    });
    Fixture f;
    f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
    REQUIRE(f.RunUntilDone(1));
    CHECK(f.sink.seen[1].heads == 1);
    CHECK(f.sink.seen[1].body == "0123456789");
    CHECK_FALSE(f.sink.seen[1].result.ok);
    CHECK(f.sink.seen[1].result.error == "response cut short");
  }
  SECTION("before any response") {
    HttpTestServer server([](const TestRequest&, TestConnection& c) { c.Close(); });
    Fixture f;
    f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
    REQUIRE(f.RunUntilDone(1));
    CHECK(f.sink.seen[1].heads == 0);
    CHECK(f.sink.seen[1].result.error == "server closed the connection without a response");
  }
}

// Head, then a chunk every 20 ms for 2 s unless the client goes away.
void SlowStream(const TestRequest&, TestConnection& c) {
  c.Write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      "Transfer-Encoding: chunked\r\n\r\n");
  for (int i = 0; i < 100; i++) {
    if (!c.Write("6\r\ntick!\n\r\n") || !c.Sleep(20)) break;
  }
  c.Close();
}

TEST_CASE("Abort from inside OnHttpData stops every callback, the client stays usable", "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    if (r.target == "/slow") return SlowStream(r, c);
    c.Respond(200, {}, "fine");
  });
  Fixture f;
  f.sink.on_data = [&](uint64_t tag, std::string_view) {
    if (tag == 1) f.client->Abort(&f.sink, 1);
  };
  f.client->Start(&f.sink, 1, Get(server.Url("/slow")));
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.seen[1].data_calls > 0; }));
  CHECK(f.client->active() == 0);
  // The server, sending a chunk every 20 ms, finds the connection closed:
  // nothing more can come of it.
  REQUIRE(RunUntil(&f.loop, [&] { return server.ended() == 1; }));
  CHECK(f.sink.seen[1].data_calls == 1);
  CHECK(f.sink.seen[1].dones == 0);
  CHECK(f.client->stats().aborted == 1);

  // The same tag is free again and the client still works.
  f.sink.on_data = nullptr;
  f.client->Start(&f.sink, 1, Get(server.Url("/fast")));
  REQUIRE(f.RunUntilDone(1));
  CHECK(f.sink.seen[1].body == "tick!\nfine");
  CHECK(f.sink.seen[1].result.ok);
}

TEST_CASE("AbortAll from inside a head callback silences every transfer of the sink", "[http]") {
  HttpTestServer server(SlowStream);
  Fixture f;
  RecordingSink other;
  f.sink.on_head = [&](uint64_t) { f.client->AbortAll(&f.sink); };
  for (uint64_t tag = 1; tag <= 3; tag++) f.client->Start(&f.sink, tag, Get(server.Url()));
  f.client->Start(&other, 1, Get(server.Url()));
  REQUIRE(RunUntil(&f.loop, [&] { return other.seen[1].data_calls >= 2; }));
  // The server finds every connection but the other sink's closed: nothing
  // more can come of them.
  REQUIRE(RunUntil(&f.loop, [&] { return server.ended() + 1 == server.accepted(); }));
  int heads = 0, data = 0, dones = 0;
  for (auto& [tag, s] : f.sink.seen) {
    heads += s.heads;
    data += s.data_calls;
    dones += s.dones;
  }
  CHECK(heads == 1);
  CHECK(data == 0);
  CHECK(dones == 0);
  CHECK(f.client->active() == 1);  // the other sink's stream goes on
  f.client->AbortAll(&other);
  CHECK(f.client->active() == 0);
}

TEST_CASE("A transfer started from inside OnHttpDone runs", "[http]") {
  HttpTestServer server(
      [](const TestRequest& r, TestConnection& c) { c.Respond(200, {}, "echo " + r.body); });
  Fixture f;
  f.sink.on_done = [&](uint64_t tag) {
    if (tag == 1) f.client->Start(&f.sink, 2, Post(server.Url(), "second"));
  };
  f.client->Start(&f.sink, 1, Post(server.Url(), "first"));
  REQUIRE(f.RunUntilDone(2));
  CHECK(f.sink.seen[1].body == "echo first");
  CHECK(f.sink.seen[2].body == "echo second");
  CHECK(f.sink.seen[2].result.ok);
}

TEST_CASE("Sequential requests reuse one connection", "[http]") {
  HttpTestServer server;
  Fixture f;
  for (uint64_t tag = 1; tag <= 5; tag++) {
    f.client->Start(&f.sink, tag, Post(server.Url(), "{}"));
    REQUIRE(f.RunUntilDone(tag));
  }
  CHECK(server.request_count() == 5);
  CHECK(server.accepted() == 1);
}

// An SSE response whose first event is the answer; what follows it depends
// on the target: "/ends" ends the stream 30 ms later (after the client has
// its answer), "/goes-on" sends a comment every 30 ms for 3 s, "/floods"
// sends 256 KiB at once and then goes on as "/goes-on".
void AnswerThen(const TestRequest& r, TestConnection& c) {
  c.Write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      "Transfer-Encoding: chunked\r\n\r\n");
  const std::string event = "data: answer\n\n";
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", event.size());
  c.Write(std::string(size) + event + "\r\n");
  if (r.target == "/ends") {
    c.Sleep(30);
    c.Write("0\r\n\r\n");
  } else if (r.target == "/goes-on") {
    for (int i = 0; i < 100; i++) {
      if (!c.Sleep(30) || !c.Write("3\r\n:\n\n\r\n")) return;
    }
  } else if (r.target == "/floods") {
    const std::string comment = ":" + std::string(1022, 'x') + "\n";
    std::snprintf(size, sizeof size, "%zx\r\n", comment.size());
    for (int i = 0; i < 256; i++) {
      if (!c.Write(std::string(size) + comment + "\r\n")) return;
    }
    for (int i = 0; i < 100; i++) {
      if (!c.Sleep(30) || !c.Write("3\r\n:\n\n\r\n")) return;
    }
  }
}

TEST_CASE("A finished SSE stream that ends soon after keeps its connection for the next",
          "[http]") {
  HttpTestServer server(AnswerThen);
  Fixture f;
  // As a session does: Finish once the answer is in.
  f.sink.on_data = [&](uint64_t tag, std::string_view) {
    if (f.sink.seen[tag].body.find("answer") != std::string::npos) f.client->Finish(&f.sink, tag);
  };
  for (uint64_t tag = 1; tag <= 5; tag++) {
    f.client->Start(&f.sink, tag, Post(server.Url("/ends"), "{}"));
    REQUIRE(RunUntil(&f.loop, [&] { return f.client->stats().drained == tag; }));
    CHECK(f.client->active() == 0);
  }
  CHECK(server.accepted() == 1);  // one connection served all five
  CHECK(f.client->stats().cut == 0);
  for (auto& [tag, seen] : f.sink.seen) {
    CHECK(seen.body == "data: answer\n\n");  // nothing after Finish reached the sink
    CHECK(seen.dones == 0);
  }
}

TEST_CASE("A finished SSE stream that goes on is cut, and the next request gets a fresh one",
          "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    if (r.target == "/mcp") return c.Respond(200, {}, "fine");
    AnswerThen(r, c);
  });
  Fixture f;
  f.sink.on_data = [&](uint64_t tag, std::string_view) {
    if (f.sink.seen[tag].body.find("answer") != std::string::npos) f.client->Finish(&f.sink, tag);
  };
  const std::string target = GENERATE(std::string("/goes-on"), std::string("/floods"));
  CAPTURE(target);
  const auto start = std::chrono::steady_clock::now();
  f.client->Start(&f.sink, 1, Post(server.Url(target), "{}"));
  REQUIRE(RunUntil(&f.loop, [&] { return f.client->stats().cut == 1; }));
  const auto took = std::chrono::steady_clock::now() - start;
  // The server finds its connection closed long before its stream would end.
  REQUIRE(RunUntil(&f.loop, [&] { return server.ended() == 1; }));
  CHECK(took < std::chrono::milliseconds(2500));
  CHECK(f.sink.seen[1].body == "data: answer\n\n");
  CHECK(f.sink.seen[1].dones == 0);
  CHECK(f.client->stats().drained == 0);

  f.sink.on_data = nullptr;
  f.client->Start(&f.sink, 2, Post(server.Url(), "{}"));
  REQUIRE(f.RunUntilDone(2));
  CHECK(f.sink.seen[2].body == "fine");
  CHECK(server.accepted() == 2);
}

TEST_CASE("Finish before the answer's stream has a head, or of an unknown transfer, aborts",
          "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Sleep(1000);
    c.Close();
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
  REQUIRE(RunUntil(&f.loop, [&] { return server.request_count() == 1; }));
  f.client->Finish(&f.sink, 7);  // no such transfer: nothing happens
  CHECK(f.client->active() == 1);
  f.client->Finish(&f.sink, 1);
  CHECK(f.client->active() == 0);
  CHECK(f.client->stats().aborted == 1);
  RunFor(&f.loop, 50);
  CHECK(f.sink.seen.count(1) == 0);  // never a callback
}

HttpClientOptions Budget(size_t per_origin) {
  HttpClientOptions o;
  o.max_requests_per_origin = per_origin;
  return o;
}

// Answers each request with its body after 100 ms, and counts how many it
// was serving at once.
struct SlowEcho {
  std::atomic<int> serving{0};
  std::atomic<int> most{0};
  TestHandler Handler() {
    return [this](const TestRequest& r, TestConnection& c) {
      const int now = ++serving;
      for (int m = most.load(); now > m && !most.compare_exchange_weak(m, now);) {
      }
      c.Sleep(100);
      --serving;
      c.Respond(200, {}, r.body);
    };
  }
};

TEST_CASE("Requests past the budget per origin wait their turn, first in first out", "[http]") {
  SlowEcho echo;
  HttpTestServer server(echo.Handler());
  const size_t budget = GENERATE(size_t{1}, size_t{2});
  CAPTURE(budget);
  Fixture f(Budget(budget));
  std::atomic<uint64_t> queued{0};
  for (uint64_t tag = 1; tag <= 6; tag++) {
    HttpRequest r = Post(server.Url(), "call " + std::to_string(tag));
    r.queued_gauge = &queued;
    f.client->Start(&f.sink, tag, std::move(r));
  }
  CHECK(f.client->active() == 6);
  CHECK(f.client->waiting() == 6 - budget);
  CHECK(queued.load() == 6 - budget);
  REQUIRE(RunUntil(
      &f.loop, [&] { return f.sink.DoneCount() == 6; }, std::chrono::seconds(5)));
  CHECK(echo.most.load() == static_cast<int>(budget));
  CHECK(server.accepted() == budget);  // that many connections served all six
  CHECK(queued.load() == 0);
  CHECK(f.client->waiting() == 0);
  CHECK(f.client->stats().queued == 6 - budget);
  for (uint64_t tag = 1; tag <= 6; tag++) {
    CHECK(f.sink.seen[tag].body == "call " + std::to_string(tag));
  }
  // One at a time, the server sees them in the order they were started.
  if (budget == 1) {
    std::vector<std::string> order;
    for (const TestRequest& r : server.requests()) order.push_back(r.body);
    CHECK(order ==
          std::vector<std::string>{"call 1", "call 2", "call 3", "call 4", "call 5", "call 6"});
  }
}

TEST_CASE("Requests waiting for the budget hold no handle, and all are answered", "[http]") {
  HttpTestServer server(
      [](const TestRequest& r, TestConnection& c) { c.Respond(200, {}, r.body); });
  constexpr size_t kBudget = 2;
  constexpr uint64_t kRequests = 400;
  Fixture f(Budget(kBudget));
  for (uint64_t tag = 1; tag <= kRequests; tag++) {
    f.client->Start(&f.sink, tag, Post(server.Url(), "call " + std::to_string(tag)));
  }
  CHECK(f.client->waiting() == kRequests - kBudget);
  // The ones in progress; not one per waiting request.
  CHECK(f.client->stats().handles <= kBudget);
  REQUIRE(RunUntil(
      &f.loop, [&] { return f.sink.DoneCount() == kRequests; }, std::chrono::seconds(20)));
  CHECK(f.client->stats().handles <= kBudget);
  CHECK(server.accepted() <= kBudget);
  for (uint64_t tag = 1; tag <= kRequests; tag++) {
    CHECK(f.sink.seen[tag].status == 200);
    CHECK(f.sink.seen[tag].body == "call " + std::to_string(tag));
  }
}

TEST_CASE("A request aborted while it waits for the budget is never sent", "[http]") {
  SlowEcho echo;
  HttpTestServer server(echo.Handler());
  Fixture f(Budget(1));
  std::atomic<uint64_t> queued{0};
  f.client->Start(&f.sink, 1, Post(server.Url(), "first"));
  HttpRequest second = Post(server.Url(), "second");
  second.queued_gauge = &queued;
  f.client->Start(&f.sink, 2, std::move(second));
  f.client->Start(&f.sink, 3, Post(server.Url(), "third"));
  CHECK(queued.load() == 1);
  f.client->Abort(&f.sink, 2);
  CHECK(queued.load() == 0);
  CHECK(f.client->waiting() == 1);
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.Done(3); }));
  CHECK(f.sink.seen[3].body == "third");
  CHECK(f.sink.seen.count(2) == 0);  // no callback
  CHECK(server.request_count() == 2);
  // AbortAll empties the queue too.
  f.client->Start(&f.sink, 4, Post(server.Url(), "fourth"));
  f.client->Start(&f.sink, 5, Post(server.Url(), "fifth"));
  f.client->AbortAll(&f.sink);
  CHECK(f.client->waiting() == 0);
  RunFor(&f.loop, 200);
  CHECK(server.request_count() <= 3);  // "fourth" may have gone out; "fifth" never did
  for (const TestRequest& r : server.requests()) CHECK(r.body != "fifth");
}

TEST_CASE("The budget is per origin, and long-lived streams neither count nor wait", "[http]") {
  SlowEcho echo;
  HttpTestServer slow(echo.Handler());
  HttpTestServer other([](const TestRequest& r, TestConnection& c) {
    if (r.target == "/stream") return SlowStream(r, c);
    c.Respond(200, {}, "other");
  });
  Fixture f(Budget(1));
  HttpRequest stream = Get(other.Url("/stream"));
  stream.long_lived = true;
  f.client->Start(&f.sink, 1, std::move(stream));
  f.client->Start(&f.sink, 2, Post(slow.Url(), "a"));
  f.client->Start(&f.sink, 3, Post(slow.Url(), "b"));    // waits for "a"
  f.client->Start(&f.sink, 4, Post(other.Url(), "{}"));  // another origin: goes at once
  CHECK(f.client->waiting() == 1);
  REQUIRE(f.RunUntilDone(4));
  CHECK(f.sink.seen[4].body == "other");
  CHECK_FALSE(f.sink.Done(3));
  REQUIRE(f.RunUntilDone(3));
  CHECK(f.sink.seen[1].data_calls > 0);  // the stream ran beside them
  CHECK_FALSE(f.sink.Done(1));
  f.client->Abort(&f.sink, 1);
}

// Runs the loop with nothing else to wake it (no ticking timer, unlike
// RunUntil), so work the client leaves for "later" without arming the loop
// shows as a stall. Returns whether `done()` came within `limit`.
bool RunUntilUnassisted(uv_loop_t* loop, const std::function<bool()>& done,
                        std::chrono::milliseconds limit) {
  uv_timer_t bound;
  uv_timer_init(loop, &bound);
  bool expired = false;
  bound.data = &expired;
  uv_timer_start(
      &bound, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; },
      static_cast<uint64_t>(limit.count()), 0);
  while (!done() && !expired) uv_run(loop, UV_RUN_ONCE);
  uv_close(reinterpret_cast<uv_handle_t*>(&bound), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return done() && !expired;
}

TEST_CASE("A handle kept from one request serves the next with nothing of the last", "[http]") {
  HttpTestServer a, b;
  Fixture f;
  HttpRequest first = Post(a.Url(), "one");
  first.headers = {{"X-First", "1"}, {"Content-Type", "application/json"}};
  HttpRequest second = Get(b.Url("/events"));
  second.headers = {{"X-Second", "2"}};
  HttpRequest third;
  third.method = HttpMethod::kDelete;
  third.url = a.Url();
  HttpRequest fourth = Post(b.Url("/other"), "");
  HttpRequest fifth = Post(a.Url(), "five");
  uint64_t tag = 0;
  for (HttpRequest* r : {&first, &second, &third, &fourth, &fifth}) {
    f.client->Start(&f.sink, ++tag, std::move(*r));
    REQUIRE(f.RunUntilDone(tag));
    CHECK(f.sink.seen[tag].result.ok);
  }
  const std::vector<TestRequest> at_a = a.requests();
  const std::vector<TestRequest> at_b = b.requests();
  REQUIRE(at_a.size() == 3);
  REQUIRE(at_b.size() == 2);
  CHECK(at_a[0].method == "POST");
  CHECK(at_a[0].body == "one");
  CHECK(at_a[0].Header("X-First") == "1");
  CHECK(at_b[0].method == "GET");
  CHECK(at_b[0].target == "/events");
  CHECK(at_b[0].body.empty());
  CHECK(at_b[0].Header("X-First").empty());
  CHECK(at_b[0].Header("X-Second") == "2");
  CHECK(at_a[1].method == "DELETE");
  CHECK(at_a[1].target == "/mcp");
  CHECK(at_a[1].body.empty());
  CHECK(at_a[1].Header("X-Second").empty());
  CHECK(at_b[1].method == "POST");
  CHECK(at_b[1].target == "/other");
  CHECK(at_b[1].body.empty());
  CHECK(at_a[2].method == "POST");
  CHECK(at_a[2].body == "five");
  CHECK(at_a[2].Header("Content-Type") != "application/json");
}

TEST_CASE("A server that closes each connection right after answering loses no request", "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    c.Respond(200, {{"Content-Type", "application/json"}}, "re:" + r.body);
    c.Close();  // without saying so: curl keeps the connection
  });
  Fixture f;
  // Each next request starts as the last one ends, before the loop has
  // seen the close: curl reuses the closed connection, finds it dead and
  // sends the request again on a new one.
  f.sink.on_done = [&](uint64_t tag) {
    if (tag < 8) f.client->Start(&f.sink, tag + 1, Post(server.Url(), std::to_string(tag + 1)));
  };
  f.client->Start(&f.sink, 1, Post(server.Url(), "1"));
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.Done(8); }));
  for (uint64_t tag = 1; tag <= 8; tag++) {
    INFO("request " << tag << ": " << f.sink.seen[tag].result.error);
    CHECK(f.sink.seen[tag].result.ok);
    CHECK(f.sink.seen[tag].body == "re:" + std::to_string(tag));
  }
}

// How often the loop turns in `ms` with nothing but a timer to wait for:
// one or two when it sleeps, thousands when a socket keeps waking it.
int LoopTurns(uv_loop_t* loop, int ms) {
  uv_timer_t bound;
  uv_timer_init(loop, &bound);
  bool expired = false;
  bound.data = &expired;
  uv_timer_start(
      &bound, [](uv_timer_t* t) { *static_cast<bool*>(t->data) = true; }, static_cast<uint64_t>(ms),
      0);
  int turns = 0;
  while (!expired) {
    uv_run(loop, UV_RUN_ONCE);
    turns++;
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&bound), nullptr);
  uv_run(loop, UV_RUN_NOWAIT);
  return turns;
}

HttpRequest Call(std::string url, std::string body) {
  HttpRequest r = Post(std::move(url), std::move(body));
  r.at_most_once = true;
  return r;
}

// The requests the server read with this body.
std::vector<TestRequest> RequestsWith(const HttpTestServer& server, std::string_view body) {
  std::vector<TestRequest> out;
  for (const TestRequest& r : server.requests()) {
    if (r.body == body) out.push_back(r);
  }
  return out;
}

// Reads "drop..." requests and closes their connection without an answer
// (after reading them: the server may have acted), answers the rest.
void DropMarked(const TestRequest& r, TestConnection& c) {
  if (r.body.rfind("drop", 0) == 0) return c.Close();
  c.Respond(200, {{"Content-Type", "application/json"}}, "re:" + r.body);
}

TEST_CASE("An at-most-once request whose kept connection dies unanswered is not sent again",
          "[http]") {
  HttpTestServer server(DropMarked);
  Fixture f;
  uint64_t tag = 0;
  // Each round warms a connection, then loses it: the handle that refused a
  // re-send serves the next round as a fresh one.
  for (int round = 1; round <= 3; round++) {
    const std::string warm = "warm" + std::to_string(round);
    const std::string drop = "drop" + std::to_string(round);
    f.client->Start(&f.sink, ++tag, Call(server.Url(), warm));
    REQUIRE(f.RunUntilDone(tag));
    REQUIRE(f.sink.seen[tag].result.ok);
    f.client->Start(&f.sink, ++tag, Call(server.Url(), drop));
    REQUIRE(f.RunUntilDone(tag));
    const TransferResult& result = f.sink.seen[tag].result;
    CHECK_FALSE(result.ok);
    CHECK(result.request_sent);
    CHECK(result.error == kConnectionLostAfterSend);
    CHECK(f.sink.seen[tag].heads == 0);
    const std::vector<TestRequest> sent = RequestsWith(server, drop);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0].connection == RequestsWith(server, warm).at(0).connection);
  }
  // And plain requests through the same handles are still re-sent.
  f.client->Start(&f.sink, ++tag, Post(server.Url(), "after"));
  REQUIRE(f.RunUntilDone(tag));
  CHECK(f.sink.seen[tag].body == "re:after");
}

TEST_CASE("A request without at-most-once is sent again when a kept connection dies unanswered",
          "[http]") {
  std::atomic<bool> dropped = false;  // the server's connection threads read it
  HttpTestServer server([&](const TestRequest& r, TestConnection& c) {
    if (r.body == "again" && !dropped.exchange(true)) return c.Close();
    c.Respond(200, {{"Content-Type", "application/json"}}, "re:" + r.body);
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url(), "warm"));
  REQUIRE(f.RunUntilDone(1));
  f.client->Start(&f.sink, 2, Post(server.Url(), "again"));
  REQUIRE(f.RunUntilDone(2));
  CHECK(f.sink.seen[2].result.ok);
  CHECK(f.sink.seen[2].body == "re:again");
  CHECK(RequestsWith(server, "again").size() == 2);
}

TEST_CASE("An at-most-once request cut off mid-answer says the request went out", "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    if (r.body != "cut") return c.Respond(200, {{"Content-Type", "application/json"}}, "{}");
    c.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{");
    c.Close();
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Call(server.Url(), "warm"));
  REQUIRE(f.RunUntilDone(1));
  f.client->Start(&f.sink, 2, Call(server.Url(), "cut"));
  REQUIRE(f.RunUntilDone(2));
  CHECK(f.sink.seen[2].heads == 1);
  CHECK_FALSE(f.sink.seen[2].result.ok);
  CHECK(f.sink.seen[2].result.request_sent);
  CHECK(f.sink.seen[2].result.error == kConnectionLostAfterSend);
  CHECK(RequestsWith(server, "cut").size() == 1);
}

TEST_CASE("An at-most-once request that never connected says nothing was sent", "[http]") {
  Fixture f;
  const std::string refused = "http://127.0.0.1:" + std::to_string(testing::ClosedPort()) + "/mcp";
  f.client->Start(&f.sink, 1, Call(refused, "{}"));
  REQUIRE(f.RunUntilDone(1));
  CHECK_FALSE(f.sink.seen[1].result.ok);
  CHECK_FALSE(f.sink.seen[1].result.request_sent);
  CHECK(f.sink.seen[1].result.error == "connection refused");
}

TEST_CASE(
    "A kept connection the server closes costs the idle loop nothing, the next request "
    "opens another",
    "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Respond(200, {{"Content-Type", "application/json"}}, "{}");
    c.Close();  // after the answer, without saying so: curl keeps the connection
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Post(server.Url(), "{}"));
  REQUIRE(f.RunUntilDone(1));
  REQUIRE(f.sink.seen[1].result.ok);
  // The close arrives while the connection idles.
  REQUIRE(RunUntil(&f.loop, [&] { return server.ended() == 1; }));
  // A closed socket left watched would wake the loop on every turn: it
  // would spin instead of sleeping.
  CHECK(LoopTurns(&f.loop, 200) < 20);
  for (uint64_t tag = 2; tag <= 4; tag++) {
    f.client->Start(&f.sink, tag, Post(server.Url(), "{}"));
    REQUIRE(f.RunUntilDone(tag));
    CHECK(f.sink.seen[tag].result.ok);
    REQUIRE(RunUntil(&f.loop, [&] { return server.ended() == tag; }));
  }
  CHECK(server.accepted() == 4);
}

TEST_CASE("Transfers started from completions run without another event to wake the loop",
          "[http]") {
  HttpTestServer server(
      [](const TestRequest& r, TestConnection& c) { c.Respond(200, {}, "echo " + r.body); });
  Fixture f;
  const std::string refused = "http://127.0.0.1:" + std::to_string(testing::ClosedPort()) + "/mcp";
  // Alternate failures (reported inside curl's own pass) and answers.
  f.sink.on_done = [&](uint64_t tag) {
    if (tag < 10) f.client->Start(&f.sink, tag + 1, Post(tag % 2 ? refused : server.Url(), "x"));
  };
  f.client->Start(&f.sink, 1, Post(server.Url(), "x"));
  REQUIRE(RunUntilUnassisted(
      &f.loop, [&] { return f.sink.Done(10); }, std::chrono::milliseconds(3000)));
  CHECK(f.sink.DoneCount() == 10);
}

TEST_CASE("A long-lived transfer reads a large event through its small buffer intact, twice",
          "[http]") {
  std::string event = "data: ";
  for (int i = 0; event.size() < 200000; i++) event += std::to_string(i) + ",";
  event += "\n\n";
  HttpTestServer server([&](const TestRequest&, TestConnection& c) {
    c.Respond(200, {{"Content-Type", "text/event-stream"}}, event);
  });
  Fixture f;
  for (uint64_t tag = 1; tag <= 2; tag++) {
    HttpRequest get = Get(server.Url("/stream"));
    get.long_lived = true;
    f.client->Start(&f.sink, tag, get);
    REQUIRE(f.RunUntilDone(tag));
    CHECK(f.sink.seen[tag].result.ok);
    CHECK(f.sink.seen[tag].body == event);
  }
  // And a request after them reads through the usual buffer.
  f.client->Start(&f.sink, 3, Get(server.Url("/stream")));
  REQUIRE(f.RunUntilDone(3));
  CHECK(f.sink.seen[3].body == event);
}

TEST_CASE("200 concurrent transfers complete, and a second wave reuses their connections",
          "[http]") {
  HttpTestServer server([](const TestRequest& r, TestConnection& c) {
    c.Sleep(10);
    c.Respond(200, {{"Content-Type", "application/json"}}, "re:" + r.body);
  });
  Fixture f;
  constexpr int kTransfers = 200;
  for (int i = 0; i < kTransfers; i++) {
    f.client->Start(&f.sink, i, Post(server.Url(), std::to_string(i)));
  }
  REQUIRE(RunUntil(
      &f.loop, [&] { return f.sink.DoneCount() == kTransfers; }, std::chrono::seconds(10)));
  for (int i = 0; i < kTransfers; i++) {
    CHECK(f.sink.seen[i].result.ok);
    CHECK(f.sink.seen[i].body == "re:" + std::to_string(i));
  }
  CHECK(server.request_count() == kTransfers);
  CHECK(f.client->stats().finished == kTransfers);
  const auto first_wave = server.accepted();
  CHECK(first_wave <= 64);  // the default budget per origin
  // The connections stay in the cache: sequential requests open none.
  for (int i = 0; i < 20; i++) {
    f.client->Start(&f.sink, kTransfers + i, Post(server.Url(), "again"));
    REQUIRE(RunUntil(
        &f.loop, [&] { return f.sink.DoneCount() == static_cast<size_t>(kTransfers + i + 1); }));
  }
  CHECK(server.accepted() == first_wave);
}

TEST_CASE("A stalled response stays open until aborted", "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 50\r\n\r\n");
    c.Sleep(200);           // the stall
    c.Write("after it\n");  // 9 of the 50 bytes; the connection stays open
  });
  Fixture f;
  f.client->Start(&f.sink, 1, Get(server.Url()));
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.seen[1].heads == 1; }));
  // The transfer outlived the stall: it takes what comes after it.
  REQUIRE(RunUntil(&f.loop, [&] { return f.sink.seen[1].data_calls > 0; }));
  CHECK(f.sink.seen[1].body == "after it\n");
  CHECK(f.sink.seen[1].dones == 0);
  CHECK(f.client->active() == 1);
  f.client->Abort(&f.sink, 1);
  CHECK(f.client->active() == 0);
  // The server finds the connection closed: nothing more can come of it.
  REQUIRE(RunUntil(&f.loop, [&] { return server.ended() == 1; }));
  CHECK(f.sink.seen[1].dones == 0);
}

TEST_CASE("Destroying the client with transfers in flight is clean and silent", "[http]") {
  HttpTestServer server([](const TestRequest&, TestConnection& c) {
    c.Write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345");
    c.Sleep(2000);
  });
  uv_loop_t loop;
  uv_loop_init(&loop);
  RecordingSink sink;
  {
    HttpClient client(&loop);
    for (uint64_t tag = 1; tag <= 10; tag++) client.Start(&sink, tag, Get(server.Url()));
    REQUIRE(RunUntil(&loop, [&] { return server.request_count() == 10; }));
    RunFor(&loop, 20);
    // One more that has not even connected yet.
    client.Start(&sink, 11, Get(server.Url()));
  }
  size_t before = 0;
  for (auto& [tag, s] : sink.seen) before += s.heads + s.data_calls + s.dones;
  CHECK(sink.DoneCount() == 0);
  CHECK(FinishLoop(&loop) == 0);
  size_t after = 0;
  for (auto& [tag, s] : sink.seen) after += s.heads + s.data_calls + s.dones;
  CHECK(after == before);
}

TEST_CASE("HeadParser keeps the final head only", "[http]") {
  http::HeadParser p;
  CHECK_FALSE(p.Feed("HTTP/1.1 100 Continue\r\n"));
  CHECK_FALSE(p.Feed("\r\n"));
  CHECK_FALSE(p.Feed("HTTP/2 404 \r\n"));
  CHECK_FALSE(p.Feed("CONTENT-TYPE: text/html\r\n"));
  CHECK_FALSE(p.Feed("mcp-session-id:x y \r\n"));
  CHECK(p.Feed("\r\n"));
  CHECK(p.status() == 404);
  CHECK(p.content_type() == "text/html");
  CHECK(p.session_id() == "x y");
  CHECK_FALSE(p.Feed("Content-Type: trailer\r\n"));
  CHECK_FALSE(p.Feed("\r\n"));
  CHECK(p.content_type() == "text/html");
  // Reset for the next transfer on the same handle: nothing of this head stays.
  p.Reset();
  CHECK_FALSE(p.complete());
  CHECK(p.status() == 0);
  CHECK(p.content_type().empty());
  CHECK(p.session_id().empty());
  CHECK_FALSE(p.Feed("HTTP/1.1 204 No Content\r\n"));
  CHECK(p.Feed("\r\n"));
  CHECK(p.status() == 204);
  CHECK(p.content_type().empty());
}

TEST_CASE("HeadParser keeps every WWW-Authenticate of the final head", "[http]") {
  http::HeadParser p;
  CHECK_FALSE(p.Feed("HTTP/1.1 401 Unauthorized\r\n"));
  CHECK_FALSE(p.Feed("WWW-Authenticate: Bearer resource_metadata=\"https://x/.well-known\"\r\n"));
  CHECK_FALSE(p.Feed("www-authenticate: Basic realm=\"x\"\r\n"));
  CHECK(p.Feed("\r\n"));
  CHECK(p.status() == 401);
  CHECK(p.www_authenticate() ==
        "Bearer resource_metadata=\"https://x/.well-known\", Basic realm=\"x\"");
}

TEST_CASE("curl codes become short texts", "[http]") {
  CHECK(http::ErrorText(CURLE_COULDNT_CONNECT, ECONNREFUSED) == "connection refused");
  CHECK(http::ErrorText(CURLE_COULDNT_CONNECT, ENETUNREACH) == "could not connect");
  CHECK(http::ErrorText(CURLE_COULDNT_RESOLVE_HOST, 0) == "could not resolve host");
  CHECK(http::ErrorText(CURLE_OPERATION_TIMEDOUT, 0) == "timed out connecting");
  CHECK(http::ErrorText(CURLE_SSL_CONNECT_ERROR, 0) == "TLS: handshake failed");
  CHECK(http::ErrorText(CURLE_SSL_CACERT_BADFILE, 0).rfind("TLS: ", 0) == 0);
  CHECK(http::ErrorText(CURLE_RECV_ERROR, 0) == "connection reset");
  CHECK(http::ErrorText(CURLE_SEND_ERROR, 0) == "connection reset");
}

TEST_CASE("A lost connection names the request's fate only for at-most-once requests", "[http]") {
  http::Failure f;
  f.code = CURLE_RECV_ERROR;
  f.request_sent = true;
  CHECK(http::FailureText(f) == "connection reset");
  f.at_most_once = true;
  CHECK(http::FailureText(f) == kConnectionLostAfterSend);
  f.code = CURLE_PARTIAL_FILE;
  CHECK(http::FailureText(f) == kConnectionLostAfterSend);
  // Nothing was sent: the server cannot have seen it.
  f.request_sent = false;
  CHECK(http::FailureText(f) == "response cut short");
  // A refusal, not a loss: the server's own words stay.
  f.request_sent = true;
  f.code = CURLE_WEIRD_SERVER_REPLY;
  CHECK(http::FailureText(f) == "invalid HTTP response");
  // So do a proxy's, whose CONNECT counts as sent.
  f.code = CURLE_RECV_ERROR;
  f.proxied = true;
  f.proxy_status = 407;
  CHECK(http::FailureText(f) == "the proxy requires authentication (HTTP 407 from the proxy)");
}

}  // namespace
}  // namespace mcpgw
