// libFuzzer target for the host-file edits of client/setup/ (docs/SETUP.md): any text, taken
// as a JSONC host file and as Codex's config.toml, gets an entry added and removed. Besides
// not crashing, an edit that is made must leave a file that still parses (JSONC or TOML),
// and one that is refused must say why. Run alone with
//   build-fuzz/tests/fuzz/setup_fuzz -runs=200000 tests/fuzz/corpus/setup
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "client/setup/json_edit.h"
#include "client/setup/toml_edit.h"
#include "client/setup/variables.h"
#include "config/document.h"

namespace {

using Edit = mcpgw::base::Result<std::string>;

void ParsesAsJsonc(const std::string& text) {
  rapidjson::Document doc;
  if (!text.empty() && !mcpgw::config::ParseJsonDocument(text, "f", doc).ok()) std::abort();
}

void Json(std::string_view text) {
  rapidjson::Document entry;
  entry.Parse(R"({"command": "/usr/bin/mcpgw", "args": ["stdio"]})");
  const Edit added = mcpgw::setup::SetMember(text, {"mcpServers"}, "mcpgw", entry);
  if (!added.ok() && added.message().empty()) std::abort();
  if (!added.ok()) return;
  ParsesAsJsonc(*added);
  const Edit removed = mcpgw::setup::RemoveMember(*added, {"mcpServers"}, "mcpgw");
  if (!removed.ok() && removed.message().empty()) std::abort();
  if (removed.ok()) ParsesAsJsonc(*removed);
}

void Toml(std::string_view text) {
  const Edit added = mcpgw::setup::SetServerTable(
      text, "mcpgw",
      {{"command", mcpgw::setup::TomlString("/usr/bin/mcpgw")}, {"args", "[\"stdio\"]"}});
  if (!added.ok() && added.message().empty()) std::abort();
  if (!added.ok()) return;
  if (!mcpgw::setup::CheckToml(*added, "f").ok()) std::abort();
  const Edit removed = mcpgw::setup::RemoveServerTable(*added, "mcpgw");
  if (removed.ok() && !mcpgw::setup::CheckToml(*removed, "f").ok()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Json(text);
  Toml(text);
  for (mcpgw::setup::Host host : mcpgw::setup::AllHosts()) {
    (void)mcpgw::setup::RewriteVariables(text, {host, "/p", nullptr});
  }
  return 0;
}
