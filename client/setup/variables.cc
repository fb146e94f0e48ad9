#include "client/setup/variables.h"

#include <algorithm>

namespace mcpgw::setup {
namespace {

bool IsWordChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool IsName(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), IsWordChar);
}

// Hosts that read `${VAR}` as an environment variable. Cursor, VS Code and Windsurf write
// `${env:VAR}`, but a `${VAR}` in their files was meant the same way.
bool BracesAreVariables(Host host) { return host != Host::kCodex; }

void AddVariable(Rewritten& out, const std::string& name) {
  if (std::find(out.variables.begin(), out.variables.end(), name) == out.variables.end()) {
    out.variables.push_back(name);
  }
}

// One `${body}`: appends its rewrite to out.text.
void Braced(std::string_view body, const VariableContext& context, Rewritten& out) {
  const std::string whole = "${" + std::string(body) + "}";
  if (body == "userHome") {
    out.text += whole;
    return;
  }
  if (body.substr(0, 4) == "env:" && IsName(body.substr(4))) {
    out.text += whole;
    AddVariable(out, std::string(body.substr(4)));
    return;
  }
  if (body.substr(0, 6) == "input:" && context.host == Host::kVsCode) {
    const std::string id(body.substr(6));
    const std::string var = InputVariable(id);
    out.text += "${env:" + var + "}";
    AddVariable(out, var);
    std::string what = "VS Code asks for ${input:" + id + "}";
    if (context.inputs != nullptr) {
      auto it = context.inputs->find(id);
      if (it != context.inputs->end() && !it->second.empty()) what += " (\"" + it->second + "\")";
    }
    out.todo.push_back(what + ", which mcpgw cannot ask for: it reads ${env:" + var +
                       "} instead; put " + var +
                       "=<the value> in ~/.config/mcpgw/environment and restart the daemon "
                       "(systemctl --user restart mcpgwd)");
    return;
  }
  if (body == "workspaceFolder" || body == "workspaceRoot") {
    if (!context.project.empty()) {
      out.text += context.project;
      return;
    }
    out.text += whole;
    out.todo.push_back(whole + " names no folder outside a workspace: write the path instead");
    return;
  }
  if (BracesAreVariables(context.host)) {
    const size_t colon = body.find(":-");
    const std::string_view name = colon == std::string_view::npos ? body : body.substr(0, colon);
    if (IsName(name)) {
      out.text += "${env:" + std::string(name) + "}";
      AddVariable(out, std::string(name));
      if (name.size() != body.size()) {
        out.todo.push_back("the default of ${" + std::string(name) +
                           ":-...} is dropped (mcpgw has no defaults): " + std::string(name) +
                           " must be set for the daemon");
      }
      return;
    }
  }
  out.text += whole;
}

}  // namespace

std::string InputVariable(std::string_view id) {
  std::string var;
  for (char c : id) {
    if (c >= 'a' && c <= 'z') {
      var += static_cast<char>(c - 'a' + 'A');
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      var += c;
    } else {
      var += '_';
    }
  }
  if (var.empty() || (var[0] >= '0' && var[0] <= '9')) var = "INPUT_" + var;
  return var;
}

Rewritten RewriteVariables(std::string_view text, const VariableContext& context) {
  Rewritten out;
  if (context.host == Host::kCodex) {  // Codex expands nothing; its values are literal
    out.text = std::string(text);
    return out;
  }
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      out.text += text[i++];
      continue;
    }
    if (text.substr(i + 1, 1) == "{") {
      const size_t close = text.find('}', i + 2);
      if (close == std::string_view::npos) {
        out.text += text.substr(i);
        break;
      }
      Braced(text.substr(i + 2, close - i - 2), context, out);
      i = close + 1;
      continue;
    }
    // Gemini CLI's bare $VAR (a word of letters, digits and '_').
    size_t n = 0;
    while (i + 1 + n < text.size() && IsWordChar(text[i + 1 + n])) ++n;
    if (context.host == Host::kGemini && n > 0 && IsName(text.substr(i + 1, n))) {
      const std::string name(text.substr(i + 1, n));
      out.text += "${env:" + name + "}";
      AddVariable(out, name);
      i += 1 + n;
      continue;
    }
    out.text += text[i++];
  }
  return out;
}

}  // namespace mcpgw::setup
