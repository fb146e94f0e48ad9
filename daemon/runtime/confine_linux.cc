// Confinement on Linux (confine.h): Landlock, a seccomp filter, setrlimit.
// The kernel's interfaces are declared here, not taken from the system's
// headers, which may predate the ABI the running kernel offers.
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <string_view>

#include "daemon/runtime/confine.h"

namespace mcpgw {
namespace {

// Landlock's system calls and structures (include/uapi/linux/landlock.h).
constexpr long kCreateRuleset = 444;
constexpr long kAddRule = 445;
constexpr long kRestrictSelf = 446;
constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;
constexpr int kRuleNetPort = 2;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;  // ABI 4
  uint64_t scoped;              // ABI 6
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};
struct NetPortAttr {
  uint64_t allowed_access;
  uint64_t port;
};

constexpr uint64_t kExecute = 1ULL << 0;
constexpr uint64_t kWriteFile = 1ULL << 1;
constexpr uint64_t kReadFile = 1ULL << 2;
constexpr uint64_t kReadDir = 1ULL << 3;
constexpr uint64_t kRemoveDir = 1ULL << 4;
constexpr uint64_t kRemoveFile = 1ULL << 5;
constexpr uint64_t kMakeDir = 1ULL << 7;
constexpr uint64_t kMakeReg = 1ULL << 8;
constexpr uint64_t kMakeSock = 1ULL << 9;
constexpr uint64_t kMakeFifo = 1ULL << 10;
constexpr uint64_t kMakeSym = 1ULL << 12;
constexpr uint64_t kRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1ULL << 15;  // ABI 5
constexpr uint64_t kAllFsV1 = (1ULL << 13) - 1;
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

constexpr uint64_t kBindTcp = 1ULL << 0;
constexpr uint64_t kConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeAbstractUnix = 1ULL << 0;
constexpr uint64_t kScopeSignal = 1ULL << 1;

constexpr uint64_t kRead = kReadFile | kReadDir;
constexpr uint64_t kRun = kRead | kExecute;
constexpr uint64_t kWrite = kWriteFile | kRemoveDir | kRemoveFile | kMakeDir | kMakeReg |
                            kMakeSock | kMakeFifo | kMakeSym | kRefer | kTruncate;
constexpr uint64_t kDevice = kReadFile | kWriteFile | kTruncate | kIoctlDev;

uint64_t HandledFs(int abi) {
  uint64_t handled = kAllFsV1;
  if (abi >= 2) handled |= kRefer;
  if (abi >= 3) handled |= kTruncate;
  if (abi >= 5) handled |= kIoctlDev;
  return handled;
}

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
#else
constexpr uint32_t kNativeArch = 0;  // no filter: the gap is reported
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

static_assert(sizeof(FilterOp) == sizeof(sock_filter));

FilterOp Op(uint16_t code, uint32_t k, uint8_t jt = 0, uint8_t jf = 0) { return {code, jt, jf, k}; }

// The seccomp program: socket() only for `families` (EACCES otherwise), no
// io_uring (whose operations would pass by this filter), nothing of another
// architecture's system calls.
std::vector<FilterOp> SocketFilter(const std::vector<uint32_t>& families) {
  std::vector<FilterOp> p;
  const uint32_t deny = SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
  const uint32_t nosys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
  p.push_back(Op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  p.push_back(Op(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0));
  p.push_back(Op(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
  p.push_back(Op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  // The x32 ABI's numbers.
  p.push_back(Op(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1));
  p.push_back(Op(BPF_RET | BPF_K, nosys));
#endif
  p.push_back(Op(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1));
  p.push_back(Op(BPF_RET | BPF_K, nosys));
  p.push_back(Op(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 1, 0));
  p.push_back(Op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  // The family: the low half of the first argument (little-endian).
  p.push_back(Op(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args)));
  for (size_t i = 0; i < families.size(); ++i) {
    // Matched: jump over the remaining tests and the denial to the final allow.
    const auto over = static_cast<uint8_t>(families.size() - i);
    p.push_back(Op(BPF_JMP | BPF_JEQ | BPF_K, families[i], over, 0));
  }
  p.push_back(Op(BPF_RET | BPF_K, deny));
  p.push_back(Op(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  return p;
}

std::string Dirname(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string_view Base(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool Within(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         (dir == "/" || path[dir.size()] == '/'));
}

// The tree a command is installed in: the directory above its `bin`, when
// that is not the home, a directory that holds the home, or a directory
// right below the home (~/.local, ~/.cargo hold more than programs); else
// the command's own directory, or only the command when that is as wide.
std::string CommandTree(const std::string& file, const std::string& home) {
  auto too_wide = [&](const std::string& dir) {
    return dir == "/" || Within(home, dir) || (Within(dir, home) && Dirname(dir) == home);
  };
  std::string dir = Dirname(file);
  if (const std::string_view base = Base(dir); base == "bin" || base == "sbin") {
    if (const std::string up = Dirname(dir); !too_wide(up)) return up;
  }
  return too_wide(dir) ? file : dir;
}

}  // namespace

const ConfineSupport& KernelConfineSupport() {
  static const ConfineSupport support = [] {
    ConfineSupport s;
    s.linux_kernel = true;
    const long abi = syscall(kCreateRuleset, nullptr, 0, kCreateRulesetVersion);
    if (abi > 0) {
      s.landlock_abi = static_cast<int>(abi);
    } else if (errno == ENOSYS) {
      s.landlock_why =
          "not built into this kernel (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)";
    } else if (errno == EOPNOTSUPP) {
      s.landlock_why = "built in but not enabled at boot: add landlock to the kernel's lsm= list";
    } else if (errno == EPERM || errno == EACCES) {
      s.landlock_why =
          "its system calls are blocked by a system-call filter (a service unit's "
          "SystemCallFilter must allow landlock_create_ruleset, landlock_add_rule "
          "and landlock_restrict_self)";
    } else {
      s.landlock_why = std::strerror(errno);
    }
    // A null program: EFAULT where filters exist (nothing is installed),
    // EINVAL where they do not.
    errno = 0;
    const int r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, nullptr, 0, 0);
    s.seccomp = kNativeArch != 0 && r < 0 && errno != EINVAL && errno != ENOSYS;
    return s;
  }();
  return support;
}

ConfinePlan PlanConfinement(const config::LocalServer& server, const ConfineContext& context,
                            const ConfineSupport& support) {
  ConfinePlan plan;
  plan.memory_bytes = server.limits.memory_mb << 20;
  plan.open_files = server.limits.open_files;
  plan.processes = server.limits.processes;
  if (!server.confine) return plan;
  const config::Confine& c = *server.confine;
  if (c.network != config::ConfineNetwork::kAll && support.seccomp) {
    std::vector<uint32_t> families;
    if (c.network == config::ConfineNetwork::kPorts) families = {AF_INET, AF_INET6, AF_NETLINK};
    plan.filter = SocketFilter(families);
  }
  const int abi = support.landlock_abi;
  if (abi < 1) return plan;
  plan.landlock_abi = abi;
  plan.handled_fs = HandledFs(abi);
  if (abi >= 4 && c.network != config::ConfineNetwork::kAll) {
    plan.handled_net = kBindTcp | kConnectTcp;
    for (int port : c.Ports()) plan.connect_ports.push_back(static_cast<uint64_t>(port));
  }
  if (abi >= 6) plan.scoped = kScopeAbstractUnix | kScopeSignal;

  auto add = [&](std::string path, uint64_t access, bool required = false) {
    plan.rules.push_back(ConfineRule{std::move(path), access, required});
  };
  // Reading includes running: a program that can be read can be run through
  // the dynamic loader whatever the kernel says of exec.
  for (const config::ConfinePath& p : c.read) add(p.path, kRun, true);
  for (const config::ConfinePath& p : c.write) add(p.path, kRun | kWrite, true);
  if (!context.temp_dir.empty()) add(context.temp_dir, kRead | kWrite, true);
  // The system's programs and libraries.
  for (const char* dir :
       {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store"}) {
    add(dir, kRun);
  }
  // What the C library, name lookups and TLS read in /etc.
  for (const char* file : {"/etc/ld.so.cache",     "/etc/ld.so.conf",
                           "/etc/ld.so.conf.d",    "/etc/ld.so.preload",
                           "/etc/localtime",       "/etc/timezone",
                           "/etc/resolv.conf",     "/etc/hosts",
                           "/etc/host.conf",       "/etc/nsswitch.conf",
                           "/etc/gai.conf",        "/etc/services",
                           "/etc/protocols",       "/etc/networks",
                           "/etc/passwd",          "/etc/group",
                           "/etc/os-release",      "/etc/mime.types",
                           "/etc/ssl/certs",       "/etc/ssl/openssl.cnf",
                           "/etc/ca-certificates", "/etc/ca-certificates.conf",
                           "/etc/pki/tls/certs",   "/etc/pki/ca-trust",
                           "/etc/crypto-policies", "/etc/alternatives",
                           "/etc/npmrc",           "/etc/nodejs"}) {
    add(file, kRead);
  }
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/full"}) add(device, kDevice);
  for (const char* device : {"/dev/random", "/dev/urandom"}) add(device, kRead | kIoctlDev);
  // The process's own /proc (opened in the child, so its own), and the
  // system-wide figures runtimes read.
  for (const char* file : {"/proc/self", "/proc/meminfo", "/proc/cpuinfo", "/proc/stat",
                           "/proc/loadavg", "/proc/uptime", "/proc/version", "/proc/filesystems",
                           "/proc/sys", "/sys/devices/system/cpu", "/sys/fs/cgroup"}) {
    add(file, kRead);
  }
  // The command's own tree, as found and as its links resolve.
  add(CommandTree(context.command_path, context.home), kRun);
  if (char* real = realpath(context.command_path.c_str(), nullptr); real != nullptr) {
    if (real != context.command_path) add(CommandTree(real, context.home), kRun);
    free(real);
  }
  // The directories of its PATH, where it finds the programs it starts.
  for (const std::string& dir : context.search_dirs) {
    if (dir.empty() || dir[0] != '/' || dir == "/" || Within(context.home, dir)) continue;
    add(dir, kRun);
  }
  // npm's and uv's caches, and npm's per-user settings.
  for (std::string& cache : PackageCaches(context.command_path, context.env, context.home)) {
    add(std::move(cache), kRun | kWrite);
  }
  if (const std::string_view name = Base(context.command_path); name == "npx" || name == "npm") {
    add(context.home + "/.npmrc", kRead);
  }
  return plan;
}

int ApplyConfinement(const ConfinePlan& plan, int* step, int* index) {
  *index = -1;
  *step = kConfineLimit;
  for (auto [resource, value] :
       {std::pair{RLIMIT_DATA, plan.memory_bytes}, std::pair{RLIMIT_NOFILE, plan.open_files},
        std::pair{RLIMIT_NPROC, plan.processes}}) {
    if (value == 0) continue;
    const rlimit limit{value, value};
    if (setrlimit(resource, &limit) != 0) return errno;
  }
  if (plan.landlock_abi == 0 && plan.filter.empty()) return 0;
  // Root keeps no capability through exec: none could widen what is confined.
  if (geteuid() == 0) {
    for (int cap = 0; cap < 64; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  }
  int ruleset = -1;
  if (plan.landlock_abi > 0) {
    const RulesetAttr attr{plan.handled_fs, plan.handled_net, plan.scoped};
    const size_t size = plan.landlock_abi >= 6   ? sizeof attr
                        : plan.landlock_abi >= 4 ? offsetof(RulesetAttr, scoped)
                                                 : offsetof(RulesetAttr, handled_access_net);
    *step = kConfineRuleset;
    ruleset = static_cast<int>(syscall(kCreateRuleset, &attr, size, 0));
    if (ruleset < 0) return errno;
    for (size_t i = 0; i < plan.rules.size(); ++i) {
      const ConfineRule& rule = plan.rules[i];
      *index = static_cast<int>(i);
      *step = kConfineOpen;
      const int fd = open(rule.path.c_str(), O_PATH | O_CLOEXEC);
      if (fd < 0) {
        if (!rule.required) continue;
        const int e = errno;
        close(ruleset);
        return e;
      }
      struct stat st {};
      uint64_t access = rule.access & plan.handled_fs;
      if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= kFileRights;
      int added = 0;
      if (access != 0) {
        const PathBeneathAttr beneath{access, fd};
        added = static_cast<int>(syscall(kAddRule, ruleset, kRulePathBeneath, &beneath, 0));
      }
      const int e = errno;
      close(fd);
      if (added != 0) {
        *step = kConfineRule;
        close(ruleset);
        return e;
      }
    }
    *index = -1;
    for (uint64_t port : plan.connect_ports) {
      const NetPortAttr net{kConnectTcp, port};
      if (syscall(kAddRule, ruleset, kRuleNetPort, &net, 0) != 0) {
        *step = kConfineRule;
        const int e = errno;
        close(ruleset);
        return e;
      }
    }
  }
  auto fail = [&](int s) {
    *step = s;
    const int e = errno;
    if (ruleset >= 0) close(ruleset);
    return e;
  };
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail(kConfineNoNewPrivs);
  if (!plan.filter.empty()) {
    sock_fprog program{static_cast<unsigned short>(plan.filter.size()),
                       reinterpret_cast<sock_filter*>(const_cast<FilterOp*>(plan.filter.data()))};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
      return fail(kConfineFilter);
    }
  }
  if (ruleset >= 0) {
    if (syscall(kRestrictSelf, ruleset, 0) != 0) return fail(kConfineRestrict);
    close(ruleset);
  }
  return 0;
}

}  // namespace mcpgw
