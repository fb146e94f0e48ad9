// A small, fast MCP server for the benchmarks: one epoll thread, HTTP/1.1
// keep-alive, JSON responses only. It answers initialize (with a fixed session
// id), notifications (202), tools/list (N tools, paged) and tools/call (echo),
// on any path, so one process stands in for many configured servers
// (/s/0/mcp, /s/1/mcp, ...). run.sh starts it; it prints its port on stdout.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace mcpgw::bench {
namespace {

constexpr size_t kMaxRequestBytes = 1u << 20;
constexpr std::string_view kSessionId = "bench-session";

struct Options {
  int port = 0;
  int tools = 5;
  int page_size = 100;
};

// The pre-rendered `result` objects of every tools/list page.
std::vector<std::string> RenderPages(const Options& options) {
  std::vector<std::string> pages;
  int page_size = options.page_size > 0 ? options.page_size : options.tools;
  if (page_size <= 0) page_size = 1;
  for (int first = 0; first == 0 || first < options.tools; first += page_size) {
    std::string page = "{\"tools\":[";
    int last = std::min(options.tools, first + page_size);
    for (int i = first; i < last; ++i) {
      if (i > first) page += ',';
      std::string name = i == 0 ? "echo" : "tool_" + std::to_string(i);
      page += "{\"name\":\"" + name + "\",\"description\":\"Benchmark tool " + std::to_string(i) +
              ": returns its text argument.\",\"inputSchema\":{\"type\":\"object\","
              "\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"what to echo\"}},"
              "\"required\":[\"text\"]}}";
    }
    page += ']';
    if (last < options.tools) page += ",\"nextCursor\":\"" + std::to_string(last) + "\"";
    page += '}';
    pages.push_back(std::move(page));
    if (last >= options.tools) break;
  }
  return pages;
}

struct Connection {
  std::string in;
  std::string out;
  size_t out_sent = 0;
};

class Server {
 public:
  explicit Server(const Options& options) : options_(options), pages_(RenderPages(options)) {}
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  bool Listen() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) return false;
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(options_.port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
    if (listen(listen_fd_, 4096) != 0) return false;
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = listen_fd_;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    return true;
  }
  int port() const { return port_; }

  void Run() {
    std::vector<epoll_event> events(1024);
    for (;;) {
      int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return;
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (fd == listen_fd_) {
          Accept();
        } else {
          if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) OnReadable(fd);
          if (conns_.count(fd) && (events[i].events & EPOLLOUT)) Flush(fd);
        }
      }
    }
  }

 private:
  void Accept() {
    for (int k = 0; k < 256; ++k) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
      conns_[fd];
    }
  }

  void Close(int fd) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    close(fd);
    conns_.erase(fd);
  }

  void OnReadable(int fd) {
    Connection& c = conns_[fd];
    char buf[65536];
    for (;;) {
      ssize_t got = read(fd, buf, sizeof buf);
      if (got > 0) {
        c.in.append(buf, static_cast<size_t>(got));
        if (c.in.size() > kMaxRequestBytes) return Close(fd);
        if (static_cast<size_t>(got) < sizeof buf) break;
        continue;
      }
      if (got == 0) return Close(fd);
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      return Close(fd);
    }
    // Answer every complete request in the buffer (pipelining is allowed).
    size_t used = 0;
    for (;;) {
      size_t consumed = HandleOne(std::string_view(c.in).substr(used), c.out);
      if (consumed == 0) break;
      if (consumed == static_cast<size_t>(-1)) return Close(fd);
      used += consumed;
    }
    c.in.erase(0, used);
    Flush(fd);
  }

  void Flush(int fd) {
    Connection& c = conns_[fd];
    while (c.out_sent < c.out.size()) {
      ssize_t put = write(fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent);
      if (put > 0) {
        c.out_sent += static_cast<size_t>(put);
        continue;
      }
      if (put < 0 && errno == EINTR) continue;
      if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      return Close(fd);
    }
    epoll_event ev{};
    ev.data.fd = fd;
    if (c.out_sent == c.out.size()) {
      c.out.clear();
      c.out_sent = 0;
      ev.events = EPOLLIN;
    } else {
      ev.events = EPOLLIN | EPOLLOUT;
    }
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev);
  }

  // Parses one request at the front of `in`; returns the bytes it used, 0 when
  // it is incomplete, -1 when it is malformed.
  size_t HandleOne(std::string_view in, std::string& out) {
    size_t head_end = in.find("\r\n\r\n");
    if (head_end == std::string_view::npos) return 0;
    std::string_view head = in.substr(0, head_end);
    size_t line_end = head.find("\r\n");
    std::string_view request_line = head.substr(0, line_end);
    std::string_view method = request_line.substr(0, request_line.find(' '));
    long content_length = 0;
    bool chunked = false;
    size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t eol = head.find("\r\n", pos);
      if (eol == std::string_view::npos) eol = head.size();
      std::string_view line = head.substr(pos, eol - pos);
      size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        std::string name(line.substr(0, colon));
        for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        if (name == "content-length")
          content_length = std::strtol(std::string(value).c_str(), nullptr, 10);
        if (name == "transfer-encoding" && value.find("chunked") != std::string_view::npos)
          chunked = true;
      }
      pos = eol + 2;
    }
    size_t body_start = head_end + 4;
    std::string body;
    size_t total = 0;
    if (chunked) {
      size_t p = body_start;
      for (;;) {
        size_t eol = in.find("\r\n", p);
        if (eol == std::string_view::npos) return 0;
        size_t size = std::strtoul(std::string(in.substr(p, eol - p)).c_str(), nullptr, 16);
        p = eol + 2;
        if (in.size() < p + size + 2) return 0;
        if (size == 0) {
          // Trailer section ends with an empty line.
          size_t end = in.find("\r\n", p);
          if (end == std::string_view::npos) return 0;
          total = end + 2;
          break;
        }
        body.append(in.substr(p, size));
        p += size + 2;
      }
    } else {
      if (content_length < 0 || static_cast<size_t>(content_length) > kMaxRequestBytes) return -1;
      if (in.size() < body_start + static_cast<size_t>(content_length)) return 0;
      body.assign(in.substr(body_start, static_cast<size_t>(content_length)));
      total = body_start + static_cast<size_t>(content_length);
    }
    if (method == "POST") {
      Answer(body, out);
    } else if (method == "DELETE") {
      Reply(out, "200 OK", "", "");
    } else {
      // No standalone SSE stream: the transport lets a server answer GET with 405.
      Reply(out, "405 Method Not Allowed", "", "");
    }
    return total;
  }

  static void Reply(std::string& out, std::string_view status, std::string_view type,
                    std::string_view body, bool session = false) {
    out += "HTTP/1.1 ";
    out += status;
    out += "\r\n";
    if (!type.empty()) {
      out += "Content-Type: ";
      out += type;
      out += "\r\n";
    }
    if (session) {
      out += "Mcp-Session-Id: ";
      out += kSessionId;
      out += "\r\n";
    }
    out += "Content-Length: ";
    out += std::to_string(body.size());
    out += "\r\n\r\n";
    out += body;
  }

  void Answer(const std::string& body, std::string& out) {
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("method") ||
        !doc["method"].IsString()) {
      if (doc.IsObject() && !doc.HasMember("method")) return Reply(out, "202 Accepted", "", "");
      return Reply(
          out, "400 Bad Request", "application/json",
          R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}})");
    }
    std::string_view method(doc["method"].GetString(), doc["method"].GetStringLength());
    auto id_it = doc.FindMember("id");
    if (id_it == doc.MemberEnd()) return Reply(out, "202 Accepted", "", "");
    std::string id = Compact(id_it->value);
    const rapidjson::Value* params = nullptr;
    auto p_it = doc.FindMember("params");
    if (p_it != doc.MemberEnd() && p_it->value.IsObject()) params = &p_it->value;

    std::string result;
    bool session = false;
    if (method == "initialize") {
      std::string version = "2025-11-25";
      if (params && params->HasMember("protocolVersion") &&
          (*params)["protocolVersion"].IsString()) {
        std::string asked = (*params)["protocolVersion"].GetString();
        if (asked == "2025-06-18" || asked == "2025-03-26" || asked == "2025-11-25")
          version = asked;
      }
      result = "{\"protocolVersion\":\"" + version +
               "\",\"capabilities\":{\"tools\":{\"listChanged\":true}},"
               "\"serverInfo\":{\"name\":\"mcpgw-bench-upstream\",\"version\":\"1.0.0\"}}";
      session = true;
    } else if (method == "tools/list") {
      size_t page = 0;
      if (params && params->HasMember("cursor") && (*params)["cursor"].IsString()) {
        long first = std::strtol((*params)["cursor"].GetString(), nullptr, 10);
        int size = options_.page_size > 0 ? options_.page_size : options_.tools;
        page = size > 0 ? static_cast<size_t>(first / size) : 0;
      }
      if (page >= pages_.size()) page = pages_.size() - 1;
      result = pages_[page];
    } else if (method == "tools/call") {
      std::string text;
      if (params && params->HasMember("arguments") && (*params)["arguments"].IsObject()) {
        const rapidjson::Value& args = (*params)["arguments"];
        if (args.HasMember("text") && args["text"].IsString()) {
          text = Compact(args["text"]);
        } else {
          text = Compact(rapidjson::Value(Compact(args).c_str(), doc.GetAllocator()).Move());
        }
      } else {
        text = "\"\"";
      }
      result = "{\"content\":[{\"type\":\"text\",\"text\":" + text + "}],\"isError\":false}";
    } else if (method == "ping") {
      result = "{}";
    } else {
      std::string err = "{\"jsonrpc\":\"2.0\",\"id\":" + id +
                        ",\"error\":{\"code\":-32601,\"message\":\"method not found\"}}";
      return Reply(out, "200 OK", "application/json", err);
    }
    std::string reply = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}";
    Reply(out, "200 OK", "application/json", reply, session);
  }

  static std::string Compact(const rapidjson::Value& value) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> writer(sb);
    value.Accept(writer);
    return std::string(sb.GetString(), sb.GetSize());
  }

  Options options_;
  std::vector<std::string> pages_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int port_ = 0;
  std::unordered_map<int, Connection> conns_;
};

}  // namespace
}  // namespace mcpgw::bench

int main(int argc, char** argv) {
  mcpgw::bench::Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    int value = std::atoi(argv[i + 1]);
    if (flag == "--port") {
      options.port = value;
    } else if (flag == "--tools") {
      options.tools = value;
    } else if (flag == "--page-size") {
      options.page_size = value;
    } else {
      std::fprintf(stderr, "usage: bench_upstream [--port P] [--tools N] [--page-size K]\n");
      return 2;
    }
  }
  signal(SIGPIPE, SIG_IGN);
  mcpgw::bench::Server server(options);
  if (!server.Listen()) {
    std::perror("bench_upstream: listen");
    return 1;
  }
  std::printf("%d\n", server.port());
  std::fflush(stdout);
  server.Run();
  return 0;
}
