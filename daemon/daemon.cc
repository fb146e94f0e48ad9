#include "daemon/daemon.h"

#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>
#ifdef MCPGW_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "daemon/auth/manager.h"
#include "daemon/gateway/gateway.h"
#include "daemon/guard/scrub.h"
#include "daemon/runtime/logging.h"
#include "daemon/runtime/worker.h"

namespace mcpgw {
namespace {

void Notify(const char* state) {
#ifdef MCPGW_HAVE_SYSTEMD
  sd_notify(0, state);
#else
  (void)state;
#endif
}

// A watched directory and the names in it whose change means a reload.
// Editors replace files by rename, so the directory is watched, not the file.
struct DirWatch {
  uv_fs_event_t handle;
  std::string dir;
  std::vector<std::string> names;
  uv_timer_t* debounce = nullptr;
};

// Everything that lives on the main loop, created and destroyed there.
struct MainLoopState {
  std::unique_ptr<IpcServer> ipc;
  uv_signal_t sigterm;
  uv_signal_t sigint;
  uv_signal_t sighup;
  std::vector<std::unique_ptr<DirWatch>> watches;  // open handles only
  uv_timer_t debounce;
  bool watching = false;
  std::string config_text;      // what the last load read, to skip no-op changes
  std::string settings_text;    // likewise for the settings file
  std::string trust_described;  // the TLS trust last logged
  bool signals_open = false;
  bool stopping = false;
  std::promise<int> exit_code;
  bool exit_set = false;
  std::shared_ptr<const Scrubber> scrubber;  // every secret seen so far
  std::unique_ptr<auth::AuthManager> auth;   // the OAuth client (BEHAVIOR.md §9)
  std::unique_ptr<Timer> trim;               // GiveBackMemory after listings settle

  void Exit(int code) {
    if (exit_set) return;
    exit_set = true;
    exit_code.set_value(code);
  }
};

// "dir/" and "name" of a path ("./" when it has no slash).
std::pair<std::string, std::string> SplitPath(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return {"./", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

std::string ReadFileOrEmpty(Env& env, const std::string& path) {
  std::string text, error;
  return env.ReadFile(path, &text, &error) ? text : std::string();
}

constexpr uint64_t kReloadDebounceMs = 200;

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

}  // namespace

int RunDaemon(const DaemonOptions& options, const config::Config& config) {
  unsigned n =
      options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  // SIGTERM, SIGINT and SIGHUP go to the main loop's thread only: every
  // thread starts with them blocked and the main loop unblocks them once its
  // handlers are in place. (A signal the kernel hands to a thread parked in a
  // futex would otherwise wait there; ThreadSanitizer never delivers it.)
  sigset_t loop_signals, old_mask;
  sigemptyset(&loop_signals);
  sigaddset(&loop_signals, SIGTERM);
  sigaddset(&loop_signals, SIGINT);
  sigaddset(&loop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &loop_signals, &old_mask);

  HttpClientOptions http_options;
  http_options.trust = options.trust;
  if (options.trust) {
    spdlog::info("TLS trust: {}", options.trust->Describe());
    for (const std::string& warning : options.trust->Warnings()) spdlog::warn("{}", warning);
  }
  Worker main("mcpgw-main", http_options);
  main.Start();
  // The main loop is the first session worker: calls to the servers sharded
  // onto it cross no thread at all.
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<Worker*> worker_ptrs = {&main};
  for (unsigned i = 1; i < n; i++) {
    workers.push_back(std::make_unique<Worker>("mcpgw-w" + std::to_string(i), http_options));
    workers.back()->Start();
    worker_ptrs.push_back(workers.back().get());
  }

  GatewayOptions gopts;
  gopts.config_path = options.config_path;
  // Status names the settings file only when there is one to read.
  std::error_code exists_error;
  if (!options.settings_path.empty() &&
      std::filesystem::exists(options.settings_path, exists_error)) {
    gopts.settings_path = options.settings_path;
  }
  gopts.socket_path = options.socket_path;
  gopts.limits = options.limits;
  gopts.shutdown_grace = std::chrono::milliseconds(options.shutdown_grace_ms);
  Gateway gateway(&main, std::vector<Env*>(worker_ptrs.begin(), worker_ptrs.end()), gopts);
  MainLoopState st;
  std::future<int> exit_future = st.exit_code.get_future();

  auto on_signal = [](uv_signal_t* handle, int signum) {
    auto* ctx = static_cast<std::pair<MainLoopState*, Gateway*>*>(handle->data);
    MainLoopState& s = *ctx->first;
    if (s.stopping) {
      spdlog::warn("second signal {}: exiting without waiting", signum);
      s.Exit(0);
      return;
    }
    s.stopping = true;
    spdlog::info("signal {}: stopping", signum);
    Notify("STOPPING=1");
    s.ipc->StopAccepting();
    ctx->second->Shutdown([&s] {
      s.ipc->CloseAll();
      s.Exit(0);
    });
  };
  std::pair<MainLoopState*, Gateway*> signal_ctx{&st, &gateway};

  auto reload = [&](const char* why) {
    if (!options.reload_config || st.stopping) return;
    std::string text = ReadFileOrEmpty(main, options.config_path);
    std::string settings =
        options.settings_path.empty() ? "" : ReadFileOrEmpty(main, options.settings_path);
    if (std::string_view(why) == "file" && text == st.config_text && settings == st.settings_text) {
      return;
    }
    st.config_text = std::move(text);
    st.settings_text = std::move(settings);
    Notify("RELOADING=1");
    std::string settings_error;  // shown in status until a reload reads the file well
    if (options.reload_policy) {
      std::string policy_error;
      auto policy = options.reload_policy(&policy_error);
      if (policy) {
        gateway.SetPolicy(std::move(policy));
      } else {
        spdlog::error("reload ({}): keeping the previous policy: {}", why, policy_error);
        settings_error = policy_error;
      }
    }
    if (options.reload_trust) {
      std::string trust_error;
      if (auto trust = options.reload_trust(&trust_error)) {
        std::string described = trust->Describe();
        if (described != st.trust_described) {
          spdlog::info("reload ({}): TLS trust: {}", why, described);
          st.trust_described = std::move(described);
        }
        for (Worker* w : worker_ptrs) {
          w->Post([w, trust] { w->http().SetTrust(trust); });
        }
      } else {
        spdlog::error("reload ({}): keeping the previous TLS trust: {}", why, trust_error);
        if (settings_error.empty()) settings_error = trust_error;
      }
    }
    if (options.reload_policy || options.reload_trust) gateway.SettingsReloaded(settings_error);
    config::ParseResult parsed = options.reload_config();
    if (parsed.ok) {
      // Before anything of the new configuration can log or fail.
      st.scrubber = Scrubber::Extend(st.scrubber, parsed.config.secrets);
      SetLogScrubber(st.scrubber);
      gateway.SetScrubber(st.scrubber);
    }
    if (!parsed.ok) {
      spdlog::error("reload ({}): keeping the previous configuration: {}", why, parsed.error);
      gateway.ReloadFailed(parsed.error);
    } else {
      spdlog::info("reload ({}): {} servers", why, parsed.config.entries.size());
      gateway.Reload(parsed.config);
    }
    Notify("READY=1");
  };
  std::function<void(const char*)> reload_fn = reload;

  if (options.trust) st.trust_described = options.trust->Describe();
  st.scrubber = Scrubber::Extend(nullptr, config.secrets);
  SetLogScrubber(st.scrubber);
  gateway.SetScrubber(st.scrubber);

  main.Post([&] {
    st.ipc = std::make_unique<IpcServer>(main.loop(), &gateway, options.ipc);
    gateway.SetReplies(st.ipc.get());
    gateway.SetCallLog(options.call_log);
    st.trim = main.NewTimer();
    gateway.SetToolsChanged([&st](bool settled) {
      if (settled) {
        st.trim->Stop();
        GiveBackMemory();
      } else {
        st.trim->Start(kTrimAfterListing, GiveBackMemory);
      }
    });
    if (options.policy) gateway.SetPolicy(options.policy);
    if (!options.token_dir.empty()) {
      // Tokens, codes and verifiers join the scrubbers the moment they exist.
      gateway.SetSecretSink([&st, &gateway](const Secret& secret) {
        st.scrubber = Scrubber::Extend(st.scrubber, {secret});
        SetLogScrubber(st.scrubber);
        gateway.SetScrubber(st.scrubber);
      });
      auth::AuthManagerOptions auth_options;
      auth_options.token_dir = options.token_dir;
      auth_options.get_env = [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        return v ? std::optional<std::string>(v) : std::nullopt;
      };
#ifdef __APPLE__
      auth_options.macos = true;
#endif
      st.auth = std::make_unique<auth::AuthManager>(auth::LoopAuthIo(&main, main.loop()),
                                                    gateway.auth_link(), auth_options);
      gateway.SetAuthManager(st.auth.get());
    }
    std::string err = options.listen_fd >= 0 ? st.ipc->ListenFd(options.listen_fd)
                                             : st.ipc->Listen(options.socket_path);
    if (!err.empty()) {
      spdlog::error("{}", err);
      st.Exit(1);
      return;
    }
    uv_signal_init(main.loop(), &st.sigterm);
    uv_signal_init(main.loop(), &st.sigint);
    st.sigterm.data = st.sigint.data = &signal_ctx;
    uv_signal_start(&st.sigterm, on_signal, SIGTERM);
    uv_signal_start(&st.sigint, on_signal, SIGINT);
    uv_signal_init(main.loop(), &st.sighup);
    st.sighup.data = &reload_fn;
    uv_signal_start(
        &st.sighup,
        [](uv_signal_t* h, int) {
          (*static_cast<std::function<void(const char*)>*>(h->data))("SIGHUP");
        },
        SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &loop_signals, nullptr);
    st.signals_open = true;
    st.config_text = ReadFileOrEmpty(main, options.config_path);
    if (!options.settings_path.empty())
      st.settings_text = ReadFileOrEmpty(main, options.settings_path);
    if (options.reload_config && options.watch_config) {
      uv_timer_init(main.loop(), &st.debounce);
      st.debounce.data = &reload_fn;
      st.watching = true;
      // mcp.json and settings.json usually share a directory: one watch.
      std::vector<std::unique_ptr<DirWatch>> wanted;
      for (const std::string* path : {&options.config_path, &options.settings_path}) {
        if (path->empty()) continue;
        auto [dir, name] = SplitPath(*path);
        struct stat dir_stat;
        if (path == &options.settings_path && stat(dir.c_str(), &dir_stat) != 0) {
          // No settings directory: nothing to watch (SIGHUP still reloads).
          spdlog::debug("not watching {}: {}", dir, std::strerror(errno));
          continue;
        }
        auto same = std::find_if(wanted.begin(), wanted.end(),
                                 [&](const auto& w) { return w->dir == dir; });
        if (same != wanted.end()) {
          (*same)->names.push_back(name);
          continue;
        }
        auto w = std::make_unique<DirWatch>();
        w->dir = dir;
        w->names.push_back(name);
        w->debounce = &st.debounce;
        wanted.push_back(std::move(w));
      }
      for (auto& w : wanted) {
        uv_fs_event_init(main.loop(), &w->handle);
        w->handle.data = w.get();
        int rc = uv_fs_event_start(
            &w->handle,
            [](uv_fs_event_t* h, const char* filename, int, int) {
              auto* watch = static_cast<DirWatch*>(h->data);
              if (filename && std::find(watch->names.begin(), watch->names.end(), filename) ==
                                  watch->names.end()) {
                return;
              }
              uv_timer_start(
                  watch->debounce,
                  [](uv_timer_t* t) {
                    (*static_cast<std::function<void(const char*)>*>(t->data))("file");
                  },
                  kReloadDebounceMs, 0);
            },
            w->dir.c_str(), 0);
        if (rc != 0) {
          spdlog::warn("not watching {} for changes: {}", w->dir, uv_strerror(rc));
          uv_close(reinterpret_cast<uv_handle_t*>(&w->handle),
                   [](uv_handle_t* h) { delete static_cast<DirWatch*>(h->data); });
          w.release();  // freed by the close callback
          continue;
        }
        st.watches.push_back(std::move(w));
      }
    }
    gateway.Load(config);
    spdlog::info("mcpgwd {} listening on {} ({} servers, {} workers)", MCPGW_VERSION,
                 options.listen_fd >= 0 ? std::string("an inherited socket") : options.socket_path,
                 config.entries.size(), n);
    Notify("READY=1");
  });

  int code = exit_future.get();

  // Tear down in dependency order: hosts (on their workers), workers, then
  // the main loop's own handles.
  std::promise<void> released;
  main.Post([&] {
    gateway.ReleaseHosts();
    released.set_value();
  });
  released.get_future().wait();
  for (auto& w : workers) w->Stop();
  std::promise<void> closed;
  main.Post([&] {
    if (st.signals_open) {
      uv_close(reinterpret_cast<uv_handle_t*>(&st.sigterm), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&st.sigint), nullptr);
      uv_close(reinterpret_cast<uv_handle_t*>(&st.sighup), nullptr);
    }
    if (st.watching) {
      for (auto& w : st.watches) {
        uv_close(reinterpret_cast<uv_handle_t*>(&w->handle),
                 [](uv_handle_t* h) { delete static_cast<DirWatch*>(h->data); });
        w.release();  // freed by the close callback
      }
      st.watches.clear();
      uv_close(reinterpret_cast<uv_handle_t*>(&st.debounce), nullptr);
    }
    gateway.SetToolsChanged(nullptr);
    st.trim.reset();
    gateway.SetAuthManager(nullptr);
    st.auth.reset();  // before the ipc server: its login answers go there
    if (st.ipc) st.ipc->CloseAll();
    gateway.SetReplies(nullptr);
    st.ipc.reset();
    closed.set_value();
  });
  closed.get_future().wait();
  main.Stop();
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  spdlog::info("mcpgwd stopped");
  return code;
}

}  // namespace mcpgw
