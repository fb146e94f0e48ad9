#include "config/check.h"

#include "config/display.h"

namespace mcpgw::config {
namespace {

std::string Count(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string EntryLine(const Entry& entry) {
  std::string line = DisplayName(entry.name) + ": ";
  if (entry.local) {
    line += "accepted (local: " + entry.local->shown + ", " +
            Count(entry.local->env.size(), "environment variable");
    if (const auto& c = entry.local->confine) {
      line += ", confined: read " + Count(c->read.size(), "path") + ", write " +
              Count(c->write.size(), "path") + ", network " +
              (c->network == ConfineNetwork::kNone  ? std::string("none")
               : c->network == ConfineNetwork::kAll ? std::string("all")
                                                    : Count(c->connect.size(), "port"));
    }
    line += ")";
  } else if (entry.accepted()) {
    line += "accepted (" + entry.remote->url_redacted + ", " +
            Count(entry.remote->headers.size(), "header") + ")";
  } else {
    line += "refused: " + entry.refusal;
  }
  line += "\n";
  for (const Note& note : entry.notes) line += "  note: " + note.text + "\n";
  return line;
}

}  // namespace

std::string FormatCheckReport(const ParseResult& result, std::string_view path) {
  if (!result.ok()) {
    return std::string(path) + ": unusable configuration\n" + result.message() + "\n";
  }
  const Config& config = *result;
  size_t accepted = 0;
  for (const Entry& entry : config.entries) accepted += entry.accepted() ? 1 : 0;
  const size_t total = config.entries.size();
  std::string report = std::string(path) + ": " + Count(total, "server") + ": " +
                       std::to_string(accepted) + " accepted, " + std::to_string(total - accepted) +
                       " refused\n";
  for (const Note& note : config.notes) report += "note: " + note.text + "\n";
  for (const Entry& entry : config.entries) report += EntryLine(entry);
  return report;
}

int CheckExitCode(const ParseResult& result) { return result.ok() ? 0 : 1; }

}  // namespace mcpgw::config
