#include "config/host_forms.h"

namespace mcpgw::config {
namespace {

bool IsAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

// Length of the identifier ([A-Za-z_][A-Za-z0-9_]*) at the start of `s`; 0 if none.
size_t IdentifierLength(std::string_view s) {
  if (s.empty() || !(IsAlpha(s[0]) || s[0] == '_')) return 0;
  size_t n = 1;
  while (n < s.size() && (IsAlpha(s[n]) || IsDigit(s[n]) || s[n] == '_')) ++n;
  return n;
}

// Length of an environment-style name ([A-Z_][A-Z0-9_]*) at the start of `s`.
size_t EnvNameLength(std::string_view s) {
  if (s.empty() || !(IsUpper(s[0]) || s[0] == '_')) return 0;
  size_t n = 1;
  while (n < s.size() && (IsUpper(s[n]) || IsDigit(s[n]) || s[n] == '_')) ++n;
  return n;
}

bool IsIdentifier(std::string_view s) { return !s.empty() && IdentifierLength(s) == s.size(); }

// An input id is shown when it is made of harmless characters only.
bool IsPlainId(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    if (!IsAlpha(c) && !IsDigit(c) && c != '_' && c != '-' && c != '.') return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != prefix[i]) return false;
  }
  return true;
}

// VS Code's predefined variables about the editor's workspace.
bool IsWorkspaceVariable(std::string_view name) {
  for (std::string_view v : {"workspaceFolder", "workspaceFolderBasename", "workspaceRoot",
                             "fileWorkspaceFolder", "cwd"}) {
    if (name == v) return true;
  }
  return false;
}

std::string EnvAdvice(std::string_view name) { return "write ${env:" + std::string(name) + "}"; }

// The form for the body of one `${body}`; false when it is mcpgw's own form
// or not one of the shapes other hosts use.
bool BracedForm(std::string_view body, HostForm& out) {
  if (body == "userHome" || body.substr(0, 4) == "env:") return false;
  if (StartsWithIgnoreCase(body, "env:")) {
    std::string_view name = body.substr(4);
    if (!IsIdentifier(name)) return false;
    out.shown = "${" + std::string(body) + "}";
    out.advice = EnvAdvice(name) + " (the prefix is lower case)";
    return true;
  }
  if (body.substr(0, 6) == "input:") {
    std::string_view id = body.substr(6);
    out.shown = IsPlainId(id) ? "${input:" + std::string(id) + "}" : "${input:...}";
    out.advice =
        "mcpgw cannot prompt for inputs; put the value in an environment variable and write "
        "${env:NAME}";
    return true;
  }
  if (IsWorkspaceVariable(body)) {
    out.shown = "${" + std::string(body) + "}";
    out.advice = "mcpgw has no workspace; write the path (${userHome} is the home directory)";
    return true;
  }
  if (IsIdentifier(body)) {
    out.shown = "${" + std::string(body) + "}";
    out.advice = EnvAdvice(body);
    return true;
  }
  // ${NAME:-default}, ${NAME-default}, ${NAME:=default}, ${NAME=default}: the
  // default is never shown (it may be a literal secret).
  size_t n = IdentifierLength(body);
  if (n == 0) return false;
  std::string_view rest = body.substr(n);
  for (std::string_view op : {":-", ":=", "-", "="}) {
    if (rest.substr(0, op.size()) == op) {
      out.shown = "${" + std::string(body.substr(0, n)) + std::string(op) + "...}";
      out.advice = EnvAdvice(body.substr(0, n)) + " (mcpgw has no defaults)";
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<HostForm> FindHostForms(std::string_view text) {
  std::vector<HostForm> forms;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$') {
      ++i;
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      size_t close = text.find('}', i + 2);
      if (close == std::string_view::npos) break;  // an unterminated `${`
      HostForm form;
      if (BracedForm(text.substr(i + 2, close - i - 2), form)) forms.push_back(std::move(form));
      i = close + 1;
      continue;
    }
    const bool word_start = i == 0 || !(IsAlpha(text[i - 1]) || IsDigit(text[i - 1]));
    size_t n = word_start ? EnvNameLength(text.substr(i + 1)) : 0;
    if (n > 0) {
      std::string_view name = text.substr(i + 1, n);
      forms.push_back(HostForm{"$" + std::string(name), EnvAdvice(name)});
      i += 1 + n;
      continue;
    }
    ++i;
  }
  return forms;
}

}  // namespace mcpgw::config
