#include "client/cli/hints.h"

#include <optional>

#include <rapidjson/document.h>

namespace mcpgw::cli {
namespace {

constexpr std::string_view kTool = "get_dynamic_tools with ";
constexpr std::string_view kCall = "call ";
constexpr std::string_view kNoArguments = "no arguments";

bool IsShellSafe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

std::optional<std::string> StringMember(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

// The command for the arguments at the start of `rest`, and how many bytes they take;
// nullopt when they are not arguments this rewrite understands.
std::optional<std::string> Command(std::string_view rest, size_t* used) {
  if (rest.substr(0, kNoArguments.size()) == kNoArguments) {
    *used = kNoArguments.size();
    return "mcpgw tools";
  }
  if (rest.empty() || rest.front() != '{') return std::nullopt;
  // The arguments are one flat object: its first '}' outside a string ends it.
  bool in_string = false;
  size_t end = std::string_view::npos;
  for (size_t i = 1; i < rest.size() && end == std::string_view::npos; ++i) {
    const char c = rest[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '}') {
      end = i;
    }
  }
  if (end == std::string_view::npos) return std::nullopt;
  rapidjson::Document doc;
  doc.Parse(rest.data(), end + 1);
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  *used = end + 1;
  std::string command = "mcpgw tools";
  if (const auto ns = StringMember(doc, "namespace")) {
    command += " " + ShellQuote(*ns);
    if (const auto tool = StringMember(doc, "toolName")) command += " " + ShellQuote(*tool);
  }
  if (const auto query = StringMember(doc, "query")) {
    command += " --query " + ShellQuote(*query);
    if (const auto it = doc.FindMember("limit"); it != doc.MemberEnd() && it->value.IsInt()) {
      command += " --limit " + std::to_string(it->value.GetInt());
    }
  }
  return command;
}

}  // namespace

std::string ShellQuote(std::string_view word) {
  bool safe = !word.empty();
  for (char c : word) safe = safe && IsShellSafe(c);
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string PersonHints(std::string_view message) {
  std::string out;
  size_t pos = 0;
  while (pos < message.size()) {
    const size_t at = message.find(kTool, pos);
    if (at == std::string_view::npos) break;
    size_t used = 0;
    const auto command = Command(message.substr(at + kTool.size()), &used);
    if (!command) {
      out.append(message.substr(pos, at + kTool.size() - pos));
      pos = at + kTool.size();
      continue;
    }
    const bool call =
        at >= pos + kCall.size() && message.substr(at - kCall.size(), kCall.size()) == kCall;
    const size_t start = call ? at - kCall.size() : at;
    out.append(message.substr(pos, start - pos));
    out += call ? "run \"" + *command + "\"" : "\"" + *command + "\"";
    pos = at + kTool.size() + used;
  }
  out.append(message.substr(pos));
  return out;
}

}  // namespace mcpgw::cli
