#include "daemon/mcp/tool_list.h"

#include <cassert>
#include <limits>

namespace mcpgw::mcp {

static_assert(std::random_access_iterator<ToolList::Iterator>);

namespace {

uint32_t Size32(size_t n) {
  // Every text is bounded far below this (ToolLimits); a list is never fed more.
  assert(n <= std::numeric_limits<uint32_t>::max());
  return static_cast<uint32_t>(n);
}

}  // namespace

Tool ToolList::View(const Entry& e) const {
  const char* p = text_.data() + e.offset;
  const std::string_view name(p, e.name_size);
  const size_t wire_at = size_t{e.name_size} + e.description_size + e.schema_size;
  const size_t title_at = wire_at + e.wire_name_size;
  const size_t annotations_at = title_at + e.title_size;
  return Tool{name,
              std::string_view(p + e.name_size, e.description_size),
              std::string_view(p + e.name_size + e.description_size, e.schema_size),
              (e.flags & kReadOnly) != 0,
              e.task_support,
              e.wire_name_size == 0 ? name : std::string_view(p + wire_at, e.wire_name_size),
              (e.flags & kHiddenRemoved) != 0,
              std::string_view(p + title_at, e.title_size),
              std::string_view(p + annotations_at, e.annotations_size),
              (e.flags & kUndescribed) == 0};
}

std::optional<Tool> ToolList::Find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [&](const Entry& e, std::string_view n) { return Name(e) < n; });
  if (it == entries_.end() || Name(*it) != name) return std::nullopt;
  return View(*it);
}

bool ToolList::operator==(const ToolList& other) const {
  return std::equal(begin(), end(), other.begin(), other.end());
}

void ToolList::Add(std::string_view name, std::string_view description,
                   std::string_view input_schema_json, bool read_only_hint,
                   TaskSupport task_support) {
  OpenTool(name, description).append(input_schema_json);
  CloseTool(read_only_hint, task_support);
}

std::string& ToolList::OpenTool(std::string_view name, std::string_view description) {
  open_offset_ = text_.size();
  open_name_size_ = Size32(name.size());
  open_description_size_ = Size32(description.size());
  text_.append(name);
  text_.append(description);
  return text_;
}

void ToolList::CloseTool(bool read_only_hint, TaskSupport task_support, const Extras& extras) {
  const size_t schema_start = open_offset_ + open_name_size_ + open_description_size_;
  assert(text_.size() >= schema_start);
  assert(extras.wire_name.size() <= std::numeric_limits<uint16_t>::max());
  assert(extras.title.size() <= std::numeric_limits<uint16_t>::max());
  const uint32_t schema_size = Size32(text_.size() - schema_start);
  text_.append(extras.wire_name);
  text_.append(extras.title);
  text_.append(extras.annotations_json);
  const uint8_t flags = static_cast<uint8_t>((read_only_hint ? kReadOnly : 0) |
                                             (extras.hidden_text_removed ? kHiddenRemoved : 0) |
                                             (extras.described ? 0 : kUndescribed));
  entries_.push_back(Entry{open_offset_, open_name_size_, open_description_size_, schema_size,
                           Size32(extras.annotations_json.size()), flags, task_support,
                           static_cast<uint16_t>(extras.wire_name.size()),
                           static_cast<uint16_t>(extras.title.size())});
}

void ToolList::SortByName() {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [&](const Entry& a, const Entry& b) { return Name(a) < Name(b); });
}

void ToolList::DropLaterDuplicates() {
  entries_.erase(std::unique(entries_.begin(), entries_.end(),
                             [&](const Entry& a, const Entry& b) { return Name(a) == Name(b); }),
                 entries_.end());
}

void ToolList::Shrink() {
  std::string packed;
  packed.reserve(TextBytes());
  for (Entry& e : entries_) {
    const size_t bytes = e.bytes();
    const size_t offset = packed.size();
    packed.append(text_, e.offset, bytes);
    e.offset = offset;
  }
  packed.shrink_to_fit();
  text_ = std::move(packed);
  entries_.shrink_to_fit();
  open_offset_ = text_.size();
  open_name_size_ = open_description_size_ = 0;
}

size_t ToolList::HeapBytes() const {
  return text_.capacity() + entries_.capacity() * sizeof(Entry);
}

size_t ToolList::TextBytes() const {
  size_t bytes = 0;
  for (const Entry& e : entries_) {
    bytes += e.bytes();
  }
  return bytes;
}

}  // namespace mcpgw::mcp
