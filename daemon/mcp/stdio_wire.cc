#include "daemon/mcp/stdio_wire.h"

#include <cctype>
#include <utility>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "daemon/mcp/jsonrpc.h"

namespace mcpgw::mcp {
namespace {

// How much of a line past the bound is kept to read the id it answers.
constexpr size_t kOverlongPrefix = 256;
// Lines that are not JSON-RPC are logged once per this much time, with a
// count of the others.
constexpr Duration kSkipLogEvery = std::chrono::seconds(10);

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Reads the digits of an id at `i`; nullopt when there are none.
std::optional<RpcId> DigitsAt(std::string_view text, size_t i) {
  RpcId id = 0;
  size_t digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 18;
       ++i, ++digits) {
    id = id * 10 + (text[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  return id;
}

// The id of a message too large or too deep to parse, from where a
// top-level "id" member can stand without parsing what lies between: first
// ({"id":N or {"jsonrpc":"2.0","id":N — most writers) or last ("id":N} — the
// TypeScript SDK writes {result, jsonrpc, id}). An "id" anywhere else may be
// inside the result and names nothing.
std::optional<RpcId> OuterId(std::string_view head, std::string_view tail) {
  // At the start: each token in turn, white space allowed between them.
  std::string_view rest = head;
  const auto token = [&rest](std::string_view want) {
    while (!rest.empty() && Blank(rest.front())) rest.remove_prefix(1);
    if (rest.substr(0, want.size()) != want) return false;
    rest.remove_prefix(want.size());
    return true;
  };
  if (token("{")) {
    if (token("\"jsonrpc\"") && !(token(":") && token("\"2.0\"") && token(","))) rest = {};
    if (token("\"id\"") && token(":")) {
      while (!rest.empty() && Blank(rest.front())) rest.remove_prefix(1);
      if (std::optional<RpcId> id = DigitsAt(rest, 0)) return id;
    }
  }
  // At the end: "id":N}
  size_t e = tail.size();
  while (e > 0 && Blank(tail[e - 1])) --e;
  if (e == 0 || tail[e - 1] != '}') return std::nullopt;
  --e;
  while (e > 0 && Blank(tail[e - 1])) --e;
  size_t b = e;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(tail[b - 1]))) --b;
  if (b == e) return std::nullopt;
  size_t k = b;
  while (k > 0 && Blank(tail[k - 1])) --k;
  constexpr std::string_view kKey = "\"id\":";
  if (k < kKey.size() || tail.substr(k - kKey.size(), kKey.size()) != kKey) return std::nullopt;
  return DigitsAt(tail, b);
}

std::string_view TrimLine(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  return line;
}

}  // namespace

StdioWire::StdioWire(SessionLimits limits, std::vector<Action>* out) : limits_(limits), out_(out) {}

void StdioWire::Log(LogLevel level, std::string text) {
  out_->emplace_back(std::in_place_type<LogLine>, LogLine{level, std::move(text)});
}

void StdioWire::Spawn() {
  running_ = true;
  used_ = false;
  subscribed_ = false;
  ++session_;
  line_.clear();
  overlong_ = false;
  out_->emplace_back(std::in_place_type<SpawnProcess>);
}

// The process's requests are forgotten: it is not asked for anything again.
void StdioWire::Stop() {
  if (!running_) return;
  running_ = false;
  used_ = false;
  confirm_due_ = false;
  outs_.clear();
  out_->emplace_back(std::in_place_type<StopProcess>);
}

// JSON never needs a raw line break: between tokens it is white space and in
// a string it must be escaped. A host's arguments are spliced in as they
// came, so their white space is made one line here.
void StdioWire::Write(std::string body) {
  if (!running_) return;
  for (char& c : body) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  body.push_back('\n');
  used_ = true;
  out_->emplace_back(std::in_place_type<WriteInput>, WriteInput{std::move(body)});
}

// --- the session ---

void StdioWire::Begin(TimePoint) {
  // A process that was spoken to has had its handshake: a new session is a
  // new process.
  if (running_ && used_) Stop();
  if (!running_) Spawn();
}

void StdioWire::Abandon(std::string_view, TimePoint) { Stop(); }

void StdioWire::Opened(std::string_view) {}

// Nothing answers the notification that ends the handshake on stdio: once it
// is written the session is open, and the conversation hears so at the end of
// the event (never from inside its own call).
void StdioWire::Confirm(std::string body, TimePoint, std::string, TimePoint) {
  Write(std::move(body));
  confirm_due_ = running_;
}

void StdioWire::Close(TimePoint) { Stop(); }

// --- requests ---

void StdioWire::Send(OutRequest request, TimePoint now) {
  if (!running_) {
    Loss loss;
    loss.reason = "the local server is not running";
    loss.transient = true;
    listener_->OnLost(request.id, loss, now);
    return;
  }
  outs_[request.id] = request.role;
  Write(std::move(request.body));
}

void StdioWire::Drop(RpcId id) { outs_.erase(id); }

bool StdioWire::Cancel(RpcId id, std::string notice, bool, TimePoint) {
  const bool was_out = outs_.erase(id) > 0;
  if (was_out && !notice.empty()) Write(std::move(notice));
  return false;
}

void StdioWire::Reply(std::string body, From to, TimePoint) {
  // A reply belongs to the process that asked; an ended one is not asked.
  if (to.session == session_) Write(std::move(body));
}

void StdioWire::Tell(std::string body, TimePoint) { Write(std::move(body)); }

// The 2025 era's server speaks on stdout whenever it likes; the 2026-07-28
// era's notifications come on the answer stream of a subscription, asked for
// once per process.
void StdioWire::Listen(Listening how, TimePoint) {
  if (how != Listening::kSubscribe || subscribed_ || !running_) return;
  subscribed_ = true;
  OutRequest subscription = listener_->Subscription();
  Write(std::move(subscription.body));
}

void StdioWire::AfterEvent(TimePoint now) {
  if (!confirm_due_) return;
  confirm_due_ = false;
  if (running_) listener_->OnConfirmed(now);
}

// --- what the process did ---

void StdioWire::OnOutput(std::string_view bytes, TimePoint now) {
  while (!bytes.empty() && running_) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (overlong_) {
      KeepOverlong(piece);
    } else if (line_.size() + piece.size() > limits_.max_response_bytes) {
      overlong_ = true;
      overlong_start_.clear();
      overlong_end_.clear();
      KeepOverlong(line_);
      KeepOverlong(piece);
      line_.clear();
    } else {
      line_.append(piece);
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (overlong_) {
      OnOverlongLine(now);
    } else {
      std::string line;
      line.swap(line_);
      OnLine(line, now);
    }
  }
}

// Of a line past the bound, its first and its last kOverlongPrefix bytes
// are kept: where its id can be read.
void StdioWire::KeepOverlong(std::string_view piece) {
  if (overlong_start_.size() < kOverlongPrefix) {
    overlong_start_.append(piece.substr(0, kOverlongPrefix - overlong_start_.size()));
  }
  if (piece.size() >= kOverlongPrefix) {
    overlong_end_.assign(piece.substr(piece.size() - kOverlongPrefix));
  } else {
    overlong_end_.append(piece);
    if (overlong_end_.size() > kOverlongPrefix) {
      overlong_end_.erase(0, overlong_end_.size() - kOverlongPrefix);
    }
  }
}

void StdioWire::OnOverlongLine(TimePoint now) {
  overlong_ = false;
  const std::optional<RpcId> id = OuterId(overlong_start_, overlong_end_);
  overlong_start_.clear();
  overlong_end_.clear();
  const std::string reason = "the server's answer is larger than limits.max_response_bytes (" +
                             std::to_string(limits_.max_response_bytes) + " bytes)";
  if (id && outs_.count(*id) > 0) {
    outs_.erase(*id);
    Loss loss;
    loss.reason = reason;
    listener_->OnLost(*id, loss, now);
    return;
  }
  ++skipped_lines_;
  Log(LogLevel::kWarn, "a line on stdout larger than limits.max_response_bytes was skipped");
}

void StdioWire::Skipped(std::string_view line, std::string_view why, TimePoint now) {
  ++skipped_lines_;
  ++skipped_unlogged_;
  if (skip_logged_at_ && now - *skip_logged_at_ < kSkipLogEvery) return;
  std::string text =
      "skipped a line on stdout (" + std::string(why) + "): " + base::CleanServerText(line, 200);
  if (skipped_unlogged_ > 1) {
    text += " (and " + std::to_string(skipped_unlogged_ - 1) + " more since the last report)";
  }
  skipped_unlogged_ = 0;
  skip_logged_at_ = now;
  Log(LogLevel::kInfo, std::move(text));
}

void StdioWire::OnLine(std::string_view line, TimePoint now) {
  line = TrimLine(line);
  if (line.empty()) return;
  if (line.front() != '{' && line.front() != '[') return Skipped(line, "not JSON", now);
  rapidjson::Document doc;
  const base::JsonLimits bounds{limits_.max_response_bytes, limits_.max_json_depth};
  if (base::Status parsed = base::ParseBoundedJson(line, bounds, doc); !parsed.ok()) {
    // An answer too deep to read still fails the request it answers.
    const std::optional<RpcId> id = OuterId(line, line);
    if (id && outs_.count(*id) > 0) {
      outs_.erase(*id);
      Loss loss;
      loss.reason = "invalid answer from the server: " + parsed.message();
      listener_->OnLost(*id, loss, now);
      return;
    }
    return Skipped(line, "not JSON", now);
  }
  if (doc.IsArray()) {
    for (const rapidjson::Value& item : doc.GetArray()) {
      if (!running_) return;
      OnMessage(item, now);
    }
    return;
  }
  OnMessage(doc, now);
}

void StdioWire::OnMessage(const rapidjson::Value& value, TimePoint now) {
  const Message msg = ClassifyMessage(value);
  switch (msg.kind) {
    case MessageKind::kInvalid:
      ++skipped_lines_;
      Log(LogLevel::kDebug, "skipped a message on stdout that is not JSON-RPC");
      return;
    case MessageKind::kResponse: {
      auto it = msg.int_id ? outs_.find(*msg.int_id) : outs_.end();
      if (it == outs_.end()) {
        // An id never sent, or of a request given up: nobody waits for it.
        Log(LogLevel::kDebug, "an answer to no request on stdout was ignored");
        return;
      }
      const RpcId id = it->first;
      outs_.erase(it);
      listener_->OnAnswer(id, Answer{&value, &msg, false, "stdout", {}}, now);
      return;
    }
    case MessageKind::kRequest:
    case MessageKind::kNotification:
      listener_->OnServerMessage(msg, From{session_, true}, now);
      return;
  }
}

// The process ended: the conversation hears it first (the server is in error
// until a new one serves), then every request it held fails — a call as one
// that may have run.
void StdioWire::OnExited(const std::string& reason, TimePoint now) {
  if (!running_) return;
  running_ = false;
  used_ = false;
  confirm_due_ = false;
  line_.clear();
  overlong_ = false;
  std::map<RpcId, Role> lost;
  lost.swap(outs_);
  listener_->OnTransportEnded("the local server " + reason, now);
  for (const auto& [id, role] : lost) {
    Loss loss;
    if (role == Role::kCall) {
      loss.reason = "the local server " + reason + " during the call; the tool may have run";
    } else {
      loss.reason = "the local server " + reason;
      loss.transient = true;
    }
    listener_->OnLost(id, loss, now);
  }
}

}  // namespace mcpgw::mcp
