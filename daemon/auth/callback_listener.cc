#include "daemon/auth/callback_listener.h"

#include <unordered_set>

namespace mcpgw::auth {
namespace {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Response(int status, std::string_view message) {
  const char* reason = status == 200   ? "OK"
                       : status == 404 ? "Not Found"
                       : status == 405 ? "Method Not Allowed"
                                       : "Bad Request";
  std::string body =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcpgw</title></head>"
      "<body><p>" +
      HtmlEscape(message) + "</p></body></html>\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) +
         "\r\nCache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: "
         "close\r\n\r\n" +
         body;
}

}  // namespace

struct CallbackListener::Impl {
  struct Conn {
    uv_tcp_t tcp;
    uv_timer_t timer;
    Impl* owner = nullptr;  // null once the listener is gone
    std::string buf;
    bool answered = false;
    int open_handles = 2;
  };
  struct Write {
    uv_write_t req;
    std::string data;
    Conn* conn;
  };

  uv_loop_t* loop;
  Handler handler;
  uv_tcp_t* server = nullptr;
  int port = 0;
  std::unordered_set<Conn*> conns;

  static void FreeHandle(uv_handle_t* h) {
    auto* conn = static_cast<Conn*>(h->data);
    if (--conn->open_handles == 0) delete conn;
  }

  void CloseConn(Conn* conn) {
    if (conns.erase(conn) == 0) return;
    conn->owner = nullptr;
    uv_timer_stop(&conn->timer);
    uv_close(reinterpret_cast<uv_handle_t*>(&conn->tcp), &FreeHandle);
    uv_close(reinterpret_cast<uv_handle_t*>(&conn->timer), &FreeHandle);
  }

  void Answer(Conn* conn, std::string text) {
    conn->answered = true;
    uv_read_stop(reinterpret_cast<uv_stream_t*>(&conn->tcp));
    auto* w = new Write{{}, std::move(text), conn};
    w->req.data = w;
    uv_buf_t buf = uv_buf_init(w->data.data(), static_cast<unsigned>(w->data.size()));
    const int rc = uv_write(&w->req, reinterpret_cast<uv_stream_t*>(&conn->tcp), &buf, 1,
                            [](uv_write_t* req, int) {
                              auto* done = static_cast<Write*>(req->data);
                              if (done->conn->owner) done->conn->owner->CloseConn(done->conn);
                              delete done;
                            });
    if (rc != 0) {
      delete w;
      CloseConn(conn);
    }
  }

  void OnRequest(Conn* conn) {
    const size_t line_end = conn->buf.find("\r\n");
    const std::string line = conn->buf.substr(0, line_end);
    const size_t sp1 = line.find(' ');
    const size_t sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
    if (sp2 == std::string::npos) return Answer(conn, Response(400, "Malformed request."));
    const std::string method = line.substr(0, sp1);
    const std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (method != "GET") return Answer(conn, Response(405, "Only GET is served here."));
    const size_t q = target.find('?');
    if (target.substr(0, q) != "/callback") return Answer(conn, Response(404, "Not found."));
    // A copy: the handler may Open() the listener again, replacing its own.
    const Handler current = handler;
    const Page page = current(q == std::string::npos ? std::string() : target.substr(q + 1));
    Answer(conn, Response(page.status == 200 ? 200 : 400, page.message));
  }

  static void OnAlloc(uv_handle_t*, size_t, uv_buf_t* buf) {
    static thread_local char scratch[4096];
    *buf = uv_buf_init(scratch, sizeof scratch);
  }

  static void OnRead(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
    auto* conn = static_cast<Conn*>(stream->data);
    Impl* self = conn->owner;
    if (!self || conn->answered) return;
    if (n < 0) return self->CloseConn(conn);
    conn->buf.append(buf->base, static_cast<size_t>(n));
    if (conn->buf.find("\r\n\r\n") != std::string::npos) return self->OnRequest(conn);
    if (conn->buf.size() > kMaxRequestBytes) {
      return self->Answer(conn, Response(400, "Request too large."));
    }
  }

  static void OnConnection(uv_stream_t* server, int status) {
    auto* self = static_cast<Impl*>(server->data);
    if (status < 0) return;
    auto* conn = new Conn;
    conn->owner = self;
    uv_tcp_init(self->loop, &conn->tcp);
    uv_timer_init(self->loop, &conn->timer);
    conn->tcp.data = conn;
    conn->timer.data = conn;
    self->conns.insert(conn);
    if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&conn->tcp)) != 0 ||
        self->conns.size() > kMaxConnections) {
      return self->CloseConn(conn);
    }
    uv_timer_start(
        &conn->timer,
        [](uv_timer_t* t) {
          auto* c = static_cast<Conn*>(t->data);
          if (c->owner) c->owner->CloseConn(c);
        },
        kConnectionTimeoutMs, 0);
    uv_read_start(reinterpret_cast<uv_stream_t*>(&conn->tcp), &OnAlloc, &OnRead);
  }

  base::Result<int> Bind(int wanted) {
    auto* tcp = new uv_tcp_t;
    uv_tcp_init(loop, tcp);
    tcp->data = this;
    sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", wanted, &addr);
    int rc = uv_tcp_bind(tcp, reinterpret_cast<const sockaddr*>(&addr), 0);
    if (rc == 0) rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), 16, &OnConnection);
    if (rc != 0) {
      uv_close(reinterpret_cast<uv_handle_t*>(tcp),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      return base::IoError(std::string("cannot listen on 127.0.0.1: ") + uv_strerror(rc));
    }
    sockaddr_storage bound;
    int len = sizeof bound;
    uv_tcp_getsockname(tcp, reinterpret_cast<sockaddr*>(&bound), &len);
    server = tcp;
    port = ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    return port;
  }

  // Stops listening. Connections already accepted finish their answer (each
  // is bounded by its timer): the handler may close the listener while the
  // page for that very request is still to be sent.
  void StopListening() {
    if (server) {
      uv_close(reinterpret_cast<uv_handle_t*>(server),
               [](uv_handle_t* h) { delete reinterpret_cast<uv_tcp_t*>(h); });
      server = nullptr;
      port = 0;
    }
  }
};

CallbackListener::CallbackListener(uv_loop_t* loop) : impl_(std::make_unique<Impl>()) {
  impl_->loop = loop;
}

CallbackListener::~CallbackListener() {
  std::unordered_set<Impl::Conn*> all = impl_->conns;
  for (Impl::Conn* c : all) impl_->CloseConn(c);
  impl_->StopListening();
}

base::Result<int> CallbackListener::Open(int preferred_port, Handler handler) {
  impl_->handler = std::move(handler);
  if (impl_->server) return impl_->port;
  if (preferred_port > 0 && preferred_port < 65536) {
    if (base::Result<int> port = impl_->Bind(preferred_port); port.ok()) return port;
  }
  return impl_->Bind(0);
}

void CallbackListener::Close() { impl_->StopListening(); }
bool CallbackListener::open() const { return impl_->server != nullptr; }
int CallbackListener::port() const { return impl_->port; }

std::string RedirectUriFor(int port) {
  return "http://127.0.0.1:" + std::to_string(port) + "/callback";
}

}  // namespace mcpgw::auth
