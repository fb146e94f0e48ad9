#include "daemon/guard/pins.h"

#include <algorithm>
#include <utility>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "base/sha256.h"
#include "daemon/mcp/tool_list.h"
#include "daemon/runtime/env.h"

namespace mcpgw {

namespace {

// A pin file holds at most this much (a server's tools, their schemas).
constexpr size_t kMaxPinFileBytes = 64u << 20;

std::string_view Str(const rapidjson::Value& v) {
  return std::string_view(v.GetString(), v.GetStringLength());
}

}  // namespace

ToolDefinition MakeDefinition(std::string_view name, std::string_view title,
                              std::string_view description, std::string_view input_schema_json,
                              std::string_view annotations_json) {
  // The members in byte order, each value canonical itself: a server that
  // reorders a schema's keys changes nothing.
  auto canonical = [](std::string_view json) {
    rapidjson::Document doc;
    if (!base::ParseBoundedJson(json, base::JsonLimits{}, doc).ok()) return std::string("null");
    return base::CanonicalJson(doc);
  };
  ToolDefinition d;
  d.name = std::string(name);
  std::string& out = d.json;
  out = "{";
  if (!annotations_json.empty()) out += "\"annotations\":" + canonical(annotations_json) + ",";
  out += "\"description\":";
  base::AppendJsonString(&out, description);
  out += ",\"inputSchema\":" + canonical(input_schema_json);
  out += ",\"name\":";
  base::AppendJsonString(&out, name);
  if (!title.empty()) {
    out += ",\"title\":";
    base::AppendJsonString(&out, title);
  }
  out += '}';
  d.sha256 = base::Sha256Hex(d.json);
  return d;
}

PinReview ReviewListing(PinSet& pins, bool known, const std::vector<ToolDefinition>& listing,
                        PinningMode mode) {
  PinReview review;
  if (mode == PinningMode::kOff) return review;
  for (const ToolDefinition& tool : listing) {
    auto pin = pins.tools.find(tool.name);
    if (pin != pins.tools.end()) {
      if (pin->second.sha256 == tool.sha256) continue;
      review.changed.push_back(tool.name);
      review.pending[tool.name] = tool;
    } else if (known && mode == PinningMode::kStrict) {
      review.unapproved.push_back(tool.name);
      review.pending[tool.name] = tool;
    } else {
      pins.tools[tool.name] = tool;
      review.pinned.push_back(tool.name);
    }
  }
  std::sort(review.changed.begin(), review.changed.end());
  std::sort(review.unapproved.begin(), review.unapproved.end());
  return review;
}

std::string FormatPinFile(const PinSet& pins) {
  std::string out = "{\"url\":";
  base::AppendJsonString(&out, pins.url);
  out += ",\"tools\":{";
  bool first = true;
  for (const auto& [name, tool] : pins.tools) {
    out += first ? "\n" : ",\n";
    first = false;
    base::AppendJsonString(&out, name);
    out += ":{\"sha256\":\"" + tool.sha256 + "\",\"definition\":" + tool.json + "}";
  }
  out += "\n}}\n";
  return out;
}

base::Result<PinSet> ParsePinFile(std::string_view text) {
  rapidjson::Document doc;
  if (base::Status parsed = base::ParseBoundedJson(text, base::JsonLimits{}, doc); !parsed.ok()) {
    return base::InvalidInput("not valid JSON (" + parsed.message() + ")");
  }
  if (!doc.IsObject() || !doc.HasMember("url") || !doc["url"].IsString() ||
      !doc.HasMember("tools") || !doc["tools"].IsObject()) {
    return base::InvalidInput("not a pin file (it needs \"url\" and \"tools\")");
  }
  PinSet out;
  out.url = std::string(Str(doc["url"]));
  for (const auto& m : doc["tools"].GetObject()) {
    const std::string name(Str(m.name));
    const rapidjson::Value& v = m.value;
    if (!v.IsObject() || !v.HasMember("sha256") || !v["sha256"].IsString() ||
        !v.HasMember("definition") || !v["definition"].IsObject()) {
      return base::InvalidInput("the pin of tool \"" + name +
                                "\" is not {\"sha256\", \"definition\"}");
    }
    ToolDefinition d;
    d.name = name;
    d.json = base::CanonicalJson(v["definition"]);
    d.sha256 = base::Sha256Hex(d.json);
    const auto tool_name = v["definition"].FindMember("name");
    if (d.sha256 != Str(v["sha256"]) || tool_name == v["definition"].MemberEnd() ||
        !tool_name->value.IsString() || Str(tool_name->value) != name) {
      return base::InvalidInput("the pin of tool \"" + name + "\" does not match its digest");
    }
    out.tools[name] = std::move(d);
  }
  return out;
}

std::string PinFiles::PathFor(std::string_view url) const {
  // The host, for a person looking in the folder; the digest tells urls apart.
  std::string_view rest = url;
  if (const size_t scheme = rest.find("://"); scheme != std::string_view::npos) {
    rest.remove_prefix(scheme + 3);
  }
  std::string label;
  for (char c : rest) {
    if (c == '/' || c == '?' || c == '#' || label.size() >= 48) break;
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-';
    label += plain ? c : '_';
  }
  if (label.empty()) label = "server";
  return dir_ + "/" + label + "-" + base::Sha256Hex(url).substr(0, 16) + ".json";
}

base::Result<std::optional<PinSet>> PinFiles::Load(Env& env, std::string_view url) const {
  const std::string path = PathFor(url);
  if (!env.FileExists(path)) return std::optional<PinSet>();
  base::Result<std::string> text = env.ReadPrivateFile(path, kMaxPinFileBytes);
  if (!text.ok()) return std::move(text).status();
  base::Result<PinSet> pins = ParsePinFile(*text);
  if (!pins.ok()) return std::move(pins).status().Prefixed(path + ": ");
  if (pins->url != url) {
    return base::InvalidInput(path + ": it pins " + pins->url + ", not " + std::string(url));
  }
  return std::optional<PinSet>(*std::move(pins));
}

base::Status PinFiles::Save(Env& env, const PinSet& pins) const {
  if (base::Status made = env.CreateDir(dir_, 0700); !made.ok()) return made;
  return env.WriteFileAtomically(PathFor(pins.url), FormatPinFile(pins), 0600);
}

std::string DefaultPinsDir(std::string_view xdg_state_home, std::string_view home) {
  if (!xdg_state_home.empty() && xdg_state_home.front() == '/') {
    return std::string(xdg_state_home) + "/mcpgw/pins";
  }
  return std::string(home) + "/.local/state/mcpgw/pins";
}

std::string_view PinnedStateName(PinnedTool::State state) {
  switch (state) {
    case PinnedTool::State::kPinned:
      return "pinned";
    case PinnedTool::State::kChanged:
      return "changed";
    case PinnedTool::State::kNew:
      return "new";
    case PinnedTool::State::kRemoved:
      return "removed";
    case PinnedTool::State::kUnpinned:
      return "not pinned";
  }
  return "pinned";
}

ServerPins::ServerPins(PinFiles files, std::string name, std::string url, PinningMode mode)
    : files_(std::move(files)), name_(std::move(name)), url_(std::move(url)), mode_(mode) {
  MakeReport(nullptr);
}

std::optional<PinSet> ServerPins::Load(Env& env,
                                       const std::function<void(const std::string&)>& warn) {
  base::Result<std::optional<PinSet>> loaded = files_.Load(env, url_);
  if (loaded.ok()) {
    distrust_.clear();
    return *std::move(loaded);
  }
  // Never half trusted: every tool waits until the user approves them all.
  std::string distrust = "the pin file cannot be trusted (" + loaded.message() +
                         "): every tool is withheld until \"mcpgw approve " + name_ + " --all\"";
  if (distrust != distrust_) warn(distrust);
  distrust_ = std::move(distrust);
  return PinSet{url_, {}};
}

base::Status ServerPins::Save(Env& env, const PinSet& pins) {
  base::Status saved = files_.Save(env, pins);
  if (saved.ok()) return saved;
  return base::Status(saved.kind(), "the pins could not be saved (" + saved.message() +
                                        "); they are kept until mcpgwd stops");
}

void ServerPins::Review(Env& env, const mcp::ToolList& tools,
                        const std::function<void(const std::string&)>& warn) {
  hidden_text_.clear();
  for (const mcp::Tool tool : tools) {
    if (tool.hidden_text_removed) hidden_text_.emplace_back(tool.name);
  }
  if (mode_ == PinningMode::kOff) {
    review_ = PinReview{};
    pinned_ = 0;
    MakeReport(nullptr);
    return;
  }
  const std::optional<PinSet> file = Load(env, warn);
  const bool exists = file.has_value();
  PinSet pins = file ? *file : PinSet{url_, {}};
  std::vector<ToolDefinition> listing;
  listing.reserve(tools.size());
  for (const mcp::Tool tool : tools) {
    listing.push_back(MakeDefinition(tool.name, tool.title,
                                     tool.described ? tool.description : std::string_view(),
                                     tool.input_schema_json, tool.annotations_json));
  }
  // A file that cannot be trusted pins nothing: its server's tools all wait.
  const bool trusted = distrust_.empty();
  review_ = ReviewListing(pins, exists, listing, trusted ? mode_ : PinningMode::kStrict);
  if (trusted && (!review_.pinned.empty() || !exists)) {
    const std::string error = Save(env, pins).message();
    if (!error.empty() && error != save_error_) warn(error);
    save_error_ = error;
  }
  // Only the save above needs the names just pinned (at a server's first
  // sight, every tool's): a thousand servers would keep them all.
  std::vector<std::string>().swap(review_.pinned);
  pinned_ = pins.tools.size();
  WarnOnce(review_.changed, "changed since it was pinned", warn);
  WarnOnce(review_.unapproved, "is new", warn);
  std::erase_if(warned_, [&](const auto& w) { return review_.pending.count(w.first) == 0; });
  MakeReport(&pins);
}

void ServerPins::WarnOnce(const std::vector<std::string>& tools, const char* what,
                          const std::function<void(const std::string&)>& warn) {
  for (const std::string& tool : tools) {
    const std::string& digest = review_.pending[tool].sha256;
    auto [it, added] = warned_.try_emplace(tool, digest);
    if (!added && it->second == digest) continue;
    it->second = digest;
    warn("tool \"" + tool + "\" " + what + "; it is withheld until approved (\"mcpgw diff " +
         name_ + " " + tool + "\", then \"mcpgw approve " + name_ + " " + tool + "\")");
  }
}

base::Result<ServerPins::Approval> ServerPins::Approve(Env& env,
                                                       const std::vector<std::string>& names,
                                                       bool all) {
  auto refused = [](std::string why) {
    return base::Status(base::ErrorKind::kInvalidRequest, std::move(why));
  };
  if (!distrust_.empty() && !all) return refused(distrust_);
  std::vector<std::string> chosen;
  if (all) {
    for (const auto& [tool, definition] : review_.pending) chosen.push_back(tool);
  } else {
    for (const std::string& tool : names) {
      if (review_.pending.find(tool) == review_.pending.end()) {
        return refused("tool \"" + tool + "\" of \"" + name_ +
                       "\" is not waiting for approval (\"mcpgw pins " + name_ +
                       "\" lists the ones that are)");
      }
      chosen.push_back(tool);
    }
  }
  // The file as it is now; one that cannot be trusted is replaced only by
  // approving everything.
  base::Result<std::optional<PinSet>> loaded = files_.Load(env, url_);
  if (!loaded.ok() && !all) {
    return refused("the pin file cannot be trusted (" + loaded.message() +
                   "): approve every tool with \"mcpgw approve " + name_ + " --all\"");
  }
  PinSet pins = loaded.ok() && *loaded ? **std::move(loaded) : PinSet{url_, {}};
  Approval approval;
  for (const std::string& tool : chosen) {
    auto node = review_.pending.extract(tool);
    if (node.empty()) continue;  // named twice
    pins.tools[tool] = std::move(node.mapped());
    std::erase(review_.changed, tool);
    std::erase(review_.unapproved, tool);
    warned_.erase(tool);
    approval.approved.push_back(tool);
  }
  if (all) distrust_.clear();
  if (!approval.approved.empty() || all) {
    save_error_ = Save(env, pins).message();
    approval.warning = save_error_;
  }
  pinned_ = pins.tools.size();
  MakeReport(&pins);
  return approval;
}

std::vector<PinnedTool> ServerPins::Describe(Env& env, const mcp::ToolList* tools) const {
  std::map<std::string, PinnedTool, std::less<>> out;
  if (tools) {
    for (const mcp::Tool tool : *tools) {
      PinnedTool& t = out[std::string(tool.name)];
      t.name = std::string(tool.name);
      t.hidden_text_removed = tool.hidden_text_removed;
      t.state = mode_ == PinningMode::kOff ? PinnedTool::State::kUnpinned
                : std::binary_search(review_.changed.begin(), review_.changed.end(), tool.name)
                    ? PinnedTool::State::kChanged
                : review_.pending.count(tool.name) ? PinnedTool::State::kNew
                                                   : PinnedTool::State::kPinned;
    }
  }
  if (mode_ != PinningMode::kOff && distrust_.empty()) {
    const std::optional<PinSet> file = files_.Load(env, url_).value_or(std::nullopt);
    const std::map<std::string, ToolDefinition, std::less<>> none;
    for (const auto& [name, definition] : file ? file->tools : none) {
      if (out.count(name)) continue;
      out[name] = PinnedTool{name, PinnedTool::State::kRemoved, false};
    }
  }
  std::vector<PinnedTool> list;
  list.reserve(out.size());
  for (auto& [name, tool] : out) list.push_back(std::move(tool));
  return list;
}

void ServerPins::MakeReport(const PinSet* pins) {
  auto report = std::make_shared<PinReport>();
  report->url = url_;
  report->mode = mode_;
  report->hidden_text = hidden_text_;
  if (mode_ != PinningMode::kOff) {
    report->file = files_.PathFor(url_);
    report->pinned = pinned_;
    report->changed = review_.changed;
    report->unapproved = review_.unapproved;
    for (const auto& [tool, listed] : review_.pending) {
      std::string pinned_json;
      if (pins) {
        if (auto pin = pins->tools.find(tool); pin != pins->tools.end()) {
          pinned_json = pin->second.json;
        }
      }
      report->pending[tool] = PinReport::Pending{std::move(pinned_json), listed.json};
    }
    report->error = !distrust_.empty() ? distrust_ : save_error_;
  }
  report_ = std::move(report);
}

}  // namespace mcpgw
