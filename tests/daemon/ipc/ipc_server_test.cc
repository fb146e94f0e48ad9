#include "daemon/ipc/ipc_server.h"

#include <sys/stat.h>

#include <fstream>

#include <catch2/catch.hpp>

#include "daemon/ipc/ipc_test_fixture.h"

namespace mcpgw {
namespace {

using testing::FakeHandler;
using testing::RawClient;
using testing::ServerThread;
using testing::TempDir;
using namespace std::chrono_literals;

std::string Request(int id, std::string_view method, std::string_view params = "{}") {
  return proto::EncodeRequest(std::to_string(id), method, params);
}

struct Fixture {
  TempDir dir;
  std::string path = dir.path() + "/run/mcpgw.sock";
  FakeHandler handler;
  std::unique_ptr<ServerThread> server;

  explicit Fixture(IpcServerOptions options = {}) {
    server = std::make_unique<ServerThread>(&handler, path, options);
    REQUIRE(server->listen_error() == "");
  }
  // Replies to `ticket` with text from the loop thread.
  void ReplyText(Ticket ticket, std::string text) {
    server->Run([&](IpcServer& s) { s.ReplyText(ticket, text); });
  }
};

TEST_CASE("hello is answered by the server with its version", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.connected());
  c.Send(proto::EncodeHello("\"h\"", "test"));
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "\"h\"");
  REQUIRE(!d.message.is_error);
  CHECK((*d.message.result)["version"].GetInt() == 1);
  CHECK(std::string((*d.message.result)["daemon"].GetString()) == "mcpgwd " MCPGW_VERSION);
  CHECK(f.handler.requests().empty());
}

TEST_CASE("requests before hello and unsupported versions are refused", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  c.Send(Request(1, "status"));
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.is_error);
  CHECK(d.message.error_kind == proto::ErrorKind::kInvalidRequest);
  CHECK(d.message.error_message.find("hello") != std::string::npos);

  c.Send(proto::EncodeRequest("2", "hello", R"({"version":2,"client":"future"})"));
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.is_error);
  CHECK(d.message.error_message.find("version") != std::string::npos);
  c.Send(Request(3, "status"));
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.is_error);  // still no successful hello
  CHECK(f.handler.requests().empty());
}

TEST_CASE("a request becomes a ticket and the reply reaches the client", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  // hello and the first request back to back in one write (pipelining).
  c.Send(proto::EncodeHello("0", "test") +
         Request(1, "call_dynamic_tool", R"({"namespace":"a","toolName":"t"})"));
  REQUIRE(c.ReadMessage().ok);
  REQUIRE(f.handler.WaitRequests(1));
  auto r = f.handler.requests()[0];
  CHECK(r.method == "call_dynamic_tool");
  CHECK(r.params == R"({"namespace":"a","toolName":"t"})");
  CHECK(r.peer.uid == geteuid());
  CHECK(r.peer.pid == getpid());
  f.ReplyText(r.ticket, "line one\nline two");
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "1");
  CHECK(std::string((*d.message.result)["text"].GetString()) == "line one\nline two");
  // A second reply to the same ticket is dropped.
  f.ReplyText(r.ticket, "again");
  c.Send(Request(2, "status"));
  REQUIRE(f.handler.WaitRequests(2));
  f.server->Run([&](IpcServer& s) {
    s.ReplyJson(f.handler.requests()[1].ticket, R"({"daemon":{"pid":1},"servers":[]})");
  });
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "2");
  CHECK((*d.message.result)["daemon"]["pid"].GetInt() == 1);
  // A result that is not a JSON object never reaches the wire as such.
  c.Send(Request(3, "status"));
  REQUIRE(f.handler.WaitRequests(3));
  f.server->Run([&](IpcServer& s) { s.ReplyJson(f.handler.requests()[2].ticket, R"({"cut":)"); });
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "3");
  CHECK(d.message.error_kind == proto::ErrorKind::kTransport);
}

TEST_CASE("replies may come in any order", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  for (int id = 1; id <= 3; ++id) c.Send(Request(id, "get_dynamic_tools"));
  REQUIRE(f.handler.WaitRequests(3));
  auto reqs = f.handler.requests();
  f.server->Run([&](IpcServer& s) {
    s.ReplyText(reqs[2].ticket, "three");
    s.ReplyError(reqs[0].ticket, proto::ErrorKind::kNotReady, "alpha is loading");
    s.ReplyText(reqs[1].ticket, "two");
  });
  proto::Decoded a = c.ReadMessage(), b = c.ReadMessage(), e = c.ReadMessage();
  REQUIRE((a.ok && b.ok && e.ok));
  CHECK(a.message.id == "3");
  CHECK(b.message.id == "1");
  CHECK(b.message.error_kind == proto::ErrorKind::kNotReady);
  CHECK(b.message.error_code == proto::ErrorCode(proto::ErrorKind::kNotReady));
  CHECK(e.message.id == "2");
}

TEST_CASE("a cancel notification cancels the ticket and no reply follows", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  c.Send(proto::EncodeRequest("\"slow\"", "call_dynamic_tool", "{}"));
  REQUIRE(f.handler.WaitRequests(1));
  Ticket slow = f.handler.requests()[0].ticket;
  c.Send(proto::EncodeCancel("\"slow\""));
  REQUIRE(f.handler.WaitCancels(1));
  CHECK(f.handler.cancels()[0] == slow);
  f.ReplyText(slow, "too late");
  // The id is free again, and the next reply is the only one that arrives.
  c.Send(proto::EncodeRequest("\"slow\"", "status", "{}"));
  REQUIRE(f.handler.WaitRequests(2));
  f.ReplyText(f.handler.requests()[1].ticket, "fresh");
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(std::string((*d.message.result)["text"].GetString()) == "fresh");
  // Cancelling an unknown id is ignored.
  c.Send(proto::EncodeCancel("999"));
  c.Send(Request(5, "status"));
  REQUIRE(f.handler.WaitRequests(3));
  CHECK(f.handler.cancels().size() == 1);
}

TEST_CASE("closing the connection cancels every ticket in flight", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  for (int id = 1; id <= 3; ++id) c.Send(Request(id, "call_dynamic_tool"));
  REQUIRE(f.handler.WaitRequests(3));
  f.ReplyText(f.handler.requests()[1].ticket, "done");  // one of them finishes
  REQUIRE(c.ReadMessage().ok);
  c.Close();
  REQUIRE(f.handler.WaitCancels(2));
  auto cancels = f.handler.cancels();
  std::sort(cancels.begin(), cancels.end());
  auto reqs = f.handler.requests();
  CHECK(cancels == std::vector<Ticket>{reqs[0].ticket, reqs[2].ticket});
  f.server->Run([](IpcServer& s) { CHECK(s.connections() == 0); });
}

TEST_CASE("a frame over the limit is refused and closes only its connection", "[daemon][ipc]") {
  IpcServerOptions options;
  options.max_frame_bytes = 1024;
  Fixture f(options);
  RawClient big(f.path), other(f.path);
  REQUIRE(big.Hello());
  REQUIRE(other.Hello());
  big.Send(std::string(4096, 'x'));  // no newline: refused while reading
  proto::Decoded d = big.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "null");
  CHECK(d.message.error_kind == proto::ErrorKind::kInvalidRequest);
  CHECK(d.message.error_message.find("exceeded 1024 bytes") != std::string::npos);
  CHECK(big.WaitEof());
  other.Send(Request(1, "status"));
  REQUIRE(f.handler.WaitRequests(1));
  f.ReplyText(f.handler.requests()[0].ticket, "still here");
  REQUIRE(other.ReadMessage().ok);
}

TEST_CASE("an answer over the frame limit fails alone, naming its size and the limit",
          "[daemon][ipc]") {
  IpcServerOptions options;
  options.max_frame_bytes = 1024;
  Fixture f(options);
  RawClient c(f.path);
  REQUIRE(c.Hello());
  c.Send(Request(1, "get_dynamic_tools"));
  c.Send(Request(2, "status"));
  REQUIRE(f.handler.WaitRequests(2));
  // Escaping makes the frame larger than the text: the frame is what counts.
  f.ReplyText(f.handler.requests()[0].ticket, std::string(600, '"'));
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "1");
  CHECK(d.message.error_kind == proto::ErrorKind::kTransport);
  CHECK(d.message.error_message ==
        "the answer is 1.2 KiB, over the 1 KiB frame limit of the local socket");
  // The connection and its other requests carry on.
  f.ReplyText(f.handler.requests()[1].ticket, "small");
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "2");
  CHECK(std::string((*d.message.result)["text"].GetString()) == "small");
}

TEST_CASE("the handler sees the request's frame as it arrived", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  const std::string frame =
      R"({"jsonrpc":"2.0","id":7,"method":"call_dynamic_tool","params":{"arguments":{"n":1.50}}})";
  c.Send(frame + "\n");
  REQUIRE(f.handler.WaitRequests(1));
  CHECK(f.handler.requests()[0].frame == frame);
}

TEST_CASE("bad frames get error replies and the connection stays usable", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  c.Send("this is not json\n");
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "null");
  CHECK(d.message.error_code == proto::kCodeParseError);
  CHECK(d.message.error_kind == proto::ErrorKind::kInvalidRequest);

  c.Send(R"({"jsonrpc":"2.0","id":4,"method":"nope"})"
         "\n");
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "4");
  CHECK(d.message.error_code == proto::kCodeMethodNotFound);

  c.Send(R"({"jsonrpc":"2.0","id":5,"method":"status","params":"x"})"
         "\n");
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.error_code == proto::kCodeInvalidParams);

  // Random bytes, including newlines and NULs.
  std::string noise;
  uint32_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1103515245 + 12345;
    noise.push_back(static_cast<char>(x >> 16));
  }
  c.Send(noise + "\n");
  c.Send(Request(6, "status"));
  REQUIRE(f.handler.WaitRequests(1));
  f.ReplyText(f.handler.requests()[0].ticket, "ok");
  for (;;) {  // skip the error replies to the noise
    d = c.ReadMessage();
    REQUIRE(d.ok);
    if (d.message.id == "6") break;
    CHECK(d.message.is_error);
  }
}

TEST_CASE("a duplicate id in flight is refused without disturbing the first", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  c.Send(Request(1, "call_dynamic_tool"));
  REQUIRE(f.handler.WaitRequests(1));
  c.Send(Request(1, "status"));
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.is_error);
  CHECK(d.message.error_message.find("already in flight") != std::string::npos);
  f.ReplyText(f.handler.requests()[0].ticket, "first");
  d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(std::string((*d.message.result)["text"].GetString()) == "first");
  CHECK(f.handler.requests().size() == 1);
}

TEST_CASE("requests in flight per connection are bounded", "[daemon][ipc]") {
  IpcServerOptions options;
  options.max_in_flight_per_connection = 2;
  Fixture f(options);
  RawClient c(f.path);
  REQUIRE(c.Hello());
  for (int id = 1; id <= 3; ++id) c.Send(Request(id, "call_dynamic_tool"));
  proto::Decoded d = c.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.id == "3");
  CHECK(d.message.error_kind == proto::ErrorKind::kInvalidRequest);
  CHECK(d.message.error_message.find("too many requests in flight") != std::string::npos);
  REQUIRE(f.handler.WaitRequests(2));
  f.ReplyText(f.handler.requests()[0].ticket, "one");
  REQUIRE(c.ReadMessage().ok);
  c.Send(Request(4, "status"));  // a slot is free again
  REQUIRE(f.handler.WaitRequests(3));
}

TEST_CASE("connections per uid are bounded", "[daemon][ipc]") {
  IpcServerOptions options;
  options.max_connections_per_uid = 2;
  Fixture f(options);
  RawClient a(f.path), b(f.path);
  REQUIRE(a.Hello());
  REQUIRE(b.Hello());
  RawClient third(f.path);
  proto::Decoded d = third.ReadMessage();
  REQUIRE(d.ok);
  CHECK(d.message.error_message.find("too many connections") != std::string::npos);
  CHECK(third.WaitEof());
  a.Close();
  // Once one closes, a new connection is served.
  for (int attempt = 0; attempt < 50; ++attempt) {
    RawClient again(f.path);
    if (again.Hello()) return;
    std::this_thread::sleep_for(20ms);
  }
  FAIL("a freed connection slot was never reusable");
}

TEST_CASE("peers of a uid not allowed are closed without an answer", "[daemon][ipc]") {
  IpcServerOptions options;
  options.allowed_uids = {geteuid() + 1};  // everybody but us
  Fixture f(options);
  RawClient c(f.path);
  c.Send(proto::EncodeHello("0", "intruder") + Request(1, "status"));
  CHECK(c.WaitEof());
  CHECK(f.handler.requests().empty());
}

TEST_CASE("the socket directory is 0700 and the socket 0600", "[daemon][ipc]") {
  Fixture f;
  struct stat st {};
  REQUIRE(stat((f.dir.path() + "/run").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
  REQUIRE(lstat(f.path.c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0600);
  // Stopping removes the socket file.
  f.server->Stop();
  CHECK(lstat(f.path.c_str(), &st) != 0);
}

TEST_CASE("a directory others can write to is refused", "[daemon][ipc]") {
  TempDir dir;
  std::string sub = dir.path() + "/open";
  REQUIRE(mkdir(sub.c_str(), 0700) == 0);
  REQUIRE(chmod(sub.c_str(), 0777) == 0);
  FakeHandler handler;
  ServerThread server(&handler, sub + "/mcpgw.sock");
  CHECK(server.listen_error().find("writable by other users") != std::string::npos);
}

TEST_CASE("a stale socket is replaced, a live one is refused", "[daemon][ipc]") {
  TempDir dir;
  std::string path = dir.path() + "/mcpgw.sock";
  {  // A socket file nobody listens on, as a crashed daemon leaves it.
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    close(fd);
  }
  FakeHandler handler;
  ServerThread first(&handler, path);
  REQUIRE(first.listen_error() == "");
  RawClient c(path);
  CHECK(c.Hello());

  FakeHandler handler2;
  ServerThread second(&handler2, path);
  CHECK(second.listen_error() == "another mcpgwd is already listening on " + path);
  RawClient still(path);
  CHECK(still.Hello());  // the first daemon's socket was left alone
}

TEST_CASE("a path that is not a socket, or too long, is refused", "[daemon][ipc]") {
  TempDir dir;
  std::string path = dir.path() + "/file";
  std::ofstream(path) << "keep me";
  FakeHandler handler;
  ServerThread server(&handler, path);
  CHECK(server.listen_error().find("not a socket") != std::string::npos);
  CHECK(std::filesystem::exists(path));
  ServerThread long_path(&handler, dir.path() + "/" + std::string(120, 'x'));
  CHECK(long_path.listen_error().find("more than the") != std::string::npos);
}

TEST_CASE("an inherited listening socket is served", "[daemon][ipc]") {
  TempDir dir;
  std::string path = dir.path() + "/activated.sock";
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(fd, 16) == 0);
  FakeHandler handler;
  ServerThread server(&handler, "", {}, fd);
  REQUIRE(server.listen_error() == "");
  RawClient c(path);
  CHECK(c.Hello());
}

TEST_CASE("a client that does not read its replies is disconnected", "[daemon][ipc]") {
  Fixture f;
  RawClient c(f.path);
  REQUIRE(c.Hello());
  c.Send(Request(1, "call_dynamic_tool") + Request(2, "call_dynamic_tool") +
         Request(3, "call_dynamic_tool"));
  REQUIRE(f.handler.WaitRequests(3));
  auto reqs = f.handler.requests();
  // Each within the 32 MiB frame limit; three pass the 64 MiB output bound.
  std::string big(30u << 20, 'x');
  size_t connections = 1;
  f.server->Run([&](IpcServer& s) {
    for (const auto& r : reqs) s.ReplyText(r.ticket, big);
    connections = s.connections();
  });
  CHECK(connections == 0);
}

}  // namespace
}  // namespace mcpgw
