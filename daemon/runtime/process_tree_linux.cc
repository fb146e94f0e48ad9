#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/runtime/process_tree.h"

namespace mcpgw {
namespace {

// The parent of `pid` from /proc/PID/stat (the field after the command's
// closing parenthesis, which may itself hold spaces and parentheses).
pid_t ParentOf(const std::string& pid) {
  FILE* f = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
  if (f == nullptr) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const std::string text(buf, n);
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  char state = 0;
  int ppid = 0;
  if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) != 2) return 0;
  return ppid;
}

uint64_t ResidentBytes(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/statm").c_str(), "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

ProcessTree ProcessTree::Read() {
  ProcessTree tree;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return tree;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    const pid_t parent = ParentOf(e->d_name);
    if (parent > 0) tree.children_[parent].push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(dir);
  return tree;
}

uint64_t ProcessTree::Rss(pid_t root) const {
  if (root <= 0) return 0;
  uint64_t total = 0;
  std::vector<pid_t> todo{root};
  for (size_t i = 0; i < todo.size() && i < 100000; ++i) {
    total += ResidentBytes(todo[i]);
    auto it = children_.find(todo[i]);
    if (it != children_.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
  }
  return total;
}

}  // namespace mcpgw
