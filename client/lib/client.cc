// The C ABI of libmcpgw (client/include/mcpgw.h): handles, cancel tokens, the
// request parameters and the checks made before anything is sent, on top of
// the Core (client_impl.h).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "base/status.h"
#include "client/lib/client_impl.h"
#include "client/status_of.h"
#include "proto/messages.h"
#include "proto/socket_path.h"

namespace mcpgw::client {
namespace {

// The frame wraps the arguments in two levels (envelope, params) that count
// towards the daemon's nesting limit.
constexpr int kMaxArgumentsDepth = proto::kMaxJsonDepth - 2;

char* Dup(std::string_view s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out != nullptr) {
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
  }
  return out;
}

mcpgw_status Finish(const Outcome& outcome, char** out) {
  if (out != nullptr) *out = Dup(outcome.text);
  return outcome.status;
}

// Checks the syntax of a JSON text without building it: numbers are taken as
// written (no range limit), nesting is counted, the root must be an object.
struct ShapeChecker : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ShapeChecker> {
  int depth = 0;
  int max_depth = 0;
  bool root_is_object = false;
  bool seen_root = false;

  bool Default() {
    seen_root = true;
    return true;
  }
  bool Open(bool object) {
    if (!seen_root) root_is_object = object;
    seen_root = true;
    max_depth = std::max(max_depth, ++depth);
    return depth <= kMaxArgumentsDepth;  // stops a hostile input early
  }
  bool StartObject() { return Open(true); }
  bool StartArray() { return Open(false); }
  bool Close() {
    --depth;
    return true;
  }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool EndArray(rapidjson::SizeType) { return Close(); }
};

base::Status Refused(std::string message) {
  return base::Status(base::ErrorKind::kInvalidRequest, std::move(message));
}

// Ok when `arguments_json` can be sent, else why not (invalid_request).
base::Status CheckArguments(const char* arguments_json) {
  const size_t size = std::strlen(arguments_json);
  // Checked here: a frame the daemon cannot read gets an answer that names
  // no request, and the call would never hear back.
  if (size + 256 > proto::kMaxFrameBytes) {
    return Refused("arguments are too large: " + std::to_string(size) +
                   " bytes do not fit mcpgwd's frame limit of " +
                   std::to_string(proto::kMaxFrameBytes));
  }
  ShapeChecker checker;
  rapidjson::Reader reader;
  rapidjson::StringStream stream(arguments_json);
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag |
                              rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseNumbersAsStringsFlag;
  const rapidjson::ParseResult ok = reader.Parse<kFlags>(stream, checker);
  if (checker.max_depth > kMaxArgumentsDepth) {
    return Refused("arguments are nested deeper than " + std::to_string(kMaxArgumentsDepth) +
                   " levels");
  }
  if (!ok) {
    return Refused(std::string("arguments are not valid JSON: ") +
                   rapidjson::GetParseError_En(ok.Code()) + " (at byte " +
                   std::to_string(ok.Offset()) + ")");
  }
  if (!checker.root_is_object) return Refused("arguments must be a JSON object");
  return base::Status();
}

void AddString(std::string* json, std::string_view key, const char* value) {
  if (value == nullptr) return;
  if (json->size() > 1) json->push_back(',');
  proto::AppendJsonString(json, key);
  json->push_back(':');
  proto::AppendJsonString(json, value);
}

std::string ToolsParams(const char* ns, const char* tool) {
  std::string params = "{";
  AddString(&params, "namespace", ns);
  AddString(&params, "toolName", tool);
  params.push_back('}');
  return params;
}

// A limit of 0 is left out, so the daemon applies its default; any other is
// sent as given, for the daemon to judge.
std::string FindParams(const char* ns, const char* query, int limit) {
  std::string params = "{";
  AddString(&params, "namespace", ns);
  AddString(&params, "query", query);
  if (limit != 0) {
    params.append(",\"limit\":");
    params.append(std::to_string(limit));
  }
  params.push_back('}');
  return params;
}

constexpr std::string_view kNoQuery =
    "query is NULL: mcpgw_find_tools needs what the tool should do, in words "
    "(mcpgw_get_dynamic_tools lists the tools without a query)";

// The call's params with the caller's arguments embedded verbatim, or why
// they cannot be sent (invalid_request).
base::Result<std::string> CallParams(const char* ns, const char* tool, const char* arguments_json,
                                     long long max_text_bytes = MCPGW_MAX_TEXT_DEFAULT) {
  std::string params = "{";
  AddString(&params, "namespace", ns);
  AddString(&params, "toolName", tool);
  if (max_text_bytes == MCPGW_MAX_TEXT_STDIO) {
    if (params.size() > 1) params.push_back(',');
    params.append("\"max_text_bytes\":\"");
    params.append(proto::kMaxTextStdio);
    params.push_back('"');
  } else if (max_text_bytes >= 0) {
    if (params.size() > 1) params.push_back(',');
    params.append("\"max_text_bytes\":");
    params.append(std::to_string(max_text_bytes));
  } else if (max_text_bytes != MCPGW_MAX_TEXT_DEFAULT) {
    return Refused("max_text_bytes is " + std::to_string(max_text_bytes) +
                   ": give a number of bytes (0 for no bound), MCPGW_MAX_TEXT_DEFAULT or "
                   "MCPGW_MAX_TEXT_STDIO");
  }
  if (arguments_json != nullptr) {
    if (base::Status checked = CheckArguments(arguments_json); !checked.ok()) return checked;
    if (params.size() > 1) params.push_back(',');
    params.append("\"arguments\":");
    params.append(arguments_json);
  }
  params.push_back('}');
  return params;
}

}  // namespace
}  // namespace mcpgw::client

using namespace mcpgw;

extern "C" {

mcpgw_client* mcpgw_open(const char* socket_path) {
  std::string path = socket_path != nullptr && *socket_path != '\0' ? std::string(socket_path)
                                                                    : proto::DefaultSocketPath();
  return new (std::nothrow) mcpgw_client(std::move(path));
}

void mcpgw_close(mcpgw_client* client) {
  if (client == nullptr) return;
  client->core.Close();
  delete client;
}

void mcpgw_set_timeout_ms(mcpgw_client* client, long timeout_ms) {
  if (client != nullptr) client->core.SetTimeoutMs(timeout_ms);
}

mcpgw_status mcpgw_connect(mcpgw_client* client, char** error) {
  if (error != nullptr) *error = nullptr;
  if (client == nullptr) return MCPGW_INVALID_REQUEST;
  client::Outcome outcome = client->core.ConnectNow();
  if (outcome.status != MCPGW_OK && error != nullptr) *error = client::Dup(outcome.text);
  return outcome.status;
}

mcpgw_cancel* mcpgw_cancel_new(void) { return new (std::nothrow) mcpgw_cancel; }

void mcpgw_cancel_trigger(mcpgw_cancel* cancel) {
  if (cancel == nullptr) return;
  cancel->triggered = true;
  std::lock_guard lock(cancel->mu);
  for (auto& [core, waiter] : cancel->waiters) core->Interrupt(waiter);
}

void mcpgw_cancel_free(mcpgw_cancel* cancel) { delete cancel; }

mcpgw_status mcpgw_get_dynamic_tools(mcpgw_client* client, const char* ns, const char* tool,
                                     mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return client::Finish({MCPGW_INVALID_REQUEST, "no client handle"}, out);
  return client::Finish(
      client->core.Run(proto::kGetDynamicTools, client::ToolsParams(ns, tool), cancel), out);
}

mcpgw_status mcpgw_find_tools(mcpgw_client* client, const char* ns, const char* query, int limit,
                              mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return client::Finish({MCPGW_INVALID_REQUEST, "no client handle"}, out);
  if (query == nullptr) {
    return client::Finish({MCPGW_INVALID_REQUEST, std::string(client::kNoQuery)}, out);
  }
  return client::Finish(
      client->core.Run(proto::kGetDynamicTools, client::FindParams(ns, query, limit), cancel), out);
}

mcpgw_status mcpgw_call_dynamic_tool(mcpgw_client* client, const char* ns, const char* tool,
                                     const char* arguments_json, mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return client::Finish({MCPGW_INVALID_REQUEST, "no client handle"}, out);
  const base::Result<std::string> params = client::CallParams(ns, tool, arguments_json);
  if (!params.ok()) return client::Finish(client::OutcomeOf(params.status()), out);
  return client::Finish(client->core.Run(proto::kCallDynamicTool, *params, cancel), out);
}

mcpgw_status mcpgw_call_dynamic_tool_bounded(mcpgw_client* client, const char* ns, const char* tool,
                                             const char* arguments_json, long long max_text_bytes,
                                             mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return client::Finish({MCPGW_INVALID_REQUEST, "no client handle"}, out);
  const base::Result<std::string> params =
      client::CallParams(ns, tool, arguments_json, max_text_bytes);
  if (!params.ok()) return client::Finish(client::OutcomeOf(params.status()), out);
  return client::Finish(client->core.Run(proto::kCallDynamicTool, *params, cancel), out);
}

mcpgw_status mcpgw_status_json(mcpgw_client* client, mcpgw_cancel* cancel, char** out) {
  if (out != nullptr) *out = nullptr;
  if (client == nullptr) return client::Finish({MCPGW_INVALID_REQUEST, "no client handle"}, out);
  return client::Finish(client->core.Run(proto::kStatus, "{}", cancel), out);
}

int mcpgw_fd(mcpgw_client* client, int* events) {
  if (client == nullptr) return -1;
  return client->core.HostFd(events);
}

long mcpgw_timeout(mcpgw_client* client) {
  return client == nullptr ? -1 : client->core.TimeoutMs();
}

int mcpgw_process(mcpgw_client* client) { return client == nullptr ? 0 : client->core.Process(); }

mcpgw_request mcpgw_start_get_dynamic_tools(mcpgw_client* client, const char* ns, const char* tool,
                                            mcpgw_done done, void* user_data) {
  if (client == nullptr) return 0;
  return client->core.Start(proto::kGetDynamicTools, client::ToolsParams(ns, tool), done,
                            user_data);
}

mcpgw_request mcpgw_start_find_tools(mcpgw_client* client, const char* ns, const char* query,
                                     int limit, mcpgw_done done, void* user_data) {
  if (client == nullptr) return 0;
  if (query == nullptr) {
    return client->core.Refuse(MCPGW_INVALID_REQUEST, std::string(client::kNoQuery), done,
                               user_data);
  }
  return client->core.Start(proto::kGetDynamicTools, client::FindParams(ns, query, limit), done,
                            user_data);
}

mcpgw_request mcpgw_start_call_dynamic_tool(mcpgw_client* client, const char* ns, const char* tool,
                                            const char* arguments_json, mcpgw_done done,
                                            void* user_data) {
  if (client == nullptr) return 0;
  const base::Result<std::string> params = client::CallParams(ns, tool, arguments_json);
  if (!params.ok())
    return client->core.Refuse(client::StatusOf(params.kind()), params.message(), done, user_data);
  return client->core.Start(proto::kCallDynamicTool, *params, done, user_data);
}

mcpgw_request mcpgw_start_call_dynamic_tool_bounded(mcpgw_client* client, const char* ns,
                                                    const char* tool, const char* arguments_json,
                                                    long long max_text_bytes, mcpgw_done done,
                                                    void* user_data) {
  if (client == nullptr) return 0;
  const base::Result<std::string> params =
      client::CallParams(ns, tool, arguments_json, max_text_bytes);
  if (!params.ok())
    return client->core.Refuse(client::StatusOf(params.kind()), params.message(), done, user_data);
  return client->core.Start(proto::kCallDynamicTool, *params, done, user_data);
}

mcpgw_request mcpgw_start_status(mcpgw_client* client, mcpgw_done done, void* user_data) {
  if (client == nullptr) return 0;
  return client->core.Start(proto::kStatus, "{}", done, user_data);
}

int mcpgw_cancel_request(mcpgw_client* client, mcpgw_request request) {
  return client != nullptr && client->core.Cancel(request) ? 1 : 0;
}

void mcpgw_free(char* s) { std::free(s); }

const char* mcpgw_status_name(mcpgw_status status) {
  switch (status) {
    case MCPGW_OK:
      return "ok";
    case MCPGW_BACKEND:
      return "backend";
    case MCPGW_INVALID_REQUEST:
      return "invalid_request";
    case MCPGW_NOT_READY:
      return "not_ready";
    case MCPGW_TRANSPORT:
      return "transport";
    case MCPGW_DENIED:
      return "denied";
    case MCPGW_UNAVAILABLE:
      return "unavailable";
    case MCPGW_CANCELLED:
      return "cancelled";
  }
  return "unknown";
}

const char* mcpgw_version(void) { return MCPGW_VERSION; }

}  // extern "C"
