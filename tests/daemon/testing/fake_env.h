// FakeEnv: the Env (daemon/runtime/env.h) of ServerHost, Gateway and
// AuthManager tests. Every FakeEnv of a test shares one FakeWorld: a manual
// clock, and a Settle() that runs posted tasks and due timers until nothing
// is left. HTTP transfers are recorded by FakeHttp for the test to answer
// (head, body, end) or leave hanging; the protocol-era probe is answered by
// the fakes themselves, as 2025-11-25 servers answer it
// (FakeHttp::legacy_servers), and a test may install a scripted server
// (FakeHttp::server) that answers as transfers start. Files live in memory,
// with their modes. Everything runs on the test's thread, in a fixed order.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/runtime/env.h"

namespace mcpgw::testing {

class FakeEnv;

class FakeWorld {
 public:
  static constexpr TimePoint kStart = TimePoint{} + std::chrono::hours(1);
  TimePoint now = kStart;
  // The wall clock at kStart (2023-11-14T22:13:20Z); it runs with `now`, and
  // a test may also set it apart from `now` (SetWallNow), as a clock set by
  // hand or a machine that slept.
  std::chrono::system_clock::time_point wall_at_start{std::chrono::seconds(1'700'000'000)};
  std::vector<FakeEnv*> envs;

  std::chrono::system_clock::time_point WallNow() const {
    return wall_at_start +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(now - kStart);
  }
  double UnixNow() const {
    return std::chrono::duration<double>(WallNow().time_since_epoch()).count();
  }
  // Sets the wall clock to `wall` now; it runs on with `now` from there.
  void SetWallNow(std::chrono::system_clock::time_point wall) {
    wall_at_start =
        wall - std::chrono::duration_cast<std::chrono::system_clock::duration>(now - kStart);
  }
  // Runs posted tasks and due timers, in every env, until none is left.
  inline void Settle();
  // Moves the clock forward, firing every timer due on the way at its time.
  inline void Advance(Duration d);
};

// A transfer the code under test started.
struct FakeTransfer {
  HttpSink* sink = nullptr;
  uint64_t tag = 0;
  HttpRequest request;
  bool aborted = false;
  bool done = false;

  std::string Header(std::string_view name) const {
    for (const auto& [k, v] : request.headers) {
      if (k.size() == name.size() &&
          std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          })) {
        return v;
      }
    }
    return "<none>";
  }
  // The JSON-RPC method of a POST ("" for a reply, "<not json>" otherwise).
  std::string RpcMethod() const {
    if (request.method != HttpMethod::kPost) return "";
    rapidjson::Document doc;
    doc.Parse(request.body.c_str(), request.body.size());
    if (doc.HasParseError() || !doc.IsObject()) return "<not json>";
    auto m = doc.FindMember("method");
    return m != doc.MemberEnd() && m->value.IsString() ? m->value.GetString() : "";
  }
  int64_t RpcId() const {
    rapidjson::Document doc;
    doc.Parse(request.body.c_str(), request.body.size());
    REQUIRE(doc.HasMember("id"));
    return doc["id"].GetInt64();
  }
};

class FakeHttp : public HttpTransport {
 public:
  explicit FakeHttp(FakeWorld* world) : world_(world) {}
  void Start(HttpSink* sink, uint64_t tag, HttpRequest request) override {
    transfers_.push_back(std::make_unique<FakeTransfer>());
    FakeTransfer& t = *transfers_.back();
    t.sink = sink;
    t.tag = tag;
    t.request = std::move(request);
  }
  void Abort(HttpSink* sink, uint64_t tag) override {
    for (auto& t : transfers_) {
      if (t->sink == sink && t->tag == tag && !t->done) t->aborted = true;
    }
  }
  void AbortAll(HttpSink* sink) override {
    for (auto& t : transfers_) {
      if (t->sink == sink && !t->done) t->aborted = true;
    }
  }

  // Live transfers (neither aborted nor finished), oldest first.
  std::vector<FakeTransfer*> Live() {
    std::vector<FakeTransfer*> out;
    for (auto& t : transfers_) {
      if (!t->aborted && !t->done) out.push_back(t.get());
    }
    return out;
  }
  // The oldest live POST of `rpc_method`, or the oldest live transfer of
  // `method` when rpc_method is empty; null when there is none.
  FakeTransfer* Find(HttpMethod method, const std::string& rpc_method = "") {
    for (FakeTransfer* t : Live()) {
      if (t->request.method != method) continue;
      if (method == HttpMethod::kPost && t->RpcMethod() != rpc_method) continue;
      return t;
    }
    return nullptr;
  }
  FakeTransfer& Post(const std::string& rpc_method) {
    FakeTransfer* t = Find(HttpMethod::kPost, rpc_method);
    if (t == nullptr) FAIL("no live POST " << rpc_method);
    return *t;
  }
  size_t Count(HttpMethod method, const std::string& rpc_method = "") const {
    return static_cast<size_t>(std::count_if(transfers_.begin(), transfers_.end(), [&](auto& t) {
      return t->request.method == method &&
             (method != HttpMethod::kPost || t->RpcMethod() == rpc_method);
    }));
  }

  // How many transfers to `url` were started, answered or not.
  size_t Started(std::string_view url) const {
    return static_cast<size_t>(std::count_if(transfers_.begin(), transfers_.end(),
                                             [&](auto& t) { return t->request.url == url; }));
  }

  // Answers `t` in full, the way curl reports it, without letting the world
  // settle (what a scripted server does).
  void Answer(FakeTransfer& t, int status, std::string content_type, const std::string& body,
              std::string session_id = "") {
    REQUIRE_FALSE(t.aborted);
    t.sink->OnHttpHead(t.tag, ResponseHead{status, content_type, session_id, "", "HTTP/1.1"});
    if (!t.aborted && !body.empty()) t.sink->OnHttpData(t.tag, body);
    if (!t.aborted) {
      t.done = true;
      t.sink->OnHttpDone(t.tag, TransferResult{});
    }
  }
  // Answers `t` in full, then lets the world settle.
  void Respond(FakeTransfer& t, int status, std::string content_type, const std::string& body,
               std::string session_id = "") {
    Answer(t, status, std::move(content_type), body, std::move(session_id));
    world_->Settle();
  }
  void RespondResult(FakeTransfer& t, const std::string& result, std::string session_id = "") {
    Respond(
        t, 200, "application/json",
        "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(t.RpcId()) + ",\"result\":" + result + "}",
        std::move(session_id));
  }
  void Fail(FakeTransfer& t, std::string error) {
    t.done = true;
    t.sink->OnHttpDone(t.tag, TransferResult{false, std::move(error), true});
    world_->Settle();
  }

  // Whether the fake servers are 2025-11-25 ones: the protocol-era probe
  // (server/discover) is answered the way an SDK 1.x server answers it,
  // without the test's help. A test of the probe itself turns this off.
  bool legacy_servers = true;

  // A scripted server: offered each live transfer while the world settles,
  // it answers one (with Answer) and returns true, or leaves it hanging.
  std::function<bool(FakeTransfer&)> server;
  bool AnswerScripted() {
    if (!server) return false;
    for (FakeTransfer* t : Live()) {
      if (server(*t)) return true;
    }
    return false;
  }

  // Answers one live probe; false when there is none (or legacy_servers is off).
  bool AnswerProbe() {
    if (!legacy_servers) return false;
    FakeTransfer* t = Find(HttpMethod::kPost, "server/discover");
    if (t == nullptr) return false;
    const std::string body =
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}})";
    t->sink->OnHttpHead(t->tag, ResponseHead{400, "application/json", "", "", "HTTP/1.1"});
    if (!t->aborted) t->sink->OnHttpData(t->tag, body);
    if (!t->aborted) {
      t->done = true;
      t->sink->OnHttpDone(t->tag, TransferResult{});
    }
    return true;
  }

 private:
  FakeWorld* world_;
  std::vector<std::unique_ptr<FakeTransfer>> transfers_;
};

class FakeTimer : public Timer {
 public:
  ~FakeTimer() override { *alive_ = false; }
  void Start(Duration delay, std::function<void()> fn) override {
    due = *now_ + std::max(delay, Duration::zero());
    fn_ = std::move(fn);
  }
  void Stop() override { due.reset(); }

  std::optional<TimePoint> due;
  void Fire() {
    due.reset();
    std::function<void()> fn = fn_;
    fn();
  }

 private:
  friend class FakeEnv;
  const TimePoint* now_ = nullptr;
  std::function<void()> fn_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

class FakeEnv : public Env {
 public:
  explicit FakeEnv(FakeWorld* world) : world_(world), http_(world) { world->envs.push_back(this); }
  ~FakeEnv() override {
    auto& envs = world_->envs;
    envs.erase(std::remove(envs.begin(), envs.end(), this), envs.end());
  }

  TimePoint Now() override { return world_->now; }
  std::chrono::system_clock::time_point WallNow() override { return world_->WallNow(); }
  void Post(std::function<void()> fn) override { posted_.push_back(std::move(fn)); }
  base::Result<std::string> ReadFile(const std::string& path) override {
    auto it = files.find(path);
    if (it == files.end()) {
      return base::NotFound("cannot read " + path + ": No such file or directory");
    }
    return it->second;
  }
  base::Result<std::string> ReadPrivateFile(const std::string& path, size_t max_bytes) override {
    base::Result<std::string> contents = ReadFile(path);
    if (!contents.ok() || contents->size() <= max_bytes) return contents;
    return base::InvalidInput(path + " is larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::unique_ptr<Timer> NewTimer() override {
    auto timer = std::make_unique<FakeTimer>();
    timer->now_ = &world_->now;
    timers_.push_back({timer.get(), timer->alive_});
    return timer;
  }
  bool FileExists(const std::string& path) override {
    return files.count(path) > 0 || dirs.count(path) > 0;
  }
  base::Status CreateDir(const std::string& path, int mode) override {
    if (files.count(path)) return base::InvalidInput(path + " is not a directory");
    for (size_t pos = 1; pos <= path.size(); ++pos) {
      if (pos == path.size() || path[pos] == '/') dirs.emplace(path.substr(0, pos), mode);
    }
    dirs[path] = mode;
    return base::Status();
  }
  base::Status WriteFileAtomically(const std::string& path, std::string_view contents,
                                   int mode) override {
    const std::string dir = path.substr(0, path.rfind('/'));
    if (!dirs.count(dir))
      return base::NotFound("cannot write " + path + ": No such file or directory");
    if (unwritable.count(path))
      return base::IoError("cannot write " + path + ": Permission denied");
    files[path] = std::string(contents);
    modes[path] = mode;
    return base::Status();
  }
  base::Status RemoveFile(const std::string& path) override {
    files.erase(path);
    modes.erase(path);
    return base::Status();
  }
  FakeHttp& http() override { return http_; }

  // The files: contents by path, the mode each was written with, and the
  // directories with theirs. Writes to `unwritable` paths fail.
  std::map<std::string, std::string> files;
  std::map<std::string, int> modes;
  std::map<std::string, int> dirs;
  std::set<std::string> unwritable;

  // Runs the posted tasks (and what they post) once; false when there were none.
  bool RunPosted() {
    if (posted_.empty()) return false;
    std::deque<std::function<void()>> batch;
    batch.swap(posted_);
    for (auto& fn : batch) fn();
    return true;
  }
  // The earliest armed timer's time.
  std::optional<TimePoint> NextDue() {
    Prune();
    std::optional<TimePoint> next;
    for (auto& [timer, alive] : timers_) {
      if (timer->due && (!next || *timer->due < *next)) next = timer->due;
    }
    return next;
  }
  // Fires one timer due by now; false when none is.
  bool FireDue() {
    Prune();
    for (auto& [timer, alive] : timers_) {
      if (timer->due && *timer->due <= world_->now) {
        timer->Fire();
        return true;
      }
    }
    return false;
  }

 private:
  void Prune() {
    timers_.erase(
        std::remove_if(timers_.begin(), timers_.end(), [](auto& t) { return !*t.second; }),
        timers_.end());
  }

  FakeWorld* world_;
  FakeHttp http_;
  std::deque<std::function<void()>> posted_;
  std::vector<std::pair<FakeTimer*, std::shared_ptr<bool>>> timers_;
};

void FakeWorld::Settle() {
  for (int round = 0; round < 100000; ++round) {
    bool ran = false;
    for (FakeEnv* env : envs) ran |= env->RunPosted();
    for (FakeEnv* env : envs) ran |= env->FireDue();
    for (FakeEnv* env : envs) ran |= env->http().AnswerProbe();
    for (FakeEnv* env : envs) ran |= env->http().AnswerScripted();
    if (!ran) return;
  }
  FAIL("the fake world never settled");
}

void FakeWorld::Advance(Duration d) {
  const TimePoint target = now + d;
  Settle();
  for (;;) {
    std::optional<TimePoint> next;
    for (FakeEnv* env : envs) {
      auto due = env->NextDue();
      if (due && (!next || *due < *next)) next = due;
    }
    if (!next || *next > target) break;
    if (*next > now) now = *next;
    Settle();
  }
  now = target;
  Settle();
}

}  // namespace mcpgw::testing
