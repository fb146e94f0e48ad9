// Microbench of the gateway's per-call hot paths, run N times so callgrind
// (or the wall clock) gives a per-iteration cost: validating a call's params
// (Catalog::PrepareCall), encoding the tools/call request, decoding the JSON
// or SSE response and converting the result to text; and the no-argument
// get_dynamic_tools listing of a large catalog, framed as the daemon sends it;
// and a start's wave (every server loading, each reported ready in turn, then
// one listing). run.sh runs it under `valgrind --tool=callgrind` and divides by N.
//   hotpath_bench call|call-sse|list|wave N [SERVERS TOOLS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "base/bounded_json.h"
#include "daemon/gateway/catalog.h"
#include "daemon/mcp/convert.h"
#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/sse_decoder.h"
#include "proto/messages.h"

namespace {

using namespace mcpgw;

std::shared_ptr<const mcp::ToolList> MakeTools(int count) {
  auto tools = std::make_shared<mcp::ToolList>();
  for (int i = 0; i < count; ++i) {
    tools->Add(
        i == 0 ? "echo" : "tool_" + std::to_string(i),
        "Benchmark tool " + std::to_string(i) + ": returns its text argument.",
        R"({"type":"object","properties":{"text":{"type":"string","description":"what to echo"}},"required":["text"]})",
        false);
  }
  mcp::SortAndDedupTools(*tools);
  tools->Shrink();
  return tools;
}

void MakeCatalog(Catalog& catalog, int servers, int tools) {
  auto list = MakeTools(tools);
  std::vector<ServerView> views;
  for (int i = 0; i < servers; ++i) {
    ServerView view;
    view.name = "s" + std::to_string(i);
    view.status = mcp::Status::kReady;
    view.tools = list;
    views.push_back(std::move(view));
  }
  catalog.Reset(std::move(views));
}

// One call's work on the daemon's side, short of sockets and threads.
size_t OneCall(const Catalog& catalog, bool sse, mcp::RpcId id) {
  static const char* kParams =
      R"({"namespace":"s0","toolName":"echo","arguments":{"text":"hello"}})";
  rapidjson::Document params;
  params.Parse(kParams);
  base::Result<CallTarget> target = catalog.PrepareCall(params, kParams);
  if (!target.ok()) std::abort();
  const CallTarget& t = *target;
  std::string request =
      mcp::BuildRequest(id, "tools/call", mcp::BuildToolsCallParams(t.tool, t.arguments_json));

  std::string body = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                     R"(,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}})";
  std::string data;
  if (sse) {
    mcp::SseDecoder decoder(16u << 20);
    std::vector<mcp::SseEvent> events;
    decoder.Feed("id: 1\ndata: \n\nevent: message\ndata: " + body + "\n\n", events);
    if (events.size() != 1) std::abort();
    data = std::move(events[0].data);
  } else {
    data = std::move(body);
  }
  rapidjson::Document doc;
  if (!base::ParseBoundedJson(data, base::JsonLimits{}, doc).ok()) std::abort();
  mcp::Message msg = mcp::ClassifyMessage(doc);
  if (msg.kind != mcp::MessageKind::kResponse || !msg.result) std::abort();
  mcp::ConvertedResult converted = mcp::ConvertCallResult(*msg.result);
  return request.size() + converted.text.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: hotpath_bench call|call-sse|list|wave N [SERVERS TOOLS]\n");
    return 2;
  }
  std::string_view what = argv[1];
  long n = std::atol(argv[2]);
  int servers = argc > 3 ? std::atoi(argv[3]) : (what == "list" || what == "wave" ? 1000 : 1);
  int tools = argc > 4 ? std::atoi(argv[4]) : 100;
  Catalog catalog;
  MakeCatalog(catalog, servers, tools);
  size_t sink = 0;
  std::string literal;  // made once, before the clock starts
  if (what == "list") proto::AppendJsonString(&literal, catalog.Listing());
  auto t0 = std::chrono::steady_clock::now();
  if (what == "list") {
    // What the daemon does for a no-argument get_dynamic_tools: frame the
    // listing, kept escaped as a JSON string since the catalog last changed
    // (the gateway's listing_literal_), as the reply's text.
    for (long i = 0; i < n; ++i) {
      sink += proto::EncodeTextLiteralResult(std::to_string(i + 1), literal).size();
    }
  } else if (what == "wave") {
    // What the catalog goes through at a start: every server loading, each
    // reported ready in turn (the daemon's OnHostState), then one listing.
    const std::vector<ServerView> ready = catalog.servers();
    for (long i = 0; i < n; ++i) {
      std::vector<ServerView> loading = ready;
      for (ServerView& view : loading) view.status = mcp::Status::kLoading;
      catalog.Reset(std::move(loading));
      for (const ServerView& view : ready) catalog.Update(view);
      sink += catalog.Listing().size();
    }
  } else {
    for (long i = 0; i < n; ++i) sink += OneCall(catalog, what == "call-sse", i + 1);
  }
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"path\":\"%.*s\",\"n\":%ld,\"us_per_iter\":%.3f,\"bytes\":%zu}\n",
              static_cast<int>(what.size()), what.data(), n, us / static_cast<double>(n), sink);
  return 0;
}
