// docs/SETTINGS.md documents every key of the settings table
// (config/settings_table.h) and no other, each with the table's default and,
// for a whole number, its range.
//
// How the doc is read: a table whose header row starts with "| key |" lists
// keys, one a row, named in its first cell as `name`. A row names a key of the
// top level when the heading above the table names it too (`workers`,
// `pinning`); otherwise it names a key of the object the heading names first
// (`limits`: `max_json_depth` is limits.max_json_depth).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "config/settings_table.h"
#include "config/settings_test_values.h"
#include "test_paths.h"  // MCPGW_SOURCE_DIR and the built programs' paths

namespace mcpgw {
namespace {

std::string ReadSettingsDoc() {
  // __FILE__ may be relative (a compiler cache rewrites paths), so the build
  // names the source tree.
  std::ifstream in(std::filesystem::path(MCPGW_SOURCE_DIR) / "docs" / "SETTINGS.md");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(' ');
  if (begin == std::string_view::npos) return "";
  return std::string(s.substr(begin, s.find_last_not_of(' ') - begin + 1));
}

// "| a | `b` |" -> {"a", "`b`"}.
std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  size_t start = row.find('|') + 1;
  for (size_t bar; (bar = row.find('|', start)) != std::string::npos; start = bar + 1) {
    cells.push_back(Trimmed(std::string_view(row).substr(start, bar - start)));
  }
  return cells;
}

// The `names` in backquotes of a line: "## `pinning` and `pinning_exempt`".
std::vector<std::string> Quoted(const std::string& line) {
  std::vector<std::string> names;
  for (size_t open = line.find('`'); open != std::string::npos;) {
    const size_t close = line.find('`', open + 1);
    if (close == std::string::npos) break;
    names.push_back(line.substr(open + 1, close - open - 1));
    open = line.find('`', close + 1);
  }
  return names;
}

std::string Unquoted(std::string cell) {
  cell.erase(std::remove(cell.begin(), cell.end(), '`'), cell.end());
  return cell;
}

// One end of a documented range: 1024, 2^30, 32 MiB.
std::optional<uint64_t> RangeEnd(const std::string& text) {
  auto number = [](const std::string& digits) -> std::optional<uint64_t> {
    if (digits.empty() || digits.size() > 19) return std::nullopt;
    if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoull(digits);
  };
  const std::string t = Trimmed(text);
  if (t.rfind("2^", 0) == 0) {
    const std::optional<uint64_t> power = number(t.substr(2));
    if (!power || *power > 63) return std::nullopt;
    return uint64_t{1} << *power;
  }
  if (t.size() > 4 && t.substr(t.size() - 4) == " MiB") {
    const std::optional<uint64_t> mib = number(t.substr(0, t.size() - 4));
    if (!mib) return std::nullopt;
    return *mib << 20;
  }
  return number(t);
}

struct DocumentedKey {
  std::string path;
  std::string default_cell;  // "" when the table has no default column
  std::string range_cell;    // "" when the table has no range column
};

// The keys `doc` documents; what cannot be read as a key goes to `problems`.
std::vector<DocumentedKey> DocumentedKeys(const std::string& doc,
                                          std::vector<std::string>* problems) {
  std::vector<DocumentedKey> keys;
  std::vector<std::string> heading;  // the names the last heading quotes
  std::vector<std::string> header;   // the columns of the key table being read
  bool fenced = false;               // in a ``` block, where no line is a heading or a row
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced) continue;
    if (line.rfind('#', 0) == 0) heading = Quoted(line);
    if (line.rfind('|', 0) != 0) {
      header.clear();
      continue;
    }
    const std::vector<std::string> cells = Cells(line);
    if (cells.empty()) continue;
    if (cells[0] == "key") {
      header = cells;
      continue;
    }
    if (header.empty() || cells[0].rfind("---", 0) == 0) continue;
    const std::vector<std::string> name = Quoted(cells[0]);
    if (name.size() != 1 || cells[0] != "`" + name[0] + "`" || heading.empty()) {
      problems->push_back("a key table's row names no `key`, or no heading names its object: " +
                          line);
      continue;
    }
    DocumentedKey key;
    const bool top_level = std::find(heading.begin(), heading.end(), name[0]) != heading.end();
    key.path = top_level ? name[0] : heading[0] + "." + name[0];
    for (size_t i = 1; i < header.size() && i < cells.size(); ++i) {
      if (header[i] == "default") key.default_cell = Unquoted(cells[i]);
      if (header[i] == "range") key.range_cell = cells[i];
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

// What a documented key says that its row in the table does not.
void CheckAgainstTable(const DocumentedKey& doc, const SettingKey& key,
                       std::vector<std::string>* problems) {
  const std::string standard = testing::AsJson(key, key.field.get(Settings{}));
  // "16777216 (16 MiB)": the default, then what it means.
  if (doc.default_cell != standard && doc.default_cell.rfind(standard + " ", 0) != 0) {
    problems->push_back(doc.path + ": documented default \"" + doc.default_cell +
                        "\", the table's is " + standard);
  }
  if (key.rule.type != SettingType::kWhole) return;
  // "1024 – 2^30", with an en dash.
  const std::string dash = " \u2013 ";
  const size_t at = doc.range_cell.find(dash);
  const std::optional<uint64_t> min =
      at == std::string::npos ? std::nullopt : RangeEnd(doc.range_cell.substr(0, at));
  const std::optional<uint64_t> max =
      at == std::string::npos ? std::nullopt : RangeEnd(doc.range_cell.substr(at + dash.size()));
  if (min != key.rule.min || max != key.rule.max) {
    problems->push_back(doc.path + ": documented range \"" + doc.range_cell +
                        "\", the table's is " + std::to_string(key.rule.min) + " to " +
                        std::to_string(key.rule.max));
  }
}

// Every way `doc` and the table disagree; empty when they agree.
std::vector<std::string> Disagreements(const std::string& doc) {
  std::vector<std::string> problems;
  const std::vector<DocumentedKey> documented = DocumentedKeys(doc, &problems);
  const std::span<const SettingKey> table = SettingKeys();
  for (const DocumentedKey& key : documented) {
    const auto times = std::count_if(documented.begin(), documented.end(),
                                     [&](const DocumentedKey& k) { return k.path == key.path; });
    if (times > 1)
      problems.push_back(key.path + ": documented " + std::to_string(times) + " times");
    const auto row = std::find_if(table.begin(), table.end(),
                                  [&](const SettingKey& k) { return k.path == key.path; });
    if (row == table.end()) {
      problems.push_back(key.path + ": documented, but the settings have no such key");
    } else {
      CheckAgainstTable(key, *row, &problems);
    }
  }
  for (const SettingKey& key : table) {
    if (std::none_of(documented.begin(), documented.end(),
                     [&](const DocumentedKey& k) { return k.path == key.path; })) {
      problems.push_back(std::string(key.path) + ": a key of the settings, not documented");
    }
  }
  return problems;
}

// `doc` without the line that holds `text`.
std::string WithoutLine(const std::string& doc, const std::string& text) {
  const size_t at = doc.find(text);
  REQUIRE(at != std::string::npos);
  const size_t begin = doc.rfind('\n', at) + 1;
  return doc.substr(0, begin) + doc.substr(doc.find('\n', at) + 1);
}

std::string Replaced(std::string doc, const std::string& from, const std::string& to) {
  const size_t at = doc.find(from);
  REQUIRE(at != std::string::npos);
  return doc.replace(at, from.size(), to);
}

TEST_CASE("SETTINGS.md documents every key of the table, and no other", "[settings][doc]") {
  const std::string doc = ReadSettingsDoc();
  REQUIRE(!doc.empty());
  std::vector<std::string> ignored;
  CHECK(DocumentedKeys(doc, &ignored).size() == SettingKeys().size());
  for (const std::string& problem : Disagreements(doc)) FAIL_CHECK(problem);
}

TEST_CASE("the doc check finds a key missing, one too many, a wrong default or range",
          "[settings][doc]") {
  const std::string doc = ReadSettingsDoc();
  using Catch::VectorContains;
  CHECK_THAT(Disagreements(WithoutLine(doc, "| `max_json_depth` |")),
             VectorContains(std::string("limits.max_json_depth: a key of the settings, not "
                                        "documented")));
  CHECK_THAT(Disagreements(WithoutLine(doc, "| `workers` |")),
             VectorContains(std::string("workers: a key of the settings, not documented")));
  CHECK_THAT(Disagreements(WithoutLine(doc, "| `pinning_exempt` |")),
             VectorContains(std::string("pinning_exempt: a key of the settings, not documented")));
  CHECK_THAT(Disagreements(Replaced(doc, "| `max_json_depth` |", "| `max_json_dept` |")),
             VectorContains(std::string("limits.max_json_dept: documented, but the settings have "
                                        "no such key")));
  const std::string row = "| `ca_dir` |";
  CHECK_THAT(Disagreements(Replaced(doc, row, "| `ca_path` | x |\n" + row)),
             VectorContains(std::string("tls.ca_path: documented, but the settings have no such "
                                        "key")));
  CHECK_THAT(Disagreements(Replaced(doc, "| `keep` | 3 |", "| `keep` | 30 |")),
             VectorContains(std::string("call_log.keep: documented default \"30\", the table's "
                                        "is 3")));
  CHECK_THAT(Disagreements(Replaced(doc, "| 1 \u2013 86400 |", "| 1 \u2013 3600 |")),
             VectorContains(std::string("limits.call_timeout_s: documented range \"1 \u2013 "
                                        "3600\", the table's is 1 to 86400")));
  const std::vector<std::string> unquoted =
      Disagreements(Replaced(doc, "| `max_frame_bytes` |", "| max_frame_bytes |"));
  CHECK_THAT(unquoted, VectorContains(std::string("ipc.max_frame_bytes: a key of the settings, "
                                                  "not documented")));
  CHECK(std::any_of(unquoted.begin(), unquoted.end(), [](const std::string& problem) {
    return problem.rfind("a key table's row names no `key`", 0) == 0 &&
           problem.find("| max_frame_bytes |") != std::string::npos;
  }));
}

}  // namespace
}  // namespace mcpgw
