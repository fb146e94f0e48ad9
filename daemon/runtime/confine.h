// Confinement of a local server (BEHAVIOR.md §18): what the running kernel
// can enforce, the plan made for one process before it is forked, and its
// application in the forked child between fork and exec — Landlock for files
// and TCP ports, a seccomp filter for the socket families Landlock does not
// cover, setrlimit for `limits`. Unprivileged: no namespace, no setuid
// helper, so it works inside the systemd user unit.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"

namespace mcpgw {

// What this kernel offers, probed once.
struct ConfineSupport {
  int landlock_abi = 0;       // 0: no Landlock
  std::string landlock_why;   // when 0: why not
  bool seccomp = false;       // seccomp filters can be installed
  bool linux_kernel = false;  // false on macOS
};
const ConfineSupport& KernelConfineSupport();

// "Landlock ABI 7 (files, TCP ports, signal and socket scopes)", or why there
// is none: for status and doctor.
std::string DescribeConfineSupport(const ConfineSupport& support);

// What is asked of `server` that `support` cannot enforce, each a sentence
// naming the right and the kernel it would need. `uid` is the daemon's.
std::vector<std::string> ConfineGaps(const config::LocalServer& server,
                                     const ConfineSupport& support, uid_t uid);

// Refuses every local entry of `config` whose gaps on `support` it requires
// enforced (`confine_required`, the default), with the gaps as the reason.
void RefuseUnconfinable(config::Config& config, const ConfineSupport& support, uid_t uid);

// What is true of every confinement of `server` whatever the kernel: a host
// that cannot be told from its port, UDP left open for name lookups.
std::vector<std::string> ConfineCaveats(const config::LocalServer& server);

// One rule: `path` (opened in the child) and what may be done beneath it.
struct ConfineRule {
  std::string path;
  uint64_t access = 0;    // Landlock file rights
  bool required = false;  // the entry named it: a missing path fails the start
};

// The same layout as the kernel's struct sock_filter.
struct FilterOp {
  uint16_t code;
  uint8_t jt;
  uint8_t jf;
  uint32_t k;
};

// Everything the child needs, made before the fork: the child only makes
// system calls with it.
struct ConfinePlan {
  int landlock_abi = 0;  // 0: no Landlock ruleset
  uint64_t handled_fs = 0;
  uint64_t handled_net = 0;
  uint64_t scoped = 0;
  std::vector<ConfineRule> rules;
  std::vector<uint64_t> connect_ports;
  std::vector<FilterOp> filter;  // empty: no seccomp filter
  uint64_t memory_bytes = 0;     // RLIMIT_DATA; 0: unchanged
  uint64_t open_files = 0;       // RLIMIT_NOFILE
  uint64_t processes = 0;        // RLIMIT_NPROC
};

// What a local server needs to run, besides what its entry lists.
struct ConfineContext {
  std::string command_path;              // the executable found
  std::vector<std::string> search_dirs;  // its PATH
  std::string home;
  std::string temp_dir;          // private to it, made by the daemon
  std::vector<std::string> env;  // its environment, NAME=value
};

// The plan for `server` on `support` (its gaps already accepted or refused).
// Reads the file system only to resolve the command's real path.
ConfinePlan PlanConfinement(const config::LocalServer& server, const ConfineContext& context,
                            const ConfineSupport& support);

// The package caches `npx` or `uvx` run from, for `command_path` under
// `env`: they are made (0700) if missing, since a confined npm cannot make
// them in the home it may not write.
std::vector<std::string> PackageCaches(const std::string& command_path,
                                       const std::vector<std::string>& env,
                                       const std::string& home);

// Applies `plan` to the calling process. In the forked child, before exec:
// system calls only, no allocation. 0, or the errno of the step that failed
// (*step one of the kConfineStep values, *index the rule's).
enum ConfineStep : int {
  kConfineLimit = 1,
  kConfineOpen = 2,
  kConfineRuleset = 3,
  kConfineRule = 4,
  kConfineNoNewPrivs = 5,
  kConfineFilter = 6,
  kConfineRestrict = 7,
};
int ApplyConfinement(const ConfinePlan& plan, int* step, int* index);

// "could not be confined: <path>: No such file or directory".
std::string DescribeConfineFailure(const ConfinePlan& plan, int step, int index, int err);

}  // namespace mcpgw
