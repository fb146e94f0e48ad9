// `mcpgw hosts [list] | add HOST | remove HOST` (docs/SETUP.md, docs/CLI.md): each host
// found and whether it runs mcpgw; registering `mcpgw stdio` in a host's user file, or
// taking it out, as a minimal edit with a backup and an atomic write. A host that is not
// installed (its folder is missing) is never given a file. Returns the exit code: 0 when
// the host is as asked (registered, or not), 1 when its file could not be used or written
// (named, and left alone).
#pragma once

#include <iosfwd>
#include <string>

#include "client/setup/hosts.h"

namespace mcpgw::setup {

int RunHostsList(const SetupEnv& env, std::ostream& out);
int RunHostsAdd(Host host, const std::string& mcpgw_path, const SetupEnv& env, std::ostream& out);
int RunHostsRemove(Host host, const SetupEnv& env, std::ostream& out);

}  // namespace mcpgw::setup
