// The benchmarks' load generator. Three modes, each printing one JSON line of
// results (latency percentiles, calls/s, CPU per call of the processes named
// by --pids, their RSS):
//   lib  — calls through libmcpgw from --inflight threads sharing one handle;
//   curl — the same tools/call posted straight to the upstream with libcurl
//          (easy handle when sequential, multi handle otherwise): the floor;
//   raw  — the local protocol spoken directly, pipelined over --conns
//          sockets, for the 10 000-in-flight scale run;
//   poll — libmcpgw's pollable interface, as a host program that fans out
//          drives it: --conns handles, --inflight calls outstanding over
//          them all, one thread polling their descriptors.
// run.sh drives it; every loop is bounded by --calls.
#include <curl/curl.h>
#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mcpgw.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string mode;
  std::string socket;
  std::string url;
  std::string ns = "bench";
  std::string ns_prefix;  // with ns_count: namespaces ns_prefix0 .. ns_prefix<count-1>
  int ns_count = 0;
  std::string tool = "echo";
  std::string args = R"({"text":"hello"})";
  std::string op = "call";  // call | list | list-ns
  int inflight = 1;
  int calls = 1000;
  int warmup = 50;
  int conns = 10;
  long long max_bytes = MCPGW_MAX_TEXT_DEFAULT;  // lib calls: the result's bound
  std::vector<int> pids;
};

// utime + stime of a process in microseconds, from /proc/<pid>/stat.
double CpuMicros(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(close_paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) {
      stime = std::stoull(field);
      break;
    }
  }
  return static_cast<double>(utime + stime) * 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A field of /proc/<pid>/status in kB (VmRSS, VmHWM).
long StatusKb(int pid, const char* key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key) + 1);
  }
  return 0;
}

// CPU time of every live thread of a process in microseconds, from the
// nanosecond counters of /proc/<pid>/task/*/schedstat; falls back to the
// clock-tick resolution of /proc/<pid>/stat when schedstat is missing.
double ThreadsCpuMicros(int pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (!d) return CpuMicros(pid);
  double total = 0;
  bool any = false;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name + "/schedstat");
    unsigned long long ns = 0;
    if (in >> ns) {
      total += static_cast<double>(ns) / 1e3;
      any = true;
    }
  }
  closedir(d);
  return any ? total : CpuMicros(pid);
}

double SumCpu(const std::vector<int>& pids) {
  double total = 0;
  for (int pid : pids) total += ThreadsCpuMicros(pid);
  return total;
}

double SelfCpuMicros() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

std::string Namespace(const Options& o, long i) {
  if (o.ns_count > 0) return o.ns_prefix + std::to_string(i % o.ns_count);
  return o.ns;
}

struct Result {
  std::vector<double> latencies_us;
  long errors = 0;
  std::string first_error;
  double seconds = 0;
  double pid_cpu_us = 0;
  double self_cpu_us = 0;
};

void Print(const Options& o, Result& r) {
  std::sort(r.latencies_us.begin(), r.latencies_us.end());
  auto pct = [&](double q) {
    if (r.latencies_us.empty()) return 0.0;
    size_t idx = static_cast<size_t>(q * static_cast<double>(r.latencies_us.size() - 1) + 0.5);
    return r.latencies_us[idx];
  };
  double n = static_cast<double>(std::max<size_t>(1, r.latencies_us.size()));
  long rss = 0, hwm = 0;
  for (int pid : o.pids) {
    rss += StatusKb(pid, "VmRSS:");
    hwm += StatusKb(pid, "VmHWM:");
  }
  std::string err;
  for (char c : r.first_error.substr(0, 160)) {
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = ' ';
    err += c;
  }
  std::printf(
      "{\"mode\":\"%s\",\"op\":\"%s\",\"inflight\":%d,\"calls\":%zu,\"errors\":%ld,"
      "\"seconds\":%.4f,\"cps\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f,"
      "\"cpu_us_per_call\":%.2f,\"client_cpu_us_per_call\":%.2f,\"rss_kb\":%ld,\"hwm_kb\":%ld,"
      "\"first_error\":\"%s\"}\n",
      o.mode.c_str(), o.op.c_str(), o.inflight, r.latencies_us.size(), r.errors, r.seconds,
      n / std::max(1e-9, r.seconds), pct(0.5), pct(0.99),
      [&] {
        double s = 0;
        for (double v : r.latencies_us) s += v;
        return s / n;
      }(),
      r.pid_cpu_us / n, r.self_cpu_us / n, rss, hwm, err.c_str());
  std::fflush(stdout);
}

// ---- lib ---------------------------------------------------------------------------

mcpgw_status LibOne(mcpgw_client* client, const Options& o, long i, std::string* error) {
  char* out = nullptr;
  mcpgw_status status;
  std::string ns = Namespace(o, i);
  if (o.op == "list") {
    status = mcpgw_get_dynamic_tools(client, nullptr, nullptr, nullptr, &out);
  } else if (o.op == "list-ns") {
    status = mcpgw_get_dynamic_tools(client, ns.c_str(), nullptr, nullptr, &out);
  } else {
    status = mcpgw_call_dynamic_tool_bounded(client, ns.c_str(), o.tool.c_str(), o.args.c_str(),
                                             o.max_bytes, nullptr, &out);
  }
  if (status != MCPGW_OK && error && out)
    *error = std::string(mcpgw_status_name(status)) + ": " + out;
  mcpgw_free(out);
  return status;
}

Result RunLib(const Options& o) {
  mcpgw_client* client = mcpgw_open(o.socket.empty() ? nullptr : o.socket.c_str());
  std::string ignored;
  for (int i = 0; i < o.warmup; ++i) LibOne(client, o, i, &ignored);
  Result r;
  std::atomic<long> next{0};
  std::mutex mu;
  double cpu0 = SumCpu(o.pids), self0 = SelfCpuMicros();
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < o.inflight; ++t) {
    threads.emplace_back([&] {
      std::vector<double> mine;
      long errors = 0;
      std::string first;
      for (long i = next++; i < o.calls; i = next++) {
        auto start = Clock::now();
        std::string error;
        if (LibOne(client, o, i, &error) != MCPGW_OK) {
          ++errors;
          if (first.empty()) first = error;
        }
        mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      }
      std::lock_guard<std::mutex> lock(mu);
      r.latencies_us.insert(r.latencies_us.end(), mine.begin(), mine.end());
      r.errors += errors;
      if (r.first_error.empty()) r.first_error = first;
    });
  }
  for (auto& t : threads) t.join();
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.pid_cpu_us = SumCpu(o.pids) - cpu0;
  r.self_cpu_us = SelfCpuMicros() - self0;
  mcpgw_close(client);
  return r;
}

// ---- poll --------------------------------------------------------------------------

struct PollRun {
  const Options* o;
  Result* r;
  std::vector<long> per_handle;  // calls outstanding on each handle
  long outstanding = 0;
  long finished = 0;
  long recorded_after = 0;  // calls finished before this many are warm-up
};

struct PollCall {
  PollRun* run;
  size_t handle;
  Clock::time_point start;
};

void OnPollDone(void* user_data, mcpgw_request, mcpgw_status status, const char* text, size_t len) {
  auto* call = static_cast<PollCall*>(user_data);
  PollRun* run = call->run;
  run->outstanding--;
  run->per_handle[call->handle]--;
  if (++run->finished > run->recorded_after) {
    run->r->latencies_us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - call->start).count());
    if (status != MCPGW_OK) {
      run->r->errors++;
      if (run->r->first_error.empty()) {
        run->r->first_error = std::string(mcpgw_status_name(status)) + ": " +
                              std::string(text, std::min<size_t>(len, 120));
      }
    }
  }
  delete call;
}

// Keeps `inflight` calls outstanding over the handles until `total` finished.
void PollUntil(std::vector<mcpgw_client*>& clients, PollRun& run, long total, long inflight) {
  const Options& o = *run.o;
  long started = run.finished + run.outstanding;
  std::vector<pollfd> fds(clients.size());
  while (run.finished < total) {
    while (run.outstanding < inflight && started < total) {
      // The handle with the fewest calls out: each connection has its own
      // bound on requests in flight (ipc.max_in_flight_per_connection).
      const size_t handle = static_cast<size_t>(
          std::min_element(run.per_handle.begin(), run.per_handle.end()) - run.per_handle.begin());
      mcpgw_client* client = clients[handle];
      auto* call = new PollCall{&run, handle, Clock::now()};
      const mcpgw_request id = mcpgw_start_call_dynamic_tool_bounded(
          client, Namespace(o, started).c_str(), o.tool.c_str(), o.args.c_str(), o.max_bytes,
          &OnPollDone, call);
      started++;
      if (id == 0) {  // no callback: count it here
        delete call;
        run.finished++;
        run.r->errors++;
        if (run.r->first_error.empty()) run.r->first_error = "the handle refused the call";
        continue;
      }
      run.outstanding++;
      run.per_handle[handle]++;
    }
    long timeout = -1;
    for (size_t i = 0; i < clients.size(); i++) {
      int events = 0;
      fds[i].fd = mcpgw_fd(clients[i], &events);
      fds[i].events = static_cast<short>(((events & MCPGW_WANT_READ) ? POLLIN : 0) |
                                         ((events & MCPGW_WANT_WRITE) ? POLLOUT : 0));
      fds[i].revents = 0;
      const long t = mcpgw_timeout(clients[i]);
      if (t >= 0 && (timeout < 0 || t < timeout)) timeout = t;
    }
    poll(fds.data(), fds.size(), timeout < 0 ? 1000 : static_cast<int>(timeout));
    for (mcpgw_client* client : clients) mcpgw_process(client);
  }
}

Result RunPoll(const Options& o) {
  std::vector<mcpgw_client*> clients;
  for (int i = 0; i < std::max(1, o.conns); i++) {
    clients.push_back(mcpgw_open(o.socket.empty() ? nullptr : o.socket.c_str()));
  }
  Result r;
  PollRun run{&o, &r, std::vector<long>(clients.size(), 0)};
  run.recorded_after = o.warmup;
  PollUntil(clients, run, o.warmup, std::min<long>(o.inflight, std::max(1, o.warmup)));
  const double cpu0 = SumCpu(o.pids), self0 = SelfCpuMicros();
  const auto t0 = Clock::now();
  PollUntil(clients, run, o.warmup + o.calls, o.inflight);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.pid_cpu_us = SumCpu(o.pids) - cpu0;
  r.self_cpu_us = SelfCpuMicros() - self0;
  for (mcpgw_client* client : clients) mcpgw_close(client);
  return r;
}

// ---- curl --------------------------------------------------------------------------

size_t Collect(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t SessionHeader(char* data, size_t size, size_t n, void* user) {
  std::string line(data, size * n);
  if (line.size() > 15 && strncasecmp(line.c_str(), "mcp-session-id:", 15) == 0) {
    std::string value = line.substr(15);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of("\r\n \t") + 1);
    *static_cast<std::string*>(user) = value;
  }
  return size * n;
}

struct Transfer {
  CURL* easy = nullptr;
  std::string body;
  std::string request;
  Clock::time_point start;
};

void Prepare(Transfer& t, const std::string& url, curl_slist* headers, long id, const Options& o) {
  t.request = "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
              ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + o.tool +
              "\",\"arguments\":" + o.args + "}}";
  t.body.clear();
  curl_easy_setopt(t.easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(t.easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(t.easy, CURLOPT_POSTFIELDS, t.request.c_str());
  curl_easy_setopt(t.easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(t.request.size()));
  curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t.body);
  t.start = Clock::now();
}

bool Ok(Transfer& t, CURLcode code) {
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  return code == CURLE_OK && status == 200 && t.body.find("\"result\"") != std::string::npos;
}

Result RunCurl(const Options& o) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  Result r;
  // The handshake: initialize for a session id, then notifications/initialized.
  std::string session;
  {
    CURL* easy = curl_easy_init();
    curl_slist* h = nullptr;
    h = curl_slist_append(h, "Content-Type: application/json");
    h = curl_slist_append(h, "Accept: application/json, text/event-stream");
    std::string body;
    std::string init =
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}})";
    curl_easy_setopt(easy, CURLOPT_URL, o.url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, init.c_str());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, Collect);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, SessionHeader);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &session);
    if (curl_easy_perform(easy) != CURLE_OK) {
      r.errors = 1;
      r.first_error = "initialize failed";
      return r;
    }
    curl_easy_cleanup(easy);
    curl_slist_free_all(h);
  }
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Accept: application/json, text/event-stream");
  headers = curl_slist_append(headers, ("Mcp-Session-Id: " + session).c_str());
  headers = curl_slist_append(headers, "MCP-Protocol-Version: 2025-11-25");

  long id = 1;
  auto record = [&](Transfer& t, CURLcode code) {
    r.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t.start).count());
    if (!Ok(t, code)) {
      ++r.errors;
      if (r.first_error.empty()) r.first_error = "call failed: " + t.body.substr(0, 100);
    }
  };
  if (o.inflight <= 1) {
    Transfer t;
    t.easy = curl_easy_init();
    for (int i = 0; i < o.warmup; ++i) {
      Prepare(t, o.url, headers, id++, o);
      curl_easy_perform(t.easy);
    }
    double cpu0 = SumCpu(o.pids), self0 = SelfCpuMicros();
    auto t0 = Clock::now();
    for (int i = 0; i < o.calls; ++i) {
      Prepare(t, o.url, headers, id++, o);
      record(t, curl_easy_perform(t.easy));
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.pid_cpu_us = SumCpu(o.pids) - cpu0;
    r.self_cpu_us = SelfCpuMicros() - self0;
    curl_easy_cleanup(t.easy);
  } else {
    CURLM* multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(o.inflight));
    std::vector<Transfer> transfers(static_cast<size_t>(o.inflight));
    std::map<CURL*, Transfer*> by_easy;
    long started = 0, total = o.calls + o.warmup;
    double cpu0 = 0, self0 = 0;
    Clock::time_point t0;
    long finished = 0;
    for (auto& t : transfers) {
      t.easy = curl_easy_init();
      by_easy[t.easy] = &t;
      if (started < total) {
        Prepare(t, o.url, headers, id++, o);
        curl_multi_add_handle(multi, t.easy);
        ++started;
      }
    }
    int running = 1;
    for (int rounds = 0; finished < total && rounds < 100000000; ++rounds) {
      curl_multi_perform(multi, &running);
      int left = 0;
      while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
        if (msg->msg != CURLMSG_DONE) continue;
        Transfer* t = by_easy[msg->easy_handle];
        CURLcode code = msg->data.result;
        curl_multi_remove_handle(multi, t->easy);
        ++finished;
        if (finished > o.warmup) record(*t, code);
        if (finished == o.warmup) {
          cpu0 = SumCpu(o.pids);
          self0 = SelfCpuMicros();
          t0 = Clock::now();
        }
        if (started < total) {
          Prepare(*t, o.url, headers, id++, o);
          curl_multi_add_handle(multi, t->easy);
          ++started;
        }
      }
      if (finished < total) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
    if (o.warmup == 0) t0 = Clock::now();
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    r.pid_cpu_us = SumCpu(o.pids) - cpu0;
    r.self_cpu_us = SelfCpuMicros() - self0;
    for (auto& t : transfers) curl_easy_cleanup(t.easy);
    curl_multi_cleanup(multi);
  }
  curl_slist_free_all(headers);
  return r;
}

// ---- raw ---------------------------------------------------------------------------

int ConnectUnix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool WriteAll(int fd, const std::string& s) {
  size_t sent = 0;
  while (sent < s.size()) {
    ssize_t n = write(fd, s.data() + sent, s.size() - sent);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

std::string RawFrame(const Options& o, long id) {
  if (o.op == "list")
    return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
           ",\"method\":\"get_dynamic_tools\",\"params\":{}}\n";
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) +
         ",\"method\":\"call_dynamic_tool\",\"params\":{\"namespace\":\"" + Namespace(o, id) +
         "\",\"toolName\":\"" + o.tool + "\",\"arguments\":" + o.args + "}}\n";
}

// One connection: keeps `window` requests outstanding until `quota` are answered.
void RawConnection(const Options& o, long first_id, long quota, int window, Result& out,
                   std::mutex& mu) {
  std::vector<double> mine;
  long errors = 0;
  std::string first_error;
  int fd = ConnectUnix(o.socket);
  if (fd < 0) {
    std::lock_guard<std::mutex> lock(mu);
    out.errors += quota;
    out.first_error = "cannot connect";
    return;
  }
  WriteAll(fd,
           "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"hello\",\"params\":{\"version\":1,"
           "\"client\":\"bench\"}}\n");
  std::map<long, Clock::time_point> sent_at;
  long next = first_id, answered = 0;
  std::string buf;
  bool hello_seen = false;
  auto send_more = [&] {
    std::string batch;
    while (static_cast<int>(sent_at.size()) < window && next < first_id + quota) {
      batch += RawFrame(o, next);
      sent_at[next] = Clock::now();
      ++next;
    }
    return batch.empty() || WriteAll(fd, batch);
  };
  send_more();
  char chunk[65536];
  while (answered < quota) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1) {
      std::string_view line(buf.data() + start, nl - start);
      size_t at = line.find("\"id\":");
      long id = at == std::string_view::npos ? -1 : std::atol(line.data() + at + 5);
      if (id == 0 && !hello_seen) {
        hello_seen = true;
        continue;
      }
      auto it = sent_at.find(id);
      if (it == sent_at.end()) continue;
      mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - it->second).count());
      sent_at.erase(it);
      ++answered;
      if (line.find("\"error\"") != std::string_view::npos) {
        ++errors;
        if (first_error.empty()) first_error = std::string(line.substr(0, 200));
      }
    }
    buf.erase(0, start);
    if (!send_more()) break;
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mu);
  out.latencies_us.insert(out.latencies_us.end(), mine.begin(), mine.end());
  out.errors += errors + (quota - answered);
  if (out.first_error.empty()) out.first_error = first_error;
}

Result RunRaw(const Options& o) {
  Result r;
  std::mutex mu;
  int conns = std::max(1, o.conns);
  int window = std::max(1, o.inflight / conns);
  long per = o.calls / conns;
  double cpu0 = SumCpu(o.pids), self0 = SelfCpuMicros();
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < conns; ++c) {
    threads.emplace_back(
        [&, c] { RawConnection(o, 1 + static_cast<long>(c) * per, per, window, r, mu); });
  }
  for (auto& t : threads) t.join();
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.pid_cpu_us = SumCpu(o.pids) - cpu0;
  r.self_cpu_us = SelfCpuMicros() - self0;
  return r;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  if (argc < 2) return false;
  o.mode = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--socket")
      o.socket = value;
    else if (flag == "--url")
      o.url = value;
    else if (flag == "--ns")
      o.ns = value;
    else if (flag == "--ns-prefix")
      o.ns_prefix = value;
    else if (flag == "--ns-count")
      o.ns_count = std::atoi(value.c_str());
    else if (flag == "--tool")
      o.tool = value;
    else if (flag == "--args")
      o.args = value;
    else if (flag == "--op")
      o.op = value;
    else if (flag == "--inflight")
      o.inflight = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--calls")
      o.calls = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--warmup")
      o.warmup = std::max(0, std::atoi(value.c_str()));
    else if (flag == "--conns")
      o.conns = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--max-bytes")
      o.max_bytes = std::atoll(value.c_str());
    else if (flag == "--pids") {
      std::istringstream in(value);
      for (std::string pid; std::getline(in, pid, ',');)
        if (!pid.empty()) o.pids.push_back(std::atoi(pid.c_str()));
    } else
      return false;
  }
  return o.mode == "lib" || o.mode == "curl" || o.mode == "raw" || o.mode == "poll";
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, o)) {
    std::fprintf(
        stderr,
        "usage: load_client lib|curl|raw|poll [--socket S] [--url U] [--ns NS | --ns-prefix P "
        "--ns-count K] [--tool T] [--args JSON] [--op call|list|list-ns] [--inflight C] "
        "[--calls N] [--warmup W] [--conns K] [--max-bytes N] [--pids P1,P2]\n");
    return 2;
  }
  Result r = o.mode == "lib"    ? RunLib(o)
             : o.mode == "curl" ? RunCurl(o)
             : o.mode == "poll" ? RunPoll(o)
                                : RunRaw(o);
  Print(o, r);
  return r.errors == 0 ? 0 : 1;
}
