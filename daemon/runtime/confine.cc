// What is platform-neutral of confinement (confine.h): the gaps between what
// an entry asks and what the kernel offers, and the package caches.
#include "daemon/runtime/confine.h"

#include <sys/stat.h>

#include <cstring>
#include <string_view>

namespace mcpgw {
namespace {

std::string Offers(const ConfineSupport& support) {
  if (support.landlock_abi == 0)
    return "this kernel has no Landlock (" + support.landlock_why + ")";
  return "this kernel offers Landlock ABI " + std::to_string(support.landlock_abi);
}

std::string_view Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The value of NAME in `env` (NAME=value lines), or "".
std::string EnvValue(const std::vector<std::string>& env, std::string_view name) {
  for (const std::string& e : env) {
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=') {
      return e.substr(name.size() + 1);
    }
  }
  return {};
}

// Makes `path` and its missing parents (0700).
void MakeDirs(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    mkdir(prefix.c_str(), 0700);
    if (slash == std::string::npos) break;
  }
}

}  // namespace

std::string DescribeConfineSupport(const ConfineSupport& support) {
  if (!support.linux_kernel) return "none: Landlock is Linux's; local servers cannot be confined";
  if (support.landlock_abi == 0) return "none: no Landlock (" + support.landlock_why + ")";
  std::string covers = "files";
  if (support.landlock_abi >= 4) covers += ", TCP ports";
  if (support.landlock_abi >= 6) covers += ", signal and socket scopes";
  std::string text = "Landlock ABI " + std::to_string(support.landlock_abi) + " (" + covers + ")";
  if (!support.seccomp) text += "; no seccomp filters";
  return text;
}

std::vector<std::string> ConfineGaps(const config::LocalServer& server,
                                     const ConfineSupport& support, uid_t uid) {
  std::vector<std::string> gaps;
  if (server.confine) {
    const config::Confine& c = *server.confine;
    if (!support.linux_kernel) {
      gaps.push_back("confine: files and network cannot be confined on macOS (no Landlock)");
    } else {
      if (support.landlock_abi < 1) {
        gaps.push_back(
            "confine.read, confine.write: confining files needs Landlock ABI 1 "
            "(Linux 5.13); " +
            Offers(support));
      } else if (support.landlock_abi < 3) {
        gaps.push_back(
            "confine.write: stopping truncation outside `write` needs Landlock ABI 3 "
            "(Linux 6.2); " +
            Offers(support));
      }
      if (c.network == config::ConfineNetwork::kPorts && support.landlock_abi < 4) {
        gaps.push_back(
            "confine.network: allowing only some TCP ports needs Landlock ABI 4 "
            "(Linux 6.7); " +
            Offers(support));
      }
      if (c.network != config::ConfineNetwork::kAll && !support.seccomp) {
        gaps.push_back(
            "confine.network: closing the socket families Landlock does not cover "
            "needs seccomp filters, which this kernel does not allow");
      }
    }
  }
  if (server.limits.memory_mb != 0 && !support.linux_kernel) {
    gaps.push_back("limits.memory_mb: macOS does not enforce a data-size limit");
  }
  if (server.limits.processes != 0 && uid == 0) {
    gaps.push_back("limits.processes: the kernel does not count processes for root (uid 0)");
  }
  return gaps;
}

void RefuseUnconfinable(config::Config& config, const ConfineSupport& support, uid_t uid) {
  for (config::Entry& entry : config.entries) {
    if (!entry.local || !entry.local->confine_required) continue;
    const std::vector<std::string> gaps = ConfineGaps(*entry.local, support, uid);
    if (gaps.empty()) continue;
    std::string reason;
    for (const std::string& gap : gaps) reason += (reason.empty() ? "" : "; ") + gap;
    entry.Refuse(reason + " (\"confine_required\": false runs it with what can be enforced)");
  }
}

std::vector<std::string> ConfineCaveats(const config::LocalServer& server) {
  std::vector<std::string> caveats;
  if (!server.confine || server.confine->network != config::ConfineNetwork::kPorts) return caveats;
  for (const config::ConfineEndpoint& e : server.confine->connect) {
    caveats.push_back("network: " + e.text + " is enforced as TCP port " + std::to_string(e.port) +
                      " on any host (Landlock rules name ports, not hosts)");
  }
  caveats.push_back("network: UDP is not restricted (name lookups need it)");
  return caveats;
}

std::vector<std::string> PackageCaches(const std::string& command_path,
                                       const std::vector<std::string>& env,
                                       const std::string& home) {
  const std::string_view name = Basename(command_path);
  std::vector<std::string> caches;
  auto add = [&](std::string path) {
    if (path.empty() || path[0] != '/') return;
    MakeDirs(path);
    caches.push_back(std::move(path));
  };
  if (name == "npx" || name == "npm" || name == "npx-cli.js" || name == "npm-cli.js") {
    std::string cache = EnvValue(env, "npm_config_cache");
    if (cache.empty()) cache = EnvValue(env, "NPM_CONFIG_CACHE");
    add(cache.empty() ? home + "/.npm" : cache);
  }
  if (name == "uvx" || name == "uv") {
    std::string cache = EnvValue(env, "UV_CACHE_DIR");
    const std::string xdg_cache = EnvValue(env, "XDG_CACHE_HOME");
    if (cache.empty()) cache = (xdg_cache.empty() ? home + "/.cache" : xdg_cache) + "/uv";
    add(cache);
    const std::string xdg_data = EnvValue(env, "XDG_DATA_HOME");
    add((xdg_data.empty() ? home + "/.local/share" : xdg_data) + "/uv");
  }
  return caches;
}

std::string DescribeConfineFailure(const ConfinePlan& plan, int step, int index, int err) {
  const std::string why = std::strerror(err);
  auto rule = [&]() -> std::string {
    if (index >= 0 && static_cast<size_t>(index) < plan.rules.size()) {
      return plan.rules[static_cast<size_t>(index)].path + ": ";
    }
    return {};
  };
  switch (step) {
    case kConfineLimit:
      return "could not set its limits: " + why;
    case kConfineOpen:
      return "could not be confined: " + rule() + why;
    case kConfineRuleset:
      return "could not be confined: creating the Landlock ruleset: " + why;
    case kConfineRule:
      return "could not be confined: the Landlock rule for " + rule() + why;
    case kConfineNoNewPrivs:
      return "could not be confined: no_new_privs: " + why;
    case kConfineFilter:
      return "could not be confined: the seccomp filter: " + why;
    case kConfineRestrict:
      return "could not be confined: applying the Landlock ruleset: " + why;
    default:
      return "could not be confined: " + why;
  }
}

}  // namespace mcpgw
