#include "client/cli/login.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <thread>
#include <vector>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "client/cli/status_view.h"
#include "proto/messages.h"
#include "proto/proto.h"

extern char** environ;

namespace mcpgw::cli {
namespace {

constexpr double kBrowserWaitS = 10;  // a browser program that runs longer took the URL

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string Params(const std::string& ns, const std::string& extra = "") {
  std::string out = "{\"namespace\":";
  proto::AppendJsonString(&out, ns);
  return out + extra + "}";
}

int Fail(CommandIo& io, const ApiResult& r) {
  io.err << "mcpgw: " << base::StripControls(ErrorText(r), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(r.status);
}

// The loopback port the authorization server will redirect to.
std::string CallbackPort(const std::string& url) {
  const std::string key = "redirect_uri=http%3A%2F%2F127.0.0.1%3A";
  const size_t at = url.find(key);
  if (at == std::string::npos) return "";
  size_t end = at + key.size();
  while (end < url.size() && url[end] >= '0' && url[end] <= '9') ++end;
  return url.substr(at + key.size(), end - at - key.size());
}

// The server's row in a status answer: its status, reason and OAuth subject.
struct Row {
  std::string status, reason, subject;
};
std::optional<Row> FindRow(const std::string& status_json, const std::string& ns) {
  rapidjson::Document doc;
  doc.Parse(status_json.c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("servers") ||
      !doc["servers"].IsArray()) {
    return std::nullopt;
  }
  for (const auto& s : doc["servers"].GetArray()) {
    if (!s.IsObject() || !s.HasMember("namespace") || !s["namespace"].IsString() ||
        ns != s["namespace"].GetString()) {
      continue;
    }
    Row row;
    if (s.HasMember("status") && s["status"].IsString()) row.status = s["status"].GetString();
    if (s.HasMember("reason") && s["reason"].IsString()) row.reason = s["reason"].GetString();
    if (s.HasMember("oauth") && s["oauth"].IsObject() && s["oauth"].HasMember("subject") &&
        s["oauth"]["subject"].IsString()) {
      row.subject = s["oauth"]["subject"].GetString();
    }
    return row;
  }
  return std::nullopt;
}

}  // namespace

base::Status SystemUrlOpener::Open(const std::string& url) {
  std::string program = Env("MCPGW_BROWSER");
  std::string source = "MCPGW_BROWSER";
  if (program.empty()) {
    program = Env("BROWSER").substr(0, Env("BROWSER").find(':'));
    source = "BROWSER";
  }
#ifdef __APPLE__
  if (program.empty()) program = source = "open";
#else
  if (program.empty() && (!Env("DISPLAY").empty() || !Env("WAYLAND_DISPLAY").empty())) {
    program = source = "xdg-open";
  }
#endif
  if (program.empty()) {
    return base::Status(base::ErrorKind::kUnavailable,
                        "no browser here (no MCPGW_BROWSER, no BROWSER, no graphical session)");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int fd : {0, 1, 2}) {
    posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  }
  std::vector<char*> argv = {program.data(), const_cast<char*>(url.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return base::IoError("cannot run " + source + " (" + program + "): " + std::strerror(rc));
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(kBrowserWaitS * 1000));
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    const pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) {
      if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return base::Status();
      return base::IoError(source + " (" + program + ") failed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return base::Status();  // still running: it has the URL
}

int RunLogin(AuthApi& auth, DaemonApi& daemon, const Invocation& inv, CommandIo& io,
             UrlOpener& opener, const WaitClock& clock) {
  const std::string ns = *inv.ns;
  const std::string shown = base::StripControls(ns);
  // The server's row before: a failure it already showed is not the outcome.
  std::optional<Row> before;
  daemon.SetTimeoutMs(2000);
  if (const ApiResult st = daemon.Status(nullptr); st.status == MCPGW_OK)
    before = FindRow(st.text, ns);
  const ApiResult started = auth.Request(proto::kLogin, Params(ns), 60);
  if (started.status != MCPGW_OK) return Fail(io, started);
  rapidjson::Document doc;
  doc.Parse(started.text.c_str());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("url") || !doc["url"].IsString() ||
      !doc.HasMember("login") || !doc["login"].IsUint64()) {
    return Fail(io, {MCPGW_TRANSPORT, "mcpgwd answered login with something unexpected"});
  }
  const std::string url = doc["url"].GetString();
  const uint64_t login = doc["login"].GetUint64();

  const base::Status opened = inv.no_browser ? base::Status() : opener.Open(url);
  if (!inv.no_browser && opened.ok()) {
    io.err << "mcpgw: opened the browser to authorize " << shown << "\n";
  } else {
    if (!inv.no_browser) io.err << "mcpgw: " << opened.message() << "\n";
    io.out << "To authorize " << shown << ", open this URL in a browser:\n\n  "
           << base::StripControls(url) << "\n\n";
    const std::string port = CallbackPort(url);
    if (!port.empty()) {
      io.out << "The browser must reach 127.0.0.1:" << port
             << " on this machine afterwards. From another machine, forward it first:\n"
             << "  ssh -L " << port << ":127.0.0.1:" << port << " <this host>\n\n";
    }
    io.out.flush();
  }
  io.err << "mcpgw: waiting for the authorization of " << shown << "...\n";
  const double waited_from = clock.now_s();
  const ApiResult done = auth.Request(
      proto::kLoginWait, Params(ns, ",\"login\":" + std::to_string(login)), inv.timeout_s);
  if (done.status != MCPGW_OK) {
    // Our own wait ran out (the daemon would have said why otherwise).
    const bool gave_up =
        done.status == MCPGW_TRANSPORT && clock.now_s() - waited_from >= inv.timeout_s - 0.5;
    char waited[32];
    std::snprintf(waited, sizeof waited, "%g", inv.timeout_s);
    io.err << "mcpgw: login to " << shown << " failed: "
           << (gave_up ? std::string("no authorization within ") + waited +
                             " s (the browser did not come back to mcpgwd); run \"mcpgw login " +
                             shown + "\" again"
                       : base::StripControls(done.text, {.keep_newlines = false}))
           << "\n";
    return ExitCodeFor(done.status);
  }

  // Authorized: the server now connects with its new token. Wait for ready,
  // or for a failure other than the one it showed before the login.
  const double deadline = clock.now_s() + kReadyTimeoutS;
  std::optional<Row> row;
  for (;;) {
    daemon.SetTimeoutMs(2000);
    const ApiResult status = daemon.Status(nullptr);
    if (status.status == MCPGW_OK) row = FindRow(status.text, ns);
    if (row && row->status == "ready") break;
    const bool old_failure = before && before->status == "error" && row && row->status == "error" &&
                             row->reason == before->reason;
    if (row && row->status == "error" && !old_failure) break;
    if (clock.now_s() >= deadline) break;
    clock.sleep_s(kWaitPollIntervalS);
  }
  if (row && row->status == "ready") {
    io.out << shown << ": logged in"
           << (row->subject.empty() ? "" : " as " + base::StripControls(row->subject)) << "\n";
    return 0;
  }
  io.err << "mcpgw: " << shown << " is authorized but not ready: "
         << (row ? base::StripControls(row->status) +
                       (row->reason.empty() ? "" : ": " + base::StripControls(row->reason))
                 : std::string("no status"))
         << "\n";
  return static_cast<int>(MCPGW_NOT_READY);
}

int RunLogout(AuthApi& auth, const Invocation& inv, CommandIo& io) {
  const ApiResult r = auth.Request(proto::kLogout, Params(*inv.ns), 60);
  if (r.status != MCPGW_OK) return Fail(io, r);
  io.out << base::StripControls(*inv.ns) << ": logged out\n";
  return 0;
}

}  // namespace mcpgw::cli
