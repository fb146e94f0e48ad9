// A temporary HOME for the tests of client/setup/: files written under it by relative
// path, read back byte for byte, and a SetupEnv whose environment is a map the test fills
// (nothing of the real environment leaks in). Removed with everything in it.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "client/setup/hosts.h"

namespace mcpgw::setup::testing {

class TempHome {
 public:
  TempHome() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/mcpgw-setup-XXXXXX";
    if (mkdtemp(path_.data()) == nullptr) path_.clear();
  }
  ~TempHome() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempHome(const TempHome&) = delete;
  TempHome& operator=(const TempHome&) = delete;

  const std::string& path() const { return path_; }
  std::string At(const std::string& rel) const { return path_ + "/" + rel; }

  std::string Write(const std::string& rel, const std::string& text) const {
    const std::string file = At(rel);
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  void Folder(const std::string& rel) const { std::filesystem::create_directories(At(rel)); }
  std::string Read(const std::string& rel) const {
    std::ifstream in(At(rel), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool Exists(const std::string& rel) const { return access(At(rel).c_str(), F_OK) == 0; }
  // Files whose name holds `part`, under `rel`.
  int Count(const std::string& rel, const std::string& part) const {
    int n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(At(rel), ec)) {
      if (e.path().filename().string().find(part) != std::string::npos) ++n;
    }
    return n;
  }

  SetupEnv Env() const {
    SetupEnv env;
    env.home = path_;
    env.cwd = At("proj");
    const std::map<std::string, std::string>* vars = &vars_;
    env.get_env = [vars](std::string_view name) -> std::optional<std::string> {
      auto it = vars->find(std::string(name));
      if (it == vars->end()) return std::nullopt;
      return it->second;
    };
    return env;
  }
  std::map<std::string, std::string>& vars() { return vars_; }

 private:
  std::string path_;
  std::map<std::string, std::string> vars_;
};

}  // namespace mcpgw::setup::testing
