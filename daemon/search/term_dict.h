// TermDict: the search index's dictionary, each term's text kept once and
// numbered. Texts lie back to back in one buffer; a term is its offset and
// length there and its hash, and an open-addressing table (linear probing)
// holds the ids. A term costs its text plus about 20 bytes, where a hash map
// of strings costs a node, a string and often a heap block per term.
//
// Ids are small and dense: a removed term's id is given to the next new
// term, so arrays indexed by id (the index's postings, its counts) stay as
// long as the most terms ever held at once. The text of removed terms is
// dropped when it is most of the buffer (ids do not change). Single-threaded.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::search {

class TermDict {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // The id of `text`, or kNone.
  uint32_t Find(std::string_view text) const;
  // The id of `text`, added when new (with a removed term's id when there
  // is one, else ids() as it was).
  uint32_t Add(std::string_view text);
  // Forgets the term `id` (which must be held); its id may come back for
  // another term.
  void Remove(uint32_t id);
  void Clear();

  // The text of held term `id`: valid until the next Add or Remove.
  std::string_view Text(uint32_t id) const {
    return std::string_view(text_.data() + entries_[id].offset, entries_[id].length);
  }
  size_t size() const { return size_; }  // terms held
  // One past the highest id given: arrays by id need this many entries.
  size_t ids() const { return entries_.size(); }
  // Heap bytes.
  size_t MemoryBytes() const;

 private:
  struct Entry {
    uint32_t offset;
    uint32_t length;  // kFree: the id is free
    uint32_t hash;
  };
  static constexpr uint32_t kFree = std::numeric_limits<uint32_t>::max();
  static constexpr uint32_t kEmpty = std::numeric_limits<uint32_t>::max();  // a slot with no id

  static uint32_t Hash(std::string_view text);
  // The slot holding `text` (hash `hash`), or the empty slot it would go in.
  size_t Slot(std::string_view text, uint32_t hash) const;
  void Grow();
  void Compact();

  std::string text_;
  size_t dead_bytes_ = 0;  // text of removed terms still in text_
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_ids_;
  std::vector<uint32_t> slots_;  // ids; kEmpty; size a power of two
  size_t size_ = 0;
};

}  // namespace mcpgw::search
