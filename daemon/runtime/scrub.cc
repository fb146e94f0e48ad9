#include "daemon/runtime/scrub.h"

#include <algorithm>
#include <unordered_set>

namespace mcpgw {
namespace {

constexpr std::string_view kRedacted = Secret::kRedacted;

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// JavaScript's encodeURIComponent also keeps these.
bool KeptByJavaScript(unsigned char c) {
  return c == '!' || c == '\'' || c == '(' || c == ')' || c == '*';
}

struct Encoding {
  const char* hex;
  bool plus_for_space;
  bool javascript;
};

std::string PercentEncode(std::string_view value, const Encoding& e) {
  std::string out;
  out.reserve(value.size() * 3);
  for (unsigned char c : value) {
    if (Unreserved(c) || (e.javascript && KeptByJavaScript(c))) {
      out += static_cast<char>(c);
    } else if (c == ' ' && e.plus_for_space) {
      out += '+';
    } else {
      out += '%';
      out += e.hex[c >> 4];
      out += e.hex[c & 15];
    }
  }
  return out;
}

// "Bearer abc" → "abc"; values without one inner space give "".
std::string_view Credential(std::string_view value) {
  size_t space = value.find(' ');
  if (space == std::string_view::npos || space == 0) return {};
  std::string_view rest = value.substr(space + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.find(' ') != std::string_view::npos) return {};
  return rest;
}

}  // namespace

Scrubber::Scrubber(const std::vector<Secret>& secrets) : sources_(secrets), nodes_(1) {
  static constexpr Encoding kEncodings[] = {
      {"0123456789ABCDEF", false, false},
      {"0123456789abcdef", false, false},
      {"0123456789ABCDEF", true, false},
      {"0123456789ABCDEF", false, true},
  };
  pairs_.assign(65536 / 64, 0);
  for (const Secret& secret : secrets) {
    const std::string& value = secret.Reveal();
    std::string_view forms[] = {value, Credential(value)};
    for (std::string_view form : forms) {
      if (form.size() < kMinSecretBytes) continue;
      Add(form);
      for (const Encoding& e : kEncodings) Add(PercentEncode(form, e));
    }
  }
}

std::shared_ptr<const Scrubber> Scrubber::Extend(const std::shared_ptr<const Scrubber>& previous,
                                                 const std::vector<Secret>& secrets) {
  std::vector<Secret> all;
  std::unordered_set<std::string> seen;
  auto keep = [&](const Secret& s) {
    if (seen.insert(s.Reveal()).second) all.push_back(s);
  };
  if (previous) {
    for (const Secret& s : previous->sources_) keep(s);
  }
  for (const Secret& s : secrets) keep(s);
  return std::make_shared<const Scrubber>(all);
}

void Scrubber::Add(std::string_view pattern) {
  uint32_t node = 0;
  for (unsigned char c : pattern) {
    auto& edges = nodes_[node].edges;
    auto it = std::lower_bound(edges.begin(), edges.end(), c,
                               [](const auto& edge, unsigned char b) { return edge.first < b; });
    if (it != edges.end() && it->first == c) {
      node = it->second;
      continue;
    }
    auto next = static_cast<uint32_t>(nodes_.size());
    edges.insert(it, {c, next});
    nodes_.emplace_back();  // invalidates `edges`; not used again
    node = next;
  }
  if (!nodes_[node].end) patterns_++;
  nodes_[node].end = true;
  unsigned pair =
      static_cast<unsigned char>(pattern[0]) << 8 | static_cast<unsigned char>(pattern[1]);
  pairs_[pair >> 6] |= uint64_t{1} << (pair & 63);
}

size_t Scrubber::MatchAt(std::string_view text, size_t pos) const {
  size_t longest = 0;
  uint32_t node = 0;
  size_t i = pos;
  for (; i < text.size(); i++) {
    const auto& edges = nodes_[node].edges;
    auto c = static_cast<unsigned char>(text[i]);
    auto it = std::lower_bound(edges.begin(), edges.end(), c,
                               [](const auto& edge, unsigned char b) { return edge.first < b; });
    if (it == edges.end() || it->first != c) break;
    node = it->second;
    if (nodes_[node].end) longest = i - pos + 1;
  }
  // A secret cut short: text truncated in the middle of one (a server's
  // message bounded to so many bytes) ends there or goes on with an ellipsis.
  size_t depth = i - pos;
  if (depth > longest && depth >= kMinSecretBytes) {
    std::string_view rest = text.substr(i);
    if (rest.empty() || rest.starts_with("...") || rest.starts_with("\xE2\x80\xA6")) return depth;
  }
  return longest;
}

size_t Scrubber::Find(std::string_view text, size_t pos, size_t* len) const {
  if (patterns_ == 0 || text.size() < kMinSecretBytes) return std::string_view::npos;
  const auto* data = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t end = text.size() - 1; pos < end; pos++) {
    unsigned pair = data[pos] << 8 | data[pos + 1];
    if (!(pairs_[pair >> 6] & (uint64_t{1} << (pair & 63)))) continue;
    if (size_t n = MatchAt(text, pos)) {
      *len = n;
      return pos;
    }
  }
  return std::string_view::npos;
}

bool Scrubber::Matches(std::string_view text) const {
  size_t len = 0;
  return Find(text, 0, &len) != std::string_view::npos;
}

bool Scrubber::ScrubInPlace(std::string& text) const {
  size_t len = 0;
  size_t at = Find(text, 0, &len);
  if (at == std::string_view::npos) return false;
  std::string out;
  out.reserve(text.size());
  size_t done = 0;
  while (at != std::string_view::npos) {
    out.append(text, done, at - done);
    out += kRedacted;
    done = at + len;
    at = Find(text, done, &len);
  }
  out.append(text, done, std::string::npos);
  text = std::move(out);
  return true;
}

std::string Scrubber::Scrub(std::string_view text) const {
  std::string out(text);
  ScrubInPlace(out);
  return out;
}

}  // namespace mcpgw
