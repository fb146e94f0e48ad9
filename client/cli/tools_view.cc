#include "client/cli/tools_view.h"

#include <algorithm>
#include <vector>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "client/cli/hints.h"
#include "client/cli/sanitize.h"

namespace mcpgw::cli {
namespace {

using rapidjson::Value;

constexpr size_t kMaxNameWidth = 32;
constexpr size_t kMaxTypeWidth = 16;
constexpr std::string_view kGap = "  ";

const Value* Member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string_view Raw(const Value* v) {
  return v != nullptr && v->IsString() ? std::string_view(v->GetString(), v->GetStringLength())
                                       : std::string_view();
}

// A string member, stripped; "" when absent or not a string.
std::string Text(const Value& object, const char* name) {
  return base::StripControls(Raw(Member(object, name)));
}

// The first line of a string member, stripped.
std::string FirstLine(const Value& object, const char* name) {
  std::string_view text = Raw(Member(object, name));
  return base::StripControls(text.substr(0, text.find('\n')));
}

// A table whose last column wraps under itself. Cells are already stripped.
class Table {
 public:
  explicit Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::string Render(size_t width) const {
    const size_t last = headers_.size() - 1;
    std::vector<size_t> widths(headers_.size());
    size_t indent = 0;
    for (size_t c = 0; c < last; ++c) {
      widths[c] = DisplayWidth(headers_[c]);
      for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
      indent += widths[c] + kGap.size();
    }
    const size_t room = width > indent + 8 ? width - indent : 0;
    std::string out = Line(headers_, widths, headers_[last]);
    for (const auto& row : rows_) {
      const std::vector<std::string> lines = Wrap(row[last], room);
      out += Line(row, widths, lines[0]);
      for (size_t i = 1; i < lines.size(); ++i) out += std::string(indent, ' ') + lines[i] + "\n";
    }
    return out;
  }

 private:
  static std::string Line(const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                          const std::string& last) {
    std::string line;
    for (size_t c = 0; c + 1 < cells.size(); ++c) {
      line += cells[c] + std::string(widths[c] - DisplayWidth(cells[c]), ' ') + std::string(kGap);
    }
    line += last;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  }

  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

std::string Count(size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

// {"servers":[{"namespace","status","reason"?,"tools":["name",...]}, ...]}
std::string Listing(const Value& servers, size_t width) {
  if (servers.Empty()) return "no servers configured\n";
  Table table({"NAMESPACE", "STATUS", "TOOLS"});
  for (const Value& server : servers.GetArray()) {
    std::string tools;
    size_t n = 0;
    if (const Value* list = Member(server, "tools"); list != nullptr && list->IsArray()) {
      for (const Value& tool : list->GetArray()) {
        if (!tool.IsString()) continue;
        tools += (n++ == 0 ? "" : ", ") + base::StripControls(Raw(&tool));
      }
    }
    const std::string reason = Text(server, "reason");
    std::string cell = n > 0 ? Count(n, "tool") + ": " + tools : reason.empty() ? "-" : reason;
    table.Add({Truncate(Text(server, "namespace"), kMaxNameWidth),
               Truncate(Text(server, "status"), kMaxNameWidth), cell});
  }
  return table.Render(width) + "\n\"mcpgw tools NAMESPACE\" lists a server's tools.\n";
}

// {"namespace","status","reason"?,"tools":[{"name","description","inputSchema"}, ...]}
std::string Namespace(const Value& answer, const Value& tools, size_t width) {
  const std::string ns = Text(answer, "namespace");
  std::string out = ns + ": " + Text(answer, "status");
  const std::string reason = Text(answer, "reason");
  if (!reason.empty()) out += ": " + reason;
  out += ", " + Count(tools.Size(), "tool") + "\n";
  if (tools.Empty()) return out;
  Table table({"TOOL", "DESCRIPTION"});
  for (const Value& tool : tools.GetArray()) {
    table.Add({Truncate(Text(tool, "name"), kMaxNameWidth), FirstLine(tool, "description")});
  }
  return out + "\n" + table.Render(width) + "\n\"mcpgw tools " + ShellQuote(ns) +
         " TOOL\" shows a tool's arguments.\n";
}

std::string TypeOf(const Value& schema) {
  const Value* type = Member(schema, "type");
  if (type != nullptr && type->IsString()) return base::StripControls(Raw(type));
  if (type != nullptr && type->IsArray()) {
    std::string out;
    for (const Value& t : type->GetArray()) {
      if (!t.IsString()) continue;
      if (!out.empty()) out += '|';
      out += base::StripControls(Raw(&t));
    }
    return out.empty() ? "-" : out;
  }
  if (Member(schema, "enum") != nullptr) return "enum";
  if (Member(schema, "anyOf") != nullptr || Member(schema, "oneOf") != nullptr) return "any of";
  return "-";
}

// {"namespace","tool":{"name","description","inputSchema":{"properties","required"}}}
std::string Tool(const Value& answer, const Value& tool, size_t width) {
  const std::string ns = Text(answer, "namespace");
  const std::string name = Text(tool, "name");
  std::string out = ns + " " + name + "\n";
  const std::string description =
      base::StripControls(Raw(Member(tool, "description")), {.keep_newlines = true});
  size_t start = 0;
  while (start < description.size()) {
    size_t end = std::min(description.find('\n', start), description.size());
    for (const std::string& line : Wrap(description.substr(start, end - start), width)) {
      out += line + "\n";
    }
    start = end + 1;
  }
  const Value* schema = Member(tool, "inputSchema");
  const Value* properties = schema != nullptr ? Member(*schema, "properties") : nullptr;
  if (properties != nullptr && !properties->IsObject()) properties = nullptr;
  std::vector<std::string> required;
  if (const Value* r = schema != nullptr ? Member(*schema, "required") : nullptr;
      r != nullptr && r->IsArray()) {
    for (const Value& key : r->GetArray()) {
      if (key.IsString()) required.emplace_back(Raw(&key));
    }
  }
  out += "\n";
  if (properties == nullptr || properties->MemberCount() == 0) {
    out += "no arguments\n";
  } else {
    Table table({"ARGUMENT", "TYPE", "REQUIRED", "DESCRIPTION"});
    for (const auto& p : properties->GetObject()) {
      const std::string key(p.name.GetString(), p.name.GetStringLength());
      const bool is_required = std::find(required.begin(), required.end(), key) != required.end();
      table.Add({Truncate(base::StripControls(key), kMaxNameWidth),
                 Truncate(TypeOf(p.value), kMaxTypeWidth), is_required ? "yes" : "no",
                 FirstLine(p.value, "description")});
    }
    out += table.Render(width);
  }
  return out + "\n\"mcpgw tools " + ShellQuote(ns) + " " + ShellQuote(name) +
         " --json\" prints the full input schema.\n";
}

// {"query","tools":[{"namespace","name","description","inputSchema"}, ...]}, best first.
std::string Ranked(const Value& answer, const Value& tools, size_t width) {
  const std::string query = "\"" + Text(answer, "query") + "\"";
  if (tools.Empty()) {
    return "no tool matches " + query + "\n\n\"mcpgw tools\" lists the servers and their status.\n";
  }
  std::string out = Count(tools.Size(), "tool") + " for " + query + ", best first\n\n";
  Table table({"#", "TOOL", "DESCRIPTION"});
  size_t rank = 0;
  for (const Value& tool : tools.GetArray()) {
    table.Add({std::to_string(++rank),
               Truncate(Text(tool, "namespace"), kMaxNameWidth) + "/" +
                   Truncate(Text(tool, "name"), kMaxNameWidth),
               FirstLine(tool, "description")});
  }
  const Value& best = tools[0];
  const std::string names =
      ShellQuote(Text(best, "namespace")) + " " + ShellQuote(Text(best, "name"));
  return out + table.Render(width) + "\n\"mcpgw tools " + names +
         "\" shows the best match's arguments;\n\"mcpgw call " + names +
         " ARGUMENTS_JSON\" calls it.\n";
}

}  // namespace

std::optional<std::string> RenderTools(std::string_view json, size_t width) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  if (const Value* servers = Member(doc, "servers"); servers != nullptr && servers->IsArray()) {
    return Listing(*servers, width);
  }
  if (const Value* query = Member(doc, "query"); query != nullptr && query->IsString()) {
    const Value* tools = Member(doc, "tools");
    if (tools == nullptr || !tools->IsArray()) return std::nullopt;
    for (const Value& tool : tools->GetArray()) {
      if (!tool.IsObject()) return std::nullopt;
    }
    return Ranked(doc, *tools, width);
  }
  if (const Value* tool = Member(doc, "tool"); tool != nullptr && tool->IsObject()) {
    return Tool(doc, *tool, width);
  }
  if (const Value* tools = Member(doc, "tools"); tools != nullptr && tools->IsArray()) {
    for (const Value& tool : tools->GetArray()) {
      if (!tool.IsObject()) return std::nullopt;
    }
    return Namespace(doc, *tools, width);
  }
  return std::nullopt;
}

}  // namespace mcpgw::cli
