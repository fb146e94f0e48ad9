// Supervisor: mcpgwd's life once its options are made. Run() starts the
// session workers and the main loop (the ipc server, the gateway, OAuth,
// signals, file watches), serves until SIGTERM or SIGINT, stops within the
// grace time (sessions DELETEd), and returns the exit code. SIGHUP, or mcp.json
// or settings.json saved on disk, reloads both through the same Sources the
// start-up used, so a reload applies what a start with those files would run
// with (options.h). The service manager is told each step: READY=1,
// RELOADING=1, STOPPING=1.
//
// Run() blocks the calling thread. The supervisor owns the workers, the
// gateway and everything on the main loop; these are made on the main loop's
// thread and destroyed there, in dependency order.
#pragma once

#include <signal.h>

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <uv.h>

#include "config/config.h"
#include "daemon/options.h"
#include "daemon/runtime/service_manager.h"

namespace mcpgw {

class CallLog;
class Cassette;
class CassetteWriter;
class ConfigWatch;
class MetricsListener;
class Gateway;
class IpcServer;
class Scrubber;
class Timer;
class Worker;
namespace auth {
class AuthManager;
}

class Supervisor {
 public:
  // What a reload reads: the functions main() used to read the same files.
  struct Sources {
    std::function<config::ParseResult()> config;  // mcp.json
    std::function<OptionsResult()> options;       // settings.json (LoadOptions)
  };
  // Tells the service manager a state ("READY=1"); by default systemd's
  // notification socket (daemon/runtime/service_manager.h).
  using Notify = std::function<void(const char* state)>;

  Supervisor(DaemonOptions options, Sources sources, Notify notify = NotifyServiceManager);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Serves `config` until stopped. `listen_fd` is a listening socket the
  // service manager passed (-1: listen on options.socket_path); `call_log`
  // (may be null) is open already, and so are `recorder` (--record) and
  // `replay` (--replay), null when not given. Returns 0 after a clean stop,
  // 1 when the socket or the metrics endpoint cannot be served.
  int Run(const config::Config& config, int listen_fd, CallLog* call_log,
          CassetteWriter* recorder = nullptr, Cassette* replay = nullptr);

 private:
  void StartWorkers();
  // On the main loop, in order.
  void Start(const config::Config& config, int listen_fd, CallLog* call_log);
  bool StartMetrics();
  void StartAuth();
  void OpenSignals();
  void Reload(std::string_view why);
  void ApplySettings(std::string_view why, const OptionsResult& read);
  void ApplyTrust(std::string_view why, std::shared_ptr<const http::TlsTrust> trust);
  void ApplyConfig(std::string_view why, const config::ParseResult& parsed);
  void Stop(int signum);
  void CloseMainLoopHandles();
  void TearDown();

  // Secrets seen so far join every scrubber before anything can print them.
  void ExtendScrubber(const std::vector<Secret>& secrets);
  void Exit(int code);
  Worker& main_loop() { return *workers_.front(); }

  // As the daemon started; the policy and the trust follow reloads (the results
  // and pinning settings a reload applies live on in the gateway).
  DaemonOptions options_;
  Sources sources_;
  Notify notify_;

  std::vector<std::unique_ptr<Worker>> workers_;  // the main loop first
  std::unique_ptr<Gateway> gateway_;
  std::shared_ptr<const Scrubber> scrubber_;

  // The main loop's, made and destroyed on its thread.
  std::unique_ptr<IpcServer> ipc_;
  std::unique_ptr<MetricsListener> metrics_;  // metrics.listen; null when not set
  std::unique_ptr<auth::AuthManager> auth_;
  std::unique_ptr<ConfigWatch> watch_;
  std::unique_ptr<Timer> trim_;  // gives memory back once listings settle
  uv_signal_t sigterm_, sigint_, sighup_;
  bool signals_open_ = false;
  bool stopping_ = false;
  std::string config_text_;      // what the last load read, to skip no-op changes
  std::string settings_text_;    // likewise for the settings file
  std::string trust_described_;  // the TLS trust last logged

  std::promise<int> exit_code_;
  bool exit_set_ = false;
};

}  // namespace mcpgw
