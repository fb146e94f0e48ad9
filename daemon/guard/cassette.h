// Cassettes: a recorded session of calls, for replaying an agent's session
// with its servers gone (BEHAVIOR.md §14). `mcpgwd --record FILE` appends a
// JSON line per finished call (its request digest, namespace, tool, outcome
// kind, result text or error message, duration, time) and one per listing of
// a server (its tools as hosts saw them); `mcpgwd --replay FILE` loads the
// file into a Cassette, whose servers are ready from their last listing and
// whose calls are answered by digest, without a connection.
//
// Unlike the call log, a cassette holds results: it is the user's data, made
// 0600 and never shared. It holds no header values, tokens or environment
// values: listings and results are what servers sent, error messages are the
// gateway's scrubbed ones.
//
// The Gateway drives both on the main loop: CassetteWriter::Append after a
// call finishes or a listing changes, Cassette::Next for each replayed call.
// Loading is a pure function of the file's text (Cassette::Parse), so its
// rules are unit tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "daemon/mcp/tool_list.h"

namespace mcpgw {

// How a recorded call ended: the kinds a server's call can end in.
enum class RecordedKind { kOk, kBackend, kTransport };
std::string_view RecordedKindName(RecordedKind kind);  // "ok", "backend", "transport"

struct RecordedCall {
  RecordedKind kind = RecordedKind::kOk;
  std::string text;  // the result text (ok) or the error message
};

// One call line, as CassetteWriter writes it.
struct CallLine {
  std::chrono::system_clock::time_point time;
  std::string digest;  // the request digest (request_digest.h)
  std::string ns;
  std::string tool;
  RecordedCall outcome;
  uint64_t duration_ms = 0;
};

// The JSON lines a cassette holds, without their newlines.
std::string FormatHeaderLine();
std::string FormatCallLine(const CallLine& call);
std::string FormatListingLine(std::chrono::system_clock::time_point time, std::string_view ns,
                              const mcp::ToolList& tools);

// A cassette read back: the last listing of each server and the recorded
// outcomes of each digest, in the order they were recorded.
class Cassette {
 public:
  struct Loaded {
    std::unique_ptr<Cassette> cassette;
    std::string warning;  // set when the file was cut off mid-line
  };

  // Reads and parses `path`. A file that cannot be used is an error saying
  // why ("cassette FILE:LINE: ...").
  static base::Result<Loaded> Load(const std::string& path);
  // `text` is the file's content; `path` only labels messages. Every whole
  // line must be a line a writer writes; a last line without its newline is
  // a recording cut short (the daemon was killed while writing it): it is
  // left out, and `warning` says so.
  static base::Result<Loaded> Parse(std::string_view text, const std::string& path);

  // The tools of a server's last recorded listing, or null.
  std::shared_ptr<const mcp::ToolList> Listing(const std::string& ns) const;
  // Every namespace with a listing, in name order.
  std::vector<std::string> Namespaces() const;
  // The outcome recorded for `digest`: the first recording the first time,
  // the next one at each later call, the last one again once all were
  // given. nullopt when the digest was never recorded.
  std::optional<RecordedCall> Next(const std::string& digest);

  size_t calls() const { return call_lines_; }
  size_t digests() const { return calls_.size(); }
  size_t lines() const { return lines_; }

 private:
  struct Recordings {
    std::vector<RecordedCall> outcomes;
    size_t next = 0;
  };
  std::map<std::string, std::shared_ptr<const mcp::ToolList>> listings_;
  std::unordered_map<std::string, Recordings> calls_;
  size_t call_lines_ = 0;
  size_t lines_ = 0;
};

// Appends lines to a cassette file: made 0600 (an existing file is made
// 0600 too), a symbolic link or a file that is not regular refused. A file
// cut off mid-line is first cut back to its last whole line, so that what is
// appended stays readable.
class CassetteWriter {
 public:
  CassetteWriter() = default;
  ~CassetteWriter();
  CassetteWriter(const CassetteWriter&) = delete;
  CassetteWriter& operator=(const CassetteWriter&) = delete;

  // An error names the path. `notice` is set when a cut-off last line was
  // removed.
  base::Status Open(const std::string& path, std::string* notice = nullptr);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }
  // Writes `line` and a newline with one write. A failure is returned the
  // first time (and again only after a success in between); otherwise ok.
  base::Status Append(std::string_view line);

 private:
  std::string path_;
  int fd_ = -1;
  bool failing_ = false;
};

}  // namespace mcpgw
