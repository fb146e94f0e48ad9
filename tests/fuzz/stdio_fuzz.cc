// libFuzzer target for `mcpgw stdio`'s message handling and the CLI's text stripping: any
// input yields only single-line, valid JSON replies, and stripped text holds no control
// characters. It links the CLI library, with a fake daemon behind the bridge.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "base/utf8.h"
#include "client/api/async_api.h"
#include "client/cli/sanitize.h"
#include "client/stdio/stdio_bridge.h"

namespace {

// Answers on the next Process(), echoing what it was asked, so replies carry fuzzed text back
// out. The arguments the bridge forwards must be one JSON object, cut from the line exactly.
class EchoApi : public mcpgw::cli::AsyncDaemonApi {
 public:
  RequestId StartGetDynamicTools(const mcpgw::cli::ToolsRequest& request, Done done) override {
    return Add({MCPGW_NOT_READY, request.ns.value_or("") + "\n" + request.tool.value_or("") + "\n" +
                                     request.query.value_or("")},
               std::move(done));
  }
  RequestId StartCallDynamicTool(const std::string& ns, const std::string& tool,
                                 std::string_view arguments_json, long long max_text_bytes,
                                 Done done) override {
    rapidjson::Document args;
    args.Parse<rapidjson::kParseValidateEncodingFlag>(arguments_json.data(), arguments_json.size());
    if (args.HasParseError() || !args.IsObject() || max_text_bytes != MCPGW_MAX_TEXT_STDIO) {
      std::abort();
    }
    return Add({MCPGW_OK, ns + tool + std::string(arguments_json)}, std::move(done));
  }
  void Cancel(RequestId id) override {
    for (auto& p : pending_) {
      if (p.id == id) p.result = {MCPGW_CANCELLED, "cancelled"};
    }
  }
  mcpgw::base::Status Connect() override { return mcpgw::base::Status(); }
  int fd() override { return -1; }
  long timeout_ms() override { return -1; }
  void Process() override {
    std::vector<Pending> batch;
    batch.swap(pending_);
    for (auto& p : batch) p.done(p.result);
  }

 private:
  struct Pending {
    RequestId id;
    mcpgw::cli::ApiResult result;
    Done done;
  };
  RequestId Add(mcpgw::cli::ApiResult result, Done done) {
    pending_.push_back({++next_, std::move(result), std::move(done)});
    return next_;
  }
  RequestId next_ = 0;
  std::vector<Pending> pending_;
};

void CheckReply(const std::string& message) {
  if (message.find('\n') != std::string::npos) std::abort();
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(message.c_str(), message.size());
  if (doc.HasParseError() || !doc.IsObject()) std::abort();
}

void CheckMessage(std::string message) { CheckReply(message); }

void CheckStripped(std::string_view text) {
  const std::string stripped = mcpgw::base::StripControls(text);
  for (size_t i = 0; i < stripped.size(); ++i) {
    const auto c = static_cast<unsigned char>(stripped[i]);
    if (c < 0x20 || c == 0x7F) std::abort();
    if (c == 0xC2 && i + 1 < stripped.size()) {
      const auto next = static_cast<unsigned char>(stripped[i + 1]);
      if (next >= 0x80 && next <= 0x9F) std::abort();
    }
  }
  if (!mcpgw::base::IsValidUtf8(stripped)) std::abort();
  if (mcpgw::cli::DisplayWidth(mcpgw::cli::Truncate(stripped, 7)) > 7) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckStripped(input);
  EchoApi api;
  {
    mcpgw::cli::StdioBridge bridge(api, CheckMessage);
    size_t start = 0;
    while (start <= input.size()) {
      size_t end = input.find('\n', start);
      if (end == std::string_view::npos) end = input.size();
      bridge.HandleLine(input.substr(start, end - start));
      api.Process();
      start = end + 1;
    }
  }
  return 0;
}
