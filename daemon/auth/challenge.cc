#include "daemon/auth/challenge.h"

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace mcpgw::auth {
namespace {

bool IsToken68Char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("-._~+/").find(c) != std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::vector<Challenge> Run() {
    std::vector<Challenge> out;
    while (true) {
      SkipSeparators();
      if (AtEnd()) break;
      std::string scheme = Token();
      if (scheme.empty()) {
        SkipPiece();  // not a challenge: skip to the next comma
        continue;
      }
      Challenge challenge;
      challenge.scheme = base::ToLowerAscii(scheme);
      ReadParams(challenge);
      out.push_back(std::move(challenge));
    }
    return out;
  }

 private:
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  void SkipSpaces() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) ++pos_;
  }
  void SkipSeparators() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == ',')) ++pos_;
  }
  void SkipPiece() {
    while (!AtEnd() && Peek() != ',') {
      if (Peek() == '"') {
        QuotedString();
      } else {
        ++pos_;
      }
    }
  }
  std::string Token() {
    const size_t start = pos_;
    while (!AtEnd() && base::IsTchar(Peek())) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  std::string QuotedString() {
    std::string out;
    ++pos_;  // the opening quote
    while (!AtEnd()) {
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c == '\\' && !AtEnd()) {
        out += s_[pos_++];
      } else {
        out += c;
      }
    }
    return out;  // unterminated: what there was
  }

  // After the scheme: a token68, or auth-params until the next challenge.
  void ReadParams(Challenge& challenge) {
    SkipSpaces();
    // token68: its characters, '='* padding, then a comma or the end.
    size_t p = pos_;
    while (p < s_.size() && IsToken68Char(s_[p])) ++p;
    size_t q = p;
    while (q < s_.size() && s_[q] == '=') ++q;
    size_t r = q;
    while (r < s_.size() && (s_[r] == ' ' || s_[r] == '\t')) ++r;
    if (p > pos_ && (r >= s_.size() || s_[r] == ',')) {
      challenge.token68 = std::string(s_.substr(pos_, q - pos_));
      pos_ = r;
      return;
    }
    while (true) {
      SkipSeparators();
      if (AtEnd()) return;
      const size_t name_start = pos_;
      std::string name = Token();
      if (name.empty()) {
        SkipPiece();
        continue;
      }
      SkipSpaces();
      if (Peek() != '=') {
        pos_ = name_start;  // a token without '=' starts the next challenge
        return;
      }
      ++pos_;
      SkipSpaces();
      std::string value;
      if (Peek() == '"') {
        value = QuotedString();
      } else {
        // A token by the grammar; servers also send bare values such as
        // scope=mcp:basic, read up to the next separator.
        const size_t start = pos_;
        while (!AtEnd() && Peek() != ',' && Peek() != ' ' && Peek() != '\t') ++pos_;
        value = std::string(s_.substr(start, pos_ - start));
      }
      challenge.params.emplace_back(base::ToLowerAscii(name), std::move(value));
      SkipSpaces();
      if (!AtEnd() && Peek() != ',') SkipPiece();
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<std::string> Challenge::Param(std::string_view name) const {
  for (const auto& [n, v] : params) {
    if (n == name) return v;
  }
  return std::nullopt;
}

std::vector<Challenge> ParseWwwAuthenticate(std::string_view header) {
  return Parser(header).Run();
}

BearerChallenge ParseBearerChallenge(std::string_view header) {
  BearerChallenge out;
  for (const Challenge& c : ParseWwwAuthenticate(header)) {
    if (c.scheme != "bearer") continue;
    out.present = true;
    out.resource_metadata = c.Param("resource_metadata").value_or("");
    out.scope = c.Param("scope").value_or("");
    out.error = c.Param("error").value_or("");
    out.error_description = c.Param("error_description").value_or("");
    break;
  }
  return out;
}

std::vector<std::string> SplitScopes(std::string_view scopes) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < scopes.size()) {
    while (i < scopes.size() && (scopes[i] == ' ' || scopes[i] == '\t')) ++i;
    const size_t start = i;
    while (i < scopes.size() && scopes[i] != ' ' && scopes[i] != '\t') ++i;
    if (i > start) {
      std::string scope(scopes.substr(start, i - start));
      if (std::find(out.begin(), out.end(), scope) == out.end()) out.push_back(std::move(scope));
    }
  }
  return out;
}

std::string UnionScopes(std::string_view a, std::string_view b) {
  std::vector<std::string> all = SplitScopes(a);
  for (std::string& s : SplitScopes(b)) {
    if (std::find(all.begin(), all.end(), s) == all.end()) all.push_back(std::move(s));
  }
  std::string out;
  for (const std::string& s : all) {
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

bool ScopesInclude(std::string_view held, std::string_view wanted) {
  const std::vector<std::string> have = SplitScopes(held);
  for (const std::string& s : SplitScopes(wanted)) {
    if (std::find(have.begin(), have.end(), s) == have.end()) return false;
  }
  return true;
}

}  // namespace mcpgw::auth
