// `mcpgw top`'s frames as text: the screen's lines for a terminal of a given size (with the
// styles the screen colours them in), the plain text of `--once` and the JSON line of
// `--json`. Pure: the screen (top_view.cc) only draws what these return.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/top_model.h"

namespace mcpgw::cli {

// The smallest terminal the layout fits in; a smaller one gets a one-line message instead.
inline constexpr size_t kTopMinWidth = 60;
inline constexpr size_t kTopMinHeight = 10;

enum class TopStyle : uint8_t { kPlain, kBold, kGood, kWarn, kBad, kDim };

struct TopSpan {
  std::string text;
  TopStyle style = TopStyle::kPlain;
};

// One screen line: spans of text (together at most the screen's width in code points).
struct TopLine {
  std::vector<TopSpan> spans;
  bool selected = false;  // the selected row: drawn in reverse video across the screen
  std::string Text() const;
};

// The screen for a terminal of `width` x `height`: at most `height` lines of at most `width`
// code points. The header (daemon figures, sort and filter, a notice or the keys), then the
// table of visible rows or the open detail. A terminal smaller than kTopMinWidth x
// kTopMinHeight gets one line saying so.
std::vector<TopLine> RenderTopScreen(const TopFrame& frame, const TopState& state, size_t width,
                                     size_t height, double now_unix);

// `--once`: the header figures and the whole table as plain text, lines cut to `width`
// (0: not cut).
std::string RenderTopOnce(const TopFrame& frame, const TopState& state, size_t width);

// `--json`: one line (no newline) with the frame's figures: the header's and each row's.
std::string TopJsonLine(const TopFrame& frame, double now_unix);
// `--json` while the daemon does not answer: {"time_unix": ..., "error": why}.
std::string TopJsonErrorLine(const std::string& why, double now_unix);

// Cells as the table shows them.
std::string FormatRate(std::optional<double> per_s);     // "-", "0", "0.02", "12.5", "1500"
std::string FormatMillis(std::optional<double> ms);      // "-", "0.4ms", "250ms", "1.50s"
std::string FormatBytes(std::optional<uint64_t> bytes);  // "-", "812K", "12.3M", "1.20G"
// Errors of the last minute by kind: "2t 1b" (t transport, b backend, d denied, n not_ready,
// i invalid_request, c cancelled); "0" for none, "-" when the daemon does not count them, the
// total alone when the kinds do not fit in 10 characters.
std::string ErrorsCompact(const TopServer& server);

}  // namespace mcpgw::cli
