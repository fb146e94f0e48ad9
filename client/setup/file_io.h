// Reading and rewriting another program's file safely, for `mcpgw import` and `mcpgw hosts`
// (docs/SETUP.md): a file is read once with what identifies that version of it; it is
// rewritten only if it still holds exactly what was read (a host that saved it meanwhile is
// never clobbered), after a backup copy, through a temporary file in the same folder renamed
// over it (readers see the old or the new text, never half of one), keeping its mode. A file
// the user made read-only (no write bit) is left alone even for root.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/status.h"

namespace mcpgw::setup {

struct FileText {
  enum class State { kRead, kMissing };
  State state = State::kMissing;
  std::string path;        // as asked
  std::string text;        // when kRead
  bool read_only = false;  // no write permission bit is set: never rewritten
  mode_t mode = 0600;

  bool exists() const { return state == State::kRead; }
};

// Reads `path` (at most 64 MiB, like an mcp.json). A missing file is kMissing; one that
// cannot be read is an error naming it.
base::Result<FileText> ReadText(const std::string& path);

// Replaces `before` (as ReadText returned it; kMissing creates the file, mode 0600, in an
// existing folder) with `text`. Fails without writing when the file changed since it was
// read, is read-only, or any step fails; the original is then untouched, and the error says
// why, naming the file. `stamp` names the backup: PATH.mcpgw-backup-STAMP. Returns the
// backup's path, "" when the file was new.
base::Result<std::string> ReplaceText(const FileText& before, const std::string& text,
                                      const std::string& stamp);

// The stamp for this run's backups: the local time as YYYYMMDD-HHMMSS.
std::string BackupStamp();

// True when `path` is an existing directory.
bool IsDirectory(const std::string& path);

}  // namespace mcpgw::setup
