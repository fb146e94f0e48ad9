#include "daemon/gateway/gateway.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "base/bounded_json.h"
#include "base/utf8.h"
#include "daemon/auth/manager.h"
#include "daemon/gateway/confine_status.h"
#include "daemon/gateway/gateway_server.h"
#include "daemon/gateway/json_write.h"
#include "daemon/guard/call_log.h"
#include "daemon/guard/request_digest.h"
#include "daemon/net/proxy.h"
#include "daemon/runtime/process_tree.h"
#include "daemon/runtime/scrub.h"
#include "daemon/runtime/self_usage.h"
#include "proto/messages.h"

namespace mcpgw {
namespace {

// How often the folder of whole results is swept for expired files.
constexpr auto kResultSweepEvery = std::chrono::minutes(10);

std::string_view OutcomeName(mcp::CallErrorKind kind) {
  switch (kind) {
    case mcp::CallErrorKind::kNone:
      return "ok";
    case mcp::CallErrorKind::kBackend:
      return "backend";
    case mcp::CallErrorKind::kTransport:
      return "transport";
  }
  return "transport";
}

double Millis(mcp::Duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void StringOrNull(JsonWriter& w, std::string_view s) {
  if (s.empty()) {
    w.Null();
  } else {
    WriteText(w, s);
  }
}

// Times and durations keep millisecond precision; absent ones are null.
void Number(JsonWriter& w, double v) { w.Double(std::round(v * 1000) / 1000); }
void NumberOrNull(JsonWriter& w, std::optional<double> v) {
  if (v) {
    Number(w, *v);
  } else {
    w.Null();
  }
}

// A server's last minute (call_window.h): its errors by kind, those with a
// count only.
void WriteMinute(JsonWriter& w, const CallWindow::Minute& m) {
  w.StartObject();
  w.Key("calls");
  w.Uint64(m.calls);
  w.Key("p50_ms");
  NumberOrNull(w, m.p50_ms);
  w.Key("p99_ms");
  NumberOrNull(w, m.p99_ms);
  w.Key("errors");
  w.StartObject();
  for (size_t e = 0; e < CallWindow::kErrorKinds; ++e) {
    if (m.errors[e] == 0) continue;
    const std::string_view kind = CallEndName(static_cast<CallEnd>(e + 1));
    w.Key(kind.data(), static_cast<rapidjson::SizeType>(kind.size()));
    w.Uint64(m.errors[e]);
  }
  w.EndObject();
  w.EndObject();
}

}  // namespace

Gateway::Gateway(Env* main, std::vector<Env*> workers, GatewayOptions options)
    : main_(main),
      workers_(std::move(workers)),
      options_(std::move(options)),
      started_unix_(main->UnixNow()) {
  HostEvents* events = this;
  for (Env* worker : workers_) {
    tables_.push_back(std::make_unique<HostTable>(worker, main_, events));
  }
}

Gateway::~Gateway() = default;

void Gateway::SetPolicy(std::shared_ptr<const Policy> policy) {
  listing_literal_.clear();
  catalog_.SetPolicy(std::move(policy));
}

void Gateway::SetResults(const ResultsSettings& results, const std::string& dir) {
  results_ = results;
  const uint64_t budget = results.spill_max_mb << 20;
  if (spill_) {
    spill_->SetMaxBytes(budget);
    spill_->Sweep(main_->WallNow());
    return;
  }
  if (dir.empty()) return;
  ResultSpill::Options options;
  options.dir = dir;
  options.max_bytes = budget;
  spill_ = std::make_unique<ResultSpill>(options);
  sweep_ = main_->NewTimer();
  SweepResults();
}

// Files expire even when no new result comes to push them out.
void Gateway::SweepResults() {
  if (const size_t removed = spill_->Sweep(main_->WallNow()); removed > 0) {
    spdlog::debug("results: removed {} expired file{} from {}", removed, removed == 1 ? "" : "s",
                  spill_->dir());
  }
  sweep_->Start(kResultSweepEvery, [this] { SweepResults(); });
}

void Gateway::SetScrubber(std::shared_ptr<const Scrubber> scrubber) {
  scrubber_ = std::move(scrubber);
}

std::string Gateway::Scrubbed(std::string text) const {
  if (scrubber_) scrubber_->ScrubInPlace(text);
  return text;
}

void Gateway::ReplyError(Ticket ticket, proto::ErrorKind kind, std::string message) {
  if (replies_) replies_->ReplyError(ticket, kind, Scrubbed(std::move(message)));
}

void Gateway::ReplyError(Ticket ticket, const base::Status& error) {
  ReplyError(ticket, error.kind(), error.message());
}

// --- configuration ---

void Gateway::Load(const config::Config& config) { Apply(config, /*reload=*/false); }

void Gateway::Reload(const config::Config& config) {
  last_reload_unix_ = main_->UnixNow();
  reload_error_.clear();
  Apply(config, /*reload=*/true);
}

void Gateway::ReloadFailed(std::string error) {
  last_reload_unix_ = main_->UnixNow();
  reload_error_ = Scrubbed(std::move(error));
}

void Gateway::SettingsReloaded(std::string error) { settings_error_ = Scrubbed(std::move(error)); }

// Servers whose entry is unchanged keep their session and in-flight calls;
// removed ones are shut down (DELETE); added or changed ones start loading.
void Gateway::Apply(const config::Config& config, bool reload) {
  std::unordered_map<std::string, std::unique_ptr<Server>> old;
  for (auto& server : servers_) {
    std::string name = server->name;
    old.emplace(std::move(name), std::move(server));
  }
  servers_.clear();
  by_name_.clear();
  std::vector<std::string> added, changed, removed;
  std::vector<ServerView> views;
  for (const config::Entry& entry : config.entries) {
    if (by_name_.count(entry.name)) continue;  // a namespace is one server: the first entry
    auto it = old.find(entry.name);
    std::unique_ptr<Server> server;
    if (it != old.end() && it->second->remote == entry.remote && it->second->local == entry.local &&
        it->second->refusal == entry.refusal) {
      server = std::move(it->second);
      old.erase(it);
    } else {
      (it == old.end() ? added : changed).push_back(entry.name);
      if (it != old.end()) {
        Retire(*it->second);
        old.erase(it);
      }
      server = NewServer(entry);
    }
    views.push_back(server->view);
    server->view.analyzed.reset();  // the catalog indexes a cassette's tools once
    by_name_[server->name] = server.get();
    servers_.push_back(std::move(server));
  }
  for (auto& [name, server] : old) {
    removed.push_back(name);
    Retire(*server);
  }
  if (reload) {
    auto names = [](std::vector<std::string> list) {
      std::sort(list.begin(), list.end());
      std::string out;
      for (const std::string& n : list) out += (out.empty() ? "\"" : ", \"") + n + "\"";
      return out.empty() ? std::string("none") : out;
    };
    spdlog::info("reload: {} servers; added: {}; removed: {}; changed: {}", servers_.size(),
                 names(added), names(removed), names(changed));
  }
  listing_literal_.clear();
  catalog_.Reset(std::move(views));
  if (catalog_.TakeLearnedChanged()) SaveLearnedSoon();
}

std::unique_ptr<Gateway::Server> Gateway::NewServer(const config::Entry& entry) {
  auto server = std::make_unique<Server>();
  server->name = entry.name;
  server->remote = entry.remote;
  server->local = entry.local;
  server->names_command = entry.names_command;
  server->refusal = entry.refusal;
  server->since_unix = main_->UnixNow();
  server->view.name = entry.name;
  if (!entry.accepted()) {
    server->view.status = mcp::Status::kError;
    server->view.reason = Scrubbed(entry.refusal);
    server->view.refused = true;
    spdlog::warn("server \"{}\": refused: {}", entry.name, entry.refusal);
    return server;
  }
  if (replay_ && !ServeFromCassette(*server)) return server;
  if (!server->replay) server->view.status = mcp::Status::kLoading;
  server->host = next_host_id_++;
  server->worker = next_worker_++ % workers_.size();
  by_host_[server->host] = server.get();
  if (entry.local) {
    StartCommandSearch();
    spdlog::info("server \"{}\": loading (local: {})", entry.name, entry.local->shown);
    server->gauges = std::make_shared<HostGauges>();
    server->gauges->local = std::make_shared<LocalGauges>();
    OnWorker(server->worker,
             [id = server->host, name = entry.name, local = *entry.local, limits = options_.limits,
              pins = PinOptions{options_.pins_dir, PinningFor(entry.name)},
              gauges = server->gauges](HostTable& table) mutable {
               table.CreateLocal(id, std::move(name), std::move(local), limits, std::move(pins),
                                 std::move(gauges));
             });
    return server;
  }
  Secret authorization;
  if (auth_) {
    server->auth_id = next_auth_id_++;
    // The Authorization a stored token gives is the session's from the start.
    authorization = auth_->AddServer(server->auth_id, entry.name, *entry.remote);
  }
  server->proxy = http::ShowProxy(http::ProcessProxyEnv().For(entry.remote->url.Reveal()));
  spdlog::info("server \"{}\": loading ({}{}{})", entry.name, entry.remote->url_redacted,
               server->proxy.empty() ? "" : " through the proxy ", server->proxy);
  server->gauges = std::make_shared<HostGauges>();
  OnWorker(server->worker, [id = server->host, name = entry.name, remote = *entry.remote,
                            limits = options_.limits, authorization = std::move(authorization),
                            hint = era_cache_.Lookup(entry.remote->url.Reveal()),
                            pins = PinOptions{options_.pins_dir, PinningFor(entry.name)},
                            gauges = server->gauges](HostTable& table) mutable {
    table.Create(id, std::move(name), std::move(remote), limits, std::move(authorization),
                 std::move(hint), std::move(pins), std::move(gauges));
  });
  return server;
}

// The record goes; its host shuts down on its worker (calls still pending
// there end as transport and are answered) and reports when it is gone.
void Gateway::Retire(Server& server) {
  if (auth_ && server.auth_id) auth_->RemoveServer(server.auth_id);
  server.auth_id = 0;
  if (server.host == 0) return;
  by_host_.erase(server.host);
  retiring_[server.host] = server.worker;
  OnWorker(server.worker, [id = server.host, grace = options_.shutdown_grace](HostTable& table) {
    table.Retire(id, grace);
  });
  server.host = 0;
}

// --- what the hosts report ---

void Gateway::OnHostState(HostId id, ServerState state) {
  auto it = by_host_.find(id);
  if (it == by_host_.end()) return;  // a retired host: its record is gone
  Server& server = *it->second;
  server.attempts = state.attempts;
  if (state.attempts_only) return;
  // A server of the cassette shows its recorded listing; its live session
  // (--replay-miss forward) only serves the calls the cassette misses.
  if (server.replay) {
    server.live_status = state.status;
    return;
  }
  state.reason = Scrubbed(std::move(state.reason));
  const size_t tools = state.tools ? state.tools->size() : 0;
  if (server.view.status != state.status || server.view.reason != state.reason) {
    server.since_unix = main_->UnixNow();
    if (state.status == mcp::Status::kError) {
      spdlog::warn("server \"{}\": error: {}", server.name, state.reason);
      server.last_error = state.reason;
      server.last_error_unix = server.since_unix;
    } else {
      spdlog::info("server \"{}\": {} ({} tools)", server.name, mcp::StatusName(state.status),
                   tools);
    }
  } else if (!server.view.tools || server.view.tools != state.tools) {
    spdlog::info("server \"{}\": tools listed again ({} tools)", server.name, tools);
  }
  if (state.status == mcp::Status::kReady && server.auth_asked && auth_) {
    server.auth_asked = false;
    auth_->Succeeded(server.auth_id);
  }
  const bool tools_changed = server.view.tools != state.tools;
  server.view.status = state.status;
  server.view.reason = std::move(state.reason);
  server.view.tools = std::move(state.tools);
  server.view.pins = std::move(state.pins);
  if (server.remote && !state.protocol_version.empty() &&
      state.protocol_version != server.protocol_version) {
    era_cache_.Remember(server.remote->url.Reveal(), state.protocol_version);
  }
  server.protocol_version = std::move(state.protocol_version);
  if (!state.http_version.empty()) server.http_version = std::move(state.http_version);
  listing_literal_.clear();
  // The analysed tools go to the catalog's search index once, and are not
  // kept: the index holds what it needs of them.
  server.view.analyzed = std::move(state.analyzed);
  catalog_.Update(server.view);
  if (catalog_.TakeLearnedChanged()) SaveLearnedSoon();  // a changed tool forgot
  server.view.analyzed.reset();
  if (tools_changed && recorder_ && server.view.status == mcp::Status::kReady) {
    RecordListing(server);
  }
  if (tools_changed && tools_changed_) {
    const bool settled = std::none_of(servers_.begin(), servers_.end(), [](const auto& s) {
      return s->view.status == mcp::Status::kLoading;
    });
    tools_changed_(settled);
  }
}

void Gateway::OnHostCallFinished(HostId id, mcp::CallId call_id, mcp::CallOutcome outcome) {
  auto it = calls_.find(call_id);
  if (it == calls_.end()) return;  // cancelled meanwhile
  PendingCall call = std::move(it->second);
  calls_.erase(it);
  call_by_ticket_.erase(call.ticket);
  // The record counts the call only if it is still the one the call went to.
  auto found = by_host_.find(id);
  Server* server = found != by_host_.end() ? found->second : nullptr;
  const double ms = Millis(main_->Now() - call.start);
  if (server) server->in_flight--;
  CountFinished(server, outcome, ms);
  if (server) {
    if (outcome.kind == mcp::CallErrorKind::kTransport) {
      server->last_error = Scrubbed(outcome.text);
      server->last_error_unix = main_->UnixNow();
      if (!server->failing && server->view.status == mcp::Status::kReady) {
        server->failing = true;
        spdlog::info("server \"{}\": a call failed: {}", server->name, server->last_error);
      }
    } else if (server->failing) {
      server->failing = false;
      spdlog::info("server \"{}\": calls succeed again", server->name);
    }
    if (outcome.kind == mcp::CallErrorKind::kNone && server->auth_asked && auth_) {
      server->auth_asked = false;
      auth_->Succeeded(server->auth_id);
    }
  }
  Answer(call.ticket, outcome);
  if (outcome.kind == mcp::CallErrorKind::kNone && server) LearnFrom(call);
  spdlog::debug("call {}/{}: {} in {:.1f} ms, {} bytes out, {} bytes in", call.ns, call.tool,
                OutcomeName(outcome.kind), ms, outcome.bytes_out, outcome.bytes_in);
  LogCall(call, OutcomeName(outcome.kind), &outcome);
  if (recorder_) RecordCall(call, outcome, ms);
}

void Gateway::Answer(Ticket ticket, const mcp::CallOutcome& outcome) {
  if (!replies_) return;
  switch (outcome.kind) {
    case mcp::CallErrorKind::kNone:
      replies_->ReplyText(ticket, outcome.text);
      break;
    case mcp::CallErrorKind::kBackend:
      ReplyError(ticket, proto::ErrorKind::kBackend, outcome.text);
      break;
    case mcp::CallErrorKind::kTransport:
      ReplyError(ticket, proto::ErrorKind::kTransport, outcome.text);
      break;
  }
}

// `server` is null when the call's server was retired meanwhile: the
// daemon's own counts still have the call.
void Gateway::CountFinished(Server* server, const mcp::CallOutcome& outcome, double ms) {
  const CallEnd end = outcome.kind == mcp::CallErrorKind::kNone      ? CallEnd::kOk
                      : outcome.kind == mcp::CallErrorKind::kBackend ? CallEnd::kBackend
                                                                     : CallEnd::kTransport;
  Count(server, end);
  calls_finished_++;
  if (!server) return;
  server->calls++;
  server->AddLatency(ms);
  server->Minute().AddCall(main_->Now(), ms);
  if (outcome.kind != mcp::CallErrorKind::kNone) server->errors++;
  server->metrics.Observe(ms / 1000);
  server->metrics.bytes_in += outcome.bytes_in;
  server->metrics.bytes_out += outcome.bytes_out;
}

void Gateway::Count(Server* server, CallEnd end) {
  calls_by_end_[static_cast<size_t>(end)]++;
  if (!server) return;
  server->metrics.Count(end);
  if (end != CallEnd::kOk) server->Minute().AddEnd(main_->Now(), end);
}

void Gateway::OnHostGone(HostId id) {
  if (retiring_.erase(id) == 0) return;
  MaybeFinishShutdown();
}

// The AuthManager answers through the link (SetSessionAuthorization, then
// SessionAuthorized or SessionAuthorizationFailed); without one the refusal
// stands at once.
void Gateway::OnHostAuthorizationNeeded(HostId id, int http_status, std::string www_authenticate) {
  auto it = by_host_.find(id);
  if (it == by_host_.end()) return;
  Server& server = *it->second;
  if (auth_ && server.auth_id != 0 && !shutting_down_) {
    server.auth_asked = true;
    auth_->AuthorizationNeeded(server.auth_id, http_status, www_authenticate);
    return;
  }
  OnWorker(server.worker, [host = id, http_status](HostTable& table) {
    table.AuthorizationFailed(host, "HTTP " + std::to_string(http_status) + " from server");
  });
}

Gateway::Server* Gateway::ByAuthId(uint64_t auth_id) {
  if (auth_id == 0) return nullptr;
  for (auto& server : servers_) {
    if (server->auth_id == auth_id) return server.get();
  }
  return nullptr;
}

void Gateway::SetSessionAuthorization(uint64_t auth_id, const Secret& value) {
  Server* server = ByAuthId(auth_id);
  if (server == nullptr || server->host == 0) return;
  OnWorker(server->worker,
           [host = server->host, value](HostTable& table) { table.SetAuthorization(host, value); });
}

void Gateway::SessionAuthorized(uint64_t auth_id) {
  Server* server = ByAuthId(auth_id);
  if (server == nullptr || server->host == 0) return;
  spdlog::debug("server \"{}\": authorized", server->name);
  OnWorker(server->worker, [host = server->host](HostTable& table) { table.Authorized(host); });
}

void Gateway::SessionAuthorizationFailed(uint64_t auth_id, const std::string& reason) {
  Server* server = ByAuthId(auth_id);
  if (server == nullptr || server->host == 0) return;
  std::string why = Scrubbed(reason);
  spdlog::debug("server \"{}\": authorization failed: {}", server->name, why);
  OnWorker(server->worker, [host = server->host, why = std::move(why)](HostTable& table) {
    table.AuthorizationFailed(host, why);
  });
}

// --- requests ---

void Gateway::OnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                        const rapidjson::Value& params, std::string_view frame) {
  if (!replies_) return;
  if (method == proto::kGetDynamicTools) {
    if (params.IsObject() && params.MemberCount() == 0) {
      // The hottest request: answered from the listing kept encoded.
      if (listing_literal_.empty()) proto::AppendJsonString(&listing_literal_, catalog_.Listing());
      replies_->ReplyTextLiteral(ticket, listing_literal_);
      return;
    }
    const std::optional<std::string> query = StringParam(params, "query");
    if (query && learning_ && catalog_.RefreshLearned()) SaveLearnedSoon();
    base::Result<std::string> answer = catalog_.GetDynamicTools(params);
    if (answer.ok()) {
      if (query) NoteQuery(peer, *query);
      replies_->ReplyText(ticket, *answer);
    } else {
      ReplyError(ticket, answer.status());
    }
  } else if (method == proto::kCallDynamicTool) {
    HandleCall(ticket, peer, params, frame);
  } else if (method == proto::kStatus) {
    replies_->ReplyJson(ticket, StatusJson());
  } else if (method == proto::kLogin || method == proto::kLoginWait || method == proto::kLogout) {
    HandleAuthRequest(ticket, method, params);
  } else if (method == proto::kPins || method == proto::kDiff || method == proto::kApprove) {
    HandlePinsRequest(ticket, method, params);
  } else if (method == proto::kMetrics) {
    replies_->ReplyText(ticket, MetricsText());
  } else if (method == proto::kLearned || method == proto::kForget) {
    HandleLearnRequest(ticket, peer, method, params);
  } else {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               "unknown method; use get_dynamic_tools, call_dynamic_tool or status");
  }
}

// Every request gets its call-log line, refusals included (BEHAVIOR.md §8).
void Gateway::HandleCall(Ticket ticket, const Peer& peer, const rapidjson::Value& params,
                         std::string_view frame) {
  // The arguments go upstream exactly as they arrived (BEHAVIOR.md §5).
  // One pass over the frame finds them for the call log and the catalog both.
  std::optional<std::string_view> arguments_text;
  if (params.IsObject()) {
    if (auto m = params.FindMember("arguments"); m != params.MemberEnd() && !m->value.IsNull()) {
      arguments_text = base::RawMember(frame, {"params", "arguments"});
    }
  }
  std::string_view arguments;
  PendingCall call = Requested(ticket, peer, params, arguments_text, &arguments);
  if (shutting_down_) {
    Refuse(call, proto::ErrorKind::kTransport, "mcpgwd is shutting down");
    return;
  }
  base::Result<CallTarget> prepared =
      catalog_.PrepareCallWith(params, arguments_text, /*from_checked_frame=*/true);
  if (!prepared.ok()) {
    Refuse(call, prepared.kind(), prepared.message());
    return;
  }
  CallTarget target = *std::move(prepared);
  auto it = by_name_.find(target.ns);
  Server* found = it == by_name_.end() ? nullptr : it->second;
  ResultBound bound = Bound(target.bound);
  bound.digest = call.digest;
  if (call.digest.empty() && !arguments.empty() && bound.max_text_bytes > 0 && bound.spill) {
    bound.request = ResultBound::Request{call.ns, call.tool, std::string(arguments)};
  }
  if (found && found->replay && Replay(call, *found, bound)) return;
  if (!found || found->host == 0) {
    Refuse(call, proto::ErrorKind::kNotReady, "server is not connected");
    return;
  }
  Server& server = *found;
  call.query = QueryBefore(peer);
  const mcp::CallId id = next_call_id_++;
  server.in_flight++;
  call.host = server.host;
  call.worker = server.worker;
  calls_.emplace(id, std::move(call));
  call_by_ticket_.emplace(ticket, id);
  OnWorker(server.worker,
           [host = server.host, id, tool = std::move(target.wire_tool),
            args = std::move(target.arguments_json), bound](HostTable& table) mutable {
             table.Call(host, id, std::move(tool), std::move(args), bound);
           });
}

Gateway::PendingCall Gateway::Requested(Ticket ticket, const Peer& peer,
                                        const rapidjson::Value& params,
                                        std::optional<std::string_view> arguments_text,
                                        std::string_view* arguments_out) const {
  PendingCall call;
  call.ticket = ticket;
  call.start = main_->Now();
  call.peer = peer;
  if (!params.IsObject()) return call;
  const std::optional<std::string> ns = StringParam(params, "namespace");
  const std::optional<std::string> tool = StringParam(params, "toolName");
  call.ns = ns.value_or("");
  call.tool = tool.value_or("");
  if (!ns || !tool) return call;
  std::string_view arguments = "{}";  // absent or null: {} (BEHAVIOR.md §4)
  if (auto m = params.FindMember("arguments"); m != params.MemberEnd() && !m->value.IsNull()) {
    if (!arguments_text) return call;
    arguments = *arguments_text;
  }
  *arguments_out = arguments;
  // Only what keeps or looks up calls by digest needs it as the call comes in;
  // a kept result works it out when it is kept (ResultBound::Digest).
  if (call_log_ || recorder_ || replay_) {
    call.digest = RequestDigest(*ns, *tool, arguments).value_or("");
  }
  return call;
}

void Gateway::Refuse(const PendingCall& call, proto::ErrorKind kind, std::string message) {
  ReplyError(call.ticket, kind, std::move(message));
  CallEnd end = CallEnd::kTransport;
  switch (kind) {
    case proto::ErrorKind::kInvalidRequest:
      end = CallEnd::kInvalidRequest;
      break;
    case proto::ErrorKind::kNotReady:
      end = CallEnd::kNotReady;
      break;
    case proto::ErrorKind::kDenied:
      end = CallEnd::kDenied;
      break;
    case proto::ErrorKind::kBackend:
      end = CallEnd::kBackend;
      break;
    default:  // transport, and what hosts see as transport
      break;
  }
  auto it = by_name_.find(call.ns);
  Count(it == by_name_.end() ? nullptr : it->second, end);
  LogCall(call, CallEndName(end), nullptr);
}

ResultBound Gateway::Bound(const TextBoundRequest& request) const {
  ResultBound bound;
  bound.spill = spill_.get();
  bound.scrubber = scrubber_;
  switch (request.kind) {
    case TextBoundRequest::Kind::kDefault:
      bound.max_text_bytes = results_.max_text_bytes;
      break;
    case TextBoundRequest::Kind::kStdio:
      bound.max_text_bytes = results_.stdio_max_text_bytes;
      break;
    case TextBoundRequest::Kind::kBytes:
      bound.max_text_bytes = request.bytes;
      break;
  }
  return bound;
}

void Gateway::OnCancel(Ticket ticket) {
  auto it = call_by_ticket_.find(ticket);
  if (it == call_by_ticket_.end()) return;
  const mcp::CallId id = it->second;
  call_by_ticket_.erase(it);
  auto call_it = calls_.find(id);
  if (call_it == calls_.end()) return;
  PendingCall call = std::move(call_it->second);
  calls_.erase(call_it);
  auto server = by_host_.find(call.host);
  if (server != by_host_.end()) server->second->in_flight--;
  Count(server != by_host_.end() ? server->second : nullptr, CallEnd::kCancelled);
  spdlog::debug("call {}/{}: cancelled after {:.1f} ms", call.ns, call.tool,
                Millis(main_->Now() - call.start));
  LogCall(call, "cancelled", nullptr);
  // A retired host cancels its calls itself; an unknown id is dropped there.
  OnWorker(call.worker, [host = call.host, id](HostTable& table) { table.Cancel(host, id); });
}

void Gateway::LogCall(const PendingCall& call, std::string_view outcome,
                      const mcp::CallOutcome* result) {
  if (!call_log_) return;
  CallRecord r;
  r.time = main_->WallNow();
  r.pid = call.peer.pid;
  r.uid = call.peer.uid;
  r.ns = call.ns;
  r.tool = call.tool;
  r.outcome = std::string(outcome);
  r.duration_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(main_->Now() - call.start).count());
  r.request_digest = call.digest;
  if (result) {
    r.bytes_in = result->bytes_in;
    r.bytes_out = result->bytes_out;
    if (result->kind != mcp::CallErrorKind::kTransport) {
      r.result_bytes = result->full_text_bytes > 0 ? result->full_text_bytes : result->text.size();
    }
    r.result_file = result->kept_file;
  }
  if (base::Status written = call_log_->Append(r); !written.ok()) {
    spdlog::error("call log: {}", written.message());
  }
}

// --- shutdown ---

void Gateway::Shutdown(std::function<void()> done) {
  shutting_down_ = true;
  SaveLearned();
  shutdown_done_ = std::move(done);
  if (auth_) {
    // Before the servers retire: a refresh in flight is finished and stored
    // (docs/AUTH.md). Its `done` runs later, never inline.
    auth_draining_ = true;
    auth_->Shutdown(options_.shutdown_grace, [this] {
      auth_draining_ = false;
      MaybeFinishShutdown();
    });
  }
  for (const auto& server : servers_) Retire(*server);
  MaybeFinishShutdown();
}

void Gateway::MaybeFinishShutdown() {
  if (!shutting_down_ || !retiring_.empty() || auth_draining_ || !shutdown_done_) return;
  auto done = std::move(shutdown_done_);
  shutdown_done_ = nullptr;
  done();
}

// --- status ---

std::string Gateway::DaemonStatusJson() const {
  const double now = main_->UnixNow();
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("version");
  WriteText(w, MCPGW_VERSION);
  w.Key("pid");
  w.Int64(getpid());
  w.Key("started_unix");
  Number(w, started_unix_);
  w.Key("uptime_s");
  Number(w, now - started_unix_);
  w.Key("config");
  WriteText(w, options_.config_path);
  w.Key("settings");
  StringOrNull(w, options_.settings_path);
  w.Key("socket");
  WriteText(w, options_.socket_path);
  w.Key("last_reload_unix");
  NumberOrNull(w, last_reload_unix_ > 0 ? std::optional<double>(last_reload_unix_) : std::nullopt);
  w.Key("reload_error");
  StringOrNull(w, reload_error_);
  w.Key("settings_error");
  StringOrNull(w, settings_error_);
  w.Key("record");
  StringOrNull(w, options_.record_path);
  w.Key("replay");
  if (const std::string replay = ReplayStatusJson(); !replay.empty()) {
    w.RawValue(replay.data(), replay.size(), rapidjson::kObjectType);
  } else {
    w.Null();
  }
  w.Key("metrics");
  StringOrNull(w, metrics_address_);
  w.Key("call_log");
  StringOrNull(w, call_log_ ? call_log_->path() : std::string_view());
  w.Key("host_connections");
  w.Uint64(connections_ ? connections_() : 0);
  // For `mcpgw top`: the process, and the servers' figures summed.
  const SelfUsage usage = ReadSelfUsage();
  w.Key("rss_bytes");
  w.Uint64(usage.rss_bytes);
  w.Key("cpu_s");
  Number(w, usage.cpu_s);
  w.Key("calls");
  w.Uint64(calls_finished_);
  uint64_t in_flight = 0, queued = 0;
  for (const auto& server : servers_) {
    in_flight += server->in_flight;
    if (server->gauges) queued += server->gauges->queued.load(std::memory_order_relaxed);
  }
  w.Key("in_flight");
  w.Uint64(in_flight);
  w.Key("queued");
  w.Uint64(queued);
  w.Key("confinement");  // what local servers can be confined with (BEHAVIOR.md §18)
  const std::string confinement = ConfinementSupportJson();
  w.RawValue(confinement.data(), confinement.size(), rapidjson::kObjectType);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string Gateway::StatusJson() const {
  // Room for a usual row per server from the start: the answer is not grown
  // (and copied) a score of times on the way.
  rapidjson::StringBuffer buffer(nullptr, 1024 + servers_.size() * 640);
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("daemon");
  const std::string daemon = DaemonStatusJson();
  w.RawValue(daemon.data(), daemon.size(), rapidjson::kObjectType);
  w.Key("servers");
  w.StartArray();
  std::optional<ProcessTree> tree;  // read at the first local server that runs
  const TimePoint now = main_->Now();
  for (const ServerView& view : catalog_.servers()) {
    auto it = by_name_.find(view.name);
    if (it == by_name_.end()) continue;
    const Server& server = *it->second;
    w.StartObject();
    w.Key("namespace");
    WriteText(w, server.name);
    w.Key("status");
    WriteText(w, mcp::StatusName(server.view.status));
    w.Key("source");  // where its listing and answers come from (BEHAVIOR §14)
    WriteText(w, server.replay ? "replay" : "live");
    w.Key("reason");
    WriteText(w, server.view.reason);
    w.Key("url");
    if (server.remote) {
      WriteText(w, server.remote->url_redacted);
    } else {
      w.Null();
    }
    w.Key("transport");
    WriteText(w, server.names_command ? "stdio" : "http");
    w.Key("local");
    if (const std::string local = LocalStatusJson(server, tree); !local.empty()) {
      w.RawValue(local.data(), local.size(), rapidjson::kObjectType);
    } else {
      w.Null();
    }
    w.Key("protocol_version");
    StringOrNull(w, server.protocol_version);
    w.Key("http_version");
    StringOrNull(w, server.http_version);
    w.Key("tools");
    w.Uint64(server.view.tools ? server.view.tools->size() : 0);
    w.Key("in_flight");
    w.Uint64(server.in_flight);
    // Of its requests, those waiting for a connection (limits.max_connections_per_server).
    w.Key("queued");
    w.Uint64(server.gauges ? server.gauges->queued.load(std::memory_order_relaxed) : 0);
    w.Key("calls");
    w.Uint64(server.calls);
    w.Key("errors");
    w.Uint64(server.errors);
    w.Key("reconnects");
    w.Uint64(server.attempts > 1 ? server.attempts - 1 : 0);
    w.Key("latency_p50_ms");
    NumberOrNull(w, server.MedianLatency());
    w.Key("minute");
    WriteMinute(w, server.minute ? server.minute->Read(now) : CallWindow::Minute{});
    w.Key("since_unix");
    Number(w, server.since_unix);
    w.Key("last_error");
    StringOrNull(w, server.last_error);
    w.Key("last_error_unix");
    NumberOrNull(w, server.last_error.empty() ? std::nullopt
                                              : std::optional<double>(server.last_error_unix));
    w.Key("proxy");
    StringOrNull(w, server.proxy);
    w.Key("oauth");
    const std::string oauth = AuthStatusJson(server.auth_id);
    w.RawValue(oauth.data(), oauth.size(), rapidjson::kObjectType);
    w.Key("pins");
    if (const std::string pins = PinsStatusJson(server); !pins.empty()) {
      w.RawValue(pins.data(), pins.size(), rapidjson::kObjectType);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

// A local server's process (BEHAVIOR.md §17): what its host keeps in its
// gauges, and the resident memory of its process tree read now.
std::string Gateway::LocalStatusJson(const Server& server, std::optional<ProcessTree>& tree) const {
  if (!server.local || !server.gauges || !server.gauges->local) return {};
  const LocalGauges& g = *server.gauges->local;
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  const int64_t pid = g.pid.load(std::memory_order_relaxed);
  w.StartObject();
  w.Key("command");
  WriteText(w, Scrubbed(server.local->shown));
  w.Key("pid");
  if (pid > 0) {
    w.Int64(pid);
  } else {
    w.Null();
  }
  w.Key("uptime_s");
  if (pid > 0) {
    Number(w, std::max(0.0, main_->UnixNow() - g.started_unix.load(std::memory_order_relaxed)));
  } else {
    w.Null();
  }
  w.Key("restarts");
  w.Uint64(g.restarts.load(std::memory_order_relaxed));
  w.Key("rss_bytes");
  if (pid > 0 && !tree) tree = ProcessTree::Read();  // once per status, when needed
  w.Uint64(pid > 0 ? tree->Rss(static_cast<pid_t>(pid)) : 0);
  w.Key("stdout_skipped");
  w.Uint64(g.skipped_lines.load(std::memory_order_relaxed));
  w.Key("stderr_lines");
  w.Uint64(g.stderr_lines.load(std::memory_order_relaxed));
  w.Key("stderr_not_logged");
  w.Uint64(g.stderr_dropped.load(std::memory_order_relaxed));
  w.Key("stderr_tail");
  w.StartArray();
  for (const std::string& line : g.StderrTail()) WriteText(w, Scrubbed(ShownStderrLine(line)));
  w.EndArray();
  // What it may touch and use (BEHAVIOR.md §18).
  for (auto [key, json] : {std::pair{"confine", ConfineStatusJson(*server.local, g.TempDir())},
                           std::pair{"limits", LimitsStatusJson(*server.local)}}) {
    w.Key(key);
    if (json.empty()) {
      w.Null();
    } else {
      const std::string shown = Scrubbed(json);
      w.RawValue(shown.data(), shown.size(), rapidjson::kObjectType);
    }
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void Gateway::ReleaseHosts() {
  sweep_.reset();  // a timer goes on the loop that made it, before it stops
  learned_save_.reset();
  for (size_t w = 0; w < tables_.size(); ++w) OnWorker(w, [](HostTable& table) { table.Clear(); });
}

}  // namespace mcpgw
