#include "daemon/ipc/metrics_listener.h"

#include <netinet/in.h>

#include <string_view>
#include <unordered_set>

#include <spdlog/spdlog.h>

namespace mcpgw {
namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr uint64_t kConnectionLifetimeMs = 10000;
constexpr size_t kMaxConnections = 64;

struct Connection;

}  // namespace

// What the listener and its connections share; connections hold it, so a
// connection closing after the listener is gone still finds it.
struct MetricsListener::State : std::enable_shared_from_this<MetricsListener::State> {
  uv_loop_t* loop = nullptr;
  Render render;
  uv_tcp_t* server = nullptr;  // owned by its close callback once closing
  std::unordered_set<Connection*> open;
};

namespace {

struct Connection {
  uv_tcp_t tcp{};
  uv_timer_t timer{};
  uv_write_t write{};
  std::shared_ptr<MetricsListener::State> state;
  std::string request;
  std::string response;
  char buffer[4096];
  int handles_open = 0;
  bool closing = false;
};

void OnHandleClosed(uv_handle_t* handle) {
  auto* c = static_cast<Connection*>(handle->data);
  if (--c->handles_open == 0) delete c;
}

void CloseConnection(Connection* c) {
  if (c->closing) return;
  c->closing = true;
  c->state->open.erase(c);
  uv_timer_stop(&c->timer);
  uv_close(reinterpret_cast<uv_handle_t*>(&c->timer), OnHandleClosed);
  uv_close(reinterpret_cast<uv_handle_t*>(&c->tcp), OnHandleClosed);
}

void Respond(Connection* c, std::string_view status, std::string body) {
  uv_read_stop(reinterpret_cast<uv_stream_t*>(&c->tcp));
  c->response = "HTTP/1.1 ";
  c->response += status;
  c->response += "\r\nContent-Type: ";
  c->response += status.substr(0, 3) == "200" ? "text/plain; version=0.0.4; charset=utf-8"
                                              : "text/plain; charset=utf-8";
  c->response += "\r\nContent-Length: " + std::to_string(body.size());
  c->response += "\r\nConnection: close\r\n\r\n";
  c->response += body;
  uv_buf_t buf = uv_buf_init(c->response.data(), static_cast<unsigned>(c->response.size()));
  c->write.data = c;
  const int rc =
      uv_write(&c->write, reinterpret_cast<uv_stream_t*>(&c->tcp), &buf, 1,
               [](uv_write_t* w, int) { CloseConnection(static_cast<Connection*>(w->data)); });
  if (rc != 0) CloseConnection(c);
}

// The request line decides: GET (or HEAD) /metrics, else 404.
void Answer(Connection* c) {
  const std::string_view request(c->request);
  const size_t line_end = request.find_first_of("\r\n");
  const std::string_view line = request.substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  const std::string_view method = line.substr(0, sp1);
  std::string_view target =
      sp1 == std::string_view::npos ? std::string_view() : line.substr(sp1 + 1, sp2 - sp1 - 1);
  target = target.substr(0, target.find('?'));
  if ((method == "GET" || method == "HEAD") && target == "/metrics") {
    std::string body = c->state->render();
    if (method == "HEAD") body.clear();
    Respond(c, "200 OK", std::move(body));
  } else {
    Respond(c, "404 Not Found", "not found: the metrics are at GET /metrics\n");
  }
}

void OnRead(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
  auto* c = static_cast<Connection*>(stream->data);
  if (n < 0) {
    CloseConnection(c);
    return;
  }
  c->request.append(buf->base, static_cast<size_t>(n));
  const bool complete = c->request.find("\r\n\r\n") != std::string::npos ||
                        c->request.find("\n\n") != std::string::npos;
  if (complete) {
    Answer(c);
  } else if (c->request.size() > kMaxRequestBytes) {
    Respond(c, "431 Request Header Fields Too Large", "request too large\n");
  }
}

void OnConnection(uv_stream_t* server, int status) {
  auto* state = static_cast<MetricsListener::State*>(server->data);
  if (status < 0) return;
  // Owned by its handles from here on: the last close callback deletes it.
  auto* c = new Connection;
  c->state = state->shared_from_this();
  uv_tcp_init(state->loop, &c->tcp);
  uv_timer_init(state->loop, &c->timer);
  c->tcp.data = c;
  c->timer.data = c;
  c->handles_open = 2;
  if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&c->tcp)) != 0 ||
      state->open.size() >= kMaxConnections) {
    CloseConnection(c);  // taken off the backlog, closed unanswered
    return;
  }
  state->open.insert(c);
  uv_timer_start(
      &c->timer, [](uv_timer_t* t) { CloseConnection(static_cast<Connection*>(t->data)); },
      kConnectionLifetimeMs, 0);
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&c->tcp),
      [](uv_handle_t* h, size_t, uv_buf_t* buf) {
        auto* conn = static_cast<Connection*>(h->data);
        *buf = uv_buf_init(conn->buffer, sizeof conn->buffer);
      },
      OnRead);
}

}  // namespace

MetricsListener::MetricsListener(uv_loop_t* loop, Render render)
    : state_(std::make_shared<State>()) {
  state_->loop = loop;
  state_->render = std::move(render);
}

MetricsListener::~MetricsListener() { Close(); }

size_t MetricsListener::connections() const { return state_->open.size(); }

base::Status MetricsListener::Listen(const LoopbackAddress& address) {
  const std::string shown = address.ipv6 ? "[" + address.host + "]:" + std::to_string(address.port)
                                         : address.host + ":" + std::to_string(address.port);
  sockaddr_storage storage{};
  int rc = address.ipv6 ? uv_ip6_addr(address.host.c_str(), address.port,
                                      reinterpret_cast<sockaddr_in6*>(&storage))
                        : uv_ip4_addr(address.host.c_str(), address.port,
                                      reinterpret_cast<sockaddr_in*>(&storage));
  if (rc != 0) return base::InvalidInput("metrics.listen " + shown + ": " + uv_strerror(rc));
  auto* server = new uv_tcp_t;
  uv_tcp_init(state_->loop, server);
  server->data = state_.get();
  state_->server = server;
  rc = uv_tcp_bind(server, reinterpret_cast<const sockaddr*>(&storage), 0);
  if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(server), 128, OnConnection);
  if (rc != 0) {
    Close();
    return base::IoError("metrics.listen " + shown + ": cannot listen: " + uv_strerror(rc));
  }
  sockaddr_storage bound{};
  int len = sizeof bound;
  uv_tcp_getsockname(server, reinterpret_cast<sockaddr*>(&bound), &len);
  const int port = bound.ss_family == AF_INET6
                       ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                       : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  address_ = address.ipv6 ? "[" + address.host + "]:" + std::to_string(port)
                          : address.host + ":" + std::to_string(port);
  return base::Status();
}

void MetricsListener::Close() {
  if (state_->server) {
    uv_close(reinterpret_cast<uv_handle_t*>(state_->server),
             [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
    state_->server = nullptr;
  }
  std::unordered_set<Connection*> open;
  open.swap(state_->open);
  for (Connection* c : open) CloseConnection(c);
}

}  // namespace mcpgw
