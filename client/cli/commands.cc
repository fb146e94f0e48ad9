#include "client/cli/commands.h"

#include <chrono>
#include <iostream>
#include <iterator>
#include <thread>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "base/clean_text.h"
#include "client/cli/hints.h"
#include "client/cli/status_view.h"
#include "client/cli/tools_view.h"
#include "proto/proto.h"

namespace mcpgw::cli {
namespace {

// Longest the status call of one `wait` poll may take, so a wedged daemon cannot hold the
// command past its timeout by much.
constexpr double kMaxPollCallS = 2.0;
// The first poll always gets a full round trip, whatever the timeout (even 0): a busy
// daemon that answers in 50 ms is ready, not "never answered". A wedged one still cannot
// hold `wait` for longer than this.
constexpr double kFirstPollCallS = 10.0;

// Results go out byte for byte to a pipe; on a terminal they are stripped like everything
// else a server wrote (BEHAVIOR.md §8), keeping line breaks.
void PrintResult(CommandIo& io, const std::string& text) {
  if (io.stdout_is_tty) {
    io.out << base::StripControls(text, {.keep_newlines = true}) << "\n";
  } else {
    io.out << text << "\n";
  }
  io.out.flush();
}

int Fail(CommandIo& io, const ApiResult& result) {
  if (result.status == MCPGW_CANCELLED) {
    io.err << "mcpgw: cancelled\n";
    return kExitInterrupted;
  }
  // The daemon's hints are for a model; a person gets the command to run.
  io.err << "mcpgw: "
         << base::StripControls(PersonHints(ErrorText(result)), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(result.status);
}

std::string JsonTypeName(const rapidjson::Value& v) {
  if (v.IsArray()) return "an array";
  if (v.IsString()) return "a string";
  if (v.IsNumber()) return "a number";
  if (v.IsBool()) return "a boolean";
  return "null";
}

}  // namespace

WaitClock WaitClock::Real() {
  WaitClock clock;
  clock.now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  clock.sleep_s = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  return clock;
}

base::Status CheckArgumentsJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return base::InvalidInput(std::string("ARGUMENTS_JSON is not valid JSON: ") +
                              rapidjson::GetParseError_En(doc.GetParseError()) + " (at byte " +
                              std::to_string(doc.GetErrorOffset()) + ")");
  }
  if (!doc.IsObject()) {
    return base::Status(
        base::ErrorKind::kInvalidRequest,
        "invalid_request: arguments must be a JSON object, got " + JsonTypeName(doc));
  }
  return base::Status();
}

int RunTools(DaemonApi& api, const Invocation& inv, CommandIo& io) {
  // The daemon refuses a query with a tool name; libmcpgw cannot carry one, so the refusal
  // is made here, with the same kind (exit 3) and in a person's words.
  if (inv.query && inv.tool) {
    return Fail(io, {MCPGW_INVALID_REQUEST,
                     "--query does not go with TOOL: run \"mcpgw tools " +
                         ShellQuote(inv.ns.value_or("")) + " " + ShellQuote(*inv.tool) +
                         "\" to look up that tool, or leave TOOL out to search"});
  }
  const ApiResult result =
      api.GetDynamicTools(ToolsRequest{inv.ns, inv.tool, inv.query, inv.limit}, nullptr);
  if (result.status != MCPGW_OK) return Fail(io, result);
  // A person at a terminal gets tables; a pipe (or --json) the daemon's exact text.
  if (io.stdout_is_tty && !inv.json) {
    if (const auto table = RenderTools(result.text, io.width)) {
      io.out << *table;
      io.out.flush();
      return 0;
    }
  }
  PrintResult(io, result.text);
  return 0;
}

int RunCall(DaemonApi& api, const Invocation& inv, CommandIo& io, CancelToken* cancel) {
  std::string arguments = inv.arguments.value_or("{}");
  if (arguments == "-") {
    arguments.assign(std::istreambuf_iterator<char>(io.in), std::istreambuf_iterator<char>());
  }
  if (const base::Status checked = CheckArgumentsJson(arguments); !checked.ok()) {
    io.err << "mcpgw: " << checked.message() << "\n";
    return checked.kind() == base::ErrorKind::kInvalidInput ? kExitMisuse
                                                            : proto::ExitCode(checked.kind());
  }
  const ApiResult result = api.CallDynamicTool(
      *inv.ns, *inv.tool, arguments, inv.max_bytes.value_or(MCPGW_MAX_TEXT_DEFAULT), cancel);
  if (result.status != MCPGW_OK) {
    if (cancel != nullptr && cancel->triggered()) return Fail(io, {MCPGW_CANCELLED, {}});
    return Fail(io, result);
  }
  PrintResult(io, result.text);
  return 0;
}

int RunStatus(DaemonApi& api, const Invocation& inv, CommandIo& io) {
  const ApiResult result = api.Status(nullptr);
  if (result.status != MCPGW_OK) return Fail(io, result);
  if (inv.json) {
    const auto json = SafeStatusJson(result.text);
    if (!json) return Fail(io, {MCPGW_TRANSPORT, "the daemon sent a status that is not JSON"});
    io.out << *json << "\n";
    return 0;
  }
  const auto view = ParseStatus(result.text);
  if (!view) return Fail(io, {MCPGW_TRANSPORT, "the daemon sent a status that is not JSON"});
  RenderOptions options;
  options.color = io.color;
  options.width = io.stdout_is_tty ? io.width : 0;
  options.now_unix = io.now_unix ? io.now_unix() : 0;
  io.out << RenderStatus(*view, options);
  io.out.flush();
  return 0;
}

int RunWait(DaemonApi& api, const Invocation& inv, CommandIo& io, const WaitClock& clock) {
  const double deadline = clock.now_s() + inv.timeout_s;
  std::string why = "the daemon never answered";
  for (bool first = true;; first = false) {
    const double left = deadline - clock.now_s();
    const double call_s = first ? kFirstPollCallS : std::clamp(left, 0.001, kMaxPollCallS);
    api.SetTimeoutMs(static_cast<long>(call_s * 1000));
    const ApiResult result = api.Status(nullptr);
    if (result.status == MCPGW_OK) {
      const auto view = ParseStatus(result.text);
      if (!view) {
        why = "the daemon answered with a status that is not JSON";
      } else {
        const std::vector<std::string> loading = LoadingServers(*view);
        if (loading.empty()) return 0;
        why = "still loading:";
        for (const std::string& name : loading) why += " " + name;
      }
    } else if (why.rfind("the daemon never answered", 0) == 0) {
      why = "the daemon never answered (" + base::StripControls(ErrorText(result)) + ")";
    }
    if (clock.now_s() >= deadline) break;
    clock.sleep_s(std::min(kWaitPollIntervalS, std::max(0.0, deadline - clock.now_s())));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", inv.timeout_s);
  io.err << "mcpgw: timed out after " << seconds << "s: " << why << "\n";
  return static_cast<int>(MCPGW_NOT_READY);
}

}  // namespace mcpgw::cli
