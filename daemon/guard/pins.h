// Pinned tool definitions (BEHAVIOR.md §13). The first time the gateway sees
// a server (by its url), it pins every tool's definition — what the model
// reads of it: name, title, description, input schema, annotations — with the
// SHA-256 of its canonical JSON. A later listing is reviewed against the pins:
// a tool whose definition changed is withheld until the user approves it, so
// a server cannot rewrite an instruction the user already trusts.
//
// This file holds the pure parts (a definition's canonical form and digest,
// the review of a listing against a server's pins, the pin file's text),
// PinFiles, which reads and writes one file per server through an Env, and
// ServerPins, one server's pins as its host keeps them on the server's
// worker. What the main thread sees of them is a PinReport, immutable once
// made.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "config/settings.h"

namespace mcpgw {

class Env;
namespace mcp {
class ToolList;
}

// One tool's definition in its canonical form: compact JSON of
// {"annotations","description","inputSchema","name","title"} (absent ones
// left out), every object's members in byte order.
struct ToolDefinition {
  std::string name;
  std::string json;
  std::string sha256;  // lower-case hex of `json`
};

// Makes a definition from the tool's fields as the gateway keeps them:
// `input_schema_json` and `annotations_json` are JSON texts (an empty
// annotations text: none); `title` empty: none.
ToolDefinition MakeDefinition(std::string_view name, std::string_view title,
                              std::string_view description, std::string_view input_schema_json,
                              std::string_view annotations_json);

// One server's pins: its url (as shown, secrets redacted) and each tool's
// pinned definition by name. Pins outlive a tool's removal from the listing.
struct PinSet {
  std::string url;
  std::map<std::string, ToolDefinition, std::less<>> tools;
};

// How one listing fares against its server's pins.
struct PinReview {
  // Withheld from the hosts, by name in byte order: `changed` ones differ
  // from their pin; `unapproved` ones are new on a known server (strict).
  std::vector<std::string> changed;
  std::vector<std::string> unapproved;
  // The listing's definitions of the withheld tools, by name, for a diff and
  // for their approval.
  std::map<std::string, ToolDefinition, std::less<>> pending;
  // Tools pinned by this review (first sight, or new tools under block):
  // the set changed and must be written.
  std::vector<std::string> pinned;
};

// Reviews `listing` against `pins` and pins what it may (adding to `pins`).
// `known` is false at a server's first sight (no pin file): everything is
// pinned. With kOff nothing is pinned or withheld.
PinReview ReviewListing(PinSet& pins, bool known, const std::vector<ToolDefinition>& listing,
                        PinningMode mode);

// The pin file's text: one line per tool.
std::string FormatPinFile(const PinSet& pins);
// Reads a pin file's text. A file that is not what FormatPinFile writes, or
// whose digests do not match their definitions (edited, truncated), is an
// error saying what is wrong; it is never half trusted.
base::Result<PinSet> ParsePinFile(std::string_view text);

// The files under one folder ($XDG_STATE_HOME/mcpgw/pins, 0700), one per
// server url, 0600, replaced atomically.
class PinFiles {
 public:
  explicit PinFiles(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  // The file of the server at `url` (as shown): its host and a digest of the url.
  std::string PathFor(std::string_view url) const;

  // The server's pins; nullopt when it has no file (its first sight). A file
  // that is unreadable or corrupt is an error naming it: nothing of it is
  // trusted.
  base::Result<std::optional<PinSet>> Load(Env& env, std::string_view url) const;
  // Writes the set; an error names the file.
  base::Status Save(Env& env, const PinSet& pins) const;

 private:
  std::string dir_;
};

// $XDG_STATE_HOME/mcpgw/pins, else <home>/.local/state/mcpgw/pins.
std::string DefaultPinsDir(std::string_view xdg_state_home, std::string_view home);

// What the gateway shows of one server's pins (status, `mcpgw pins`,
// `mcpgw diff`) and which tools it withholds. Immutable once made.
struct PinReport {
  std::string url;   // as shown, secrets redacted
  std::string file;  // the pin file; "" when pinning is off
  PinningMode mode = PinningMode::kBlock;
  size_t pinned = 0;
  // Withheld tools by name: changed since pinned, or new and not approved.
  std::vector<std::string> changed;
  std::vector<std::string> unapproved;
  // Tools whose invisible characters were removed, by name.
  std::vector<std::string> hidden_text;
  // A withheld tool's pinned (empty when new) and listed definitions.
  struct Pending {
    std::string pinned_json;
    std::string listed_json;
  };
  std::map<std::string, Pending, std::less<>> pending;
  // The pin file could not be trusted or written.
  std::string error;

  bool Withholds(std::string_view tool) const { return pending.find(tool) != pending.end(); }
  size_t withheld() const { return changed.size() + unapproved.size(); }
};

// One tool in `mcpgw pins NAME`: its state against the server's pins.
struct PinnedTool {
  enum class State {
    kPinned,    // listed as pinned
    kChanged,   // listed, differs from its pin: withheld
    kNew,       // listed, not pinned, waiting for approval (strict, or a file not trusted)
    kRemoved,   // pinned, not in the latest listing (its pin is kept)
    kUnpinned,  // listed, pinning is off for the server
  };
  std::string name;
  State state = State::kPinned;
  bool hidden_text_removed = false;
};
std::string_view PinnedStateName(PinnedTool::State state);

// One server's pins, kept by its host on the server's worker. The pin file
// is the store: every review reads it, and only what the withheld tools
// need (their two definitions) is kept in memory between listings, so a
// thousand pinned servers cost their files, not a copy of every schema.
// Not thread-safe.
class ServerPins {
 public:
  // `name` labels messages; `url` (as shown) picks the file.
  ServerPins(PinFiles files, std::string name, std::string url, PinningMode mode);

  // Reviews a listing against the file (pinning what it may); what must be
  // said once (a change, a file that cannot be trusted or written) goes to
  // `warn`.
  void Review(Env& env, const mcp::ToolList& tools,
              const std::function<void(const std::string&)>& warn);
  // Approves withheld tools: `names`, or with `all` every one. A name that is
  // not withheld is an error (invalid_request, as the host sees it) and
  // approves nothing.
  struct Approval {
    std::vector<std::string> approved;
    std::string warning;  // approved, but the pins could not be saved
  };
  base::Result<Approval> Approve(Env& env, const std::vector<std::string>& names, bool all);
  // Every tool of the latest listing (`tools`, may be null) and every pinned
  // one, by name, with its state.
  std::vector<PinnedTool> Describe(Env& env, const mcp::ToolList* tools) const;
  // A new mode (settings reloaded); the next Review applies it.
  void SetMode(PinningMode mode) { mode_ = mode; }
  PinningMode mode() const { return mode_; }

  const PinReport& report() const { return *report_; }
  std::shared_ptr<const PinReport> shared_report() const { return report_; }

 private:
  // The file's pins (nullopt: no file yet); an unreadable or corrupt file
  // sets distrust_ (warned when it first happens) and pins nothing.
  std::optional<PinSet> Load(Env& env, const std::function<void(const std::string&)>& warn);
  // Ok, or why the pins could not be saved, as said to the user.
  base::Status Save(Env& env, const PinSet& pins);
  void WarnOnce(const std::vector<std::string>& tools, const char* what,
                const std::function<void(const std::string&)>& warn);
  // `pins`: the file's pins, for the withheld tools' pinned definitions.
  void MakeReport(const PinSet* pins);

  PinFiles files_;
  std::string name_;
  std::string url_;
  PinningMode mode_;
  std::string distrust_;    // why the pin file is not trusted: all wait for --all
  std::string save_error_;  // the last save's failure
  size_t pinned_ = 0;       // pins in the file as of the latest review
  PinReview review_;        // of the latest listing: the withheld tools
  std::vector<std::string> hidden_text_;
  std::map<std::string, std::string, std::less<>> warned_;  // withheld tool → digest logged
  std::shared_ptr<const PinReport> report_;
};

}  // namespace mcpgw
