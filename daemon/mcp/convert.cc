#include "daemon/mcp/convert.h"

#include <algorithm>
#include <string_view>

#include "base/bounded_json.h"
#include "base/clean_text.h"
#include "base/utf8.h"

namespace mcpgw::mcp {
namespace {

// Server-chosen words placed inside a placeholder ("[<type> omitted]",
// "<mimeType>") are cut to this many bytes, so a placeholder stays short.
constexpr size_t kMaxLabelBytes = 256;
constexpr std::string_view kUnknown = "unknown";
constexpr std::string_view kDefaultSchema = R"({"type":"object"})";
// A pinned title and annotations are bounded too: a longer title is cut, a
// larger annotations object is pinned as {}.
constexpr size_t kMaxTitleBytes = 1024;
constexpr size_t kMaxAnnotationsBytes = 16u << 10;

// The string member `key` of `v`, or nullopt when `v` is not an object or
// the member is absent or not a string.
std::optional<std::string_view> StringMember(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return std::nullopt;
  auto it = v.FindMember(key);
  if (it == v.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}

const rapidjson::Value* Member(const rapidjson::Value& v, const char* key) {
  if (!v.IsObject()) return nullptr;
  auto it = v.FindMember(key);
  return it == v.MemberEnd() ? nullptr : &it->value;
}

// execution.taskSupport: "required" and "optional" as listed, anything else
// (absent, "forbidden", another value or type) forbidden.
TaskSupport TaskSupportOf(const rapidjson::Value& tool) {
  const rapidjson::Value* execution = Member(tool, "execution");
  auto support = execution ? StringMember(*execution, "taskSupport") : std::nullopt;
  if (support == "required") return TaskSupport::kRequired;
  if (support == "optional") return TaskSupport::kOptional;
  return TaskSupport::kForbidden;
}

std::string_view Label(std::string_view s) {
  return s.substr(0, base::Utf8PrefixWithin(s, kMaxLabelBytes));
}

// A mimeType as a placeholder shows it: absent, empty or not a string reads
// "unknown".
std::string_view MimeOf(const rapidjson::Value& v) {
  auto mime = StringMember(v, "mimeType");
  return mime && !mime->empty() ? Label(*mime) : kUnknown;
}

void AppendOmitted(std::string& out, std::string_view what) {
  out += '[';
  out += what;
  out += " omitted]";
}

void AppendOmitted(std::string& out, std::string_view what, std::string_view mime) {
  out += '[';
  out += what;
  out += " omitted: ";
  out += mime;
  out += ']';
}

// One content block as text. A block of a known type whose fields have the
// wrong shape (a `text` block without a string `text`) reads as that type
// omitted, so nothing is guessed from a malformed block.
void AppendBlock(std::string& out, const rapidjson::Value& block) {
  auto type = StringMember(block, "type");
  if (!type || type->empty()) {
    AppendOmitted(out, kUnknown);
    return;
  }
  if (*type == "text") {
    if (auto text = StringMember(block, "text")) {
      out += *text;
    } else {
      AppendOmitted(out, "text");
    }
  } else if (*type == "image" || *type == "audio") {
    AppendOmitted(out, *type, MimeOf(block));
  } else if (*type == "resource") {
    const rapidjson::Value* resource = Member(block, "resource");
    auto text = resource ? StringMember(*resource, "text") : std::nullopt;
    if (text) {
      out += *text;
    } else {
      // A blob, or a resource of no readable shape: either way not shown.
      AppendOmitted(out, "resource", resource ? MimeOf(*resource) : kUnknown);
    }
  } else if (*type == "resource_link") {
    auto uri = StringMember(block, "uri");
    out += "[resource: ";
    out += uri ? *uri : kUnknown;
    out += ']';
  } else {
    AppendOmitted(out, Label(*type));
  }
}

}  // namespace

ConvertedResult ConvertCallResult(const rapidjson::Value& result) {
  ConvertedResult converted;
  if (!result.IsObject()) return converted;
  if (const auto* is_error = Member(result, "isError")) {
    converted.is_error = is_error->IsBool() && is_error->GetBool();
  }
  const rapidjson::Value* content = Member(result, "content");
  if (content && content->IsArray() && !content->Empty()) {
    bool first = true;
    for (const auto& block : content->GetArray()) {
      if (!first) converted.text += "\n\n";
      first = false;
      AppendBlock(converted.text, block);
    }
    return converted;
  }
  const rapidjson::Value* structured = Member(result, "structuredContent");
  if (structured && !structured->IsNull()) converted.text = base::ToCompactJson(*structured);
  return converted;
}

base::Status AppendToolsPage(const rapidjson::Value& result, const ToolLimits& limits,
                             ToolList& out) {
  const rapidjson::Value* tools = Member(result, "tools");
  if (tools == nullptr || !tools->IsArray()) {
    return base::InvalidInput("tools/list result has no tools array");
  }
  std::string clean_name, clean_description, clean_title, clean_annotations;
  for (const auto& t : tools->GetArray()) {
    auto name = StringMember(t, "name");
    if (!name || name->empty() || name->size() > limits.max_name_bytes) continue;
    // Characters no person sees are removed from everything a host is shown
    // (BEHAVIOR.md §4); the server's own name is kept for the calls.
    clean_name.assign(*name);
    bool hidden = base::RemoveInvisible(clean_name) > 0;
    if (clean_name.empty()) continue;

    // description, else title, else annotations.title, else the name; an
    // empty string counts as absent.
    const rapidjson::Value* annotations = Member(t, "annotations");
    std::optional<std::string_view> description;
    for (auto candidate : {StringMember(t, "description"), StringMember(t, "title"),
                           annotations ? StringMember(*annotations, "title") : std::nullopt}) {
      if (candidate && !candidate->empty()) {
        description = candidate;
        break;
      }
    }
    std::string_view d = description ? *description : std::string_view(clean_name);
    d = d.substr(0, base::Utf8PrefixWithin(d, limits.max_description_bytes));
    clean_description.assign(d);
    hidden = base::RemoveInvisible(clean_description) > 0 || hidden;

    // The schema is serialised straight into the list's text; one that is
    // not an object or outgrows the bound is cut back and replaced.
    std::string& text = out.OpenTool(clean_name, clean_description);
    const size_t schema_start = text.size();
    const rapidjson::Value* schema = Member(t, "inputSchema");
    if (!schema || !schema->IsObject() ||
        !base::AppendCompactJson(text, *schema, schema_start + limits.max_schema_bytes)) {
      text.resize(schema_start);
      text.append(kDefaultSchema);
    } else if (text.find_first_of("\xE2\xEF\xF3", schema_start) != std::string::npos) {
      // Invisible characters can only sit inside the schema's strings, so
      // taking them out leaves valid JSON.
      std::string schema_text = text.substr(schema_start);
      if (base::RemoveInvisible(schema_text) > 0) {
        hidden = true;
        text.resize(schema_start);
        text.append(schema_text);
      }
    }

    bool read_only = false;
    if (annotations) {
      const rapidjson::Value* hint = Member(*annotations, "readOnlyHint");
      read_only = hint && hint->IsBool() && hint->GetBool();
    }
    // The rest of what the tool's pin holds (BEHAVIOR.md §13), cleaned the same way.
    const std::optional<std::string_view> title = StringMember(t, "title");
    clean_title.assign(title ? title->substr(0, base::Utf8PrefixWithin(*title, kMaxTitleBytes))
                             : std::string_view());
    hidden = base::RemoveInvisible(clean_title) > 0 || hidden;
    clean_annotations.clear();
    if (annotations && annotations->IsObject()) {
      clean_annotations = base::CanonicalJson(*annotations);
      if (clean_annotations.size() > kMaxAnnotationsBytes) clean_annotations = "{}";
      hidden = base::RemoveInvisible(clean_annotations) > 0 || hidden;
    }
    const std::optional<std::string_view> own = StringMember(t, "description");
    ToolList::Extras extras;
    extras.wire_name = clean_name == *name ? std::string_view() : *name;
    extras.hidden_text_removed = hidden;
    extras.title = clean_title;
    extras.annotations_json = clean_annotations;
    extras.described = own && !own->empty();
    out.CloseTool(read_only, TaskSupportOf(t), extras);
  }
  return base::Status();
}

void SortAndDedupTools(ToolList& tools) {
  tools.SortByName();
  tools.DropLaterDuplicates();
}

}  // namespace mcpgw::mcp
