// What two processes that only relay bytes cost per sequential call on this
// machine: the floor under the stdio figures. It builds the shape of the
// stdio path with nothing in it but wake-ups, reads and writes:
//
//   host --pipe--> first relay --Unix socket--> second relay --TCP--> echo
//   host <--pipe-- first relay <--Unix socket-- second relay <--TCP-- echo
//
// The first relay stands where `mcpgw stdio` stands, the second where mcpgwd
// does; the echo process stands for the upstream. Each relay waits in poll(),
// reads what is there and writes it on, as any bridge must. The host sends one
// message, waits for it to come back, and sends the next; the relays' CPU
// (/proc/<pid>/schedstat, on-CPU nanoseconds) is measured over the timed calls
// after a warm-up. Prints one JSON line.
//   relay_floor [--calls N] [--bytes B]
//
// The same two relays can also stand under a real host, so that the floor is
// measured with the official SDK client's own pipes and wake-ups:
//   relay_floor --answer      listens on loopback, prints its port, and answers
//                             newline-delimited JSON-RPC as a minimal MCP server
//                             (initialize, tools/list with `echo`, tools/call
//                             answering "hello")
//   relay_floor --stdio PORT  the first relay on its stdin and stdout; it starts
//                             the second, which connects to PORT over TCP
// A host that spawns `relay_floor --stdio PORT` talks MCP to the answering
// server through two processes that only relay bytes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::bench {
namespace {

constexpr int kWarmup = 200;
constexpr int kPollTimeoutMs = 10'000;  // a stuck peer ends the run, never hangs it

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "relay_floor: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

// Writes all of `data`; false when the peer is gone.
bool WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Forwards whatever arrives on one side to the other, both ways, until a side
// closes or nothing arrives for `timeout_ms` (-1: until a side closes).
[[noreturn]] void Relay(int a_in, int a_out, int b, int timeout_ms = kPollTimeoutMs) {
  std::vector<char> buffer(64 * 1024);
  pollfd fds[2] = {{a_in, POLLIN, 0}, {b, POLLIN, 0}};
  for (;;) {
    const int ready = poll(fds, 2, timeout_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) _exit(ready == 0 ? 3 : 1);
    for (int i = 0; i < 2; i++) {
      if (fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      if (n <= 0) _exit(0);
      if (!WriteAll(i == 0 ? b : a_out, buffer.data(), static_cast<size_t>(n))) _exit(0);
    }
  }
}

[[noreturn]] void Echo(int listener) {
  const int fd = accept(listener, nullptr, nullptr);
  if (fd < 0) _exit(1);
  close(listener);
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, kPollTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) _exit(ready == 0 ? 3 : 1);
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n <= 0) _exit(0);
    if (!WriteAll(fd, buffer.data(), static_cast<size_t>(n))) _exit(0);
  }
}

// On-CPU nanoseconds of a process (its one thread).
long long CpuNs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/schedstat");
  long long ns = -1;
  in >> ns;
  return ns;
}

// Reads exactly `size` bytes; false on EOF, error or kPollTimeoutMs of silence.
bool ReadExact(int fd, char* data, size_t size) {
  while (size > 0) {
    pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, kPollTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = read(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// The loopback address with `port` (0: any free port, for a listener).
sockaddr_in Loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  return addr;
}

// A loopback listener on an ephemeral port; `addr` receives its address.
int Listen(sockaddr_in* addr, int backlog) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  *addr = Loopback(0);
  socklen_t len = sizeof *addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(addr), sizeof *addr) != 0 ||
      listen(listener, backlog) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(addr), &len) != 0) {
    Die("listen");
  }
  return listener;
}

// The JSON text of a member's value, up to the next ',' or '}' (ids and short strings
// only: this server answers the bench's own client, nothing else). Empty when absent.
std::string_view ValueOf(std::string_view line, std::string_view key, bool last) {
  const size_t at = last ? line.rfind(key) : line.find(key);
  if (at == std::string_view::npos) return {};
  size_t start = at + key.size();
  while (start < line.size() && line[start] == ' ') start++;
  size_t end = start;
  if (end < line.size() && line[end] == '"') {
    end = line.find('"', end + 1);
    if (end == std::string_view::npos) return {};
    end++;
  } else {
    while (end < line.size() && line[end] != ',' && line[end] != '}') end++;
  }
  return line.substr(start, end - start);
}

// The answer to one JSON-RPC line, newline included; empty for a notification.
std::string Answer(std::string_view line) {
  const std::string_view id = ValueOf(line, "\"id\":", /*last=*/true);
  if (id.empty() || line.find("\"method\"") == std::string_view::npos) return {};
  const std::string_view method = ValueOf(line, "\"method\":", /*last=*/false);
  std::string result;
  if (method == "\"initialize\"") {
    std::string_view version = ValueOf(line, "\"protocolVersion\":", /*last=*/false);
    if (version.empty()) version = "\"2025-06-18\"";
    result.append("{\"protocolVersion\":")
        .append(version)
        .append(
            ",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"relay-floor\","
            "\"version\":\"1.0.0\"}}");
  } else if (method == "\"tools/list\"") {
    result =
        "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
        "{\"text\":{\"type\":\"string\"}}}}]}";
  } else if (method == "\"tools/call\"") {
    result = "{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}";
  } else {
    result = "{}";
  }
  std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
  out.append(id).append(",\"result\":").append(result).append("}\n");
  return out;
}

// --answer: a minimal MCP server on newline-delimited JSON-RPC over loopback TCP, for
// up to 64 connections at once; it ends after kAnswerIdleMs without a connection.
int AnswerMain() {
  constexpr size_t kMaxConns = 64;
  constexpr int kAnswerIdleMs = 10 * 60 * 1000;
  sockaddr_in addr{};
  const int listener = Listen(&addr, 16);
  std::printf("%u\n", static_cast<unsigned>(ntohs(addr.sin_port)));
  std::fflush(stdout);
  std::vector<pollfd> fds = {{listener, POLLIN, 0}};
  std::vector<std::string> pending = {{}};  // each connection's unfinished line
  std::vector<char> buffer(64 * 1024);
  for (;;) {
    const int ready = poll(fds.data(), fds.size(), fds.size() == 1 ? kAnswerIdleMs : -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? 0 : 1;
    for (size_t i = fds.size(); i-- > 1;) {
      if (fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
      bool keep = n > 0;
      if (keep) {
        std::string& line = pending[i];
        line.append(buffer.data(), static_cast<size_t>(n));
        size_t from = 0;
        for (size_t nl; keep && (nl = line.find('\n', from)) != std::string::npos; from = nl + 1) {
          const std::string reply = Answer(std::string_view(line).substr(from, nl - from));
          keep = reply.empty() || WriteAll(fds[i].fd, reply.data(), reply.size());
        }
        line.erase(0, from);
        keep = keep && line.size() <= (1u << 20);
      }
      if (!keep && !(n < 0 && errno == EINTR)) {
        close(fds[i].fd);
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    if (fds[0].revents != 0) {
      const int fd = accept(listener, nullptr, nullptr);
      if (fd >= 0 && fds.size() > kMaxConns) {
        close(fd);
      } else if (fd >= 0) {
        const int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fds.push_back({fd, POLLIN, 0});
        pending.emplace_back();
      }
    }
  }
}

// --stdio PORT: the first relay on stdin and stdout, the second (its child) between
// them and loopback TCP to PORT. Both end when their host closes stdin.
int StdioMain(const char* port_text) {
  const long port = std::strtol(port_text, nullptr, 10);
  if (port <= 0 || port > 65535) {
    std::fprintf(stderr, "relay_floor: --stdio needs a port 1..65535\n");
    return 2;
  }
  const sockaddr_in addr = Loopback(static_cast<uint16_t>(port));
  int between[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, between) != 0) Die("socketpair");
  const pid_t second = fork();
  if (second < 0) Die("fork");
  if (second == 0) {
    close(between[0]);
    close(0);
    close(1);
    const int tcp = socket(AF_INET, SOCK_STREAM, 0);
    if (tcp < 0 || connect(tcp, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
      _exit(1);
    const int one = 1;
    setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Relay(between[1], between[1], tcp, -1);
  }
  close(between[1]);
  Relay(0, 1, between[0], -1);
}

int Main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--answer") return AnswerMain();
  if (argc == 3 && std::string(argv[1]) == "--stdio") return StdioMain(argv[2]);
  int calls = 3000;
  size_t bytes = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--calls") {
      calls = std::atoi(argv[i + 1]);
    } else if (flag == "--bytes") {
      bytes = static_cast<size_t>(std::atol(argv[i + 1]));
    } else {
      std::fprintf(stderr,
                   "usage: relay_floor [--calls N] [--bytes B] | --answer | --stdio PORT\n");
      return 2;
    }
  }
  if (calls <= 0 || calls > 10'000'000 || bytes == 0 || bytes > 60'000) {
    std::fprintf(stderr, "relay_floor: --calls must be 1..10000000 and --bytes 1..60000\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);

  sockaddr_in addr{};
  const int listener = Listen(&addr, 1);
  const pid_t echo = fork();
  if (echo < 0) Die("fork");
  if (echo == 0) Echo(listener);
  close(listener);

  int to_first[2], from_first[2], between[2];
  if (pipe(to_first) != 0 || pipe(from_first) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM, 0, between) != 0) {
    Die("pipe");
  }
  const pid_t second = fork();
  if (second < 0) Die("fork");
  if (second == 0) {
    const int tcp = socket(AF_INET, SOCK_STREAM, 0);
    if (tcp < 0 || connect(tcp, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) _exit(1);
    const int one = 1;
    setsockopt(tcp, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    close(to_first[0]), close(to_first[1]), close(from_first[0]), close(from_first[1]);
    close(between[0]);
    Relay(between[1], between[1], tcp);
  }
  const pid_t first = fork();
  if (first < 0) Die("fork");
  if (first == 0) {
    close(to_first[1]), close(from_first[0]), close(between[1]);
    Relay(to_first[0], from_first[1], between[0]);
  }
  close(to_first[0]), close(from_first[1]), close(between[0]), close(between[1]);
  const int out = to_first[1], in = from_first[0];

  std::string message(bytes, 'x');
  std::string reply(bytes, '\0');
  std::vector<double> latency_us;
  latency_us.reserve(static_cast<size_t>(calls));
  long long first0 = 0, second0 = 0;
  int done = 0;
  for (int i = 0; i < kWarmup + calls; i++) {
    if (i == kWarmup) {
      first0 = CpuNs(first);
      second0 = CpuNs(second);
    }
    const auto start = std::chrono::steady_clock::now();
    if (!WriteAll(out, message.data(), message.size()) || !ReadExact(in, reply.data(), bytes)) {
      break;
    }
    if (i >= kWarmup) {
      latency_us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
              .count());
      done++;
    }
  }
  const long long first1 = CpuNs(first), second1 = CpuNs(second);
  close(out);
  close(in);
  for (const pid_t pid : {first, second, echo}) {
    int status = 0;
    waitpid(pid, &status, 0);
  }
  if (done != calls || first0 < 0 || second0 < 0 || first1 < 0 || second1 < 0) {
    std::fprintf(stderr, "relay_floor: %d of %d calls came back\n", done, calls);
    return 1;
  }
  std::sort(latency_us.begin(), latency_us.end());
  const double first_us = static_cast<double>(first1 - first0) / 1e3 / calls;
  const double second_us = static_cast<double>(second1 - second0) / 1e3 / calls;
  std::printf(
      "{\"mode\":\"relay-floor\",\"calls\":%d,\"bytes\":%zu,\"p50_us\":%.1f,"
      "\"first_us\":%.2f,\"second_us\":%.2f,\"cpu_us_per_call\":%.2f}\n",
      calls, bytes, latency_us[latency_us.size() / 2], first_us, second_us, first_us + second_us);
  return 0;
}

}  // namespace
}  // namespace mcpgw::bench

int main(int argc, char** argv) { return mcpgw::bench::Main(argc, argv); }
