// ToolList: the tools one upstream server listed, kept by the gateway for as
// long as the server is configured. AppendToolsPage (convert.h) builds it
// page by page, the session sorts, deduplicates and shrinks it once and then
// publishes it behind a shared_ptr to const; the Catalog and the Policy read
// it through Tool views. Immutable once published, so any thread may read it.
//
// Why this shape (memory at scale): a daemon may hold a thousand servers of a
// hundred tools each. All of one list's text — every tool's name,
// description and compact schema JSON — lives in ONE buffer, and each tool
// is a fixed 32-byte entry (where its text starts, the sizes of its texts,
// the read-only hint and the task support). A list costs two allocations whatever its length, not
// two heap strings and a 104-byte record per tool.
//
// A Tool is a view into its list: valid while that list lives and is not
// changed. Copies and moves of a list are safe (entries hold offsets, not
// pointers); a Tool must not outlive the list it came from.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpgw::mcp {

// How a tool may be called (execution.taskSupport, revision 2025-11-25):
// absent or any other value is forbidden; a required tool is called as a
// task (BEHAVIOR.md §12), the others as plain calls.
enum class TaskSupport : uint8_t { kForbidden, kOptional, kRequired };

// One tool as the server listed it. Strings are untrusted server text.
struct Tool {
  std::string_view name;
  std::string_view description;        // description, else title, else name (BEHAVIOR §4)
  std::string_view input_schema_json;  // compact JSON object text ({"type":"object"} if absent)
  bool read_only_hint = false;         // annotations.readOnlyHint === true (untrusted)
  TaskSupport task_support = TaskSupport::kForbidden;  // execution.taskSupport (untrusted)
  // The name the server knows the tool by: `name` unless invisible characters
  // were removed from it (BEHAVIOR.md §4); calls go out with this one.
  std::string_view wire_name;
  // Invisible characters were removed from its name, description or schema.
  bool hidden_text_removed = false;
  // What its pinned definition holds beyond the above (BEHAVIOR.md §13):
  // the title ("" when none), the annotations as compact JSON with members
  // in byte order ("" when none), and whether `description` is the server's
  // own (false: the fallback of BEHAVIOR §4 filled it in).
  std::string_view title = {};
  std::string_view annotations_json = {};
  bool described = true;

  bool operator==(const Tool&) const = default;
};

// What CloseTool takes beyond the hints. `wire_name`: the server's own
// name when it differs from the name given to OpenTool (at most 65535
// bytes); `title` at most 65535 bytes; the rest as Tool has them.
struct ToolExtras {
  std::string_view wire_name;
  bool hidden_text_removed = false;
  std::string_view title = {};
  std::string_view annotations_json = {};
  bool described = true;
};

// A server's tools: sorted by name (byte order), names unique, once the
// session has called SortByName, DropLaterDuplicates and Shrink.
class ToolList {
  struct Entry;

 public:
  // Random access over the tools, yielding each Tool by value.
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = Tool;
    using difference_type = std::ptrdiff_t;
    using reference = Tool;
    using pointer = void;

    Iterator() = default;
    Tool operator*() const { return (*list_)[index_]; }
    Tool operator[](difference_type n) const { return (*list_)[index_ + n]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) { return Iterator(list_, index_++); }
    Iterator& operator--() {
      --index_;
      return *this;
    }
    Iterator operator--(int) { return Iterator(list_, index_--); }
    Iterator& operator+=(difference_type n) {
      index_ += n;
      return *this;
    }
    Iterator& operator-=(difference_type n) {
      index_ -= n;
      return *this;
    }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.index_) - static_cast<difference_type>(b.index_);
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }
    auto operator<=>(const Iterator& other) const { return index_ <=> other.index_; }

   private:
    friend class ToolList;
    Iterator(const ToolList* list, size_t index) : list_(list), index_(index) {}
    const ToolList* list_ = nullptr;
    size_t index_ = 0;
  };

  // What one tool costs beyond its text.
  static constexpr size_t kEntryBytes = 32;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  Tool operator[](size_t i) const { return View(entries_[i]); }
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, entries_.size()); }

  // The tool called `name`, by binary search (the list must be sorted).
  std::optional<Tool> Find(std::string_view name) const;

  // Same tools, same order, every field equal.
  bool operator==(const ToolList& other) const;

  // Appends a tool with copies of the given texts.
  void Add(std::string_view name, std::string_view description, std::string_view input_schema_json,
           bool read_only_hint, TaskSupport task_support = TaskSupport::kForbidden);

  // Appending a tool whose schema is serialised in place: OpenTool appends
  // the name and description and returns the text buffer; the caller
  // appends the schema's text to it (and may cut it back to the size it had
  // on return, never below); CloseTool takes what was appended as the schema.
  std::string& OpenTool(std::string_view name, std::string_view description);
  using Extras = ToolExtras;
  void CloseTool(bool read_only_hint, TaskSupport task_support = TaskSupport::kForbidden,
                 const Extras& extras = {});

  // Stable sort by name (byte order): equal names keep their listed order.
  void SortByName();
  // After SortByName: keeps the first tool of each name.
  void DropLaterDuplicates();
  // Removes the tools `pred` holds true for; their text stays until Shrink.
  template <typename Pred>
  void RemoveIf(Pred pred) {
    entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                  [&](const Entry& e) { return pred(View(e)); }),
                   entries_.end());
  }
  // Rewrites the text in list order without the text of removed tools and
  // gives back all spare capacity: a kept list holds exactly its tools.
  void Shrink();

  // Heap bytes the list holds (its text buffer and its entries).
  size_t HeapBytes() const;
  // Bytes of text the current tools use (name + description + schema each).
  size_t TextBytes() const;

 private:
  // The texts back to back from `offset`: name, description, schema, wire
  // name (when it differs), title, annotations.
  struct Entry {
    uint64_t offset;
    uint32_t name_size;
    uint32_t description_size;
    uint32_t schema_size;
    uint32_t annotations_size;
    uint8_t flags;  // kReadOnly, kHiddenRemoved, kUndescribed
    TaskSupport task_support;
    uint16_t wire_name_size;  // 0: the wire name is the name
    uint16_t title_size;

    size_t bytes() const {
      return size_t{name_size} + description_size + schema_size + wire_name_size + title_size +
             annotations_size;
    }
  };
  static constexpr uint8_t kReadOnly = 1;
  static constexpr uint8_t kHiddenRemoved = 2;
  static constexpr uint8_t kUndescribed = 4;
  static_assert(sizeof(Entry) == kEntryBytes);

  std::string_view Name(const Entry& e) const {
    return std::string_view(text_.data() + e.offset, e.name_size);
  }
  Tool View(const Entry& e) const;

  std::string text_;
  std::vector<Entry> entries_;
  size_t open_offset_ = 0;  // where the tool being appended starts
  uint32_t open_name_size_ = 0;
  uint32_t open_description_size_ = 0;
};

}  // namespace mcpgw::mcp
