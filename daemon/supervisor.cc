// mcpgwd's start, reload and stop (see supervisor.h).
#include "daemon/supervisor.h"

#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include <spdlog/spdlog.h>

#include "daemon/auth/manager.h"
#include "daemon/config_watch.h"
#include "daemon/gateway/gateway.h"
#include "daemon/ipc/metrics_listener.h"
#include "daemon/runtime/logging.h"
#include "daemon/runtime/scrub.h"
#include "daemon/runtime/worker.h"

namespace mcpgw {
namespace {

// Listing many servers' tools at once (a start, a reload) takes memory in
// passing: HTTP buffers and connections, response bodies, parse trees. The
// lists that stay are spread over the same heap and pin it, so the heap keeps
// those pages unless asked to give them back, once the listings settle.
constexpr auto kTrimAfterListing = std::chrono::seconds(1);

void GiveBackMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// SIGTERM, SIGINT and SIGHUP go to the main loop's thread only: every thread
// starts with them blocked and the main loop unblocks them once its handlers
// are in place. (A signal the kernel hands to a thread parked in a futex
// would otherwise wait there; ThreadSanitizer never delivers it.)
sigset_t LoopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  return set;
}

std::string ReadFileOrEmpty(Env& env, const std::string& path) {
  return path.empty() ? std::string() : env.ReadFile(path).value_or(std::string());
}

std::string Join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty()) out += ", ";
    out += word;
  }
  return out;
}

// The gateway's options as made, but status names the settings file only
// when there is one to read.
GatewayOptions ForGateway(const DaemonOptions& options) {
  GatewayOptions gateway = options.gateway;
  std::error_code exists_error;
  if (!gateway.settings_path.empty() &&
      !std::filesystem::exists(gateway.settings_path, exists_error)) {
    gateway.settings_path.clear();
  }
  return gateway;
}

}  // namespace

Supervisor::Supervisor(DaemonOptions options, Sources sources, Notify notify)
    : options_(std::move(options)), sources_(std::move(sources)), notify_(std::move(notify)) {}

Supervisor::~Supervisor() = default;

int Supervisor::Run(const config::Config& config, int listen_fd, CallLog* call_log,
                    CassetteWriter* recorder, Cassette* replay) {
  const sigset_t loop_signals = LoopSignals();
  sigset_t old_mask;
  pthread_sigmask(SIG_BLOCK, &loop_signals, &old_mask);
  StartWorkers();
  std::future<int> exit_code = exit_code_.get_future();
  ExtendScrubber(config.secrets);  // before anything of the configuration can log
  gateway_->SetRecorder(recorder);
  gateway_->SetReplay(replay);
  main_loop().Post([&] {
    Start(config, listen_fd, call_log);
    if (signals_open_) pthread_sigmask(SIG_UNBLOCK, &loop_signals, nullptr);
  });
  const int code = exit_code.get();
  TearDown();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  spdlog::info("mcpgwd stopped");
  return code;
}

void Supervisor::StartWorkers() {
  HttpClientOptions http_options;
  http_options.trust = options_.trust;
  http_options.max_requests_per_origin = options_.settings.limits.max_connections_per_server;
  if (options_.trust) {
    trust_described_ = options_.trust->Describe();
    spdlog::info("TLS trust: {}", trust_described_);
    for (const std::string& warning : options_.trust->Warnings()) spdlog::warn("{}", warning);
  }
  // The main loop is the first session worker: calls to the servers sharded
  // onto it cross no thread at all.
  std::vector<Env*> envs;
  for (int i = 0; i < options_.settings.workers; i++) {
    const std::string name = i == 0 ? "mcpgw-main" : "mcpgw-w" + std::to_string(i);
    workers_.push_back(std::make_unique<Worker>(name, http_options));
    workers_.back()->Start();
    envs.push_back(workers_.back().get());
  }
  gateway_ = std::make_unique<Gateway>(&main_loop(), std::move(envs), ForGateway(options_));
}

void Supervisor::Start(const config::Config& config, int listen_fd, CallLog* call_log) {
  Worker& loop = main_loop();
  ipc_ = std::make_unique<IpcServer>(loop.loop(), gateway_.get(), options_.settings.ipc);
  gateway_->SetReplies(ipc_.get());
  gateway_->SetCallLog(call_log);
  gateway_->SetConnectionCount([this] { return ipc_ ? ipc_->connections() : 0; });
  trim_ = loop.NewTimer();
  gateway_->SetToolsChanged([this](bool settled) {
    if (settled) {
      trim_->Stop();
      GiveBackMemory();
    } else {
      trim_->Start(kTrimAfterListing, GiveBackMemory);
    }
  });
  gateway_->SetPolicy(options_.policy);
  gateway_->SetResults(options_.settings.results, options_.results_dir);
  gateway_->SetPinning(options_.settings.pinning);
  gateway_->SetLearning(options_.settings.search.learn);
  StartAuth();
  const base::Status listening =
      listen_fd >= 0 ? ipc_->ListenFd(listen_fd) : ipc_->Listen(options_.gateway.socket_path);
  if (!listening.ok()) {
    spdlog::error("{}", listening.message());
    Exit(1);
    return;
  }
  if (!StartMetrics()) return;
  OpenSignals();
  config_text_ = ReadFileOrEmpty(loop, options_.gateway.config_path);
  settings_text_ = ReadFileOrEmpty(loop, options_.gateway.settings_path);
  watch_ = std::make_unique<ConfigWatch>(&loop, loop.loop(), [this] { Reload("file"); });
  watch_->Watch({options_.gateway.config_path, options_.gateway.settings_path});
  gateway_->Load(config);
  spdlog::info("mcpgwd {} listening on {} ({} servers, {} workers)", MCPGW_VERSION,
               listen_fd >= 0 ? std::string("an inherited socket") : options_.gateway.socket_path,
               config.entries.size(), workers_.size());
  notify_("READY=1");
}

// The metrics endpoint (BEHAVIOR.md §15), when the settings name one; one
// that cannot listen stops the start, as the socket does.
bool Supervisor::StartMetrics() {
  const std::string& listen = options_.settings.metrics.listen;
  if (listen.empty()) return true;
  const base::Result<LoopbackAddress> address = ParseLoopbackListen(listen);
  std::string error = address.ok() ? "" : "metrics.listen: " + address.message();
  if (address.ok()) {
    metrics_ = std::make_unique<MetricsListener>(main_loop().loop(),
                                                 [this] { return gateway_->MetricsText(); });
    error = metrics_->Listen(*address).message();
  }
  if (!error.empty()) {
    spdlog::error("{}", error);
    Exit(1);
    return false;
  }
  gateway_->SetMetricsAddress(metrics_->address());
  spdlog::info("metrics at http://{}/metrics", metrics_->address());
  return true;
}

// The OAuth client (docs/AUTH.md): made here and nowhere else.
void Supervisor::StartAuth() {
  if (options_.token_dir.empty()) return;  // no OAuth: servers that ask for it say why
  // Tokens, codes and verifiers join the scrubbers the moment they exist.
  gateway_->SetSecretSink([this](const Secret& secret) { ExtendScrubber({secret}); });
  auth::AuthManagerOptions auth_options;
  auth_options.token_dir = options_.token_dir;
  auth_options.get_env = ProcessEnv();
#ifdef __APPLE__
  auth_options.macos = true;
#endif
  auth_ = std::make_unique<auth::AuthManager>(auth::LoopAuthIo(&main_loop(), main_loop().loop()),
                                              gateway_->auth_link(), auth_options);
  gateway_->SetAuthManager(auth_.get());
}

void Supervisor::OpenSignals() {
  uv_loop_t* loop = main_loop().loop();
  for (auto [handle, signum] : {std::pair{&sigterm_, SIGTERM}, std::pair{&sigint_, SIGINT}}) {
    uv_signal_init(loop, handle);
    handle->data = this;
    uv_signal_start(
        handle, [](uv_signal_t* h, int n) { static_cast<Supervisor*>(h->data)->Stop(n); }, signum);
  }
  uv_signal_init(loop, &sighup_);
  sighup_.data = this;
  uv_signal_start(
      &sighup_, [](uv_signal_t* h, int) { static_cast<Supervisor*>(h->data)->Reload("SIGHUP"); },
      SIGHUP);
  signals_open_ = true;
}

void Supervisor::Reload(std::string_view why) {
  if (stopping_) return;
  Worker& loop = main_loop();
  std::string config_text = ReadFileOrEmpty(loop, options_.gateway.config_path);
  std::string settings_text = ReadFileOrEmpty(loop, options_.gateway.settings_path);
  // Editors touch a file more than once per save, and a directory watch sees
  // its neighbours too: a file event that changed neither file is no reload.
  if (why == "file" && config_text == config_text_ && settings_text == settings_text_) return;
  config_text_ = std::move(config_text);
  settings_text_ = std::move(settings_text);
  notify_("RELOADING=1");
  ApplySettings(why, sources_.options());
  ApplyConfig(why, sources_.config());
  notify_("READY=1");
}

// What a reload can change while the daemon runs: the policy, the TLS
// trust, the bounds on results and pinning. The rest of the settings (the keys
// the table marks kAtRestart: limits, ipc, workers, call_log, metrics) shape
// objects made at start-up; a change to them is logged as waiting for a
// restart. Status shows why the settings could not be used until a reload
// reads them well.
void Supervisor::ApplySettings(std::string_view why, const OptionsResult& read) {
  if (!read.settings_error.ok()) {
    // A broken file never loosens the running policy.
    spdlog::error("reload ({}): keeping the previous policy and TLS trust: {}", why,
                  read.settings_error.message());
    gateway_->SettingsReloaded(read.settings_error.message());
    return;
  }
  const DaemonOptions& next = read.options;
  options_.policy = next.policy;
  gateway_->SetPolicy(next.policy);
  gateway_->SetResults(next.settings.results, options_.results_dir);
  gateway_->SetPinning(next.settings.pinning);
  gateway_->SetLearning(next.settings.search.learn);
  if (next.trust) {
    ApplyTrust(why, next.trust);
  } else {
    spdlog::error("reload ({}): keeping the previous TLS trust: {}", why,
                  read.trust_error.message());
  }
  if (auto changed = RestartOnlyChanges(options_, next); !changed.empty()) {
    spdlog::warn("reload ({}): {} changed in {}; {} when mcpgwd restarts", why, Join(changed),
                 options_.gateway.settings_path, changed.size() == 1 ? "it applies" : "they apply");
  }
  gateway_->SettingsReloaded(read.trust_error.message());
}

// New connections use the new trust; a transfer keeps the one it started with.
void Supervisor::ApplyTrust(std::string_view why, std::shared_ptr<const http::TlsTrust> trust) {
  std::string described = trust->Describe();
  if (described != trust_described_) {
    spdlog::info("reload ({}): TLS trust: {}", why, described);
    trust_described_ = std::move(described);
  }
  options_.trust = trust;
  for (auto& worker : workers_) {
    Worker* w = worker.get();
    w->Post([w, trust] { w->http().SetTrust(trust); });
  }
}

void Supervisor::ApplyConfig(std::string_view why, const config::ParseResult& parsed) {
  if (!parsed.ok()) {
    spdlog::error("reload ({}): keeping the previous configuration: {}", why, parsed.message());
    gateway_->ReloadFailed(parsed.message());
    return;
  }
  ExtendScrubber(parsed->secrets);  // before anything of the new configuration can log
  spdlog::info("reload ({}): {} servers", why, parsed->entries.size());
  gateway_->Reload(*parsed);
}

// The first SIGTERM or SIGINT stops gracefully: no new connections, calls in
// flight fail, sessions are DELETEd within the grace time. A second one
// exits at once.
void Supervisor::Stop(int signum) {
  if (stopping_) {
    spdlog::warn("second signal {}: exiting without waiting", signum);
    Exit(0);
    return;
  }
  stopping_ = true;
  spdlog::info("signal {}: stopping", signum);
  notify_("STOPPING=1");
  ipc_->StopAccepting();
  if (metrics_) metrics_->Close();  // a scrape answers no more once stopping
  gateway_->Shutdown([this] {
    ipc_->CloseAll();
    Exit(0);
  });
}

void Supervisor::ExtendScrubber(const std::vector<Secret>& secrets) {
  scrubber_ = Scrubber::Extend(scrubber_, secrets);
  SetLogScrubber(scrubber_);
  gateway_->SetScrubber(scrubber_);
}

void Supervisor::Exit(int code) {
  if (exit_set_) return;
  exit_set_ = true;
  exit_code_.set_value(code);
}

// Tears down in dependency order: the hosts (on their workers), the workers,
// then the main loop's own handles, then the main loop.
void Supervisor::TearDown() {
  std::promise<void> released;
  main_loop().Post([&] {
    gateway_->ReleaseHosts();
    released.set_value();
  });
  released.get_future().wait();
  for (size_t i = 1; i < workers_.size(); i++) workers_[i]->Stop();
  std::promise<void> closed;
  main_loop().Post([&] {
    CloseMainLoopHandles();
    closed.set_value();
  });
  closed.get_future().wait();
  main_loop().Stop();
}

void Supervisor::CloseMainLoopHandles() {
  if (signals_open_) {
    for (uv_signal_t* handle : {&sigterm_, &sigint_, &sighup_}) {
      uv_close(reinterpret_cast<uv_handle_t*>(handle), nullptr);
    }
  }
  watch_.reset();
  gateway_->SetToolsChanged(nullptr);
  trim_.reset();
  gateway_->SetAuthManager(nullptr);
  auth_.reset();  // before the ipc server: its login answers go there
  if (metrics_) metrics_->Close();
  metrics_.reset();
  if (ipc_) ipc_->CloseAll();
  gateway_->SetConnectionCount(nullptr);
  gateway_->SetReplies(nullptr);
  ipc_.reset();
}

}  // namespace mcpgw
