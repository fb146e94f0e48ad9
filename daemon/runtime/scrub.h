// Scrubber: the second line of defence for secrets (BEHAVIOR.md §8). Built from a
// configuration's secret values, it replaces every occurrence of one of them
// (and of its URL-encoded forms) in an outgoing string by "<redacted>". The
// daemon builds one per configuration and swaps it in on reload; the logger
// and the Gateway each hold an immutable snapshot, so any thread may scrub.
//
// What is matched, for each secret value V of at least kMinSecretBytes bytes:
//   - V itself;
//   - V percent-encoded as in a url query string (RFC 3986 unreserved bytes
//     kept, every other byte %XX), with upper- and lower-case hex, and with
//     a space as '+' (form encoding);
//   - for a value of the form "<scheme> <credential>" (e.g. "Bearer abc…"),
//     the credential alone, when it is at least kMinSecretBytes long;
//   - a start of any of these, at least kMinSecretBytes long, that ends the
//     text or is followed by "..." or "…": what is left of a secret when a
//     bounded message was cut inside it.
// Shorter values are not matched: redacting every "a" or "on" would make logs
// unreadable while protecting nothing a Secret-typed value does not already.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/secret.h"

namespace mcpgw {

class Scrubber {
 public:
  static constexpr size_t kMinSecretBytes = 4;

  Scrubber() = default;  // matches nothing
  explicit Scrubber(const std::vector<Secret>& secrets);
  Scrubber(const Scrubber&) = delete;
  Scrubber& operator=(const Scrubber&) = delete;

  // A snapshot covering the secrets of `previous` (may be null) and `secrets`.
  // A secret that left the configuration stays redacted for the life of the
  // process: a retiring session may still log it, and it may still be valid.
  static std::shared_ptr<const Scrubber> Extend(const std::shared_ptr<const Scrubber>& previous,
                                                const std::vector<Secret>& secrets);

  // `text` with every match replaced by "<redacted>" (longest match first,
  // left to right).
  std::string Scrub(std::string_view text) const;
  // In place; returns whether anything was replaced. No allocation when
  // nothing matches.
  bool ScrubInPlace(std::string& text) const;
  // Whether `text` holds a match.
  bool Matches(std::string_view text) const;

  bool empty() const { return patterns_ == 0; }
  size_t patterns() const { return patterns_; }

 private:
  void Add(std::string_view pattern);
  // The length of the longest pattern matching at `text[pos]`, or 0.
  size_t MatchAt(std::string_view text, size_t pos) const;
  // The position of the first match at or after `pos` (its length in *len),
  // or npos.
  size_t Find(std::string_view text, size_t pos, size_t* len) const;

  // A trie of the patterns. Node 0 is the root; a node's edges are sorted
  // by byte. `end` marks the last byte of a pattern.
  struct Node {
    std::vector<std::pair<unsigned char, uint32_t>> edges;
    bool end = false;
  };

  std::vector<Secret> sources_;  // what it was built from, for Extend
  size_t patterns_ = 0;
  std::vector<Node> nodes_;
  // Bit (b0 << 8 | b1) set when some pattern starts with bytes b0 b1: most
  // positions of a text are passed over with one lookup.
  std::vector<uint64_t> pairs_;
};

}  // namespace mcpgw
