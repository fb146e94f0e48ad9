#include "client/setup/toml_edit.h"

#include <optional>
#include <sstream>

#include <toml++/toml.h>

namespace mcpgw::setup {
namespace {

// ---- the lines of the text ---------------------------------------------------------------

struct Line {
  size_t begin = 0;
  size_t end = 0;                 // past its line break
  bool in_string = false;         // starts inside a multi-line string
  std::vector<std::string> keys;  // a table header's keys, or a key/value line's key path
  bool header = false;
  bool content = false;  // neither blank nor only a comment
};

bool IsBare(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

void SkipSpace(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// A dotted key at s[i...], e.g. mcp_servers."my server".env; stops at what follows it.
std::vector<std::string> KeyPath(std::string_view s, size_t& i) {
  std::vector<std::string> keys;
  for (;;) {
    SkipSpace(s, i);
    std::string key;
    if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
      const char q = s[i++];
      while (i < s.size() && s[i] != q) {
        if (q == '"' && s[i] == '\\' && i + 1 < s.size()) {
          const char e = s[++i];
          key += e == 'n' ? '\n' : e == 't' ? '\t' : e;  // names with \u escapes are rare
        } else {
          key += s[i];
        }
        ++i;
      }
      if (i >= s.size()) return {};
      ++i;
    } else {
      while (i < s.size() && IsBare(s[i])) key += s[i++];
      if (key.empty()) return {};
    }
    keys.push_back(std::move(key));
    SkipSpace(s, i);
    if (i < s.size() && s[i] == '.') {
      ++i;
      continue;
    }
    return keys;
  }
}

// The lines, each with whether it starts inside a multi-line string, so a `[` at the start
// of a line inside """...""" is never taken for a header.
std::vector<Line> Lines(std::string_view text) {
  std::vector<Line> lines;
  std::string_view open;  // the delimiter of the multi-line string we are in
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string_view s = text.substr(pos, end - pos);
    Line line{pos, end, !open.empty(), {}, false, false};
    size_t i = 0;
    if (open.empty()) {
      SkipSpace(s, i);
      line.content = i < s.size() && s[i] != '#' && s[i] != '\n' && s[i] != '\r';
      if (line.content && s[i] == '[') {
        size_t k = i + (s.substr(i, 2) == "[[" ? 2 : 1);
        line.keys = KeyPath(s, k);
        line.header = true;
      } else if (line.content) {
        size_t k = i;
        line.keys = KeyPath(s, k);
      }
    }
    // Follow strings to the end of the line, to know whether one stays open.
    while (i < s.size()) {
      if (!open.empty()) {
        const size_t close = s.find(open, i);
        if (close == std::string_view::npos) break;
        i = close + 3;
        open = {};
        continue;
      }
      const char c = s[i];
      if (c == '#') break;
      if (s.substr(i, 3) == "\"\"\"" || s.substr(i, 3) == "'''") {
        open = s.substr(i, 3) == "\"\"\"" ? std::string_view("\"\"\"") : std::string_view("'''");
        i += 3;
      } else if (c == '"' || c == '\'') {
        ++i;
        while (i < s.size() && s[i] != c && s[i] != '\n') i += (c == '"' && s[i] == '\\') ? 2 : 1;
        ++i;
      } else {
        ++i;
      }
    }
    lines.push_back(std::move(line));
    pos = end;
  }
  return lines;
}

bool Names(const std::vector<std::string>& keys, std::string_view name) {
  return keys.size() >= 2 && keys[0] == "mcp_servers" && keys[1] == name;
}

// ---- the check ---------------------------------------------------------------------------

std::optional<toml::table> Parse(std::string_view text) {
  try {
    return toml::parse(text);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
}

// The document with server `name` taken out (and an emptied mcp_servers with it, which the
// text may or may not still name).
void Without(toml::table& doc, std::string_view name) {
  if (toml::table* servers = doc["mcp_servers"].as_table()) {
    servers->erase(name);
    if (servers->empty()) doc.erase("mcp_servers");
  }
}

base::Status Refused(std::string error) { return base::InvalidInput(std::move(error)); }

std::string Newline(std::string_view text) {
  return text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
}

std::string TomlKey(std::string_view name) {
  bool bare = !name.empty();
  for (char c : name) bare = bare && IsBare(c);
  return bare ? std::string(name) : TomlString(name);
}

}  // namespace

base::Status CheckToml(std::string_view text, std::string_view path) {
  try {
    (void)toml::parse(text, path);
    return base::Status();
  } catch (const toml::parse_error& e) {
    std::ostringstream out;
    out << path << ":" << e.source().begin.line << ":" << e.source().begin.column
        << ": invalid TOML: " << e.description();
    return base::InvalidInput(out.str());
  }
}

std::string TomlString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

base::Result<std::string> RemoveServerTable(std::string_view text, std::string_view name) {
  std::optional<toml::table> before = Parse(text);
  if (!before) return Refused("the file is not valid TOML");
  const std::vector<Line> lines = Lines(text);
  std::vector<bool> cut(lines.size(), false);
  std::vector<std::string> table;  // the keys of the current table header
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (line.in_string) continue;
    if (line.header) {
      table = line.keys;
      if (!Names(table, name)) continue;
      // The table's lines: up to its last content line and the blank lines after it;
      // comments just above the next table stay with that table.
      size_t last = i;
      size_t j = i + 1;
      for (; j < lines.size() && !(lines[j].header && !lines[j].in_string); ++j) {
        if (lines[j].content || lines[j].in_string) last = j;
      }
      size_t stop = last + 1;
      while (stop < j && !lines[stop].content &&
             text.substr(lines[stop].begin, lines[stop].end - lines[stop].begin).find('#') ==
                 std::string_view::npos) {
        ++stop;
      }
      for (size_t k = i; k < stop; ++k) cut[k] = true;
      continue;
    }
    // `NAME = {...}` or `NAME.url = ...` under [mcp_servers], or `mcp_servers.NAME...` at the top.
    std::vector<std::string> full = table;
    full.insert(full.end(), line.keys.begin(), line.keys.end());
    if (line.content && !line.keys.empty() && Names(full, name)) cut[i] = true;
  }
  // A table cut from the end of the file takes the blank lines before it along, as
  // SetServerTable put one there.
  size_t keep = lines.size();
  while (keep > 0 && cut[keep - 1]) --keep;
  if (keep < lines.size()) {
    while (
        keep > 0 && !lines[keep - 1].content && !lines[keep - 1].in_string &&
        text.substr(lines[keep - 1].begin, lines[keep - 1].end - lines[keep - 1].begin).find('#') ==
            std::string_view::npos) {
      cut[--keep] = true;
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!cut[i]) out += text.substr(lines[i].begin, lines[i].end - lines[i].begin);
  }
  std::optional<toml::table> after = Parse(out);
  if (!after || (*after)["mcp_servers"][name]) {
    return Refused("mcpgw could not remove the server without breaking the file");
  }
  Without(*before, name);
  Without(*after, name);
  if (!(*after == *before)) {
    return Refused("mcpgw could not remove the server without changing something else");
  }
  return out;
}

base::Result<std::string> SetServerTable(
    std::string_view text, std::string_view name,
    const std::vector<std::pair<std::string, std::string>>& keys) {
  base::Result<std::string> removed = RemoveServerTable(text, name);
  if (!removed.ok()) return removed;
  const std::string nl = Newline(text);
  std::string out = *std::move(removed);
  if (!out.empty() && out.back() != '\n') out += nl;
  if (!out.empty() &&
      out.substr(out.size() >= 2 * nl.size() ? out.size() - 2 * nl.size() : 0) != nl + nl) {
    out += nl;
  }
  std::string body = "[mcp_servers." + TomlKey(name) + "]" + nl;
  for (const auto& [key, value] : keys) body += TomlKey(key) + " = " + value + nl;
  out += body;
  // The new document is the old one without NAME, plus exactly the new table.
  std::optional<toml::table> before = Parse(text);
  std::optional<toml::table> after = Parse(out);
  std::optional<toml::table> table = Parse(body);
  if (!before || !after || !table) {
    return Refused("mcpgw could not add the server to this file without breaking it");
  }
  const toml::table* added = (*after)["mcp_servers"][name].as_table();
  const toml::table* wanted = (*table)["mcp_servers"][name].as_table();
  const bool same = added != nullptr && wanted != nullptr && *added == *wanted;
  Without(*before, name);
  Without(*after, name);
  if (!same || !(*after == *before)) {
    return Refused("mcpgw could not add the server to this file without changing something else");
  }
  return out;
}

}  // namespace mcpgw::setup
