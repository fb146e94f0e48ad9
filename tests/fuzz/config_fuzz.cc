// libFuzzer target for the mcp.json parser. Built with the other targets
// (tests/fuzz/CMakeLists.txt, configure line in run.sh); run alone with
//   build-fuzz/tests/fuzz/config_fuzz -runs=200000 tests/fuzz/corpus/config
// (inputs it discovers land beside the seeds and are git-ignored there).
// Besides not crashing, every parse must keep the config invariants: no value
// from the environment in any printable string, accepted entries obey every
// url and header rule (remote) or command rule (local), refused entries have
// a reason.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/text.h"
#include "base/url.h"
#include "config/check.h"
#include "config/config.h"
#include "config/headers.h"

namespace {

using mcpgw::config::Entry;
using mcpgw::config::ParseEnv;
using mcpgw::config::ParseResult;

// Values the fake environment hands out; each must stay out of every output
// unless the input itself contains it. The last one holds a reference that
// must not be expanded again; its tail keeps it apart from the advice text
// the parser legitimately prints ("write ${env:TOKEN}").
constexpr std::string_view kEnvValues[] = {"fz-secret-Q7x", "fz secret\r\nX: 1", "ex.com",
                                           "${env:TOKEN}#nz"};

ParseEnv FakeEnv() {
  ParseEnv env;
  env.get_env = [](std::string_view name) -> std::optional<std::string> {
    if (name == "TOKEN") return std::string(kEnvValues[0]);
    if (name == "CRLF") return std::string(kEnvValues[1]);
    if (name == "HOST") return std::string(kEnvValues[2]);
    if (name == "NESTED") return std::string(kEnvValues[3]);
    return std::nullopt;
  };
  env.home = "/home/fz";
  // Paths under the home and /tmp exist; nothing else does.
  env.path_exists = [](const std::string& path) {
    return path.rfind("/home/fz", 0) == 0 || path.rfind("/tmp", 0) == 0;
  };
  return env;
}

void Require(bool condition) {
  if (!condition) std::abort();
}

void CheckNoLeak(std::string_view input, std::string_view output) {
  for (std::string_view value : kEnvValues) {
    if (input.find(value) != std::string_view::npos) continue;
    Require(output.find(value) == std::string_view::npos);
  }
}

// A local entry (BEHAVIOR.md §17): one of the two, a command that can be
// run, environment names a process can hold, an absolute cwd or none, and
// what is shown of it free of environment values.
void CheckLocal(std::string_view input, const Entry& entry) {
  const auto& local = *entry.local;
  Require(!entry.remote.has_value());
  Require(entry.names_command);
  Require(!local.command.empty());
  Require(local.command.find('\0') == std::string::npos);
  for (const std::string& arg : local.args) Require(arg.find('\0') == std::string::npos);
  for (const auto& var : local.env) {
    Require(!var.name.empty() && var.name.find('=') == std::string::npos);
    Require(var.value.Reveal().find('\0') == std::string::npos);
  }
  Require(local.cwd.empty() || local.cwd[0] == '/');
  CheckNoLeak(input, local.shown);
  // Its confinement (BEHAVIOR.md §18): absolute paths that exist, ports in
  // range, nothing of the environment in what status shows of them.
  if (local.confine) {
    Require(!local.unconfined);
    for (const auto* paths : {&local.confine->read, &local.confine->write}) {
      for (const auto& p : *paths) {
        Require(!p.path.empty() && p.path[0] == '/' && p.path.find('\0') == std::string::npos);
        Require(p.path.rfind("/home/fz", 0) == 0 || p.path.rfind("/tmp", 0) == 0);
        CheckNoLeak(input, p.shown);
      }
    }
    for (const auto& e : local.confine->connect) {
      Require(e.port >= 1 && e.port <= 65535 && !e.host.empty());
      CheckNoLeak(input, e.text);
    }
    Require(local.confine->network == mcpgw::config::ConfineNetwork::kPorts ||
            local.confine->connect.empty());
  }
  Require(local.limits.memory_mb <= (uint64_t{1} << 24) &&
          local.limits.open_files <= (uint64_t{1} << 20) &&
          local.limits.processes <= (uint64_t{1} << 22));
}

void CheckEntry(std::string_view input, const Entry& entry) {
  Require(entry.accepted() == entry.refusal.empty());
  CheckNoLeak(input, entry.refusal);
  if (!entry.accepted()) return;
  if (entry.local) return CheckLocal(input, entry);
  CheckNoLeak(input, entry.remote->url_redacted);
  Require(mcpgw::base::ParseUrl(entry.remote->url.Reveal()).has_value());
  for (size_t i = 0; i < entry.remote->headers.size(); ++i) {
    const auto& header = entry.remote->headers[i];
    Require(mcpgw::base::IsHttpToken(header.name));
    Require(!mcpgw::config::IsClientOwnedHeader(header.name));
    Require(!mcpgw::config::HasForbiddenHeaderByte(header.value.Reveal()));
    for (size_t j = 0; j < i; ++j) {
      Require(!mcpgw::base::EqualsIgnoreCase(header.name, entry.remote->headers[j].name));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  ParseResult result = mcpgw::config::Parse(input, "fuzz.json", FakeEnv());
  Require(result.ok() == result.message().empty());
  CheckNoLeak(input, result.message());
  CheckNoLeak(input, mcpgw::config::FormatCheckReport(result, "fuzz.json"));
  Require(mcpgw::config::CheckExitCode(result) == (result.ok() ? 0 : 1));
  if (!result.ok()) return 0;
  for (const Entry& entry : result->entries) CheckEntry(input, entry);
  for (const auto& secret : result->secrets) Require(!secret.empty());
  return 0;
}
