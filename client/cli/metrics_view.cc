#include "client/cli/metrics_view.h"

#include <ostream>
#include <string>

#include <rapidjson/document.h>

#include "base/clean_text.h"
#include "proto/proto.h"

namespace mcpgw::cli {

int RunMetrics(AuthApi& api, const Invocation&, CommandIo& io) {
  const ApiResult r = api.Request(proto::kMetrics, "{}", /*timeout_s=*/30);
  if (r.status == MCPGW_OK) {
    // The result object is {"text": ...}: the exposition text itself.
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag>(r.text.data(), r.text.size());
    if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("text") && doc["text"].IsString()) {
      io.out << std::string_view(doc["text"].GetString(), doc["text"].GetStringLength());
      return 0;
    }
    io.err << "mcpgw: transport: the daemon sent metrics that are not text\n";
    return ExitCodeFor(MCPGW_TRANSPORT);
  }
  io.err << "mcpgw: " << base::StripControls(ErrorText(r), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(r.status);
}

}  // namespace mcpgw::cli
