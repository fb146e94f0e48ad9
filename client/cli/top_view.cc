#include "client/cli/top_view.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <clocale>
#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/clean_text.h"
#include "client/cli/hints.h"
#include "client/cli/sanitize.h"
#include "client/cli/top_model.h"
#include "client/cli/top_render.h"

// Last: curses.h defines macros (timeout, move, erase, OK, ERR, ...) that would rewrite
// names in the headers above. The wide-character interface reads keys as code points.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>

namespace mcpgw::cli {
namespace {

// A status request waits at most this long (at least kMinRequestS, else the interval), so a
// wedged daemon cannot freeze the screen for long.
constexpr double kMinRequestS = 1.0;
constexpr double kMaxRequestS = 2.0;
// How long "reconnected" stays in the header.
constexpr double kNoticeS = 10.0;
// The screen looks at signals at least this often while it waits for a key.
constexpr int kMaxKeyWaitMs = 200;
constexpr int kEscDelayMs = 25;
constexpr double kSleepStepS = 0.05;

// The signal that asks top to end (SIGINT, SIGTERM, SIGHUP); 0 while none came.
volatile sig_atomic_t g_stop_signal = 0;

void OnStopSignal(int signal_number) { g_stop_signal = signal_number; }

// Catches SIGINT, SIGTERM and SIGHUP for as long as it lives (without SA_RESTART, so a
// blocking read returns), so every way out restores the terminal; then the old handlers.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal = 0;
    struct sigaction action = {};
    action.sa_handler = OnStopSignal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &saved_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &saved_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> saved_ = {};
};

// The exit code for the signal that ended top (130 for Ctrl-C), as shells report it.
int StopCode() { return 128 + static_cast<int>(g_stop_signal); }

ApiResult Fetch(DaemonApi& api, double interval_s) {
  const double wait_s = std::clamp(interval_s, kMinRequestS, kMaxRequestS);
  api.SetTimeoutMs(static_cast<long>(wait_s * 1000));
  return api.Status(nullptr);
}

// As `mcpgw status` reports a daemon that does not answer.
int Fail(CommandIo& io, const ApiResult& result) {
  io.err << "mcpgw: "
         << base::StripControls(PersonHints(ErrorText(result)), {.keep_newlines = true}) << "\n";
  return ExitCodeFor(result.status);
}

const ApiResult kNotJson = {MCPGW_TRANSPORT, "the daemon sent a status that is not JSON"};

TopClock RealClock() {
  TopClock clock;
  clock.now_s = [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
  clock.now_unix = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  clock.sleep_s = [](double seconds, int* stop_code) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (g_stop_signal == 0 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::duration<double>(kSleepStepS));
    }
    if (g_stop_signal == 0) return true;
    *stop_code = StopCode();
    return false;
  };
  return clock;
}

// ---- the terminal ------------------------------------------------------------------------------

enum ColorPair : short { kGreenPair = 1, kYellowPair, kRedPair };

// The terminal in curses mode for as long as it lives; its destructor gives the terminal back
// as it was (endwin), whichever way top ends.
class Screen {
 public:
  // nullptr when this terminal cannot be drawn on (an unknown TERM).
  static std::unique_ptr<Screen> Open(bool want_color) {
    std::setlocale(LC_CTYPE, "");  // UTF-8 names; numbers keep their C format
    SCREEN* screen = newterm(nullptr, stdout, stdin);
    if (screen == nullptr) return nullptr;
    cbreak();  // Ctrl-C still raises SIGINT
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(kEscDelayMs);
    bool color = false;
    if (want_color && has_colors() && start_color() == OK) {
      use_default_colors();
      init_pair(kGreenPair, COLOR_GREEN, -1);
      init_pair(kYellowPair, COLOR_YELLOW, -1);
      init_pair(kRedPair, COLOR_RED, -1);
      color = true;
    }
    return std::unique_ptr<Screen>(new Screen(screen, color));
  }
  ~Screen() {
    endwin();
    delscreen(screen_);
  }
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  size_t width() const { return static_cast<size_t>(std::max(COLS, 0)); }
  size_t height() const { return static_cast<size_t>(std::max(LINES, 0)); }

  void Draw(const std::vector<TopLine>& lines) {
    werase(stdscr);
    for (size_t i = 0; i < lines.size() && i < height(); ++i)
      DrawLine(static_cast<int>(i), lines[i]);
    wnoutrefresh(stdscr);
    doupdate();
  }

  // A key within `wait_ms`, or nullopt (none, a signal, a resize: then *resized is set).
  std::optional<TopInput> ReadKey(int wait_ms, bool* resized) {
    wtimeout(stdscr, wait_ms);
    wint_t ch = 0;
    const int rc = wget_wch(stdscr, &ch);
    if (rc == ERR) return std::nullopt;
    if (rc == KEY_CODE_YES) return FunctionKey(static_cast<int>(ch), resized);
    if (ch == '\n' || ch == '\r') return TopInput{TopKey::kEnter};
    if (ch == 27) return TopInput{TopKey::kEscape};
    if (ch == 127 || ch == 8) return TopInput{TopKey::kBackspace};
    return TopInput{TopKey::kChar, static_cast<char32_t>(ch)};
  }

 private:
  Screen(SCREEN* screen, bool color) : screen_(screen), color_(color) {}

  static std::optional<TopInput> FunctionKey(int key, bool* resized) {
    switch (key) {
      case KEY_RESIZE:
        *resized = true;
        return std::nullopt;
      case KEY_UP:
        return TopInput{TopKey::kUp};
      case KEY_DOWN:
        return TopInput{TopKey::kDown};
      case KEY_HOME:
        return TopInput{TopKey::kHome};
      case KEY_END:
        return TopInput{TopKey::kEnd};
      case KEY_PPAGE:
        return TopInput{TopKey::kPageUp};
      case KEY_NPAGE:
        return TopInput{TopKey::kPageDown};
      case KEY_ENTER:
        return TopInput{TopKey::kEnter};
      case KEY_BACKSPACE:
        return TopInput{TopKey::kBackspace};
      default:
        return std::nullopt;  // other keys do nothing
    }
  }

  attr_t Attr(TopStyle style) const {
    switch (style) {
      case TopStyle::kBold:
        return A_BOLD;
      case TopStyle::kDim:
        return A_DIM;
      case TopStyle::kGood:
        return color_ ? COLOR_PAIR(kGreenPair) : A_NORMAL;
      case TopStyle::kWarn:
        return color_ ? COLOR_PAIR(kYellowPair) : A_BOLD;
      case TopStyle::kBad:
        return color_ ? COLOR_PAIR(kRedPair) | A_BOLD : A_BOLD;
      default:
        return A_NORMAL;
    }
  }

  void DrawLine(int y, const TopLine& line) {
    const attr_t base = line.selected ? A_REVERSE : A_NORMAL;
    wmove(stdscr, y, 0);
    size_t used = 0;
    for (const TopSpan& span : line.spans) {
      wattrset(stdscr, base | Attr(span.style));
      waddstr(stdscr, span.text.c_str());
      used += DisplayWidth(span.text);
    }
    // The selected row is highlighted across the whole screen.
    if (line.selected && used < width()) {
      wattrset(stdscr, base);
      waddstr(stdscr, std::string(width() - used, ' ').c_str());
    }
    wattrset(stdscr, A_NORMAL);
  }

  SCREEN* screen_;
  bool color_;
};

// ---- the live view -----------------------------------------------------------------------------

struct Live {
  DaemonApi& api;
  const Invocation& inv;
  const TopClock& clock;
  TopSample last;  // the last sample the daemon answered
  TopFrame frame;
  TopState state;
  bool reachable = true;
  double notice_until = 0;
};

// One status request: a new frame, or the header says the daemon is not reachable (the last
// frame stays); once it answers again the header says so, and whether it restarted.
void Refresh(Live& live) {
  const double now = live.clock.now_s();
  const ApiResult result = Fetch(live.api, live.inv.interval_s);
  std::optional<TopSample> sample;
  if (result.status == MCPGW_OK) sample = ParseTopSample(result.text, now);
  if (!sample) {
    live.reachable = false;
    live.state.notice =
        "daemon not reachable, retrying: " +
        base::StripControls(ErrorText(result.status == MCPGW_OK ? kNotJson : result));
    live.state.notice_bad = true;
    return;
  }
  const bool restarted = DaemonRestarted(live.last, *sample);
  if (!live.reachable || restarted) {
    live.state.notice = restarted ? "reconnected (daemon restarted)" : "reconnected";
    live.state.notice_bad = false;
    live.notice_until = now + kNoticeS;
  } else if (now >= live.notice_until) {
    live.state.notice.clear();
  }
  live.reachable = true;
  live.frame = MakeTopFrame(&live.last, *sample);
  live.last = std::move(*sample);
}

int Loop(Live& live, Screen& screen) {
  double next = live.clock.now_s() + live.inv.interval_s;
  bool dirty = true;
  for (;;) {
    if (g_stop_signal != 0) return StopCode();
    if (dirty) {
      live.state.page_rows = std::max<size_t>(1, screen.height() > 4 ? screen.height() - 4 : 1);
      screen.Draw(RenderTopScreen(live.frame, live.state, screen.width(), screen.height(),
                                  live.clock.now_unix()));
      dirty = false;
    }
    const double now = live.clock.now_s();
    if (now >= next) {
      Refresh(live);
      next = std::max(next + live.inv.interval_s, live.clock.now_s());
      dirty = true;
      continue;
    }
    bool resized = false;
    const int wait_ms = std::clamp(static_cast<int>((next - now) * 1000) + 1, 1, kMaxKeyWaitMs);
    const std::optional<TopInput> key = screen.ReadKey(wait_ms, &resized);
    dirty = dirty || resized;
    if (!key) continue;
    const TopAction action = HandleTopKey(live.state, *key, VisibleRows(live.frame, live.state));
    if (action == TopAction::kQuit) return 0;
    dirty = dirty || action == TopAction::kRedraw;
  }
}

int RunTopScreen(DaemonApi& api, const Invocation& inv, CommandIo& io, const TopClock& clock) {
  const ApiResult first = Fetch(api, inv.interval_s);
  if (first.status != MCPGW_OK) return Fail(io, first);
  std::optional<TopSample> sample = ParseTopSample(first.text, clock.now_s());
  if (!sample) return Fail(io, kNotJson);
  if (isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1) {
    io.err << "mcpgw: top draws on a terminal; without one, --once prints one frame and --json "
              "a line per refresh\n";
    return kExitMisuse;
  }
  StopSignals signals;
  const std::unique_ptr<Screen> screen = Screen::Open(io.color);
  if (!screen) {
    const char* term = std::getenv("TERM");
    io.err << "mcpgw: cannot draw on this terminal (TERM=" << (term != nullptr ? term : "")
           << "); --once prints one frame as plain text\n";
    return 1;
  }
  Live live{api, inv, clock, {}, {}, {}};
  live.frame = MakeTopFrame(nullptr, *sample);
  live.last = std::move(*sample);
  return Loop(live, *screen);
}

}  // namespace

void TopOptions(CLI::App& app, Invocation& inv) {
  app.add_option("--interval", inv.interval_s,
                 "Seconds between refreshes, 0.1 to 3600 (default 1); one status request each")
      ->type_name("SECONDS")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_flag("--once", inv.once, "Print one frame as plain text and exit (no terminal needed)");
  app.add_flag("--json", inv.json,
               "Print the figures of each refresh as one JSON object per line (no terminal "
               "needed; with --once, one line)");
}

int RunTopOnce(DaemonApi& api, const Invocation& inv, CommandIo& io, const TopClock& clock) {
  const ApiResult result = Fetch(api, inv.interval_s);
  if (result.status != MCPGW_OK) return Fail(io, result);
  std::optional<TopSample> sample = ParseTopSample(result.text, clock.now_s());
  if (!sample) return Fail(io, kNotJson);
  const TopFrame frame = MakeTopFrame(nullptr, std::move(*sample));
  io.out << RenderTopOnce(frame, TopState{}, io.stdout_is_tty ? io.width : 0);
  io.out.flush();
  return 0;
}

int RunTopJson(DaemonApi& api, const Invocation& inv, CommandIo& io, const TopClock& clock) {
  ApiResult result = Fetch(api, inv.interval_s);
  if (result.status != MCPGW_OK) return Fail(io, result);
  std::optional<TopSample> last;
  for (double next = clock.now_s();;) {
    std::optional<TopSample> sample;
    if (result.status == MCPGW_OK) sample = ParseTopSample(result.text, clock.now_s());
    if (sample) {
      io.out << TopJsonLine(MakeTopFrame(last ? &*last : nullptr, *sample), clock.now_unix());
      last = std::move(sample);
    } else if (!last) {
      return Fail(io, kNotJson);
    } else {
      const ApiResult& why = result.status == MCPGW_OK ? kNotJson : result;
      io.out << TopJsonErrorLine("daemon not reachable: " + base::StripControls(ErrorText(why)),
                                 clock.now_unix());
    }
    io.out << "\n";
    io.out.flush();
    if (!io.out || inv.once) return 0;  // a closed stdout ends it as the reader wished
    next = std::max(next + inv.interval_s, clock.now_s());
    int code = 0;
    if (!clock.sleep_s(std::max(0.0, next - clock.now_s()), &code)) return code;
    result = Fetch(api, inv.interval_s);
  }
}

int RunTopCommand(const Invocation& inv, CommandIo& io) {
  LibDaemonApi api(inv.socket);
  const TopClock clock = RealClock();
  if (inv.json) {
    StopSignals signals;
    return RunTopJson(api, inv, io, clock);
  }
  if (inv.once) return RunTopOnce(api, inv, io, clock);
  return RunTopScreen(api, inv, io, clock);
}

}  // namespace mcpgw::cli
