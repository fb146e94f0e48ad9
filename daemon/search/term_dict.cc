#include "daemon/search/term_dict.h"

#include <cassert>

namespace mcpgw::search {

uint32_t TermDict::Hash(std::string_view text) {
  // FNV-1a: terms are short, and the table only needs them spread.
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

size_t TermDict::Slot(std::string_view text, uint32_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t id = slots_[i];
    if (id == kEmpty) return i;
    if (entries_[id].hash == hash && Text(id) == text) return i;
  }
}

uint32_t TermDict::Find(std::string_view text) const {
  if (size_ == 0) return kNone;
  const uint32_t id = slots_[Slot(text, Hash(text))];
  return id == kEmpty ? kNone : id;
}

uint32_t TermDict::Add(std::string_view text) {
  // At most 3/4 full after this term.
  if ((size_ + 1) * 4 > slots_.size() * 3) Grow();
  const uint32_t hash = Hash(text);
  const size_t slot = Slot(text, hash);
  if (slots_[slot] != kEmpty) return slots_[slot];
  uint32_t id;
  if (!free_ids_.empty()) {
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  entries_[id] =
      Entry{static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(text.size()), hash};
  text_.append(text);
  slots_[slot] = id;
  ++size_;
  return id;
}

void TermDict::Remove(uint32_t id) {
  assert(id < entries_.size() && entries_[id].length != kFree);
  const size_t mask = slots_.size() - 1;
  size_t hole = Slot(Text(id), entries_[id].hash);
  // Backward-shift deletion: the ids after the hole that probed past it
  // move back, so a lookup never stops early at an empty slot.
  for (size_t i = (hole + 1) & mask; slots_[i] != kEmpty; i = (i + 1) & mask) {
    const size_t home = entries_[slots_[i]].hash & mask;
    // Move the id at i into the hole unless its home lies in (hole, i].
    const bool stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i);
    if (stays) continue;
    slots_[hole] = slots_[i];
    hole = i;
  }
  slots_[hole] = kEmpty;
  dead_bytes_ += entries_[id].length;
  entries_[id] = Entry{0, kFree, 0};
  free_ids_.push_back(id);
  --size_;
  if (size_ == 0) {
    Clear();
  } else if (dead_bytes_ > 4096 && dead_bytes_ * 2 > text_.size()) {
    Compact();
  }
}

void TermDict::Clear() {
  // Swapped with empty ones: assigning {} would keep the capacity.
  std::string().swap(text_);
  dead_bytes_ = 0;
  std::vector<Entry>().swap(entries_);
  std::vector<uint32_t>().swap(free_ids_);
  std::vector<uint32_t>().swap(slots_);
  size_ = 0;
}

void TermDict::Grow() {
  std::vector<uint32_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, kEmpty);
  const size_t mask = slots_.size() - 1;
  for (uint32_t id : old) {
    if (id == kEmpty) continue;
    size_t i = entries_[id].hash & mask;
    while (slots_[i] != kEmpty) i = (i + 1) & mask;
    slots_[i] = id;
  }
}

void TermDict::Compact() {
  std::string text;
  text.reserve(text_.size() - dead_bytes_);
  for (Entry& e : entries_) {
    if (e.length == kFree) continue;
    const uint32_t offset = static_cast<uint32_t>(text.size());
    text.append(text_, e.offset, e.length);
    e.offset = offset;
  }
  text_ = std::move(text);
  dead_bytes_ = 0;
}

size_t TermDict::MemoryBytes() const {
  // A short string's text lies within it (no heap block).
  const size_t text = text_.capacity() > std::string().capacity() ? text_.capacity() : 0;
  return text + entries_.capacity() * sizeof(Entry) +
         (free_ids_.capacity() + slots_.capacity()) * sizeof(uint32_t);
}

}  // namespace mcpgw::search
