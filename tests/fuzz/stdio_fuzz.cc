// libFuzzer target for `mcpgw stdio`'s message handling and the CLI's text stripping: any
// input yields only single-line, valid JSON replies, and stripped text holds no control
// characters. It links the CLI library, with a fake daemon behind the bridge.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "client/cli/daemon_api.h"
#include "client/cli/sanitize.h"
#include "client/cli/stdio_bridge.h"

namespace {

// Answers at once, echoing what it was asked, so replies carry fuzzed text back out.
class EchoApi : public mcpgw::cli::DaemonApi {
 public:
  mcpgw::cli::ApiResult GetDynamicTools(const std::optional<std::string>& ns,
                                        const std::optional<std::string>& tool,
                                        mcpgw::cli::CancelToken*) override {
    return {MCPGW_NOT_READY, ns.value_or("") + "\n" + tool.value_or("")};
  }
  mcpgw::cli::ApiResult CallDynamicTool(const std::string& ns, const std::string& tool,
                                        const std::string& arguments_json,
                                        mcpgw::cli::CancelToken*) override {
    return {MCPGW_OK, ns + tool + arguments_json};
  }
  mcpgw::cli::ApiResult Status(mcpgw::cli::CancelToken*) override { return {}; }
};

void CheckReply(const std::string& message) {
  if (message.find('\n') != std::string::npos) std::abort();
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(message.c_str(), message.size());
  if (doc.HasParseError() || !doc.IsObject()) std::abort();
}

void CheckStripped(std::string_view text) {
  const std::string stripped = mcpgw::cli::StripControls(text);
  for (size_t i = 0; i < stripped.size(); ++i) {
    const auto c = static_cast<unsigned char>(stripped[i]);
    if (c < 0x20 || c == 0x7F) std::abort();
    if (c == 0xC2 && i + 1 < stripped.size()) {
      const auto next = static_cast<unsigned char>(stripped[i + 1]);
      if (next >= 0x80 && next <= 0x9F) std::abort();
    }
  }
  if (mcpgw::cli::ValidUtf8(stripped) != stripped) std::abort();
  if (mcpgw::cli::DisplayWidth(mcpgw::cli::Truncate(stripped, 7)) > 7) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckStripped(input);
  EchoApi api;
  {
    mcpgw::cli::StdioBridge bridge(api, CheckReply);
    size_t start = 0;
    while (start <= input.size()) {
      size_t end = input.find('\n', start);
      if (end == std::string_view::npos) end = input.size();
      bridge.HandleLine(input.substr(start, end - start));
      start = end + 1;
    }
  }  // joins every call thread
  return 0;
}
