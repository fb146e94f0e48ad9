// Gateway: learned search words (BEHAVIOR.md §10). A host connection's last
// get_dynamic_tools `query` is remembered for kLearnWindow; a call it then
// makes that succeeds teaches the catalog that query for the called tool
// (at most kToolsPerQuery tools a query, each once). The store is read from the state
// directory when learning is first set, and written back a few seconds
// after it changes, on a worker: no file is touched on the main loop while
// hosts are served. The `learned` and `forget` requests show and clear it,
// for the daemon's own user only; queries go nowhere else (no log, status
// or metrics).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>

#include "base/utf8.h"
#include "daemon/gateway/gateway.h"
#include "daemon/gateway/gateway_server.h"
#include "daemon/gateway/json_write.h"

namespace mcpgw {
namespace {

constexpr auto kLearnWindow = std::chrono::seconds(120);
constexpr uint8_t kToolsPerQuery = 3;
constexpr size_t kMaxRecentQueries = 4096;  // connections remembered at once
constexpr auto kSaveDelay = std::chrono::seconds(2);

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

void Gateway::SetLearning(bool on) {
  if (!learned_loaded_) {
    learned_loaded_ = true;
    LoadLearned();
  }
  if (!on) recent_queries_.clear();
  learning_ = on;
  catalog_.EnableLearned(on);
}

void Gateway::LoadLearned() {
  const std::string& path = options_.learned_path;
  if (path.empty() || !main_->FileExists(path)) return;
  base::Result<std::string> text = main_->ReadPrivateFile(path, search::kMaxLearnedFileBytes);
  base::Result<search::LearnedStore> store =
      text.ok() ? search::LearnedStore::Parse(*text)
                : base::Result<search::LearnedStore>(text.status());
  if (store.ok()) {
    catalog_.SetLearned(*std::move(store));
    spdlog::info("learned search words: {} queries of {} namespaces from {}",
                 catalog_.learned().queries(), catalog_.learned().servers().size(), path);
    return;
  }
  // Set aside, not removed: the user may want it back; the daemon starts
  // with nothing learned.
  const std::string aside = path + ".bad";
  if (std::rename(path.c_str(), aside.c_str()) == 0) {
    spdlog::warn("learned search words: {} is unusable ({}); set aside as {}, starting with none",
                 path, store.message(), aside);
  } else {
    spdlog::warn(
        "learned search words: {} is unusable ({}) and could not be set aside ({}); "
        "starting with none, and it is replaced at the next thing learned",
        path, store.message(), std::strerror(errno));
  }
}

void Gateway::NoteQuery(const Peer& peer, std::string_view query) {
  if (!learning_ || peer.uid != getuid() || peer.connection == 0) return;
  const mcp::TimePoint now = main_->Now();
  // Connections that closed leave their last query behind: every 64 queries
  // the ones past the window go (a closed connection is never heard of).
  const bool full =
      recent_queries_.size() >= kMaxRecentQueries && !recent_queries_.contains(peer.connection);
  if (full || ++queries_noted_ % 64 == 0) {
    std::erase_if(recent_queries_,
                  [&](const auto& e) { return now - e.second->at > kLearnWindow; });
  }
  if (full) {
    // Still full: the connections are all asking at once; the oldest goes.
    if (recent_queries_.size() >= kMaxRecentQueries) {
      auto oldest = recent_queries_.begin();
      for (auto it = recent_queries_.begin(); it != recent_queries_.end(); ++it) {
        if (it->second->at < oldest->second->at) oldest = it;
      }
      recent_queries_.erase(oldest);
    }
  }
  auto entry = std::make_shared<RecentQuery>();
  entry->text.assign(query);
  entry->at = now;
  recent_queries_[peer.connection] = std::move(entry);
}

std::shared_ptr<Gateway::RecentQuery> Gateway::QueryBefore(const Peer& peer) {
  if (!learning_ || peer.connection == 0) return nullptr;
  auto it = recent_queries_.find(peer.connection);
  if (it == recent_queries_.end()) return nullptr;
  if (main_->Now() - it->second->at > kLearnWindow) {
    recent_queries_.erase(it);
    return nullptr;
  }
  return it->second;
}

void Gateway::LearnFrom(const PendingCall& call) {
  RecentQuery* query = call.query.get();
  if (!query || !learning_) return;
  // A query teaches a tool once, however often it is then called: one
  // episode is one use, and a stream of calls costs nothing more.
  std::string key = call.ns + '\0' + call.tool;
  if (query->taught.size() >= kToolsPerQuery ||
      std::find(query->taught.begin(), query->taught.end(), key) != query->taught.end()) {
    return;
  }
  query->taught.push_back(std::move(key));
  if (catalog_.Learn(call.ns, call.tool, query->text)) SaveLearnedSoon();
}

void Gateway::SaveLearnedSoon() {
  if (options_.learned_path.empty() || learned_dirty_) {
    learned_dirty_ = true;
    return;
  }
  learned_dirty_ = true;
  if (shutting_down_) {  // no new timer on a loop that is stopping
    SaveLearned();
    return;
  }
  if (!learned_save_) learned_save_ = main_->NewTimer();
  learned_save_->Start(kSaveDelay, [this] { SaveLearned(); });
}

void Gateway::SaveLearned() {
  if (!learned_dirty_ || options_.learned_path.empty()) return;
  learned_dirty_ = false;
  if (learned_save_) learned_save_->Stop();
  // Serialised here, written on a worker: a slow disk never holds the main
  // loop. Always the same worker, so writes land in the order they were
  // made, the last one at shutdown included (a worker runs what was posted
  // to it before it stops).
  Env* env = workers_.empty() ? main_ : workers_.front();
  env->Post([env, path = options_.learned_path, text = catalog_.learned().Serialize()] {
    base::Status made = env->CreateDir(DirOf(path), 0700);
    if (made.ok()) made = env->WriteFileAtomically(path, text, 0600);
    if (!made.ok()) spdlog::warn("learned search words: {}", made.message());
  });
}

void Gateway::HandleLearnRequest(Ticket ticket, const Peer& peer, std::string_view method,
                                 const rapidjson::Value& params) {
  if (peer.uid != getuid()) {
    ReplyError(ticket, proto::ErrorKind::kDenied,
               "learned search words belong to the daemon's own user");
    return;
  }
  const std::optional<std::string> ns = StringParam(params, "namespace");
  const std::optional<std::string> tool = StringParam(params, "toolName");
  if (tool && !ns) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest, "\"toolName\" needs \"namespace\"");
    return;
  }
  if (method == proto::kForget) {
    const size_t forgotten = catalog_.Forget(ns.value_or(""), tool.value_or(""));
    if (forgotten > 0) {
      learned_dirty_ = true;
      SaveLearned();
    }
    replies_->ReplyJson(ticket, "{\"forgotten\":" + std::to_string(forgotten) + "}");
    return;
  }
  const search::LearnedStore& store = catalog_.learned();
  const int64_t now = static_cast<int64_t>(main_->UnixNow());
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("learning");
  w.Bool(learning_);
  w.Key("file");
  WriteText(w, options_.learned_path);
  w.Key("tools");
  w.StartArray();
  for (const auto& [server, tools] : store.servers()) {
    if (ns && server != *ns) continue;
    for (const auto& [name, learned] : tools) {
      if (tool && name != *tool) continue;
      w.StartObject();
      w.Key("namespace");
      WriteText(w, server);
      w.Key("toolName");
      WriteText(w, name);
      w.Key("queries");
      w.StartArray();
      for (const search::LearnedQuery& q : learned.queries) {
        w.StartObject();
        w.Key("text");
        WriteText(w, q.text);
        w.Key("uses");
        w.Uint(q.uses);
        w.Key("last_unix");
        w.Int64(q.last_unix);
        w.Key("strength");
        w.Double(static_cast<double>(static_cast<int>(search::Strength(q, now) * 1000)) / 1000);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
  replies_->ReplyJson(ticket, std::string(buffer.GetString(), buffer.GetSize()));
}

}  // namespace mcpgw
