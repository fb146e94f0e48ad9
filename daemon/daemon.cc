// mcpgwd's modes (see daemon.h).
#include "daemon/daemon.h"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "config/check.h"
#include "config/config.h"
#include "config/display.h"
#include "daemon/guard/call_log.h"
#include "daemon/guard/cassette.h"
#include "daemon/options.h"
#include "daemon/runtime/confine.h"
#include "daemon/runtime/fd_limit.h"
#include "daemon/runtime/hardening.h"
#include "daemon/runtime/logging.h"
#include "daemon/supervisor.h"

namespace mcpgw {
namespace {

// `local_servers: "refuse"` refuses every local entry (BEHAVIOR.md §17);
// `local_servers_confine` confines those that say nothing of it, and what
// this kernel cannot enforce refuses an entry that requires it (BEHAVIOR.md §18).
config::ParseResult ReadConfig(const std::string& path, const Settings& settings) {
  const config::ParseEnv env = config::SystemParseEnv();
  config::ParseResult parsed = config::ParseFile(path, env);
  if (!parsed.ok()) return parsed;
  if (settings.local_servers == "refuse") config::RefuseLocal(*parsed);
  config::ApplyConfineDefault(*parsed, settings.local_servers_confine.text, env);
  RefuseUnconfinable(*parsed, KernelConfineSupport(), getuid());
  return parsed;
}

config::ParseResult ReadConfig(const std::string& path, const OptionsResult& options) {
  return ReadConfig(path, options.options.settings);
}

// A settings file named by --settings must exist: without it, a deny policy
// would silently vanish.
bool NamedSettingsMissing(const CommandLine& command_line, const OptionsResult& options,
                          const GetEnv& get_env) {
  if (!(command_line.settings_named && options.file_missing)) return false;
  std::fputs(FatalLine("--settings " + command_line.settings_path +
                           ": no such file (without --settings, a missing default file means "
                           "defaults)",
                       get_env)
                 .c_str(),
             stderr);
  return true;
}

// The --check line about the settings file.
std::string SettingsReport(const std::string& path, const OptionsResult& options) {
  if (!options.ok()) return path + ": unusable settings\n" + options.error().message() + "\n";
  if (options.file_missing) return path + ": no settings file; the defaults apply\n";
  return path + ": settings usable\n";
}

// Start-up log lines for what --check would note: another host's variable
// form is a warning (almost always a mistake), the rest is information.
void LogNotes(const config::Config& config) {
  auto log = [](const config::Note& note, const std::string& prefix) {
    if (note.likely_mistake) {
      spdlog::warn("{}{}", prefix, note.text);
    } else {
      spdlog::info("{}{}", prefix, note.text);
    }
  };
  for (const auto& note : config.notes) log(note, "");
  for (const auto& entry : config.entries) {
    for (const auto& note : entry.notes)
      log(note, "server " + config::JsonQuote(entry.name) + ": ");
  }
}

// Raises the open-file limit and says what it is; warns when the budgets
// could need more (a reload that adds servers is not counted again).
void LogFdLimit(const DaemonOptions& options, size_t servers) {
  FdLimit fds;
  if (const base::Status raised = RaiseFdLimit(&fds); !raised.ok()) {
    spdlog::warn("open-file limit {} could not be raised: {}", fds.before, raised.message());
  } else if (fds.now != fds.before) {
    spdlog::info("open-file limit raised from {} to {}", fds.before, fds.now);
  }
  const Settings& settings = options.settings;
  const size_t need = FdsNeeded(
      servers, static_cast<size_t>(settings.workers), settings.limits.max_connections_per_server,
      settings.ipc.max_connections_per_uid * (settings.ipc.allowed_uids.size() + 1));
  if (fds.now != 0 && fds.now < need) {
    spdlog::warn(
        "open-file limit {} is below the {} descriptors {} servers and the connection budgets "
        "may need (raise LimitNOFILE, or ulimit -Hn); past it new connections fail",
        fds.now, need, servers);
  }
}

}  // namespace

int Check(const CommandLine& command_line, const GetEnv& get_env) {
  const OptionsResult options = LoadOptions(command_line, get_env);
  if (NamedSettingsMissing(command_line, options, get_env)) return kExitMisuse;
  const config::ParseResult parsed = ReadConfig(command_line.config_path, options);
  std::string report = config::FormatCheckReport(parsed, command_line.config_path);
  report += SettingsReport(command_line.settings_path, options);
  std::fputs(report.c_str(), stdout);
  return options.ok() ? config::CheckExitCode(parsed) : kExitUnusable;
}

int Serve(const CommandLine& command_line, const GetEnv& get_env, int listen_fd) {
  auto fatal = [&](const std::string& message) {
    std::fputs(FatalLine(message, get_env).c_str(), stderr);
    return kExitUnusable;
  };
  OptionsResult options = LoadOptions(command_line, get_env);
  if (NamedSettingsMissing(command_line, options, get_env)) return kExitMisuse;
  const config::ParseResult parsed = ReadConfig(command_line.config_path, options);
  if (!parsed.ok()) return fatal(parsed.message());
  if (!options.ok()) return fatal(options.error().message());

  // Tokens and secrets live in this process's memory: no core dumps, no
  // ptrace by other processes of the user (BEHAVIOR.md §8).
  const base::Status no_dumps = ForbidCoreDumps();
  SetUpLogging(command_line.log_level);
  if (!no_dumps.ok()) spdlog::warn("{}", no_dumps.message());
  LogNotes(*parsed);
  spdlog::info("local-server confinement: {}", DescribeConfineSupport(KernelConfineSupport()));
  LogFdLimit(options.options, parsed->entries.size());
  std::signal(SIGPIPE, SIG_IGN);
  // A file past the process's size limit (ulimit -f) is a failed write the
  // daemon reports (a result it could not keep), not a reason to die.
  std::signal(SIGXFSZ, SIG_IGN);

  CallLog call_log;
  if (const CallLogSettings& log = options.options.settings.call_log; !log.path.empty()) {
    if (base::Status opened = call_log.Open(log.path, log.max_bytes, log.keep); !opened.ok()) {
      return fatal("call log: " + opened.message());
    }
  }
  // Record and replay (BEHAVIOR.md §14): a cassette that cannot be read,
  // or a recording that cannot be written, stops the start.
  std::unique_ptr<Cassette> replay;
  if (const std::string& path = options.options.gateway.replay_path; !path.empty()) {
    base::Result<Cassette::Loaded> loaded = Cassette::Load(path);
    if (!loaded.ok()) return fatal(loaded.message());
    if (!loaded->warning.empty()) spdlog::warn("{}", loaded->warning);
    spdlog::info("replaying {}: {} servers, {} calls ({} different); misses {}", path,
                 loaded->cassette->Namespaces().size(), loaded->cassette->calls(),
                 loaded->cassette->digests(),
                 options.options.gateway.replay_forward ? "go to the live servers" : "fail");
    replay = std::move(loaded->cassette);
  }
  CassetteWriter recorder;
  if (const std::string& path = options.options.gateway.record_path; !path.empty()) {
    std::string notice;
    if (base::Status opened = recorder.Open(path, &notice); !opened.ok()) {
      return fatal(opened.message());
    }
    if (!notice.empty()) spdlog::warn("{}", notice);
    spdlog::info("recording calls and listings to {}", path);
  }
  // A reload reads the files exactly as this start did.
  Supervisor::Sources sources;
  sources.config = [path = command_line.config_path, settings = options.options.settings] {
    return ReadConfig(path, settings);
  };
  sources.options = [command_line, get_env] { return LoadOptions(command_line, get_env); };
  Supervisor supervisor(std::move(options.options), std::move(sources));
  return supervisor.Run(*parsed, listen_fd, call_log.is_open() ? &call_log : nullptr,
                        recorder.is_open() ? &recorder : nullptr, replay.get());
}

}  // namespace mcpgw
